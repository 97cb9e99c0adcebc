"""The environment boundary (hybrid/boundary/interface.py): outside it, nothing in hybrid/
reads the post-novelty world's model (its spec, type registry, entity types, derived PDDL)
except through the oracle's door, which refuses outside the oracle knowledge regime.

The check is on the source (beside the layer test in test_architecture.py): an attribute
`spec`, `types`, `entity_types` or `registry`, or a call of `derive`, `load_spec` or
`World`, is allowed only on a value that came through `oracle(...)` or on the env's copy
recipe (`.recipe`, which carries the spec to env constructors and to no agent). A run of
the closed agent then proves the door stays shut at run time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HYBRID = ROOT / "hybrid"

MODEL_ATTRIBUTES = {"spec", "types", "entity_types", "registry"}
MODEL_CALLS = {"derive", "load_spec", "World"}
DOORS = {"oracle", "recipe", "base"}
"""`oracle(...)`: the labelled baseline's door; `.recipe`: the env's copy recipe; `.base`: the
knowledge base's own pre-novelty domain (what the agent knew)."""

OUTSIDE_THE_AGENT = {
    "hybrid/boundary": "the boundary itself: nesyworld's world behind the interface",
        "hybrid/knowledge/prior.py": "the knowledge base's own pre-novelty spec file",
    "hybrid/knowledge/relaxation.py": "pure functions of a spec handed to them by prior.py "
                                      "or hybrid/boundary/oracle_model.py",
    "hybrid/recovery/env.py": "the recovery env is an environment: a copy of the agent's env "
                              "restored at the failure, built as any env is",
    "hybrid/recovery/batched_env.py": "copies of the recovery env on the batched core: an "
                                      "environment, built as env.py's is",
    "hybrid/recovery/abstract_keys.py": "the batched recovery env's keys of its copies' "
                                        "abstract states, read off the world it simulates",
    "hybrid/recording": "the recorder is an instrument beside the agent: it writes the world "
                        "down for replay and decides nothing",
    "hybrid/baselines": "the RL baselines never plan: they make training copies of their env "
                        "(as gymnasium.vector does) and read only its observations",
}


def _outside(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == k or rel.startswith(k + "/") for k in OUTSIDE_THE_AGENT)


def _through_a_door(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in DOORS:
                return True
        if isinstance(sub, ast.Attribute) and sub.attr in DOORS:
            return True
    return False


def model_reads(path: Path) -> list[str]:
    return reads_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())


def reads_in(source: str, rel: str) -> list[str]:
    tree = ast.parse(source, filename=rel)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in MODEL_ATTRIBUTES:
            if not _through_a_door(node.value):
                out.append(f"{rel}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in MODEL_CALLS and not any(_through_a_door(a) for a in node.args):
                out.append(f"{rel}:{node.lineno}: {name}(...)")
    return sorted(out, key=lambda r: int(r.split(":")[1]))


def test_the_agent_reads_no_post_novelty_model_outside_the_boundary() -> None:
    files = [p for p in sorted(HYBRID.rglob("*.py")) if "__pycache__" not in p.parts]
    assert len(files) > 40
    reads = [r for p in files if not _outside(p) for r in model_reads(p)]
    assert reads == [], "\n".join(reads)


def test_the_exemptions_exist() -> None:
    for rel in OUTSIDE_THE_AGENT:
        assert (ROOT / rel).exists() or (ROOT / (rel + ".py")).exists(), rel


def test_the_check_sees_a_read_and_lets_the_doors_through() -> None:
    source = ("def f(world, env, knowledge):\n"
              "    a = world.spec.goal\n"
              "    b = derive(world)\n"
              "    c = env.oracle(knowledge).types.names\n"
              "    d = derive(oracle(world, knowledge))\n"
              "    e = env.recipe.spec\n"
              "    f = kb.base.types\n")
    reads = reads_in(source, "probe.py")
    assert [r.split(": ", 1)[1] for r in reads] == [".spec", "derive(...)"]


def test_the_oracle_door_refuses_outside_the_oracle_regime() -> None:
    from nesyworld.hybrid.boundary import OracleRefused, WorldAdapter
    from nesyworld.world.envs.gym_env import NesyGridEnv

    env = WorldAdapter(NesyGridEnv("pogostick"))
    env.env.reset(seed=0)
    with pytest.raises(OracleRefused, match="closed"):
        env.oracle("closed")
    assert env.oracle("oracle") is env.env.unwrapped.world
