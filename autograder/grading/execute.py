"""nbgrader's execute step, with the grades made outside the student's process.

`TrustedExecute` takes the place of nbgrader's `Execute` in the autograde pipeline (wired in
`nbgrader_config.py` through `autograder.pipeline`). Student cells run in a sandboxed runner
(`autograder.sandbox.session`) and keep their real outputs, plots included. A grade cell is never run: the
grader runs its check here, calling the student's function in the runner, and writes the cell's
outputs itself - the report as text and the score as the cell's result, which nbgrader records as
partial credit. Whatever the student's code does to `check`, builtins or the stack, only the values
their functions return reach a grade. A crash, a loop or a killed runner costs the cells it touches;
a runner that cannot start, or a zygote without the isolation this machine gives
(`autograder.sandbox.zygote.RunnerBroken`), costs the student nothing: the submission is not graded.
"""

from __future__ import annotations

import functools
import traceback
from pathlib import Path

import jsonschema
import nbformat
from nbgrader.nbgraderformat import MetadataValidator, SchemaTooNewError, SchemaTooOldError, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Instance, Unicode

from rnnkit import messages
from rnnkit.selfcheck import SummaryItem, summary_lines

from ..assignments import get
from ..coursedir.layout import Course
from ..coursedir.ledger import Ledger
from ..coursedir.settings import Settings
from ..sandbox import timings
from ..sandbox.session import Session, preflight
from ..sandbox.zygote import RunnerBroken, zygote_channel
from ..vocabulary.spec import SUMMARY
from . import figures
from .attempts import Attempt, read_secret
from .checks import grade_traced
from .result import RESULT_KEY, GradeResult


class NoReceipt(RuntimeError):
    """A submission graded without a ledger receipt of its bytes: its attempt cannot be named."""


class SandboxUnavailable(RuntimeError):
    """No isolation on this machine, and `unsandboxed` was not allowed."""


def isolation_in_force(found: str | None, unsandboxed: bool, refusal: str | None = None) -> str:
    """The line that says how student code is isolated; raises SandboxUnavailable, naming the step
    the machine refused (`refusal`, `rnnkit.jail.refusal()`), where it gives no isolation (`found`
    None) and `unsandboxed` was not given."""
    if found is None and not unsandboxed:
        raise SandboxUnavailable(
            f"this machine gives no sandbox for student code{': ' + refusal if refusal else ''}; "
            "refusing to autograde - pass --unsandboxed to grade anyway"
        )
    return found or "none (unsandboxed: rlimits and a session of its own only)"


def runner_ready(limits, channel=None) -> None:
    """Before the first submission graded through a zygote (`channel`, else the one this process's
    graders are about to use): a runner of it starts under `limits` in the sandbox and runs a cell
    (`autograder.sandbox.session.preflight`, once a zygote); where it cannot, SandboxUnavailable says
    why in one line, and nothing is graded."""
    try:
        preflight(limits, messages.language(), channel)
    except RunnerBroken as broken:
        raise SandboxUnavailable(" ".join(f"{broken}; nothing was graded".split())) from None


