"""nbgrader's execute step, with the grades made outside the student's process.

`TrustedExecute` takes the place of nbgrader's `Execute` in the autograde pipeline (wired in
`nbgrader_config.py` through `autograder.config`). Student cells run in a sandboxed runner
(`autograder.sandbox`) and keep their real outputs, plots included. A grade cell is never run: the
grader runs its check here, calling the student's function in the runner, and writes the cell's
outputs itself - the report as text and the score as the cell's result, which nbgrader records as
partial credit. Whatever the student's code does to `check`, builtins or the stack, only the values
their functions return reach a grade. A crash, a loop or a killed runner costs the cells it touches.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Float, Integer

from .assignments import get
from .checks import grade
from .sandbox import Limits, Session, zygote

#: Where the structured result of a grade cell is kept (the execute_result's metadata).
RESULT_KEY = "rnn_course"


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

    hidden_cases = Integer(6, help="Hidden cases drawn per check.").tag(config=True)
    call_timeout = Float(10.0, help="Seconds one call of a student's function may take.").tag(config=True)
    cell_timeout = Float(120.0, help="Seconds one student cell may take.").tag(config=True)
    memory_limit_mb = Integer(2048, help="Memory of a runner, in MB.").tag(config=True)
    output_limit_kb = Integer(256, help="Output kept per cell, in KB.").tag(config=True)
    process_limit = Integer(64, help="Processes a submission may run at once.").tag(config=True)
    unsandboxed = Bool(False, help="Grade even where this machine gives no isolation (student code then runs with "
                                   "only rlimits and its own session).").tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        spec = get(resources["nbgrader"]["assignment"])
        student = resources["nbgrader"]["student"]
        self.log.info("sandbox: %s", isolation_in_force(zygote().isolation, self.unsandboxed))
        limits = Limits(self.memory_limit_mb, self.output_limit_kb, self.process_limit)
        folder = Path(resources["metadata"]["path"])
        count = 0
        with Session(folder, limits, cell_timeout=self.cell_timeout) as session:
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                count += 1
                if cell.metadata.get("nbgrader", {}).get("grade"):
                    cell.outputs = self._grade(spec, cell, session, student, count)
                else:
                    cell.outputs = session.run_cell(cell.source)
                cell.execution_count = count
        return nb, resources

    def _grade(self, spec, cell, session: Session, student: str, count: int) -> list:
        name = cell.metadata["nbgrader"].get("grade_id", "")
        points = float(cell.metadata["nbgrader"].get("points", 0))
        try:
            check = spec.check(name)
        except KeyError as error:
            return [nbformat.v4.new_output("error", ename="UnknownCheck", evalue=str(error), traceback=[])]
        report = grade(spec.name, check, session.function(name, self.call_timeout), student=student,
                       hidden=self.hidden_cases, timeout=0, points=points)
        result = {"check": name, "score": report.score, "points": points, "misconceptions": report.misconceptions,
                  "cases": [{"label": r.label, "public": r.public, "ok": r.ok, "misconception": r.misconception} for r in report.results]}
        return [nbformat.v4.new_output("stream", name="stdout", text="\n".join(report.lines(graded=True)) + "\n"),
                nbformat.v4.new_output("execute_result", data={"text/plain": repr(report.score)},
                                       metadata={RESULT_KEY: result}, execution_count=count)]
