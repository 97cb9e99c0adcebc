;; Rovers-like domain with numeric energy and :action-costs (after IPC-2002 numeric Rovers).
(define (domain rovers-energy)
  (:requirements :typing :numeric-fluents :action-costs)
  (:types rover waypoint store lander - object)

  (:predicates (at ?r - rover ?w - waypoint)
               (at-lander ?l - lander ?w - waypoint)
               (can-traverse ?r - rover ?from - waypoint ?to - waypoint)
               (in-sun ?w - waypoint)
               (at-soil-sample ?w - waypoint)
               (store-of ?s - store ?r - rover)
               (empty ?s - store)
               (full ?s - store)
               (have-soil ?r - rover ?w - waypoint)
               (visible ?w - waypoint ?p - waypoint)
               (communicated-soil ?w - waypoint))

  (:functions (energy ?r - rover)
              (total-cost) - number)

  (:action navigate
    :parameters (?r - rover ?from - waypoint ?to - waypoint)
    :precondition (and (at ?r ?from) (can-traverse ?r ?from ?to) (>= (energy ?r) 8))
    :effect (and (not (at ?r ?from)) (at ?r ?to)
                 (decrease (energy ?r) 8)
                 (increase (total-cost) 3)))

  (:action recharge
    :parameters (?r - rover ?w - waypoint)
    :precondition (and (at ?r ?w) (in-sun ?w) (<= (energy ?r) 80))
    :effect (and (increase (energy ?r) 20) (increase (total-cost) 1)))

  (:action sample-soil
    :parameters (?r - rover ?s - store ?w - waypoint)
    :precondition (and (at ?r ?w) (at-soil-sample ?w) (store-of ?s ?r) (empty ?s)
                       (>= (energy ?r) 3))
    :effect (and (not (empty ?s)) (full ?s) (have-soil ?r ?w) (not (at-soil-sample ?w))
                 (decrease (energy ?r) 3)
                 (increase (total-cost) 2)))

  (:action drop
    :parameters (?r - rover ?s - store)
    :precondition (and (store-of ?s ?r) (full ?s))
    :effect (and (not (full ?s)) (empty ?s) (increase (total-cost) 1)))

  (:action communicate-soil
    :parameters (?r - rover ?l - lander ?w - waypoint ?x - waypoint ?y - waypoint)
    :precondition (and (at ?r ?x) (at-lander ?l ?y) (have-soil ?r ?w) (visible ?x ?y)
                       (>= (energy ?r) 4))
    :effect (and (communicated-soil ?w) (decrease (energy ?r) 4)
                 (increase (total-cost) 1))))
