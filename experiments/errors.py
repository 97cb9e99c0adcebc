"""Which exceptions are a user's input errors, told apart without importing anything.

Every loader in the project raises one of a few error types for input it refuses (a world spec,
a novelty, a config, PDDL, a recording, a trajectory, a saved state, a checkpoint). The CLI
prints those as one located line and exit status 2; anything else is a bug and points to
``--debug``. The fuzz suite (tests/fuzz/) uses the same test: only these may escape a loader.

The classes are named, not imported: the checkpoint error lives beside torch, and the CLI must
start without importing it. An error can only be an instance of a class whose module has been
imported, so looking the classes up in ``sys.modules`` at the time of the error is exact.
"""

from __future__ import annotations

import sys

USER_ERRORS: tuple[tuple[str, str], ...] = (
    ("nesyworld.world.errors", "SpecError"),
    ("nesyworld.symbolic.pddl.errors", "PDDLError"),
    ("nesyworld.symbolic.derivation.derive", "DerivationError"),
    ("nesyworld.symbolic.derivation.schema_io", "UnsupportedConstruct"),
    ("nesyworld.hybrid.recording.reader", "RecordingError"),
    ("nesyworld.learning.training.checkpoint", "CheckpointError"),
    ("nesyworld.learning.training.space_codec", "SpaceFormatError"),
    ("nesyworld.experiments.studio.levels", "LevelError"),
    ("nesyworld.experiments.protocol.metrics", "MetricsError"),
    ("nesyworld.experiments.continual.run", "ContinualError"),
    ("nesyworld.world.simulation.trajectory", "ReplayMismatch"),
    ("nesyworld.experiments.cli.arguments", "UsageError"),
    ("nesyworld.experiments.protocol.hosted", "HostedEnvError"),
)
"""(module, class) of every error type that reports bad input; add new loaders' types here."""


def user_error_types() -> tuple[type[BaseException], ...]:
    """The USER_ERRORS classes whose modules are imported now."""
    found = []
    for module_name, class_name in USER_ERRORS:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


def is_user_error(err: BaseException) -> bool:
    """Whether `err` reports bad input (one of USER_ERRORS) rather than a bug."""
    return isinstance(err, user_error_types())
