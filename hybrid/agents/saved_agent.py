"""Saved agents (`agent.save(DIR)`, `nesyworld run --kb DIR`) read back with every part checked.

A saved agent's folder is a knowledge-base folder, read and checked as a whole by
``KnowledgeBase.load`` (symbolic/kb_folder.py: kb.json field by field, the PDDL beside it),
plus, for a hybrid agent, one policy checkpoint per learned operator at
``<policy folder>/<operator>.pt``. Only that addition is checked here: the operator's name,
used as a file name, must not lead out of the folder, and the file must be there (its content
is the checkpoint loader's, which raises its own located CheckpointError). Every error names
the file (and the field of kb.json) and is raised before the agent changes, so the agent keeps
its knowledge when a load fails.
"""

from __future__ import annotations

import re
from pathlib import Path

from nesyworld.symbolic.derivation.derive import Derivation
from nesyworld.symbolic.kb_folder import KB_FILE
from nesyworld.symbolic.knowledge_base import KnowledgeBase
from nesyworld.world.errors import SpecError
from nesyworld.world.input_files import open_regular

FILE_NAME = re.compile(r"[A-Za-z0-9_\-]{1,200}")
"""What a learned operator's name may be to name its policy file: one path component with no
dot, so nothing (`../x`, `/etc/x`) leaves the policy folder. KnowledgeBase.load admits only PDDL
names, which fit; this is checked where the name becomes a path so that it stays true if the
names a knowledge base admits ever widen."""


def load_knowledge_base(folder: str | Path, base: Derivation,
                        policy_folder: str | None = None) -> KnowledgeBase:
    """The knowledge base saved in `folder`, over `base`'s vocabulary (KnowledgeBase.load's
    checks); with `policy_folder`, also every learned operator's policy file, all before the
    caller reads a checkpoint or changes anything."""
    kb = KnowledgeBase.load(folder, base)
    if policy_folder is not None:
        for entry in kb:
            if entry.origin == "learned":
                policy_file(folder, kb, entry.operator.name, policy_folder)
    return kb


def policy_file(folder: str | Path, kb: KnowledgeBase, operator: str,
                policy_folder: str) -> Path:
    """The policy checkpoint of the learned `operator` of `kb`, saved in `folder`; a name that
    is not a safe file name, or a missing file, is a located SpecError."""
    if not FILE_NAME.fullmatch(operator):
        raise SpecError("a learned operator's name that cannot name its policy file",
                        file=str(Path(folder) / KB_FILE),
                        key_path=f"{entry_path(kb, operator)}.operator.name", found=operator,
                        expected="letters, digits, '_' and '-' (the file is "
                        f"{policy_folder}/<name>.pt)")
    file = Path(folder) / policy_folder / f"{operator}.pt"
    if not (file.exists() or file.is_symlink()):
        raise SpecError(f"the policy of learned operator '{operator}' is missing",
                        file=str(file), expected="the checkpoint saved with the knowledge base")
    try:  # the folder's own regular file: no link out of it, no FIFO to block the load
        open_regular(file, follow_links=False).close()
    except OSError as exc:
        raise SpecError(f"the policy of learned operator '{operator}' cannot be read "
                        f"({exc.strerror or type(exc).__name__})", file=str(file),
                        expected="the checkpoint saved with the knowledge base") from None
    return file


def learned_meta_error(folder: str | Path, kb: KnowledgeBase, operator: str,
                       exc: Exception) -> SpecError:
    """A learned operator whose provenance (`meta`) cannot rebuild it."""
    return SpecError(f"learned operator '{operator}' cannot be rebuilt "
                     f"({type(exc).__name__})", file=str(Path(folder) / KB_FILE),
                     key_path=f"{entry_path(kb, operator)}.meta",
                     expected="the meta written by the agent's save() (actions, observation)")


def entry_path(kb: KnowledgeBase, operator: str) -> str:
    """`entries[i]`, the path of an operator's entry in kb.json: a loaded knowledge base keeps
    the file's order, one entry per name."""
    index = next(i for i, entry in enumerate(kb) if entry.operator.name == operator)
    return f"entries[{index}]"
