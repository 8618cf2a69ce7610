"""nbgrader's gradebook, opened cheaply: one SQLAlchemy engine per database and process.

`nbgrader.api.Gradebook` makes a new engine each time it is opened (autograde opens it about a dozen
times per submission): a new SQLite connection, the schema inspected and `create_all` run again,
the course looked up and committed, and - since SQLAlchemy keeps its compiled SQL in the engine -
every query compiled again. `CourseGradebook` is the same class on an engine kept for the life of
the process: the schema step and the course check run on its first opening (through nbgrader's own
`__init__`), later openings only start a session. Closing it ends the session and returns the
connection to the engine's pool instead of disposing of the engine.

Within one opening (one session) the finders that autograde calls once per cell - a source cell,
a graded cell, a grade, a comment - read all of the notebook's rows of that kind in one query and
answer from them; a name not among them goes to nbgrader's own query (and its `MissingEntry`). They
hand back the very objects nbgrader's queries would (the session's identity map), so what is read
and written is unchanged. Autograde adds no cells and removes no rows while a session is open.

The engines are per process: a forked worker never uses its parent's (the key holds the pid, and
after a fork the inherited engines are dropped without closing their connections, which belong to
the parent). A SQLite gradebook's engine is also per file: the key holds the file's device and inode,
so a gradebook deleted or replaced under a running process (a restored backup) is set up again by
nbgrader and never written through a connection to the old file. An SQLite database in memory (which
nbgrader's gradebook starts empty each time) or at a relative path is not kept.
"""

from __future__ import annotations

import functools
import os

from nbgrader import api
from nbgrader.api import (
    BaseCell,
    Comment,
    Grade,
    Gradebook,
    GradeCell,
    MissingEntry,
    SolutionCell,
    SourceCell,
    TaskCell,
)
from sqlalchemy.engine import make_url
from sqlalchemy.orm import scoped_session, sessionmaker

#: nbgrader asks the `alembic` command for the head of its schema on every new gradebook (a process of
#: about three seconds); it is the installed nbgrader's, the same for the life of this process.
api.get_alembic_version = functools.lru_cache(maxsize=None)(api.get_alembic_version)

#: (pid, db_url, file) -> an engine whose database nbgrader has set up; (pid, db_url, file, course_id) of checked courses.
_ENGINES: dict = {}
_COURSES: set = set()
#: Engines kept at most (a process that grades in many course roots, the test suite, keeps the latest).
KEEP = 8


def awaiting_ta(grade) -> bool:
    """Whether an nbgrader grade (a `Grade`, or a query's row with its columns) waits for a TA: it
    needs a manual grade and no TA has scored it yet. A grade a TA scored keeps that score when a
    regrade flags it again."""
    return bool(grade.needs_manual_grade) and grade.manual_score is None


def _key(db_url: str) -> tuple | None:
    """The cache key of `db_url` in this process; None for a database that is not kept (an SQLite
    database in memory or at a relative path, which the course's `database_url` never gives)."""
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite":
        return (os.getpid(), db_url, None)
    path = url.database or ""
    if not os.path.isabs(path) or url.query:  # in memory, a URI filename, or a path that depends on the working folder
        return None
    try:
        info = os.stat(path)
    except OSError:  # not created yet: nbgrader creates it, the next opening keys it
        return None
    return (os.getpid(), db_url, (info.st_dev, info.st_ino))


def _forget_inherited() -> None:
    for engine in _ENGINES.values():
        engine.dispose(close=False)  # the parent's pooled connections: left alone, never closed here
    _ENGINES.clear()
    _COURSES.clear()


os.register_at_fork(after_in_child=_forget_inherited)


