"""The `map:` section: size, border, drawn rows, rooms, walls, doors, placements and the
surround, checked against the map's bounds and the declared types."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from nesyworld.world.errors import Location, SpecError
from nesyworld.world.spec.bounds import MAX_MAP_SIDE
from nesyworld.world.spec.model import (
    DoorSpec,
    EntityTypeSpec,
    MapSpec,
    PlacementSpec,
    RoomSpec,
    SurroundSpec,
    WallSpec,
)
from nesyworld.world.spec.reader import SpecReader
from nesyworld.world.spec.yaml_source import KeyPath


def in_map(size: tuple[int, int], cell: tuple[int, int]) -> bool:
    return 0 <= cell[0] < size[0] and 0 <= cell[1] < size[1]


def parse_map(rd: SpecReader, raw: Any, types: Mapping[str, Any]) -> MapSpec:
    raw = rd.mapping(raw, ("map",), {"size", "border", "rooms", "walls", "doors", "objects",
                                     "ascii", "legend", "surround", "generate"})
    if raw.get("generate") is not None:  # a procedural level (spec/generation.py)
        from nesyworld.world.spec.generation import generated_map
        return generated_map(rd, raw, types)
    legend: dict[str, str] = {}
    ascii_rows: tuple[str, ...] | None = None
    if "ascii" in raw:
        text = rd.string(raw["ascii"], ("map", "ascii"))
        ascii_rows = tuple(line for line in text.splitlines() if line.strip())
        widths = {len(r) for r in ascii_rows}
        if len(widths) != 1:
            raise rd.fail(("map", "ascii"), "ragged ASCII level", found=sorted(widths),
                          expected="all rows of the same width")
        if len(ascii_rows) > MAX_MAP_SIDE or len(ascii_rows[0]) > MAX_MAP_SIDE:
            raise rd.fail(("map", "ascii"), "map too large",
                          found=[len(ascii_rows), len(ascii_rows[0])],
                          expected=f"at most {MAX_MAP_SIDE} rows and columns")
        for glyph, tname in rd.mapping(raw.get("legend"), ("map", "legend"), nullable=True,
                                       names=False).items():
            if isinstance(glyph, bool) or not isinstance(glyph, str | int) \
                    or len(str(glyph)) != 1:
                raise rd.fail(("map", "legend", glyph), "wrong type", found=glyph, key=True,
                              expected="a single character")
            legend[str(glyph)] = rd.type_name(tname, ("map", "legend", glyph), types)
        # glyphs of concrete types only: an abstract type is never drawn on a map
        known = set(legend) | {t.get("glyph") for t in types.values()
                               if isinstance(t, dict) and not t.get("abstract")}
        for r, row in enumerate(ascii_rows):
            for c, glyph in enumerate(row):
                if glyph not in known:
                    raise glyph_error(rd, ascii_rows, r, c, glyph)
        size = (len(ascii_rows), len(ascii_rows[0]))
    else:
        if "size" not in raw:
            raise rd.fail(("map",), "missing 'size'", expected="size: [rows, columns]")
        size = map_size(rd, raw["size"], ("map", "size"), 3)
    border = raw.get("border", "bedrock" if ascii_rows is None else None)
    if border is not None:
        border = rd.type_name(border, ("map", "border"), types)

    def check_cell(cell: tuple[int, int], path: KeyPath) -> tuple[int, int]:
        if not in_map(size, cell):
            raise rd.fail(path, "placement outside the map", found=list(cell),
                          expected=f"a cell within [0..{size[0] - 1}, 0..{size[1] - 1}]")
        return cell

    rooms = []
    raw_rooms = rd.mapping(raw.get("rooms"), ("map", "rooms"), nullable=True)
    if not raw_rooms and ascii_rows is None:
        inset = 1 if border else 0
        raw_rooms = {"main": {"start": [inset, inset],
                              "end": [size[0] - 1 - inset, size[1] - 1 - inset]}}
    for rname, rraw in raw_rooms.items():
        path: KeyPath = ("map", "rooms", rname)
        rraw = rd.mapping(rraw, path, {"start", "end"})
        start = check_cell(rd.cell(rraw.get("start"), (*path, "start")), (*path, "start"))
        end = check_cell(rd.cell(rraw.get("end"), (*path, "end")), (*path, "end"))
        if start[0] > end[0] or start[1] > end[1]:
            raise rd.fail(path, "room start is after its end", found=[list(start), list(end)],
                          expected="start <= end in both coordinates")
        rooms.append(RoomSpec(str(rname), start, end))
    room_names = {r.name for r in rooms}

    walls = []
    for i, wraw in enumerate(rd.sequence(raw.get("walls"), ("map", "walls"), "a list of walls")):
        path = ("map", "walls", i)
        wraw = rd.mapping(wraw, path, {"from", "to", "type"})
        a = check_cell(rd.cell(wraw.get("from"), (*path, "from")), (*path, "from"))
        b = check_cell(rd.cell(wraw.get("to"), (*path, "to")), (*path, "to"))
        if a[0] != b[0] and a[1] != b[1]:
            raise rd.fail(path, "walls run along a row or a column", found=[list(a), list(b)],
                          expected="from and to sharing a row or a column")
        walls.append(WallSpec(a, b, rd.type_name(wraw.get("type", border or "bedrock"),
                                                 (*path, "type"), types)))
    doors = []
    for i, draw in enumerate(rd.sequence(raw.get("doors"), ("map", "doors"), "a list of doors")):
        path = ("map", "doors", i)
        draw = rd.mapping(draw, path, {"at", "type"})
        doors.append(DoorSpec(check_cell(rd.cell(draw.get("at"), (*path, "at")), (*path, "at")),
                              rd.type_name(draw.get("type", "door"), (*path, "type"), types)))
    objects = []
    for tname, oraw in rd.mapping(raw.get("objects"), ("map", "objects"), nullable=True).items():
        path = ("map", "objects", tname)
        if tname not in types or types[tname].get("abstract"):
            raise rd.fail(path, f"unknown entity type '{tname}'", found=tname, key=True,
                          expected="a concrete type declared under entity_types")
        if isinstance(oraw, int) and not isinstance(oraw, bool):
            oraw = {"quantity": oraw}
        oraw = rd.mapping(oraw, path, {"quantity", "room", "at"})
        at = tuple(check_cell(rd.cell(c, (*path, "at", i)), (*path, "at", i))
                   for i, c in enumerate(rd.sequence(oraw.get("at"), (*path, "at"),
                                                     "a list of [row, column] cells")))
        quantity = rd.integer(oraw.get("quantity", len(at) or 1), (*path, "quantity"),
                              minimum=0, maximum=size[0] * size[1])
        room = oraw.get("room")
        if room is not None and not isinstance(room, str | int):
            raise rd.fail((*path, "room"), "wrong type", found=room, expected="a room name")
        if room is not None and str(room) not in room_names:
            raise rd.fail((*path, "room"), f"unknown room '{room}'", found=room,
                          expected="one of " + ", ".join(sorted(room_names)))
        objects.append(PlacementSpec(tname, quantity, None if room is None else str(room), at))
    return MapSpec(size=size, border=border, rooms=tuple(rooms), walls=tuple(walls),
                   doors=tuple(doors), objects=tuple(objects), ascii=ascii_rows,
                   legend=MappingProxyType(legend), surround=parse_surround(rd, raw, types))


def parse_surround(rd: SpecReader, raw: Mapping[str, Any], types: Mapping[str, Any]
                   ) -> tuple[SurroundSpec, ...]:
    """`map.surround`: shared by drawn and generated maps (spec/generation.py)."""
    out = []
    for i, sraw in enumerate(rd.sequence(raw.get("surround"), ("map", "surround"),
                                         "a list of {target, with}")):
        path = ("map", "surround", i)
        sraw = rd.mapping(sraw, path, {"target", "with"})
        for key in ("target", "with"):
            if key not in sraw:
                raise rd.fail(path, f"missing '{key}'", expected="{target: <type>, with: <type>}")
        out.append(SurroundSpec(rd.type_name(sraw["target"], (*path, "target"), types),
                                rd.type_name(sraw["with"], (*path, "with"), types)))
    return tuple(out)


def map_size(rd: SpecReader, raw: Any, path: KeyPath, smallest: int) -> tuple[int, int]:
    """`[rows, columns]`, each from `smallest` to MAX_MAP_SIDE."""
    size = rd.cell(raw, path)
    if size[0] < smallest or size[1] < smallest:
        raise rd.fail(path, "map too small", found=list(size),
                      expected=f"at least [{smallest}, {smallest}]")
    if size[0] > MAX_MAP_SIDE or size[1] > MAX_MAP_SIDE:
        raise rd.fail(path, "map too large", found=list(size),
                      expected=f"at most [{MAX_MAP_SIDE}, {MAX_MAP_SIDE}]")
    return size


def glyph_error(rd: SpecReader, rows: tuple[str, ...], r: int, c: int, glyph: str
                ) -> SpecError:
    """Locate a bad glyph at its own row and column in the source text (rows are matched in
    order below the `ascii` key), falling back to the key itself."""
    message = f"glyph '{glyph}' has no type"
    expected = "a legend entry, or an entity type declaring that glyph"
    start = rd.smap.locate(("map", "ascii"))
    k = 0
    for i in range(start.line - 1, len(rd.smap.lines)):
        line = rd.smap.lines[i]
        if rows[k] in line:
            if k == r:
                loc = Location(start.file, i + 1, line.index(rows[k]) + c + 1)
                return SpecError(message, location=loc, key_path="map.ascii", found=glyph,
                                 expected=expected)
            k += 1
    return rd.fail(("map", "ascii"), message, found=glyph, expected=expected)


def blocked_cells(m: MapSpec, types: Mapping[str, EntityTypeSpec]) -> set[tuple[int, int]]:
    """Cells the fixed parts of the layout make solid (border, walls, ASCII, fixed objects)."""
    h, w = m.size
    blocked: set[tuple[int, int]] = set()
    if m.ascii is not None:
        by_glyph = {t.glyph: t for t in types.values() if t.glyph and not t.abstract}
        by_glyph.update({g: types[n] for g, n in m.legend.items()})
        blocked |= {(r, c) for r, row in enumerate(m.ascii) for c, ch in enumerate(row)
                    if by_glyph[ch].blocks_movement}
    if m.border and types[m.border].blocks_movement:
        blocked |= {(r, c) for r in range(h) for c in range(w)
                    if r in (0, h - 1) or c in (0, w - 1)}
    for wall in m.walls:
        (r0, c0), (r1, c1) = wall.start, wall.end
        blocked |= {(r, c) for r in range(min(r0, r1), max(r0, r1) + 1)
                    for c in range(min(c0, c1), max(c0, c1) + 1)}
    for door in m.doors:
        blocked.discard(door.at)
    for p in m.objects:
        if types[p.type].blocks_movement:
            blocked |= set(p.at)
    return blocked
