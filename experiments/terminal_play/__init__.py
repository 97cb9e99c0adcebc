"""Playing a world from the keyboard in a terminal (`nesyworld play`): one key per action
without Enter, the coloured map redrawn in place with a legend and the legal actions, and a
line-by-line path for pipes and tests."""

from nesyworld.experiments.terminal_play.play_keys import (
    ARROWS,
    TerminalKeys,
    line_commands,
    terminal_keys,
)
from nesyworld.experiments.terminal_play.play_screen import Frame, type_styles
from nesyworld.experiments.terminal_play.play_session import (
    FIXED_KEYS,
    SPARE_KEYS,
    PlaySession,
    legal_bindings,
    play,
)

__all__ = [
    "ARROWS", "FIXED_KEYS", "SPARE_KEYS", "Frame", "PlaySession", "TerminalKeys", "legal_bindings",
    "line_commands", "play", "terminal_keys", "type_styles",
]
