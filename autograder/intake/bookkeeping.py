"""nbgrader's gradebook steps of autograde, on `autograder.coursedir.gradebook.CourseGradebook`.

Each class is nbgrader's preprocessor of the same name with only its `preprocess` restated, so that
the gradebook it opens is the process's `CourseGradebook` (one engine, its compiled queries kept,
a notebook's cells and grades read once) instead of a new `nbgrader.api.Gradebook`. The per-cell
logic is nbgrader's own, but for two course rules: a regrade keeps a TA's grades (`SaveAutoGrades`),
and the late penalty is the term's, from the ledger (`AssignLatePenalties`, in place of nbgrader's
plugin). `autograder.pipeline` puts them in place of nbgrader's in both autograde passes.
"""

from __future__ import annotations

import json

from nbgrader import preprocessors, utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Instance

from ..coursedir.gradebook import CourseGradebook
from ..coursedir.ledger import Ledger
from ..coursedir.settings import Settings
from ..term import penalties


class OverwriteKernelspec(preprocessors.OverwriteKernelspec):
    """The released notebook's kernelspec over the submitted one (nbgrader's, on a `CourseGradebook`)."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with CourseGradebook(info["db_url"]) as gb:
            kernelspec = gb.find_notebook(info["notebook"], info["assignment"]).kernelspec
        if kernelspec is not None:
            kernelspec = json.loads(kernelspec)
        if kernelspec:
            nb.metadata["kernelspec"] = kernelspec
        return nb, resources


class OverwriteCells(preprocessors.OverwriteCells):
    """nbgrader's check of grade and locked cells against the released ones, on a `CourseGradebook`
    (its per-cell `find_source_cell` and `find_graded_cell` answered from one read of the notebook)."""

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.db_url = resources["nbgrader"]["db_url"]
        with CourseGradebook(self.db_url) as self.gradebook:
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            if self.add_missing_cells:
                nb, resources = self.add_missing_grade_cells(nb, resources)
                nb, resources = self.add_missing_task_cells(nb, resources)
        return nb, resources


class SaveAutoGrades(preprocessors.SaveAutoGrades):
    """nbgrader's recording of the autograder's scores and "No response." comments, on a
    `CourseGradebook` (its per-cell `find_grade` and `find_comment` answered from one read of the
    submission's grades and comments), committed once for the notebook instead of once per cell
    (nbgrader's commit after every grade and comment also expired, and so re-read, every row).
    A regrade of an attempt already graded keeps a TA's manual grades as the TA left them."""

    settings = Instance(Settings, kw={}, help="The course's settings (course_config.py).").tag(config=True)

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        ledger = Ledger(self.db_url, self.settings.COURSE_ID)
        receipts = ledger.receipts(self.assignment_id, self.student_id)
        self.regrade = bool(receipts) and receipts[-1].attempt in ledger.scores(self.assignment_id, self.student_id)
        with CourseGradebook(self.db_url) as self.gradebook:
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            self.gradebook.db.commit()
        return nb, resources

    def _add_score(self, cell, resources) -> None:
        """nbgrader's, without its commit: the auto score, and whether the grade needs a human look
        (the autograder gave none, or it had a manual score - unless this is a regrade of the attempt
        a TA graded, whose score, comment and "graded" state stand)."""
        grade = self.gradebook.find_grade(
            cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id
        )
        grade.auto_score, _ = utils.determine_grade(cell, self.log)
        if not (self.regrade and grade.manual_score is not None):
            grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None

    def _add_comment(self, cell, resources) -> None:
        """nbgrader's, without its commit: "No response." for an unchanged solution cell."""
        comment = self.gradebook.find_comment(
            cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id
        )
        if cell.metadata.nbgrader.get("checksum", None) == utils.compute_checksum(cell) and not utils.is_task(cell):
            comment.auto_comment = "No response."
        else:
            comment.auto_comment = None


class AssignLatePenalties(NbGraderPreprocessor):
    """The late penalty of the course's term rules in place of nbgrader's plugin: from the ledger's
    receipt time, the student's extension and late days (`autograder.term.penalties`), never
    from a time the student wrote; and the attempt's scores kept for a rule that counts the best."""

    settings = Instance(Settings, kw={}, help="The course's settings (course_config.py): the term's rules.").tag(
        config=True
    )

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        assignment, student = info["assignment"], info["student"]
        ledger = Ledger(info["db_url"], self.settings.COURSE_ID)
        receipt = ledger.receipts(assignment, student)[-1]  # admission has just recorded the bytes it grades
        with CourseGradebook(info["db_url"]) as gb:
            submission = gb.find_submission(assignment, student)
            ledger.record_score(assignment, student, receipt.attempt, submission.score, submission.max_score, 0.0)
            penalties.write(gb, ledger, self.settings, student)
            gb.db.commit()
            penalty = submission.late_submission_penalty
            if penalty:
                self.log.warning(
                    "%s is %s seconds late: late penalty %s", submission, submission.total_seconds_late, penalty
                )
            ledger.record_score(assignment, student, receipt.attempt, submission.score, submission.max_score, penalty)
        return nb, resources


#: nbgrader's preprocessor -> ours
REPLACES = {
    preprocessors.OverwriteKernelspec: OverwriteKernelspec,
    preprocessors.OverwriteCells: OverwriteCells,
    preprocessors.SaveAutoGrades: SaveAutoGrades,
    preprocessors.AssignLatePenalties: AssignLatePenalties,
}
