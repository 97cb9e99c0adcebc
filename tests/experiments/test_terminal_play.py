"""Keyboard play in the terminal: keys drive the agent, and the screen shows the coloured map,
the legend and the legal actions (scripted keys and a recording console; and the real
command in a pseudo-terminal, one key per action with no Enter)."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from nesyworld.experiments.terminal_play import legal_bindings, play
from nesyworld.world import Recorder, World

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def recording_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, color_system="truecolor", width=100), out


def test_scripted_keys_move_the_agent_and_the_screen_redraws_in_place() -> None:
    world = World("pogostick", seed=0)
    start = world.state.pos[world.main].tolist()
    console, out = recording_console()
    session = play(world, ["w", "q", "left", ":", *"nop", "\r", "x"], console,
                   Recorder(world, 0))
    assert session.actions == ["move_forward", "rotate_left", "rotate_left", "nop"]
    assert world.state.pos[world.main].tolist() != start  # it moved
    assert world.state.step == 4 and session.over == "quit"
    screen = out.getvalue()
    text = ANSI.sub("", screen)
    assert "legend" in text and "oak_log" in text and "legal actions" in text
    assert "move_forward" in text and "rotate_left: ok" in text and "nop: ok" in text
    assert re.search(r"\x1b\[1;38;2;\d+;\d+;\d+m", screen)  # coloured glyphs
    assert "\x1b[2K" in screen or "\x1b[1A" in screen  # cursor moved back up: redrawn in place
    assert text.count("legend") >= 5  # a frame per key, over the last one


def test_every_legal_action_has_a_key_and_spare_keys_pick_them() -> None:
    world = World("pogostick", seed=0)
    bindings = legal_bindings(world)
    keys = [k for k, _ in bindings]
    assert len(set(keys)) == len(keys) and ":" not in keys
    key, action = next((k, a) for k, a in bindings if a.startswith("approach_"))
    session = play(world, [key], *recording_console()[:1])
    assert session.actions == [action]


def test_a_pipe_plays_a_command_a_line() -> None:
    world = World("pogostick", seed=0)
    console, out = recording_console()
    console = Console(file=out, force_terminal=False, width=80)
    play(world, ["w", "approach_oak_log", "12", "bogus", "x"], console)
    text = out.getvalue()
    assert "   1  move_forward: ok" in text and "approach_oak_log: ok" in text
    assert "approach_pogoist" in text and "unknown action 'bogus'" in text
    assert "\x1b[" not in text and text.count("legend") == 2  # first and last frame


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_the_play_command_in_a_pty_takes_one_key_per_action_without_enter(
        tmp_path: Path) -> None:
    import pty

    record = tmp_path / "game.json"
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nesyworld.experiments.cli", "play", "pogostick",
         "--record", str(record)], stdin=child, stdout=child, stderr=child, cwd=ROOT,
        env={**os.environ, "COLUMNS": "100", "LINES": "50", "TERM": "xterm-256color"})
    os.close(child)
    seen = b""

    def read_until(marker: bytes, timeout: float = 60.0) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while marker not in seen and time.monotonic() < end:
            if select.select([main], [], [], 0.2)[0]:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    return

    try:
        read_until(b"legal actions")
        for key, after in ((b"w", b"move_forward: ok"), (b"q", b"rotate_left: ok"),
                           (b"\x1b[D", b"step 3/")):
            os.write(main, key)  # no Enter
            read_until(after, 20)
            assert after in seen
        os.write(main, b"x")
        read_until(b"trajectory saved", 20)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    text = ANSI.sub("", seen.decode(errors="replace"))
    assert "legend" in text and "legal actions" in text
    assert record.is_file() and '"move_forward"' in record.read_text()
