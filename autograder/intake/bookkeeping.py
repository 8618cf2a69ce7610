"""nbgrader's gradebook steps of autograde, on `autograder.coursedir.gradebook.CourseGradebook`.

Each class is nbgrader's preprocessor of the same name with only its `preprocess` restated, so that
the gradebook it opens is the process's `CourseGradebook` (one engine, its compiled queries kept,
a notebook's cells and grades read once) instead of a new `nbgrader.api.Gradebook`. The per-cell
logic is nbgrader's own. `autograder.pipeline` puts them in place of nbgrader's in both autograde
passes.
"""
from __future__ import annotations

import json

from nbgrader import preprocessors, utils
from nbgrader.preprocessors import NbGraderPreprocessor

from ..coursedir.gradebook import CourseGradebook


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
    (nbgrader's commit after every grade and comment also expired, and so re-read, every row)."""

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        with CourseGradebook(self.db_url) as self.gradebook:
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            self.gradebook.db.commit()
        return nb, resources

    def _add_score(self, cell, resources) -> None:
        """nbgrader's, without its commit: the auto score, and whether the grade needs a human look
        (it had a manual score, or the autograder gave none)."""
        grade = self.gradebook.find_grade(cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        grade.auto_score, _ = utils.determine_grade(cell, self.log)
        grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None

    def _add_comment(self, cell, resources) -> None:
        """nbgrader's, without its commit: "No response." for an unchanged solution cell."""
        comment = self.gradebook.find_comment(cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        if cell.metadata.nbgrader.get("checksum", None) == utils.compute_checksum(cell) and not utils.is_task(cell):
            comment.auto_comment = "No response."
        else:
            comment.auto_comment = None


class AssignLatePenalties(preprocessors.AssignLatePenalties):
    """nbgrader's late penalty of the submitted notebook, on a `CourseGradebook`."""

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.init_plugin()
        with CourseGradebook(self.db_url) as self.gradebook:
            assignment = self.gradebook.find_submission(self.assignment_id, self.student_id)
            notebook = self.gradebook.find_submission_notebook(self.notebook_id, self.assignment_id, self.student_id)
            notebook.late_submission_penalty = None  # reset to None (zero)
            if assignment.total_seconds_late > 0:
                self.log.warning("{} is {} seconds late".format(assignment, assignment.total_seconds_late))
                late_penalty = self.plugin_inst.late_submission_penalty(self.student_id, notebook.score, assignment.total_seconds_late)
                self.log.warning("Late submission penalty: {}".format(late_penalty))
                if late_penalty is not None:
                    notebook.late_submission_penalty = self._check_late_penalty(notebook, late_penalty)
            self.gradebook.db.commit()
        return nb, resources


#: nbgrader's preprocessor -> ours
REPLACES = {preprocessors.OverwriteKernelspec: OverwriteKernelspec, preprocessors.OverwriteCells: OverwriteCells,
            preprocessors.SaveAutoGrades: SaveAutoGrades, preprocessors.AssignLatePenalties: AssignLatePenalties}
