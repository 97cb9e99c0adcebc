"""Every code block of the README, and of the manual's pages in docs/, runs or is checked, so
the front page and the manual cannot rot.

* ```python blocks run. Each runs in a fresh interpreter, with nothing from the blocks before it
  (a reader pastes one block, not the page), and with a temporary folder as its working
  directory, so the files it writes land there. Blocks whose budgets mean minutes or hours of
  training run here with tiny ones: the table below rewrites those few places, in the test
  only, never in the pages. Every entry of the table must match the pages' python blocks
  exactly once, or the run fails, so the table cannot silently rot when a page changes.
* ```bash blocks are checked, not run (their commands install packages, train for minutes or
  hours, or serve a page until Ctrl-C; CI runs the README's test command itself, .ci/run):
  every `nesyworld` command line is parsed by the CLI's own parser (so sub-commands, flags,
  choices such as agent names, and numbers must be valid), a novelty named by `--novelty`
  must load (a shipped one; a `PATH.py:Class` must name an existing file), every `python -m`
  module must exist, every `pip install` extra must be declared in pyproject.toml, every path
  given to pytest must exist, and any other program must be one of a short list.
* ```yaml blocks are read by the project's loaders: a novelty as a novelty file, an `events:`
  section as part of a spec that extends the pogostick task.
* ```text blocks are output or diagrams; a line of one that starts with `$ ` is a command,
  checked as a bash line is. A ```bibtex block must be one well-formed entry.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
TIMEOUT = 300  # seconds per block; the slowest, a training block, takes about 20 s here
STDERR_TAIL = 3000  # characters of a failing block's stderr shown in the failure message

# One epoch of 250 steps and one evaluation episode of at most 50 steps: a training run that
# costs seconds (most of them tianshou compiling its numba functions in the fresh process).
TINY_ARGS = ("step_budget=250, epoch_length=250, collect_chunk=250, eval_episodes=1, "
             "max_episode_steps=50, progress=False")

# Page text -> the text the test runs instead. Each entry shrinks a budget (or imports what
# the smaller budget needs); what the block does stays the same.
SUBSTITUTIONS: dict[str, str] = {
    # Learning to recover: the hybrid agent meets the fire novelty and learns from it once,
    # on a tiny training budget, then one adaptation episode and one evaluation episode.
    "from nesyworld import HybridAgent, KnowledgeBase, RecoveryConfig":
        "from nesyworld import HybridAgent, KnowledgeBase, RecoveryConfig\n"
        "from nesyworld.learning import TrainConfig",
    "RecoveryConfig.rapidlearn_plus()":
        f"RecoveryConfig.rapidlearn_plus(train=TrainConfig({TINY_ARGS}, vector_env='dummy'), "
        "rollouts=2, extra_maps=0, attempts=1)",
    "adapt_and_evaluate(env, agent, seed=0, eval_episodes=20)":
        "adapt_and_evaluate(env, agent, seed=0, max_episodes=1, window=1, eval_episodes=1)",
    # The learning layer on its own, through both factories (single envs, one vector env).
    "TrainConfig(step_budget=50_000)": f"TrainConfig({TINY_ARGS})",
    "TrainConfig(num_envs=16)": f"TrainConfig(num_envs=16, {TINY_ARGS})",
    # The RL baselines: both agents train on the tiny routine instead of the paper's.
    "from nesyworld import RLAgent, TransferRLAgent":
        "from nesyworld import RLAgent, RLConfig, TransferRLAgent\n"
        "from nesyworld.learning import TrainConfig\n"
        f"TINY = RLConfig(train=TrainConfig({TINY_ARGS}))",
    'RLAgent(NesyGridEnv("pogostick"))': 'RLAgent(NesyGridEnv("pogostick"), config=TINY)',
    "rl.learn(steps=4_000_000)": "rl.learn()",
    '["axe"]), "rl.pt")': '["axe"]), "rl.pt", config=TINY)',
}


@dataclass(frozen=True)
class Block:
    """One fenced block: its place among its page's blocks of its language (from 1), its
    fence's line, its code."""

    index: int
    line: int
    code: str

    @property
    def id(self) -> str:
        return f"block-{self.index}-line-{self.line}"


def fenced_blocks(text: str, language: str = "python", name: str = README.name) -> list[Block]:
    """Every ```<language> fenced block of a Markdown text, in order (indented ones too, as
    in a list item, dedented). `language` "" is the blocks whose fence names none."""
    blocks: list[Block] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        opening = re.fullmatch(r"\s*```\s*(\S*)\s*", lines[k])
        if opening:
            start = k
            k += 1
            while k < len(lines) and not re.fullmatch(r"\s*```\s*", lines[k]):
                k += 1
            if k == len(lines):
                raise ValueError(f"{name}:{start + 1}: a ``` block is never closed")
            if opening.group(1) == language:
                code = textwrap.dedent("\n".join(lines[start + 1:k])) + "\n"
                blocks.append(Block(len(blocks) + 1, start + 1, code))
        k += 1
    return blocks


