"""The studio in a real headless Chromium: a user opens a recording, steps it, and reads the
plan and the PDDL; opens a broken file and is told why; paints a level and saves it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def page(open_page: Any, studio: Any) -> Any:
    page = open_page(studio.url)
    page.wait_for_selector("#grid .cell")
    return page


def frame_of(page: Any) -> int:
    return int(page.input_value("#frame-slider"))


def test_step_through_a_recording(page: Any, recordings: Path) -> None:
    rec = json.loads((recordings / "hybrid_axe.json").read_text())
    assert page.input_value("#recording-select") == "hybrid_axe.json"
    assert "rapidlearn+ agent on pogostick + axe" in page.text_content("#recording-info")
    assert page.locator("#grid .cell").count() == 16 * 16
    page.click("#next")
    page.click("#next")
    assert frame_of(page) == 2
    upcoming = rec["frames"][3]
    plan = [e for e in rec["events"] if e["kind"] == "plan" and e["frame"] <= 2][-1]
    items = page.locator("#plan li")
    assert items.count() == len(plan["data"]["plan"])
    current = page.locator("#plan li.current")
    assert current.count() == 1 and current.text_content() == upcoming["operator"]
    assert items.nth(upcoming["plan_index"]).get_attribute("class") == "current"
    mark = page.locator("#pddl mark#pddl-current")
    name = upcoming["operator"].split("(")[0]
    assert mark.get_attribute("data-operator") == name
    assert mark.text_content().lstrip().startswith(";") and f"(:action {name}" in (
        mark.text_content())
    assert page.text_content("#operator") == f"executing: {upcoming['operator']}"
    page.keyboard.press("ArrowLeft")
    assert frame_of(page) == 1


def test_the_failure_and_the_learning_show(page: Any, recordings: Path) -> None:
    rec = json.loads((recordings / "hybrid_axe.json").read_text())
    # the run seed the user gave, not the large map seed of its block (kept in the title)
    assert ", run seed 7," in page.text_content("#recording-info")
    assert page.get_attribute("#recording-info", "title") == "map seed 0"
    failure = next(e for e in rec["events"] if e["kind"] == "failure")
    page.fill("#frame-slider", str(failure["frame"]))
    assert frame_of(page) == failure["frame"]
    failed = page.locator("#plan li.failed")
    assert failed.count() == 1 and failed.text_content().startswith("break_oak_log")
    assert page.locator("#pddl mark[data-failed]").get_attribute("data-operator") == (
        "break_oak_log")
    assert page.text_content("#operator").startswith("failed: ")
    learned = next(e for e in rec["events"] if e["kind"] == "learned")
    page.fill("#frame-slider", str(learned["frame"]))
    assert page.is_visible("#recovery")
    epochs = [e for e in rec["events"] if e["kind"] == "learning"]
    points = page.get_attribute("#curve polyline[data-series='evaluation success']", "points")
    assert len(points.split()) == len(epochs) >= 2
    # the learned operator beside the one that failed, as a diff
    assert page.text_content("#diff-title").startswith("break_oak_log (failed) → learned_")
    assert page.locator("#op-diff .del").count() >= 1 and page.locator("#op-diff .add").count()
    assert "True" not in page.text_content("body")
    assert page.text_content("#learned-pddl").strip() == learned["data"]["pddl"].strip()
    # once spliced in, the learned operator is executed and highlighted in the domain
    used = next(k for k, f in enumerate(rec["frames"])
                if (f["operator"] or "").startswith("learned_"))
    assert not any(e["kind"] == "failure" and e["frame"] == used for e in rec["events"])
    page.fill("#frame-slider", str(used))
    mark = page.locator("#pddl mark#pddl-current")
    assert mark.get_attribute("data-operator").startswith("learned_break_oak_log")
    assert "learned" in mark.get_attribute("class")


def test_play_runs_to_the_end(page: Any) -> None:
    last = int(page.get_attribute("#frame-slider", "max"))
    page.click("#play")
    page.wait_for_function(f"document.getElementById('frame-slider').value == '{last}'",
                           timeout=20_000)
    assert page.text_content("#play") == "play"
    assert page.locator("#plan li.current").count() == 0


def test_a_broken_file_is_explained(page: Any, tmp_path: Path, recordings: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text((recordings / "planning_axe.json").read_text()[:5000])
    page.set_input_files("#recording-file", str(cut))
    page.wait_for_selector("#error:not([hidden])")
    text = page.text_content("#error")
    assert re.match(r"cut\.json:\d+:\d+: the file ends in the middle", text)
    assert "expected: a complete JSON document" in text
    assert page.is_hidden("#replay")
    page.set_input_files("#recording-file", str(recordings / "planning_axe.json"))
    page.wait_for_selector("#replay:not([hidden])")
    assert page.is_hidden("#error")


def test_paint_a_level_and_save_it(page: Any, tmp_path: Path) -> None:
    page.click("#tab-editor")
    page.wait_for_function("document.getElementById('editor-domain').textContent.length > 0")
    assert "(= (world crafting_table) 1)" in page.text_content("#editor-problem")
    page.click("#palette button[data-brush='type:crafting_table']")
    page.click("#editor-grid .cell[data-r='1'][data-c='1']")
    page.fill("#level-name", "studio_level")
    page.click("#derive")
    page.wait_for_function("document.getElementById('editor-problem').textContent"
                           ".includes('(world crafting_table) 2')")
    page.click("#save")
    page.wait_for_function("document.getElementById('editor-status').textContent"
                           ".startsWith('saved')")
    saved = tmp_path / "levels" / "studio_level.yaml"
    assert saved.is_file() and "name: studio_level" in saved.read_text()
    page.click("#plan-level")
    page.wait_for_selector("#level-plan li")
    # an agent put on the border is refused, with the YAML line it is on, and the plan and
    # PDDL of the level before it are no longer shown
    page.click("#palette button[data-brush='agent:main_1']")
    page.click("#editor-grid .cell[data-r='0'][data-c='0']")
    page.click("#derive")
    page.wait_for_selector("#error:not([hidden])")
    assert re.match(r"level\.yaml:\d+:\d+: agent 'main_1' placed on a blocked cell",
                    page.text_content("#error"))
    assert page.query_selector_all("#level-plan li") == []
    assert page.text_content("#editor-domain") == page.text_content("#editor-problem") == ""
    assert "no plan" in page.text_content("#plan-status")
