"""Episode recordings for the studio: written while an agent runs, read back with
located errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nesyworld.world.exports import lazy_exports

if TYPE_CHECKING:
    from nesyworld.hybrid.recording.reader import RecordingError, read_recording
    from nesyworld.hybrid.recording.writer import EpisodeRecorder, EpisodeRecording

__getattr__, __all__ = lazy_exports(__name__, {
    "reader": ["RecordingError", "read_recording"],
    "writer": ["EpisodeRecorder", "EpisodeRecording"],
})