def python_blocks(text: str) -> list[Block]:
    """Every ```python fenced block of a Markdown text, in order."""
    return fenced_blocks(text, "python")


def page_blocks(language: str) -> list[tuple[Path, Block]]:
    """Every ```<language> block of the README and of the docs pages."""
    return [(page, block) for page in (README, *DOCS)
            for block in fenced_blocks(page.read_text(encoding="utf-8"), language, page.name)]


def where(page: Path, block: Block) -> str:
    return f"{page.relative_to(ROOT)}:{block.line}"


def block_id(page: Path, block: Block) -> str:
    return f"{page.stem}-{block.id}"


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))
DOC_BLOCKS = [(page, block) for page, block in page_blocks("python") if page != README]
ALL_PYTHON = [block for _, block in page_blocks("python")]


def substituted(code: str) -> str:
    """`code` with the table's replacements made."""
    for old, new in SUBSTITUTIONS.items():
        code = code.replace(old, new)
    return code


def tail(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return (text or "")[-STDERR_TAIL:]


def test_the_pages_have_python_blocks() -> None:
    assert BLOCKS, f"no ```python block found in {README}"
    assert len(ALL_PYTHON) >= 10, f"only {len(ALL_PYTHON)} ```python blocks in README and docs"


@pytest.mark.parametrize("old", list(SUBSTITUTIONS))
def test_every_substitution_matches_once(old: str) -> None:
    found = [block_id(p, b) for p, b in page_blocks("python") for _ in range(b.code.count(old))]
    assert len(found) == 1, (
        f"SUBSTITUTIONS[{old!r}] should match the pages' python blocks exactly once, but "
        f"matches {len(found)} times {found}: update the table in {Path(__file__).name}")


def run_alone(code: str, where: str, tmp_path: Path) -> None:
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"{where}: the block did not finish in {TIMEOUT} s; the end "
                    f"of its stderr:\n{tail(timeout.stderr)}", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"{where}: the block exited with {done.returncode}; the end "
                    f"of its stderr:\n{tail(done.stderr)}", pytrace=False)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs_alone(block: Block, tmp_path: Path) -> None:
    run_alone(substituted(block.code), f"README.md:{block.line}", tmp_path)


@pytest.mark.parametrize(("page", "block"), DOC_BLOCKS,
                         ids=[f"{p.stem}-{b.id}" for p, b in DOC_BLOCKS])
def test_a_manual_page_block_runs_alone(page: Path, block: Block, tmp_path: Path) -> None:
    run_alone(substituted(block.code), where(page, block), tmp_path)


# ---------------------------------------------------------------------------------------------
# bash, yaml and text blocks: checked, not run

OTHER_PROGRAMS = {"ruff", "jupyter", "tensorboard", "apt-get", "cd"}
"""Programs a page may name besides nesyworld, python, pip and pytest: checked by nothing but
this list, so a new one is added here on purpose."""

SEPARATORS = {"&&", "||", ";", "|"}


def command_lines(code: str) -> list[str]:
    """The command lines of a shell block: continuation lines joined, blank lines dropped."""
    return [line for line in code.replace("\\\n", " ").splitlines() if line.strip()]


def commands(line: str) -> list[list[str]]:
    """A command line split into its simple commands (at &&, ||, ; and |), comments dropped,
    leading VAR=value assignments and /usr/bin/time removed."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    found: list[list[str]] = [[]]
    for token in lexer:
        if token in SEPARATORS:
            found.append([])
        else:
            found[-1].append(token)
    simple = []
    for argv in found:
        while argv and (re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", argv[0])
                        or argv[0] == "/usr/bin/time"):
            argv = argv[1:]
        if argv:
            simple.append(argv)
    return simple


def extras_of(pyproject: str) -> set[str]:
    """The optional-dependency groups declared in pyproject.toml's text."""
    section = pyproject.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^([A-Za-z0-9_-]+)\s*=", section, flags=re.MULTILINE))


