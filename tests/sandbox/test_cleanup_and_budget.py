"""The grader's own clean-up and a submission's budget, without nbgrader: deleting a work folder of
any depth never raises nor follows a link, and a submission's session is stopped by its time or by
its restarts (`Session` keeps the tally against its `Limits`)."""

import os

import pytest

from autograder.sandbox.session import Session, remove_tree
from rnnkit import messages
from rnnkit.checking import StudentFailure
from rnnkit.jail.limits import Limits


def _chain(top, depth: int) -> None:
    """`depth` nested folders below `top`, deeper than PATH_MAX allows by path."""
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        fd, parent = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(parent)
    with open(os.open("last.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as handle:
        handle.write("x")
    os.close(fd)


def test_a_folder_chain_deeper_than_path_max_is_deleted_whole(tmp_path):
    top = tmp_path / "work"
    top.mkdir()
    _chain(top, 3000)  # shutil.rmtree raised RecursionError here
    remove_tree(top)
    assert not top.exists()


def test_removal_does_not_follow_links_out_of_the_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("course file")
    top = tmp_path / "work"
    (top / "sub").mkdir(parents=True)
    (top / "sub" / "to-outside").symlink_to(outside)
    (top / "file-link").symlink_to(outside / "keep.txt")
    remove_tree(top)
    assert not top.exists() and (outside / "keep.txt").read_text() == "course file"


def test_removing_what_is_not_there_is_quiet(tmp_path):
    remove_tree(tmp_path / "missing")
    (tmp_path / "file").write_text("")
    remove_tree(tmp_path / "file")  # not a folder: left alone
    assert (tmp_path / "file").exists()


def test_a_submission_is_stopped_by_its_restarts(tmp_path):
    """A runner that dies is started again, the earlier cells replayed, RUNNER_RESTARTS times; past
    that every cell and call of the submission fails with the budget's message."""
    with Session(tmp_path, Limits(RUNNER_RESTARTS=2), "en") as session:
        assert session.run_cell("def f():\n    return 1") == []
        for started in (1, 2, 3):  # the first runner and two restarts
            assert session.run_cell("import os\nos._exit(1)")[0].ename == "KernelDied" and session.started == started
        spent = messages.text("cell.budget_spent", seconds="600", restarts=2)
        assert session.run_cell("x = 1")[0].evalue == spent
        with pytest.raises(StudentFailure) as failure:
            session.function("f")()
        assert failure.value.message_id == "check.budget_spent" and failure.value.fields["restarts"] == 2


def test_a_submission_is_stopped_by_its_time(tmp_path, monkeypatch):
    """The seconds spent waiting on a submission's runners count against SUBMISSION_TIMEOUT: a cell
    that outlives what is left is cut at it, and the cells after it fail with the budget's message."""
    from autograder.sandbox import zygote
    from autograder.sandbox.session import GRACE

    waits = []
    request = zygote.Runner.request

    def timed(runner, message, timeout, limit):
        waits.append(timeout)
        return request(runner, message, timeout, limit)

    monkeypatch.setattr(zygote.Runner, "request", timed)
    with Session(tmp_path, Limits(SUBMISSION_TIMEOUT=1), "en") as session:
        assert session.run_cell("import time\ntime.sleep(30)")[0].ename == "KernelDied"
        # the runner was waited on for what was left of the budget (and GRACE), not the cell's 120 s
        assert waits == [1 + GRACE]
        assert session.spent >= 1 and session.left() <= 0
        assert session.run_cell("x = 1")[0].evalue == messages.text("cell.budget_spent", seconds="1", restarts=8)


def test_a_check_the_grader_cannot_finish_costs_that_check_only(monkeypatch, caplog):
    """A fault of the grader in one check (here: its grade raises) scores that check 0 with a message
    naming it, and is logged with the student; the submission goes on."""
    import logging

    import nbformat

    from autograder.assignments import get
    from autograder.grading import execute

    from ..attempts import attempt

    def broken(*args, **kwargs):
        raise RuntimeError("a bug of the grader")

    monkeypatch.setattr(execute, "grade_traced", broken)
    cell = nbformat.v4.new_code_cell(
        'check("sgd_update", sgd_update)', metadata={"nbgrader": {"grade_id": "sgd_update", "points": 1}}
    )
    session = type("Session", (), {"function": lambda self, *args, **kwargs: None})()
    grader = execute.TrustedExecute(log=logging.getLogger("grader-under-test"))
    right = {}
    with caplog.at_level(logging.ERROR, logger="grader-under-test"):
        outputs = grader._grade(get("ch12_bptt"), cell, session, attempt("ann"), 3, right)
    seen = [record.getMessage() for record in caplog.records]
    assert outputs[0]["output_type"] == "error" and outputs[0]["evalue"] == messages.text(
        "check.grader_failed", name="sgd_update"
    )
    assert outputs[1]["data"]["text/plain"] == "0.0" and not right["sgd_update"].right
    assert seen and "sgd_update of ann failed" in seen[0] and "a bug of the grader" in seen[0]
