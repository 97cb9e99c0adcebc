"""MiniGrid's domain for the MiniGrid adapter (minigrid.pddl) and its shipped novelties
(novelties.py)."""
