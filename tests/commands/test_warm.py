"""The warm command process (`autograder.commands.warm`): a command it answers prints, writes and
exits as the same command in its own process; its key follows what reaches an import and nothing
else; another user is refused, and sandboxed student code cannot reach it at all.

A caller killed outright, and Ctrl-C at the caller's terminal, are tested through the warm process
in tests/commands/test_resume.py."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands import warm
from autograder.commands.course import nbgrader_env, release
from autograder.reporting import classdata
from autograder.sandbox.session import Session
from rnnkit.jail.limits import Limits

from ..conftest import make_course

A = "ch12_bptt"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    root = make_course(tmp_path_factory.mktemp("warm") / "course", [A])
    release(root, [A])
    notebook = root / "release" / A / f"{A}.ipynb"
    write_submission(root, "reference", A, filled(notebook, get(A)))
    write_submission(root, "mistaken", A, filled(notebook, get(A), get(A).mistakes()[0]))
    return root


def _env(warm_seconds: str) -> dict[str, str]:
    env = nbgrader_env()
    env["AUTOGRADER_WARM"] = warm_seconds
    return env


def _command(root: Path, env: dict, *args: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `python -X importtime -m autograder ARGS` (the import lines
    show what the caller's own process imported)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "autograder", *args], cwd=root, env=env,
                          capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def _plain(text: str) -> str:
    """Output without what differs between two runs of one command: import times, progress bars, seconds."""
    lines = [line for line in text.splitlines() if not line.startswith("import time:") and "submission/s" not in line
             and "s/submission" not in line and "it/s" not in line and "%|" not in line]
    return re.sub(r"\d+\.\d\d s each", "N s each", "\n".join(line for line in lines if line.strip()))


def _up(env: dict) -> None:
    """Wait for the warm process of `env` to answer."""
    name = warm.address(warm.key({k: v for k, v in env.items()}))
    for _ in range(300):
        if warm._reachable(name):
            return
        time.sleep(0.1)
    raise AssertionError("no warm process came up")


def test_a_command_answered_warm_prints_writes_and_exits_as_in_a_process_of_its_own(course):
    cold, hot = _env("0"), _env("120")
    _command(course, hot, "report")  # answered in its own process; starts the warm one
    _up(hot)
    for args in (["autograde", A, "--redo"], ["export"], ["autograde", "no_such_assignment"]):
        alone = _command(course, cold, *args)
        graded_alone = {(r.student, r.grade_id): r.score for r in classdata.collect(course)}
        answered = _command(course, hot, *args)
        assert "nbgrader.api" in alone[2] and "nbgrader.api" not in answered[2], args  # the warm process did the work
        assert answered[0] == alone[0], (args, answered[2][-2000:])
        assert _plain(answered[1]) == _plain(alone[1]), args
        assert _plain(answered[2]) == _plain(alone[2]), args
        assert {(r.student, r.grade_id): r.score for r in classdata.collect(course)} == graded_alone, args
    assert (course / "exports" / "grades.csv").is_file()


def test_the_key_follows_what_reaches_an_import_and_nothing_else():
    base = {"HOME": "/home/x", "PATH": "/usr/bin"}
    assert warm.key(base) == warm.key({**base, "PYTEST_CURRENT_TEST": "a test", "PWD": "/tmp", "SHLVL": "3"})
    for name, value in (("COURSE_LANG", "zh"), ("PYTHONHASHSEED", "1"), ("MPLBACKEND", "agg"), ("HOME", "/home/y"),
                        ("AUTOGRADER_WARM", "30"), ("LC_ALL", "C")):
        assert warm.key({**base, name: value}) != warm.key(base), name


def test_an_unknown_setting_turns_warm_processes_off(monkeypatch):
    for setting, seconds in (("0", 0.0), ("off", 0.0), ("soon", 0.0), ("nan", 0.0), ("inf", 0.0), ("-5", 0.0), ("", warm.IDLE), ("45", 45.0)):
        monkeypatch.setenv("AUTOGRADER_WARM", setting)
        assert warm.idle() == seconds, setting
    monkeypatch.setenv("AUTOGRADER_WARM", "0")
    assert warm.forwarded(["report"]) is None


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to act as another user")
def test_another_user_is_refused(tmp_path):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    name = b"\0autograder-warm-test-" + str(os.getpid()).encode()
    listener.bind(name)
    listener.listen(1)
    pid = os.fork()
    if pid == 0:  # another user: connects, and sends a command with its terminal
        try:
            os.setgid(65534)
            os.setuid(65534)
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as client:
                client.connect(name)
                socket.send_fds(client, [b'{"argv": ["report"], "cwd": "/", "env": {}}'], [0, 1, 2])
        finally:
            os._exit(0)
    connection, _ = listener.accept()
    with pytest.raises(ValueError, match="uid 65534"):
        warm._request(connection)
    os.waitpid(pid, 0)
    connection.close()
    listener.close()


def test_sandboxed_code_cannot_reach_a_warm_process(tmp_path):
    """Student code runs in a network namespace of its own: the abstract socket a warm process
    listens on is not there (here one this test listens on, which this process reaches)."""
    name = b"\0autograder-warm-test-sandbox-" + str(os.getpid()).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as listener:
        listener.bind(name)
        listener.listen(1)
        assert warm._reachable(name)
        with Session(tmp_path, Limits(CELL_TIMEOUT=30), "en") as session:
            outputs = session.run_cell(f"import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\ns.connect({name!r})")
    assert outputs and outputs[0].output_type == "error" and outputs[0].ename == "ConnectionRefusedError", outputs


def test_an_autograde_prints_the_scores_of_so_many_and_says_how_many_more(course, monkeypatch, capsys):
    """The score table of an autograde holds `cli.SHOWN` submissions (its class data those alone:
    the command's memory does not grow with the class); a line says how many more the report shows."""
    from autograder.commands import cli

    monkeypatch.setattr(cli, "SHOWN", 1)
    assert cli.main(["--root", str(course), "autograde", A, "--redo", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "mistaken" in out and "reference  " not in out, out
    assert "... and 1 more graded submissions" in out and "autograded 2 of 2" in out, out


@pytest.mark.parametrize("message", [b"not json", b'["report"]', b'{"argv": [["report"]], "cwd": "/", "env": {}}',
                                     b'{"argv": ["report"], "cwd": "/", "env": {"A": 1}}', b'{"argv": ["report"]}'])
def test_a_malformed_request_is_refused_and_its_descriptors_closed(message):
    """A request the warm process cannot read whole (not JSON, not strings, a part missing) is
    refused with ValueError before anything forks, and the terminal it carried is closed."""
    name = b"\0autograder-warm-test-malformed-" + str(os.getpid()).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as listener, \
            socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as client:
        listener.bind(name)
        listener.listen(1)
        client.connect(name)
        socket.send_fds(client, [message], [0, 1, 2])
        connection, _ = listener.accept()
        with connection:
            before = len(os.listdir("/proc/self/fd"))
            with pytest.raises(ValueError, match="malformed"):
                warm._request(connection)  # receives the three descriptors, and closes them
            assert len(os.listdir("/proc/self/fd")) == before
