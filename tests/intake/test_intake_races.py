"""Collect on a shared host, where every student is an account with a terminal and the exchange's
inbound folder is writable by all: races a student can run against `SafeCollect`, as real accounts.

The instructor (this process, root) keeps a course root private to them and an exchange beside it
(world-writable and sticky, inbound `2733`, as nbgrader makes it); the student (`rnnstudent`) hands
in by making a folder in inbound, as `nbgrader submit` does. Each race is made deterministic by
running collect in this process with a wrapper around one of its steps that acts as the student
(`runuser`) at the worst moment: after her folder was checked, or while a file of it is read. A
last test collects through the command line an exchange whose folders name no student.

Runs only as root where `useradd` and `runuser` exist (`tests/accounts.py`).
"""

from __future__ import annotations

import os
import pwd
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.coursedir import CourseDirectory

from autograder.commands.course import NBGRADER_MAIN, nbgrader_env, release
from autograder.coursedir import config
from autograder.coursedir.ledger import Ledger, now
from autograder.intake import collect, walk

from ..accounts import User, account, needs_accounts, ok, run, shared_area
from ..conftest import make_course

pytestmark = pytest.mark.nbgrader

A = "ch12_bptt"
STUDENT = "rnnstudent"
WHEN = "2027-03-01 12:00:00.000000 UTC"


class Course:
    """A course root private to the instructor, with an exchange beside it and its inbound folder."""

    def __init__(self, area: Path):
        self.root = make_course(area / "course", [A])
        self.root.chmod(0o700)
        self.exchange = area / "exchange"
        self.exchange.mkdir()
        self.exchange.chmod(0o1777)
        with (self.root / "nbgrader_config.py").open("a", encoding="utf-8") as handle:
            handle.write(f"\nc.Exchange.root = {str(self.exchange)!r}\n")
        self.settings = config.load(self.root)
        self.inbound = self.exchange / self.settings.COURSE_ID / "inbound"
        self.inbound.mkdir(parents=True)
        self.inbound.parent.chmod(0o755)
        self.inbound.chmod(0o2733)
        self.db_url = config.database_url(self.root, self.settings)

    def collect(self, update: bool = False) -> None:
        """`SafeCollect` of the assignment, in this process (so a test can wrap one of its steps)."""
        coursedir = CourseDirectory(
            root=str(self.root), course_id=self.settings.COURSE_ID, assignment_id=A, db_url=self.db_url
        )
        collect.SafeCollect(coursedir=coursedir, authenticator=None, root=str(self.exchange), update=update).start()

    def filed(self, student: str = STUDENT) -> Path:
        return self.root / "submitted" / student / A / f"{A}.ipynb"

    def receipts(self, student: str = STUDENT) -> list:
        return Ledger(self.db_url, self.settings.COURSE_ID).receipts(A, student)


@pytest.fixture
def area():
    needs_accounts()
    with shared_area("rnn-intake-races-") as folder:
        yield folder


@pytest.fixture
def course(area) -> Course:
    return Course(area)


def _notebook(text: str) -> bytes:
    """A notebook whose one markdown cell says `text` (so that two of them differ in size)."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_markdown_cell(text))
    return nbformat.writes(notebook).encode()


def _hand_in(student: User, inbound: Path, content: bytes, when: str = WHEN, tag: str = "1") -> Path:
    """As `student`: a folder in inbound named as `nbgrader submit` names it, holding the notebook
    `content` alone (the student writes what she likes there)."""
    mine = student.home / f"hand-in-{tag}.ipynb"
    mine.write_bytes(content)
    student.give(mine)
    folder = inbound / f"{student.name}+{A}+{when}+{tag}"
    ok(student.run("mkdir", str(folder)))
    ok(student.run("cp", str(mine), str(folder / f"{A}.ipynb")))
    return folder


def _writer(student: User, content: bytes, tag: str):
    """A function that, as `student`, writes `content` over her notebook `target` in place (`cp`
    keeps its inode, as an editor saving it does)."""
    staged = student.home / f"later-{tag}.ipynb"
    staged.write_bytes(content)
    student.give(staged)
    return lambda target: ok(student.run("cp", str(staged), str(target)))


def test_a_folder_swapped_for_a_link_to_the_source_after_its_check_never_files_the_instructors_notebook(
    course, area, monkeypatch
):
    """After each inspection of her folder the student renames it away and puts in its place a link
    to the course's source folder (and back before the next one, as inotify lets her time it): the
    folder is read through the descriptor collect opened before its checks, so what is filed is
    her own notebook, never the instructor's source notebook."""
    release(course.root, [A])
    source = course.root / "source" / A
    instructors = (source / f"{A}.ipynb").read_bytes()
    student = User(STUDENT, area)
    hers = _notebook("my own answer")
    folder = _hand_in(student, course.inbound, hers)
    away = folder.with_name(folder.name + ".away")
    inspect = collect.inspect

    def inspect_then_swap(*args, **kwargs):
        if away.exists():
            ok(student.run("sh", "-c", 'rm "$1" && mv "$2" "$1"', "swap", str(folder), str(away)))
        verdict = inspect(*args, **kwargs)
        ok(student.run("sh", "-c", 'mv "$1" "$2" && ln -s "$3" "$1"', "swap", str(folder), str(away), str(source)))
        return verdict

    monkeypatch.setattr(collect, "inspect", inspect_then_swap)
    course.collect()
    assert folder.is_symlink(), "the student swapped her folder for a link"
    assert course.filed().read_bytes() != instructors, "the instructor's source notebook was filed as the student's"
    assert course.filed().read_bytes() == hers


