"""One vector-env step of N worlds in a single compiled call: each world either takes its
action (its episode still running) or starts a new episode (Gymnasium's NEXT_STEP autoreset),
then every world's reward, flags, LiDAR observation and next action mask are written.

The parts are the kernels `BatchWorld` also offers one by one (`step_worlds`,
`reset_worlds`, `lidar_worlds`, `mask_worlds`); fusing them saves a dozen numpy calls and
Python round trips per step, which at N = 256 cost as much as the worlds' own work.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nesyworld.world.batch.dynamics import step_worlds
from nesyworld.world.batch.masks import mask_worlds
from nesyworld.world.batch.observe import lidar_worlds
from nesyworld.world.batch.state import reset_worlds
from nesyworld.world.kernels.jit import njit


@dataclass
class StepBuffers:
    """What one vector step writes, preallocated once per env (N along the first axis)."""

    obs: np.ndarray  # float32 (N, 10T)
    mask: np.ndarray  # bool (N, actions): for the next step
    reward: np.ndarray  # float64 (N,)
    terminated: np.ndarray  # bool (N,)
    truncated: np.ndarray  # bool (N,)
    ok: np.ndarray  # bool (N,): the action was not refused (True on a restart)
    cost: np.ndarray  # float64 (N,): its cost, 0 when refused or restarted
    success: np.ndarray  # bool (N,): the main agent holds the goal
    restart: np.ndarray  # bool (N,): the episode ended; the next step starts a new one

    @classmethod
    def zeros(cls, n: int, obs_size: int, n_actions: int) -> StepBuffers:
        return cls(np.zeros((n, obs_size), np.float32), np.zeros((n, n_actions), bool),
                   np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), np.ones(n, bool),
                   np.zeros(n), np.zeros(n, bool), np.zeros(n, bool))


@njit
def advance_worlds(S: tuple, K: tuple, R: tuple, L: tuple,
                   stream: np.ndarray, resets: np.ndarray, actions: np.ndarray, main: int,
                   h: int, w: int, tries: int, init_inventory: np.ndarray,
                   goal_ids: np.ndarray, goal_counts: np.ndarray, r_step: float,
                   r_goal: float, r_give_up: float, max_steps: int,
                   beams: tuple, n_types: int, cap: int,
                   obs: np.ndarray, mask: np.ndarray, reward: np.ndarray,
                   terminated: np.ndarray, truncated: np.ndarray, ok: np.ndarray,
                   cost: np.ndarray, success: np.ndarray, restart: np.ndarray,
                   status: np.ndarray) -> None:
    """`restart` says which worlds start a new episode (in: the last step ended theirs)
    and is rewritten for the next step; status[i] != 0: the i-th restart's layout failed."""
    n_envs = actions.shape[0]
    n_restart = 0
    for n in range(n_envs):
        n_restart += restart[n]
    stepping = np.empty(n_envs - n_restart, np.int64)
    restarting = np.empty(n_restart, np.int64)
    i = k = 0
    for n in range(n_envs):
        if restart[n]:
            restarting[k] = n
            resets[n] += 1
            k += 1
        else:
            stepping[i] = n
            i += 1
    costs = np.empty(stepping.shape[0], np.float64)
    step_worlds(S, K, stepping, actions[stepping], main, h, w, costs)
    reset_worlds(S, K, R, restarting, stream, resets, L, h, w, tries, init_inventory,
                 status[:n_restart])
    inv, step, gave_up = S[4], S[10], S[11]
    for n in range(n_envs):
        success[n] = True
        for g in range(goal_ids.shape[0]):
            if inv[n, main, goal_ids[g]] < goal_counts[g]:
                success[n] = False
                break
    for i in range(stepping.shape[0]):
        n = stepping[i]
        reward[n] = r_step + r_goal * success[n] + r_give_up * gave_up[n]
        terminated[n] = success[n] or gave_up[n]
        truncated[n] = not terminated[n] and step[n] >= max_steps
        ok[n] = not np.isnan(costs[i])
        cost[n] = costs[i] if ok[n] else 0.0
        restart[n] = terminated[n] or truncated[n]
    for k in range(n_restart):
        n = restarting[k]
        reward[n], terminated[n], truncated[n], ok[n], cost[n] = 0.0, False, False, True, 0.0
        restart[n] = False
    everyone = np.arange(n_envs)
    lidar_worlds(S, main, w, beams[0], beams[1], beams[2], beams[3], n_types, cap, obs,
                 everyone)
    mask_worlds(S, K, R, main, h, w, mask, everyone)
