"""Episode recordings for the studio: written while an agent runs, read back with
located errors.

The names below load on first use, so that modules of sibling subpackages can import
each other without cycles through this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesyworld.hybrid.recording.reader import RecordingError, read_recording
    from nesyworld.hybrid.recording.writer import EpisodeRecorder, EpisodeRecording

_EXPORTS = {
    "RecordingError": "reader",
    "read_recording": "reader",
    "EpisodeRecorder": "writer",
    "EpisodeRecording": "writer",
}
__all__ = [
    "EpisodeRecorder", "EpisodeRecording", "RecordingError", "read_recording",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
