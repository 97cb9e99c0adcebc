"""Study configs: mutated shipped configs (experiments/configs/) through the loader of their
kind, `load_experiment`, `load_matrix` or `load_continual`."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.experiments.continual.config import load_continual
from nesyworld.experiments.matrix.config import load_matrix
from nesyworld.experiments.protocol.config import load_experiment

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "experiments" / "configs").glob("*.yaml"))
LOADERS = {"matrix": load_matrix, "continual": load_continual}
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 10)

for _path in CONFIGS:  # warm up: the continual loader builds envs (the kernels load once)
    LOADERS.get(_path.stem, load_experiment)(_path)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_configs_load_or_refuse(fuzz, data, tmp_path_factory) -> None:
    path = data.draw(st.sampled_from(CONFIGS), label="config")
    mutated = tmp_path_factory.mktemp("config") / path.name
    if data.draw(st.booleans(), label="bytes"):
        mutated.write_bytes(fuzz.mutant_bytes(data, path.read_bytes()))
    else:
        text = fuzz.mutant(data, path.read_text(encoding="utf-8"))
        mutated.write_text(text, encoding="utf-8", errors="surrogatepass")
    load = LOADERS.get(path.stem, load_experiment)
    fuzz.run(f"{path.name} mutated", lambda: load(mutated))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_config_text_loads_or_refuses(fuzz, data) -> None:
    """The same loaders given YAML text (no file): relative names resolve from the cwd."""
    path = data.draw(st.sampled_from(CONFIGS), label="config")
    text = fuzz.mutant(data, path.read_text(encoding="utf-8"))
    load = LOADERS.get(path.stem, load_experiment)
    fuzz.run(f"{path.name} as text", lambda: load(text))
