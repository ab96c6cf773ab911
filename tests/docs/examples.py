"""The documentation's examples as the tests run them (issue 36): every ``console``, ``bash``/``sh``
and ``python`` block of README.md and of the hand-written pages of docs/ runs, in page order, in a
workspace of its own, and what a console block shows after a ``$ command`` line is what the
command prints today.

A block may carry directives in an HTML comment on the line before its fence (invisible on the
site and on GitHub), separated by ``;``::

    <!-- test: columns=160; exit=1 -->

- ``skip=REASON``: not run (a client's GUI, a network install); the reason is required.
- ``tested-by=tests/docs/FILE.py::TEST``: run by that test (which must exist), e.g. against a
  loopback model server.
- ``file=PATH``: a data block (YAML, JSON, ...) written to PATH in the workspace before the
  following blocks run (with ``check=COMMAND``, a command that must then accept it, exit 0 or
  ``exit=N``); ``edit=PATH``: a ``diff`` block whose ``-`` lines are replaced by its
  ``+`` lines in PATH (the lines around them locate the change).
- ``columns=N`` (default 200): the terminal width the commands print for; ``exit=N`` (default 0):
  each command's exit code; ``drop-column=N``: a table column (a timing) left out of the comparison.
- ``registry``: the block's ``postgresql://`` URLs are the test cluster's (the test needs PostgreSQL).
- ``output``: a ``text`` block showing what the ``python`` block before it prints (compared as a
  console block's output is).

A block that needs ``../shared`` (it names it) is skipped when that folder is not beside the checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
#: The pages whose examples run: the README and the hand-written pages (generated ones have none).
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_hooks" not in p.parts)]
RUN_KINDS = {"console", "bash", "sh", "python"}
#: What a tutorial's workspace holds: copies of these folders of the checkout.
WORKSPACE_COPIES = ["catalogs", "examples", "tests/data", "tests/servers"]
#: The placeholders of the registry examples: (the user's URL, as the docs write it).
REGISTRY_HOSTS = ("postgresql://ci@db.internal/tools", "postgresql://app@db.internal/tools")

_FENCE = re.compile(r"^(?P<indent> *)```(?P<kind>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
_DIRECTIVE = re.compile(r"<!--\s*test:\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    page: Path
    line: int
    kind: str
    body: str
    directives: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def columns(self) -> str:
        return self.directives.get("columns", "200")


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        directives: dict[str, str] = {}
        for before in reversed(text[: match.start()].rstrip("\n").split("\n")):  # the comments above the fence
            before = before.strip()
            if not (before.startswith("<!--") and before.endswith("-->")):
                break
            directive = _DIRECTIVE.search(before)
            if directive:
                for part in directive.group(1).split(";"):
                    key, _, value = part.strip().partition("=")
                    directives[key.strip()] = value.strip()
        body = textwrap.dedent(match.group("body")) if match.group("indent") else match.group("body")
        found.append(Block(page, line, match.group("kind"), body, directives))
    return found


def all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks(page)]


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """A console block's ``$`` commands (continuation lines joined) and the lines shown after each."""
    out: list[tuple[str, list[str]]] = []
    lines = block.body.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            out.append((command, []))
        elif out:
            out[-1][1].append(line)
        i += 1
    return out


def norm(line: str, drop_column: int | None = None) -> str:
    """A table line without its padding and box characters (``│``, ``┃``); ``drop_column`` left out."""
    cells = [c.strip() for c in re.split(r"[│┃]", line)]
    if drop_column is not None and len(cells) > 1:
        del cells[drop_column]
    return " | ".join(" ".join(c.split()) for c in cells).strip(" |")


def missing_lines(shown: list[str], printed: str, drop_column: int | None = None) -> list[str]:
    """The lines a page shows that the command did not print: compared without the tables'
    padding; a line the page abridges (ending ``...``, or cut with ``…``) is compared up to there;
    ``...`` alone, blank lines and the tables' rules (``━━╇━━``) are skipped."""
    lines = [norm(line, drop_column) for line in printed.splitlines()]
    missing = []
    for line in shown:
        if line.strip() in ("", "...") or not line.strip("━╇ "):
            continue
        if line.endswith(("...", "…")):
            prefix = norm(line.removesuffix("...").removesuffix("…"), drop_column)
            found = any(printed_line.startswith(prefix) for printed_line in lines)
        else:
            found = norm(line, drop_column) in lines
        if not found:
            missing.append(line)
    return missing


