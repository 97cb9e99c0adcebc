"""One setting of an RL baseline's learner changed after the novelty, everything else as an
experiment's runs: is that setting why a run does or does not adapt?

An RL run of the protocol pre-trains once per (agent, seed) and then fine-tunes on the
novelty with the agent's PPO (experiments/protocol/agents.py). This probe runs the same
(agent, novelty, seed) runs from the same pre-trained checkpoints, with PPO's settings after
the novelty changed as `--set` says, so a difference in the curve is that setting's alone.
Its records are written apart, labelled: the protocol named "custom" (never "paper": the
learner is not the paper's) and the change under `ablation`. A checkpoint that is not there
yet is refused, not pre-trained: an ablation compares with runs already made.

    python -m nesyworld.experiments.probe.ablation --agent transfer_rl+icm_unmasked \
        --novelty fire_floating --seeds 1 2 --set max_grad_norm=none --post-steps 400000 \
        --out results/ablation.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing
from collections.abc import Sequence
from pathlib import Path
from types import UnionType
from typing import Any, Union

import yaml

from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.experiments.protocol.records import CurvePoint, RunSpec
from nesyworld.learning import PPOConfig

__all__ = ["AblationError", "ablation_specs", "main", "post_ppo", "run_ablation"]

PPO_FIELDS = tuple(f.name for f in dataclasses.fields(PPOConfig))
FROM_CHECKPOINT = ("hidden_sizes", "action_prior")
"""Fields the fine-tuned network takes from its checkpoint: not for an ablation to change."""
SETTABLE = tuple(f for f in PPO_FIELDS if f not in FROM_CHECKPOINT)
NONE = ("", "none", "null", "~")
"""Values read as None (PPOConfig's "disabled", e.g. `max_grad_norm=none`)."""


def _kinds(name: str) -> tuple[type, ...]:
    """The Python types a PPOConfig field takes, from its annotation."""
    hint = typing.get_type_hints(PPOConfig)[name]
    kinds = [typing.get_origin(k) or k for k in (typing.get_args(hint)
                                                 if typing.get_origin(hint) in (Union, UnionType)
                                                 else (hint,))]
    return tuple(type(None) if k is None else k for k in kinds)


def _fits(value: Any, kinds: tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # a bool is an int to Python, not to a config
        return bool in kinds
    if isinstance(value, int) and float in kinds:
        return True
    return isinstance(value, kinds)


class AblationError(ValueError):
    """An ablation that cannot run as asked: a bad `--set`, an agent or novelty the
    experiment does not have, a checkpoint not made yet."""


def post_ppo(base: PPOConfig, settings: Sequence[str]) -> tuple[PPOConfig, dict[str, Any]]:
    """`base` with each `field=value` of `settings` (the value read as a YAML scalar: `none`,
    `0.5`, `true`), and the changes as a mapping for the record."""
    changes: dict[str, Any] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = name.strip()
        if not sep or name not in SETTABLE:
            why = " (the network comes from the checkpoint)" if name in FROM_CHECKPOINT else ""
            raise AblationError(f"--set {setting!r}{why}: expected FIELD=VALUE with FIELD one "
                                f"of {', '.join(SETTABLE)}")
        try:
            value = None if text.strip().lower() in NONE else yaml.safe_load(text)
        except yaml.YAMLError:
            raise AblationError(f"--set {setting!r}: the value is not a YAML scalar") from None
        expected = _kinds(name)
        if isinstance(value, (dict, list)):
            raise AblationError(f"--set {setting!r}: expected a single value")
        if not _fits(value, expected):
            raise AblationError(f"--set {setting!r}: expected "
                                f"{' or '.join(k.__name__ for k in expected)}")
        changes[name] = value
    try:
        return dataclasses.replace(base, **changes), changes
    except (TypeError, ValueError) as err:
        raise AblationError(f"--set: {err}") from None


def ablation_specs(config: str, agent: str, novelty: str, seeds: Sequence[int],
                   post_steps: int | None = None) -> list[RunSpec]:
    """The experiment's runs of (agent, novelty) on `seeds`, under a protocol of the same
    values named "custom" (with `post_steps` if given), each from its pre-trained checkpoint,
    which must exist."""
    from nesyworld.experiments.protocol.pretraining import pretrained_checkpoint

    experiment = load_experiment(config)
    if agent not in experiment.agents:
        raise AblationError(f"{config} has no agent {agent!r}; expected one of "
                            f"{', '.join(experiment.agents)}")
    if novelty not in experiment.novelties:
        raise AblationError(f"{config} has no novelty {novelty!r}; expected one of "
                            f"{', '.join(experiment.novelties)}")
    protocol = dataclasses.replace(experiment.protocol, name="custom")
    if post_steps is not None:
        protocol = dataclasses.replace(protocol, post_steps=post_steps)
    specs = [RunSpec(agent, experiment.domain, novelty, seed, protocol, experiment.knowledge,
                     experiment.refusals) for seed in seeds]
    for spec in specs:
        path = pretrained_checkpoint(spec)
        if path is None:
            raise AblationError(f"{agent} is not an RL agent with a pre-trained checkpoint "
                                f"under {config}'s protocol.pretrained")
        if not path.exists():
            raise AblationError(f"{path}: no pre-trained checkpoint of {agent} seed "
                                f"{spec.seed}; expected one made by the experiment's runs")
    return specs


def run_ablation(specs: Sequence[RunSpec], ppo: PPOConfig, changes: dict[str, Any],
                 out: Path, echo: bool = True) -> list[dict[str, Any]]:
    """Each run with `ppo` after the novelty, its record appended to `out` as it ends."""
    from nesyworld.experiments.protocol.run import run_protocol

    records = []
    for spec in specs:
        def point(p: CurvePoint, seed: int = spec.seed) -> None:
            if echo and p.phase == "post":
                print(f"seed {seed}: {p.env_steps:>9,} env steps after the novelty, "
                      f"success {p.success_rate:.2f}", flush=True)

        record = run_protocol(spec, point, post_ppo=ppo)
        record["ablation"] = {"post_ppo": changes}
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        records.append(record)
        if echo and record["status"] != "ok":
            print(f"seed {spec.seed}: {record['error'].splitlines()[-1]}", flush=True)
    return records


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nesyworld.experiments.probe.ablation",
        description="Run an experiment's RL runs from their pre-trained checkpoints with "
                    "PPO's settings after the novelty changed; records labelled apart.")
    parser.add_argument("--config", default="table2",
                        help="experiment config: a file or a shipped name (default table2)")
    parser.add_argument("--agent", required=True, help="an RL agent of the config")
    parser.add_argument("--novelty", required=True, help="a novelty of the config")
    parser.add_argument("--seeds", type=int, nargs="+", required=True, metavar="SEED",
                        help="run seeds whose checkpoints exist")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        dest="settings", help="a PPOConfig field after the novelty "
                        "(repeatable), e.g. max_grad_norm=none")
    parser.add_argument("--post-steps", type=int, default=None,
                        help="adaptation budget (default: the config's)")
    parser.add_argument("--out", type=Path, required=True, help="JSON-lines file to append to")
    args = parser.parse_args(argv)
    try:
        from nesyworld.experiments.protocol.agents import post_novelty_ppo

        base = post_novelty_ppo(args.agent)
        ppo, changes = post_ppo(base, args.settings)
        specs = ablation_specs(args.config, args.agent, args.novelty, args.seeds,
                               args.post_steps)
    except (AblationError, ValueError, OSError) as err:
        print(f"ablation: {err}", file=sys.stderr)
        return 2
    records = run_ablation(specs, ppo, changes, args.out)
    return 0 if all(r["status"] == "ok" for r in records) else 1


if __name__ == "__main__":
    raise SystemExit(main())
