"""Pooling one agent's runs on one novelty over results files (experiments/probe/pooled.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nesyworld.experiments.probe.pooled import main, markdown, pool, setting_of, wilson_interval
from nesyworld.world.errors import SpecError

AGENT, NOVELTY = "transfer_rl_unmasked", "fire_floating"


def point(env_steps: int, success: float, converged: bool = False) -> dict[str, Any]:
    return {"phase": "post", "epoch": env_steps // 100, "env_steps": env_steps,
            "actions": env_steps, "cpu_seconds": env_steps / 1000, "success_rate": success,
            "mean_steps": 60.0, "episodes": 100, "converged": converged,
            "mean_reward": 1000 * success - 400 * (1 - success)}


def run(seed: int, adapt_at: int | None, budget: int = 1000, *, agent: str = AGENT,
        ablation: dict[str, Any] | None = None, found: float = 0.0,
        status: str = "ok") -> dict[str, Any]:
    """A run whose success stays at `found` until it converges at `adapt_at` (never: None)."""
    post = [point(s, 0.95 if adapt_at is not None and s >= adapt_at else found,
                  adapt_at is not None and s >= adapt_at)
            for s in range(0, budget + 1, 100)]
    pre = [{**point(0, 1.0, True), "phase": "pre"}]
    record = {"key": f"{agent}/pogostick/{NOVELTY}/{seed}", "status": status, "error": "",
              "spec": {"agent": agent, "domain": "pogostick", "novelty": NOVELTY, "seed": seed,
                       "protocol": {"name": "custom", "post_steps": budget}},
              "novelty": {"env_steps": 0, "actions": 0, "cpu_seconds": 0.0},
              "curve": pre + post, "detections": []}
    if ablation is not None:
        record["ablation"] = ablation
    return record


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_only_adaptation_within_the_budget_counts_and_short_runs_are_left_out(
        tmp_path: Path) -> None:
    f = write(tmp_path / "a.jsonl", [run(0, 300), run(1, 800), run(2, None), run(3, 200, 400),
                                     run(4, 100, agent="other")])
    pooled = pool([f], AGENT, NOVELTY, within=500)
    assert (pooled.runs, pooled.adapted, pooled.t_adapt) == (3, 1, [300])  # seed 1: at 800
    assert pooled.rows[0].short == 1  # seed 3 ran 400 steps after the novelty
    pooled = pool([f], AGENT, NOVELTY, within=1000)
    assert (pooled.runs, pooled.adapted, pooled.t_adapt) == (3, 2, [300, 800])


def test_each_ablation_setting_of_a_file_is_its_own_row(tmp_path: Path) -> None:
    f = write(tmp_path / "a.jsonl", [run(0, None, ablation={"post_ppo": {"lr": 0.1}}),
                                     run(0, 200, ablation={"post_ppo": {"lr": 0.2}}),
                                     run(0, 300, ablation={"post_ppo": {"lr": 0.2}}),
                                     run(0, None, ablation={"post_ppo": {"lr": 0.2}},
                                         status="error")])
    pooled = pool([f], AGENT, NOVELTY, within=1000)
    assert [(r.setting, r.runs, r.t_adapt) for r in pooled.rows] == [
        ("post_ppo.lr=0.1", 1, []), ("post_ppo.lr=0.2", 1, [300])]  # the last finished


def test_a_replay_with_another_budget_counts_once_and_failures_without_success_all_count(
        tmp_path: Path) -> None:
    first = write(tmp_path / "grid.jsonl", [run(0, None, 1000, found=0.02), run(1, None)])
    again = write(tmp_path / "ablation.jsonl", [
        run(0, None, 500, found=0.02, ablation={"post_ppo": {"reward_scale": 0.01}}),
        run(1, None, 500, ablation={"post_ppo": {"reward_scale": 0.01}})])
    pooled = pool([first, again], AGENT, NOVELTY, within=500)
    assert pooled.runs == 3
    assert [r.replays for r in pooled.rows] == [0, 1]


def test_the_interval_and_the_chance_of_ten_of_ten() -> None:
    low, high = wilson_interval(22, 122)
    assert 0.11 < low < 0.13 and 0.25 < high < 0.27
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 10)[0] == 0.0
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(11, 10)


def test_the_table_names_the_paper_and_the_pooled_row(tmp_path: Path) -> None:
    f = write(tmp_path / "a.jsonl", [run(0, 300), run(1, None)])
    text = markdown(pool([f], AGENT, NOVELTY, within=1000))
    assert "| a.jsonl | – | any | 2 | 1 | 300 | 0 | 0 |" in text
    assert "**pooled**" in text and "127,200 ± 37,932" in text


def test_setting_names_nested_fields_in_order() -> None:
    record = {"ablation": {"transfer": {}, "post_ppo": {"lr": 1e-5, "ent_coef": 0},
                           "checkpoint_seed": 3}}
    assert setting_of(record) == "checkpoint_seed=3, post_ppo.ent_coef=0, post_ppo.lr=1e-05"
    assert setting_of({}) == ""


def test_bad_input_gets_one_line_and_no_runs_is_an_error(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(SpecError, match=r"bad\.jsonl:1"):
        pool([bad], AGENT, NOVELTY, within=100)
    assert main([str(bad), "--agent", AGENT, "--novelty", NOVELTY]) == 2
    assert main([str(tmp_path / "missing.jsonl"), "--agent", AGENT, "--novelty", NOVELTY]) == 2
    broken = run(1, None)
    broken["curve"][1]["success_rate"] = "high"
    damaged = write(tmp_path / "damaged.jsonl", [run(0, None), broken])
    with pytest.raises(SpecError, match=r"damaged\.jsonl:2.*curve\[1\]\.success_rate"):
        pool([damaged], AGENT, NOVELTY, within=100)
    unbudgeted = run(0, None)
    del unbudgeted["spec"]["protocol"]["post_steps"]
    with pytest.raises(SpecError, match=r"no budget.*spec\.protocol\.post_steps"):
        pool([write(tmp_path / "nobudget.jsonl", [unbudgeted])], AGENT, NOVELTY, within=100)
    empty = write(tmp_path / "empty.jsonl", [run(0, 100, agent="other")])
    assert main([str(empty), "--agent", AGENT, "--novelty", NOVELTY]) == 1
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if line]) == 3
    assert "not json" not in err
    with pytest.raises(ValueError, match="positive"):
        pool([empty], AGENT, NOVELTY, within=0)


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path / "a.jsonl", [run(0, 300), run(1, None)])
    assert main([str(f), "--agent", AGENT, "--novelty", NOVELTY, "--within", "1000",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["runs"], out["adapted"], out["t_adapt_mean"]) == (2, 1, 300)
    assert out["paper_t_adapt"] == [127200, 37932]


def test_by_start_splits_the_rows_at_the_success_at_the_injection(tmp_path: Path) -> None:
    f = write(tmp_path / "a.jsonl", [run(0, 300, found=0.1), run(1, None, found=0.1),
                                     run(2, 500), run(3, None)])
    pooled = pool([f], AGENT, NOVELTY, within=1000, by_start=0.05)
    assert pooled.by_start() == {">= 0.05": (2, 1), "< 0.05": (2, 1)}
    assert [(r.start, r.runs) for r in pooled.rows] == [(">= 0.05", 2), ("< 0.05", 2)]
    assert "Success at the injection >= 0.05: 1 adapted of 2." in markdown(pooled)
    assert pool([f], AGENT, NOVELTY, within=1000).by_start() == {"": (4, 2)}
    with pytest.raises(ValueError, match="by_start"):
        pool([f], AGENT, NOVELTY, within=1000, by_start=0)
