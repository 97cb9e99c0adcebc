"""The agents of the evaluation protocol, behind one small interface.

The protocol needs three things of any agent: learn for about N env steps (`train`),
play evaluation episodes without learning (`evaluate`), and move to the post-novelty env
(`inject`). Symbolic agents (planning, RapidLearn, RapidLearn+) learn while they act, so their
"training" is task episodes with learning on; RL agents learn on envs of their own
(`learn(steps)`), so their training steps are the trainer's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from nesyworld.experiments.protocol.records import UNMASKED
from nesyworld.hybrid import (
    HYBRID_AGENTS,
    EpisodeResult,
    HybridAgent,
    PlanningAgent,
    RLAgent,
    RLConfig,
    TransferRLAgent,
    hybrid_configs,
    run_episode,
)
from nesyworld.hybrid.baselines.rl_config import (
    DEFAULT_SHAPING,
    DEFAULT_TRANSFER,
    FORBIDDEN_BY_DEFAULT,
    PAPER_POST_NOVELTY_PPO,
    PAPER_PRE_NOVELTY_PPO,
    PAPER_TRANSFER,
    POST_NOVELTY_TRAIN,
    PRE_NOVELTY_TRAIN,
)
from nesyworld.hybrid.baselines.transfer import TransferConfig
from nesyworld.hybrid.knowledge.regime import check_knowledge
from nesyworld.hybrid.seeding import SPAN, RunSeeds
from nesyworld.learning import ICMConfig, PPOConfig, TrainConfig
from nesyworld.symbolic.knowledge_base import KnowledgeBase

LEARN_CALL_STRIDE = 20_000
"""Map seeds of the run's learner_envs stream per `learn` call (its training envs take
env_seed + i, its evaluation envs env_seed + 10_000 + i)."""


def learner_env_index(call: int) -> int:
    """The learner_envs index of the `call`-th `learn` call of a run.

    A run's stream holds SPAN // LEARN_CALL_STRIDE = 838 calls. The paper protocol's whole
    budgets make more (one call per 4,800-step epoch: about 840 before the novelty, up to 209
    after it), and an index past the stream was refused at the first post-novelty epoch; so
    the calls start the stream again from its first maps (in a world the novelty has changed
    by then). The first 838 calls keep their maps, so runs and pre-training checkpoints made
    before stay reproducible."""
    return LEARN_CALL_STRIDE * (call % (SPAN // LEARN_CALL_STRIDE))


@dataclass
class Spent:
    """What a stretch of training cost: env steps (all, learning included) and actions
    (those the agent chose in its own task episodes)."""

    env_steps: int = 0
    actions: int = 0
    detections: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    """(env steps into this stretch, what) for each novelty the agent reported."""


class ProtocolAgent(Protocol):
    name: str

    def learns(self, phase: str) -> bool:
        """Whether training in this phase can change anything."""
        ...

    def train(self, steps: int, phase: str = "post") -> Spent:
        """Learn for about `steps` env steps, on maps of the run's own (RunSeeds)."""
        ...

    def evaluate(self, seeds: Sequence[int]) -> list[EpisodeResult]:
        """One evaluation episode per map seed, learning off."""
        ...

    def inject(self, env: Any) -> None: ...

    def take_detections(self) -> list[str]:
        """Novelties the agent reported during evaluation since the last call."""
        ...


class SymbolicProtocolAgent:
    """Planning and hybrid agents: their training is task episodes with learning on."""

    def __init__(self, agent: PlanningAgent, learns: bool, seeds: RunSeeds) -> None:
        self.agent = agent
        self.name = agent.name
        self._learns = learns
        self._reported: list[str] = []
        self.seeds = seeds
        self._episodes_played = {"pre": 0, "post": 0}

    def _episodes(self, steps: int, phase: str, learning: bool) -> Spent:
        """Task episodes until `steps` env steps (learning included) are spent; one episode
        when not learning (nothing would change between them). Each episode plays the
        run's next map of the phase (pretraining or adaptation maps)."""
        spent = Spent()
        if isinstance(self.agent, HybridAgent):
            self.agent.learning = learning
        while spent.env_steps < steps:
            learned = getattr(self.agent, "adaptation_env_steps", 0)
            seen = len(self.agent.novelties)
            k = self._episodes_played[phase]
            self._episodes_played[phase] += 1
            seed = self.seeds.pretraining(k) if phase == "pre" else self.seeds.adaptation(k)
            result = run_episode(self.agent.env, self.agent, seed)
            for event in self.agent.novelties[seen:]:
                spent.detections.append((spent.env_steps + event.step, event.text))
            spent.actions += result.steps
            spent.env_steps += result.steps + getattr(self.agent, "adaptation_env_steps",
                                                      0) - learned
            if not learning:
                break
        return spent

    def learns(self, phase: str) -> bool:
        """Before the novelty the knowledge is complete: nothing fails, nothing to learn."""
        return self._learns and phase == "post"

    def train(self, steps: int, phase: str = "post") -> Spent:
        return self._episodes(steps, phase, learning=self.learns(phase))

    def evaluate(self, seeds: Sequence[int]) -> list[EpisodeResult]:
        if isinstance(self.agent, HybridAgent):
            self.agent.learning = False
        seen = len(self.agent.novelties)
        results = [run_episode(self.agent.env, self.agent, seed) for seed in seeds]
        self._reported.extend(e.text for e in self.agent.novelties[seen:])
        return results

    def take_detections(self) -> list[str]:
        out, self._reported = self._reported, []
        return out

    def inject(self, env: Any) -> None:
        self.agent.env = env


