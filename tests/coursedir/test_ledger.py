"""The submission ledger (`autograder.coursedir.ledger`): an attempt is a set of handed-in bytes, its
time the first time they came; receipts are never changed; a student's claimed time is kept only where
it differs; the arrival time is the one no student can set back; the latest extension holds."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import time

import pytest

from autograder.coursedir.ledger import CARRIED, Ledger, changed_at, claimed_time, digest, handed_in
from autograder.grading.worker import nbgrader_env

UTC = dt.timezone.utc
T0 = dt.datetime(2027, 3, 1, 12, 0, tzinfo=UTC)
NOTEBOOK = {
    "cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": []}],
    "metadata": {"kernelspec": {"name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def blank(tmp_path_factory):
    """A new gradebook with the ledger's tables, made once (`alembic` is slow) and copied for each test."""
    path = tmp_path_factory.mktemp("blank") / "gradebook.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
        Ledger(f"sqlite:///{path}", "course")
    return path


@pytest.fixture
def db(tmp_path, blank):
    shutil.copy(blank, tmp_path / "gradebook.db")
    return tmp_path / "gradebook.db"


@pytest.fixture
def ledger(db):
    return Ledger(f"sqlite:///{db}", "course")


def hand_in(folder, metadata: dict | None = None, secret: str = "s3cret", data: str = "1,2\n"):
    folder.mkdir(exist_ok=True)
    (folder / "a.ipynb").write_text(json.dumps({**NOTEBOOK, "metadata": {**NOTEBOOK["metadata"], **(metadata or {})}}))
    (folder / "timestamp.txt").write_text("2027-03-01 12:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text(secret)
    (folder / "data.csv").write_text(data)
    return folder


def test_a_fresh_gradebook_has_an_empty_ledger(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])
    ledger = Ledger(f"sqlite:///{tmp_path / 'gradebook.db'}", "course")
    assert ledger.receipts() == [] and ledger.extensions() == {}


@pytest.mark.parametrize(
    "change", [{"metadata": {"widgets": {}}}, {"secret": "other"}], ids=["notebook metadata", "secret"]
)
def test_an_attempt_is_a_set_of_bytes(ledger, tmp_path, change):
    """The same bytes are the same receipt; other bytes the next attempt; the first bytes again attempt 1, first received at once."""
    folder = hand_in(tmp_path / "in")
    first = ledger.receive("a", "s", folder, source="exchange", received=T0)
    assert (first.attempt, sorted(first.files)) == (1, sorted(["a.ipynb", *CARRIED]))
    assert ledger.receive("a", "s", folder, source="exchange", received=T0 + dt.timedelta(hours=1)) == first
    assert len(ledger.receipts("a", "s")) == 1
    hand_in(folder, **change)
    second = ledger.receive("a", "s", folder, source="exchange", received=T0 + dt.timedelta(hours=2))
    assert (second.attempt, second.id) == (2, first.id + 1) and second.digest != first.digest
    hand_in(folder)
    again = ledger.receive("a", "s", folder, source="exchange", received=T0 + dt.timedelta(hours=3))
    assert (again.attempt, again.digest, again.received) == (1, first.digest, T0 + dt.timedelta(hours=3))
    assert [r.attempt for r in ledger.receipts("a", "s")] == [1, 2, 1]
    assert ledger.first_received(again) == T0 and ledger.first_received(second) == T0 + dt.timedelta(hours=2)
    assert ledger.current("a", "s", folder) == again


def test_a_file_not_carried_does_not_change_the_digest(ledger, tmp_path):
    folder = hand_in(tmp_path / "in")
    first = ledger.receive("a", "s", folder, source="submitted", received=T0)
    hand_in(folder, data="3,4\n")
    (folder / "notes.txt").write_text("mine")
    assert "data.csv" not in handed_in(folder) and digest(handed_in(folder)) == first.digest
    assert ledger.receive("a", "s", folder, source="submitted", received=T0 + dt.timedelta(days=1)) == first
    assert ledger.receive("a", "t", folder, source="submitted", received=T0).attempt == 1  # another student's count


def test_the_receipts_table_is_append_only(ledger, db, tmp_path):
    receipt = ledger.receive("a", "s", hand_in(tmp_path / "in"), source="exchange", received=T0)
    with sqlite3.connect(db) as connection:
        for statement in (
            "UPDATE course_receipts SET received = '2027-01-01T00:00:00+00:00'",
            "DELETE FROM course_receipts",
        ):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                connection.execute(statement)
    assert ledger.receipts() == [receipt]


@pytest.mark.parametrize(
    "claimed, kept",
    [
        ("2027-03-01 12:00:00.123456 UTC", None),  # nbgrader's own timestamp.txt
        ("2027-03-01T12:00:59+00:00", None),
        ("2027-03-01 13:00:30+01:00", None),
        ("2027-03-01 12:00:30", None),  # no zone: UTC
        ("2027-03-01 11:58:59.999 UTC", "2027-03-01 11:58:59.999 UTC"),
        ("2027-02-01T12:00:00+00:00", "2027-02-01T12:00:00+00:00"),
        ("handed in on time, honest", "handed in on time, honest"),
        ("9" * 500, "9" * 128),
        ("", None),
        (None, None),
    ],
)
def test_a_claimed_time_is_kept_where_it_differs_by_more_than_a_minute(ledger, tmp_path, claimed, kept):
    receipt = ledger.receive("a", "s", hand_in(tmp_path / "in"), source="exchange", received=T0, claimed=claimed)
    assert receipt.claimed == kept and ledger.receipts()[0].claimed == kept


def test_the_claimed_time_is_read_bounded(tmp_path):
    folder = hand_in(tmp_path / "in")
    (folder / "timestamp.txt").write_bytes(b"\xff" + b"x" * 10_000)
    assert claimed_time(folder, 100) == "\ufffd" + "x" * 99
    (folder / "timestamp.txt").unlink()
    assert claimed_time(folder) is None


def test_the_arrival_time_is_not_the_mtime_a_student_sets(tmp_path):
    """os.utime sets a file's mtime into the past; `changed_at` stays no earlier than the file's ctime."""
    before = time.time()
    folder = hand_in(tmp_path / "in")
    past = dt.datetime(2001, 1, 1, tzinfo=UTC).timestamp()
    for path in (folder / "a.ipynb", folder):
        os.utime(path, (past, past))
    assert os.stat(folder / "a.ipynb").st_mtime == past
    arrived = changed_at(folder)
    assert arrived >= dt.datetime.fromtimestamp(os.lstat(folder / "a.ipynb").st_ctime, UTC)
    assert arrived >= dt.datetime.fromtimestamp(before - 1, UTC)


def test_the_latest_extension_holds_and_a_revoked_one_is_not_in_force(ledger):
    until = T0 + dt.timedelta(days=3)
    ledger.extend("a", "s", until, "ill")
    ledger.extend("a", "t", until, "ill")
    assert ledger.extensions()[("a", "s")].until == until
    ledger.extend("a", "s", T0 + dt.timedelta(days=1), "shortened")
    assert (ledger.extensions()[("a", "s")].until, ledger.extensions()[("a", "s")].reason) == (
        T0 + dt.timedelta(days=1),
        "shortened",
    )
    ledger.extend("a", "s", None, "revoked")
    assert set(ledger.extensions()) == {("a", "t")}
    ledger.extend("a", "s", until, "granted again")
    assert ledger.extensions()[("a", "s")].until == until
