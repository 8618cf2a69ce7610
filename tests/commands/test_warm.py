"""The warm command process (`autograder.commands.warm`): a command it answers prints, writes and
exits as the same command in its own process; its key follows what reaches an import and nothing
else; another user is refused, and sandboxed student code cannot reach it at all. With real accounts:
another account that takes the socket's names, or its folder, first receives nothing of a command
(it runs in its own process), a server of another uid is sent nothing, and another account cannot
reach a real warm process.

A caller killed outright, and Ctrl-C at the caller's terminal, are tested through the warm process
in tests/commands/test_resume.py."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
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

from ..accounts import User, account, needs_accounts, ok, shared_area, student_python
from ..conftest import make_course

A = "ch12_bptt"
#: The account that tries to take the instructor's warm process.
THIEF = "rnnwarmthief"
#: A server, run by the thief, at every name given it (abstract, or in the folder given): it logs
#: what each connection sends, writes to the stdout it was handed and answers exit status 0.
THIEF_SERVER = r"""
import json, os, select, socket, sys
folder, names, log = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
listeners = []
for name in names:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        listener.bind(name if name.startswith("\0") else os.path.join(folder, name))
    except OSError:
        continue
    listener.listen(8)
    listeners.append(listener)
print("ready", len(listeners), flush=True)
while True:
    for listener in select.select(listeners, [], [])[0]:
        connection, _ = listener.accept()
        message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
        with open(log, "a") as out:
            out.write(json.dumps({"bytes": len(message), "fds": len(fds)}) + "\n")
        connection.send(b'{"pid": 1}')
        for fd in fds[1:2]:
            os.write(fd, b"stolen\n")
        for fd in fds:
            os.close(fd)
        connection.send(b'{"status": 0}')
        connection.close()
"""
#: What the thief tries of a warm process: list its folder, connect at every name given it (abstract,
#: or in the folder given); prints what each raised, "done" where it succeeded.
THIEF_CLIENT = r"""
import json, os, socket, sys
folder, names = sys.argv[1], json.loads(sys.argv[2])
def attempt(act):
    try:
        act()
    except OSError as error:
        return type(error).__name__
    return "done"
results = {"list": attempt(lambda: os.listdir(folder))}
for name in names:
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as client:
        path = name if name.startswith("\0") else os.path.join(folder, name)
        results[repr(name)] = attempt(lambda: client.connect(path))
print(json.dumps(results))
"""


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
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograder", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout, done.stderr


def _names(code: str) -> list[str]:
    """Every name a warm process of `code` has been reached at: the abstract ones (any account may
    bind them) and those in the user's folder."""
    return [
        f"\0autograder-warm-{os.getuid()}-{code}",
        f"\0autograder-warm-{os.getuid()}-{code}.starting",
        f"warm-{code}",
        f"warm-{code}.starting",
    ]


@pytest.fixture(scope="module")
def thief_python() -> Path:
    """A bin folder whose `python` the thief's account can run."""
    needs_accounts()
    with shared_area("rnnwarmpython-") as area:
        yield student_python(area, account(THIEF).pw_name)


def _plain(text: str) -> str:
    """Output without what differs between two runs of one command: import times, progress bars, seconds."""
    lines = [
        line
        for line in text.splitlines()
        if not line.startswith("import time:")
        and "submission/s" not in line
        and "s/submission" not in line
        and "it/s" not in line
        and "%|" not in line
    ]
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
    for name, value in (
        ("COURSE_LANG", "zh"),
        ("PYTHONHASHSEED", "1"),
        ("MPLBACKEND", "agg"),
        ("HOME", "/home/y"),
        ("AUTOGRADER_WARM", "30"),
        ("LC_ALL", "C"),
    ):
        assert warm.key({**base, name: value}) != warm.key(base), name


def test_an_unknown_setting_turns_warm_processes_off(monkeypatch):
    for setting, seconds in (
        ("0", 0.0),
        ("off", 0.0),
        ("soon", 0.0),
        ("nan", 0.0),
        ("inf", 0.0),
        ("-5", 0.0),
        ("", warm.IDLE),
        ("45", 45.0),
    ):
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


def test_the_folder_is_in_the_runtime_folder_where_that_is_the_users_alone(tmp_path, monkeypatch, capsys):
    """The sockets' folder is `$XDG_RUNTIME_DIR/autograder` where XDG_RUNTIME_DIR is this user's
    alone, else `$TMPDIR/autograder-<uid>` without a word (a runtime folder open to others, or
    another user's, as after `su`); either is made 0700."""
    runtime, temporary = tmp_path / "runtime", tmp_path / "tmp"
    runtime.mkdir(mode=0o700)
    temporary.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("TMPDIR", str(temporary))
    for mode, made in ((0o700, runtime / "autograder"), (0o755, temporary / f"autograder-{os.getuid()}")):
        runtime.chmod(mode)
        folder = warm._folder()
        assert os.readlink(f"/proc/self/fd/{folder}") == str(made), mode
        os.close(folder)
        assert made.stat().st_mode & 0o777 == 0o700, mode
    assert capsys.readouterr().err == ""