class CourseGradebook(Gradebook):
    """`nbgrader.api.Gradebook` on this process's engine for `db_url`."""

    def __init__(self, db_url: str, course_id: str = "default_course", authenticator=None):
        key = _key(db_url)
        self._memo: dict = {}
        self._kept = key is not None
        engine = _ENGINES.get(key) if key else None
        if engine is None:  # the first opening of this database here: nbgrader's own (tables, alembic version, course)
            super().__init__(db_url, course_id, authenticator)
            key = _key(db_url)  # the file exists now
            if key is None:
                self._kept = False
                return
            self._kept = True
            for old in [k for k in _ENGINES if k[:2] == key[:2]] + list(_ENGINES)[: max(0, len(_ENGINES) + 1 - KEEP)]:
                if old in _ENGINES:  # this URL's engine on a file since replaced, or the oldest of too many
                    _ENGINES.pop(old).dispose()
            _ENGINES[key] = self.engine
            _COURSES.add((*key, course_id))
            return
        self.engine = engine
        self.db = scoped_session(sessionmaker(autoflush=True, bind=engine, future=True))
        if (*key, course_id) not in _COURSES:
            self.check_course(course_id=course_id)
            _COURSES.add((*key, course_id))
        self.course_id = course_id
        self.authenticator = authenticator

    def close(self) -> None:
        """End the session; a kept engine (and its pooled connection) stays for the next opening."""
        self._memo.clear()
        if self._kept:
            self.db.remove()
        else:
            super().close()

    def _rows(self, key: tuple, load) -> dict:
        """name -> row, read once per session by `load()`; nothing is kept when the lookup behind it fails."""
        if key not in self._memo:
            try:
                self._memo[key] = load()
            except MissingEntry:
                return {}
        return self._memo[key]

    def cells(self, kind: type, notebook: str, assignment: str) -> dict:
        """name -> cell of `kind` (GradeCell, SolutionCell, TaskCell or SourceCell) of the released notebook."""

        def load():
            notebook_id = self.find_notebook(notebook, assignment).id
            return {cell.name: cell for cell in self.db.query(kind).filter(kind.notebook_id == notebook_id)}

        return self._rows((kind.__name__, notebook, assignment), load)

    def find_notebook(self, name: str, assignment: str):
        key = ("notebook", name, assignment)
        if key not in self._memo:
            self._memo[key] = super().find_notebook(name, assignment)
        return self._memo[key]

    def find_source_cell(self, name: str, notebook: str, assignment: str):
        cell = self.cells(SourceCell, notebook, assignment).get(name)
        return cell if cell is not None else super().find_source_cell(name, notebook, assignment)

    def find_graded_cell(self, name: str, notebook: str, assignment: str):
        for kind in (GradeCell, TaskCell):  # nbgrader's order
            if (cell := self.cells(kind, notebook, assignment).get(name)) is not None:
                return cell
        return super().find_graded_cell(name, notebook, assignment)

    def _submitted(self, entity: type, kinds: tuple, notebook: str, assignment: str, student: str) -> dict:
        """name -> the student's `entity` (Grade or Comment) rows of the notebook, of cells of `kinds` in that order of preference."""

        def load():
            submitted = self.find_submission_notebook(notebook, assignment, student).id
            rows = (
                self.db.query(entity, BaseCell.name, BaseCell.type)
                .join(BaseCell, BaseCell.id == entity.cell_id)
                .filter(entity.notebook_id == submitted, BaseCell.type.in_([kind.__name__ for kind in kinds]))
            )
            found: dict = {}
            for row, name, kind in sorted(rows, key=lambda r: [k.__name__ for k in kinds].index(r[2])):
                found.setdefault(name, row)
            return found

        return self._rows((entity.__name__, notebook, assignment, student), load)

    def find_grade(self, grade_cell: str, notebook: str, assignment: str, student: str):
        grade = self._submitted(Grade, (GradeCell, TaskCell), notebook, assignment, student).get(grade_cell)
        return grade if grade is not None else super().find_grade(grade_cell, notebook, assignment, student)

    def find_comment(self, solution_cell: str, notebook: str, assignment: str, student: str):
        comment = self._submitted(Comment, (SolutionCell, TaskCell), notebook, assignment, student).get(solution_cell)
        return comment if comment is not None else super().find_comment(solution_cell, notebook, assignment, student)
