"""Submissions built from the released notebook: the reference, the untouched stub, and mutants.

A mutant is the reference solution with a catalogued mistake pasted in place of the function it
replaces - what a student with that misconception would hand in (or with several, each in place
of its own function).
"""

from __future__ import annotations

import ast
import secrets
import shutil
from datetime import datetime, timezone
from pathlib import Path

import nbformat

from ..coursedir.layout import Course
from ..vocabulary import catalogue
from ..vocabulary.spec import Assignment
from ..vocabulary.template import strip_markers


def _defined(source: str) -> list[str]:
    return [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]


def filled(release_notebook: Path, spec: Assignment, *mistakes: catalogue.Mistake) -> nbformat.NotebookNode:
    """The released notebook of `spec` with every solution cell answered by the reference solution,
    except the functions the `mistakes` replace (one each), which get the mistaken code."""
    notebook = nbformat.read(release_notebook, as_version=4)
    replaced = {mistake.function: mistake for mistake in mistakes}
    if len(replaced) != len(mistakes):
        raise ValueError(f"two mistakes replace one function: {[mistake.id for mistake in mistakes]}")
    sources = spec.function_sources()
    for cell in notebook.cells:
        if cell.cell_type != "code" or not cell.metadata.get("nbgrader", {}).get("solution"):
            continue  # a written answer is the student's own words: left as released
        parts = []
        for name in _defined(cell.source):
            if name in replaced:
                parts.append(replaced[name].source())
            else:
                parts.append(strip_markers(sources[name]))
        cell.source = "\n\n\n".join(parts)
    return notebook


def write_submission(root: Path, student: str, assignment: str, notebook: nbformat.NotebookNode | None) -> Path:
    """Place a submission at `submitted/<student>/<assignment>/` beside the released files, with the
    `timestamp.txt` and `submission_secret.txt` that nbgrader's `submit` writes (its later steps,
    `release_feedback` among them, read them).

    `notebook=None` submits the released notebook untouched (the stub)."""
    course = Course(Path(root))
    release, target = course.release(assignment), course.submitted(student, assignment)
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(release, target)
    if notebook is not None:
        nbformat.write(notebook, target / f"{assignment}.ipynb")
    (target / "timestamp.txt").write_text(
        datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z"), encoding="utf-8"
    )
    (target / "submission_secret.txt").write_text(secrets.token_hex(64), encoding="utf-8")
    return target
