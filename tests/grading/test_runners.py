"""The runners and one submission's outcome, without nbgrader: every runner gives the same Outcomes
for the same jobs, and only a failed attempt's record (`layout.FailedAttempt`), never the log, says
whether admission refused a submission and whether another try may succeed."""

from __future__ import annotations

import threading
import time

import pytest

from autograder.coursedir.layout import Course, FailedAttempt
from autograder.grading import runners, worker

JOBS = [("a1", "ann"), ("a1", "bob"), ("a2", "ann"), ("a2", "cy")]


def _graded(root: str, assignment: str, student: str, unsandboxed: bool = False) -> worker.Outcome:
    """A stand-in for `worker.autograde_one`: bob's submissions are refused."""
    refused = f"{root} {unsandboxed}" if student == "bob" else ""
    return worker.Outcome(student, assignment, not refused, 0.0, refused=refused)


def _warm(root: str, unsandboxed: bool = False, counter=None) -> None:
    """A stand-in for `worker.warm`."""


def _by_job(outcomes) -> list[worker.Outcome]:
    return sorted(outcomes, key=lambda o: (o.assignment, o.student))


@pytest.mark.parametrize(
    "runner",
    [runners.InProcess(), runners.Pool(2), runners.OnDask("local", 2)],
    ids=["in-process", "pool", "dask-local"],
)
def test_every_runner_gives_the_same_outcomes_for_the_same_jobs(runner, monkeypatch):
    monkeypatch.setattr(runners, "autograde_one", _graded)
    monkeypatch.setattr(runners, "warm", _warm)
    assert _by_job(runner.run(JOBS, "/course", True, threading.Event())) == _by_job(
        _graded("/course", a, s, True) for a, s in JOBS
    )


def _profiled(root: str, assignment: str, student: str, unsandboxed: bool = False) -> bool:
    """A stand-in for `worker.autograde_one`: whether the Dask worker it runs on samples its stack."""
    from distributed import get_worker

    return "profile" in get_worker().periodic_callbacks


#: What `_warm_counted` was called with, in this process.
WARMED: list[tuple[str, bool]] = []


def _warm_counted(root: str, unsandboxed: bool = False) -> None:
    """A stand-in for `worker.warm` that counts the workers it warmed (a cluster in this process)."""
    WARMED.append((root, unsandboxed))


def _until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the cluster did not get there in time"
        time.sleep(0.05)


def test_no_dask_worker_keeps_a_profile_of_the_grading(monkeypatch):
    """Dask's profiler keeps a profile of each second graded (a worker's memory grew with the class):
    off in the local cluster's workers."""
    monkeypatch.setattr(runners, "autograde_one", _profiled)
    monkeypatch.setattr(runners, "warm", _warm)
    assert list(runners.OnDask("local", 1).run(JOBS[:1], "/course", True, threading.Event())) == [False]


def test_every_worker_of_a_cluster_elsewhere_is_prepared_while_the_run_lasts_and_only_then(monkeypatch):
    """A cluster started elsewhere with Dask's defaults: its worker, and one that joins in the middle
    of the run (as one its nanny starts again does), is warmed and its profiler stopped before its
    first submission; a worker that joins after the run is left as it comes."""
    from dask.distributed import LocalCluster

    monkeypatch.setattr(runners, "autograde_one", _profiled)
    monkeypatch.setattr(runners, "warm", _warm_counted)
    WARMED.clear()
    with LocalCluster(n_workers=1, processes=False) as elsewhere:
        assert all("profile" in worker.periodic_callbacks for worker in elsewhere.workers.values())
        run = runners.OnDask(elsewhere.scheduler_address, 1).run(JOBS, "/course", True, threading.Event())
        outcomes = [next(run)]
        elsewhere.scale(2)
        _until(lambda: len(WARMED) == 2)
        outcomes += list(run)
        assert outcomes == [False] * len(JOBS) and WARMED == [("/course", True)] * 2
        assert len(elsewhere.workers) == 2 and not any(
            "profile" in worker.periodic_callbacks for worker in elsewhere.workers.values()
        )
        elsewhere.scale(3)
        _until(
            lambda: (
                len(elsewhere.workers) == 3
                and all(worker.status.name == "running" for worker in elsewhere.workers.values())
            )
        )
        assert WARMED == [("/course", True)] * 2
        assert sum("profile" in worker.periodic_callbacks for worker in elsewhere.workers.values()) == 1


def _unprepared(root: str, unsandboxed: bool = False) -> None:
    """A stand-in for `worker.warm` on a worker that cannot read the course."""
    raise RuntimeError(f"no nbgrader_config.py under {root}")


