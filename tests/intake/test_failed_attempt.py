"""A failed autograde travels as data: admission's `Refused` carries its reasons, and the record it
leaves (`layout.FailedAttempt`) says whether the submission was refused and whether the failure was
the gradebook database's, so that another try may succeed."""

from __future__ import annotations

import pickle
import sqlite3

from nbgrader.api import InvalidEntry
from sqlalchemy.exc import IntegrityError

from autograder.coursedir.layout import FailedAttempt
from autograder.intake.admission import _in_gradebook
from autograder.intake.walk import Refused


def test_a_refusal_carries_its_reasons():
    refusal = Refused(["`a` is a FIFO", "`b` is a hard link (2 names for one file)"])
    assert refusal.reasons == ["`a` is a FIFO", "`b` is a hard link (2 names for one file)"]
    assert str(refusal) == "`a` is a FIFO; `b` is a hard link (2 names for one file)"
    assert pickle.loads(pickle.dumps(refusal)).reasons == refusal.reasons


def test_the_record_keeps_what_failed_and_reads_one_written_before_it_said_transient(tmp_path):
    path = tmp_path / ".a1.failed.json"
    for attempt in (
        FailedAttempt("it is a FIFO", refused=True),
        FailedAttempt("the grader failed: locked", False, transient=True),
    ):
        attempt.write(path)
        assert FailedAttempt.read(path) == attempt
    path.write_text('{"reason": "the grader failed: KeyError", "refused": false}\n', encoding="utf-8")
    assert FailedAttempt.read(path) == FailedAttempt("the grader failed: KeyError", refused=False, transient=False)


def _raised(make):
    try:
        make()
    except Exception as error:  # noqa: BLE001
        return error


def test_a_gradebook_fault_is_known_by_its_type_not_its_message():
    def wrapped():
        try:
            raise IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed"))
        except IntegrityError as error:
            raise InvalidEntry(*error.args)  # as nbgrader's Gradebook does

    assert _in_gradebook(_raised(wrapped))
    assert _in_gradebook(sqlite3.OperationalError("database is locked"))
    assert not _in_gradebook(RuntimeError("sqlite3 sqlalchemy database is locked"))
