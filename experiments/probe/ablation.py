"""One setting of an RL baseline changed, everything else as an experiment's runs: is that
setting why a run does or does not adapt?

An RL run of the protocol pre-trains once per (agent, seed) and then fine-tunes on the
novelty with the agent's PPO (experiments/protocol/agents.py). This probe runs the same
(agent, novelty, seed) runs with one thing changed, as an `RLOverrides`:

- after the novelty, from the same pre-trained checkpoints, so a difference in the curve is
  that change's alone: PPO's settings (`--set`) and how the transfer starts the new
  weights (`--transfer`);
- in pre-training, which makes another baseline, so those runs pre-train their own
  checkpoints, in files beside the experiment's named after the change
  (`pre_checkpoint_template`), resumably as the experiment's do: PPO's settings
  (`--pre-set`), actions kept from the agent in both phases as if its action space lacked
  them (`--forbid`; NovelGym's had 28 actions where ours has more), a pre-training that
  stops early, where the protocol's convergence test first holds (`--pre-stop`) or by
  NovelGym's own rule (`--pre-stop-reward 900`), and one on the task's reward alone, without
  the plan shaping of the paper's appendix D.1 (`--no-pre-shaping`, as NovelGym's README
  pre-trains);
- which pre-training the runs start from: `--checkpoint-seed C` fine-tunes every run seed
  from seed C's checkpoint, as NovelGym's code can (its seed only names a run's log folder,
  and `--checkpoint` names one file), so the runs differ only after the novelty.

Records are written apart, labelled: the protocol named "custom" (never "paper": the agent
is not the paper's) and the changes under `ablation`. Without a pre-training change, a
checkpoint that is not there yet is refused, not pre-trained: such an ablation compares with
runs already made.

    python -m nesyworld.experiments.probe.ablation --agent transfer_rl+icm_unmasked \
        --novelty fire_floating --seeds 1 2 --set max_grad_norm=none --post-steps 400000 \
        --out results/ablation.jsonl
    python -m nesyworld.experiments.probe.ablation --agent transfer_rl_unmasked \
        --novelty fire_floating --seeds 0 --pre-set reward_scale=1 --set reward_scale=1 \
        --out results/ablation.jsonl
    python -m nesyworld.experiments.probe.ablation --agent transfer_rl_unmasked \
        --novelty fire_floating --seeds 0 --forbid use craft_tree_tap --out results/ablation.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import string
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nesyworld.experiments.probe.settings import AblationError, changed_ppo, changed_transfer
from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.experiments.protocol.records import CurvePoint, RunSpec
from nesyworld.hybrid.baselines.transfer import TransferConfig

if TYPE_CHECKING:
    from nesyworld.experiments.protocol.agents import RLOverrides

__all__ = ["AblationError", "ablation_specs", "changed_ppo", "changed_transfer",
           "check_forbidden", "check_transfer", "main", "pre_checkpoint_template", "run_ablation",
           "shared_checkpoint_template"]

PRE_ECHO_EVERY = 50
"""Pre-training epochs between two progress lines (about 240,000 env steps in the paper's
4,800-step epochs): a pre-training is hundreds of epochs."""


def pre_checkpoint_template(template: str, pre_changes: dict[str, Any],
                            forbidden: Sequence[str] = (), stop: bool = False,
                            shaped: bool = True,
                            stop_reward: tuple[float, int] | None = None) -> str:
    """Where runs pre-trained with `pre_changes` (kept from the `forbidden` actions, stopped
    at convergence if `stop`, or once `stop_reward`'s (reward, epochs) rule holds, without
    plan shaping unless `shaped`) keep their checkpoints:
    the experiment's `template` with the changes named before its suffix (`{agent}_{seed}.pt`
    becomes `{agent}_{seed}.pre-reward_scale-1.0.pt`), so they never load, or overwrite, the
    experiment's own. Forbidden actions are named by their count and a digest of their
    sorted names, which keeps the file name short."""
    def word(value: Any) -> str:
        if isinstance(value, tuple):  # layer widths: 128x64
            value = "x".join(str(v) for v in value)
        text = "none" if value is None else str(value).lower()
        return re.sub(r"[^A-Za-z0-9._-]", "_", text)

    parts = [f"{name}-{word(value)}" for name, value in sorted(pre_changes.items())]
    if forbidden:
        names = sorted(set(forbidden))
        digest = hashlib.sha256(",".join(names).encode()).hexdigest()[:8]
        parts.append(f"forbid-{len(names)}-{digest}")
    if stop_reward is not None:
        parts.append(f"stop-reward-{word(stop_reward[0])}x{stop_reward[1]}")
    elif stop:
        parts.append("stop")
    if not shaped:
        parts.append("unshaped")
    slug = ".".join(parts)
    path = Path(template)
    return str(path.with_name(f"{path.stem}.pre-{slug}{path.suffix}"))


def shared_checkpoint_template(template: str, seed: int) -> str:
    """`template` with its `{seed}` filled in and `{agent}` kept: every run seed then loads
    the one pre-training of `seed`. A template without `{seed}` already shares one file
    among all seeds, so asking for a seed's is refused rather than ignored."""
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    if "seed" not in names:
        raise AblationError(f"--checkpoint-seed: the checkpoint template {template!r} has no "
                            "{seed} field; expected one such as '{agent}_{seed}.pt'")
    if names - {"agent", "seed"}:
        raise AblationError(f"--checkpoint-seed: the checkpoint template {template!r} has "
                            f"fields other than {{agent}} and {{seed}}")
    return template.format(agent="{agent}", seed=seed)