def test_sandboxed_code_cannot_reach_a_warm_process(tmp_path):
    """Student code runs with a private /tmp, no /run and another uid: the folder of the warm
    process's socket is not there, or not its to enter (here a socket this test listens on in that
    folder, which this process reaches)."""
    name = f"test-sandbox-{os.getpid()}"
    folder = warm._folder()
    try:
        path = os.path.join(os.readlink(f"/proc/self/fd/{folder}"), name)
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as listener:
            listener.bind(warm._at(folder, name))
            listener.listen(1)
            assert warm._reachable(name)
            with Session(tmp_path, Limits(CELL_TIMEOUT=30), "en") as session:
                outputs = session.run_cell(
                    f"import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\ns.connect({path!r})"
                )
        os.unlink(name, dir_fd=folder)
    finally:
        os.close(folder)
    assert outputs and outputs[0].output_type == "error", outputs
    assert outputs[0].ename in ("FileNotFoundError", "PermissionError"), outputs


@pytest.mark.parametrize(
    "holder", ["its own folder", "a link to the instructor's", "the instructor's folder open to all"]
)
def test_another_account_that_takes_the_names_first_receives_nothing(course, thief_python, holder):
    """Another account that binds every name the warm process has listened at, abstract and in the
    folder, and takes that folder first (made its own, a link to a folder of the instructor's, or the
    instructor's folder left open to all) receives nothing of the instructor's command: no
    connection, no environment, no descriptor. The command runs in its own process (it imports
    nbgrader itself) and prints, with one line saying why, what it prints alone, with its exit status."""
    with shared_area("rnnwarmthief-") as area:
        area.chmod(0o1777)  # as /tmp
        thief = User(THIEF, area, thief_python)
        env = {**_env("120"), "TMPDIR": str(area)}
        env.pop("XDG_RUNTIME_DIR", None)
        folder = area / f"autograder-{os.getuid()}"
        if holder == "its own folder":
            ok(thief.python(f"import os; os.mkdir({str(folder)!r}); os.chmod({str(folder)!r}, 0o777)"))
        elif holder == "a link to the instructor's":
            (area / "private").mkdir(mode=0o700)
            ok(thief.python(f"import os; os.symlink({str(area / 'private')!r}, {str(folder)!r})"))
        else:
            folder.mkdir()
            folder.chmod(0o777)
        log = thief.home / "log"
        server = subprocess.Popen(
            thief.command(
                str(thief_python / "python"),
                "-c",
                THIEF_SERVER,
                str(folder),
                json.dumps(_names(warm.key(env))),
                str(log),
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert server.stdout.readline().startswith("ready"), server.stderr.read()
            answered = _command(course, env, "autograde", "no_such_assignment")
        finally:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        alone = _command(course, {**env, "AUTOGRADER_WARM": "0"}, "autograde", "no_such_assignment")
        received = log.read_text() if log.exists() else ""
        linked = sorted(os.listdir(area / "private")) if holder == "a link to the instructor's" else []
    assert received == "", received
    assert linked == []
    assert "nbgrader.api" in answered[2]
    assert answered[0] == alone[0] != 0, answered[2][-2000:]
    assert _plain(answered[1]) == _plain(alone[1]) and "stolen" not in answered[1]
    why = [line for line in answered[2].splitlines() if line.startswith("autograder: no warm process:")]
    assert len(why) == 1 and str(folder) in why[0], answered[2][-2000:]
    assert _plain(answered[2].replace(why[0], "")) == _plain(alone[2])


def test_a_server_of_another_uid_is_sent_nothing(monkeypatch, tmp_path, capsys):
    """A server at the warm process's names whose uid (from the kernel) is not the caller's is
    sent nothing: the caller connects, reads the peer's uid, closes and runs the command itself.
    (Only root can put another uid's socket in the user's folder: here a child binds as root and
    listens as the thief.)"""
    needs_accounts()
    thief = account(THIEF)
    monkeypatch.setenv("AUTOGRADER_WARM", "120")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    folder = tmp_path / f"autograder-{os.getuid()}"
    folder.mkdir(mode=0o700)
    names = _names(warm.key())
    ready, report = os.pipe()
    pid = os.fork()
    if pid == 0:  # binds every name as root, then listens as the thief
        try:
            os.chdir(folder)
            listeners = [socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in names]
            for listener, name in zip(listeners, names):
                listener.bind(name)
            os.setgid(thief.pw_gid)
            os.setuid(thief.pw_uid)
            for listener in listeners:
                listener.listen(1)
            os.write(report, b"ready\n")
            seen = {"connected": False}
            found = select.select(listeners, [], [], 60)[0]  # a bound on a broken caller, not a measurement
            if found:
                connection, _ = found[0].accept()
                message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
                seen = {"connected": True, "bytes": len(message), "fds": len(fds)}
            os.write(report, json.dumps(seen).encode() + b"\n")
        finally:
            os._exit(0)
    os.close(report)
    with os.fdopen(ready) as lines:
        assert lines.readline() == "ready\n"
        assert warm.forwarded(["--help"]) is None
        seen = json.loads(lines.readline())
    os.waitpid(pid, 0)
    assert seen == {"connected": True, "bytes": 0, "fds": 0}
    assert f"held by uid {thief.pw_uid}" in capsys.readouterr().err


def test_another_account_cannot_reach_a_real_warm_process(course, thief_python, monkeypatch):
    """The folder of a real warm process's socket is the instructor's alone (0700, the socket 0600):
    another account can neither list it nor connect to the socket, and no abstract name answers."""
    with shared_area("rnnwarmreach-") as area:
        monkeypatch.setenv("TMPDIR", str(area))
        monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
        env = _env("120")
        subprocess.run(
            [sys.executable, "-m", "autograder", "--help"], cwd=course, env=env, stdout=subprocess.DEVNULL, check=True
        )
        _up(env)
        folder = area / f"autograder-{os.getuid()}"
        names = _names(warm.key(env))
        thief = User(THIEF, area, thief_python)
        tried = thief.python(THIEF_CLIENT, str(folder), json.dumps(names))
        results = json.loads(ok(tried).stdout)
        assert "done" not in results.values(), results
        assert results["list"] == "PermissionError" and results[repr(names[2])] == "PermissionError", results
        modes = {path.name: path.stat().st_mode & 0o777 for path in folder.iterdir()}
        assert folder.stat().st_mode & 0o777 == 0o700
        assert names[2] in modes and set(modes.values()) == {0o600}, modes


def test_an_autograde_prints_the_scores_of_so_many_and_says_how_many_more(course, monkeypatch, capsys):
    """The score table of an autograde holds `cli.SHOWN` submissions (its class data those alone:
    the command's memory does not grow with the class); a line says how many more the report shows."""
    from autograder.commands import cli

    monkeypatch.setattr(cli, "SHOWN", 1)
    assert cli.main(["--root", str(course), "autograde", A, "--redo", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "mistaken" in out and "reference  " not in out, out
    assert "... and 1 more graded submissions" in out and "autograded 2 of 2" in out, out


@pytest.mark.parametrize(
    "message",
    [
        b"not json",
        b'["report"]',
        b'{"argv": [["report"]], "cwd": "/", "env": {}}',
        b'{"argv": ["report"], "cwd": "/", "env": {"A": 1}}',
        b'{"argv": ["report"]}',
    ],
)
def test_a_malformed_request_is_refused_and_its_descriptors_closed(message):
    """A request the warm process cannot read whole (not JSON, not strings, a part missing) is
    refused with ValueError before anything forks, and the terminal it carried is closed."""
    name = b"\0autograder-warm-test-malformed-" + str(os.getpid()).encode()
    with (
        socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as listener,
        socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as client,
    ):
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


def test_a_course_folder_holding_a_copy_of_the_package_is_served_warm(tmp_path):
    """The command imports the copy (its folder is first on its path); the warm process imports the
    same copy, so its key agrees and the second command is answered warm."""
    root = make_course(tmp_path / "course", [A])
    for part in ("autograder", "data"):  # the package, and the book's data it reads beside it
        shutil.copytree(
            warm.PACKAGE.parent / part, root / part, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True
        )
        subprocess.run(["chmod", "-R", "go-rwx", str(root / part)], check=True)  # what the course keeps is private
    hot = _env("120")
    first = _command(root, hot, "export")
    assert first[0] == 0, first[2][-2000:]
    copy_key = subprocess.run(
        [sys.executable, "-c", "from autograder.commands import warm; print(warm.key())"],
        cwd=root,
        env=hot,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert copy_key and copy_key != warm.key(hot), "the copy is another package: its own key"
    name = warm.address(copy_key)
    for _ in range(300):
        if warm._reachable(name):
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the warm process of the copy did not come up")
    second = _command(root, hot, "export")
    assert second[0] == 0 and "nbgrader.api" in first[2] and "nbgrader.api" not in second[2]


def test_a_warm_process_that_cannot_serve_is_not_started_again():
    code = "0" * 32  # no package has it: the warm process warms up, then finds it cannot serve
    folder = warm._folder()
    assert folder is not None
    try:
        assert not warm._cannot_serve(folder, code)
        warm._start(code)
        for _ in range(300):
            if warm._cannot_serve(folder, code):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the warm process left no mark")
        assert not warm._reachable(warm.address(code)), "it serves nothing"
    finally:
        with contextlib.suppress(OSError):
            os.unlink(warm.address(code) + warm._CANNOT, dir_fd=folder)
        os.close(folder)
