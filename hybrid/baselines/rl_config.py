"""How the RL baselines train and act: `RLConfig`, and the paper's settings for them.

The figures each setting was chosen by are in its docstring; the agents that use them are in
hybrid/baselines/rl_agents.py and the protocol's agents in experiments/protocol/agents.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from nesyworld.hybrid.baselines.shaping import ShapingConfig
from nesyworld.hybrid.baselines.transfer import TransferConfig
from nesyworld.learning import ICMConfig, PPOConfig, TrainConfig

__all__ = [
    "DEFAULT_RL_CONFIG", "DEFAULT_SHAPING", "DEFAULT_TRANSFER", "FORBIDDEN_BY_DEFAULT",
    "PAPER_POST_NOVELTY_PPO", "PAPER_PRE_NOVELTY_PPO", "PAPER_TRANSFER", "POST_NOVELTY_TRAIN",
    "PRE_NOVELTY_TRAIN", "TRANSFER_RL_CONFIG", "RLConfig",
]


PRE_NOVELTY_TRAIN = TrainConfig(
    step_budget=4_000_000, epoch_length=28_800, collect_chunk=2_400, max_episode_steps=1_200,
    num_envs=8)
"""Paper 6.3 and table 6 (4M steps, epochs of 28,800, an update every 2,400, episodes of at
most 1,200 steps, 8 parallel envs). The copies share one batched env (`RLConfig.vector`), so
they need no core each: on a 2-core machine 8 copies trained at 2,100 env steps/s where 2 ran
at 1,460 (unmasked pogostick, minibatch 64 x 8 passes, one torch thread)."""

POST_NOVELTY_TRAIN = TrainConfig(max_episode_steps=400, num_envs=4)
"""Paper table 7 (epochs of 4,800, an update every 800, episodes of at most 400 steps, 4
parallel envs)."""

PAPER_PRE_NOVELTY_PPO = PPOConfig(lr=1e-5, batch_size=128, epochs_per_update=20,
                                  max_grad_norm=None)
"""The paper's PPO for pre-training (tables 4 and 6: Adam at 1e-5, minibatches of 128, 20
batches per train read as 20 passes, as `PPOConfig.epochs_per_update` reads table 7's 8), for
its RL baselines: the `_unmasked` agents of the protocol (experiments/protocol/agents.py).

Why not our faster default (`PPOConfig`: 3e-4, 64 x 8): over the paper's whole 4M steps it
makes the policy all but deterministic, and a transferred policy only learns what it samples.
Measured with `python -m nesyworld.experiments.probe CHECKPOINT --novelty axe` (5 episodes of
100 steps, 2026-11-29): after 4M steps at the default, a mean entropy of 0.002 nats in the Axe
world and a refused `break` repeated up to 97 times in a row; at these settings, 0.21 nats.
Fine-tuned on Axe (PPO+ICM, 128 x 8 at 1e-5), the policy pre-trained at these settings
adapted in 96k env steps (train success 0.995); the default's had not in 240k (success 0,
entropy 0.66).

No gradient clip, where our default clips the norm at 0.5: the paper does not name one, and
NovelGym builds its PPO with tianshou's defaults, whose `max_grad_norm` is None. The clip
bounds actor and critic together, so a step whose value error is large shrinks the actor's
step too. Removed after the novelty from the same checkpoints, it moved single Axe runs both
ways (Transfer RL's seed 3 adapted in 78,000 env steps where it had not in 1M; Transfer
RL+ICM's seed 2 no longer adapted) and no Fire run (docs/EXPERIMENTS.md, "What the gradient
clip changed"). On Fire it matters for Transfer RL: pre-trained and fine-tuned with it, every
run whose policy succeeded at the injection kept those successes and adapted, where without
it most lost them (docs/EXPERIMENTS.md, "The gradient clip keeps what the policy finds"). It
stays off because it is not NovelGym's setting, which table 2 compares with.

Our `reward_scale` (0.01) stays, though it is not NovelGym's (no scaling): advantages are
normalised and Adam's step does not depend on a gradient's scale, but the critic's outputs
move by Adam's step whatever the scale of their targets, so the scale sets how fast the critic
follows the returns. Changed after the novelty alone, on Fire, it moved single runs but showed
no effect beyond chance; NovelGym's setting throughout (a scale of 1 from the pre-training
on) adapted on none of six Fire seeds, where 0.01 adapted on 3 of 10 (docs/EXPERIMENTS.md,
"The reward scale on Fire")."""

PAPER_POST_NOVELTY_PPO = dataclasses.replace(PAPER_PRE_NOVELTY_PPO, epochs_per_update=8)
"""The paper's PPO after the novelty (tables 4 and 7: 128 x 8 at 1e-5)."""

FORBIDDEN_BY_DEFAULT = ("give_up",)
DEFAULT_SHAPING = ShapingConfig()
DEFAULT_TRANSFER = TransferConfig()
PAPER_TRANSFER = TransferConfig(new_weight_scale=1.0, new_actions_from="nop",
                                keep_curiosity=True, moments="novelgym")
"""The paper's transfer, for its baselines (the protocol's `_unmasked` agents). NovelGym
pre-trains with placeholders that a novelty fills in: observation slots for two more entity
types (appendix C.1: "placeholders for two additional objects"), which stay at their initial
weights since they read 0 throughout, and no-op actions that a novelty renames
(`nop_placeholder1 -> approach_water_bucket`). So a new input starts at the fresh
initialisation (scale 1) and a new action as the trained no-op (TransferConfig), and the
curiosity model comes through trained, grown the same way, as NovelGym's did (no space of
its changed). NovelGym's checkpoint also held one optimiser, which its novelty runs loaded:
PPO's, or the curiosity model's for its PPO+ICM agent; so do these (`moments`)."""


@dataclass(frozen=True)
class RLConfig:
    """How an RL baseline trains and acts."""

    train: TrainConfig = PRE_NOVELTY_TRAIN
    ppo: PPOConfig = field(default_factory=PPOConfig)
    icm: ICMConfig | None = None
    greedy: bool = False
    """Act with the most probable action. Off by default: the policy was trained sampling, and
    an unconverged greedy policy can repeat one refused action until the episode ends."""
    forbidden: tuple[str, ...] = FORBIDDEN_BY_DEFAULT
    """Actions masked in training and acting. give_up by default: with -1 a step and 0 for
    giving up, quitting at once is the best return until the goal has been found, and PPO
    learns that long before it finds the goal."""
    action_masks: bool = True
    """Tell the policy, in training and acting, which actions the world would refuse
    (`info["action_mask"]`). False is the NovelGym paper's RL agents (appendix B: a plain
    action space, no masks): every action but the `forbidden` ones is offered, and an illegal
    one is taken, refused by the world, and costs its step. Why it matters: the masks carry a
    novelty's new preconditions into the policy, so a masked policy adapts almost for free
    (`nesyworld.hybrid.baselines.legal_actions`). A checkpoint records which way it was
    trained, and an agent refuses one trained the other way."""
    vector: bool = True
    """Train on the batched core: `train.num_envs` copies in one `NesyVectorEnv`, stepped in
    one compiled call (`nesyworld.hybrid.baselines.vector_envs`), when the observation is LiDAR and
    no `train_env` is given; otherwise one `NesyGridEnv` per copy."""


DEFAULT_RL_CONFIG = RLConfig()
"""The default settings (one frozen instance serves every default argument)."""

TRANSFER_RL_CONFIG = RLConfig(train=POST_NOVELTY_TRAIN)
"""Transfer RL fine-tunes with the post-novelty routine (table 7)."""