class TrustedExecute(NbGraderPreprocessor):
    """Run student cells in the sandbox and score grade cells in the grader, under the course's
    limits (`settings`); the runner speaks the language this grader speaks (the course language
    its exporter speaks: `autograder.pipeline.CourseExporter`)."""

    settings = Instance(
        Settings,
        kw={},
        help="The course's settings (course_config.py): the limits of student code "
        "(`Settings.limits`), the hidden cases drawn, the course id.",
    ).tag(config=True)
    course_root = Unicode("", help="The course root (where the course secret is).").tag(config=True)
    unsandboxed = Bool(
        False,
        help="Grade even where this machine gives no isolation (student code then runs with "
        "only rlimits and its own session).",
    ).tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        spec = get(resources["nbgrader"]["assignment"])
        attempt = self._attempt(nb, resources)
        checks = _graded(spec)
        zygote = zygote_channel()
        self.log.info("sandbox: %s", isolation_in_force(zygote.verified(), self.unsandboxed, zygote.refusal))
        runner_ready(self.settings.limits, zygote)  # formgrader and plain nbgrader too: a broken runner grades nothing
        folder = Course(Path(self.course_root)).source(spec.name)  # the data files, never what was handed in
        count, right = 0, {}  # check -> the grader's SummaryItem, in notebook order
        known = figures.load(self.course_root, spec.name) if self.course_root else None
        with Session(folder, self.settings.limits, messages.language(), known) as session:
            if any(spec.check(name).probes for name in checks):
                session.for_probes()  # its runner replays each cell as the submission's runs the next
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                count += 1
                grade_id = _grade_id(cell)  # put back from the gradebook (sanitize.RestoreCellMetadata)
                if grade_id in checks:
                    cell.outputs = self._grade(spec, cell, session, attempt, count, right)
                elif grade_id == SUMMARY:
                    points = {
                        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"].get("points", 0))
                        for c in nb.cells
                        if c.metadata.get("nbgrader", {}).get("grade")
                    }  # from the gradebook (sanitize.RestoreCellMetadata)
                    text = (
                        "\n".join(
                            summary_lines(
                                {c.name: points.get(c.name, spec.points(c.name)) for c in spec.graded},
                                right,
                                {a.name: points.get(a.name, spec.points(a.name)) for a in spec.written},
                                graded=True,
                            )
                        )
                        + "\n"
                    )
                    cell.outputs = [_stream(text)]
                else:
                    cell.outputs = session.run_cell(cell.source)
                cell.execution_count = count
        return nb, resources

    def _attempt(self, nb: nbformat.NotebookNode, resources: dict) -> Attempt:
        """This submission's attempt: the course secret, the student, and the ledger's receipt of the
        bytes in submitted/ (recorded by admission before grading: `autograder.coursedir.ledger`)."""
        about = resources["nbgrader"]
        course = Course(Path(self.course_root))
        receipt = Ledger(about["db_url"], self.settings.COURSE_ID).current(
            about["assignment"], about["student"], course.submitted(about["student"], about["assignment"])
        )
        if receipt is None:
            raise NoReceipt(
                f"{about['assignment']} of {about['student']} has no receipt in the ledger: "
                "grade it with `python -m autograder autograde` or `nbgrader autograde`"
            )
        return Attempt(read_secret(self.course_root), about["student"], receipt.attempt, receipt.digest)

    def _grade(self, spec, cell, session: Session, attempt: Attempt, count: int, right: dict[str, SummaryItem]) -> list:
        name = cell.metadata["nbgrader"]["grade_id"]
        points = float(cell.metadata["nbgrader"].get("points", 0))
        try:
            check = spec.check(name)
            with timings.phase("checks"):
                report, traces = grade_traced(
                    spec,
                    check,
                    session.function(name, call=check.call),
                    attempt=attempt,
                    hidden=self.settings.HIDDEN_CASES,
                    timeout=0,
                    points=points,
                    functions=lambda other, call: session.function(other, call=call),
                )
        except Exception:  # noqa: BLE001 - one check the grader cannot finish costs that check, never the submission
            self.log.error("grading %s of %s failed:\n%s", name, attempt.student, traceback.format_exc())
            right[name] = SummaryItem(False, 0, 0, points, 0.0)
            return [
                nbformat.v4.new_output(
                    "error", ename="GradingError", evalue=messages.text("check.grader_failed", name=name), traceback=[]
                ),
                nbformat.v4.new_output(
                    "execute_result",
                    data={"text/plain": "0.0"},
                    metadata={RESULT_KEY: GradeResult(name, 0.0, points).to_json()},
                    execution_count=count,
                ),
            ]
        right[name] = SummaryItem.of(report, graded=True)
        return [
            _stream("\n".join(report.lines(graded=True, show_hidden=True)) + "\n"),
            nbformat.from_dict(
                {
                    "output_type": "execute_result",
                    "data": {"text/plain": repr(report.score)},
                    "metadata": {RESULT_KEY: GradeResult.of(report, points, traces).to_json()},
                    "execution_count": count,
                }
            ),
        ]


def _stream(text: str) -> nbformat.NotebookNode:
    """The grader's own stdout output, as `nbformat.v4.new_output` makes it but without its jsonschema
    run on each output (about 0.2 ms apiece): the grader's outputs are checked with the whole
    notebook, by the exporter after the pass and again when it is written."""
    return nbformat.from_dict({"output_type": "stream", "name": "stdout", "text": text})


def _grade_id(cell: nbformat.NotebookNode) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _graded(spec) -> set[str]:
    """The grade ids of the cells the grader scores (the graded checks); the summary is the grader's too."""
    return {check.name for check in spec.checks if check.graded}


class CheckCellMetadata(NbGraderPreprocessor):
    """nbgrader's `CheckCellMetadata` (the nbgrader metadata of every cell against its schema, unique
    grade ids), with the JSON schema itself checked once per process instead of once per cell: the
    same checks and errors, without re-validating the schema for each of a notebook's cells.
    `autograder.pipeline` puts it in place of nbgrader's in both autograde passes."""

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        try:
            _metadata_validator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources


class _SchemaChecked(BaseMetadataValidator):
    """`BaseMetadataValidator.validate_cell` with a validator built once from the checked schema
    (what `jsonschema.validate` builds on every call)."""

    def __init__(self) -> None:
        super().__init__()
        kind = jsonschema.validators.validator_for(self.schema)
        kind.check_schema(self.schema)
        self._schema_validator = kind(self.schema)

    def validate_cell(self, cell: nbformat.NotebookNode) -> None:
        if "nbgrader" not in cell.metadata:
            return
        schema = cell.metadata["nbgrader"].get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(
                f"Outdated schema version: {schema} (expected {self.schema_version})", schema, self.schema_version
            )
        if schema > self.schema_version:
            raise SchemaTooNewError(
                f"Schema version is too new: {schema} (expected {self.schema_version})", schema, self.schema_version
            )
        error = jsonschema.exceptions.best_match(self._schema_validator.iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class _MetadataValidator(MetadataValidator, _SchemaChecked):
    """nbgrader's current metadata validator, its schema step from `_SchemaChecked`."""


@functools.lru_cache(maxsize=None)
def _metadata_validator() -> _MetadataValidator:
    return _MetadataValidator()
