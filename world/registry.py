"""Open registries: specs name classes by registered name, never by module path.

A spec is data, so loading one must not import arbitrary code. Classes join a registry by the
`register` decorator (built-ins and anything the user imports) or through the Python entry-point
groups `nesyworld.entities`, `nesyworld.actions` and `nesyworld.controllers`, which third-party
packages declare in their own pyproject.toml. Entry points load only on a miss, so a plain spec
never triggers them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """A name -> class table with lazy entry-point discovery."""

    def __init__(self, kind: str, entry_point_group: str) -> None:
        self.kind = kind
        self.group = entry_point_group
        self._classes: dict[str, type[T]] = {}
        self._entry_points_loaded = False

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        def decorator(cls: type[T]) -> type[T]:
            existing = self._classes.get(name)
            if existing is not None and existing is not cls:
                raise ValueError(
                    f"{self.kind} '{name}' is already registered to "
                    f"{existing.__module__}.{existing.__qualname__}"
                )
            self._classes[name] = cls
            cls.registered_name = name  # type: ignore[attr-defined]
            return cls

        return decorator

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        for ep in entry_points(group=self.group):
            if ep.name not in self._classes:
                self._classes[ep.name] = ep.load()

    def get(self, name: str) -> type[T]:
        if name not in self._classes:
            self._load_entry_points()
        try:
            return self._classes[name]
        except KeyError:
            raise KeyError(
                f"unknown {self.kind} '{name}'; registered: {', '.join(sorted(self._classes))}"
            ) from None

    def __contains__(self, name: object) -> bool:
        if name not in self._classes:
            self._load_entry_points()
        return name in self._classes

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._classes)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


# The three registries. Their contents are filled by the modules that define the built-ins
# (nesyworld.world.actions, nesyworld.world.entities.classes, nesyworld.world.entities.controllers).
ACTIONS: Registry = Registry("action class", "nesyworld.actions")
ENTITIES: Registry = Registry("entity class", "nesyworld.entities")
CONTROLLERS: Registry = Registry("controller", "nesyworld.controllers")