EXTRAS = extras_of((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def check_command(argv: list[str], at: str) -> None:
    """Fail the test when a command of a page could not run as written (see the module's
    docstring for what is checked)."""
    program, args = argv[0], argv[1:]
    if program == "nesyworld":
        from nesyworld.experiments.cli.main import build_parser

        command = next((a for a in args if not a.startswith("-")), None)
        try:
            build_parser(command).parse_args(args)
        except SystemExit as refused:
            pytest.fail(f"{at}: `{shlex.join(argv)}` is refused by the CLI's parser "
                        f"(exit {refused.code}); see the captured stderr", pytrace=False)
        for flag, value in itertools.pairwise(args):
            if flag == "--novelty" and ":" in value:
                assert (ROOT / value.split(":")[0]).is_file(), f"{at}: no file {value}"
            elif flag == "--novelty" and value.isidentifier():
                from nesyworld import load_novelty

                load_novelty(value)
    elif program in ("python", "python3"):
        if args[:1] == ["-m"]:
            module = args[1]
            assert importlib.util.find_spec(module) is not None, (
                f"{at}: `python -m {module}`: no such module")
        elif args[:1] == ["-c"]:
            compile(args[1], at, "exec")
        else:
            pytest.fail(f"{at}: `{shlex.join(argv)}`: only `python -m` and `python -c` are "
                        "checked; add a rule here for another form", pytrace=False)
    elif program == "pip":
        assert args[:1] == ["install"], f"{at}: `{shlex.join(argv)}`: only `pip install`"
        for arg in args[1:]:
            extras = re.fullmatch(r"(?:\.|nesyworld)\[([^\]]*)\]", arg)
            if extras:
                unknown = set(extras.group(1).split(",")) - EXTRAS
                assert not unknown, f"{at}: extras {sorted(unknown)} are not in pyproject.toml"
    elif program == "pytest":
        for arg in args:
            if arg.startswith("tests"):
                assert (ROOT / arg).exists(), f"{at}: pytest is given {arg}, which is missing"
    else:
        assert program in OTHER_PROGRAMS, (
            f"{at}: `{program}` is not a program these checks know; add it to OTHER_PROGRAMS "
            f"in {Path(__file__).name} if the page is right to name it")


SHELL_BLOCKS = page_blocks("bash")


@pytest.mark.parametrize(("page", "block"), SHELL_BLOCKS,
                         ids=[block_id(p, b) for p, b in SHELL_BLOCKS])
def test_a_shell_block_is_valid(page: Path, block: Block) -> None:
    for line in command_lines(block.code):
        for argv in commands(line):
            check_command(argv, where(page, block))


TEXT_BLOCKS = page_blocks("text")


@pytest.mark.parametrize(("page", "block"), TEXT_BLOCKS,
                         ids=[block_id(p, b) for p, b in TEXT_BLOCKS])
def test_a_command_in_a_text_block_is_valid(page: Path, block: Block) -> None:
    for line in block.code.splitlines():
        if line.startswith("$ "):
            for argv in commands(line[2:]):
                check_command(argv, where(page, block))


def test_every_block_names_its_language() -> None:
    bare = [where(p, b) for p, b in page_blocks("")]
    assert not bare, ("fenced blocks without a language (python, bash, yaml, text or bibtex): "
                      f"{bare}")


YAML_BLOCKS = page_blocks("yaml")


@pytest.mark.parametrize(("page", "block"), YAML_BLOCKS,
                         ids=[block_id(p, b) for p, b in YAML_BLOCKS])
def test_a_yaml_block_loads(page: Path, block: Block, tmp_path: Path) -> None:
    import yaml

    from nesyworld import load_novelty, load_spec

    data = yaml.safe_load(block.code)
    assert isinstance(data, dict), f"{where(page, block)}: not a YAML mapping"
    if "novelty" in data:
        path = tmp_path / f"{data['novelty']}.yaml"
        path.write_text(block.code, encoding="utf-8")
        load_novelty(path)
    elif set(data) == {"events"}:
        path = tmp_path / "events.yaml"
        # the pogostick task, with the property an event may set declared (as the fire
        # novelty declares it)
        path.write_text("extends: pogostick\nname: pogostick_events\nentity_types:\n"
                        "  crafting_table: {properties: {on_fire: false}}\n" + block.code,
                        encoding="utf-8")
        assert load_spec(path).events, f"{where(page, block)}: the events did not load"
    else:
        pytest.fail(f"{where(page, block)}: a YAML block of a kind these checks do not load "
                    f"(keys {sorted(data)}); add a rule for it", pytrace=False)


BIBTEX_BLOCKS = page_blocks("bibtex")


@pytest.mark.parametrize(("page", "block"), BIBTEX_BLOCKS,
                         ids=[block_id(p, b) for p, b in BIBTEX_BLOCKS])
def test_a_bibtex_block_is_an_entry(page: Path, block: Block) -> None:
    entry = re.fullmatch(r"\s*@\w+\{[\w:-]+,(.*)\}\s*", block.code, flags=re.DOTALL)
    assert entry, f"{where(page, block)}: not one BibTeX entry"
    depth = 0
    for char in entry.group(1):
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, f"{where(page, block)}: a '}}' closes nothing"
    assert depth == 0, f"{where(page, block)}: unbalanced braces"
    fields = set(re.findall(r"^\s*(\w+)\s*=", entry.group(1), flags=re.MULTILINE))
    assert {"title", "author", "year"} <= fields, f"{where(page, block)}: fields {fields}"
