"""The game loop of `nesyworld play`: keys in, actions on the world, a frame out.

Why keys and screen are parameters: `play(world, keys, console)` takes any iterator of keys
and any rich console, so the same loop serves a person at a terminal (keypresses, a live
display redrawn in place), a pipe (a command a line, frames printed one after another) and a
test (a list of keys and a console writing to a string).

Keys: w/s/a/d move, q/e turn (the arrows move forward and back and turn), b break, c collect,
u use, p place, n nop; every legal action that has no such key gets one of the spare keys
(1-9, 0, then free letters), listed under the map. ':' starts typing an action's name or its
number in the full list (Enter runs it, Escape cancels), '?' shows the full list, x quits.
A command longer than one character (a line from a pipe) is read as typed after ':'.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
from rich.console import Console
from rich.text import Text

from nesyworld.experiments.terminal_play.play_screen import Frame

if TYPE_CHECKING:
    from nesyworld.world import Recorder, World

__all__ = ["FIXED_KEYS", "SPARE_KEYS", "PlaySession", "legal_bindings", "play"]

FIXED_KEYS = {"w": "move_forward", "s": "move_backward", "a": "move_left", "d": "move_right",
              "q": "rotate_left", "e": "rotate_right", "b": "break", "c": "collect",
              "u": "use", "p": "place", "n": "nop", "up": "move_forward",
              "down": "move_backward", "left": "rotate_left", "right": "rotate_right"}
"""Keys that always mean the same action (when the world has it)."""
SPARE_KEYS = "1234567890fghijklmortvyzFGHIJKLMNORTVYZ"
"""Keys handed, in order, to the legal actions without a fixed key."""
QUIT = ("x", "quit", "exit", "\x04")
ENTER = ("\r", "\n")
BACKSPACE = ("\x7f", "\x08")
FOOTER = ("w/s/a/d move, q/e turn (arrows too), b break, c collect, u use, p place, "
          "n nop; the keys listed above; ':' type an action name or number; '?' all actions; "
          "x quit")


def legal_bindings(world: World) -> list[tuple[str, str]]:
    """(key, action) for each action the main agent may take now, in the world's order."""
    names = world.action_names()
    legal = [names[i] for i in np.flatnonzero(world.action_mask())]
    fixed = {a: k for k, a in FIXED_KEYS.items() if len(k) == 1}
    spare = iter(SPARE_KEYS)
    out = []
    for action in legal:
        key = fixed.get(action) or next(spare, "")
        out.append((key or ":", action))
    return out


class PlaySession:
    """One game: the world, what the keys are bound to now, and the last message."""

    def __init__(self, world: World, recorder: Recorder | None = None) -> None:
        self.world = world
        self.recorder = recorder
        self.message = Text("press a key; ':' to type an action, '?' for all, x to quit",
                            style="dim")
        self.typing: str | None = None
        self.show_all = False
        self.quit = False
        self.actions: list[str] = []
        """Actions taken, in order (refused ones too)."""
        self.bindings = legal_bindings(world)

    @property
    def over(self) -> str | None:
        """Why the game ended ("goal reached", "episode over", "quit"), or None."""
        st = self.world.state
        if self.world.goal_reached():
            return "goal reached!"
        if st.gave_up or st.step >= self.world.spec.max_steps:
            return "episode over"
        return "quit" if self.quit else None

    def frame(self) -> Frame:
        return Frame(self.world, self.bindings, self.message, self.typing, self.show_all,
                     FOOTER)

    def press(self, key: str) -> None:
        """Handle one key (or, from a pipe, one command line)."""
        if len(key) > 1 and key not in FIXED_KEYS and key != "escape":
            self.typing = None  # a whole command (a line from a pipe)
            self.command(key.removeprefix(":").strip())
        elif self.typing is not None:
            self._type(key)
        elif key in QUIT:
            self.quit = True
        elif key == "?":
            self.show_all = not self.show_all
        elif key == ":":
            self.typing = ""
        elif key == "escape":
            self.show_all = False
        elif key in ENTER:
            pass  # a habit from line input: nothing to run
        elif len(key) == 1 or key in FIXED_KEYS:
            bound = dict(self.bindings)
            bound.update({k: a for k, a in FIXED_KEYS.items()
                          if a in self.world.action_names()})
            if key in bound:
                self.act(bound[key])
            else:
                self.message = Text(f"no action on key {key!r}; {FOOTER}", style="yellow")
        else:
            self.command(key)

    def _type(self, key: str) -> None:
        assert self.typing is not None
        if key in ENTER:
            text, self.typing = self.typing, None
            if text.strip():
                self.command(text.strip())
        elif key == "escape":
            self.typing = None
        elif key in BACKSPACE:
            self.typing = self.typing[:-1]
        elif len(key) == 1 and key.isprintable():
            self.typing += key

    def command(self, text: str) -> None:
        """An action by name, or by its number in the full list."""
        if text in QUIT:
            self.quit = True
            return
        names = self.world.action_names()
        action = names[int(text)] if text.isdigit() and int(text) < len(names) else text
        if action not in names:
            self.message = Text(f"unknown action {text!r}: '?' lists them", style="yellow")
            return
        self.act(action)

    def act(self, action: str) -> None:
        step = self.recorder.step if self.recorder is not None else self.world.step
        outcome = step(action)
        self.actions.append(action)
        self.message = (Text(f"{action}: ok", style="green") if outcome.ok else
                        Text(f"{action}: refused ({outcome.reason})", style="red"))
        self.bindings = legal_bindings(self.world)


def play(world: World, keys: Iterable[str], console: Console | None = None,
         recorder: Recorder | None = None, live: bool | None = None) -> PlaySession:
    """Play `world` with `keys` until they run out, the goal is reached, the episode ends or
    the player quits; returns the session (its `actions`, `over`).

    `live` (default: whether the console is a terminal) redraws one frame in place after each
    key; otherwise the first frame is printed, then each action's outcome a line, then the
    last frame."""
    console = console if console is not None else Console()
    live = console.is_terminal if live is None else live
    session = PlaySession(world, recorder)
    if live:
        _play_live(session, keys, console)
    else:
        _play_lines(session, keys, console)
    console.print(Text(session.over or "out of input", style="bold"))
    return session


def _play_live(session: PlaySession, keys: Iterable[str], console: Console) -> None:
    from rich.live import Live

    with Live(session.frame().render(), console=console, auto_refresh=False,
              redirect_stdout=False, redirect_stderr=False) as display:
        for key in _until_over(session, keys):
            session.press(key)
            display.update(session.frame().render(), refresh=True)


def _play_lines(session: PlaySession, keys: Iterable[str], console: Console) -> None:
    console.print(session.frame().render())
    for key in _until_over(session, keys):
        taken, message = len(session.actions), session.message
        session.press(key)
        if len(session.actions) > taken:
            console.print(f"{session.world.state.step:4d} ", session.message, highlight=False)
        elif key == "?" and session.show_all:
            console.print(session.frame().all_actions())
        elif session.message is not message:
            console.print(session.message, highlight=False)
    console.print(session.frame().render())


def _until_over(session: PlaySession, keys: Iterable[str]) -> Iterator[str]:
    """The keys, until the game is over (checked before each key is read). The key source
    is closed at the end, so a terminal source restores the terminal."""
    source = iter(keys)
    try:
        while session.over is None:
            key = next(source, None)
            if key is None:
                return
            yield key
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
