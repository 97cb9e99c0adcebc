; Gymnasium's Taxi in nesyworld's vocabulary (docs/ADAPTERS.md), for the Taxi adapter
; (hybrid/adapters/taxi/). The four coloured stands are the kinds of place; the taxi `facing`
; a stand means it is on that stand's cell (air: anywhere else). The passenger is in the
; `world` while waiting and in the `inventory` while riding; once set down at the destination
; they count as one `delivered`, the task's goal. `waiting_at` and `destination` say where.
(define (domain taxi)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents)
  (:types
    physobj - object
    stand - physobj
  )
  (:constants
    air passenger delivered - physobj
    red_stand green_stand yellow_stand blue_stand - stand
  )
  (:predicates (facing ?x - physobj) (holding ?x - physobj) (waiting_at ?x - physobj)
               (destination ?x - physobj))
  (:functions (world ?x - physobj) (inventory ?x - physobj))

  ; drive to a stand's cell, the shortest way around the walls
  (:action drive_to
    :parameters (?s - stand ?from - physobj)
    :precondition (facing ?from)
    :effect (and (not (facing ?from)) (facing ?s)))

  (:action pick_up
    :parameters (?s - stand)
    :precondition (and (facing ?s) (waiting_at ?s) (>= (world passenger) 1))
    :effect (and (not (waiting_at ?s)) (decrease (world passenger) 1)
                 (increase (inventory passenger) 1)))

  (:action drop_off
    :parameters (?s - stand)
    :precondition (and (facing ?s) (destination ?s) (>= (inventory passenger) 1))
    :effect (and (decrease (inventory passenger) 1) (increase (inventory delivered) 1)))
)
