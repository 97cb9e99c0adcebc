"""MiniGrid behind the environment boundary (hybrid/adapters/minigrid/): what the detector
reads, how the agent walks, snapshots, and the planning agent solving DoorKey."""

from __future__ import annotations

import json

import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("minigrid")

from minigrid.core.world_object import Ball, Door, Key  # noqa: E402

from nesyworld.hybrid import PlanningAgent, PlanningConfig, run_episode  # noqa: E402
from nesyworld.hybrid.adapters import host_for, register_host  # noqa: E402
from nesyworld.hybrid.adapters.minigrid.host import MiniGridHost  # noqa: E402
from nesyworld.hybrid.adapters.minigrid.navigation import route, turn  # noqa: E402
from nesyworld.hybrid.boundary.interface import Host  # noqa: E402
from nesyworld.world.actions.schema import INVENTORY, WORLD, Fact  # noqa: E402

DOORKEY = "MiniGrid-DoorKey-8x8-v0"


def doorkey(seed: int = 1) -> tuple[object, MiniGridHost]:
    env = gym.make(DOORKEY)
    env.reset(seed=seed)
    host = host_for(env)
    assert isinstance(host, MiniGridHost) and isinstance(host, Host)
    return env, host


def test_the_detector_reads_things_doors_and_what_is_behind_them() -> None:
    _, host = doorkey()
    z = host.detect()
    assert z.count(WORLD, "yellow_key") == 1 and z.count(WORLD, "goal") == 1
    assert z.holds(Fact("locked", ("yellow_door",)))
    assert z.holds(Fact("behind_door", ("goal",)))  # the door is shut
    assert z.holds(Fact("through_yellow_door", ("goal",)))
    assert not z.holds(Fact("behind_door", ("yellow_key",)))
    assert z.names[z.holding] == "air" and z.count(INVENTORY, "goal") == 0


def test_a_new_kind_of_thing_is_reported_by_its_name() -> None:
    env, host = doorkey()
    u = env.unwrapped  # type: ignore[attr-defined]
    u.grid.set(1, 2, Ball("red"))
    u.grid.set(1, 3, Key("blue"))
    u.grid.get(1, 3).type = "gem"  # an object type the domain never named
    z = host.detect()
    assert z.count(WORLD, "red_ball") == 1 and z.count(WORLD, "blue_gem") == 1
    assert z.names[-1] == "blue_gem"  # after the domain's vocabulary


def test_walks_are_shortest_and_turn_the_short_way() -> None:
    env, _ = doorkey()
    u = env.unwrapped  # type: ignore[attr-defined]
    start = (int(u.agent_pos[0]), int(u.agent_pos[1]))
    path, target = route(u.grid, start, "yellow_key")  # type: ignore[misc]
    assert u.grid.get(*target).type == "key"
    assert abs(target[0] - (path[-1] if path else start)[0]) + abs(
        target[1] - (path[-1] if path else start)[1]) == 1
    assert route(u.grid, start, "goal") is None  # behind the locked door
    assert turn(0, 0) is None and turn(0, 1) == "right" and turn(0, 3) == "left"


def test_snapshot_and_restore_bring_the_state_back() -> None:
    _, host = doorkey()
    before, snap = host.detect(), host.snapshot()
    for action in ("left", "forward", "forward", "pickup"):
        host.step(action)
    assert host.step_count == 4
    host.restore(snap)
    assert host.detect() == before and host.step_count == 0
    twin = host.copy()
    twin.step("forward")
    assert host.detect() == before  # a copy is its own env


def test_the_planning_agent_solves_doorkey_on_ten_maps() -> None:
    env, host = doorkey()
    agent = PlanningAgent(env, config=PlanningConfig(planner="in-process"), host=host)
    results = [run_episode(env, agent, seed=s) for s in range(10)]
    assert all(r.success for r in results)
    assert all(r.steps < 100 and not r.failures for r in results)


def test_a_door_that_will_not_open_is_a_failure_the_agent_sees() -> None:
    env, host = doorkey()
    u = env.unwrapped  # type: ignore[attr-defined]
    for x in range(u.grid.width):
        for y in range(u.grid.height):
            if isinstance(u.grid.get(x, y), Door):
                u.grid.get(x, y).toggle = lambda *_: False  # the key no longer turns
    agent = PlanningAgent(env, config=PlanningConfig(planner="in-process"), host=host)
    obs, info = {}, {}
    agent.reset(obs, info)
    for _ in range(60):
        _, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if agent.failures or terminated or truncated:
            break
    assert agent.failures and agent.failures[0].operator.name == "unlock_yellow_door"


