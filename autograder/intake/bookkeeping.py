"""nbgrader's gradebook steps of autograde, on `autograder.coursedir.gradebook.CourseGradebook`.

Each class is nbgrader's preprocessor of the same name with only its `preprocess` restated, so that
the gradebook it opens is the process's `CourseGradebook` (one engine, its compiled queries kept,
a notebook's cells and grades read once) instead of a new `nbgrader.api.Gradebook`. The per-cell
logic is nbgrader's own, but for two course rules: a regrade keeps a TA's grades (`SaveAutoGrades`),
and the late penalty is the term's, from the ledger (`AssignLatePenalties`, in place of nbgrader's
plugin). `autograder.pipeline` puts them in place of nbgrader's in both autograde passes.
"""

from __future__ import annotations

import hashlib
import json

from nbgrader import preprocessors, utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Instance

from ..coursedir.gradebook import CourseGradebook
from ..coursedir.graded import grader_version
from ..coursedir.ledger import Ledger
from ..coursedir.settings import Settings
from ..labels import label
from ..term import history, penalties
from ..term.notes import points


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

    A TA's grade belongs to the answer it graded: a regrade of an attempt already graded keeps a
    TA's manual grades as the TA left them; a new attempt keeps the TA's grade of a written answer
    (a cell that is a solution and a grade) whose source is byte for byte the one the attempt before
    it handed in, and else sets the grade and its comment aside, the cell awaiting a TA (counted 0).
    Each attempt's answers are kept by digest (`Ledger.record_answers`), and what was kept or set
    aside is a history entry (`answer`) that names the grade and the comment."""

    settings = Instance(Settings, kw={}, help="The course's settings (course_config.py).").tag(config=True)

    def preprocess(self, nb, resources):
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        ledger = Ledger(self.db_url, self.settings.COURSE_ID)
        receipts = ledger.receipts(self.assignment_id, self.student_id)
        self.attempt = receipts[-1].attempt if receipts else None
        self.regrade = self.attempt is not None and self.attempt in ledger.scores(self.assignment_id, self.student_id)
        answers = ledger.answers(self.assignment_id, self.student_id)
        earlier = [n for n in answers if self.attempt is None or n < self.attempt]
        self.graded = max(earlier) if earlier else None  # the attempt whose answers a TA may have graded
        self.graded_answers = answers[self.graded] if earlier else {}
        self.answered: dict[str, str] = {}
        self.moves: list[tuple[str, float, float, str]] = []  # (cell, before, after, what the history says)
        with CourseGradebook(self.db_url) as self.gradebook:
            nb, resources = NbGraderPreprocessor.preprocess(self, nb, resources)
            self.gradebook.db.commit()
        if self.attempt is not None:
            ledger.record_answers(self.assignment_id, self.student_id, self.attempt, self.answered)
        if self.moves:
            change = history.Change(
                self.assignment_id,
                self.student_id,
                {cell: before for cell, before, _, _ in self.moves},
                {cell: after for cell, _, after, _ in self.moves},
            )
            reason = "; ".join(said for *_, said in self.moves)
            history.append(ledger, "answer", reason, grader_version(self.settings, [self.assignment_id]), [change])
        return nb, resources

    def _add_score(self, cell, resources) -> None:
        """nbgrader's, without its commit: the auto score, and whether the grade needs a human look
        (the autograder gave none, or it had a manual score - unless this is a regrade of the attempt
        a TA graded, whose score, comment and "graded" state stand, or a new attempt whose written
        answer is the one the TA graded: `_answer`)."""
        grade = self.gradebook.find_grade(
            cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id
        )
        grade.auto_score, _ = utils.determine_grade(cell, self.log)
        if utils.is_solution(cell) and self._answer(cell, grade):
            return
        if not (self.regrade and grade.manual_score is not None):
            grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None

    def _answer(self, cell, grade) -> bool:
        """Keep the digest of a written answer; on a new attempt over a TA's grade, keep that grade
        (the same answer: it stands) or set it aside with its comment (another answer: awaiting a TA),
        and say which in the history; True where it decided the grade's state."""
        name = cell.metadata["nbgrader"]["grade_id"]
        self.answered[name] = hashlib.sha256(cell.source.encode("utf-8")).hexdigest()
        if self.regrade or grade.manual_score is None or self.attempt is None:
            return False
        score = points(grade.manual_score + (grade.extra_credit or 0.0))
        if self.graded_answers.get(name) == self.answered[name]:
            grade.needs_manual_grade = False
            said = label("history.answer_kept", attempt=self.attempt, cell=name, graded=self.graded, score=score)
            self.moves.append((name, grade.score, grade.score, said))
            return True
        comment = self.gradebook.find_comment(name, self.notebook_id, self.assignment_id, self.student_id)
        said = label(
            "history.answer_set_aside",
            attempt=self.attempt,
            cell=name,
            graded=self.graded if self.graded is not None else "-",
            score=score,
            comment=comment.manual_comment or "-",
        )
        self.moves.append((name, grade.score, grade.auto_score or 0.0, said))
        grade.manual_score = grade.extra_credit = None
        comment.manual_comment = None
        grade.needs_manual_grade = True
        return True

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
        first = receipt.attempt not in ledger.scores(assignment, student)  # not a regrade: it records its own moves
        with CourseGradebook(info["db_url"]) as gb:
            submission = gb.find_submission(assignment, student)
            ledger.record_score(assignment, student, receipt.attempt, submission.score, submission.max_score, 0.0)
            others = {a: m for a, m in penalties.write(gb, ledger, self.settings, student).items() if a != assignment}
            gb.db.commit()
            if first and others:  # the student's other work, its penalty written again: said, with why
                self._record(gb, ledger, assignment, student, receipt.attempt, others)
            penalty = submission.late_submission_penalty
            if penalty:
                self.log.warning(
                    "%s is %s seconds late: late penalty %s", submission, submission.total_seconds_late, penalty
                )
            ledger.record_score(assignment, student, receipt.attempt, submission.score, submission.max_score, penalty)
        return nb, resources

    def _record(self, gb, ledger: Ledger, assignment: str, student: str, attempt: int, others: dict) -> None:
        """A history entry for the penalties of the student's `others` assignments that grading
        `assignment` wrote again (assignment -> (before, after)); their scores did not move."""
        now = history.Snapshot.take(gb, [(name, student) for name in sorted(others)])
        moved = [
            history.Change(name, student, now.scores((name, student)), now.scores((name, student)), was, to)
            for name, (was, to) in sorted(others.items())
        ]
        reason = label("history.penalty_moved", assignment=assignment, attempt=attempt)
        history.append(ledger, "penalty", reason, grader_version(self.settings, [assignment]), moved)


#: nbgrader's preprocessor -> ours
REPLACES = {
    preprocessors.OverwriteKernelspec: OverwriteKernelspec,
    preprocessors.OverwriteCells: OverwriteCells,
    preprocessors.SaveAutoGrades: SaveAutoGrades,
    preprocessors.AssignLatePenalties: AssignLatePenalties,
}