class RLProtocolAgent:
    """RL agents: trained by `learn`; "transfer" ones carry their weights over the novelty
    (growing the network), plain ones start over on the post-novelty task."""

    def __init__(self, agent: RLAgent, transfer: bool, post_config: RLConfig,
                 pretrained: bool = False, seeds: RunSeeds | None = None,
                 max_episode_steps: int | None = None,
                 transfer_config: TransferConfig = DEFAULT_TRANSFER) -> None:
        self.agent = agent
        self.name = agent.name
        self.transfer = transfer
        self.post_config = post_config
        self.pretrained = pretrained
        self.seeds = seeds if seeds is not None else RunSeeds(agent.config.train.seed)
        self.learn_calls = 0
        self.max_episode_steps = max_episode_steps
        self.transfer_config = transfer_config

    def learns(self, phase: str) -> bool:
        """A policy loaded from a pre-trained checkpoint is only evaluated before the
        novelty: pre-training once per seed serves every novelty, as in the paper."""
        return not (self.pretrained and phase == "pre")

    def train(self, steps: int, phase: str = "post") -> Spent:
        """Training steps plus the trainer's own evaluation steps: both are env steps the
        agent caused (docs/COUNTS.md)."""
        if not self.learns(phase):
            return Spent()
        # each call trains on envs of its own maps: the same env seed every epoch would
        # replay the same few maps for the whole run
        self.learn_calls += 1
        cfg = self.agent.config
        env_seed = self.seeds.map("learner_envs", learner_env_index(self.learn_calls))
        self.agent.config = dataclasses.replace(
            cfg, train=dataclasses.replace(cfg.train, env_seed=env_seed))
        stats = self.agent.learn(steps=steps)
        self._count_down_warmup(int(stats["env_steps"]))
        return Spent(int(stats["env_steps"]) + int(stats.get("evaluation_env_steps", 0)), 0)

    def _count_down_warmup(self, trained: int) -> None:
        """`PPOConfig.critic_warmup_steps` counts within one training run, and the protocol
        trains an epoch per run: what this one trained comes off the next one's warm-up, so
        the warm-up spans the phase's first env steps, not every epoch's."""
        cfg = self.agent.config
        left = cfg.ppo.critic_warmup_steps
        if left:
            self.agent.config = dataclasses.replace(cfg, ppo=dataclasses.replace(
                cfg.ppo, critic_warmup_steps=max(0, left - trained)))

    def evaluate(self, seeds: Sequence[int]) -> list[EpisodeResult]:
        """All at once on the batched core when the agent can (`RLAgent.evaluate`): the
        same maps and cut-off as one by one, about 70x faster."""
        return self.agent.evaluate(seeds, self.max_episode_steps)

    def take_detections(self) -> list[str]:
        return []  # RL agents do not report novelty

    def inject(self, env: Any) -> None:
        if self.transfer:
            self.agent = TransferRLAgent(env, self.agent, self.agent.kb, self.post_config,
                                         transfer=self.transfer_config)
        else:
            self.agent = RLAgent(env, self.agent.kb, self.post_config)


PRE_EPISODE_FACTOR = (PRE_NOVELTY_TRAIN.max_episode_steps or 1) // (
    POST_NOVELTY_TRAIN.max_episode_steps or 1)
"""How many times later than the protocol's cut pre-training episodes end: 3 in the paper
(tables 6 and 7)."""


def protocol_ppo(name: str, paper: PPOConfig) -> PPOConfig:
    """PPO's settings of an RL agent of the protocol: the paper's (`paper`, for the phase)
    for its baselines, the `_unmasked` agents; our default for the masked ones."""
    return paper if name.endswith(UNMASKED) else PPOConfig()


def pre_novelty_ppo(name: str) -> PPOConfig:
    """PPO's settings an RL agent of the protocol pre-trains with."""
    return protocol_ppo(name, PAPER_PRE_NOVELTY_PPO)


def post_novelty_ppo(name: str) -> PPOConfig:
    """PPO's settings an RL agent of the protocol fine-tunes with after the novelty."""
    return protocol_ppo(name, PAPER_POST_NOVELTY_PPO)


