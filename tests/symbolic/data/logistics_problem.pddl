(define (problem logistics-2-1)
  (:domain logistics)
  (:objects
    apn1 - airplane
    apt1 apt2 - airport
    pos1 pos2 - location
    cit1 cit2 - city
    tru1 tru2 - truck
    obj11 obj21 - package)
  (:init (at apn1 apt2)
         (at tru1 pos1) (at obj11 pos1)
         (at tru2 pos2) (at obj21 pos2)
         (in-city pos1 cit1) (in-city apt1 cit1)
         (in-city pos2 cit2) (in-city apt2 cit2))
  (:goal (and (at obj11 apt2) (at obj21 pos1))))
