"""Shipped task domains, as data: world specs (YAML) and their novelty files.

Specs can be named by short id: ``pogostick`` is ``domains/polycraft/pogostick.yaml``.
"""

from __future__ import annotations

from pathlib import Path

DOMAINS_DIR = Path(__file__).resolve().parent


def shipped_specs() -> dict[str, Path]:
    """Every shipped world spec by short name (novelty files are not specs)."""
    out = {}
    for path in sorted(DOMAINS_DIR.glob("*/*.yaml")):
        out[path.stem] = path
    return out


def shipped_novelties() -> dict[str, Path]:
    """Every shipped novelty file by name (`<domain>/novelties/<name>.yaml`)."""
    return {path.stem: path for path in sorted(DOMAINS_DIR.glob("*/novelties/*.yaml"))}


def find_novelty(name: str) -> Path | None:
    found = shipped_novelties().get(name)
    if found is None and name.endswith((".yaml", ".yml")):
        candidate = DOMAINS_DIR / name
        return candidate if candidate.is_file() else None
    return found


def find_spec(name: str) -> Path | None:
    """A shipped spec by short name, or `domain/name`."""
    specs = shipped_specs()
    if name in specs:
        return specs[name]
    candidate = DOMAINS_DIR / (name if name.endswith(".yaml") else f"{name}.yaml")
    return candidate if candidate.is_file() else None


def scripted_solution(spec_name: str) -> list[str] | None:
    """The hand-written action sequence shipped beside a spec (`<name>.plan`), if any.

    These exist to show and test the world before any planner is involved.
    """
    spec = find_spec(spec_name)
    if spec is None:
        return None
    plan = spec.with_suffix(".plan")
    if not plan.is_file():
        return None
    return [line.split(";")[0].strip() for line in plan.read_text().splitlines()
            if line.split(";")[0].strip()]