def protocol_transfer(name: str) -> TransferConfig:
    """How a transfer agent of the protocol starts its new weights: the paper's baselines
    (`_unmasked`) as NovelGym's placeholders did, our masked ones by our default."""
    return PAPER_TRANSFER if name.endswith(UNMASKED) else DEFAULT_TRANSFER


@dataclass(frozen=True)
class RLOverrides:
    """What a run changes in an RL agent of the protocol, in place of the agent's own: the
    ablations of experiments/probe/ablation.py. The defaults change nothing; hybrid and
    planning agents have nothing to change."""

    post_ppo: PPOConfig | None = None
    """PPO's settings after the novelty. Pre-training keeps the agent's own, so the
    experiment's checkpoint still loads."""
    pre_ppo: PPOConfig | None = None
    """PPO's settings for pre-training. A checkpoint made otherwise is refused
    (`check_pretraining`), so such a run pre-trains its own."""
    forbidden: tuple[str, ...] = ()
    """Actions the agent is kept from in both phases beyond its own (`RLConfig.forbidden`),
    as if its action space lacked them; a checkpoint pre-trained with other ones is refused
    the same way."""
    pre_shaping: bool = True
    """False: pre-training on the task's reward alone, without the plan shaping of the
    paper's appendix D.1 (NovelGym's README pre-trains so, `--env sa`); such a checkpoint is
    kept apart the same way."""
    transfer: TransferConfig | None = None
    """How a transfer agent's new weights start, in place of the protocol's
    (`protocol_transfer`)."""


NO_OVERRIDES = RLOverrides()
"""Every agent as the protocol makes it."""


def make_protocol_agent(name: str, env: Any, domain: str, seeds: RunSeeds,
                        max_episode_steps: int, epoch_steps: int, pretrained: str = "",
                        knowledge: str = "closed",
                        overrides: RLOverrides = NO_OVERRIDES) -> ProtocolAgent:
    """A fresh agent by its protocol name (see records.AGENTS), seeded from the run seed.
    `pretrained`: for RL agents, a checkpoint file saved by `RLAgent.save` to start from
    instead of training (pretraining.py fills in the run's agent and seed); one trained with
    the action masks and loaded by an `_unmasked` agent (or the reverse) is a CheckpointError.
    `overrides`: what an RL agent changes of its own settings."""
    kb = KnowledgeBase.from_world(domain)
    seed = seeds.run
    if name == "planning":
        return SymbolicProtocolAgent(PlanningAgent(env, kb), learns=False, seeds=seeds)
    if name in HYBRID_AGENTS:
        recovery, repair = hybrid_configs(name, seed)
        return SymbolicProtocolAgent(HybridAgent(env, kb, None, recovery, repair=repair,
                                                 knowledge=check_knowledge(knowledge)),
                                     learns=True, seeds=seeds)
    masks = not name.endswith(UNMASKED)  # the paper's plain action space when unmasked
    base_name, _, extra = name.removesuffix(UNMASKED).partition("+")
    if base_name not in ("rl", "transfer_rl") or extra not in ("", "icm"):
        raise ValueError(f"unknown agent {name!r}")
    icm = ICMConfig() if extra == "icm" else None

    def config(train: TrainConfig, paper_ppo: PPOConfig, episode_steps: int) -> RLConfig:
        return RLConfig(train=dataclasses.replace(
            train, seed=seeds.learner, env_seed=seeds.learner_envs(), progress=False,
            epoch_length=epoch_steps,
            max_episode_steps=episode_steps, stop_on_convergence=False,
            eval_episodes=1), icm=icm, action_masks=masks,
            forbidden=tuple(dict.fromkeys((*FORBIDDEN_BY_DEFAULT, *overrides.forbidden))),
            # the paper's baselines learn with the paper's PPO; the masked ones are ours
            ppo=protocol_ppo(name, paper_ppo))

    # every evaluation, and training after the novelty, cut episodes at the protocol's
    # steps; pre-training cuts them as many times later as the paper's did (1,200 steps in
    # table 6 against 400 in table 7)
    pre = config(PRE_NOVELTY_TRAIN, PAPER_PRE_NOVELTY_PPO,
                 max_episode_steps * PRE_EPISODE_FACTOR)
    post = config(POST_NOVELTY_TRAIN, PAPER_POST_NOVELTY_PPO, max_episode_steps)
    if overrides.post_ppo is not None:
        post = dataclasses.replace(post, ppo=overrides.post_ppo)
    if overrides.pre_ppo is not None:
        pre = dataclasses.replace(pre, ppo=overrides.pre_ppo)
    agent = RLAgent(env, kb, pre, shaping=DEFAULT_SHAPING if overrides.pre_shaping else None)
    if pretrained:
        agent.load(pretrained)
    # the paper's baselines carry their weights over as the paper's placeholders did
    transfer = overrides.transfer or protocol_transfer(name)
    return RLProtocolAgent(agent, base_name == "transfer_rl", post, bool(pretrained), seeds,
                           max_episode_steps, transfer)
