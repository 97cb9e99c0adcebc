;; All numeric effect kinds (assign, increase, decrease, scale-up, scale-down) and operators.
;; unified-planning's own reader has no scale-up/scale-down.
(define (domain tanks)
  (:requirements :typing :numeric-fluents :negative-preconditions :equality)
  (:types tank)
  (:functions (level ?t - tank)
              (capacity ?t - tank))

  (:action fill
    :parameters (?t - tank)
    :precondition (< (level ?t) (capacity ?t))
    :effect (assign (level ?t) (capacity ?t)))

  (:action double
    :parameters (?t - tank)
    :precondition (and (> (level ?t) 0) (<= (* 2 (level ?t)) (capacity ?t)))
    :effect (scale-up (level ?t) 2))

  (:action halve
    :parameters (?t - tank)
    :precondition (>= (/ (level ?t) 2) 1)
    :effect (scale-down (level ?t) 2))

  (:action pour
    :parameters (?a ?b - tank)
    :precondition (and (not (= ?a ?b)) (> (level ?a) 0)
                       (<= (+ (level ?b) (level ?a)) (capacity ?b)))
    :effect (and (increase (level ?b) (level ?a)) (assign (level ?a) 0)))

  (:action spill
    :parameters (?t - tank)
    :precondition (> (- (level ?t) (- 1)) 1)
    :effect (decrease (level ?t) 1)))
