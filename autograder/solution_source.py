"""Reading the reference solution modules (`solutions/<assignment>.py`) as source text."""
from __future__ import annotations

import ast
from pathlib import Path

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def function_sources(path: Path) -> dict[str, str]:
    """Top-level function name -> its exact source text (markers included), in file order, of the
    reference solution module at `path` (an assignment's `Assignment.solutions`)."""
    text = path.read_text(encoding="utf-8")
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
