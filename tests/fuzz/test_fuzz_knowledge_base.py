"""Knowledge-base folders: a saved orchard knowledge base with kb.json, domain.pddl or
problem.pddl mutated, deleted or joined by stray files, through `KnowledgeBase.load`: a damaged
folder loads or raises a KnowledgeBaseError (the SpecError of the one folder reader) or a
PDDLError, naming one of the folder's files."""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.symbolic.knowledge_base import KnowledgeBase, KnowledgeBaseError
from nesyworld.symbolic.pddl.errors import PDDLError
from nesyworld.world.errors import SpecError

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "domains" / "lifelong" / "orchard.yaml"
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 10)
FILES = ("kb.json", "domain.pddl", "problem.pddl")


@functools.cache
def knowledge_base() -> KnowledgeBase:
    return KnowledgeBase.from_world(SPEC)


def load(folder: Path, kb: KnowledgeBase) -> KnowledgeBase:
    """KnowledgeBase.load, asserting that a refusal is the folder reader's own and names the
    damaged file (an AssertionError is no input error, so Fuzz.run fails on it)."""
    try:
        return KnowledgeBase.load(folder, kb.base)
    except (SpecError, PDDLError) as err:
        assert isinstance(err, KnowledgeBaseError | PDDLError), repr(err)
        assert Path(err.file).parent == folder and Path(err.file).name in FILES, repr(err)
        raise


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_damaged_folders_load_or_refuse(fuzz, data, tmp_path_factory) -> None:
    kb = knowledge_base()
    folder = kb.save(tmp_path_factory.mktemp("kb") / "kb")
    name = data.draw(st.sampled_from(FILES), label="file")
    damage = data.draw(st.sampled_from(("text", "bytes", "delete", "extra", "folder")),
                       label="damage")
    path = folder / name
    if damage == "text":
        path.write_text(fuzz.mutant(data, path.read_text(encoding="utf-8")), encoding="utf-8",
                        errors="surrogatepass")
    elif damage == "bytes":
        path.write_bytes(fuzz.mutant_bytes(data, path.read_bytes()))
    elif damage == "delete":
        path.unlink()
    elif damage == "extra":
        (folder / "notes.txt").write_text("not part of the knowledge base\n")
        (folder / "policies").mkdir()
    else:
        path.unlink()
        path.mkdir()
    fuzz.run(f"{name} ({damage})", lambda: load(folder, kb))
    shutil.rmtree(folder)
