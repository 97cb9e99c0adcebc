"""Loading a checkpoint never runs code from the file (learning/training/checkpoint.py), and
the spaces it keeps survive as plain data (space_codec.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces

from nesyworld.learning import load_checkpoint
from nesyworld.learning.training.checkpoint import CheckpointError
from nesyworld.learning.training.space_codec import (
    SpaceFormatError,
    space_from_dict,
    space_to_dict,
)


class _Payload:
    """What an attacker pickles: unpickling it would call os.system."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def test_a_crafted_checkpoint_cannot_run_code(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    torch.save({"format_version": 2, "observation_space": _Payload(marker)}, evil)
    with pytest.raises(CheckpointError, match="not a plain-data checkpoint"):
        load_checkpoint(evil)
    assert not marker.exists()


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x03\x04garbage" * 10])
def test_files_that_are_not_checkpoints_are_one_error(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.pt"
    bad.write_bytes(content)
    with pytest.raises(CheckpointError, match=str(bad)):
        load_checkpoint(bad)


def test_a_checkpoint_with_a_missing_field_names_it(tmp_path: Path) -> None:
    bad = tmp_path / "half.pt"
    torch.save({"format_version": 2, "ppo": {}}, bad)
    with pytest.raises(CheckpointError, match="field is missing or malformed"):
        load_checkpoint(bad)
    torch.save([1, 2], bad)
    with pytest.raises(CheckpointError, match="expected a mapping"):
        load_checkpoint(bad)


@pytest.mark.parametrize("space", [
    spaces.Box(0.0, 21.5, (7,), np.float32),
    spaces.Box(np.array([0, -1]), np.array([3, 1]), (2,), np.int64),
    spaces.Discrete(5, start=2),
    spaces.MultiBinary(4),
    spaces.MultiDiscrete([3, 4]),
    spaces.Dict({"obs": spaces.Box(0, 1, (3,)), "mask": spaces.MultiBinary(3)}),
    spaces.Tuple([spaces.Discrete(2), spaces.Box(-1, 1, (2, 2))]),
])
def test_spaces_round_trip_as_plain_data(space: spaces.Space) -> None:
    data = space_to_dict(space)
    assert space_from_dict(data) == space


def test_bad_stored_spaces_name_the_field() -> None:
    with pytest.raises(SpaceFormatError, match=r"space.kind: expected one of box"):
        space_from_dict({"kind": "graph"})
    with pytest.raises(SpaceFormatError, match=r"space.n: expected int"):
        space_from_dict({"kind": "discrete", "n": "5"})
    with pytest.raises(SpaceFormatError, match="nested deeper than"):
        nested: dict = {"kind": "box"}
        for _ in range(20):
            nested = {"kind": "tuple", "spaces": [nested]}
        space_from_dict(nested)
