"""The feedback's expected values: shown only where the course allows it.

A grade cell of the autograded notebook shows the first wrong hidden case with its inputs and the
student's own value; its expected value is kept in the cell's result (`autograder.grading.result.GradeResult`) and
added to the feedback by `RevealExpected`, as `course_config.FEEDBACK_SHOWS_EXPECTED` says:

- "never": the feedback never shows a hidden case's expected value;
- "public": the book's cases only: neither a hidden case's inputs nor its expected value;
- "after_due": only once the submission's due date (nbgrader's, extensions included) has passed,
  so feedback generated before then shows none (generate it again after the due date to add them);
  an assignment without a due date shows none;
- "always": every feedback shows them.

An assignment's `feedback` in `course_config.TERM` takes the place of the course's setting.
A later attempt draws other cases (`autograder.grading.attempts`), so no shown value answers it.
"""

from __future__ import annotations

import datetime

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum, Instance

from rnnkit import messages

from ..coursedir.settings import FEEDBACK_POLICIES as POLICIES
from ..coursedir.settings import Settings
from .result import GradeResult, HiddenFailure


def allows(policy: str, duedate: datetime.datetime | None, now: datetime.datetime) -> bool:
    """Whether feedback made at `now` (naive UTC, as nbgrader stores times) shows expected values."""
    if policy not in POLICIES:
        raise ValueError(f"FEEDBACK_SHOWS_EXPECTED is {policy!r}; it must be one of: {', '.join(POLICIES)}")
    return policy == "always" or (policy == "after_due" and duedate is not None and now > duedate)


def policy_of(settings: Settings, assignment: str, course_policy: str | None = None) -> str:
    """What the feedback of `assignment` shows: its own `feedback` in TERM, else `course_policy`
    (default: the course's FEEDBACK_SHOWS_EXPECTED)."""
    return settings.TERM.get(assignment, {}).get("feedback") or course_policy or settings.FEEDBACK_SHOWS_EXPECTED


class RevealExpected(NbGraderPreprocessor):
    """In `nbgrader generate_feedback`: add the expected value of each grade cell's shown hidden case
    where the policy allows it."""

    shows_expected = Enum(
        POLICIES, Settings.FEEDBACK_SHOWS_EXPECTED, help=Settings.help("FEEDBACK_SHOWS_EXPECTED")
    ).tag(config=True)
    settings = Instance(
        Settings, kw={}, help="The course's settings: an assignment's own `feedback` in TERM, the course id."
    ).tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        about = resources["nbgrader"]
        policy = policy_of(self.settings, about["assignment"], self.shows_expected)
        with Gradebook(about["db_url"], self.settings.COURSE_ID) as gradebook:
            try:
                duedate = gradebook.find_submission(about["assignment"], about["student"]).duedate
            except MissingEntry:
                duedate = None
        show = allows(policy, duedate, datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None))
        for cell in nb.cells:
            self._reveal(cell, below_inputs if show else without_inputs if policy == "public" else None)
        return nb, resources

    @staticmethod
    def _reveal(cell: nbformat.NotebookNode, edit) -> None:
        outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
        result = GradeResult.in_outputs(outputs)
        failure = result.hidden_failure if result else None
        report = next((out for out in outputs if out.output_type == "stream" and out.name == "stdout"), None)
        if edit and failure and report is not None:
            report.text = edit(report.text, failure)


def _inputs_at(lines: list[str], failure: HiddenFailure) -> tuple[int, int]:
    """Where the inputs of the shown hidden case are among a report's `lines`: (start, end); an
    empty span at the end where they are not shown."""
    block = messages.wrap("    " + messages.text("check.hidden_case_inputs", inputs=failure.inputs))
    at = next((i for i in range(len(lines)) if failure.inputs and lines[i : i + len(block)] == block), None)
    return (at, at + len(block)) if at is not None else (len(lines), len(lines))


def without_inputs(text: str, failure: HiddenFailure) -> str:
    """The cell's report `text` without the inputs of its shown hidden case (the "public" policy)."""
    lines = text.rstrip("\n").split("\n")
    start, end = _inputs_at(lines, failure)
    return "\n".join([*lines[:start], *lines[end:]]) + "\n"


def below_inputs(text: str, failure: HiddenFailure) -> str:
    """The cell's report `text` with the expected value of its shown hidden case right below that
    case's inputs (at the end where the inputs are not shown)."""
    lines = text.rstrip("\n").split("\n")
    at = _inputs_at(lines, failure)[1]
    return "\n".join([*lines[:at], *messages.wrap("    " + failure.expected), *lines[at:]]) + "\n"
