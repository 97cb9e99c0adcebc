"""Registries: decorator registration, clear misses, and entry-point discovery on a miss."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from nesyworld.world import registry as registry_module
from nesyworld.world.registry import ACTIONS, Registry


def test_builtins_registered() -> None:
    import nesyworld.world.builtins  # noqa: F401

    for name in ("move", "rotate", "approach", "break", "collect", "craft", "trade", "select",
                 "deselect", "place", "use", "nop", "give_up"):
        assert name in ACTIONS, name


def test_decorator_and_conflict() -> None:
    reg: Registry = Registry("thing", "nesyworld.test-things")

    @reg.register("a")
    class A:
        pass

    assert reg.get("a") is A and A.registered_name == "a"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="already registered"):

        @reg.register("a")
        class B:
            pass


def test_unknown_name_lists_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_module, "entry_points", lambda group: [])
    reg: Registry = Registry("thing", "nesyworld.test-things")
    reg.register("known")(type("Known", (), {}))
    with pytest.raises(KeyError, match="unknown thing 'nope'; registered: known"):
        reg.get("nope")


def test_entry_points_load_only_on_a_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    class Plugin:
        pass

    loads: list[str] = []

    def fake_entry_points(group: str) -> list[SimpleNamespace]:
        assert group == "nesyworld.test-things"
        return [SimpleNamespace(name="plugin", load=lambda: loads.append("x") or Plugin)]

    monkeypatch.setattr(registry_module, "entry_points", fake_entry_points)
    reg: Registry = Registry("thing", "nesyworld.test-things")
    reg.register("local")(type("Local", (), {}))
    assert reg.get("local") is not None and loads == []  # a hit never scans entry points
    assert reg.get("plugin") is Plugin and loads == ["x"]
    assert "plugin" in reg.names()
