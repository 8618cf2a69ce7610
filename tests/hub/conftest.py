"""One demo hub for the hub tests (`running_hub`): started once, stopped by SIGTERM after the last of
them, and then held to leaving nothing running, its port closed and its accounts removed."""

from __future__ import annotations

import time

import pytest

from autograder.hub import accounts, demo, processes

from ..conftest import REPO
from .demo_hub import GRADER, READY, Demo, Running, clean_up, left_running, skip_unless_possible


@pytest.fixture(scope="session")
def running_hub(request):
    skip_unless_possible()
    folder = REPO / demo.FOLDER
    port = processes.free_port()
    base = f"http://127.0.0.1:{port}/"
    start = time.perf_counter()
    hub = Demo(port)
    uids: set[int] = set()
    running = None
    try:
        assert hub.wait_for("hub ready at", READY) == f"hub ready at {base}"
        people = {a.name: a for a in accounts.read_csv(folder / "accounts.csv")}
        uids = {a.uid for a in people.values()}
        running = Running(base, folder, people, {"demo ready": time.perf_counter() - start})
        yield running
    finally:
        step = time.perf_counter()
        code = hub.stop()
        left = left_running(uids, str(folder))
        clean_up(folder)
        times = {**(running.times if running else {}), "stop": time.perf_counter() - step}
        capture = request.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled():
            print("\n  " + "; ".join(f"{what} {seconds:.1f} s" for what, seconds in times.items()))
            print(f"  hub end to end: {time.perf_counter() - start:.1f} s")
    assert code == 0, "\n".join(hub.lines[-20:])
    assert "nothing it started is running" in hub.lines[-1] and "userdel ada" in hub.lines[-1], hub.lines[-1]
    assert not left, left
    assert not processes.listening(port)
    assert GRADER in hub.lines[-1]
