"""Named novelty suites for `nesyworld generality --suite NAME`: what each lists, which spec it
runs on, how the flag combines with the other arguments, and that the command runs the suite's
files on the suite's spec (with the expensive case replaced by a stand-in)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from nesyworld.domains import DOMAINS_DIR, find_spec, shipped_novelties
from nesyworld.experiments.cli.generality_commands import resolve_cases
from nesyworld.experiments.cli.main import main
from nesyworld.experiments.generality import SUITES, GeneralityConfig, domain_novelties, get_suite
from nesyworld.experiments.generality import run as generality_run


def test_each_suite_names_a_shipped_spec_and_lists_its_folder() -> None:
    assert set(SUITES) >= {"polycraft", "workshop"}
    for suite in SUITES.values():
        if suite.module:  # novelty classes for an env that is not nesyworld's
            continue
        assert find_spec(suite.spec) is not None
        files = suite.novelties()
        assert files and files == sorted(files)
        assert all(p.parent == suite.folder and p.suffix == ".yaml" for p in files)
    assert get_suite("polycraft").folder == DOMAINS_DIR / "polycraft" / "suite"
    assert get_suite("workshop").spec == "birdhouse"


def test_an_unknown_suite_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: polycraft, workshop, minigrid"):
        get_suite("farm")


def test_the_default_novelties_are_those_of_the_specs_domain() -> None:
    polycraft = domain_novelties("pogostick")
    assert "axe" in polycraft and "timber" not in polycraft
    assert domain_novelties("pogostick_full") == polycraft
    assert domain_novelties(str(find_spec("pogostick"))) == polycraft
    assert set(domain_novelties("birdhouse")) == {p.stem for p in SUITES["workshop"].novelties()}
    assert set(polycraft) | set(domain_novelties("birdhouse")) <= set(shipped_novelties())


def args(*argv: str) -> argparse.Namespace:
    """The parsed arguments of `nesyworld generality ...`."""
    from nesyworld.experiments.cli.main import build_parser

    return build_parser().parse_args(["generality", *argv])


def test_the_flag_picks_the_suites_spec_files_and_records_file() -> None:
    spec, novelties, out = resolve_cases(args("--suite", "workshop"))
    assert spec == "birdhouse"
    assert novelties == [str(p) for p in SUITES["workshop"].novelties()]
    assert out == Path("results/generality_workshop.jsonl")
    assert resolve_cases(args("--suite", "polycraft", "--spec", "pogostick"))[0] == "pogostick"


def test_without_the_flag_the_positional_novelties_run_as_before() -> None:
    assert resolve_cases(args("axe", "chest")) == (
        "pogostick", ["axe", "chest"], Path("results/generality.jsonl"))
    spec, novelties, _ = resolve_cases(args())
    assert spec == "pogostick" and novelties == domain_novelties("pogostick")


@pytest.mark.parametrize("argv", [("--suite", "polycraft", "axe"),
                                  ("--suite", "workshop", "--spec", "pogostick"),
                                  ("--suite", "farm")])
def test_conflicting_or_unknown_arguments_are_refused(argv: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        resolve_cases(args(*argv))
    assert main(["generality", *argv]) == 2


def test_the_command_runs_every_case_of_the_suite(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[str, str]] = []

    def stand_in(novelty: str, config: GeneralityConfig) -> dict[str, Any]:
        seen.append((config.spec, novelty))
        key = generality_run.novelty_key(novelty)
        return {"key": key, "case": key, "novelty": novelty, "config": {}, "how": "plan copes",
                "s_post": 1.0, "recovered": True, "breaks_plan": False, "detected_at": None,
                "t_adapt": None, "wall_seconds": 0.0}

    monkeypatch.setattr(generality_run, "run_case", stand_in)
    out = tmp_path / "cases.jsonl"
    assert main(["generality", "--suite", "workshop", "--out", str(out), "--json"]) == 0
    files = SUITES["workshop"].novelties()
    assert seen == [("birdhouse", str(p)) for p in files]
    printed = json.loads(capsys.readouterr().out)
    assert [r["case"] for r in printed["records"]] == [p.stem for p in files]
    assert printed["tally"]["cases"] == len(files)
    assert len(out.read_text().splitlines()) == len(files)


def test_the_minigrid_suite_is_six_wrapper_classes_over_levels_and_tasks() -> None:
    pytest.importorskip("minigrid")
    import gymnasium as gym

    from nesyworld.experiments.protocol.hosted import novelty_class

    refs = get_suite("minigrid").novelties()
    classes = [novelty_class(str(r)) for r in refs]
    assert len(classes) == 6 and all(issubclass(c, gym.Wrapper) for c in classes)
    assert len({c.level for c in classes}) >= 4 and len({c.task for c in classes}) >= 2
    assert {c.category for c in classes} == {"beneficial", "detrimental"}


def test_the_minigrid_suite_runs_and_recovers(tmp_path: Path) -> None:
    pytest.importorskip("minigrid")
    out = tmp_path / "mg.jsonl"
    assert main(["generality", "--suite", "minigrid", "--out", str(out), "--json"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["case"] for r in records][:2] == ["UnlockedDoor", "KeyConsumed"]
    assert sum(r["recovered"] for r in records) >= 5
    consumed = records[1]
    assert consumed["breaks_plan"] and consumed["how"] == "repaired"
    assert consumed["repaired_operators"] == ["unlock_yellow_door"]
