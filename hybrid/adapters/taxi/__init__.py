"""Gymnasium's Taxi behind nesyworld's environment boundary (host.py): an env whose
observation is one integer, not a grid, hosted with the same API as MiniGrid."""
