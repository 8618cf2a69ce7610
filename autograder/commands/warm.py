"""The warm command process: started by a command line, reused by the next ones.

`python -m autograder ...` first asks the warm process of this user, Python and code (`key`) to run
the command (`forwarded`). It forks a child for it, in the caller's folder, with the caller's
arguments, environment and terminal (stdin, stdout and stderr handed over), which passes back its
exit status; the caller's Ctrl-C and other stop signals are passed on to that child, and a caller
killed outright takes the child with it. Where none answers, the command runs in its own process as
before and starts one for the next command (`AUTOGRADER_WARM=0` does neither).

What is reused is only what no course changes: the imports of every command and what grading needs
whatever the course (`course.preload`: references, the mistakes' namespaces, the student HTML
cleaner's patterns), and sandbox zygotes that no runner has used yet: two are kept (`_KEPT`), a
grading command's child is handed the first, and the next grading command the second at once;
the one given away is replaced once no grading command is running, so that a zygote's warm-up (about a
CPU-second) never competes with a class being graded. Each child reads its course afresh.
The key is a digest of the package's files, the installed kit's and the environment's package list,
the interpreter and the environment variables that reach an import (`_ENVIRONMENT`): change any of
them and the next command starts a process of its own. The warm process runs on the interpreter by
its normal path and imports the package the command imported, wherever that lies (a course folder
holding a copy of it); one that still finds, once warm, that it cannot serve the command's key leaves
a mark beside its socket (`_CANNOT`), and the commands of that key run on their own for `IDLE`
seconds without starting another.

Each end authenticates the other. The socket (0600) lives in a folder of the user's alone (`_folder`:
`$XDG_RUNTIME_DIR/autograder` where that runtime folder is the user's alone, else
`$TMPDIR/autograder-<uid>`, TMPDIR /tmp by default, made 0700), which each end checks on a descriptor
before use: a real folder (not a link), the user's, that group and others cannot enter. The caller
then takes the server's uid from the kernel (SO_PEERCRED on the connected socket) and sends nothing
unless it is its own; the warm process refuses a caller of another uid the same way. Where a check
fails the command runs in its own process (a folder that fails says why in one line on stderr).
Sandboxed student code cannot reach the socket: it runs as another uid, with a private /tmp and no
/run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from pathlib import Path

#: Seconds without a command after which the warm process ends.
IDLE = 900
#: The environment variables that reach an import (by name prefix); the rest reach only the child.
_ENVIRONMENT = (
    "PYTHON",
    "LANG",
    "LC_",
    "COURSE",
    "AUTOGRADER",
    "NBGRADER",
    "JUPYTER",
    "MPL",
    "OMP",
    "OPENBLAS",
    "MKL",
    "SYMPY",
    "TZ",
    "HOME",
    "XDG_",
    "TMPDIR",
    "VIRTUAL_ENV",
)
#: The largest request (arguments, folder and environment) a client sends.
_REQUEST = 1 << 20
#: Where a warm process that is still importing answers (it takes no command there), after `address`.
_STARTING = ".starting"
#: Beside `address`: a warm process of that code could not serve (`_cannot_serve`).
_CANNOT = ".cannot-serve"
#: The package's folder, by its real path.
PACKAGE = Path(__file__).resolve().parent.parent
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
    digest.update(f"{_interpreter()}\0{sys.version}\0{os.getuid()}\0".encode())
    for name, value in sorted((os.environ if environ is None else environ).items()):
        if name.startswith(_ENVIRONMENT):
            digest.update(f"{name}={value}\0".encode(errors="surrogateescape"))
    kit = importlib.util.find_spec("rnnkit")
    folders = [PACKAGE] + [Path(p) for p in (kit.submodule_search_locations if kit else [])]
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if "__pycache__" not in path.parts and path.is_file():
                digest.update(f"{path}\0".encode(errors="surrogateescape"))
                digest.update(path.read_bytes())
    for entry in sorted(sys.path):
        if entry.endswith("site-packages") and os.path.isdir(entry):
            digest.update("\0".join(sorted(os.listdir(entry))).encode(errors="surrogateescape"))
    return digest.hexdigest()[:32]


def _interpreter() -> str:
    """This interpreter by its normal path (`course/../.venv/bin/python` is `.venv/bin/python`); not
    its real path: a venv's python is a link to the base interpreter, which would leave the venv."""
    return os.path.normpath(sys.executable)


def address(code: str) -> str:
    """The name, in this user's folder (`_folder`), of the socket of the warm process of `code` (`key`)."""
    return f"warm-{code}"