def ablation_specs(config: str, agent: str, novelty: str, seeds: Sequence[int],
                   post_steps: int | None = None,
                   pre_changes: dict[str, Any] | None = None,
                   forbidden: Sequence[str] = (), pre_stop: bool = False,
                   pre_shaping: bool = True,
                   pre_stop_reward: tuple[float, int] | None = None,
                   checkpoint_seed: int | None = None) -> list[RunSpec]:
    """The experiment's runs of (agent, novelty) on `seeds`, under a protocol of the same
    values named "custom" (with `post_steps` if given, and `pre_full_budget` off if
    `pre_stop` or `pre_stop_reward`, the (reward, epochs) of
    `ProtocolConfig.pre_stop_reward`). Each starts from its pre-trained checkpoint, which
    must exist; with `pre_changes`, `forbidden`, a stop or without `pre_shaping`, from its
    own checkpoint of that pre-training (`pre_checkpoint_template`), made by the first run
    that needs it. With `checkpoint_seed`, every run starts from that seed's checkpoint
    (`shared_checkpoint_template`), which must exist: a run of another seed pre-training it
    would make a checkpoint of the wrong seed."""
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
    stop = pre_stop and protocol.pre_full_budget  # a config that stops already is its own
    if stop or pre_stop_reward is not None:
        reward, epochs = pre_stop_reward or (None, protocol.pre_stop_epochs)
        try:
            protocol = dataclasses.replace(protocol, pre_full_budget=False,
                                           pre_stop_reward=reward, pre_stop_epochs=epochs)
        except ValueError as err:
            raise AblationError(f"--pre-stop-reward: {err}") from None
    own = bool(pre_changes or forbidden or stop or not pre_shaping
               or pre_stop_reward is not None)
    if own and protocol.pretrained:
        protocol = dataclasses.replace(protocol, pretrained=pre_checkpoint_template(
            protocol.pretrained, pre_changes or {}, forbidden, stop, pre_shaping,
            pre_stop_reward))
    if checkpoint_seed is not None and protocol.pretrained:
        protocol = dataclasses.replace(protocol, pretrained=shared_checkpoint_template(
            protocol.pretrained, checkpoint_seed))
    specs = [RunSpec(agent, experiment.domain, novelty, seed, protocol, experiment.knowledge,
                     experiment.refusals) for seed in seeds]
    if not protocol.pretrained:
        raise AblationError(f"{config}: protocol.pretrained is empty; expected the path "
                            "template of the experiment's pre-trained checkpoints, which an "
                            "ablation starts from (or keeps its own pre-training beside)")
    for spec in specs:
        path = pretrained_checkpoint(spec)
        if path is None:
            raise AblationError(f"{agent} is not an RL agent with a pre-trained checkpoint "
                                f"under {config}'s protocol.pretrained")
        if (not own or checkpoint_seed is not None) and not path.exists():
            seed = spec.seed if checkpoint_seed is None else checkpoint_seed
            raise AblationError(f"{path}: no pre-trained checkpoint of {agent} seed {seed}; "
                                "expected one made by the experiment's runs")
    return specs


