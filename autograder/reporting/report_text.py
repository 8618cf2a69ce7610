"""The score table the CLI prints (`score_table`): plain text, one line per student and assignment,
columns aligned by display width, headers and states in the course language; and `failed_lines`,
one line per submission whose last autograde failed.
"""

from __future__ import annotations

from collections import defaultdict

from rnnkit.messages import display_width

from ..labels import label
from .classdata import GRADED, NOT_SUBMITTED, RECEIVED, REFUSED, ClassData, Points, Row, points

#: The score table's word for each state.
STATE_LABELS = {
    NOT_SUBMITTED: "table.state.not_submitted",
    RECEIVED: "table.state.received",
    GRADED: "table.state.graded",
    REFUSED: "table.state.refused",
}


def _pad(text: str, width: int, right: bool = False) -> str:
    """`text` padded with spaces to `width` columns."""
    space = " " * max(0, width - display_width(text))
    return space + text if right else text + space


def _aligned(lines: list[list[str]], right: set[int]) -> str:
    """Lines of cells as text columns two spaces apart, the columns `right` right-aligned and the
    last one as it is."""
    widths = [max(map(display_width, column)) for column in zip(*lines)]
    return "\n".join(
        "  ".join(
            [*(_pad(cell, width, i in right) for i, (cell, width) in enumerate(zip(cells[:-1], widths))), cells[-1]]
        )
        for cells in lines
    )


def failed_lines(data: ClassData) -> list[str]:
    """One line per submission whose last autograde failed, with the reason."""
    return [
        label("table.last_attempt_failed", submission=f"{a}/{s}", reason=sub.failed)
        for (a, s), sub in sorted(data.submissions.items())
        if sub.failed
    ]


def _named(rows: list[Row]) -> dict[tuple[str, str], list[str]]:
    """(assignment, student) -> the misconceptions named in that submission, each once, in order."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in rows:
        found[(row.assignment, row.student)] += [
            m for m in row.misconceptions if m not in found[(row.assignment, row.student)]
        ]
    return found


def _split(found: Points | None) -> list[str]:
    """The score table's cells of a submission's points: autograded (x/y), by a TA (x/y) and
    awaiting a TA (y), "-" where there are none."""
    found = found or Points()
    return [
        f"{found.auto:.2f}/{found.auto_max:.1f}" if found.auto_max else "-",
        f"{found.by_ta:.2f}/{found.by_ta_max:.1f}" if found.by_ta_max else "-",
        f"{found.awaiting:.1f}" if found.awaiting else "-",
    ]


def score_table(data: ClassData | list[Row], term: ClassData | None = None) -> str:
    """A plain-text table: one line per student and assignment, with the points the autograder gave
    of those it grades, the points a TA gave of those a TA graded, the points that await a TA, and
    the misconceptions named (headers in the course language).

    Given the class (`ClassData`), every student of the roster and assignment, with its state (not
    submitted, received and not yet graded, graded, refused), the raw score, the late penalty, the
    final grade and the days late; given graded cells alone, the graded submissions, and where `term`
    (their class) gives one of their assignments a due date, each one's late penalty and final grade."""
    if isinstance(data, ClassData):
        return _class_table(data)
    found, named = points(data), _named(data)
    dated = term is not None and any(term.duedates.get(assignment) for assignment, _ in found)
    extra = ("penalty", "final") if dated else ()
    lines = [
        [
            label(f"table.{column}")
            for column in ("student", "assignment", "autograded", "by_ta", "awaiting", *extra, "misconceptions")
        ]
    ]
    for assignment, student in sorted(found, key=lambda key: (key[1], key[0])):
        sub = term.submissions.get((assignment, student)) if dated else None
        late = [f"{sub.penalty:.2f}", f"{sub.score:.2f}"] if sub is not None and sub.graded else ["-"] * len(extra)
        misconceptions = ", ".join(named[(assignment, student)]) or "-"
        lines.append([student, assignment, *_split(found[(assignment, student)]), *late, misconceptions])
    return _aligned(lines, set(range(2, 5 + len(extra))))


def _class_table(data: ClassData) -> str:
    """`score_table` of the whole class."""
    found, named = points(data.rows), _named(data.rows)
    lines = [
        [
            label(f"table.{column}")
            for column in (
                "student",
                "assignment",
                "state",
                "raw",
                "penalty",
                "final",
                "days_late",
                "autograded",
                "by_ta",
                "awaiting",
                "misconceptions",
            )
        ]
    ]
    for student in data.students:
        for assignment in data.assignments:
            sub = data.submissions.get((assignment, student.id))
            numbers = (
                [f"{sub.raw_score:.2f}", f"{sub.penalty:.2f}", f"{sub.score:.2f}", str(sub.days_late or "-")]
                if sub is not None and sub.graded
                else ["-"] * 4
            )
            lines.append(
                [
                    student.id,
                    assignment,
                    label(STATE_LABELS[data.state(assignment, student.id)]),
                    *numbers,
                    *_split(found.get((assignment, student.id))),
                    ", ".join(named.get((assignment, student.id), [])) or "-",
                ]
            )
    return _aligned(lines, set(range(3, 10)))
