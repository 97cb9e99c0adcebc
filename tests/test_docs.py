"""The README is a front door and the manual's pages in docs/ hold one another together: the
README stays short, every relative link of the README, the docs pages and the changelog
points to a file that exists (and, with a #fragment, to a heading of that file), and none of
them cites an issue number or a commit hash (measurements carry their command and date;
history is in CHANGELOG.md). Their code blocks are run or checked by tests/test_readme.py."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CHANGELOG = ROOT / "CHANGELOG.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, CHANGELOG, *DOCS]
README_MAX_LINES = 200

FENCE = re.compile(r"^\s*```.*?^\s*```\s*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def prose(text: str) -> str:
    """A page's text without its fenced blocks, and its code spans blanked (a link's text may
    be code, so the brackets stay)."""
    return CODE_SPAN.sub("x", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))}


def relative_links(page: Path) -> list[str]:
    return [target for target in LINK.findall(prose(page.read_text(encoding="utf-8")))
            if not re.match(r"[a-z][a-z0-9+.-]*:", target)]  # http:, https:, mailto:, ...


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines; at most {README_MAX_LINES}: move the detail to a page "
        "in docs/ and link it")


def test_the_pages_exist() -> None:
    assert CHANGELOG.is_file()
    for name in ("GETTING_STARTED", "SPECS", "NOVELTIES", "ADAPTATION", "EXPERIMENTS", "STUDIO",
                 "SPEED", "ADAPTERS", "CLI", "KNOWLEDGE", "COUNTS", "ARCHITECTURE"):
        assert (ROOT / "docs" / f"{name}.md").is_file(), f"docs/{name}.md is missing"


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        file = (page.parent / unquote(path)).resolve() if path else page
        if not file.exists():
            broken.append(f"{target} (no file {file.relative_to(ROOT)})")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{target} (no heading #{fragment} in {file.name})")
    assert not broken, f"{page.name}: broken links: {broken}"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in relative_links(README)}
    missing = [p.name for p in DOCS if p.resolve() not in linked]
    assert not missing, f"README.md does not link these docs pages: {missing}"


ISSUE = re.compile(r"\bissues? #?[0-9]+\b", re.IGNORECASE)
HASH = re.compile(r"\bcommit `?[0-9a-f]{7,40}\b|`[0-9a-f]{7,40}`")


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_no_issue_numbers_or_commit_hashes(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    found = [m.group(0) for pattern in (ISSUE, HASH) for m in pattern.finditer(text)]
    assert not found, (f"{page.name} cites {found}: user documentation speaks of the software; "
                       "give a measurement its command and date, and history to CHANGELOG.md")


def test_the_slugs_are_githubs() -> None:
    assert slug("3. The learning subproblem: `RecoveryEnv`") == \
        "3-the-learning-subproblem-recoveryenv"
    assert slug("The recoveries' minibatch: sample efficiency measured") == \
        "the-recoveries-minibatch-sample-efficiency-measured"
