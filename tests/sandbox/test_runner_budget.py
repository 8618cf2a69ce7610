"""Every runner in its budget, every time (`rnnkit.jail`'s cgroups, `autograder.sandbox`): cells
whose processes together pass the runner's MEMORY_LIMIT_MB are stopped by the runner's cgroup on
every repetition, with several runners at once, zygotes starting beside them and a grader of another
pid namespace (a container sharing this host's cgroups) sweeping the cgroup folders of owners it
cannot see; a runner that cannot join its budget, and a zygote that came up without budgets, run no
student code, and that is the machine's fault (`RunnerBroken`), never the student's.

The same fan-out through the command line and the warm command process is in
tests/sandbox/test_infrastructure.py."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from autograder.sandbox import session as session_module
from autograder.sandbox.session import Session
from autograder.sandbox.zygote import RunnerBroken, Zygote
from rnnkit import jail
from rnnkit.jail import limits as cgroups
from rnnkit.jail.limits import Limits

from .fanout import FAN_OUT, LIMIT, foreign_sweeps, said, stopped

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or jail.available() is None or jail.budgets() is None,
    reason="needs root, the sandbox and a writable cgroup (the budgets under test)",
)


@pytest.fixture
def on_channels(monkeypatch):
    """Sessions made in a thread use the channel that thread gave the function returned."""
    local = threading.local()
    monkeypatch.setattr(session_module, "zygote_channel", lambda: local.channel)
    return lambda channel: setattr(local, "channel", channel)


def test_a_fan_out_past_the_budget_is_stopped_every_time_under_load(tmp_path, on_channels):
    """Three zygotes start at once beside a foreign grader's sweeps, then two runners of each fan
    out at the same time, four times over: every time, fewer than all the children hold their
    blocks at once (the runner's cgroup stopped the group), and no runner failed to start."""
    (tmp_path / "work").mkdir()
    said_by: list[str] = []

    def grade(channel) -> None:
        on_channels(channel)
        for _ in range(4):
            try:
                with Session(tmp_path / "work", Limits(MEMORY_LIMIT_MB=LIMIT, CELL_TIMEOUT=60), "en") as session:
                    said_by.append(said(session.run_cell(FAN_OUT)))
            except RunnerBroken as broken:
                said_by.append(f"RunnerBroken: {broken}")

    with foreign_sweeps():
        zygotes = [Zygote(channels=2) for _ in range(3)]
        threads = [threading.Thread(target=grade, args=(channel,)) for zygote in zygotes for channel in zygote.channels]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
        finally:
            for zygote in zygotes:
                zygote.close()
    assert len(said_by) == 24 and all(map(stopped, said_by)), said_by


def test_a_runner_that_cannot_join_its_budget_runs_nothing_and_is_not_the_students(tmp_path, on_channels):
    """The zygote's cgroup folders gone after it started (removed by another process): its next
    runner cannot make its cgroup, says so before any cell, and the session stops with
    RunnerBroken, the machine's fault, instead of a cell failed by a dead kernel."""
    zygote = Zygote()
    on_channels(zygote.channels[0])
    try:
        assert zygote.channels[0].isolation is not None
        namespace = cgroups._owner().split("-")[0]
        owner = f"rnnkit-{namespace}-{zygote.process.pid}-{cgroups._started(str(zygote.process.pid))}"
        parents = [os.path.join(os.path.dirname(parent), owner) for parent in jail._cgroups.parents]
        for parent in parents:
            os.rmdir(parent)
        (tmp_path / "work").mkdir()
        with Session(tmp_path / "work", Limits(MEMORY_LIMIT_MB=LIMIT), "en") as session:
            with pytest.raises(RunnerBroken, match="a sandboxed runner could not start: .*cgroup"):
                session.run_cell(FAN_OUT)
    finally:
        zygote.close()


def test_a_zygote_that_came_up_without_budgets_runs_no_student_code(tmp_path, monkeypatch, on_channels):
    """A zygote that found no cgroup to make (whatever stopped it: here its setup finds none) would
    run every runner with the rlimits alone, where the fan-out holds all its blocks: the session
    refuses it before any cell, as the machine's fault."""
    without = tmp_path / "python-without-cgroups"
    without.write_text(f"""#!/bin/sh
shift 3
exec {sys.executable} -I -c 'import runpy, rnnkit.jail as jail; jail._cgroup_setup = lambda: None; \
runpy.run_module("rnnkit.runner", run_name="__main__")' "$@"
""")
    without.chmod(0o755)
    with monkeypatch.context() as started_by:
        started_by.setattr(sys, "executable", str(without))
        zygote = Zygote()
    on_channels(zygote.channels[0])
    (tmp_path / "work").mkdir()
    try:
        assert zygote.channels[0].isolation.endswith("rlimits per process (no writable cgroup)")
        with pytest.raises(
            RunnerBroken, match="would run student code under the rlimits alone, where this machine gives cgroup v"
        ):
            with Session(tmp_path / "work", Limits(MEMORY_LIMIT_MB=LIMIT), "en") as session:
                session.run_cell(FAN_OUT)
    finally:
        zygote.close()
