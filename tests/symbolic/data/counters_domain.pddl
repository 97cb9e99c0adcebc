;; Numeric counters (after the IPC-2023 numeric track "counters"): arithmetic in conditions.
(define (domain fn-counters)
  (:requirements :strips :typing :numeric-fluents)
  (:types counter)
  (:functions (value ?c - counter)
              (max_int))

  (:action increment
    :parameters (?c - counter)
    :precondition (and (<= (+ (value ?c) 1) (max_int)))
    :effect (and (increase (value ?c) 1)))

  (:action decrement
    :parameters (?c - counter)
    :precondition (and (>= (value ?c) 1))
    :effect (and (decrease (value ?c) 1)))

  (:action double
    :parameters (?c - counter)
    :precondition (and (> (value ?c) 0) (<= (* 2 (value ?c)) (max_int)))
    :effect (assign (value ?c) (* 2 (value ?c)))))
