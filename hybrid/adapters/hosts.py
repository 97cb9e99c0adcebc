"""Which adapter hosts an env: each registered one says whether it can, first yes wins.

An adapter registers a test on the env (usually on the class of `env.unwrapped`) and a
factory; `host_for` asks them in order of registration. MiniGrid's and Gymnasium's Taxi's are
registered here, each imported only when an env asks; a user's adapter registers itself the same way
(docs/ADAPTERS.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nesyworld.hybrid.boundary.interface import Host

Test = Callable[[Any], bool]
Factory = Callable[[Any], Host]

_HOSTS: list[tuple[str, Test, Factory]] = []


def register_host(name: str, test: Test, factory: Factory) -> None:
    """Add (or replace, by name) an adapter: `test(env)` says whether `factory(env)` hosts
    it."""
    _HOSTS[:] = [h for h in _HOSTS if h[0] != name]
    _HOSTS.append((name, test, factory))


def host_for(env: Any) -> Host:
    """The host of `env`; a ValueError naming the adapters when none can host it."""
    for _, test, factory in _HOSTS:
        if test(env):
            return factory(env)
    names = ", ".join(h[0] for h in _HOSTS) or "none"
    raise ValueError(f"no adapter hosts {type(getattr(env, 'unwrapped', env)).__name__}; "
                     f"registered: {names}; expected an env one of them hosts, or "
                     "register_host() with an adapter of your own (docs/ADAPTERS.md)")


def _is_minigrid(env: Any) -> bool:
    return any(c.__module__.startswith("minigrid.")
               for c in type(getattr(env, "unwrapped", env)).__mro__)


def _minigrid(env: Any) -> Host:
    from nesyworld.hybrid.adapters.minigrid.host import MiniGridHost

    return MiniGridHost(env)


def _is_taxi(env: Any) -> bool:
    return type(getattr(env, "unwrapped", env)).__name__ == "TaxiEnv" and (
        type(getattr(env, "unwrapped", env)).__module__.startswith("gymnasium."))


def _taxi(env: Any) -> Host:
    from nesyworld.hybrid.adapters.taxi.host import TaxiHost

    return TaxiHost(env)


register_host("minigrid", _is_minigrid, _minigrid)
register_host("taxi", _is_taxi, _taxi)
