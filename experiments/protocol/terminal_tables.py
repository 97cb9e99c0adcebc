"""Tables for a terminal of any width, from 80 columns up.

A rich `Table` squeezed into 80 columns cuts its cells with an ellipsis ("S_p…", "rap…"),
which hides exactly what a results table is for. `FittedTable` keeps the full one-line layout
when it fits, and otherwise draws a compact one: short headers, no vertical rules, and each
"mean ± sd" cell on two lines, mean above sd. Cells that still do not fit wrap; they are never
cut.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table


@dataclass(frozen=True)
class FittedTable:
    """A table that picks its layout from the width it is drawn in.

    `short_headers` are the compact layout's headers (same order as `headers`); `section_column`
    names the column whose non-empty cells start a new block (a rule is drawn above them)."""

    headers: Sequence[str]
    cells: Sequence[Sequence[str]]
    title: str = ""
    short_headers: Sequence[str] = ()
    section_column: str = ""
    compact_drops: Sequence[str] = ()
    """Columns (by full header) the compact layout leaves out: the ones a report file has."""
    whole_columns: Sequence[str] = ("Novelty", "Agent")
    """Columns never wrapped: names read badly broken in the middle."""

    def wide(self) -> Table:
        return self._table(self.headers, self.cells, compact=False)

    def compact(self) -> Table:
        keep = [i for i, h in enumerate(self.headers) if h not in self.compact_drops]
        short = self.short_headers or self.headers
        cells = [[row[i].replace(" ± ", "\n±") for i in keep] for row in self.cells]
        return self._table([short[i] for i in keep], cells, compact=True,
                           full=[self.headers[i] for i in keep])

    def _table(self, headers: Sequence[str], cells: Sequence[Sequence[str]], compact: bool,
               full: Sequence[str] | None = None) -> Table:
        full = list(self.headers if full is None else full)
        table = Table(title=self.title or None, box=box.SIMPLE_HEAD if compact else box.HEAVY_HEAD,
                      padding=(0, 1) if not compact else (0, 0, 0, 1), pad_edge=not compact,
                      collapse_padding=compact)
        for header, name in zip(headers, full, strict=True):
            table.add_column(header, overflow="fold", no_wrap=name in self.whole_columns)
        col = full.index(self.section_column) if self.section_column in full else -1
        for i, row in enumerate(cells):
            ends = col >= 0 and i + 1 < len(cells) and cells[i + 1][col] != ""
            table.add_row(*row, end_section=ends)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = self.wide()
        unbounded = options.update_width(1 << 20)  # Measurement.get clamps to the width
        fits = Measurement.get(console, unbounded, wide).maximum <= options.max_width
        yield wide if fits else self.compact()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        wide = Measurement.get(console, options, self.wide())
        compact = Measurement.get(console, options, self.compact())
        return Measurement(compact.minimum, wide.maximum)

    def __iter__(self) -> Iterator[Sequence[str]]:
        return iter(self.cells)
