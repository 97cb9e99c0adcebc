"""`--knowledge closed|oracle` and `--refusals explained|silent`, shared by the commands that
adapt a hybrid agent to a novelty (`run`, `generality`).

What the agent may know is part of every result about novelty (hybrid/knowledge/regime.py),
so the option means the same in every command and its value is written into every summary
and record the command makes.
"""

from __future__ import annotations

from typing import Any

from nesyworld.hybrid.knowledge.options import DEFAULT_KNOWLEDGE, KNOWLEDGE_REGIMES, REFUSAL_MODES


def add_knowledge_arguments(parser: Any) -> None:
    parser.add_argument(
        "--knowledge", choices=KNOWLEDGE_REGIMES, default=DEFAULT_KNOWLEDGE,
        help="what the hybrid agent may know after the novelty: closed (its pre-novelty "
        "knowledge base and what it observes; the default) or oracle (also the changed "
        "world's own model: a labelled baseline, not a result about novelty)")
    parser.add_argument(
        "--refusals", choices=REFUSAL_MODES, default="explained",
        help="whether the env says why it refused an action (explained, the default) or only "
        "that it did (silent)")
