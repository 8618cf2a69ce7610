"""The warm command process: started by a command line, reused by the next ones.

`python -m autograder ...` first asks the warm process of this user, Python and code (`key`) to run
the command (`forwarded`). It forks a child for it, in the caller's folder, with the caller's
arguments, environment and terminal (stdin, stdout and stderr handed over), which passes back its
exit status; the caller's Ctrl-C and other stop signals are passed on to that child, and a caller
killed outright takes the child with it. Where none answers, the command runs in its own process as
before and starts one for the next command (`AUTOGRADER_WARM=0` does neither).

What is reused is only what no course changes: the imports of every command and what grading needs
whatever the course (`course.preload`: references, the mistakes' namespaces), and a sandbox zygote
that no runner has used yet, handed to one child and replaced. Each child reads its course afresh.
The key is a digest of the package's files, the installed kit's and the environment's package list,
the interpreter and the environment variables that reach an import (`_ENVIRONMENT`): change any of
them and the next command starts a process of its own.

The process listens on an abstract Unix socket: another user is refused (the peer's uid, from the
kernel), and sandboxed student code, in a network namespace of its own, cannot reach it at all.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path

#: Seconds without a command after which the warm process ends.
IDLE = 900
#: The environment variables that reach an import (by name prefix); the rest reach only the child.
_ENVIRONMENT = ("PYTHON", "LANG", "LC_", "COURSE", "AUTOGRADER", "NBGRADER", "JUPYTER", "MPL", "OMP", "OPENBLAS", "MKL",
                "SYMPY", "TZ", "HOME", "XDG_", "TMPDIR", "VIRTUAL_ENV")
#: The largest request (arguments, folder and environment) a client sends.
_REQUEST = 1 << 20
#: Where a warm process that is still importing answers (it takes no command there).
_STARTING = b".starting"
#: The signals a caller passes on to the command's child.
_PASSED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def idle() -> float:
    """Seconds an idle warm process waits for the next command: `AUTOGRADER_WARM` (up to a day), else
    `IDLE`; 0 for anything else ("0", "off", a day or more): no warm process for this command."""
    setting = os.environ.get("AUTOGRADER_WARM", "").strip()
    if not setting:
        return IDLE
    try:
        seconds = float(setting)
    except ValueError:
        return 0.0
    return seconds if 0 < seconds <= 86400 else 0.0


def key(environ: dict[str, str] | None = None) -> str:
    """What the warm process must share with a command to run it: a digest of the interpreter, the
    package's and the kit's files, the environment's installed distributions and `_ENVIRONMENT` of
    `environ` (this process's environment by default)."""
    import importlib.util

    digest = hashlib.sha256()
    digest.update(f"{sys.executable}\0{sys.version}\0{os.getuid()}\0".encode())
    for name, value in sorted((os.environ if environ is None else environ).items()):
        if name.startswith(_ENVIRONMENT):
            digest.update(f"{name}={value}\0".encode(errors="surrogateescape"))
    kit = importlib.util.find_spec("rnnkit")
    folders = [Path(__file__).resolve().parent.parent] + [Path(p) for p in (kit.submodule_search_locations if kit else [])]
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if "__pycache__" not in path.parts and path.is_file():
                digest.update(f"{path}\0".encode(errors="surrogateescape"))
                digest.update(path.read_bytes())
    for entry in sorted(sys.path):
        if entry.endswith("site-packages") and os.path.isdir(entry):
            digest.update("\0".join(sorted(os.listdir(entry))).encode(errors="surrogateescape"))
    return digest.hexdigest()[:32]


def address(code: str) -> bytes:
    """The abstract socket of the warm process of `code` (`key`) for this user."""
    return f"\0autograder-warm-{os.getuid()}-{code}".encode()


# --------------------------------------------------------------------------- the caller


def forwarded(argv: list[str]) -> int | None:
    """Run the command `argv` in the warm process and return its exit status; None where there is
    none to run it (one is started for the next command) or it is turned off."""
    if not idle():
        return None
    code = key()
    client = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        client.connect(address(code))
    except OSError:
        client.close()
        if not _reachable(address(code) + _STARTING):  # none warming up either
            _start(code)
        return None
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode(errors="surrogateescape")
    try:
        socket.send_fds(client, [request], [0, 1, 2])
        pid = json.loads(client.recv(_REQUEST) or b"{}").get("pid")
    except (OSError, ValueError):
        client.close()
        return None  # it went away before taking the command: run it here
    if not pid:
        client.close()
        return None
    for number in _PASSED:
        signal.signal(number, lambda signum, frame: _pass_on(pid, signum))
    try:
        return int(json.loads(client.recv(_REQUEST))["status"])
    except (ValueError, KeyError, TypeError):
        print("autograder: the command's process ended without an exit status (killed, or out of memory)", file=sys.stderr)
        return 1


def _reachable(name: bytes) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as probe:
        try:
            probe.connect(name)
        except OSError:
            return False
    return True


def _pass_on(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _start(code: str) -> None:
    """Start the warm process of `code` in the background, detached from this terminal."""
    try:
        subprocess.Popen([sys.executable, "-m", "autograder.commands.warm", code], cwd="/", start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        pass


# --------------------------------------------------------------------------- the warm process


def serve(code: str) -> None:
    """Listen at `address(code)` until `IDLE` seconds pass without a command; a second process of
    the same code, or one whose code changed while it imported, ends at once."""
    import select

    starting = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        starting.bind(address(code) + _STARTING)  # one warms up at a time
    except OSError:
        return
    starting.listen(0)
    environ, wait = dict(os.environ), idle()
    _warm_up()
    if key(environ) != code:
        return
    _IMPORTED.update({name: value for name, value in os.environ.items() if environ.get(name) != value})
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        listener.bind(address(code))
    except OSError:
        return
    listener.listen(16)
    starting.close()
    from ..sandbox import zygote

    given: list = []
    while select.select([listener], [], [], wait)[0]:
        connection, _ = listener.accept()
        given = [z for z in given if not zygote.cleared(z)]
        _reap()
        try:
            request, fds = _request(connection)
        except (OSError, ValueError):  # another user's, or not a request
            connection.close()
            continue
        grading = bool(_GRADING & set(request["argv"]))
        pid = os.fork()
        if pid == 0:
            try:
                listener.close()
                if not grading:
                    zygote.forget()
                _child(connection, request, fds)  # ends the process
            finally:
                os._exit(1)  # whatever went wrong, the child never goes on as a warm process
        for fd in fds:
            os.close(fd)
        connection.close()
        if grading:
            handed = zygote.hand_off()
            if handed is not None:
                given.append(handed)
            zygote.prestart(_CHANNELS)
            zygote.ready()  # before the next command is taken: it finds the zygote up


#: The variables the warm process's imports set (a command's own process sets them as it imports).
_IMPORTED: dict[str, str] = {}
#: The commands given the zygote kept ready (the others start one of their own if they need one).
_GRADING = {"autograde", "regrade", "demo"}
#: The channels of the zygote kept ready for the next command (its workers and itself).
_CHANNELS = max(2, os.cpu_count() or 1)


def _warm_up() -> None:
    """Import what the commands import and compute what grading needs whatever the course; start a
    sandbox zygote for the first command."""
    import gc

    import nbformat  # noqa: F401 - before the assignments, as the commands import it

    from ..grading import execute  # noqa: F401
    from ..reporting import classdata, exports, report  # noqa: F401
    from ..sandbox import session, zygote  # noqa: F401
    from . import cli, course  # noqa: F401

    course.preload()
    zygote.prestart(_CHANNELS)
    zygote.ready()
    gc.collect()
    gc.freeze()


def _request(connection: socket.socket) -> tuple[dict, list[int]]:
    """The caller's request and its stdin, stdout and stderr; ValueError for another user's."""
    uid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[1]
    connection.settimeout(5)
    message, fds, _, _ = socket.recv_fds(connection, _REQUEST, 3)
    try:
        request = json.loads(message)
    except ValueError:
        request = None
    refused = ""
    if uid != os.getuid():
        refused = f"a request from uid {uid}"
    elif len(fds) != 3:
        refused = "a request without its terminal"
    elif not _well_formed(request):
        refused = "a malformed request"
    if refused:
        for fd in fds:
            os.close(fd)
        raise ValueError(refused)
    return request, fds


def _well_formed(request) -> bool:
    """Whether a request holds its arguments, folder and environment, all strings."""
    def strings(values) -> bool:
        return all(isinstance(value, str) for value in values)

    return (isinstance(request, dict) and isinstance(request.get("argv"), list) and strings(request["argv"])
            and isinstance(request.get("cwd"), str) and isinstance(request.get("env"), dict)
            and strings(request["env"]) and strings(request["env"].values()))


def _reap() -> None:
    """Collect the children that ended (commands; zygotes given away are collected by `cleared`)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _child(connection: socket.socket, request: dict, fds: list[int]) -> None:
    """Run one command as its own process would, then tell the caller its exit status."""
    import atexit
    import io
    import threading

    connection.settimeout(None)
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
        os.close(fd)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="strict")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="strict", line_buffering=os.isatty(1))
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ.update(_IMPORTED)
    sys.argv = [sys.argv[0], *request["argv"]]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, signal.SIG_DFL)
    connection.send(json.dumps({"pid": os.getpid()}).encode())

    finished = threading.Event()

    def watch() -> None:  # the caller gone (killed outright): go as it went
        try:
            connection.recv(1)
        except OSError:
            pass
        if not finished.is_set():
            os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()
    status = run(request["argv"])
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            pass
    finished.set()
    connection.send(json.dumps({"status": status}).encode())
    os._exit(status)


def run(argv: list[str]) -> int:
    """The exit status of the command `argv`, as the interpreter would give it."""
    import traceback

    from .cli import main

    try:
        return int(main(argv) or 0)
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        traceback.print_exc()
        return 130
    except BaseException:  # noqa: BLE001 - as the interpreter reports an uncaught exception
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    serve(sys.argv[1])
