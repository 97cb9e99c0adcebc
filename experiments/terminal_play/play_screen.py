"""One frame of `nesyworld play`: the coloured map, its legend, the legal actions with their
keys, and a status line.

Why a frame is a single rich renderable: the interactive game redraws it in place (rich's
live display) after each key, and the pipe path prints the same frame, so what a test reads
from a recording console is what a player sees. Colours come from the same palette as the
RGB rendering (`default_palette`, or the spec's own colours), so the terminal and the
studio agree on what a block looks like.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from nesyworld.world.observations import FACING_ARROWS, default_palette

if TYPE_CHECKING:
    from nesyworld.world import World

__all__ = ["Frame", "type_styles"]

AIR = "air"
DARK = 90
"""Palette colours darker than this (max RGB channel) are lifted so they show on a black
terminal background."""


def type_styles(world: World) -> list[Style]:
    """A rich style per entity type, index-aligned with `world.types.names`."""
    names = list(world.types.names)
    palette = default_palette(names)
    styles = []
    for i, name in enumerate(names):
        own = world.types.colors[i]
        r, g, b = (int(c) for c in (own if own else palette[i]))
        if max(r, g, b) < DARK:
            r, g, b = r + DARK, g + DARK, b + DARK
        styles.append(Style(color="grey39") if name == AIR else
                      Style(color=f"rgb({r},{g},{b})", bold=True))
    return styles


@dataclass(frozen=True)
class Frame:
    """What one screen shows; `render` turns it into a rich renderable."""

    world: World
    bindings: Sequence[tuple[str, str]]
    """(key, action) for each legal action, in the world's action order."""
    message: Text
    """The last action's outcome, or a hint."""
    prompt: str | None = None
    """Text typed so far after ':' (None when not typing)."""
    show_all: bool = False
    """List every action with its number, not only the legal ones."""
    footer: str = ""

    def render(self) -> RenderableType:
        top = Table.grid(padding=(0, 3))
        top.add_column(no_wrap=True)
        top.add_column()
        top.add_row(self.map_text(), self.legend())
        parts: list[RenderableType] = [self.title(), top, self.status(), self.message]
        if self.prompt is not None:
            parts.append(Text(f": {self.prompt}_", style="bold"))
        parts.append(self.all_actions() if self.show_all else self.legal_actions())
        if self.footer:
            parts.append(Text(self.footer, style="dim"))
        return Group(*parts)

    def title(self) -> Text:
        w = self.world
        goal = ", ".join(f"{n} x{c}" for n, c in w.spec.goal.items()) or "none"
        return Text.assemble((f"{w.spec.name}", "bold"), f"  step {w.state.step}/"
                             f"{w.spec.max_steps}  goal: {goal}")

    def map_text(self) -> Text:
        w = self.world
        st = w.state
        styles = type_styles(w)
        glyphs = w.types.glyphs
        agents = {(int(r), int(c)): (i, int(f))
                  for i, ((r, c), f) in enumerate(zip(st.pos, st.facing, strict=True))}
        text = Text(no_wrap=True, overflow="crop")
        grid = np.asarray(st.grid)
        for r in range(grid.shape[0]):
            if r:
                text.append("\n")
            for c in range(grid.shape[1]):
                t = int(grid[r, c])
                if (r, c) in agents:
                    i, facing = agents[(r, c)]
                    style = ("bold black on yellow" if i == w.main else "bold black on cyan")
                    text.append(FACING_ARROWS[facing & 3], style=style)
                else:
                    text.append(glyphs[t], style=styles[t])
        return text

    def legend(self) -> Table:
        """The types on the map and in the inventory, a glyph each, and the agents."""
        w = self.world
        styles = type_styles(w)
        grid = np.asarray(w.state.grid).copy()
        agent_types = {int(grid[int(r), int(c)]) for r, c in w.state.pos}
        present = set(np.unique(grid).tolist()) - agent_types  # agents are drawn as arrows
        present |= {int(i) for i in np.flatnonzero(w.state.inventory[w.main])}
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(no_wrap=True)
        table.add_row(Text("legend", style="bold underline"), "")
        table.add_row(Text("^>v<", style="bold black on yellow"),
                      f"you ({w.agent_names[w.main]})")
        others = [n for i, n in enumerate(w.agent_names) if i != w.main]
        if others:
            table.add_row(Text("^>v<", style="bold black on cyan"), ", ".join(others))
        for t in sorted(present):
            table.add_row(Text(w.types.glyphs[t], style=styles[t]), w.types.names[t])
        return table

    def status(self) -> Text:
        w = self.world
        a = w.main
        st = w.state
        inventory = ", ".join(f"{n} {c}" for n, c in w.inventory_dict(a).items()) or "nothing"
        return Text.assemble(
            "facing ", (w.types.names[w.front_type(a)], "bold"), ", holding ",
            (w.types.names[st.selected[a]], "bold"), "\ninventory: ", inventory)

    def legal_actions(self) -> RenderableType:
        cells = [Text.assemble((f"{key:>5}", "bold cyan"), " ", action)
                 for key, action in self.bindings]
        return Group(Text(f"legal actions ({len(cells)})", style="bold underline"),
                     Columns(cells, column_first=True, padding=(0, 2)))

    def all_actions(self) -> RenderableType:
        legal = {action for _, action in self.bindings}
        cells = [Text(f"{i:3d} {name}", style="" if name in legal else "dim")
                 for i, name in enumerate(self.world.action_names())]
        return Group(Text("all actions (dim: refused here; type ':' then a number or name)",
                          style="bold underline"),
                     Columns(cells, column_first=True, padding=(0, 2)))
