"""Recordings the studio tests open, made once per session by the real agents: a planning
agent the Axe novelty breaks, and a hybrid agent that learns its way around it (with a tiny
training budget)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nesyworld.hybrid import HybridAgent, PlanningAgent, RecoveryConfig, RepairConfig, run_episode
from nesyworld.hybrid.recording.writer import EpisodeRecorder
from nesyworld.learning import TrainConfig
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.envs import NesyGridEnv, NoveltyInjector

TINY = TrainConfig(step_budget=4_000, epoch_length=250, collect_chunk=250, eval_episodes=2,
                   vector_env="dummy", progress=False, seed=0)


def record(path: Path, hybrid: bool) -> None:
    recorder = EpisodeRecorder(NoveltyInjector(NesyGridEnv("pogostick"), ["axe"]), path,
                               novelties=["axe"], run_seed=7 if hybrid else None)
    kb = KnowledgeBase.from_world("pogostick")
    # the learning agent (no repair: it would repair the Axe without learning anything)
    agent = (HybridAgent(recorder, kb, None, RecoveryConfig.rapidlearn_plus(
                 train=TINY, rollouts=4, extra_maps=2), novelty="axe",
                 repair=RepairConfig(enabled=False))
             if hybrid else PlanningAgent(recorder, kb))
    recorder.agent = agent
    run_episode(recorder, agent, seed=0)
    assert recorder.saved


@pytest.fixture(scope="session")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("studio_recordings")
    record(folder / "planning_axe.json", hybrid=False)
    record(folder / "hybrid_axe.json", hybrid=True)
    return folder


# --- a real headless Chromium ----------------------------------------------------------------
# The machine's own Chromium (Debian's package, which .ci/run installs, or any chromium /
# chrome on PATH), never a browser Playwright downloads. It is a program outside the
# repository, so every test that opens it is marked `browser` and left out of the default
# run (pyproject.toml): `pytest -m browser` runs them, and skips them, saying why, on a
# machine without one.


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> Path | None:
    found = next((shutil.which(name) for name in CHROMIUM_NAMES if shutil.which(name)), None)
    return Path(found) if found else None


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():  # type: ignore[no-untyped-def]
    chromium = find_chromium()
    if chromium is None:
        pytest.skip(f"the studio's browser tests need Chromium on PATH (one of "
                    f"{', '.join(CHROMIUM_NAMES)}; Debian: apt-get install chromium; CI "
                    "installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def studio(recordings: Path, tmp_path: Path) -> Iterator[Any]:
    """The studio on 127.0.0.1, an ephemeral port, in a thread."""
    from nesyworld.experiments.studio import create_app, start

    with start(create_app([recordings], levels_dir=tmp_path / "levels")) as running:
        yield running


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """Opens a page at a URL and a viewport size; at teardown, fails the test if a page threw
    (an uncaught JavaScript error) and closes them."""
    opened: list[tuple[Any, list[str]]] = []

    def open_at(url: str, width: int = 1400, height: int = 900) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        opened.append((context, errors))
        page.goto(url)
        return page

    yield open_at
    for context, _ in opened:
        context.close()
    thrown = [e for _, errors in opened for e in errors]
    assert not thrown, f"the page threw: {thrown}"
