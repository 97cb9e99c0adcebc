"""The studio's layout in a real Chromium at 1024 and 1440 px wide (900 px high): on every tab
the main panels never overlap, stay inside the window, and the page never scrolls sideways;
the map stays inside its panel and long PDDL lines wrap rather than being cut.

Marked `browser` (it drives the machine's Chromium; conftest.py): `pytest -m browser`. The
screenshots studio-<tab>-<width>.png go to a temporary folder, or to the folder that
NESYWORLD_SCREENSHOTS names (`NESYWORLD_SCREENSHOTS=docs/screenshots` from the repository's
root rewrites the commit-ready ones).
"""

from __future__ import annotations

import json
import os
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

TABS = {
    "replay": ["#map-panel", "#plan-panel", "#events-panel"],
    "editor": ["#editor-map-panel", "#editor-yaml-panel", "#editor-pddl-panel"],
    "play": ["#play-map-panel", "#play-actions-panel", "#play-events-panel"],
}


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] - 0.5 and b["x"] < a["x"] + a["width"] - 0.5
            and a["y"] < b["y"] + b["height"] - 0.5 and b["y"] < a["y"] + a["height"] - 0.5)


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (inner["x"] >= outer["x"] - 0.5 and inner["y"] >= outer["y"] - 0.5
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5)


def check_layout(page: Any, tab: str, width: int, height: int) -> None:
    panels = {s: box(page, s) for s in TABS[tab]}
    for (a, ba), (b, bb) in combinations(panels.items(), 2):
        assert not overlap(ba, bb), f"{tab} at {width} px: {a} overlaps {b}: {ba} {bb}"
    window = {"x": 0, "y": 0, "width": width, "height": height}
    for s, b in panels.items():
        assert inside(b, window), f"{tab} at {width} px: {s} runs off the window: {b}"
        assert b["width"] >= 200, f"{tab} at {width} px: {s} is squeezed to {b['width']} px"
    sizes = page.evaluate("[document.documentElement.scrollWidth,"
                          " document.documentElement.clientWidth]")
    assert sizes[0] <= sizes[1], f"{tab} at {width} px scrolls sideways: {sizes}"


@pytest.mark.parametrize("width", [1024, 1440])
def test_panels_never_overlap(open_page: Any, studio: Any, recordings: Path, width: int,
                              tmp_path: Path) -> None:
    height = 900
    named = os.environ.get("NESYWORLD_SCREENSHOTS")
    shots = Path(named) if named else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    page = open_page(studio.url, width, height)
    page.wait_for_selector("#grid .cell")
    # the replay at the learned operator: the fullest the page gets (curve, diff, PDDL)
    rec = json.loads((recordings / "hybrid_axe.json").read_text())
    learned = next(e for e in rec["events"] if e["kind"] == "learned")
    page.fill("#frame-slider", str(learned["frame"]))
    page.wait_for_selector("#op-diff:not([hidden])")
    check_layout(page, "replay", width, height)
    assert inside(box(page, "#grid"), box(page, "#map-panel")), "the map spills out"
    assert not overlap(box(page, "#grid"), box(page, "#pddl-header"))
    assert inside(box(page, "#recovery"), box(page, "#events-panel"))
    for pre in ("#pddl", "#op-diff", "#learned-pddl"):  # long lines wrap, none is cut
        sizes = page.eval_on_selector(pre, "e => [e.scrollWidth, e.clientWidth]")
        assert sizes[0] <= sizes[1], f"{pre} cuts its lines at {width} px: {sizes}"
    assert page.locator("#legend li").count() >= 8  # every type on the map, named
    ticks = page.locator("#curve text").all_text_contents()
    assert "0" in ticks and "1" in ticks and "0.5" in ticks  # the success axis has ticks
    # chart text is drawn at its own size, not scaled down with a narrow column
    smallest = page.eval_on_selector_all("svg.chart text", """texts => Math.min(...texts
        .filter((t) => t.getBoundingClientRect().height > 0)
        .map((t) => parseFloat(getComputedStyle(t).fontSize)
             * t.ownerSVGElement.getBoundingClientRect().width
             / t.ownerSVGElement.viewBox.baseVal.width))""")
    assert smallest >= 9.5, f"chart text at {width} px is {smallest:.1f} px"
    page.screenshot(path=str(shots / f"studio-replay-{width}.png"))

    page.click("#tab-editor")
    page.wait_for_function("document.getElementById('plan-status').textContent.length > 0")
    check_layout(page, "editor", width, height)
    assert inside(box(page, "#editor-grid"), box(page, "#editor-map-panel"))
    page.screenshot(path=str(shots / f"studio-editor-{width}.png"))

    page.click("#tab-play")
    page.wait_for_selector("#play-grid .cell")
    check_layout(page, "play", width, height)
    assert inside(box(page, "#play-grid"), box(page, "#play-map-panel"))
    page.screenshot(path=str(shots / f"studio-play-{width}.png"))
