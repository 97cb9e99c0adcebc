"""Which run a free worker takes next (experiments/protocol/scheduling.py): a pre-trained
checkpoint is used before another is made, and no worker waits on a pre-training in flight."""

from __future__ import annotations

from pathlib import Path

from nesyworld.experiments.protocol.config import ExperimentConfig
from nesyworld.experiments.protocol.pretraining import pretrained_checkpoint, progress_files
from nesyworld.experiments.protocol.records import ProtocolConfig, RunSpec
from nesyworld.experiments.protocol.scheduling import dispatch, next_run
from nesyworld.experiments.protocol.sweep import run_experiment


def grid(tmp_path: Path, agents: tuple[str, ...] = ("transfer_rl",),
         novelties: tuple[str, ...] = ("axe", "chest", "fence"),
         seeds: tuple[int, ...] = (0, 1), workers: int = 1) -> ExperimentConfig:
    protocol = ProtocolConfig(pre_steps=0, post_steps=100, epoch_steps=10, eval_episodes=1,
                              pretrained=str(tmp_path / "ckpt" / "{agent}_{seed}.pt"))
    return ExperimentConfig("tiny", "pogostick", agents, novelties, seeds, protocol, workers)


def pretrain(spec: RunSpec) -> None:
    path = pretrained_checkpoint(spec)
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"weights")


def test_only_rl_agents_have_a_checkpoint(tmp_path: Path) -> None:
    runs = grid(tmp_path, agents=("rapidlearn+", "planning", "transfer_rl+icm_unmasked")).runs()
    paths = {spec.agent: pretrained_checkpoint(spec) for spec in runs if spec.seed == 1}
    assert paths["rapidlearn+"] is None and paths["planning"] is None
    assert paths["transfer_rl+icm_unmasked"] == tmp_path / "ckpt" / "transfer_rl_icm_unmasked_1.pt"


def test_a_finished_checkpoint_is_used_before_another_is_made(tmp_path: Path) -> None:
    queue = grid(tmp_path).runs()  # novelty-major: axe/0, axe/1, chest/0, ...
    assert next_run(queue, []) == 0  # nothing on disk: grid order
    pretrain(queue[1])  # seed 1's checkpoint
    first = next_run(queue, [])
    assert first is not None and queue[first].seed == 1 and queue[first].novelty == "axe"
    rest = [s for s in queue if s.seed == 0]
    (progress_file := progress_files(pretrained_checkpoint(rest[0]))[1]).parent.mkdir(
        parents=True, exist_ok=True)
    progress_file.write_text("{}")  # seed 0 begun: resumed before a fresh pair is started
    fresh = grid(tmp_path, seeds=(2, 0)).runs()
    index = next_run(fresh, [])
    assert index is not None and fresh[index].seed == 0


def test_no_run_waits_on_a_pretraining_in_flight(tmp_path: Path) -> None:
    queue = grid(tmp_path).runs()
    busy = [queue[0]]  # axe/0 is pre-training seed 0
    index = next_run(queue[1:], busy)
    assert index is not None and queue[1:][index].seed == 1
    only_seed0 = [s for s in queue if s.seed == 0][1:]
    assert next_run(only_seed0, busy) is None  # every one of them would wait
    pretrain(queue[0])  # the pre-training ended, the run goes on: its pair is ready
    assert next_run(only_seed0, busy) == 0


def test_agents_without_checkpoints_keep_grid_order(tmp_path: Path) -> None:
    queue = grid(tmp_path, agents=("rapidlearn+", "planning")).runs()
    assert next_run(queue, []) == 0 and next_run(queue[1:], queue[:1]) == 0


def test_dispatch_keeps_the_slots_full_and_yields_each_run_once(tmp_path: Path) -> None:
    queue = grid(tmp_path, seeds=(0, 1, 2)).runs()
    pending: dict[str, RunSpec] = {}
    started: list[str] = []
    most = 0

    def submit(spec: RunSpec) -> str:
        nonlocal most
        started.append(spec.key)
        most = max(most, len(pending) + 1)
        return spec.key

    def wait_any(handles: list[str], timeout: float | None) -> list[str]:
        done = handles[0]  # the oldest finishes, having pre-trained its pair
        pretrain(next(s for s in queue if s.key == done))
        return [done]

    finished = [key for key, _ in dispatch(queue, 2, submit, wait_any, pending)]
    assert sorted(finished) == sorted(s.key for s in queue) == sorted(started)
    assert most == 2 and not pending
    # two pairs pre-train at once, then each pair's other runs come before a third pair
    assert [s.split("/")[-1] for s in started[:6]] == ["0", "1", "0", "1", "0", "1"]


def test_a_pool_sweep_uses_each_checkpoint_before_pretraining_the_next(
        tmp_path: Path, fake_log: Path) -> None:
    config = grid(tmp_path)
    records = run_experiment(config, tmp_path / "runs.jsonl",
                             run_fn="fake_runs:pretraining_run", progress=False)
    assert all(r["status"] == "ok" for r in records) and len(records) == 6
    order = [line.split()[0] for line in fake_log.read_text().splitlines()]
    assert [key.split("/")[-1] for key in order] == ["0", "0", "0", "1", "1", "1"]
