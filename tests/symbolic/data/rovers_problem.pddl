(define (problem roverprob-tiny) (:domain rovers-energy)
  (:objects rover0 - rover
            w0 w1 w2 - waypoint
            store0 - store
            general - lander)
  (:init (at rover0 w0)
         (at-lander general w0)
         (can-traverse rover0 w0 w1) (can-traverse rover0 w1 w0)
         (can-traverse rover0 w1 w2) (can-traverse rover0 w2 w1)
         (in-sun w1)
         (at-soil-sample w2)
         (store-of store0 rover0) (empty store0)
         (visible w1 w0) (visible w0 w1)
         (= (energy rover0) 10)
         (= (total-cost) 0))
  (:goal (and (communicated-soil w2)))
  (:metric minimize (total-cost)))
