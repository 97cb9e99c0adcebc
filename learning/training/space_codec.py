"""Gymnasium spaces as plain JSON-able data, so a checkpoint needs no pickle.

Checkpoints keep the observation and action spaces (to flatten observations exactly as in
training). Pickling them made `torch.load(weights_only=False)` necessary, and a crafted file
could then run code when loaded. As plain data, the whole checkpoint loads with
`weights_only=True`. Box, Discrete, MultiBinary, MultiDiscrete, Dict and Tuple spaces are
supported, and nesting is bounded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["SpaceFormatError", "space_from_dict", "space_to_dict"]

MAX_DEPTH = 16
MAX_SIZE = 10**7
"""Elements a stored space may have: a Box allocates its bounds, and a flat observation of
more is not one this project makes."""


class SpaceFormatError(ValueError):
    """A stored space that is not one `space_to_dict` writes."""


def space_to_dict(space: spaces.Space) -> dict[str, Any]:
    if isinstance(space, spaces.Box):
        return {"kind": "box", "low": space.low.tolist(), "high": space.high.tolist(),
                "shape": list(space.shape), "dtype": str(space.dtype)}
    if isinstance(space, spaces.Discrete):
        return {"kind": "discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiBinary):
        return {"kind": "multi_binary", "n": np.asarray(space.n).tolist()}
    if isinstance(space, spaces.MultiDiscrete):
        return {"kind": "multi_discrete", "nvec": space.nvec.tolist(),
                "dtype": str(space.dtype)}
    if isinstance(space, spaces.Dict):
        return {"kind": "dict", "spaces": {k: space_to_dict(v) for k, v in space.items()}}
    if isinstance(space, spaces.Tuple):
        return {"kind": "tuple", "spaces": [space_to_dict(v) for v in space.spaces]}
    raise TypeError(f"cannot store a {type(space).__name__} space in a checkpoint")


def space_from_dict(data: Any, where: str = "space", depth: int = 0) -> spaces.Space:
    """The space `space_to_dict` stored; SpaceFormatError names the field that is wrong."""
    if depth > MAX_DEPTH:
        raise SpaceFormatError(f"{where}: spaces nested deeper than {MAX_DEPTH}")
    if not isinstance(data, dict) or "kind" not in data:
        raise SpaceFormatError(f"{where}: expected a mapping with a 'kind'")
    kind = data["kind"]
    if not isinstance(kind, str):
        raise SpaceFormatError(f"{where}.kind: expected the name of a space kind")
    try:
        if kind == "box":
            dtype = np.dtype(_field(data, "dtype", str, where))
            if dtype.kind not in "fiub":
                raise SpaceFormatError(f"{where}.dtype: expected a number type, got {dtype}")
            shape = tuple(_size(n, f"{where}.shape") for n in _field(data, "shape", list,
                                                                     where))
            if len(shape) > MAX_DEPTH or int(np.prod(shape, dtype=object)) > MAX_SIZE:
                raise SpaceFormatError(f"{where}.shape: expected at most {MAX_SIZE} elements")
            return spaces.Box(np.asarray(data["low"], dtype=dtype),
                              np.asarray(data["high"], dtype=dtype), shape, dtype)
        if kind == "discrete":
            return spaces.Discrete(_field(data, "n", int, where),
                                   start=int(data.get("start", 0)))
        if kind == "multi_binary":
            n: Any = data.get("n")  # checked by _size below
            sizes = n if isinstance(n, list) else [n]
            if len(sizes) > MAX_DEPTH or int(np.prod([_size(k, f"{where}.n") for k in sizes],
                                                    dtype=object)) > MAX_SIZE:
                raise SpaceFormatError(f"{where}.n: expected at most {MAX_SIZE} elements")
            return spaces.MultiBinary(n)
        if kind == "multi_discrete":
            nvec = _field(data, "nvec", list, where)
            if len(nvec) > MAX_SIZE // 1000:
                raise SpaceFormatError(f"{where}.nvec: expected at most {MAX_SIZE // 1000}")
            return spaces.MultiDiscrete(np.asarray(nvec),
                                        dtype=np.dtype(data.get("dtype", "int64")))
        if kind == "dict":
            items = _field(data, "spaces", dict, where)
            return spaces.Dict({str(k): space_from_dict(v, f"{where}.{k}", depth + 1)
                                for k, v in items.items()})
        if kind == "tuple":
            items = _field(data, "spaces", list, where)
            return spaces.Tuple([space_from_dict(v, f"{where}[{i}]", depth + 1)
                                 for i, v in enumerate(items)])
    except SpaceFormatError:
        raise
    except (TypeError, ValueError, KeyError, OverflowError, IndexError, AssertionError) as err:
        raise SpaceFormatError(f"{where}: not a valid {str(kind)[:20]} space "
                               f"({type(err).__name__}: {' '.join(str(err).split())[:80]})"
                               ) from None
    raise SpaceFormatError(f"{where}.kind: expected one of box, discrete, multi_binary, "
                           f"multi_discrete, dict, tuple; got {str(kind)[:40]!r}")


def _size(value: Any, where: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_SIZE:
        raise SpaceFormatError(f"{where}: expected sizes from 0 to {MAX_SIZE}")
    return value


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise SpaceFormatError(f"{where}.{key}: expected {kind.__name__}")
    return value
