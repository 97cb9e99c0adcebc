"""Training a learner: the learner itself (PPO, optionally wrapped by ICM, with the spaces it
was built for), the training loop and its vector envs, the paper's convergence test, and
checkpoints for fine-tuning."""

from nesyworld.learning.training.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from nesyworld.learning.training.convergence import ConvergenceTest
from nesyworld.learning.training.learner import Learner, build_learner
from nesyworld.learning.training.logs import EpochLog
from nesyworld.learning.training.trainer import EpochRecord, TrainResult, train
from nesyworld.learning.training.vector_adapter import VectorEnvAdapter, VectorEnvFactory

__all__ = [
    "Checkpoint", "ConvergenceTest", "EpochLog", "EpochRecord", "Learner", "TrainResult",
    "VectorEnvAdapter", "VectorEnvFactory", "build_learner", "load_checkpoint",
    "save_checkpoint", "train",
]
