"""How big a world spec may be: the limits every spec reader enforces, in one place.

A spec is data a user (or a downloaded file) hands us, so each limit is what keeps a wrong or
hostile value from hanging the loader, exhausting memory, or overflowing the simulator's
fixed-width arrays later. Each is far above what a hand-written world needs (the shipped
specs have a few hundred values, maps under 40 cells a side), and an error that hits one says
which limit it was.
"""

from __future__ import annotations

MAX_FILE_BYTES = 2_000_000
"""A spec or novelty file; the largest shipped one is under 8 kB."""

MAX_DEPTH = 64
"""Nesting of mappings and lists (aliases included). Python's own readers recurse; a spec
needs about 6 levels."""

MAX_NODES = 20_000
"""Values in one document once every alias is expanded: the bound that stops an alias bomb
(a few lines of nested anchors that expand to billions of values), and keeps the slowest
legal document to about a second (the largest shipped spec has under 1,000 values)."""

MAX_INT32 = 2**31 - 1
"""The largest value a simulator array (int32 inventories, counts and cells) can hold."""

MAX_COUNT = 1_000_000
"""Items in a count (inventories, goals, recipes, drops): room for many gains before an int32
inventory could overflow."""

MAX_STEPS = 100_000_000
"""Step numbers (max_steps, event steps, regrowth delays, schedule phases)."""

MAX_MAP_SIDE = 256
"""Rows or columns of a map: a 256 x 256 map is 65k cells, which the layout kernels still
place in well under a second."""

MAX_TYPES = 10_000
"""Entity types: type ids are int16 in the grid."""

MAX_ROOMS = 64
"""Rooms of a generated map (each is drawn, split and checked per episode)."""

MAX_SCENT_DIMS = 64
"""Components of a scent vector: the scent field is (rows, columns, dims) floats."""

MAX_EVENT_COUNT = 1_000
"""Things one event spawns, removes, moves or sets (each spawn searches the map)."""
