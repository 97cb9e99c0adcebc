(define (problem light-the-cellar)
  (:domain switches)
  (:objects hall kitchen cellar - room
            s1 s2 s3 - switch)
  (:init (in hall) (seen hall)
         (door hall kitchen) (door cellar kitchen)
         (wired s1 kitchen) (wired s2 cellar) (wired s3 hall))
  (:goal (and (lit cellar) (in hall))))
