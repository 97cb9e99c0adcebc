"""The lifelong protocol: one agent, one world that never resets, reward rate over time.

In a lifelong world there are no episodes to average over, so what is measured is the reward
rate per window of W steps across a single long run (Jelly Bean World's measure). The windows
carry the schedule's phase at their start, so a drop after a switch of what pays is visible
in the table and in the plot.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nesyworld.domains import DOMAINS_DIR
from nesyworld.experiments.lifelong.agents import make_agent
from nesyworld.world.envs import NesyGridEnv
from nesyworld.world.errors import SpecError
from nesyworld.world.spec.loader import load_spec
from nesyworld.world.spec.model import WorldSpec

log = logging.getLogger(__name__)
LIFELONG_DIR = DOMAINS_DIR / "lifelong"


@dataclass(frozen=True)
class Window:
    """Steps [start, end): the reward collected and its rate per step."""

    start: int
    end: int
    reward: float
    rate: float
    phase: str  # the schedules' phase at `start`


@dataclass
class LifelongRun:
    """One agent's run: the windows, the total, and how fast the world ran."""

    spec: str
    agent: str
    steps: int
    window: int
    seed: int
    windows: list[Window] = field(default_factory=list)
    total_reward: float = 0.0
    seconds: float = 0.0
    steps_per_second: float = 0.0
    gave_up_at: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def find_lifelong(name: str) -> Path | None:
    """A shipped lifelong world by short name (domains/lifelong/<name>.yaml)."""
    path = LIFELONG_DIR / f"{name}.yaml"
    try:
        return path if path.is_file() else None
    except (OSError, ValueError):  # a name the file system cannot look up is no shipped one
        return None


def shipped_lifelong() -> dict[str, Path]:
    return {p.stem: p for p in sorted(LIFELONG_DIR.glob("*.yaml"))}


def load_lifelong(source: str | Path | WorldSpec) -> WorldSpec:
    """A spec with a `lifelong:` section: a shipped lifelong name, a path or a spec; one
    without the section is refused with what was expected."""
    if isinstance(source, WorldSpec):
        spec = source
    else:
        found = find_lifelong(str(source))
        spec = load_spec(found if found is not None else source)
    if spec.lifelong is None:
        raise SpecError(f"spec '{spec.name}' ({spec.source}) has no lifelong section",
                        expected="a spec with `lifelong: {regrow: ..., reward_schedule: ...}`, "
                                 "or one of: " + ", ".join(shipped_lifelong()))
    return spec


def run_lifelong(source: str | Path | WorldSpec, agent: str = "random", steps: int = 5000,
                 window: int = 500, seed: int = 0) -> LifelongRun:
    """Run `agent` for `steps` steps from one reset and bin the rewards into windows."""
    if steps < 1 or window < 1:
        raise ValueError(f"steps and window must be >= 1, got steps={steps}, window={window}")
    spec = load_lifelong(source)
    lifelong = spec.lifelong
    assert lifelong is not None  # load_lifelong refuses the others
    env = NesyGridEnv(spec)
    obs, info = env.reset(seed=seed)
    actor = make_agent(agent, env, steps, seed)
    actor.reset(obs, info)
    run = LifelongRun(spec.name, agent, steps, window, seed)
    rewards: list[float] = []
    start = time.perf_counter()
    for t in range(steps):
        obs, reward, terminated, truncated, info = env.step(actor.act(obs, info))
        rewards.append(float(reward))
        if terminated or truncated:  # only giving up ends a lifelong world
            run.gave_up_at = t + 1
            break
    run.seconds = time.perf_counter() - start
    run.steps_per_second = len(rewards) / run.seconds if run.seconds > 0 else 0.0
    for lo in range(0, len(rewards), window):
        chunk = rewards[lo:lo + window]
        run.windows.append(Window(lo, lo + len(chunk), sum(chunk), sum(chunk) / len(chunk),
                                  lifelong.phase_name(lo)))
    run.total_reward = sum(rewards)
    log.info("lifelong %s/%s: %d steps in %.2fs (%.0f steps/s), reward %.1f", spec.name, agent,
             len(rewards), run.seconds, run.steps_per_second, run.total_reward)
    return run


def rate_table(runs: list[LifelongRun]) -> Any:
    """A rich table: one row per window, one reward-rate column per agent."""
    from rich.table import Table

    first = runs[0]
    table = Table(title=f"{first.spec}: reward per step, windows of {first.window} steps")
    table.add_column("steps")
    table.add_column("phase")
    for run in runs:
        table.add_column(run.agent, justify="right")
    for i, w in enumerate(first.windows):
        cells = [f"{run.windows[i].rate:+.3f}" if i < len(run.windows) else "-" for run in runs]
        table.add_row(f"{w.start}-{w.end}", w.phase, *cells)
    table.add_row("all", "", *[f"{r.total_reward / max(1, r.windows[-1].end):+.3f}"
                               if r.windows else "-" for r in runs])
    table.caption = "  ".join(f"{r.agent}: {r.steps_per_second:,.0f} steps/s" for r in runs)
    return table


def plot_rates(runs: list[LifelongRun], path: str | Path) -> Path:
    """A PNG of reward rate per window against steps, one line per agent, phases shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    first = runs[0]
    shade, last = False, None
    for w in first.windows:
        if w.phase != last:
            shade, last = not shade, w.phase
            ax.text(w.start, 0.98, f" {w.phase}", transform=ax.get_xaxis_transform(),
                    fontsize=7, va="top", rotation=90)
        if shade:
            ax.axvspan(w.start, w.end, color="0.92", lw=0)
    for run in runs:
        xs = [(w.start + w.end) / 2 for w in run.windows]
        ax.plot(xs, [w.rate for w in run.windows], marker="o", ms=3, label=run.agent)
    ax.set_xlabel("step")
    ax.set_ylabel(f"reward per step (windows of {first.window})")
    ax.set_title(f"{first.spec}: lifelong reward rate")
    ax.legend()
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
