"""A unified-planning Environment that loads the planning engines only when one is asked for.

Why: ``unified_planning.environment.Environment()`` builds its engine ``Factory`` as it is
made, and importing ``unified_planning.engines`` for it imports ConfigSpace, which imports
scipy.stats: more than a second, most of what ``nesyworld parse`` spent, for a factory that
reading PDDL never uses. Reading needs only the type and expression managers and the walkers.

How: :class:`DeferredFactoryEnvironment` is an ``Environment`` (everything in UP that takes an
environment accepts it) whose components are each built on first use, through the same public
properties UP reads them by; ``factory`` (and with it the engines import) is built when a
planner, validator or compiler first asks for it. :func:`reading_environment` makes one UP's
global environment when no global environment exists yet, so that problems read from files
still compare equal to, and plan with, everything built through ``get_environment()``.

The guard: the class does not run ``Environment.__init__`` (which would import the engines),
so it must provide every component UP's class declares. :func:`deferral_supported` compares
UP's properties with the ones served here; a unified-planning release that adds a component
makes it False, and the reader then uses UP's own environment (slower start, same results).
"""

from __future__ import annotations

import sys
import threading
from importlib import import_module
from typing import Any

import unified_planning.environment as up_environment
from unified_planning.environment import Environment

# Each component: the module and class UP builds it from, and whether the class takes the
# environment. Built on first use.
COMPONENTS: dict[str, tuple[str, str, bool]] = {
    "type_manager": ("unified_planning.model.type_manager", "TypeManager", False),
    "type_checker": ("unified_planning.model.walkers", "TypeChecker", True),
    "expression_manager": ("unified_planning.model", "ExpressionManager", True),
    "free_vars_oracle": ("unified_planning.model", "FreeVarsOracle", False),
    "simplifier": ("unified_planning.model.walkers", "Simplifier", True),
    "substituter": ("unified_planning.model.walkers", "Substituter", True),
    "free_vars_extractor": ("unified_planning.model.walkers", "FreeVarsExtractor", False),
    "names_extractor": ("unified_planning.model.walkers", "NamesExtractor", False),
    "factory": ("unified_planning.engines", "Factory", True),  # the slow import deferred
}

# Settable flags UP's own properties keep; they are set through those properties.
SETTINGS = ("credits_stream", "error_used_name")

# One lock for all instances: a lock in the instance would make the environment unpicklable,
# and UP's parallel engine pickles environments. Re-entrant: a component's constructor may ask
# for another component.
_BUILD_LOCK = threading.RLock()


def _deferred(name: str) -> property:
    def get(self: DeferredFactoryEnvironment) -> Any:
        built = self._deferred_components
        if name not in built:
            with _BUILD_LOCK:
                if name not in built:
                    module, cls, takes_env = COMPONENTS[name]
                    make = getattr(import_module(module), cls)
                    built[name] = make(self) if takes_env else make()
        return built[name]

    return property(get, doc=getattr(getattr(Environment, name, None), "__doc__", None))


class DeferredFactoryEnvironment(Environment):
    """UP's Environment with every component built on first use; see the module docstring.

    ``factory_built`` says whether the engines have been loaded (for tests and diagnostics).
    """

    def __init__(self) -> None:
        # Environment.__init__ is deliberately not called: it imports unified_planning.engines.
        self._deferred_components: dict[str, Any] = {}
        self.credits_stream = sys.stdout  # UP's default
        self.error_used_name = True  # UP's default

    @property
    def factory_built(self) -> bool:
        return "factory" in self._deferred_components

    type_manager = _deferred("type_manager")
    type_checker = _deferred("type_checker")
    expression_manager = _deferred("expression_manager")
    free_vars_oracle = _deferred("free_vars_oracle")
    simplifier = _deferred("simplifier")
    substituter = _deferred("substituter")
    free_vars_extractor = _deferred("free_vars_extractor")
    names_extractor = _deferred("names_extractor")
    factory = _deferred("factory")


def deferral_supported() -> bool:
    """True when this unified-planning's Environment declares exactly the components and
    settings served here (no other method or property that could read a field this class does
    not set), and has a global environment that `reading_environment` can set."""
    declared = {name for name in vars(Environment) if not name.startswith("__")}
    return (declared == set(COMPONENTS) | set(SETTINGS)
            and hasattr(up_environment, "GLOBAL_ENVIRONMENT"))


def shared_environment() -> Environment:
    """UP's global environment, made a :class:`DeferredFactoryEnvironment` when none exists
    yet (and `deferral_supported`): the one ``get_environment()`` returns afterwards, so that
    problems derived, read from files and built by users all compare equal and plan together,
    and the engines load only when a planner, validator or compiler asks for them."""
    with _BUILD_LOCK:
        if up_environment.GLOBAL_ENVIRONMENT is None and deferral_supported():
            up_environment.GLOBAL_ENVIRONMENT = DeferredFactoryEnvironment()
    return up_environment.get_environment()


def reading_environment(environment: Environment | None = None) -> Environment:
    """The environment to read into: `environment` when given, else `shared_environment()`."""
    return environment if environment is not None else shared_environment()
