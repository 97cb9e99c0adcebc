"""Every ```python block of the README, and of the manual's pages in docs/, runs when pasted
alone, so the front page and the manual cannot rot.

Each block runs in a fresh interpreter, with nothing from the blocks before it (a reader pastes
one block, not the page), and with a temporary folder as its working directory, so the files it
writes land there. Blocks whose budgets mean minutes or hours of training run here with tiny
ones: the table below rewrites those few places, in the test only, never in the README. Every
entry of the table must match the README exactly once, or the run fails, so the table cannot
silently rot when the README changes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
TIMEOUT = 300  # seconds per block; the slowest, a training block, takes about 20 s here
STDERR_TAIL = 3000  # characters of a failing block's stderr shown in the failure message

# One epoch of 250 steps and one evaluation episode of at most 50 steps: a training run that
# costs seconds (most of them tianshou compiling its numba functions in the fresh process).
TINY_ARGS = ("step_budget=250, epoch_length=250, collect_chunk=250, eval_episodes=1, "
             "max_episode_steps=50, progress=False")

# README text -> the text the test runs instead. Each entry shrinks a budget (or imports what
# the smaller budget needs); what the block does stays the same.
SUBSTITUTIONS: dict[str, str] = {
    # Learning to recover: the hybrid agent meets the fire novelty and learns from it once,
    # on a tiny training budget, then one adaptation episode and one evaluation episode.
    "from nesyworld import HybridAgent, KnowledgeBase, RecoveryConfig":
        "from nesyworld import HybridAgent, KnowledgeBase, RecoveryConfig\n"
        "from nesyworld.learning import TrainConfig",
    "RecoveryConfig.rapidlearn_plus()":
        f"RecoveryConfig.rapidlearn_plus(train=TrainConfig({TINY_ARGS}, vector_env='dummy'), "
        "rollouts=2, extra_maps=0, attempts=1)",
    "adapt_and_evaluate(env, agent, seed=0, eval_episodes=20)":
        "adapt_and_evaluate(env, agent, seed=0, max_episodes=1, window=1, eval_episodes=1)",
    # The learning layer on its own, through both factories (single envs, one vector env).
    "TrainConfig(step_budget=50_000)": f"TrainConfig({TINY_ARGS})",
    "TrainConfig(num_envs=16)": f"TrainConfig(num_envs=16, {TINY_ARGS})",
    # The RL baselines: both agents train on the tiny routine instead of the paper's.
    "from nesyworld import RLAgent, TransferRLAgent":
        "from nesyworld import RLAgent, RLConfig, TransferRLAgent\n"
        "from nesyworld.learning import TrainConfig\n"
        f"TINY = RLConfig(train=TrainConfig({TINY_ARGS}))",
    'RLAgent(NesyGridEnv("pogostick"))': 'RLAgent(NesyGridEnv("pogostick"), config=TINY)',
    "rl.learn(steps=4_000_000)": "rl.learn()",
    '["axe"]), "rl.pt")': '["axe"]), "rl.pt", config=TINY)',
}


@dataclass(frozen=True)
class Block:
    """One ```python block: its place among them (from 1), its fence's line, its code."""

    index: int
    line: int
    code: str

    @property
    def id(self) -> str:
        return f"block-{self.index}-line-{self.line}"


def python_blocks(text: str) -> list[Block]:
    """Every ```python fenced block of a Markdown text, in order (indented ones too, as in a
    list item, dedented)."""
    blocks: list[Block] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        if re.fullmatch(r"\s*```python\s*", lines[k]):
            start = k
            k += 1
            while k < len(lines) and not re.fullmatch(r"\s*```\s*", lines[k]):
                k += 1
            if k == len(lines):
                raise ValueError(f"{README.name}:{start + 1}: a ```python block is never closed")
            code = textwrap.dedent("\n".join(lines[start + 1:k])) + "\n"
            blocks.append(Block(len(blocks) + 1, start + 1, code))
        k += 1
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))
DOC_BLOCKS = [(page, block) for page in sorted((README.parent / "docs").glob("*.md"))
              for block in python_blocks(page.read_text(encoding="utf-8"))]


def substituted(code: str) -> str:
    """`code` with the table's replacements made."""
    for old, new in SUBSTITUTIONS.items():
        code = code.replace(old, new)
    return code


def tail(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return (text or "")[-STDERR_TAIL:]


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 5, f"only {len(BLOCKS)} ```python blocks found in {README}"


@pytest.mark.parametrize("old", list(SUBSTITUTIONS))
def test_every_substitution_matches_once(old: str) -> None:
    where = [b.id for b in BLOCKS for _ in range(b.code.count(old))]
    assert len(where) == 1, (
        f"SUBSTITUTIONS[{old!r}] should match the README's python blocks exactly once, but "
        f"matches {len(where)} times {where}: update the table in {Path(__file__).name}")


def run_alone(code: str, where: str, tmp_path: Path) -> None:
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"{where}: the block did not finish in {TIMEOUT} s; the end "
                    f"of its stderr:\n{tail(timeout.stderr)}", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"{where}: the block exited with {done.returncode}; the end "
                    f"of its stderr:\n{tail(done.stderr)}", pytrace=False)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs_alone(block: Block, tmp_path: Path) -> None:
    run_alone(substituted(block.code), f"README.md:{block.line}", tmp_path)


@pytest.mark.parametrize(("page", "block"), DOC_BLOCKS,
                         ids=[f"{p.stem}-{b.id}" for p, b in DOC_BLOCKS])
def test_a_manual_page_block_runs_alone(page: Path, block: Block, tmp_path: Path) -> None:
    run_alone(block.code, f"docs/{page.name}:{block.line}", tmp_path)