class Workspace:
    """A folder with copies of what the examples use (``catalogs/``, ``examples/``, the tests'
    data and servers) and ``../shared`` beside it when the checkout has it; a ``toolsearch`` on
    the PATH that runs this checkout's code with this interpreter."""

    def __init__(self, base: Path, registry_url: str | None = None) -> None:
        self.dir = base / "work"
        self.dir.mkdir()
        for name in WORKSPACE_COPIES:
            shutil.copytree(ROOT / name, self.dir / name, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
        if SHARED.is_dir():
            (base / "shared").symlink_to(SHARED)
        bin_dir = base / "bin"
        bin_dir.mkdir()
        shim = bin_dir / "toolsearch"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m toolsearch_cli "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        self.path = f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        self.registry_url = registry_url
        self.last_stdout = ""

    def env(self, columns: str) -> dict[str, str]:
        env = {**os.environ, "PATH": self.path, "COLUMNS": columns}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        return env

    def to_registry(self, text: str) -> str:
        if self.registry_url is None:
            return text
        for host in REGISTRY_HOSTS:
            text = text.replace(host, self.registry_url)
        return text

    def from_registry(self, text: str) -> str:
        """The cluster's address in output written as the docs' placeholder."""
        if self.registry_url is None:
            return text
        address = self.registry_url.split("@", 1)[1]  # host:port/db, after the credentials
        return text.replace(address, "db.internal/tools")

    def shell(self, command: str, columns: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", self.to_registry(command)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=self.dir,
            env=self.env(columns),
            timeout=timeout,
        )


def apply_edit(path: Path, diff: str) -> None:
    """Replace the ``-`` lines of ``diff`` (with its context lines) by its ``+`` lines in ``path``."""
    old, new = [], []
    for line in diff.rstrip("\n").split("\n"):
        mark, rest = line[:1], line[1:]
        if mark == "-":
            old.append(rest)
        elif mark == "+":
            new.append(rest)
        else:
            old.append(rest)
            new.append(rest)
    text = path.read_text(encoding="utf-8")
    before, after = "\n".join(old) + "\n", "\n".join(new) + "\n"
    assert text.count(before) == 1, f"the edit's lines are not in {path.name} once:\n{before}"
    path.write_text(text.replace(before, after), encoding="utf-8")


def needs_shared(block: Block) -> bool:
    return "../shared" in block.body


def run_page(page: Path, workspace: Workspace) -> tuple[int, list[str]]:
    """Run every block of ``page`` in order; (blocks run, problems: one per failing block)."""
    problems: list[str] = []
    ran = 0
    printed = None  # what the last python block printed
    for block in blocks(page):
        d = block.directives
        if "skip" in d or "tested-by" in d:
            continue
        if "output" in d:
            if printed is None:
                problems.append(f"{block.where}: an output block after no python block that ran")
                continue
            missing = missing_lines(block.body.split("\n"), printed)
            if missing:
                problems.append(
                    f"{block.where}: the python block does not print today:\n"
                    + "\n".join(missing)
                    + "\n--- it printed:\n"
                    + printed
                )
            continue
        if "file" in d:
            target = workspace.dir / d["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            if "check" in d:  # a command that must accept the file (a catalog loads, a config is valid)
                ran += 1
                done = workspace.shell(d["check"], block.columns)
                if done.returncode != int(d.get("exit", "0")):
                    problems.append(f"{block.where}: `{d['check']}` exited {done.returncode}:\n{done.stderr[-2000:]}")
            continue
        if "edit" in d:
            apply_edit(workspace.dir / d["edit"], block.body)
            continue
        if block.kind not in RUN_KINDS:
            continue
        if needs_shared(block) and not SHARED.is_dir():
            continue
        ran += 1
        problem = run_block(block, workspace)
        printed = workspace.last_stdout if block.kind == "python" else None
        if problem:
            problems.append(f"{block.where}: {problem}")
    return ran, problems


def run_block(block: Block, workspace: Workspace) -> str | None:
    d = block.directives
    if block.kind == "python":
        script = workspace.dir / f"_example_{block.line}.py"
        script.write_text(workspace.to_registry(block.body), encoding="utf-8")
        done = workspace.shell(f'"{sys.executable}" {script.name}', block.columns)
        workspace.last_stdout = workspace.from_registry(done.stdout)
        return None if done.returncode == 0 else f"exit {done.returncode}: {done.stderr[-2000:]}"
    if block.kind in ("bash", "sh"):
        done = workspace.shell("set -e\n" + block.body, block.columns)
        return None if done.returncode == 0 else f"exit {done.returncode}: {done.stderr[-2000:]}"
    expected_code = int(d.get("exit", "0"))
    drop = int(d["drop-column"]) if "drop-column" in d else None
    for command, shown in commands(block):
        done = workspace.shell(command, block.columns)
        printed = workspace.from_registry(done.stdout + "\n" + done.stderr)
        if done.returncode != expected_code:
            return f"`{command}` exited {done.returncode}, not {expected_code}:\n{printed[-2000:]}"
        missing = missing_lines(shown, printed, drop)
        if missing:
            return f"`{command}` does not print today:\n" + "\n".join(missing) + "\n--- it printed:\n" + printed
    return None
