"""What a fresh process pays before it trains or plans: each row a new Python process.

Why processes: the costs measured here are imports and one-time initialisation, which a
process pays once and a warm benchmark never sees, yet they are most of a short run (the
README's main job) and are paid again by every sweep worker and test worker. Each row runs
in its own interpreter, in rounds that alternate with the reference (`import torch` alone),
and keeps the best round of each; the ratio to the reference is what carries over between
machines. The pairs show the two start-up costs nesyworld avoids:

- torch's Adam imports torch's compiler (`torch._dynamo`) at its first call, EagerAdam does
  not (learning/algorithms/eager_adam.py);
- unified-planning's engines (ConfigSpace, scipy.stats) load with its default environment,
  and not with the shared deferred one the derived problems are built in
  (symbolic/pddl/environment.py).

    python -m nesyworld.experiments.benchmarks.process_start --rounds 3
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence

ADAM_STEP = """
import torch
net = torch.nn.Linear(8, 8)
opt = {optimizer}(net.parameters(), lr=1e-3, foreach=True)
net(torch.ones(2, 8)).sum().backward()
opt.step()
"""

ROWS: dict[str, str] = {
    "reference: import torch": "import torch",
    # both import nesyworld.learning (torch, tianshou) first: they differ only in the optimizer
    "nesyworld.learning + torch Adam, first step":
        "from nesyworld.learning.algorithms.eager_adam import EagerAdam\n"
        + ADAM_STEP.format(optimizer="torch.optim.Adam"),
    "nesyworld.learning + EagerAdam, first step":
        "from nesyworld.learning.algorithms.eager_adam import EagerAdam\n"
        + ADAM_STEP.format(optimizer="EagerAdam"),
    "derive + in-process plan, UP's engines loaded":
        "import unified_planning.shortcuts\n"
        "from nesyworld.symbolic import derive\n"
        "from nesyworld.symbolic.planning import Planner\n"
        "Planner('in-process').plan(derive('pogostick'))",
    "derive + in-process plan (as nesyworld runs it)":
        "from nesyworld.symbolic import derive\n"
        "from nesyworld.symbolic.planning import Planner\n"
        "Planner('in-process').plan(derive('pogostick'))",
}


def wall(code: str) -> float:
    """Wall seconds of a fresh interpreter running `code`."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start


def measure(rounds: int) -> dict[str, float]:
    """Best wall time of each row over `rounds` rounds, rows alternating within a round."""
    best = {name: float("inf") for name in ROWS}
    for _ in range(rounds):
        for name, code in ROWS.items():
            best[name] = min(best[name], wall(code))
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    best = measure(args.rounds)
    reference = best["reference: import torch"]
    print(f"{'row':<50} {'wall s':>8} {'x import torch':>15}")
    for name, seconds in best.items():
        print(f"{name:<50} {seconds:>8.2f} {seconds / reference:>15.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
