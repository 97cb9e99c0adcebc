"""Experiment configs and the sweep runner, with fake run functions (tests/experiments/fake_runs.py)
so that only the scheduling, recording and resuming are under test."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from nesyworld.experiments.cli.main import main
from nesyworld.experiments.protocol import sweep as runner
from nesyworld.experiments.protocol.config import (
    ExperimentConfig,
    load_experiment,
    shipped_configs,
)
from nesyworld.experiments.protocol.records import ProtocolConfig, RunSpec
from nesyworld.experiments.protocol.sweep import (
    RecordSink,
    RunnerError,
    latest_records,
    load_records,
    run_experiment,
)
from nesyworld.world.errors import SpecError

OK = "fake_runs:ok_run"
FLAKY = "fake_runs:flaky_run"
TINY = "{pre_steps: 0, post_steps: 100, epoch_steps: 10, eval_episodes: 1}"


def write_config(tmp_path: Path, seeds: str = "2", workers: int = 2, protocol: str = TINY,
                 agents: str = "[planning, rapidlearn+]", novelties: str = "[axe, chest]"
                 ) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(f"name: tiny\ndomain: pogostick\nagents: {agents}\nnovelties: {novelties}\n"
                    f"seeds: {seeds}\nworkers: {workers}\nprotocol: {protocol}\n")
    return path




pytestmark = pytest.mark.usefixtures("fake_runs_importable")


def calls(log: Path) -> list[str]:
    return [line.split()[0] for line in log.read_text().splitlines()] if log.exists() else []


# ---------------------------------------------------------------- configs


def test_shipped_configs_expand_to_the_grids() -> None:
    assert {"table2", "hybrid_light", "smoke"} <= set(shipped_configs())
    table2 = load_experiment("table2")
    runs = table2.runs()
    assert len(runs) == 4 * 5 * 10 and len({r.key for r in runs}) == 200
    assert set(table2.agents) == {"rapidlearn+", "rapidlearn", "transfer_rl+icm_unmasked",
                                  "transfer_rl_unmasked"}
    # the paper's Fire is NovelGym's, whose water bucket floats
    assert set(table2.novelties) == {"axe", "chest", "distance", "fence", "fire_floating"}
    assert table2.seeds == tuple(range(10)) and table2.protocol == ProtocolConfig(
        pretrained="results/table2/pretrained/{agent}_{seed}.pt")  # the paper's values
    masked = load_experiment("table2_masked")
    assert (masked.novelties, masked.seeds, masked.protocol) == (
        table2.novelties, table2.seeds, table2.protocol)
    recovery = load_experiment("hybrid_light")
    assert len(recovery.runs()) == 2 * 5 * 5
    assert recovery.protocol.post_steps < table2.protocol.post_steps
    smoke = load_experiment("smoke")
    assert set(smoke.agents) == {"planning", "rapidlearn+"}
    assert len(smoke.novelties) == 2 and smoke.seeds == (0, 1)
    assert smoke.protocol.pre_steps <= 1000 and smoke.protocol.eval_episodes <= 2
    assert ExperimentConfig.from_dict(smoke.as_dict()) == smoke


def test_grid_expands_to_run_specs(tmp_path: Path) -> None:
    config = load_experiment(write_config(tmp_path, seeds="[3, 7]"))
    protocol = ProtocolConfig(pre_steps=0, post_steps=100, epoch_steps=10, eval_episodes=1)
    assert config.protocol == protocol and config.workers == 2 and config.backend == "local"
    assert config.runs() == [RunSpec(a, "pogostick", n, s, protocol)
                             for n in ("axe", "chest") for a in ("planning", "rapidlearn+")
                             for s in (3, 7)]
    assert config.runs()[0].key == "planning/pogostick/axe/3"


GOOD = ("domain: pogostick\nagents: [planning]\nnovelties: [axe]\nseeds: 2\n"
        "protocol: {eta: 2}\n")


@pytest.mark.parametrize(("text", "where", "expected"), [
    (GOOD + "budget: 10\n", "6:1",
     "unknown key 'budget' (at 'budget'); expected one of agents, backend"),
    (GOOD.replace("[planning]", "[planning, ppo]"), "2:20",
     "unknown agent 'ppo' (at 'agents.1'); expected one of planning, repair+rapidlearn+, "),
    (GOOD.replace("seeds: 2", "seeds: two"), "4:8", "expected a seed count"),
    (GOOD.replace("seeds: 2", "seeds: [1, 1]"), "4:12", "seed 1 listed twice"),
    (GOOD.replace("{eta: 2}", "{eta: 2, epochs: 3}"), "5:20",
     "unknown key 'epochs' (at 'protocol.epochs'); expected one of epoch_steps, eta"),
    (GOOD.replace("{eta: 2}", "{eta: 0.5}"), "5:17", "expected an integer, found 0.5"),
    (GOOD.replace("{eta: 2}", "{success_threshold: 9}"), "5:31", "between 0 and 1, found 9.0"),
    (GOOD.replace("[axe]", "[axe, nope]"), "3:18", "unknown novelty 'nope'"),
    (GOOD.replace("pogostick", "nowhere"), "1:9", "unknown domain 'nowhere'"),
    (GOOD + "backend: slurm\n", "6:10",
     "unknown backend 'slurm' (at 'backend'); expected one of local, ray"),
    (GOOD.replace("agents: [planning]\n", ""), "1:1", "missing key 'agents'"),
    (GOOD + "seeds: 3\n", "6:1", "duplicate key 'seeds'"),
    (GOOD.replace("[axe]", "[axe"), "4:6", "YAML syntax error"),
])
def test_config_errors_say_where_and_what(tmp_path: Path, text: str, where: str,
                                         expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_experiment(path)
    assert str(err.value).startswith(f"{path}:{where}: "), str(err.value)
    assert expected in str(err.value), str(err.value)


def test_a_config_names_the_regime_its_runs_keep(tmp_path: Path) -> None:
    default = load_experiment(write_config(tmp_path))
    assert (default.knowledge, default.refusals) == ("closed", "explained")
    assert default.runs()[0].key == "planning/pogostick/axe/0"  # the default keeps its key
    path = write_config(tmp_path)
    path.write_text(path.read_text() + "knowledge: oracle\nrefusals: silent\n")
    config = load_experiment(path)
    spec = config.runs()[0]
    assert (spec.knowledge, spec.refusals) == ("oracle", "silent")
    assert spec.key == "planning/pogostick/axe/0/oracle/silent"
    assert RunSpec.from_dict(spec.as_dict()) == spec
    # a hybrid agent's record from before the regimes were named ran in the oracle's
    old = {k: v for k, v in spec.as_dict().items() if k not in ("knowledge", "refusals")}
    assert RunSpec.from_dict({**old, "agent": "rapidlearn+"}).knowledge == "oracle"
    assert RunSpec.from_dict(old).knowledge == "closed"  # the planning agent has none
    path.write_text(path.read_text().replace("silent", "mute"))
    with pytest.raises(SpecError, match=r"unknown refusals 'mute'.*explained, silent"):
        load_experiment(path)


def test_unknown_config_name_says_what_exists() -> None:
    with pytest.raises(SpecError, match=r"shipped configs .*smoke"):
        load_experiment("tabel2")


# ---------------------------------------------------------------- sweeps


def test_pool_sweep_records_every_run(tmp_path: Path, fake_log: Path) -> None:
    config = load_experiment(write_config(tmp_path))
    out = tmp_path / "results" / "tiny.jsonl"
    records = run_experiment(config, out, run_fn=OK, progress=False)
    assert [r["key"] for r in records] == [s.key for s in config.runs()]
    on_file = {r["key"]: r for r in load_records(out)}  # in the order runs finished
    assert len(on_file) == len(load_records(out)) and on_file == {r["key"]: r for r in records}
    for record, spec in zip(records, config.runs(), strict=True):
        assert record["status"] == "ok" and record["error"] == ""
        assert RunSpec.from_dict(record["spec"]) == spec
        assert record["experiment"]["name"] == "tiny"
        assert re.fullmatch(r"0\.1\.0(\+g[0-9a-f]+(\.dirty)?)?", record["code_version"])
        assert record["started"] and record["wall_seconds"] >= 0
        assert record["curve"][-1]["env_steps"] == 100 * (spec.seed + 1)
        assert record["pid"] != os.getpid()  # ran in a worker process
    assert sorted(calls(fake_log)) == sorted(s.key for s in config.runs())
    assert run_experiment(config, out, run_fn=OK, progress=False) == records  # all done
    assert len(calls(fake_log)) == len(records)


def test_error_is_recorded_and_retried(tmp_path: Path, fake_log: Path) -> None:
    config = load_experiment(write_config(tmp_path))
    out = tmp_path / "runs.jsonl"
    first = run_experiment(config, out, run_fn=FLAKY, progress=False)
    failed = [r for r in first if r["status"] == "error"]
    assert {r["key"] for r in failed} == {s.key for s in config.runs() if s.seed == 1}
    assert all("ValueError: fake failure in" in r["error"] and "Traceback" in r["error"]
               for r in failed)
    assert all(r["status"] == "ok" for r in first if r["spec"]["seed"] == 0)
    before = calls(fake_log)

    final = run_experiment(config, out, run_fn=OK, progress=False)
    assert sorted(calls(fake_log)[len(before):]) == sorted(r["key"] for r in failed)
    assert all(r["status"] == "ok" for r in final) and len(final) == len(config.runs())
    assert len(load_records(out)) == len(first) + len(failed)  # the errors stay on file
    assert latest_records(load_records(out)) == {r["key"]: r for r in final}


def test_cli_runs_a_config_file(tmp_path: Path, fake_log: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.jsonl"
    code = main(["experiment", str(write_config(tmp_path)), "--out", str(out), "--workers",
                 "1", "--run-fn", FLAKY, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1
    assert summary == {"experiment": "tiny", "out": str(out), "runs": 8, "ok": 4, "error": 4,
                       "errors": summary["errors"]} and len(summary["errors"]) == 4
    assert len({line.split()[1] for line in fake_log.read_text().splitlines()}) == 1


def test_cli_seeds_override(tmp_path: Path, fake_log: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "one.jsonl"
    code = main(["experiment", str(write_config(tmp_path)), "--out", str(out), "--workers",
                 "1", "--seeds", "1", "--run-fn", OK, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["runs"] == 4  # half of the config's 2 seeds
    assert all(json.loads(line)["spec"]["seed"] == 0 for line in out.read_text().splitlines())


def test_sweep_refuses_mixed_protocols_and_a_second_writer(tmp_path: Path,
                                                           fake_log: Path) -> None:
    config = load_experiment(write_config(tmp_path, seeds="1", workers=1))
    out = tmp_path / "runs.jsonl"
    run_experiment(config, out, run_fn=OK, progress=False)
    bigger = replace(config, protocol=replace(config.protocol, post_steps=1000))
    with pytest.raises(RunnerError, match="different spec"):
        run_experiment(bigger, out, run_fn=OK, progress=False)
    sink = RecordSink(out)
    try:
        with pytest.raises(RunnerError, match="being written by another sweep"):
            run_experiment(config, out, run_fn=OK, progress=False)
    finally:
        sink.close()
    with pytest.raises(RunnerError, match="cannot import run function"):
        run_experiment(config, tmp_path / "other.jsonl", run_fn="nesyworld.nope:run")


def test_code_version_outside_a_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_git(*args: object, **kwargs: object) -> None:
        raise FileNotFoundError("git")

    runner.code_version.cache_clear()
    monkeypatch.setattr(runner.subprocess, "run", no_git)
    try:
        assert runner.code_version() == "0.1.0"
    finally:
        runner.code_version.cache_clear()


def test_killed_sweep_resumes_without_redoing_or_losing_runs(tmp_path: Path,
                                                             fake_log: Path) -> None:
    """Kill -9 the sweep once its first run is on disk (the others are mid-run), restart it:
    the finished run is kept and not redone, and the results end up complete."""
    config_path = write_config(tmp_path, seeds="[0, 1, 2]", workers=2, agents="[planning]",
                               novelties="[axe]")
    config = load_experiment(config_path)
    out = tmp_path / "runs.jsonl"
    env = {**os.environ, "NESYWORLD_FAKE_SLEEP": "60"}
    sweep = subprocess.Popen(
        [sys.executable, "-m", "nesyworld.experiments.cli.main", "experiment", str(config_path),
         "--out", str(out), "--run-fn", OK, "--json"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 30
    while not load_records(out) and time.monotonic() < deadline and sweep.poll() is None:
        time.sleep(0.05)
    os.killpg(sweep.pid, signal.SIGKILL)  # the sweep and its workers, none left behind
    sweep.wait()
    recorded = load_records(out)
    assert len(recorded) == 1, sweep.stderr.read().decode() if sweep.stderr else ""
    finished = recorded[0]
    assert finished["status"] == "ok" and finished["spec"]["seed"] == 0
    cut = '{"key": "planning/pogostick/axe/1", "spec": {"age'
    with out.open("a") as f:  # and a record cut short by the kill, mid-write
        f.write(cut)

    workers = {int(line.split()[1]) for line in fake_log.read_text().splitlines()}
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)  # orphaned workers notice their parent is gone and exit
    assert not any(_alive(pid) for pid in workers)

    records = run_experiment(config, out, run_fn=OK, progress=False)
    assert [r["key"] for r in records] == [s.key for s in config.runs()]
    assert all(r["status"] == "ok" for r in records)
    assert records[[r["key"] for r in records].index(finished["key"])] == finished
    assert calls(fake_log).count(finished["key"]) == 1  # not redone
    assert len(load_records(out)) == len(records)  # the cut line is gone, nothing else
    lines = out.read_text().split("\n")
    assert cut not in lines and len(lines) == len(records) + 1 and lines[-1] == ""


def test_the_next_append_removes_a_last_line_cut_short(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A line cut short by a kill stayed in the file forever, between later records; the
    sink that opens the file next removes it (its run never finished) and says so."""
    out = tmp_path / "runs.jsonl"
    whole = {"key": "a", "status": "ok"}
    cut = '{"key": "b", "status": "o'
    out.write_text(json.dumps(whole) + "\n" + cut)
    sink = RecordSink(out)
    try:
        assert sink.mended.startswith(f"{out}: removed the last line ({len(cut)} bytes)")
        sink.write({"key": "c", "status": "ok"})
    finally:
        sink.close()
    assert [r["key"] for r in load_records(out)] == ["a", "c"]
    assert out.read_text() == json.dumps(whole) + '\n{"key": "c", "status": "ok"}\n'
    out.write_text(json.dumps(whole))  # a whole record that lacks its newline: kept
    RecordSink(out).close()
    assert out.read_text() == json.dumps(whole) + "\n"
    out.write_text(json.dumps(whole) + "\nnot a record")  # not a record cut short: left, and
    sink = RecordSink(out)  # refused at its line by the next reading
    sink.close()
    assert not sink.mended and out.read_text().endswith("not a record\n")
    with pytest.raises(SpecError, match=r"runs\.jsonl:2:1: not a JSON record"):
        load_records(out)
    from nesyworld.experiments.protocol import results_file

    monkeypatch.setattr(results_file, "MAX_LINE_BYTES", 20)  # longer than any record: kept
    out.write_text(json.dumps(whole) + "\n" + cut)
    sink = RecordSink(out)
    sink.close()
    assert not sink.mended and out.read_text().endswith(cut + "\n")


