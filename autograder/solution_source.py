"""Reading the reference solution modules (`solutions/<assignment>.py`) as source text."""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path
from types import CodeType

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def _stamp(path: Path) -> tuple[str, int, int]:
    info = path.stat()
    return str(path), info.st_mtime_ns, info.st_size


def function_sources(path: Path) -> dict[str, str]:
    """Top-level function name -> its exact source text (markers included), in file order, of the
    reference solution module at `path` (an assignment's `Assignment.solutions`; read once per
    version of the file)."""
    return dict(_function_sources(_stamp(path)))


def compiled(path: Path) -> CodeType:
    """The reference solution module at `path`, compiled (once per version of the file)."""
    return _compiled(_stamp(path))


@lru_cache(maxsize=32)
def _compiled(stamp: tuple[str, int, int]) -> CodeType:
    return compile(Path(stamp[0]).read_text(encoding="utf-8"), stamp[0], "exec")


@lru_cache(maxsize=32)
def _function_sources(stamp: tuple[str, int, int]) -> dict[str, str]:
    text = Path(stamp[0]).read_text(encoding="utf-8")
    lines = text.splitlines()
    body = ast.parse(text).body
    sources = {}
    for node, following in zip(body, [*body[1:], None]):
        if isinstance(node, ast.FunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            stop = (min([following.lineno, *(d.lineno for d in getattr(following, "decorator_list", []))]) - 1) if following else len(lines)
            # the function runs on to its trailing comment lines (### END SOLUTION), not to the blanks
            chunk = lines[start:stop]
            while chunk and (not chunk[-1].strip() or not chunk[-1].startswith((" ", "\t"))):
                chunk.pop()
            sources[node.name] = "\n".join(chunk)
    return sources


def strip_markers(source: str) -> str:
    """Solution source as a student would submit it: the marker lines removed."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))
