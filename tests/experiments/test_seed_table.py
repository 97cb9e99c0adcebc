"""Table 2 run by run: one cell per seed, in the report."""

from __future__ import annotations

from typing import Any

from nesyworld.experiments.protocol.seed_table import seed_cell, seed_table_markdown


def point(phase: str, epoch: int, steps: int, success: float,
          converged: bool = False) -> dict[str, Any]:
    return {"phase": phase, "epoch": epoch, "env_steps": steps, "actions": steps,
            "cpu_seconds": steps / 1000, "success_rate": success, "mean_steps": 40.0,
            "episodes": 10, "converged": converged}


def record(agent: str, novelty: str, seed: int, post: list[dict[str, Any]],
           status: str = "ok") -> dict[str, Any]:
    return {"key": f"{agent}/pogostick/{novelty}/{seed}", "status": status, "error": "",
            "spec": {"agent": agent, "domain": "pogostick", "novelty": novelty, "seed": seed,
                     "protocol": {}},
            "novelty": {"env_steps": 1000, "actions": 1000, "cpu_seconds": 1.0},
            "curve": [point("pre", 1, 1000, 1.0, True), *post], "detections": []}


ADAPTED = [point("post", 0, 1000, 0.1), point("post", 1, 13_345, 0.95, True),
           point("post", 2, 13_345, 0.97, True)]
STALLED = [point("post", 0, 1000, 0.1), point("post", 1, 6000, 0.42),
           point("post", 2, 11_000, 0.31), point("post", 3, 11_000, 0.3)]
UNHURT = [point("post", 0, 1000, 1.0), point("post", 1, 6000, 0.99, True)]


def test_each_run_gets_its_t_adapt_or_why_not() -> None:
    assert seed_cell(record("rapidlearn", "axe", 0, ADAPTED)) == "12,345 (0.97)"
    # the best success after the novelty, not the last one
    assert seed_cell(record("rapidlearn", "axe", 1, STALLED)) == "not adapted (best 0.42)"
    assert seed_cell(record("rapidlearn", "chest", 0, UNHURT)) == "not needed (0.99)"


def test_one_row_per_novelty_and_agent_in_table_order_and_a_column_per_seed() -> None:
    runs = [record("transfer_rl", "axe", 3, STALLED), record("rapidlearn", "fence", 0, ADAPTED),
            record("rapidlearn+", "axe", 0, ADAPTED), record("transfer_rl", "axe", 0, ADAPTED),
            record("rapidlearn+", "axe", 7, [], status="error")]
    lines = seed_table_markdown(runs).splitlines()
    assert lines[0] == "| Novelty | Agent | seed 0 | seed 3 |"
    assert lines[2:] == ["| axe | rapidlearn+ | 12,345 (0.97) |  |",
                         "| axe | transfer_rl | 12,345 (0.97) | not adapted (best 0.42) |",
                         "| fence | rapidlearn | 12,345 (0.97) |  |"]


def test_no_finished_run_says_so() -> None:
    assert seed_table_markdown([record("rapidlearn", "axe", 0, [], status="error")]) == (
        "No finished runs.\n")