def test_an_env_no_adapter_hosts_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no adapter hosts CartPoleEnv"):
        host_for(gym.make("CartPole-v1"))
    register_host("doorkey-again", lambda env: False, MiniGridHost)  # registered, never used
    with pytest.raises(ValueError, match="doorkey-again"):
        host_for(gym.make("CartPole-v1"))


def test_the_cli_runs_plans_and_writes_pddl_for_a_gymnasium_id(capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    from nesyworld.experiments.cli.main import main
    from nesyworld.symbolic.pddl.reader import read_pddl

    spec = f"minigrid:{DOORKEY}"
    assert main(["run", spec, "--episodes", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["success_rate"] == 1.0 and summary["knowledge"] == "closed"
    assert main(["plan", spec, "--planner", "in-process", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    assert plan[-2:] == ["approach_goal(yellow_door)", "enter_goal"]
    assert main(["pddl", spec]) == 0
    text = capsys.readouterr().out
    split = text.index("(define (problem")
    problem = read_pddl(text[:split], text[split:])
    assert problem.name and len(problem.actions) > 20
    assert main(["run", "minigrid:MiniGrid-Nope-v0"]) == 2
    assert "doesn't exist" in capsys.readouterr().err


NOVELTY = """
import gymnasium as gym


class KeyGone(gym.Wrapper):
    def reset(self, **kwargs):
        out = self.env.reset(**kwargs)
        grid = self.env.unwrapped.grid
        for x in range(grid.width):
            for y in range(grid.height):
                if grid.get(x, y) is not None and grid.get(x, y).type == "key":
                    grid.set(x, y, None)
        return out


class NotAWrapper:
    pass
"""


def test_a_novelty_is_a_wrapper_class_named_by_path(tmp_path: object,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from nesyworld.experiments.cli.main import main

    path = Path(str(tmp_path)) / "novelty.py"
    path.write_text(NOVELTY)
    spec = f"minigrid:{DOORKEY}"
    assert main(["run", spec, "--novelty", f"{path}:KeyGone", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["success_rate"] == 0.0 and summary["novelties"] == [f"{path}:KeyGone"]
    assert main(["run", spec, "--novelty", f"{path}:NotAWrapper"]) == 2
    assert "not a gymnasium.Wrapper subclass" in capsys.readouterr().err
    assert main(["run", spec, "--novelty", f"{path}.missing.py:KeyGone"]) == 2
    assert "is not a file" in capsys.readouterr().err
    assert main(["run", spec, "--agent", "rapidlearn+"]) == 2
    assert "expected a repair+ agent" in capsys.readouterr().err
    assert main(["run", spec, "--agent", "repair+rapidlearn+", "--knowledge", "oracle"]) == 2
    assert "expected their defaults" in capsys.readouterr().err


def test_a_recording_of_a_hosted_env_opens_in_the_studio(tmp_path: object,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from pathlib import Path

    from nesyworld.experiments.cli.main import main
    from nesyworld.experiments.studio.app import create_app
    from nesyworld.hybrid import read_recording

    path = Path(str(tmp_path)) / "doorkey.json"
    spec = f"minigrid:{DOORKEY}"
    assert main(["run", spec, "--novelty", "nesyworld.domains.minigrid.novelties:KeyConsumed",
                 "--agent", "repair+rapidlearn+", "--record", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["repaired_operators"] == ["unlock_yellow_door"]
    rec = read_recording(path)
    assert rec.spec == spec and rec.result["success"] and rec.knowledge == "closed"
    assert len(rec.frames) == rec.result["steps"] + 1
    names = [t["name"] for t in rec.types]
    assert {"wall", "yellow_key", "yellow_door", "goal"} <= set(names)
    assert [e["kind"] for e in rec.events].count("repaired") == 1
    assert len(rec.domains) == 2  # the first domain, then the repaired one
    client = create_app([path]).test_client()
    opened = client.get("/api/recordings/doorkey.json")
    assert opened.status_code == 200 and opened.get_json()["spec"] == spec
    assert main(["replay", str(path)]) == 2
    assert "not nesyworld's" in capsys.readouterr().err
    assert main(["run", "gymnasium:Taxi-v4", "--record", str(path)]) == 2
    assert "draws no frames" in capsys.readouterr().err
