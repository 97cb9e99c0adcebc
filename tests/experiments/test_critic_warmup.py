"""`PPOConfig.critic_warmup_steps` counts within one training run; the protocol trains an
RL agent an epoch per run, so its agent (experiments/protocol/agents.py) carries what is
left of the warm-up from one epoch's run to the next."""

from __future__ import annotations

import dataclasses
from typing import Any

from nesyworld.experiments.protocol.agents import RLProtocolAgent
from nesyworld.hybrid.baselines.rl_config import RLConfig
from nesyworld.learning import PPOConfig


class Learns:
    """An RL agent that records the warm-up each of its training runs was given."""

    name = "stub"

    def __init__(self, warmup: int) -> None:
        self.config = RLConfig(ppo=PPOConfig(critic_warmup_steps=warmup))
        self.given: list[int] = []

    def learn(self, steps: int) -> dict[str, Any]:
        self.given.append(self.config.ppo.critic_warmup_steps)
        return {"env_steps": steps, "evaluation_env_steps": 7}


def test_the_warmup_spans_the_first_env_steps_of_the_phase_not_of_every_epoch() -> None:
    stub = Learns(warmup=10_000)
    agent = RLProtocolAgent(stub, transfer=True, post_config=stub.config)  # type: ignore[arg-type]
    spent = [agent.train(4_800).env_steps for _ in range(4)]
    assert stub.given == [10_000, 5_200, 400, 0]
    assert spent == [4_807] * 4
    assert dataclasses.asdict(stub.config.ppo) == dataclasses.asdict(PPOConfig())


def test_no_warmup_leaves_the_config_alone() -> None:
    stub = Learns(warmup=0)
    agent = RLProtocolAgent(stub, transfer=True, post_config=stub.config)  # type: ignore[arg-type]
    config = stub.config
    agent.train(4_800)
    assert stub.config.ppo is config.ppo and stub.given == [0]
