"""A vector env's reset arguments, read one way for every batched env."""

from __future__ import annotations

import numpy as np
import pytest

from nesyworld.world.envs.vector_reset import reset_request


def test_seeds_and_masks_name_each_copy() -> None:
    assert reset_request(3, None, None)[0] == [None, None, None]
    seeds, envs = reset_request(3, 5, None)
    assert seeds == [5, 6, 7] and envs.tolist() == [0, 1, 2]
    seeds, envs = reset_request(3, [1, None, 9], {"reset_mask": np.array([True, False, True])})
    assert seeds == [1, None, 9] and envs.tolist() == [0, 2]


@pytest.mark.parametrize(("seed", "options", "words"), [
    ([1, 2], None, "2 seeds for 3 envs"),
    (None, {"reset_mask": np.array([1, 0, 1])}, "reset_mask must be a bool array"),
    (None, {"reset_mask": np.array([True, False])}, "of shape (3,)"),
])
def test_bad_requests_say_what_was_expected(seed: object, options: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        reset_request(3, seed, options)  # type: ignore[arg-type]
