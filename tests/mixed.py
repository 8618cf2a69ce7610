"""A mixed class of one assignment, as a large course hands in: one in ten the stub, three in ten a
catalogued mistake (in turn), the rest the reference, and, where asked, the hostile submissions of
`tests.hostile` besides, under short limits (`SHORT`: a loop costs seconds, not the course's two
minutes per cell). Used by tests/test_scale.py and benchmarks/autograde.py."""

from __future__ import annotations

from pathlib import Path

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import release

from .conftest import make_course

#: The limits of a mixed class: the test class's (tests/classroom.py), with the course's hidden cases.
SHORT = "\nCELL_TIMEOUT = 5\nCALL_TIMEOUT = 1\nSUBMISSION_TIMEOUT = 20\n"


def mixed_class(folder: Path, assignment: str, students: int, hostile: bool = False) -> Path:
    """A released course in `folder` with `students` submissions of `assignment` (`student0000`...),
    and the hostile ones besides where `hostile` (ch12_bptt only)."""
    from . import hostile as attacks

    root = make_course(folder, [assignment])
    with (root / "course_config.py").open("a") as handle:
        handle.write(SHORT)
    release(root, [assignment])
    spec, notebook = get(assignment), root / "release" / assignment / f"{assignment}.ipynb"
    mistakes, made = spec.mistakes(), {}
    for index in range(students):
        kind = index % 10
        which = mistakes[index % len(mistakes)] if 1 <= kind <= 3 else None
        if kind and which not in made:
            made[which] = filled(notebook, spec, *([which] if which else []))
        write_submission(root, f"student{index:04d}", assignment, made[which] if kind else None)
    if hostile:
        attacks.write_all(root)
    return root
