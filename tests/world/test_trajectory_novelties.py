"""Trajectories with novelties: recorded with each arrival's step and definition, replayed
through the same arrival, tampering caught at the right step, bad definitions located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nesyworld.world import World
from nesyworld.world.errors import SpecError
from nesyworld.world.simulation.recorded_novelty import MAX_INJECTIONS
from nesyworld.world.simulation.trajectory import (
    Recorder,
    ReplayMismatch,
    Trajectory,
    replay,
    state_digest,
)

PRICEY = """novelty: pricey
category: nuisance
level: actions
description: every action costs three times as much
inject: {step: 2}
transforms:
  - {kind: scale_costs, factor: 3}
"""


def axe_mid_episode(path: Path) -> Trajectory:
    """Two actions, the Axe arrives, three more: `break` then needs the axe."""
    rec = Recorder(World("pogostick"), seed=2)
    for name in ("approach_oak_log", "nop"):
        rec.step(name)
    before = rec.trajectory.digests[-1]
    rec.inject("axe")
    assert rec.trajectory.digests[-1] != before  # the digest of step 2 is after the arrival
    outcome = rec.step("break")
    assert not outcome.ok and "axe" in (outcome.reason or "")
    for name in ("nop", "select_axe"):
        rec.step(name)
    rec.trajectory.save(path)
    return rec.trajectory


def test_a_mid_episode_novelty_is_recorded_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "axe.json"
    traj = axe_mid_episode(path)
    doc = json.loads(path.read_text())
    [entry] = doc["injections"]
    assert entry["step"] == 2 and entry["reset"] is False
    assert entry["novelty"]["novelty"] == "axe"
    assert entry["novelty"]["changes"]["entity_types"]["oak_log"] == {"break_tool": "axe"}
    assert "source" not in entry["novelty"]  # a definition, never a path to read
    loaded = Trajectory.load(path)
    assert loaded.injections[0].step == 2 and loaded.injections[0].novelty.name == "axe"
    world = replay(loaded)
    assert state_digest(world.state) == traj.digests[-1]
    assert "select_axe" in world.action_names()


def test_a_changed_action_after_the_arrival_is_caught_at_its_step(tmp_path: Path) -> None:
    path = tmp_path / "axe.json"
    axe_mid_episode(path)
    doc = json.loads(path.read_text())
    doc["actions"][3] = "turn_left" if "turn_left" in doc["actions"] else "rotate_left"
    path.write_text(json.dumps(doc))
    loaded = Trajectory.load(path)
    if doc["actions"][3] not in World("pogostick").action_names():
        pytest.skip("no turning action in this spec")
    with pytest.raises(ReplayMismatch, match="after action 3") as info:
        replay(loaded)
    assert info.value.step == 4


@pytest.mark.parametrize(("step", "caught_at"), [(3, 2), (1, 1), (0, 0)])
def test_a_moved_injection_is_caught_at_the_first_differing_step(
        tmp_path: Path, step: int, caught_at: int) -> None:
    path = tmp_path / "axe.json"
    axe_mid_episode(path)
    doc = json.loads(path.read_text())
    doc["injections"][0]["step"] = step
    path.write_text(json.dumps(doc))
    with pytest.raises(ReplayMismatch) as info:
        replay(Trajectory.load(path))
    assert info.value.step == caught_at


def test_a_novelty_file_replays_after_the_file_is_gone(tmp_path: Path) -> None:
    novelty = tmp_path / "pricey.yaml"
    novelty.write_text(PRICEY)
    rec = Recorder(World("pogostick"), seed=5)
    rec.step("nop")
    rec.inject(novelty)
    rec.step("nop")
    assert rec.trajectory.outcomes[1]["cost"] == 3 * rec.trajectory.outcomes[0]["cost"]
    path = tmp_path / "t.json"
    rec.trajectory.save(path)
    novelty.unlink()
    loaded = Trajectory.load(path)
    assert loaded.injections[0].novelty.description == "every action costs three times as much"
    assert loaded.injections[0].novelty.transforms == (("scale_costs", {"factor": 3.0}),)
    assert replay(loaded).spec.actions["nop"].cost == 3 * World("pogostick").spec.actions[
        "nop"].cost


def test_the_recorded_definition_is_what_the_replay_applies(tmp_path: Path) -> None:
    path = tmp_path / "axe.json"
    axe_mid_episode(path)
    doc = json.loads(path.read_text())  # without its rule for trees, `break` succeeds
    del doc["injections"][0]["novelty"]["changes"]["entity_types"]["oak_log"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ReplayMismatch, match=r"after action 2 \(break\)") as info:
        replay(Trajectory.load(path))
    assert info.value.step == 3


def test_an_old_trajectory_without_injections_still_replays(tmp_path: Path) -> None:
    rec = Recorder(World("pogostick"), seed=1)
    for name in ("approach_oak_log", "break", "nop"):
        rec.step(name)
    old = {"format": "nesyworld.trajectory/1", "spec": "pogostick", "seed": 1,
           "actions": rec.trajectory.actions, "outcomes": rec.trajectory.outcomes,
           "digests": rec.trajectory.digests}  # the fields every earlier version wrote
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    loaded = Trajectory.load(path)
    assert loaded.injections == []
    assert replay(loaded).inventory_dict().get("oak_log") == 1
    loaded.save(path)  # and a trajectory without novelties is still saved that way
    assert set(json.loads(path.read_text())) == {"format", *old}


def bad(tmp_path: Path, edit: object) -> SpecError:
    path = tmp_path / "axe.json"
    axe_mid_episode(path)
    doc = json.loads(path.read_text())
    edit(doc)  # type: ignore[operator]
    path.write_text(json.dumps(doc))
    with pytest.raises(SpecError) as info:
        replay(Trajectory.load(path))
    assert "\n" not in str(info.value) and info.value.file == str(path)
    return info.value


def test_bad_definitions_are_refused_at_their_field(tmp_path: Path) -> None:
    def category(doc: dict) -> None:
        doc["injections"][0]["novelty"]["category"] = "weird"

    def extends(doc: dict) -> None:  # a recording names no file for the replay to read
        doc["injections"][0]["novelty"]["changes"]["extends"] = "/etc/passwd"

    def transform(doc: dict) -> None:
        doc["injections"][0]["novelty"]["transforms"] = [{"kind": "os.system"}]

    def not_an_object(doc: dict) -> None:
        doc["injections"][0]["novelty"] = "axe"

    def unknown_field(doc: dict) -> None:
        doc["injections"][0]["path"] = "axe.yaml"

    for edit, where in ((category, "injections[0].novelty.category"),
                        (extends, "injections[0].novelty.changes.extends"),
                        (transform, "injections[0].novelty.transforms.0.kind"),
                        (not_an_object, "injections[0].novelty"),
                        (unknown_field, "injections[0].path")):
        assert bad(tmp_path, edit).key_path == where, edit.__name__


def test_bad_steps_and_changes_are_refused(tmp_path: Path) -> None:
    def late(doc: dict) -> None:
        doc["injections"][0]["step"] = len(doc["actions"]) + 1

    def reset_late(doc: dict) -> None:
        doc["injections"][0]["reset"] = True

    def too_many(doc: dict) -> None:
        doc["injections"] *= MAX_INJECTIONS + 1

    def breaks_spec(doc: dict) -> None:
        doc["injections"][0]["novelty"]["changes"]["entity_types"]["oak_log"] = {
            "break_tool": 5}

    assert bad(tmp_path, late).key_path == "injections[0].step"
    assert bad(tmp_path, reset_late).key_path == "injections[0].step"  # a reset one is at 0
    assert bad(tmp_path, too_many).key_path == "injections"
    err = bad(tmp_path, breaks_spec)
    assert err.key_path == "injections[0]" and "entity_types.oak_log.break_tool" in err.message


def test_a_lone_surrogate_in_a_definition_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "axe.json"
    axe_mid_episode(path)
    text = path.read_text().replace('"description": "', '"description": "\\ud800', 1)
    path.write_text(text)
    with pytest.raises(SpecError, match=r"injections\[0\]\.novelty"):
        Trajectory.load(path)


def test_definitions_are_bounded_one_by_one_and_in_all(tmp_path: Path) -> None:
    from nesyworld.world.spec.bounds import MAX_NODES

    def huge(doc: dict) -> None:
        doc["injections"][0]["novelty"]["changes"]["goal"] = {
            f"g{i}": 1 for i in range(MAX_NODES)}

    def two_large(doc: dict) -> None:  # each within bounds, together over them
        entry = doc["injections"][0]
        entry["novelty"]["changes"]["goal"] = {f"g{i}": 1 for i in range(MAX_NODES // 3)}
        doc["injections"] = [entry, json.loads(json.dumps(entry))]

    assert bad(tmp_path, huge).key_path == "injections[0].novelty"
    assert bad(tmp_path, two_large).key_path == "injections[1].novelty"


def test_recorder_refuses_a_novelty_it_could_not_record() -> None:
    rec = Recorder(World("pogostick"), seed=2)
    for _ in range(MAX_INJECTIONS):
        rec.inject("novelty: n\ncategory: nuisance\nlevel: goals\ndescription: same world\n")
    with pytest.raises(SpecError, match="cannot be recorded"):
        rec.inject("axe")
    assert len(rec.trajectory.injections) == MAX_INJECTIONS
    assert "select_axe" not in rec.world.action_names()  # refused before it arrived
