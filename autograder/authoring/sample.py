"""The bundled sample class: one reference, one untouched stub, and three typical mistakes.

The same five students hand in every assignment: `ada` the reference solution, `ben` the stub,
and `chen`, `dana`, `eli` the first, second and third catalogued mistake of each assignment.
"""

from __future__ import annotations

from pathlib import Path

from ..assignments import get
from ..coursedir.layout import Course
from .submissions import filled, write_submission

REFERENCE, STUB = "ada", "ben"
WITH_MISTAKES = ("chen", "dana", "eli")


def write_sample_class(root: Path, assignment: str) -> dict[str, str]:
    """Write the sample submissions of one released assignment; student -> what they handed in."""
    course, spec = Course(Path(root)), get(assignment)
    notebook = course.notebook(course.release(assignment), assignment)
    write_submission(root, REFERENCE, assignment, filled(notebook, spec))
    write_submission(root, STUB, assignment, None)
    handed_in = {REFERENCE: "reference solution", STUB: "untouched stub"}
    for student, entry in zip(WITH_MISTAKES, spec.mistakes()):
        write_submission(root, student, assignment, filled(notebook, spec, entry))
        handed_in[student] = f"mistake {entry.id}"
    return handed_in
