"""MiniGrid behind nesyworld's environment boundary: its objects in the vocabulary of
domains/minigrid/minigrid.pddl (detector.py), walks to things (navigation.py), and the host
the planning agent runs on (host.py). Needs the `minigrid` extra:
`pip install "nesyworld[minigrid]"`."""