def _never(root: str, assignment: str, student: str, unsandboxed: bool = False) -> worker.Outcome:
    raise AssertionError("a submission was graded by a worker that was not prepared")


def test_a_cluster_whose_worker_cannot_be_prepared_grades_nothing_and_says_why(monkeypatch):
    from dask.distributed import LocalCluster

    monkeypatch.setattr(runners, "autograde_one", _never)
    monkeypatch.setattr(runners, "warm", _unprepared)
    with LocalCluster(n_workers=1, processes=False) as elsewhere:
        with pytest.raises(RuntimeError, match="no nbgrader_config.py under /course"):
            list(runners.OnDask(elsewhere.scheduler_address, 1).run(JOBS, "/course", True, threading.Event()))


def test_choose_runs_one_worker_or_one_job_in_this_process():
    assert isinstance(runners.choose(4, 1), runners.InProcess)
    assert isinstance(runners.choose(1, 4), runners.InProcess)
    assert runners.choose(4, 4) == runners.Pool(4)
    assert runners.choose(1, 4, "local") == runners.OnDask("local", 4)


class _Api:
    """nbgrader's API as `autograde_one` uses it: each autograde writes the next of `attempts` (None:
    the submission was graded, its record removed) and logs `log`."""

    def __init__(self, record, attempts: list[FailedAttempt | None], log: str):
        self.record, self.attempts, self.log, self.calls = record, attempts, log, 0

    def autograde(self, assignment: str, student: str, force: bool, create: bool) -> dict:
        attempt = self.attempts[self.calls]
        self.calls += 1
        if attempt is None:
            self.record.unlink(missing_ok=True)
            return {"success": True, "log": self.log}
        attempt.write(self.record)
        return {"success": False, "log": self.log, "error": ""}


@pytest.fixture
def api(tmp_path, monkeypatch):
    """Make the nbgrader API of `autograde_one` an `_Api` over course root tmp_path."""
    monkeypatch.setattr(worker.time, "sleep", lambda seconds: None)

    def make(attempts: list[FailedAttempt | None], log: str) -> _Api:
        fake = _Api(Course(tmp_path).failed_attempt("ann", "a1"), attempts, log)
        monkeypatch.setattr(worker, "nbgrader_api", lambda root, unsandboxed=False: fake)
        return fake

    return make


def test_refused_is_the_records_reason_whatever_the_log_says(api, tmp_path):
    api(
        [FailedAttempt("its notebook is a symbolic link", refused=True)], "[ERROR] failed a1 of ann: database is locked"
    )
    outcome = worker.autograde_one(str(tmp_path), "a1", "ann")
    assert not outcome.ok and outcome.refused == "its notebook is a symbolic link"
    api([FailedAttempt("the grader failed: KeyError: 'x'", refused=False)], "[ERROR] refused a1 of ann: it is a FIFO")
    outcome = worker.autograde_one(str(tmp_path), "a1", "ann")
    assert not outcome.ok and outcome.refused == "" and "refused a1 of ann" in outcome.log


def test_only_a_transient_record_is_tried_again(api, tmp_path):
    locked = FailedAttempt("the grader failed: OperationalError: database is locked", refused=False, transient=True)
    fake = api([locked, None], "")
    assert worker.autograde_one(str(tmp_path), "a1", "ann").ok and fake.calls == 2
    fake = api([locked] * 3, "")
    assert not worker.autograde_one(str(tmp_path), "a1", "ann").ok and fake.calls == 3
    fake = api(
        [FailedAttempt("the grader failed: KeyError: 'x'", refused=False), None],
        "sqlite3 sqlalchemy database is locked",
    )
    assert not worker.autograde_one(str(tmp_path), "a1", "ann").ok and fake.calls == 1


def test_a_fork_waits_for_a_log_write_in_flight_so_the_child_can_log(monkeypatch):
    """A handler that holds its stream's lock while it writes, entered by another thread: a fork in
    the middle of that write would leave the child's copy of the lock held for ever."""
    import logging
    import os
    import time

    stream_lock, writing = threading.Lock(), threading.Event()

    class SlowHandler(logging.Handler):
        def emit(self, record):
            with stream_lock:
                writing.set()
                time.sleep(0.3)

    logger = logging.getLogger("tests.fork-between-writes")
    logger.propagate, handler = False, SlowHandler()
    logger.addHandler(handler)
    try:
        runners._forks_between_log_writes()
        writer = threading.Thread(target=logger.warning, args=("a line",))
        writer.start()
        writing.wait(5)
        pid = os.fork()
        if pid == 0:
            os._exit(0 if stream_lock.acquire(timeout=2) else 1)
        writer.join()
        assert os.waitpid(pid, 0)[1] == 0
    finally:
        logger.removeHandler(handler)
