"""The obstacle probe (experiments/probe/obstacles.py) counts the breaks the Fence novelty asks
for before a tree can be approached."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.experiments.probe.obstacles import count_breaks, main

DOMAINS = Path(__file__).resolve().parents[2] / "domains" / "polycraft"


def test_every_fenced_map_needs_a_break_and_each_map_is_counted_once() -> None:
    result = count_breaks("fence", "oak_log", "fence", maps=6)
    assert result.maps == 6 and result.blocked == 0
    assert min(result.breaks) >= 1  # every tree is fenced in: no map reaches one at once
    again = count_breaks("fence", "oak_log", "fence", maps=6)
    assert again == result  # the maps are the seeds': the count is repeatable


def test_the_loop_stops_at_its_limit_of_breaks() -> None:
    # with no break allowed every fenced map ends blocked, not in an endless loop
    result = count_breaks("fence", "oak_log", "fence", maps=2, limit=0)
    assert result.blocked == 2 and not result.breaks


def test_a_world_without_the_actions_says_which(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--novelty", "axe", "--target", "oak_log", "--obstacle", "fence", "--maps", "1"])
    assert stop.value.code == 2
    assert "pogostick under axe has no action approach_fence" in capsys.readouterr().err


def test_a_map_whose_episode_ends_first_is_blocked(tmp_path: Path) -> None:
    # three steps: one refused approach of a tree, one of a fence, one break, and time is up
    text = (DOMAINS / "pogostick.yaml").read_text().replace("max_steps: 400", "max_steps: 3")
    short = tmp_path / "pogostick.yaml"
    short.write_text(text)
    result = count_breaks("fence", "oak_log", "fence", maps=2, domain=str(short))
    assert result.blocked == 2 and not result.breaks


def test_no_maps_is_refused() -> None:
    with pytest.raises(ValueError, match="maps must be at least 1"):
        count_breaks("fence", "oak_log", "fence", maps=0)