def test_a_sweep_refuses_a_results_path_that_is_not_a_regular_file(tmp_path: Path) -> None:
    config = load_experiment(write_config(tmp_path, seeds="1", workers=1))
    os.mkfifo(tmp_path / "pipe.jsonl")
    with pytest.raises(RunnerError, match=r"pipe\.jsonl is a FIFO, not a regular file"):
        run_experiment(config, tmp_path / "pipe.jsonl", run_fn=OK, progress=False)
    (tmp_path / "folder.jsonl").mkdir()
    with pytest.raises(RunnerError, match=r"folder\.jsonl is a folder"):
        run_experiment(config, tmp_path / "folder.jsonl", run_fn=OK, progress=False)


def test_a_resumed_file_that_holds_something_else_is_refused_at_its_line(
        tmp_path: Path, fake_log: Path) -> None:
    """Lines that were not runs were skipped, so a sweep appended its runs to any file."""
    config = load_experiment(write_config(tmp_path, seeds="1", workers=1))
    out = tmp_path / "notes.jsonl"
    out.write_text("name: not a results file\n")
    with pytest.raises(SpecError, match=r"notes\.jsonl:1:1: no runs found: not a JSON record"):
        run_experiment(config, out, run_fn=OK, progress=False)
    assert out.read_text() == "name: not a results file\n" and not calls(fake_log)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by init) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


# ---------------------------------------------------------------- ray


def test_ray_backend_runs_on_a_local_ray(tmp_path: Path, fake_log: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray")
    out = tmp_path / "ray.jsonl"
    code = main(["experiment", str(write_config(tmp_path, workers=2)), "--backend", "ray",
                 "--out", str(out), "--run-fn", FLAKY, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["ok"] == 4 and summary["error"] == 4
    records = load_records(out)
    assert len(records) == 8 and all(r["pid"] != os.getpid() for r in records
                                     if r["status"] == "ok")
    assert all("ValueError: fake failure" in r["error"] for r in records
               if r["status"] == "error")


def test_ray_missing_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    config = load_experiment(write_config(tmp_path, seeds="1", workers=1))
    with pytest.raises(RunnerError, match=re.escape("pip install nesyworld[ray]")):
        run_experiment(config, tmp_path / "r.jsonl", run_fn=OK, backend="ray",
                       progress=False)