def test_bytes_written_while_they_are_copied_are_copied_again_and_received_after_the_write(course, area, monkeypatch):
    """While collect reads her notebook the student writes a new one over it: the copy is made again,
    the later bytes are filed, and their receipt time is no earlier than the moment she began to write."""
    student = User(STUDENT, area)
    folder = _hand_in(student, course.inbound, _notebook("first"))
    later = _notebook("a longer answer, written while collect was reading the first")
    write = _writer(student, later, "once")
    notebook = folder / f"{A}.ipynb"
    inode, written = notebook.stat().st_ino, []
    copy = shutil.copyfileobj

    def copy_while_she_writes(source, target, *args):
        if os.fstat(source.fileno()).st_ino == inode and not written:
            written.append(now())
            write(notebook)
        return copy(source, target, *args)

    monkeypatch.setattr(walk.shutil, "copyfileobj", copy_while_she_writes)
    course.collect()
    done = now()
    assert written, "the student wrote while collect read her notebook"
    assert course.filed().read_bytes() == later
    (receipt,) = course.receipts()
    assert written[0] <= receipt.received <= done, (written[0], receipt.received, done)


def test_a_hand_in_that_never_holds_still_is_refused_in_one_line_and_the_earlier_one_stays(
    course, area, monkeypatch, caplog
):
    """The student hands in, it is collected; she hands in again and writes her notebook over each
    time collect reads it: the new hand-in is refused with one line, nothing of it is filed or
    recorded, and the earlier submission stays as it was."""
    student = User(STUDENT, area)
    first = _notebook("first")
    _hand_in(student, course.inbound, first)
    course.collect()
    assert course.filed().read_bytes() == first
    folder = _hand_in(student, course.inbound, _notebook("second"), "2027-03-02 12:00:00.000000 UTC", "2")
    notebook = folder / f"{A}.ipynb"
    inode = notebook.stat().st_ino
    writes = [_writer(student, _notebook("x" * size), f"each-{size}") for size in (10, 20)]
    copy, reads = shutil.copyfileobj, []

    def copy_while_she_writes(source, target, *args):
        if os.fstat(source.fileno()).st_ino == inode:
            writes[len(reads) % 2](notebook)
            reads.append(1)
        return copy(source, target, *args)

    monkeypatch.setattr(walk.shutil, "copyfileobj", copy_while_she_writes)
    caplog.set_level("ERROR")
    course.collect(update=True)
    refused = [r.getMessage() for r in caplog.records if "changed while it was copied" in r.getMessage()]
    assert len(refused) == 1 and str(folder) in refused[0], [r.getMessage() for r in caplog.records]
    assert course.filed().read_bytes() == first
    assert len(course.receipts()) == 1 and len(reads) == collect.TRIES
    assert not list((course.root / "submitted").glob(".collecting-*")), "nothing staged is left behind"


def _no_account() -> int:
    """A uid that no account has."""
    return next(uid for uid in range(61000, 65000) if not _has_account(uid))


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


@pytest.mark.parametrize("owner", ["collector", "no account", "jovyan"])
def test_an_exchange_whose_folders_name_no_student_stops_collect_in_one_line(course, area, owner):
    """Beside a student's own folder, one owned by the collecting account itself, by a uid with no
    account, or by `jovyan` (every student on Zero to JupyterHub): `nbgrader collect` stops with one
    line saying the exchange cannot tell students apart and what to do, and files nothing."""
    student = User(STUDENT, area)
    _hand_in(student, course.inbound, _notebook("mine"))
    other = course.inbound / f"rnnother+{A}+{WHEN}+1"
    other.mkdir()
    (other / f"{A}.ipynb").write_bytes(_notebook("whose?"))
    uid = {"collector": os.geteuid(), "no account": _no_account(), "jovyan": account("jovyan").pw_uid}[owner]
    for path in (other, *other.iterdir()):
        os.chown(path, uid, uid)
    result = run([sys.executable, "-c", NBGRADER_MAIN, "collect", A], cwd=course.root, env=nbgrader_env())
    log = result.stdout + result.stderr
    stops = [line for line in log.splitlines() if "cannot tell students apart" in line]
    assert result.returncode != 0 and len(stops) == 1, log
    assert str(other) in stops[0] and "an account of their own" in stops[0] and "zip_collect" in stops[0], stops[0]
    assert not list((course.root / "submitted").glob("*/*")), "nothing is filed"
    assert course.receipts() == [] and course.receipts("rnnother") == []
