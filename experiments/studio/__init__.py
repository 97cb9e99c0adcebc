"""`nesyworld studio`: watch recorded episodes (plan, PDDL, failures, learning) and edit
levels in the browser."""

from nesyworld.experiments.studio.app import create_app
from nesyworld.experiments.studio.server import RunningStudio, start

__all__ = ["RunningStudio", "create_app", "start"]
