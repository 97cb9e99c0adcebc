;; ADL preconditions: or, imply, exists, forall, equality, negation, and a conditional toggle.
(define (domain switches)
  (:requirements :typing :disjunctive-preconditions :existential-preconditions
                 :universal-preconditions :negative-preconditions :equality
                 :conditional-effects)
  (:types room switch)
  (:predicates (in ?r - room)
               (door ?a - room ?b - room)
               (on ?s - switch)
               (wired ?s - switch ?r - room)
               (lit ?r - room)
               (seen ?r - room))

  (:action walk
    :parameters (?from ?to - room)
    :precondition (and (in ?from) (not (= ?from ?to))
                       (or (door ?from ?to) (door ?to ?from))
                       (exists (?s - switch) (and (wired ?s ?to) (on ?s))))
    :effect (and (in ?to) (not (in ?from)) (seen ?to)))

  (:action flip
    :parameters (?s - switch ?r - room)
    :precondition (and (in ?r) (imply (on ?s) (seen ?r)))
    :effect (and (when (on ?s) (not (on ?s)))
                 (when (not (on ?s)) (on ?s))))

  (:action close-up
    :parameters (?r - room)
    :precondition (and (in ?r) (forall (?s - switch) (imply (wired ?s ?r) (on ?s))))
    :effect (lit ?r)))