def check_forbidden(spec: RunSpec, forbidden: Sequence[str]) -> None:
    """Refuse an action name that neither the task nor its novelty has: a misspelt name
    would forbid nothing, and the runs would be the experiment's under another label."""
    from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

    before = NesyGridEnv(spec.domain)
    inner = NesyGridEnv(spec.domain)
    NoveltyInjector(inner, [spec.novelty]).reset(seed=0)  # the novelty's actions join
    known = {*before.action_names, *inner.action_names}
    unknown = [name for name in forbidden if name not in known]
    if unknown:
        raise AblationError(f"--forbid {' '.join(unknown)}: not an action of {spec.domain} "
                            f"or of it after {spec.novelty}; expected one of "
                            f"{', '.join(sorted(known))}")


def check_transfer(spec: RunSpec, transfer: TransferConfig) -> None:
    """Refuse `new_actions_from` naming an action the task does not have before its
    novelty: the new actions would quietly start at the mean instead (TransferConfig)."""
    from nesyworld.world.envs import NesyGridEnv

    known = NesyGridEnv(spec.domain).action_names
    if transfer.new_actions_from and transfer.new_actions_from not in known:
        raise AblationError(f"--transfer new_actions_from={transfer.new_actions_from}: not an "
                            f"action of {spec.domain}; expected one of {', '.join(known)}")


def _progress(seed: int, echo: bool) -> Callable[[CurvePoint], None]:
    """A run's progress lines: every evaluation after the novelty, counted from the novelty
    (the last pre-novelty point), and now and then one of a pre-training."""
    injected = 0

    def point(p: CurvePoint) -> None:
        nonlocal injected
        if p.phase == "pre":
            injected = p.env_steps
        if echo and p.phase == "post":
            print(f"seed {seed}: {p.env_steps - injected:>9,} env steps after the novelty, "
                  f"success {p.success_rate:.2f}", flush=True)
        elif echo and p.epoch % PRE_ECHO_EVERY == 0:
            print(f"seed {seed}: {p.env_steps:>9,} env steps of pre-training, "
                  f"success {p.success_rate:.2f}", flush=True)
    return point


