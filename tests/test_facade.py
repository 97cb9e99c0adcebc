"""The public facade, `import nesyworld`: one import gives the envs by id, spec name, file or
spec object, and the gymnasium ids work without importing anything of ours first."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import nesyworld
from nesyworld.domains import find_spec


def test_make_accepts_an_id_a_spec_name_a_file_and_a_spec() -> None:
    by_id = nesyworld.make("nesyworld/PogostickFull-v0")
    by_name = nesyworld.make("pogostick_full")
    by_file = nesyworld.make(find_spec("pogostick_full"))
    by_spec = nesyworld.make(nesyworld.load_spec("pogostick_full"))
    first = [env.reset(seed=4)[0] for env in (by_id, by_name, by_file, by_spec)]
    assert all(np.array_equal(first[0], obs) for obs in first[1:])
    assert by_name.spec is not None and by_name.spec.id == "nesyworld/PogostickFull-v0"


def test_make_passes_keywords_to_the_env() -> None:
    env = nesyworld.make("pogostick", observation="facts")
    assert isinstance(env.observation_space, gymnasium.spaces.Text)  # facts come as text


def test_make_vec_is_the_native_vector_env() -> None:
    envs = nesyworld.make_vec("pogostick", num_envs=3)
    obs, infos = envs.reset(seed=0)
    assert obs.shape[0] == 3 and infos["action_mask"].shape[0] == 3
    assert type(envs.unwrapped).__name__ == "NesyVectorEnv"


def test_an_unknown_spec_is_a_located_error() -> None:
    with pytest.raises(nesyworld.SpecError, match="no_such_world"):
        nesyworld.make("no_such_world")


def test_gymnasium_entry_point_is_declared_and_registers() -> None:
    (found,) = [e for e in entry_points(group="gymnasium.envs") if e.name == "nesyworld"]
    register = found.load()
    register()  # registering again must be harmless
    assert "nesyworld/Pogostick-v0" in gymnasium.registry


def test_gymnasium_ids_need_no_import_of_ours(tmp_path: Path) -> None:
    code = ("import gymnasium\n"
            "env = gymnasium.make('nesyworld:nesyworld/Sandwich-v0')\n"
            "print(env.spec.id, env.reset(seed=0)[0].shape)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout
    assert out.startswith("nesyworld/Sandwich-v0 (")


def test_the_version_is_read_on_first_use(tmp_path: Path) -> None:
    """importlib.metadata costs every command about 20 ms at start-up: only a caller that
    asks for the version pays it, and it is the installed distribution's."""
    from importlib.metadata import version

    code = ("import sys, nesyworld\n"
            "print('importlib.metadata' in sys.modules)\n"
            "print(nesyworld.__version__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split()
    assert out == ["False", version("nesyworld")]
    assert "__version__" in nesyworld.__all__
