"""The feedback's expected values: shown only where the course allows it.

A grade cell of the autograded notebook shows the first wrong hidden case with its inputs and the
student's own value; its expected value is kept in the cell's result (`autograder.grading.result.GradeResult`) and
added to the feedback by `RevealExpected`, as `course_config.FEEDBACK_SHOWS_EXPECTED` says:

- "never": the feedback never shows a hidden case's expected value;
- "after_due": only once the submission's due date (nbgrader's, extensions included) has passed,
  so feedback generated before then shows none (generate it again after the due date to add them);
  an assignment without a due date shows none;
- "always": every feedback shows them.

A later attempt draws other cases (`autograder.grading.attempts`), so no shown value answers it.
"""
from __future__ import annotations

import datetime

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum, Unicode

from rnnkit import messages

from ..coursedir.settings import FEEDBACK_POLICIES as POLICIES, Settings
from .result import GradeResult, HiddenFailure


def allows(policy: str, duedate: datetime.datetime | None, now: datetime.datetime) -> bool:
    """Whether feedback made at `now` (naive UTC, as nbgrader stores times) shows expected values."""
    if policy not in POLICIES:
        raise ValueError(f"FEEDBACK_SHOWS_EXPECTED is {policy!r}; it must be one of: {', '.join(POLICIES)}")
    return policy == "always" or (policy == "after_due" and duedate is not None and now > duedate)


class RevealExpected(NbGraderPreprocessor):
    """In `nbgrader generate_feedback`: add the expected value of each grade cell's shown hidden case
    where the policy allows it."""

    shows_expected = Enum(POLICIES, Settings.FEEDBACK_SHOWS_EXPECTED, help=Settings.help("FEEDBACK_SHOWS_EXPECTED")).tag(config=True)
    course_id = Unicode("default_course", help="nbgrader's course id, to read the gradebook.").tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        about = resources["nbgrader"]
        with Gradebook(about["db_url"], self.course_id) as gradebook:
            try:
                duedate = gradebook.find_submission(about["assignment"], about["student"]).duedate
            except MissingEntry:
                duedate = None
        if allows(self.shows_expected, duedate, datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)):
            for cell in nb.cells:
                self._reveal(cell)
        return nb, resources

    @staticmethod
    def _reveal(cell: nbformat.NotebookNode) -> None:
        outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
        result = GradeResult.in_outputs(outputs)
        failure = result.hidden_failure if result else None
        report = next((out for out in outputs if out.output_type == "stream" and out.name == "stdout"), None)
        if failure and report is not None:
            report.text = below_inputs(report.text, failure)


def below_inputs(text: str, failure: HiddenFailure) -> str:
    """The cell's report `text` with the expected value of its shown hidden case right below that
    case's inputs (at the end where the inputs are not shown)."""
    lines = text.rstrip("\n").split("\n")
    block = messages.wrap("    " + messages.text("check.hidden_case_inputs", inputs=failure.inputs))
    at = next((i + len(block) for i in range(len(lines)) if failure.inputs and lines[i:i + len(block)] == block), len(lines))
    return "\n".join([*lines[:at], *messages.wrap("    " + failure.expected), *lines[at:]]) + "\n"
