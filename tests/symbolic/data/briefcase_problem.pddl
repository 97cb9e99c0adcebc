(define (problem get-paid)
  (:domain briefcase)
  (:objects home office bank - location
            dictionary paycheck - portable)
  (:init (is-at home) (at dictionary home) (at paycheck home))
  (:goal (and (at dictionary office) (at paycheck bank) (is-at home))))
