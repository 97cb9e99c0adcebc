"""Recordings the studio tests open, made once per session by the real agents: a planning
agent the Axe novelty breaks, and a hybrid agent that learns its way around it (with a tiny
training budget)."""

from __future__ import annotations

from pathlib import Path

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
                               novelties=["axe"])
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
# Playwright's own browser download needs its CDN, which CI machines here cannot reach; the
# distribution's Chromium is a registry install. So the set-up uses, in order: a browser
# Playwright already has, a system Chromium, Debian's package (when root with apt-get), and
# last Playwright's own installer.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def _playwright_browser() -> str | None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        path = p.chromium.executable_path
    return path if path and Path(path).exists() else None


def _system_chromium() -> str | None:
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _install_chromium() -> str:
    import os
    import shutil
    import subprocess
    import sys

    tried = []
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "-q", "chromium"]
        if subprocess.run(install, env=env, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True)
            result = subprocess.run(install, env=env, capture_output=True, text=True)
            tried.append(f"apt-get install chromium: {result.stderr.strip()[-300:]}")
        found = _system_chromium()
        if found:
            return found
    result = subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"],
                            capture_output=True, text=True, timeout=600)
    tried.append(f"playwright install chromium: {result.stderr.strip()[-300:]}")
    found = _playwright_browser()
    if found:
        return found
    raise RuntimeError("no Chromium for the studio's browser tests; tried:\n" + "\n".join(tried)
                       + "\ninstall one (Debian: apt-get install chromium) and rerun")


@pytest.fixture(scope="session")
def chromium() -> str:
    return _playwright_browser() or _system_chromium() or _install_chromium()


@pytest.fixture(scope="session")
def browser(chromium: str):  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        yield b
        b.close()
