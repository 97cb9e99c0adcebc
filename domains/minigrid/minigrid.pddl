; MiniGrid's objects in nesyworld's vocabulary (docs/ADAPTERS.md), for the MiniGrid adapter
; (hybrid/adapters/minigrid/). Each concrete kind of thing is a constant: a colour and an object
; (yellow_key, red_door), or goal, lava, wall; air is an empty cell. `facing` is the cell in
; front, `holding` what the agent carries (air: nothing), `world` counts things on the grid and
; `inventory` what is carried; the agent standing on the goal square counts as one `goal` in
; its inventory. The task comes from the env's mission: reaching the goal square, or holding
; the thing it names ("pick up the yellow key"). `behind_door` and `through_<door>` are map facts the
; detector computes each state (no path to a thing; a path once that kind of door opens).
(define (domain minigrid)
  (:requirements :strips :typing :negative-preconditions :equality :numeric-fluents
                 :conditional-effects)
  (:types
    physobj - object
    thing - physobj
    portable door fixture - thing
    key ball box - portable
  )
  (:constants
    air wall - physobj
    goal lava - fixture
    red_key green_key blue_key purple_key yellow_key grey_key - key
    red_ball green_ball blue_ball purple_ball yellow_ball grey_ball - ball
    red_box green_box blue_box purple_box yellow_box grey_box - box
    red_door green_door blue_door purple_door yellow_door grey_door - door
  )
  (:predicates (facing ?x - physobj) (holding ?x - physobj) (open ?x - physobj)
               (locked ?x - physobj) (behind_door ?x - physobj)
               (through_red_door ?x - physobj) (through_green_door ?x - physobj) (through_blue_door ?x - physobj)
               (through_purple_door ?x - physobj) (through_yellow_door ?x - physobj) (through_grey_door ?x - physobj))
  (:functions (world ?x - physobj) (inventory ?x - physobj))

  ; walk to a cell next to a thing of that kind the agent can reach, and turn to it
  (:action approach
    :parameters (?x - thing ?from - physobj)
    :precondition (and (>= (world ?x) 1) (facing ?from) (not (behind_door ?x)))
    :effect (and (not (facing ?from)) (facing ?x)))

  ; turn to (or step beside) an empty cell: somewhere to put a thing down
  (:action face_free_cell
    :parameters (?from - physobj)
    :precondition (facing ?from)
    :effect (and (not (facing ?from)) (facing air)))

  (:action pickup
    :parameters (?x - portable)
    :precondition (and (facing ?x) (holding air) (>= (world ?x) 1))
    :effect (and (not (facing ?x)) (facing air) (not (holding air)) (holding ?x)
                 (decrease (world ?x) 1) (increase (inventory ?x) 1)))

  (:action drop
    :parameters (?x - portable)
    :precondition (and (holding ?x) (facing air) (>= (inventory ?x) 1))
    :effect (and (not (holding ?x)) (holding air) (not (facing air)) (facing ?x)
                 (increase (world ?x) 1) (decrease (inventory ?x) 1)))

  ; step onto the goal square in front
  (:action enter_goal
    :parameters ()
    :precondition (facing goal)
    :effect (and (not (facing goal)) (increase (inventory goal) 1)))

  (:action open_red_door
    :parameters ()
    :precondition (and (facing red_door) (not (open red_door)) (not (locked red_door)))
    :effect (open red_door))

  (:action unlock_red_door
    :parameters ()
    :precondition (and (facing red_door) (locked red_door) (holding red_key))
    :effect (and (not (locked red_door)) (open red_door)))

  (:action open_green_door
    :parameters ()
    :precondition (and (facing green_door) (not (open green_door)) (not (locked green_door)))
    :effect (open green_door))

  (:action unlock_green_door
    :parameters ()
    :precondition (and (facing green_door) (locked green_door) (holding green_key))
    :effect (and (not (locked green_door)) (open green_door)))

  (:action open_blue_door
    :parameters ()
    :precondition (and (facing blue_door) (not (open blue_door)) (not (locked blue_door)))
    :effect (open blue_door))

  (:action unlock_blue_door
    :parameters ()
    :precondition (and (facing blue_door) (locked blue_door) (holding blue_key))
    :effect (and (not (locked blue_door)) (open blue_door)))

  (:action open_purple_door
    :parameters ()
    :precondition (and (facing purple_door) (not (open purple_door)) (not (locked purple_door)))
    :effect (open purple_door))

  (:action unlock_purple_door
    :parameters ()
    :precondition (and (facing purple_door) (locked purple_door) (holding purple_key))
    :effect (and (not (locked purple_door)) (open purple_door)))

  (:action open_yellow_door
    :parameters ()
    :precondition (and (facing yellow_door) (not (open yellow_door)) (not (locked yellow_door)))
    :effect (open yellow_door))

  (:action unlock_yellow_door
    :parameters ()
    :precondition (and (facing yellow_door) (locked yellow_door) (holding yellow_key))
    :effect (and (not (locked yellow_door)) (open yellow_door)))

  (:action open_grey_door
    :parameters ()
    :precondition (and (facing grey_door) (not (open grey_door)) (not (locked grey_door)))
    :effect (open grey_door))

  (:action unlock_grey_door
    :parameters ()
    :precondition (and (facing grey_door) (locked grey_door) (holding grey_key))
    :effect (and (not (locked grey_door)) (open grey_door)))
)
