"""The figures of the reference run, kept in the course root: each assignment's PNGs by key.

`release` runs the source notebook (the reference solution) in a runner once (`record`) and keeps
the PNG of every figure it draws under that figure's key (`rnnkit.figures`), in
`.cache/figures/<assignment>.json` with the SHA-256 of the source notebook it came from. At
grading, a runner is told those keys: a submission that draws the same figure sends a marker in
place of drawing it, and the grader puts the kept PNG back. A file whose notebook digest is not the
source notebook's is not used (`autograde` records it again first).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

import nbformat

from rnnkit import figures, messages

from ..coursedir.layout import Course
from ..sandbox.session import Session
from ..vocabulary.spec import SUMMARY, Assignment


def path(root: str | os.PathLike, name: str) -> Path:
    return Path(root) / ".cache" / "figures" / f"{name}.json"


def _digest(notebook: Path) -> str:
    return hashlib.sha256(notebook.read_bytes()).hexdigest()


def source_notebook(root: str | os.PathLike, name: str) -> Path:
    course = Course(Path(root))
    return course.notebook(course.source(name), name)


def save(root: str | os.PathLike, name: str, drawn: dict[str, str]) -> Path:
    """Keep the PNGs `drawn` (key -> base64 PNG) of the reference run of `name`'s source notebook."""
    target = path(root, name)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    record = {"notebook": _digest(source_notebook(root, name)), "figures": dict(sorted(drawn.items()))}
    partial.write_text(json.dumps(record), encoding="utf-8")
    os.replace(partial, target)
    return target


def load(root: str | os.PathLike, name: str) -> dict[str, str] | None:
    """The kept PNGs of `name` by key; None when none are kept for its current source notebook."""
    kept, notebook = path(root, name), source_notebook(root, name)
    try:
        stamps = tuple((p.stat().st_mtime_ns, p.stat().st_size) for p in (kept, notebook))
    except OSError:
        return None
    return _read(str(kept), str(notebook), stamps)


@functools.lru_cache(maxsize=16)
def _read(kept: str, notebook: str, stamps: tuple) -> dict[str, str] | None:
    try:
        record = json.loads(Path(kept).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(record, dict)
        or record.get("notebook") != _digest(Path(notebook))
        or not isinstance(record.get("figures"), dict)
    ):
        return None
    return {key: png for key, png in record["figures"].items() if figures.is_key(key) and isinstance(png, str)}


def record(root: Path, spec: Assignment) -> Path:
    """Run the source notebook of `spec` (the reference solution) in a runner, every cell that a
    submission's runner runs, and keep the PNG of each figure it draws."""
    course = Course(Path(root))
    notebook = nbformat.read(source_notebook(root, spec.name), as_version=4)
    graders = {check.name for check in spec.graded} | {SUMMARY}  # the cells whose outputs the grader writes
    drawn: dict[str, str] = {}
    with Session(course.release(spec.name), course.settings.limits, messages.language()) as session:
        for cell in notebook.cells:
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id") not in graders:
                session.run_cell(cell.source, drawn)
    return save(root, spec.name, drawn)