def run_ablation(specs: Sequence[RunSpec], overrides: RLOverrides, out: Path,
                 echo: bool = True, changes: dict[str, Any] | None = None,
                 pre_changes: dict[str, Any] | None = None,
                 transfer_changes: dict[str, Any] | None = None,
                 pre_stop: bool = False,
                 checkpoint_seed: int | None = None) -> list[dict[str, Any]]:
    """Each run with `overrides` of its RL agent's settings, its record appended to `out`
    as it ends and labelled with what changed: `changes`, `pre_changes` and
    `transfer_changes`, the fields set after the novelty, in pre-training and in the
    transfer (`changed_ppo`, `changed_transfer`); the forbidden actions and the shaping
    from `overrides`; `pre_stop` and the spec's `pre_stop_reward` for a pre-training that
    stopped early (`ablation_specs`); `checkpoint_seed` when every run started from that
    seed's pre-training."""
    from nesyworld.experiments.protocol.run import run_protocol

    records = []
    for spec in specs:
        record = run_protocol(spec, _progress(spec.seed, echo), overrides)
        label: dict[str, Any] = {"post_ppo": changes or {}}
        if pre_changes:
            label["pre_ppo"] = pre_changes
        if overrides.forbidden:
            label["forbidden"] = sorted(set(overrides.forbidden))
        if pre_stop:
            label["pre_stop"] = True
        if spec.protocol.pre_stop_reward is not None:
            label["pre_stop_reward"] = [spec.protocol.pre_stop_reward,
                                        spec.protocol.pre_stop_epochs]
        if not overrides.pre_shaping:
            label["pre_shaping"] = False
        if transfer_changes:
            label["transfer"] = transfer_changes
        if checkpoint_seed is not None:
            label["checkpoint_seed"] = checkpoint_seed
        record["ablation"] = label
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
        description="Run an experiment's RL runs with PPO's settings changed after the "
                    "novelty (from the experiment's checkpoints) or in pre-training too "
                    "(pre-training their own); records labelled apart.")
    parser.add_argument("--config", default="table2",
                        help="experiment config: a file or a shipped name (default table2)")
    parser.add_argument("--agent", required=True, help="an RL agent of the config")
    parser.add_argument("--novelty", required=True, help="a novelty of the config")
    parser.add_argument("--seeds", type=int, nargs="+", required=True, metavar="SEED",
                        help="run seeds (their checkpoints must exist, unless the runs "
                        "pre-train their own)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        dest="settings", help="a PPOConfig field after the novelty "
                        "(repeatable), e.g. max_grad_norm=none")
    parser.add_argument("--pre-set", action="append", default=[], metavar="FIELD=VALUE",
                        dest="pre_settings", help="a PPOConfig field in pre-training "
                        "(repeatable): the runs pre-train their own checkpoints")
    parser.add_argument("--forbid", action="extend", nargs="+", default=[], metavar="ACTION",
                        help="an action the agent is kept from in both phases (repeatable): "
                        "the runs pre-train their own checkpoints")
    parser.add_argument("--transfer", action="append", default=[], metavar="FIELD=VALUE",
                        dest="transfer_settings", help="a TransferConfig field after the "
                        "novelty (repeatable), e.g. new_actions_from=rotate_left")
    parser.add_argument("--pre-stop", action="store_true",
                        help="pre-training ends where the convergence test first holds, "
                        "not at the budget: the runs pre-train their own checkpoints")
    parser.add_argument("--pre-stop-reward", type=float, default=None, metavar="REWARD",
                        help="pre-training ends once --pre-stop-epochs evaluations in a row "
                        "reach this mean reward, as NovelGym's code stops (900): the runs "
                        "pre-train their own checkpoints")
    parser.add_argument("--pre-stop-epochs", type=int, default=6, metavar="EPOCHS",
                        help="the run of evaluations --pre-stop-reward asks for (default 6: "
                        "the 26,400 env steps NovelGym's 22 checks span)")
    parser.add_argument("--no-pre-shaping", action="store_false", dest="pre_shaping",
                        help="pre-training on the task's reward alone, without plan shaping: "
                        "the runs pre-train their own checkpoints")
    parser.add_argument("--checkpoint-seed", type=int, default=None, metavar="SEED",
                        help="every run fine-tunes from this seed's pre-trained checkpoint, "
                        "which must exist (default: each run seed's own)")
    parser.add_argument("--post-steps", type=int, default=None,
                        help="adaptation budget (default: the config's)")
    parser.add_argument("--out", type=Path, required=True, help="JSON-lines file to append to")
    args = parser.parse_args(argv)
    try:
        from nesyworld.experiments.protocol.agents import (
            RLOverrides,
            post_novelty_ppo,
            pre_novelty_ppo,
            protocol_transfer,
        )

        ppo, changes = changed_ppo(post_novelty_ppo(args.agent), args.settings)
        pre_ppo, pre_changes = changed_ppo(pre_novelty_ppo(args.agent), args.pre_settings,
                                           "--pre-set")
        transfer, transfer_changes = changed_transfer(protocol_transfer(args.agent),
                                                      args.transfer_settings)
        specs = ablation_specs(args.config, args.agent, args.novelty, args.seeds,
                               args.post_steps, pre_changes, args.forbid, args.pre_stop,
                               args.pre_shaping,
                               None if args.pre_stop_reward is None else
                               (args.pre_stop_reward, args.pre_stop_epochs),
                               args.checkpoint_seed)
        check_forbidden(specs[0], args.forbid)
        check_transfer(specs[0], transfer)
    except (AblationError, ValueError, OSError) as err:
        print(f"ablation: {err}", file=sys.stderr)
        return 2
    overrides = RLOverrides(post_ppo=ppo, pre_ppo=pre_ppo if pre_changes else None,
                            forbidden=tuple(args.forbid), pre_shaping=args.pre_shaping,
                            transfer=transfer if transfer_changes else None)
    records = run_ablation(specs, overrides, args.out, changes=changes,
                           pre_changes=pre_changes, transfer_changes=transfer_changes,
                           pre_stop=args.pre_stop, checkpoint_seed=args.checkpoint_seed)
    return 0 if all(r["status"] == "ok" for r in records) else 1


if __name__ == "__main__":
    raise SystemExit(main())
