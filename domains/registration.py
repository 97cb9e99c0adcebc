"""Gymnasium ids for every shipped world spec.

Every spec under domains/ gets the id ``nesyworld/<CamelCaseStem>-v0`` (``pogostick_full.yaml``
is ``nesyworld/PogostickFull-v0``), so a spec added there is an env with no code. Registration
is data only (entry-point strings and the spec name): it lists this folder and imports no
simulator module, so ``import nesyworld``, which registers the ids, stays cheap and loads
nothing of the world for a user who only wants, say, the learning layer. A spec file is read
only when an env is made.

Gymnasium itself (with numpy, about 0.2 s) is not imported to register: `register_when_imported`
registers at once when gymnasium is already loaded, and otherwise as soon as something imports
it, so ``import nesyworld`` stays cheap for the command line and the symbolic layer, while
``import nesyworld; gymnasium.make("nesyworld/Pogostick-v0")`` works as before.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

from nesyworld.domains import shipped_specs

NAMESPACE = "nesyworld"
GYM_ENTRY_POINT = "nesyworld.world.envs.gym_env:NesyGridEnv"
VECTOR_ENTRY_POINT = "nesyworld.world.envs.vector_env:NesyVectorEnv"


def env_id(spec_name: str, version: int = 0) -> str:
    """The gymnasium id of a shipped spec: ``pogostick_full`` -> ``nesyworld/PogostickFull-v0``."""
    camel = "".join(part[:1].upper() + part[1:] for part in spec_name.split("_") if part)
    return f"{NAMESPACE}/{camel}-v{version}"


def shipped_env_specs() -> dict[str, str]:
    """gymnasium id -> spec name, for every shipped spec (see nesyworld.domains.find_spec)."""
    return {env_id(name): name for name in shipped_specs()}


ENV_SPECS: dict[str, str] = shipped_env_specs()


def register_envs() -> None:
    """Register every id in ENV_SPECS; registering again is harmless (gymnasium would warn on
    an override, so registered ids are skipped)."""
    import gymnasium

    for gym_id, spec in ENV_SPECS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=GYM_ENTRY_POINT,
                               vector_entry_point=VECTOR_ENTRY_POINT, kwargs={"spec": spec})


def register_when_imported() -> None:
    """`register_envs` now if gymnasium is loaded, else right after gymnasium is first imported.

    The deferral is a finder at the front of ``sys.meta_path`` (the import system's documented
    hook) that answers only for ``gymnasium``: it returns gymnasium's own spec with a loader
    that runs gymnasium's loader and then registers, puts gymnasium's loader back on the module
    and removes itself. Calling this again while a finder waits adds no second one.
    """
    with _HOOK_LOCK:
        if "gymnasium" in sys.modules:
            register_envs()
        elif not any(isinstance(f, _RegisterOnGymnasiumImport) for f in sys.meta_path):
            sys.meta_path.insert(0, _RegisterOnGymnasiumImport())


_HOOK_LOCK = threading.Lock()


class _RegisterOnGymnasiumImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of gymnasium's spec (see register_when_imported)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        # the finders after this one, as the import system would have asked them
        for finder in sys.meta_path[sys.meta_path.index(self) + 1:]:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _RegisteringLoader(spec.loader, self)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """Runs gymnasium's loader, then registers our ids; the module keeps gymnasium's loader."""

    def __init__(self, loader: importlib.abc.Loader, finder: importlib.abc.MetaPathFinder
                 ) -> None:
        self.loader, self.finder = loader, finder

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        try:
            module.__loader__ = self.loader
            if module.__spec__ is not None:
                module.__spec__.loader = self.loader
            self.loader.exec_module(module)
        finally:
            if self.finder in sys.meta_path:
                sys.meta_path.remove(self.finder)
        register_envs()
