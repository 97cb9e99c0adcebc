"""Every ```python block of the README runs when pasted alone, so the front page cannot rot.

Each block runs in a fresh interpreter (nothing leaks from one block to the next, as for a
reader who pastes one) with a temporary folder as its working directory, so the files it writes
land there. Blocks that train for hours at the README's budgets run at tiny ones: the table
below rewrites those lines, here only, never in the README, and a line of the table that no
longer matches the README fails the run, so the table cannot silently rot.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
TIMEOUT = 300  # seconds per block; every block takes a few seconds at the budgets below
STDERR_TAIL = 3000  # characters of a failing block's stderr shown in the failure message

# README text -> what the test runs instead. Each key must occur exactly once in the README's
# python blocks. Every entry only shrinks a budget: what the block does stays the same.
# One short epoch, one short evaluation episode: a training run in a few seconds.
TINY_ARGS = ("step_budget=250, epoch_length=250, collect_chunk=250, eval_episodes=1, "
             "max_episode_steps=50, progress=False")
SUBSTITUTIONS: dict[str, str] = {
    # The hybrid agent adapting to the fire novelty: one small recovery, one episode per phase.
    "from nesyworld import HybridAgent, KnowledgeBase, RecoveryConfig":
        "from nesyworld import HybridAgent, KnowledgeBase, RecoveryConfig\n"
        "from nesyworld.learning import TrainConfig",
    "RecoveryConfig.rapidlearn_plus()":
        f"RecoveryConfig.rapidlearn_plus(train=TrainConfig({TINY_ARGS}, vector_env='dummy'), "
        "rollouts=2, extra_maps=0, attempts=1)",
    "adapt_and_evaluate(env, agent, seed=0, eval_episodes=20)":
        "adapt_and_evaluate(env, agent, seed=0, max_episodes=1, window=1, eval_episodes=1)",
    # The learning layer on its own, on both paths.
    "TrainConfig(step_budget=50_000)": f"TrainConfig({TINY_ARGS})",
    "TrainConfig(num_envs=16)": f"TrainConfig(num_envs=16, {TINY_ARGS})",
    # The RL baselines, before and after the novelty.
    "from nesyworld import RLAgent, TransferRLAgent":
        "from nesyworld import RLAgent, RLConfig, TransferRLAgent\n"
        "from nesyworld.learning import TrainConfig\n"
        f"TINY = RLConfig(train=TrainConfig({TINY_ARGS}))",
    'RLAgent(NesyGridEnv("pogostick"))': 'RLAgent(NesyGridEnv("pogostick"), config=TINY)',
    'rl.learn(steps=4_000_000)': "rl.learn()",
    '["axe"]), "rl.pt")': '["axe"]), "rl.pt", config=TINY)',
}


@dataclass(frozen=True)
class Block:
    """One ```python block: its position (1-based) among them, its fence's line, its code."""

    index: int
    line: int
    code: str

    @property
    def id(self) -> str:
        return f"block-{self.index}-line-{self.line}"


def python_blocks(text: str) -> list[Block]:
    """Every ```python fenced block of `text`, in order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        if re.fullmatch(r"```python\s*", lines[k]):
            start = k
            k += 1
            while k < len(lines) and not re.fullmatch(r"```\s*", lines[k]):
                k += 1
            if k == len(lines):
                raise ValueError(f"README.md:{start + 1}: a ```python block is never closed")
            blocks.append(Block(len(blocks) + 1, start + 1, "\n".join(lines[start + 1:k]) + "\n"))
        k += 1
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def substituted(code: str) -> str:
    """`code` with the table's replacements applied."""
    for old, new in SUBSTITUTIONS.items():
        code = code.replace(old, new)
    return code


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 5, f"found only {len(BLOCKS)} ```python blocks in {README}"


@pytest.mark.parametrize("old", list(SUBSTITUTIONS))
def test_every_substitution_still_matches(old: str) -> None:
    where = [b.id for b in BLOCKS for _ in range(b.code.count(old))]
    assert len(where) == 1, (
        f"the substitution for {old!r} should match exactly one place in the README's python "
        f"blocks, but matches {len(where)} ({where}): update SUBSTITUTIONS in {__file__}")


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs_alone(block: Block, tmp_path: Path) -> None:
    try:
        done = subprocess.run([sys.executable, "-c", substituted(block.code)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"README.md:{block.line}: the block did not finish in {TIMEOUT} s")
    if done.returncode != 0:
        pytest.fail(f"README.md:{block.line}: the block exited with {done.returncode}; "
                    f"the end of its stderr:\n{done.stderr[-STDERR_TAIL:]}", pytrace=False)