def _folder() -> int | None:
    """A descriptor of this user's folder of warm process sockets: `$XDG_RUNTIME_DIR/autograder` where
    XDG_RUNTIME_DIR is a folder of this user's alone, else `$TMPDIR/autograder-<uid>` (/tmp without
    TMPDIR), made 0700 where missing. None, with why on stderr, where it is not a folder of this
    user's alone (another account made it, group or others may enter it, a link)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    try:
        parent = _private(runtime) if os.path.isabs(runtime) else None
    except OSError:
        parent = None
    if parent is None:
        temporary = os.environ.get("TMPDIR", "")
        name = os.path.join(temporary if os.path.isabs(temporary) else "/tmp", f"autograder-{os.getuid()}")
    else:
        name = "autograder"
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent)
        return _private(name, parent)
    except OSError as error:
        where = os.path.join(runtime, name) if parent is not None else name
        print(
            f"autograder: no warm process: {where} is not a folder of this user's alone ({error.strerror or error})",
            file=sys.stderr,
        )
        return None
    finally:
        if parent is not None:
            os.close(parent)


def _private(name: str, parent: int | None = None) -> int:
    """A descriptor of the folder `name` (in the folder `parent`, else a path), opened without
    following a link, where it is this user's and group and others have no access; OSError else."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    found = os.fstat(fd)
    if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o077:
        return fd
    os.close(fd)
    raise PermissionError(f"owned by uid {found.st_uid}, mode {stat.S_IMODE(found.st_mode):04o}")


def _at(folder: int, name: str) -> str:
    """The path of `name` in the folder of the descriptor `folder` (for bind and connect, which take no descriptor)."""
    return f"/proc/self/fd/{folder}/{name}"


def _peer(connection: socket.socket) -> int:
    """The uid of the process at the other end of `connection`, from the kernel."""
    return struct.unpack("iII", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("iII")))[1]


# --------------------------------------------------------------------------- the caller


def forwarded(argv: list[str]) -> int | None:
    """Run the command `argv` in the warm process and return its exit status; None where there is
    none to run it (one is started for the next command), it is turned off, or its folder or its uid
    is not this user's."""
    if not idle():
        return None
    code = key()
    folder = _folder()
    if folder is None:
        return None
    client = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        client.connect(_at(folder, address(code)))
    except OSError:
        client.close()
        starting = _connects(_at(folder, address(code) + _STARTING))
        if not starting and not _cannot_serve(folder, code):  # none warming up, and none that could not serve
            _start(code)
        return None
    finally:
        os.close(folder)
    uid = _peer(client)
    if uid != os.getuid():
        client.close()
        print(f"autograder: no warm process: its socket is held by uid {uid}", file=sys.stderr)
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
        print(
            "autograder: the command's process ended without an exit status (killed, or out of memory)", file=sys.stderr
        )
        return 1


def _reachable(name: str) -> bool:
    """Whether a process listens at `name` in this user's folder (`_folder`)."""
    folder = _folder()
    if folder is None:
        return False
    try:
        return _connects(_at(folder, name))
    finally:
        os.close(folder)


