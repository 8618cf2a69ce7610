"""nbgrader's execute step, with the grades made outside the student's process.

`TrustedExecute` takes the place of nbgrader's `Execute` in the autograde pipeline (wired in
`nbgrader_config.py` through `autograder.pipeline`). Student cells run in a sandboxed runner
(`autograder.sandbox`) and keep their real outputs, plots included. A grade cell is never run: the
grader runs its check here, calling the student's function in the runner, and writes the cell's
outputs itself - the report as text and the score as the cell's result, which nbgrader records as
partial credit. Whatever the student's code does to `check`, builtins or the stack, only the values
their functions return reach a grade. A crash, a loop or a killed runner costs the cells it touches.
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
from traitlets import Bool, Float, Integer, Unicode

from rnnkit import messages
from rnnkit.selfcheck import SummaryItem, summary_lines

from . import config, figures
from .assignments import get
from .attempts import Attempt, cells_digest, read_secret
from .build import SUMMARY
from .checks import grade
from .gradebook import CourseGradebook
from .layout import Course
from .result import RESULT_KEY, GradeResult
from .sandbox import Budget, Limits, Session, zygote_channel
from .settings import Settings


class SandboxUnavailable(RuntimeError):
    """No isolation on this machine, and `unsandboxed` was not allowed."""


def isolation_in_force(found: str | None, unsandboxed: bool) -> str:
    """The line that says how student code is isolated; raises SandboxUnavailable where the
    machine gives no isolation (`found` None) and `unsandboxed` was not given."""
    if found is None and not unsandboxed:
        raise SandboxUnavailable("this machine gives no sandbox for student code (no user namespaces); "
                                 "refusing to autograde - pass --unsandboxed to grade anyway")
    return found or "none (unsandboxed: rlimits and a session of its own only)"


class TrustedExecute(NbGraderPreprocessor):
    """Run student cells in the sandbox and score grade cells in the grader."""

    # course_config.py's settings (`autograder.settings.Settings`: their defaults and descriptions)
    hidden_cases = Integer(Settings.HIDDEN_CASES, help=Settings.help("HIDDEN_CASES")).tag(config=True)
    call_timeout = Float(Settings.CALL_TIMEOUT, help=Settings.help("CALL_TIMEOUT")).tag(config=True)
    cell_timeout = Float(Settings.CELL_TIMEOUT, help=Settings.help("CELL_TIMEOUT")).tag(config=True)
    memory_limit_mb = Integer(Settings.MEMORY_LIMIT_MB, help=Settings.help("MEMORY_LIMIT_MB")).tag(config=True)
    output_limit_kb = Integer(Settings.OUTPUT_LIMIT_KB, help=Settings.help("OUTPUT_LIMIT_KB")).tag(config=True)
    output_total_kb = Integer(Settings.OUTPUT_TOTAL_KB, help=Settings.help("OUTPUT_TOTAL_KB")).tag(config=True)
    process_limit = Integer(Settings.PROCESS_LIMIT, help=Settings.help("PROCESS_LIMIT")).tag(config=True)
    work_limit_mb = Integer(Settings.WORK_LIMIT_MB, help=Settings.help("WORK_LIMIT_MB")).tag(config=True)
    submission_timeout = Float(Settings.SUBMISSION_TIMEOUT, help=Settings.help("SUBMISSION_TIMEOUT")).tag(config=True)
    runner_restarts = Integer(Settings.RUNNER_RESTARTS, help=Settings.help("RUNNER_RESTARTS")).tag(config=True)
    course_root = Unicode("", help="The course root (where the course secret is).").tag(config=True)
    course_id = Unicode("default_course", help="nbgrader's course id, to read the gradebook.").tag(config=True)
    unsandboxed = Bool(False, help="Grade even where this machine gives no isolation (student code then runs with "
                                   "only rlimits and its own session).").tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        spec = get(resources["nbgrader"]["assignment"])
        attempt = self._attempt(nb, resources)
        checks = _graded(spec)
        self.log.info("sandbox: %s", isolation_in_force(zygote_channel().isolation, self.unsandboxed))
        limits = Limits(self.memory_limit_mb, self.output_limit_kb, self.process_limit, self.work_limit_mb, self.output_total_kb)
        budget = Budget(self.submission_timeout, self.runner_restarts)
        folder = Path(resources["metadata"]["path"])
        count, right = 0, {}  # check -> the grader's SummaryItem, in notebook order
        known = figures.load(self.course_root, spec.name) if self.course_root else None
        with Session(folder, limits, cell_timeout=self.cell_timeout, budget=budget, known=known) as session:
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                count += 1
                grade_id = _grade_id(cell)  # put back from the gradebook (sanitize.RestoreCellMetadata)
                if grade_id in checks:
                    cell.outputs = self._grade(spec, cell, session, attempt, count, right)
                elif grade_id == SUMMARY:
                    points = {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"].get("points", 0)) for c in nb.cells
                              if c.metadata.get("nbgrader", {}).get("grade")}  # from the gradebook (sanitize.RestoreCellMetadata)
                    text = "\n".join(summary_lines({c.name: points.get(c.name, spec.points(c.name)) for c in spec.graded}, right,
                                                   {a.name: points.get(a.name, spec.points(a.name)) for a in spec.written}, graded=True)) + "\n"
                    cell.outputs = [_stream(text)]
                else:
                    cell.outputs = session.run_cell(cell.source)
                cell.execution_count = count
        return nb, resources

    def _attempt(self, nb: nbformat.NotebookNode, resources: dict) -> Attempt:
        """This submission's attempt: the course secret, the student, nbgrader's submission timestamp
        (from the gradebook, which autograde has just updated) and the digest of the cells handed in."""
        about = resources["nbgrader"]
        with CourseGradebook(about["db_url"], self.course_id) as gradebook:
            timestamp = gradebook.find_submission(about["assignment"], about["student"]).timestamp
        return Attempt(read_secret(self.course_root), about["student"], timestamp.isoformat() if timestamp else "", cells_digest(nb))

    def _grade(self, spec, cell, session: Session, attempt: Attempt, count: int, right: dict[str, SummaryItem]) -> list:
        name = cell.metadata["nbgrader"]["grade_id"]
        points = float(cell.metadata["nbgrader"].get("points", 0))
        try:
            check = spec.check(name)
            report = grade(spec, check, session.function(name, self.call_timeout, check.call), attempt=attempt,
                           hidden=self.hidden_cases, timeout=0, points=points)
        except Exception:  # noqa: BLE001 - one check the grader cannot finish costs that check, never the submission
            self.log.error("grading %s of %s failed:\n%s", name, attempt.student, traceback.format_exc())
            right[name] = SummaryItem(False, 0, 0, points, 0.0)
            return [nbformat.v4.new_output("error", ename="GradingError", evalue=messages.text("check.grader_failed", name=name),
                                           traceback=[]),
                    nbformat.v4.new_output("execute_result", data={"text/plain": "0.0"},
                                           metadata={RESULT_KEY: GradeResult(name, 0.0, points).to_json()}, execution_count=count)]
        right[name] = SummaryItem.of(report, graded=True)
        return [_stream("\n".join(report.lines(graded=True, show_hidden=True)) + "\n"),
                nbformat.from_dict({"output_type": "execute_result", "data": {"text/plain": repr(report.score)},
                                    "metadata": {RESULT_KEY: GradeResult.of(report, points).to_json()}, "execution_count": count})]


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


def record_figures(root: Path, name: str) -> Path:
    """Run the source notebook of `name` (the reference solution) in a runner, every cell that a
    submission's runner runs, and keep the PNG of each figure it draws (`autograder.figures`)."""
    spec, settings = get(name), config.load(root)
    notebook = nbformat.read(figures.source_notebook(root, name), as_version=4)
    graders = _graded(spec) | {SUMMARY}  # the cells whose outputs the grader writes
    limits = Limits(settings.MEMORY_LIMIT_MB, settings.OUTPUT_LIMIT_KB, settings.PROCESS_LIMIT, settings.WORK_LIMIT_MB,
                    settings.OUTPUT_TOTAL_KB)
    drawn: dict[str, str] = {}
    with Session(Course(Path(root)).release(name), limits, cell_timeout=settings.CELL_TIMEOUT,
                 budget=Budget(settings.SUBMISSION_TIMEOUT, settings.RUNNER_RESTARTS)) as session:
        for cell in notebook.cells:
            if cell.cell_type == "code" and _grade_id(cell) not in graders:
                session.run_cell(cell.source, drawn)
    return figures.save(root, name, drawn)


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
            raise SchemaTooOldError(f"Outdated schema version: {schema} (expected {self.schema_version})", schema, self.schema_version)
        if schema > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {schema} (expected {self.schema_version})", schema, self.schema_version)
        error = jsonschema.exceptions.best_match(self._schema_validator.iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class _MetadataValidator(MetadataValidator, _SchemaChecked):
    """nbgrader's current metadata validator, its schema step from `_SchemaChecked`."""


@functools.lru_cache(maxsize=None)
def _metadata_validator() -> _MetadataValidator:
    return _MetadataValidator()
