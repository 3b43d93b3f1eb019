"""The README and docs/ commands run as written, from a fresh copy of the repository.

A fenced block preceded by ``<!-- runnable -->`` holds commands that must run as written from
the repository root of a fresh clone; each is run here, in order, in one fresh copy of the
checkout's files (``git ls-files``), with this checkout's code on ``PYTHONPATH``. A command
ending in a comment ``# exit N`` must exit with N (default 0). ``<!-- runnable: slow -->`` marks
blocks too long for the test suite: their ``bdi-supervisor`` / ``bdi-monitor`` lines are only
parsed with the real argument parsers, and the ``config/`` files they name must exist.

Also: the README's test command is the one ``.ci/run`` runs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.checkout_copy import copy_checkout
from support.paths import ROOT
from support.ros_helpers import next_domain

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"<!--\s*runnable(?::\s*(?P<kind>\w+))?\s*-->\s*\n```(?:bash|sh)?\n"
                   r"(?P<body>.*?)\n```", re.S)
EXIT = re.compile(r" #.*\bexit\s+(\d+)\b")


@dataclass(frozen=True)
class Command:
    text: str
    exit_code: int


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    kind: str
    commands: tuple[Command, ...]

    @property
    def id(self) -> str:
        return f"{self.document}:{self.line}"


def _commands(body: str) -> tuple[Command, ...]:
    """Shell commands of a block: continuation lines joined, blank and comment lines skipped."""
    out, pending = [], ""
    for raw in body.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        pending = ""
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        expected = EXIT.search(line)
        code = line.split(" #", 1)[0].strip() if " #" in line else line.strip()
        out.append(Command(code, int(expected.group(1)) if expected else 0))
    return tuple(out)


def _blocks() -> list[Block]:
    blocks = []
    for path in DOCUMENTS:
        text = path.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            blocks.append(Block(str(path.relative_to(ROOT)), line, match.group("kind") or "quick",
                                _commands(match.group("body"))))
    return blocks


BLOCKS = _blocks()


def test_documents_mark_some_commands_runnable():
    assert any(b.document == "README.md" and b.kind == "quick" for b in BLOCKS)
    assert all(b.commands for b in BLOCKS), [b.id for b in BLOCKS if not b.commands]


@pytest.fixture(scope="module")
def fresh_copy(tmp_path_factory) -> Path:
    """The checkout's files (tracked and untracked-but-not-ignored) copied to a temp folder."""
    return copy_checkout(tmp_path_factory.mktemp("fresh") / "repo")


def _environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = str(copy)
    env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    env["ROS_DOMAIN_ID"] = str(next_domain())
    return env


def _files(folder: Path) -> set[str]:
    """Every file under ``folder`` (relative), outside the caches Python writes itself."""
    return {str(Path(root, name).relative_to(folder)) for root, dirs, names in os.walk(folder)
            if "__pycache__" not in Path(root).parts for name in names}


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "quick"], ids=lambda b: b.id)
def test_runnable_block(block: Block, fresh_copy: Path):
    """Each command exits as the document says, and writes nowhere in the clone but ``out/``
    (which ``.gitignore`` ignores)."""
    before = _files(fresh_copy)
    for command in block.commands:
        if shutil.which(shlex.split(command.text)[0],
                        path=_environment(fresh_copy)["PATH"]) is None:
            pytest.fail(f"{block.id}: {shlex.split(command.text)[0]} is not installed")
        done = subprocess.run(["bash", "-c", command.text], cwd=fresh_copy,
                              env=_environment(fresh_copy), capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == command.exit_code, (
            f"{block.id}: `{command.text}` exited {done.returncode}, expected "
            f"{command.exit_code}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n"
            f"{done.stderr[-3000:]}")
    littered = sorted(path for path in _files(fresh_copy) - before
                      if not path.startswith("out/"))
    assert not littered, f"{block.id} wrote outside out/: {littered[:10]}"


def test_gitignore_ignores_what_commands_write():
    ignored = (ROOT / ".gitignore").read_text().split()
    for entry in ("out/", "__pycache__/", ".venv/", "*.egg-info/", ".hypothesis/"):
        assert entry in ignored, entry


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "slow"], ids=lambda b: b.id)
def test_slow_block_parses(block: Block):
    from bdi_supervisor.cli.main import build_parser as supervisor_parser
    from bdi_supervisor.cli.monitor import build_parser as monitor_parser

    parsers = {"bdi-supervisor": supervisor_parser, "bdi-monitor": monitor_parser}
    for command in block.commands:
        words = shlex.split(command.text)
        if words[0] not in parsers:
            continue
        parsers[words[0]]().parse_args(words[1:])
        for word in words[1:]:
            if word.startswith("config/"):
                assert (ROOT / word).exists(), f"{block.id}: {word} does not exist"


def _test_commands(text: str) -> list[str]:
    return [line.split(" #", 1)[0].strip() for line in text.splitlines()
            if re.match(r"\s*python3? -m pytest\b", line)]


def test_readme_test_command_is_what_ci_runs():
    readme = _test_commands((ROOT / "README.md").read_text())
    ci = _test_commands((ROOT / ".ci" / "run").read_text())
    assert len(readme) == 1, readme
    assert ci == readme


def test_readme_installs_into_a_virtual_environment():
    """A system Python refuses ``pip install`` (externally managed): the install block makes a
    venv first."""
    install = re.search(r"## Install\n\n```bash\n(.*?)```", (ROOT / "README.md").read_text(),
                        re.S).group(1)
    lines = [line.split("#")[0].strip() for line in install.splitlines()]
    venv = next(i for i, line in enumerate(lines) if "-m venv" in line)
    pip = next(i for i, line in enumerate(lines) if "pip install" in line)
    assert venv <= pip and "activate" in lines[venv]