def _connects(path: str) -> bool:
    """Whether a process listens at the socket `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


def _pass_on(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _cannot_serve(folder: int, code: str) -> bool:
    """A warm process of `code` warmed up in the last `IDLE` seconds and found it could not serve
    (what it imported is not what the command runs): another would not either, until then."""
    try:
        info = os.stat(address(code) + _CANNOT, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and time.time() - info.st_mtime < IDLE


#: Starts the warm process on the package this command imported (`PACKAGE`), wherever that lies: a
#: course folder holding a copy of it, or the environment's own.
_BOOTSTRAP = (
    "import importlib.util, os, sys; found = importlib.util.find_spec('autograder'); "
    "found is not None and os.path.dirname(os.path.realpath(found.origin)) == sys.argv[1] "
    "or sys.path.insert(0, os.path.dirname(sys.argv[1])); "
    "from autograder.commands.warm import serve; serve(sys.argv[2])"
)


def _start(code: str) -> None:
    """Start the warm process of `code` in the background, detached from this terminal, on this
    interpreter and this package (`_BOOTSTRAP`)."""
    try:
        subprocess.Popen(
            [_interpreter(), "-c", _BOOTSTRAP, str(PACKAGE), code],
            cwd="/",
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        pass


# --------------------------------------------------------------------------- the warm process


def serve(code: str) -> None:
    """Listen at `address(code)` in this user's folder until `IDLE` seconds pass without a command; a
    second process of the same code, or one whose code changed while it imported, ends at once."""
    import select

    folder = _folder()
    if folder is None:
        return
    starting = _listen(folder, address(code) + _STARTING, 0)  # one warms up at a time
    if starting is None:
        return
    environ, wait = dict(os.environ), idle()
    try:
        _warm_up()
        servable = key(environ) == code
    except Exception:  # noqa: BLE001 - a warm-up that fails serves nothing; each command runs (and reports) on its own
        servable = False
    listener = _listen(folder, address(code), 16) if servable else None
    if not servable:  # the next commands of `code` run on their own, and start no other warm-up
        with contextlib.suppress(OSError):
            os.close(os.open(address(code) + _CANNOT, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=folder))
            os.utime(address(code) + _CANNOT, dir_fd=folder, follow_symlinks=False)
    starting.close()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(address(code) + _STARTING, dir_fd=folder)
    if listener is None:
        return
    _IMPORTED.update({name: value for name, value in os.environ.items() if environ.get(name) != value})
    from ..sandbox import zygote

    given: list = []
    grading: set[int] = set()  # a pidfd of each grading command running
    deadline = time.monotonic() + wait
    while True:
        woken = select.select([listener, *grading], [], [], max(0.0, deadline - time.monotonic()))[0]
        ended = grading & set(woken)  # grading commands that ended
        for fd in ended:
            grading.discard(fd)
            os.close(fd)
        given = [z for z in given if not zygote.cleared(z)]
        _reap()
        if ended and not grading:  # the zygotes for the next commands come up between them, not during one
            zygote.prestart(_CHANNELS, _KEPT)
        if listener not in woken:
            if woken:
                continue
            break
        connection, _ = listener.accept()
        try:
            request, fds = _request(connection)
        except (OSError, ValueError):  # another user's, or not a request
            connection.close()
            continue
        deadline = time.monotonic() + wait
        grades = bool(_GRADING & set(request["argv"]))
        if grades:
            zygote.ready()  # it finds the zygote up
        pid = os.fork()
        if pid == 0:
            try:
                listener.close()
                zygote.forget(keep_first=grades)
                _child(connection, request, fds)  # ends the process
            finally:
                os._exit(1)  # whatever went wrong, the child never goes on as a warm process
        for fd in fds:
            os.close(fd)
        connection.close()
        if grades:
            handed = zygote.hand_off()
            if handed is not None:
                given.append(handed)
            try:
                grading.add(os.pidfd_open(pid))  # readable once the command has ended
            except OSError:  # a kernel without pidfds: the zygotes come up beside the command
                zygote.prestart(_CHANNELS, _KEPT)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(address(code), dir_fd=folder)


def _listen(folder: int, name: str, backlog: int) -> socket.socket | None:
    """A socket listening at `name` in `folder`, which this user alone may connect to (0600); None
    where a process listens there already (a socket left by one that ended is replaced)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    mask = os.umask(0o177)
    try:
        if not _connects(_at(folder, name)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=folder)
        listener.bind(_at(folder, name))
    except OSError:
        listener.close()
        return None
    finally:
        os.umask(mask)
    listener.listen(backlog)
    return listener


#: The variables the warm process's imports set (a command's own process sets them as it imports).
_IMPORTED: dict[str, str] = {}
#: The commands given the zygote kept ready (the others start one of their own if they need one).
_GRADING = {"autograde", "regrade", "demo"}
#: The channels of the zygote kept ready for the next command (its workers and itself).
_CHANNELS = max(2, os.cpu_count() or 1)
#: The zygotes kept ready between grading commands: a command that follows another at once takes
#: the second while the first given away is replaced (a zygote takes about a CPU-second to warm).
_KEPT = 2


def _warm_up() -> None:
    """Import what the commands import and compute what grading needs whatever the course; start the
    sandbox zygotes for the first commands."""
    import gc

    import nbformat  # noqa: F401 - before the assignments, as the commands import it

    from rnnkit import jail

    from ..grading import execute  # noqa: F401
    from ..reporting import classdata, exports, report  # noqa: F401
    from ..sandbox import session, zygote  # noqa: F401
    from . import cli, course  # noqa: F401

    course.preload()
    jail.available()  # the isolation every command announces and checks its zygote against, probed once
    zygote.prestart(_CHANNELS, _KEPT)
    zygote.ready()
    gc.collect()
    gc.freeze()


def _request(connection: socket.socket) -> tuple[dict, list[int]]:
    """The caller's request and its stdin, stdout and stderr; ValueError for another user's."""
    uid = _peer(connection)
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

    return (
        isinstance(request, dict)
        and isinstance(request.get("argv"), list)
        and strings(request["argv"])
        and isinstance(request.get("cwd"), str)
        and isinstance(request.get("env"), dict)
        and strings(request["env"])
        and strings(request["env"].values())
    )


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
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="strict", line_buffering=os.isatty(1)
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )
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
