"""`nesyworld studio`: watch recorded episodes (plan, PDDL, failures, learning) and edit
levels in the browser; `LiveHub` and `LiveRun` stream a run to its Live tab as it goes."""

from nesyworld.experiments.studio.app import create_app
from nesyworld.experiments.studio.live import LiveHub
from nesyworld.experiments.studio.live_run import LiveRun
from nesyworld.experiments.studio.server import RunningStudio, start

__all__ = ["LiveHub", "LiveRun", "RunningStudio", "create_app", "start"]
