"""`FIELD=VALUE` settings of a config, read as a command line gives them: the ablation's
`--set`, `--pre-set` and `--transfer` (experiments/probe/ablation.py).

Each value is read as YAML and checked against the field's annotation, so a misspelt field,
a list where a number belongs or a string where a bool does is refused in one line naming
the flag, before any run starts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import typing
from collections.abc import Sequence
from types import UnionType
from typing import Any, TypeVar, Union

import yaml

from nesyworld.hybrid.baselines.transfer import TransferConfig
from nesyworld.learning import PPOConfig

__all__ = ["AblationError", "changed_ppo", "changed_transfer"]

PPO_FIELDS = tuple(f.name for f in dataclasses.fields(PPOConfig))
FROM_CHECKPOINT = ("hidden_sizes", "critic_hidden_sizes", "action_prior")
"""Fields the fine-tuned network takes from its checkpoint: not for `--set` to change."""
SETTABLE = tuple(f for f in PPO_FIELDS if f not in FROM_CHECKPOINT)
AFTER_NOVELTY_ONLY = ("critic_warmup_steps",)
"""Fields for `--set` only: a warm-up is counted down over the phase it runs in
(experiments/protocol/agents.py), so a checkpoint would hold what was left of it, and a
pre-training's would no longer match the settings that made it."""
PRE_SETTABLE = (*(f for f in SETTABLE if f not in AFTER_NOVELTY_ONLY),
                "hidden_sizes", "critic_hidden_sizes")
"""`--pre-set` may also size the networks: the runs after the novelty load the ablation's
own checkpoint and take its sizes (TransferRLAgent grows the weights it holds)."""
TRANSFER_FIELDS = tuple(f.name for f in dataclasses.fields(TransferConfig))
NONE = ("", "none", "null", "~")
"""Values read as None (PPOConfig's "disabled", e.g. `max_grad_norm=none`)."""


def _kinds(config: type, name: str) -> tuple[type, ...]:
    """The Python types a config's field takes, from its annotation."""
    hint = typing.get_type_hints(config)[name]
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


def changed_ppo(base: PPOConfig, settings: Sequence[str], flag: str = "--set"
                ) -> tuple[PPOConfig, dict[str, Any]]:
    """`base` with each `field=value` of `settings` (the value read as YAML: a scalar,
    `none`, `0.5`, `true`, or a list of layer widths such as `[128, 64]` for the sizes
    `--pre-set` takes), and the changes as a mapping for the record; errors name `flag`."""
    settable = SETTABLE if flag == "--set" else PRE_SETTABLE
    why = {name: (" (the network comes from the checkpoint)" if flag == "--set" else
                  " (the prior comes from the checkpoint)") for name in FROM_CHECKPOINT}
    if flag != "--set":
        why.update({name: " (after the novelty only: --set)" for name in AFTER_NOVELTY_ONLY})
    return _changed(base, settings, flag, settable, why)


def changed_transfer(base: TransferConfig, settings: Sequence[str]
                     ) -> tuple[TransferConfig, dict[str, Any]]:
    """`base` with each `field=value` of `settings` (`--transfer`: how a transfer agent's
    new weights start after the novelty, e.g. `new_actions_from=rotate_left`), and the
    changes for the record. Text fields take the value as written."""
    return _changed(base, settings, "--transfer", TRANSFER_FIELDS, {})


Config = TypeVar("Config", PPOConfig, TransferConfig)


def _changed(base: Config, settings: Sequence[str], flag: str, settable: Sequence[str],
             why: dict[str, str]) -> tuple[Config, dict[str, Any]]:
    changes: dict[str, Any] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = name.strip()
        if not sep or name not in settable:
            raise AblationError(f"{flag} {setting!r}{why.get(name, '')}: expected FIELD=VALUE "
                                f"with FIELD one of {', '.join(settable)}")
        expected = _kinds(type(base), name)
        try:
            value = (text.strip() if expected == (str,) else
                     None if text.strip().lower() in NONE else yaml.safe_load(text))
        except yaml.YAMLError:
            raise AblationError(f"{flag} {setting!r}: the value is not a YAML scalar") from None
        if isinstance(value, str) and float in expected:  # YAML 1.1 reads 1e-5 as text
            with contextlib.suppress(ValueError):
                value = float(value)
        if isinstance(value, list) and tuple in expected:
            if not value or not all(type(v) is int and v > 0 for v in value):
                raise AblationError(f"{flag} {setting!r}: expected a list of positive "
                                    "integers (layer widths)")
            value = tuple(value)
        if isinstance(value, (dict, list)):
            raise AblationError(f"{flag} {setting!r}: expected a single value")
        if not _fits(value, expected):
            raise AblationError(f"{flag} {setting!r}: expected "
                                f"{' or '.join(k.__name__ for k in expected)}")
        changes[name] = value
    try:
        return dataclasses.replace(base, **changes), changes
    except (TypeError, ValueError) as err:
        raise AblationError(f"{flag}: {err}") from None
