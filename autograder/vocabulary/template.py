"""An assignment's notebook template (`notebook.md`): its cells, and the reference solution it holds.

`notebook.md` is a list of cells, each opened by a directive line:

    %% markdown            teaching text
    %% zh                  the Chinese of the markdown or written cell just above it
    %% setup               read-only code (imports, `check = checker(...)`, given helpers)
    %% code                ordinary code (tables, plots); runs the student's functions
    %% exercise f [g ...]  one exercise: its body is the reference solution of f, g (each function
                           with its docstring and its `### BEGIN SOLUTION` / `### END SOLUTION`
                           region), the solution cell released as the stub; then the test cell of
                           each of f, g
    %% written name        a written answer graded by hand; its body is the rubric, the book's
                           reference answer

Inside setup and code cells a line `%include package.module:function` is replaced by that
function's source, so a helper given to students is written once.

The reference solution module is the template's setup cells (without the notebook's own lines) and its
exercise bodies, in order: the notebook a student who got everything right hands in, which the
catalogue's mistakes are run inside (`autograder.vocabulary.catalogue`). The solution lives in one
place, the cell that is released.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import linecache
import re
from functools import lru_cache
from pathlib import Path
from types import CodeType, ModuleType

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
#: The setup cell's line that imports the kit's notebook helpers.
KIT_IMPORT = "from rnnkit import checker, uses_your_functions"
#: The setup lines that serve the notebook alone (its checks and its plots), left out of the
#: reference solution module.
NOTEBOOK_ONLY = (KIT_IMPORT, "import matplotlib.pyplot as plt", "check = checker(")

Cell = tuple[str, list[str], str]


def parse(text: str) -> list[Cell]:
    """The template's cells as (kind, arguments, body); an exercise as its solution cell (body: the
    solution) and one test cell per function (kind `check`)."""
    cells, kind, args, body = [], None, [], []
    for line in text.splitlines():
        if line.startswith("%% "):
            if kind:
                cells.append((kind, args, "\n".join(body).strip("\n")))
            kind, *args = line[3:].split()
            body = []
        elif kind is None:
            if line.strip():
                raise ValueError(f"text before the first %% directive: {line!r}")
        else:
            body.append(line)
    if kind:
        cells.append((kind, args, "\n".join(body).strip("\n")))
    return [cell for kind, args, body in cells for cell in _expanded(kind, args, body)]


def _expanded(kind: str, args: list[str], body: str) -> list[Cell]:
    if kind in ("solution", "check"):
        raise ValueError(
            f"%% {kind} {' '.join(args)}: write %% exercise {' '.join(args)} (the solution cell and its checks)"
        )
    if kind != "exercise":
        return [(kind, args, body)]
    defined = [node.name for node in ast.parse(body).body if isinstance(node, ast.FunctionDef)] if args else []
    if not args or defined != args:
        raise ValueError(
            f"%% exercise {' '.join(args)}: name one or more solution functions and define exactly those under it, "
            f"in that order (it defines {defined})"
        )
    return [("solution", args, body), *(("check", [name], "") for name in args)]


def expand_includes(body: str) -> str:
    """Replace each `%include module:function` line by the function's source."""
    lines = []
    for line in body.splitlines():
        if line.startswith("%include "):
            module, name = line.split(None, 1)[1].split(":")
            lines.append(inspect.getsource(getattr(importlib.import_module(module), name)).rstrip("\n"))
        else:
            lines.append(line)
    return "\n".join(lines)


def _stamp(path: Path) -> tuple[str, int, int]:
    info = path.stat()
    return str(path), info.st_mtime_ns, info.st_size


def function_sources(path: Path) -> dict[str, str]:
    """Solution function name -> its exact source text (markers included), in notebook order, of the
    template at `path` (read once per version of the file)."""
    return dict(_function_sources(_stamp(path)))


def compiled(path: Path) -> CodeType:
    """The reference solution module of the template at `path`, compiled (once per version)."""
    return _compiled(_stamp(path))


def module(path: Path) -> ModuleType:
    """The reference solution module of the template at `path`, run (once per version): what a
    mistake calls as the right version of another function, and what tests call."""
    return _module(_stamp(path))


def module_text(path: Path) -> str:
    """The reference solution module's source: the setup cells without the lines that serve the
    notebook alone (`NOTEBOOK_ONLY`; a given helper imported where the notebook includes its
    source), then the solution cells."""
    parts = []
    for kind, _, body in parse(Path(path).read_text(encoding="utf-8")):
        if kind == "setup":
            kept = "\n".join(_imported(line) for line in body.splitlines() if not line.startswith(NOTEBOOK_ONLY))
            parts.append(re.sub(r"\n{3,}", "\n\n", kept).strip("\n"))
        elif kind == "solution":
            parts.append(body)
    return "\n\n\n".join(part for part in parts if part) + "\n"


def _imported(line: str) -> str:
    """A setup line as the solution module has it: an `%include module:function` as its import."""
    if not line.startswith("%include "):
        return line
    module, name = line.split(None, 1)[1].split(":")
    return f"from {module} import {name}"


@lru_cache(maxsize=32)
def _compiled(stamp: tuple[str, int, int]) -> CodeType:
    text, name = module_text(Path(stamp[0])), f"<solution of {stamp[0]}>"
    linecache.cache[name] = (len(text), None, text.splitlines(keepends=True), name)  # for tracebacks and inspect
    return compile(text, name, "exec")


@lru_cache(maxsize=32)
def _module(stamp: tuple[str, int, int]) -> ModuleType:
    solution = ModuleType(f"solution_of_{Path(stamp[0]).parent.name}")
    exec(_compiled(stamp), vars(solution))
    return solution


@lru_cache(maxsize=32)
def _function_sources(stamp: tuple[str, int, int]) -> dict[str, str]:
    sources = {}
    for kind, _, body in parse(Path(stamp[0]).read_text(encoding="utf-8")):
        if kind == "solution":
            sources.update(_split(body))
    return sources


def _split(text: str) -> dict[str, str]:
    """The top-level functions of one solution cell by name, each running on to its trailing
    comment lines (### END SOLUTION), not to the blanks."""
    lines = text.splitlines()
    body = ast.parse(text).body
    sources = {}
    for node, following in zip(body, [*body[1:], None]):
        if isinstance(node, ast.FunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            stop = (
                (min([following.lineno, *(d.lineno for d in getattr(following, "decorator_list", []))]) - 1)
                if following
                else len(lines)
            )
            chunk = lines[start:stop]
            while chunk and (not chunk[-1].strip() or not chunk[-1].startswith((" ", "\t"))):
                chunk.pop()
            sources[node.name] = "\n".join(chunk)
    return sources


def strip_markers(source: str) -> str:
    """Solution source as a student would submit it: the marker lines removed."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))
