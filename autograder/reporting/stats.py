"""The statistics the class report and the exports share: per question (`question_stats`, with the
item analysis: facility and discrimination) and per named misconception (`misconception_stats`),
from `autograder.reporting.classdata.ClassData`."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from rnnkit import messages
from rnnkit.checking import FLOAT32_PRECISION, FLOAT_WHERE_EXACT

from ..assignments import ALL
from .classdata import EPS, ClassData, Row


@dataclass(frozen=True)
class QuestionStats:
    """One graded cell across the class: its mean, full marks, zeros and points lost over the cells
    graded; the cells that await a TA apart (never lost)."""

    assignment: str
    grade_id: str
    max_score: float
    submissions: int
    #: the mean score of the graded cells, None where every cell awaits a TA
    mean: float | None
    full_marks: int
    zeros: int
    lost: float
    #: points lost on this check by submissions that worked on it where no catalogued misconception
    #: was named
    lost_uncatalogued: float
    #: the students who lost them
    uncatalogued: tuple[str, ...]
    #: points lost on this check by submissions whose function is still the stub
    lost_not_started: float
    #: the students who did not start it
    not_started: tuple[str, ...]
    #: points of this cell that await a TA (a written answer or a flagged cell not graded yet)
    points_awaiting: float
    #: the students whose cell awaits a TA
    awaiting: tuple[str, ...]
    #: the mean share of the cell's points over the cells graded (1: every one at full marks), None
    #: where none is graded
    facility: float | None
    #: the corrected item-total correlation (`discrimination`) over the cells graded, None where it
    #: is not defined
    discrimination: float | None

    @property
    def graded(self) -> int:
        """The submissions whose cell is graded (not awaiting a TA)."""
        return self.submissions - len(self.awaiting)

    @property
    def full_share(self) -> float | None:
        """The share of the graded cells at full marks, None where none is graded."""
        return self.full_marks / self.graded if self.graded else None


def question_stats(data: ClassData, assignment: str) -> list[QuestionStats]:
    """Per graded cell of `assignment`, over the submissions with a grade (a hand-in refused before
    any grade, or not graded yet, has none to count): the mean, full marks, zeros and points lost of
    the cells graded, those lost outside the catalogue kept apart from those lost on a check not
    started (a stub); and apart from them the points of the cells that await a TA."""
    by_question: dict[str, list[Row]] = defaultdict(list)
    totals: dict[str, float] = defaultdict(float)  # student -> the points of the cells graded
    for row in data.graded_rows_of(assignment):
        by_question[row.grade_id].append(row)
        if not row.needs_manual:
            totals[row.student] += row.score
    stats = []
    for grade_id, maximum in data.questions.get(assignment, []):
        rows = by_question.get(grade_id, [])
        graded = [row for row in rows if not row.needs_manual]
        waiting = [row for row in rows if row.needs_manual]
        outside = [row for row in graded if row.lost > EPS and not row.misconceptions and not row.not_started]
        idle = [row for row in graded if row.not_started]
        stats.append(
            QuestionStats(
                assignment,
                grade_id,
                maximum,
                len(rows),
                sum(row.score for row in graded) / len(graded) if graded else None,
                sum(1 for row in graded if row.score >= row.max_score - EPS and row.max_score > 0),
                sum(1 for row in graded if row.score <= EPS),
                sum(row.lost for row in graded),
                sum(row.lost for row in outside),
                tuple(sorted(row.student for row in outside)),
                sum(row.lost for row in idle),
                tuple(sorted(row.student for row in idle)),
                sum(row.awaiting for row in waiting),
                tuple(sorted(row.student for row in waiting)),
                math.fsum(row.score for row in graded) / (maximum * len(graded)) if graded and maximum > 0 else None,
                discrimination([row.score for row in graded], [totals[row.student] - row.score for row in graded]),
            )
        )
    return stats


#: Fewer students than this give no discrimination.
FEWEST = 3


def discrimination(item: list[float], rest: list[float]) -> float | None:
    """The corrected item-total correlation: Pearson's r between each student's score on one check
    (`item`) and their score on the rest of the assignment (`rest`, the check left out), the
    point-biserial correlation where the check is right or wrong. Near 0 or below, the check does not
    tell stronger work from weaker. None for fewer than FEWEST students or where either has no spread."""
    if len(item) < FEWEST:
        return None
    mean_item, mean_rest = math.fsum(item) / len(item), math.fsum(rest) / len(rest)
    dx, dy = [x - mean_item for x in item], [y - mean_rest for y in rest]
    sxx, syy = math.fsum(d * d for d in dx), math.fsum(d * d for d in dy)
    if sxx <= EPS or syy <= EPS:
        return None
    return math.fsum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy)


@dataclass(frozen=True)
class MisconceptionStats:
    """One catalogued misconception as the class showed it."""

    id: str
    text: str
    students: tuple[str, ...]
    checks: tuple[tuple[str, int], ...]  # (grade id, students), in notebook order


def _texts(assignment: str) -> dict[str, str]:
    """Misconception id -> its explanation in the course language: the assignment's catalogue, and
    the kit's own diagnoses (a float where an exact value is due, float32 arithmetic)."""
    own = {name: messages.text(f"mistake.{name}") for name in (FLOAT_WHERE_EXACT, FLOAT32_PRECISION)}
    spec = ALL.get(assignment)  # a gradebook may hold an assignment the course no longer has
    return {**own, **{entry.id: entry.text for entry in spec.mistakes()}} if spec else own


def misconception_stats(data: ClassData, assignment: str) -> list[MisconceptionStats]:
    """The misconceptions named in `assignment`, most students first, each with its explanation once."""
    students: dict[str, set[str]] = defaultdict(set)
    per_check: dict[str, Counter] = defaultdict(Counter)
    for row in data.graded_rows_of(assignment):
        for name in dict.fromkeys(row.misconceptions):
            students[name].add(row.student)
            per_check[name][row.grade_id] += 1
    order = {g: i for i, (g, _) in enumerate(data.questions.get(assignment, []))}
    texts = _texts(assignment)
    found = [
        MisconceptionStats(
            name,
            texts.get(name, ""),
            tuple(sorted(who)),
            tuple(sorted(per_check[name].items(), key=lambda item: order.get(item[0], len(order)))),
        )
        for name, who in students.items()
    ]
    return sorted(found, key=lambda m: (-len(m.students), m.id))
