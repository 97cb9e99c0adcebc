"""Novelty files that are wrong in type, range or shape: each refused by `load_novelty` or
`apply_novelties` as one located line, never a crash later (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nesyworld.world.errors import SpecError
from nesyworld.world.novelty.transforms import (
    Novelty,
    apply_novelties,
    load_novelty,
    register_transform,
)

HEAD = "novelty: n\ncategory: nuisance\nlevel: objects\n"


def refused(text: str, tmp_path: Path, *, apply: bool = False) -> SpecError:
    path = tmp_path / "n.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        if apply:
            apply_novelties("pogostick", [path])
        else:
            load_novelty(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(f"{path}:"), message
    return info.value


@pytest.mark.parametrize(("body", "where", "words"), [
    ("transforms: 5\n", "4:13", "a list"),
    ("transforms: [{kind: [a]}]\n", "4:21", "unknown transformation"),
    ("transforms: [{kind: scale_costs, factor: abc}]\n", "4:42", "a number"),
    ("transforms: [{kind: scale_costs, factor: .nan}]\n", "4:42", "finite"),
    ("transforms: [{kind: scale_costs, factor: 1.0e+300}]\n", "4:42", "out of range"),
    ("transforms: [{kind: scale_costs, factor: -1}]\n", "4:42", "out of range"),
    ("transforms: [{kind: scale_costs, speed: 2}]\n", "4:34", "unknown parameter"),
    ("transforms: [{kind: scale_costs, actions: move}]\n", "4:43", "a list of names"),
    ("transforms: [{kind: remove_objects, types: [[x]]}]\n", "4:45", "non-empty string"),
    ("transforms: [{kind: remove_objects}]\n", "4:14", "needs 'types'"),
    ("inject: {episode: 99999999999}\n", "4:19", "out of range"),
    ("inject: {step: -1}\n", "4:16", "out of range"),
    ("inject: [1]\n", "4:9", "a mapping"),
    ("description: [a]\n", "4:14", "free text"),
    ("changes: [a]\n", "4:10", "a mapping"),
    ("changes: {extends: pogostick}\n", "4:11", "what a spec extends"),
    ("changes: {no_such_section: 1}\n", "4:11", "unknown key"),
])
def test_bad_fields_are_refused_where_they_are(body: str, where: str, words: str,
                                              tmp_path: Path) -> None:
    err = refused(HEAD + body, tmp_path)
    assert f":{where}:" in str(err) and words in str(err)


@pytest.mark.parametrize("name", ["[a]", '"a\\nb"', "x" * 101, "''"])
def test_a_name_is_one_short_printable_line(name: str, tmp_path: Path) -> None:
    refused(HEAD.replace("novelty: n", f"novelty: {name}"), tmp_path)


def test_category_must_be_text_not_a_list(tmp_path: Path) -> None:
    err = refused(HEAD.replace("nuisance", "[nuisance]"), tmp_path)
    assert "unknown category" in str(err)


def test_mid_episode_changes_of_the_wrong_shape_are_located(tmp_path: Path) -> None:
    refused(HEAD + "inject: {step: 3}\nchanges:\n  map: [a]\n  agents: [a]\n",
            tmp_path, apply=True)


def test_removing_a_type_mid_episode_is_refused_at_load(tmp_path: Path) -> None:
    err = refused(HEAD + "inject: {step: 3}\nchanges:\n  entity_types:\n    oak_log: null\n",
                  tmp_path)
    assert ":7:5:" in str(err) and "removing entity type 'oak_log'" in str(err)


def test_a_cost_the_transform_cannot_scale_is_left_to_the_spec_checks(tmp_path: Path) -> None:
    """A string cost in the document reaches scale_costs before validation: it is skipped,
    and build_spec refuses it where the novelty wrote it."""
    err = refused(HEAD + "changes:\n  actions:\n    move_forward: {cost: abc}\n"
                  "transforms: [{kind: scale_costs, factor: 2}]\n", tmp_path, apply=True)
    assert ":6:26:" in str(err) and "actions.move_forward.cost" in str(err)


def test_a_failing_plugin_transformation_is_located_at_its_entry(tmp_path: Path) -> None:
    @register_transform("test_hardening_broken")
    def broken(doc, params):  # type: ignore[no-untyped-def]
        return doc["no_such_section"]

    err = refused(HEAD + "transforms:\n  - {kind: test_hardening_broken}\n", tmp_path,
                  apply=True)
    assert ":5:5:" in str(err) and "transformation 'test_hardening_broken'" in str(err)
    assert "KeyError" in str(err)


def test_a_spec_built_from_text_is_refused_as_a_spec_error() -> None:
    from nesyworld.domains import find_spec
    from nesyworld.world.spec.loader import load_spec

    spec = load_spec(find_spec("pogostick").read_text())
    with pytest.raises(SpecError, match="built from text"):
        apply_novelties(spec, ["axe"])


@pytest.mark.parametrize("source", ["x" * 5000, "a\x00b", "no/such/dir/n.yaml"])
def test_sources_the_file_system_refuses_are_spec_errors(source: str) -> None:
    with pytest.raises(SpecError):
        load_novelty(source)


def test_shipped_transform_parameters_still_load() -> None:
    novelty = load_novelty("space_around")
    assert isinstance(novelty, Novelty) and novelty.transforms[0][0] == "remove_objects"
