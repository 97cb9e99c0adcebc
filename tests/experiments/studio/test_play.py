"""Playing and editing in a real Chromium: a user plays with the keyboard (the legal actions
shown, the agent's monitor in the log), injects a novelty, saves the game and `nesyworld
replay` verifies it; in the editor, walls the agent in, is told the goal is unreachable,
undoes it, and plays the level."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nesyworld.experiments.cli.main import main


def step_of(page: Any) -> int:
    return page.evaluate("document.querySelectorAll('#play-events li[data-kind=action]')"
                         ".length")


def press(page: Any, key: str) -> None:
    before = step_of(page)
    page.keyboard.press(key)
    page.wait_for_function(f"document.querySelectorAll('#play-events li[data-kind=action]')"
                           f".length > {before}")


def test_keyboard_play_saves_a_replayable_game(open_page: Any, studio: Any, tmp_path: Path,
                                               capsys: Any) -> None:
    page = open_page(studio.url)
    page.click("#tab-play")
    page.wait_for_selector("#play-grid .cell.agent")
    legal = page.evaluate("[...document.querySelectorAll('#play-actions button[data-action]"
                          ":not([disabled])')].map(b => b.dataset.action)")
    shown = page.evaluate("[...document.querySelectorAll('#play-actions button[data-action]')]"
                          ".map(b => b.dataset.action)")
    assert "rotate_left" in legal and "craft_pogo_stick" in set(shown) - set(legal)
    facing = page.text_content("#play-grid .cell.agent")
    press(page, "q")  # rotate_left, the key `nesyworld play` uses
    assert page.text_content("#play-grid .cell.agent") != facing
    assert "world step 1: rotate_left" in page.text_content("#play-status")
    press(page, "g")  # the planning agent's next action, with its plan in the log
    log = page.text_content("#play-events")
    assert "plan of" in log and "(agent)" in log
    press(page, "g")
    assert page.locator("#play-events li[data-kind=done]").count() >= 1  # the monitor's verdict
    assert "monitor:" in page.text_content("#play-events li[data-kind=done]")
    page.fill("#play-name", "kbd_game")
    page.click("#play-save")
    page.wait_for_function("document.getElementById('play-status').textContent"
                           ".startsWith('saved')")
    saved = tmp_path / "levels" / "kbd_game.json"
    assert saved.is_file() and "nesyworld replay" in page.text_content("#play-status")
    capsys.readouterr()
    assert main(["replay", str(saved)]) == 0
    assert "every state matches the recording" in capsys.readouterr().out
    # a novelty mid-game: announced, then the agent meets it
    page.select_option("#play-novelty", "axe")
    page.click("#play-inject")
    page.wait_for_selector("#play-events li[data-kind=novelty]")
    assert "select_axe" in page.locator("#play-actions button").all_text_contents()
    press(page, "w")
    # the game with its novelty still replays: the axe arrived after world step 3
    page.fill("#play-name", "kbd_novelty")
    page.click("#play-save")
    page.wait_for_function("document.getElementById('play-status').textContent"
                           ".includes('kbd_novelty')")
    assert "re-applying 1 novelty" in page.text_content("#play-status")
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "levels" / "kbd_novelty.json")]) == 0
    out = capsys.readouterr().out
    assert "'axe' after step 3" in out and "every state matches" in out


def test_editor_tools_plan_and_play(open_page: Any, studio: Any) -> None:
    page = open_page(studio.url)
    page.click("#tab-editor")
    page.wait_for_function("document.getElementById('plan-status').textContent"
                           ".startsWith('the goal is reachable')")
    assert page.locator("#level-plan li").count() > 3
    r, c = (int(v) for v in page.evaluate(
        "[...document.querySelectorAll('#editor-grid .cell.agent')]"
        ".find(e => e.textContent === 'A').dataset.r + ',' + "
        "[...document.querySelectorAll('#editor-grid .cell.agent')]"
        ".find(e => e.textContent === 'A').dataset.c").split(","))

    def cell(rr: int, cc: int) -> str:
        return f"#editor-grid .cell[data-r='{rr}'][data-c='{cc}']"

    # wall the agent in: walls above and below, a filled rectangle of bedrock at each side
    page.click("#tools .tool[data-tool=wall]")
    for rr in (r - 1, r + 1):
        page.drag_and_drop(cell(rr, c - 1), cell(rr, c + 1))
    page.click("#palette button[data-brush='type:bedrock']")
    page.click("#tools .tool[data-tool=rect]")
    page.drag_and_drop(cell(r, c - 1), cell(r, c - 1))
    page.drag_and_drop(cell(r, c + 1), cell(r, c + 1))
    assert page.get_attribute(cell(r - 1, c + 1), "title") == "bedrock"
    page.click("#plan-level")
    page.wait_for_function("document.getElementById('plan-status').textContent"
                           ".startsWith('the goal is unreachable')")
    assert "cannot walk to" in page.text_content("#plan-status")
    assert "unreachable" in page.text_content("#editor-status")
    for _ in range(4):
        page.click("#undo")
    assert page.get_attribute(cell(r - 1, c), "title") != "bedrock"
    page.click("#plan-level")
    page.wait_for_function("document.getElementById('plan-status').textContent"
                           ".startsWith('the goal is reachable')")
    # resize: a smaller map, still walled
    page.fill("#rows", "12")
    page.click("#resize")
    assert page.locator("#editor-grid .cell").count() == 12 * 16
    page.click("#undo")
    assert page.locator("#editor-grid .cell").count() == 16 * 16
    page.fill("#level-name", "played_level")
    page.click("#play-level")
    page.wait_for_selector("#play-tab:not([hidden]) #play-grid .cell.agent")
    page.wait_for_function("document.getElementById('play-events').textContent"
                           ".includes('played_level')")
