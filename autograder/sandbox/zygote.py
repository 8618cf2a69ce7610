"""The warm zygote: the parent of the sandboxed runners, one per grader process (or one shared by the
workers a grader forks), and the handle of one runner.

The zygote (`python -I -m rnnkit.runner`) imports only the kit; each runner it forks enters the
jail (`rnnkit.jail`): no network, no view of the course root, read-only Python environment, a
scratch copy of the submission as its only writable folder, limits on memory, processes and
output. A spawn request carries the submission's `rnnkit.jail.Limits` whole and the language the
runner speaks.

Two failures are told apart: `RunnerDied`, a runner that stopped while running the student's code
(the student's: the cells it touched fail), and `RunnerBroken`, a zygote or runner that cannot run
student code as this machine must (the machine's: nothing is graded with it).
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping

import rnnkit
from rnnkit import jail, wire
from rnnkit.jail.limits import Limits


class RunnerDied(RuntimeError):
    """The runner stopped answering: killed, crashed, out of memory or past its time."""


class RunnerBroken(BaseException):
    """No runner can run student code as it must here: the zygote did not start, gives other
    isolation than this machine does (`jail.available()`), or a runner could not start (enter its
    sandbox, join its budget, see the Python environment) before running anything of the student's.
    The machine's fault, never the student's: a BaseException, so that no handler of a student's
    failure (a crash, a check that cannot finish) takes it for one."""


#: The names of the folders Python's `site` adds to `sys.path` for installed packages.
SITE_FOLDERS = ("site-packages", "dist-packages")


def _readonly_paths() -> list[str]:
    """What the runner sees of this machine besides the system: the Python installation, the
    virtual environment, every site folder on `sys.path` outside them (a venv over another's
    site-packages, as the hub's staff Python is) and the installed kit, at the paths this interpreter
    uses (the jail follows a link to the real folder). The instructor package must not be among them."""
    paths = {os.path.abspath(sys.base_prefix), os.path.abspath(sys.prefix)}
    prefixes = {os.path.realpath(path) for path in paths}
    for entry in sys.path:
        site = Path(entry)
        if site.name in SITE_FOLDERS and site.is_dir() and not _inside(os.path.realpath(site), prefixes):
            paths.add(os.path.abspath(site))
    real = {os.path.realpath(path) for path in paths}
    kit = Path(rnnkit.__file__).parent
    if not _inside(os.path.realpath(kit), real):
        paths.add(os.path.abspath(kit))
        real.add(os.path.realpath(kit))
    private = os.path.realpath(Path(__file__).parent.parent)
    if _inside(private, real):
        raise RuntimeError(
            f"the instructor package is installed at {private}, inside what the sandbox shows student code; "
            "install it editable (pip install -e .) from the course repository instead"
        )
    return sorted(paths)


def _inside(path: str, folders: set[str]) -> bool:
    """Whether `path` (real) is below one of `folders` (real)."""
    return any(path.startswith(folder + os.sep) for folder in folders)


def _font_lists() -> Path:
    """Where the zygotes' matplotlib font list is kept between runs, so that it is built once per
    user, Python environment and matplotlib version rather than at every zygote start (each
    zygote's matplotlib folder is otherwise a fresh one in its scratch folder)."""
    environment = hashlib.sha256(os.path.realpath(sys.prefix).encode()).hexdigest()[:16]
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rnnkit" / "matplotlib" / environment


def _seed_font_list(folder: Path) -> None:
    """Copy the kept font lists (`fontlist-v<version>.json`, nothing else) into a zygote's fresh
    matplotlib folder; matplotlib rebuilds a list whose version does not match its own."""
    try:
        for kept in _font_lists().glob("fontlist-v*.json"):
            shutil.copyfile(kept, folder / kept.name)
    except (OSError, RuntimeError):  # no home folder, or nothing readable there
        pass


def _keep_font_list(folder: Path) -> None:
    """Keep the font list a zygote built, where none of its version is kept yet."""
    try:
        built = [path for path in folder.glob("fontlist-v*.json") if not (_font_lists() / path.name).exists()]
        if built:
            _font_lists().mkdir(parents=True, exist_ok=True, mode=0o700)
        for path in built:
            partial = _font_lists() / f".{path.name}.{os.getpid()}"
            shutil.copyfile(path, partial)
            os.replace(partial, _font_lists() / path.name)
    except (OSError, RuntimeError):  # no home folder, or not writable: the next zygote builds its own
        pass


class Zygote:
    """The warm parent of the runners: one process, with one control channel per grader process
    that uses it (`channels`), so that workers forked from one parent share a single warm zygote.
    It ends when every channel is closed, whichever process held the last one, not with the
    process that started it (the warm command process hands one to a command and may end first)."""

    def __init__(self, channels: int = 1) -> None:
        self.owner = os.getpid()
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(channels)]
        self.scratch = Path(tempfile.mkdtemp(prefix="rnnkit-scratch-"))
        (self.scratch / "mpl").mkdir()
        _seed_font_list(self.scratch / "mpl")
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": "/tmp",
            "LANG": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1",
            "MPLCONFIGDIR": str(self.scratch / "mpl"),
        }
        fds = [theirs.fileno() for _, theirs in pairs]
        with open(self.scratch / "zygote.log", "wb") as log:  # what it says before it greets (`Channel.isolation`)
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-m", "rnnkit.runner", *map(str, fds)],
                pass_fds=fds,
                cwd="/",
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        for _, theirs in pairs:
            theirs.close()
        self.readonly = _readonly_paths()
        self.channels = [Channel(self, ours) for ours, _ in pairs]
        #: whether a pool of workers (or this process) has taken the channels (`claim`)
        self.claimed = False

    def running(self) -> bool:
        """Whether the zygote is up. Its starter waits for it; a worker forked from the starter
        cannot (the zygote is not its child: `Popen.poll` there would call it finished), so it
        reads the zygote's state instead."""
        if os.getpid() == self.owner:
            return self.process.poll() is None
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as handle:
                return handle.read().rsplit(b")", 1)[-1].split()[:1] not in ([b"Z"], [b"X"])
        except FileNotFoundError:
            return False
        except OSError:
            try:
                os.kill(self.process.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
            return True

    def close(self) -> None:
        if os.getpid() != self.owner:  # a forked copy of this object: the zygote is not ours
            return
        for channel in self.channels:
            channel.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _keep_font_list(self.scratch / "mpl")
        shutil.rmtree(self.scratch, ignore_errors=True)


def _budgets(version: int | None) -> str:
    return f"cgroup v{version} budgets" if version else "the rlimits alone"


class Channel:
    """One grader process's line to the zygote: spawn a runner, kill one."""

    def __init__(self, parent: Zygote, control: socket.socket):
        self.parent, self.control = parent, control
        self.control.settimeout(120)
        self._hello: dict | None = None
        self._verified = False  # `verified`
        self.ran_cell: set[tuple[str, str]] = set()  # (limits, language) a runner of it ran a cell under (preflight)

    @property
    def scratch(self) -> Path:
        return self.parent.scratch

    @property
    def alive(self) -> bool:
        return self.parent.running()

    @property
    def isolation(self) -> str | None:
        """The isolation in force, or None where this machine gives none (waits for the zygote to be
        up); RunnerBroken, with the last line it wrote, where it did not start."""
        if self._hello is None:
            try:
                hello = json.loads(self.control.recv(1 << 16) or b"{}")
            except (OSError, ValueError):
                hello = {}
            if not hello.get("ready"):
                raise RunnerBroken(
                    f"the sandbox's zygote ({sys.executable} -I -m rnnkit.runner) did not start: {self._last_words()}"
                )
            self._hello = hello
        return self._hello.get("isolation")

    @property
    def refusal(self) -> str | None:
        """Why the zygote found no isolation, where it found none (`rnnkit.jail.refusal`)."""
        self.isolation  # noqa: B018 - the zygote is up
        return self._hello.get("refusal")

    def verified(self) -> str | None:
        """`isolation`, found to be what this machine gives student code (this process's
        `rnnkit.jail.available()` and `budgets()`, which the command announced): RunnerBroken
        where the zygote came up with less (no namespaces, or no cgroup: its runners would run
        with the rlimits alone)."""
        found = self.isolation
        if not self._verified:
            expected, budgets, given = jail.available(), jail.budgets(), self._hello.get("budgets")
            if (found is None) != (expected is None) or given != budgets:
                what = f"under {_budgets(given)}" if found else f"unsandboxed ({self.refusal})"
                raise RunnerBroken(
                    f"the sandbox's zygote would run student code {what}, where this machine gives "
                    f"{_budgets(budgets) if expected else 'no sandbox'}"
                )
            self._verified = True
        return found

    def _last_words(self) -> str:
        try:
            lines = (self.scratch / "zygote.log").read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            lines = []
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        return last[:2000] or "it said nothing (is the student kit installed in this environment?)"

    def spawn(self, workdir: Path, limits: Limits, language: str, known: Mapping[str, str]) -> "Runner":
        """A fresh runner under `limits` whose only writable folder is `workdir` and which speaks
        `language`; `known` names the figures (`rnnkit.figures`) it sends as markers instead of drawing."""
        self.isolation  # noqa: B018 - the zygote is up
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        request = {
            "op": "spawn",
            "workdir": str(workdir),
            "readonly": self.parent.readonly,
            "limits": dataclasses.asdict(limits),
            "language": language,
            "figures": list(known),
        }
        socket.send_fds(self.control, [json.dumps(request).encode()], [theirs.fileno()])
        theirs.close()
        return Runner(self, ours, json.loads(self.control.recv(1 << 16))["pid"])

    def kill(self, pid: int) -> None:
        """Kill one runner and everything it started (its namespace goes with it)."""
        try:
            self.control.send(json.dumps({"op": "kill", "pid": pid}).encode())
            self.control.recv(1 << 16)
        except OSError:
            pass


_ZYGOTES: dict[int, Channel] = {}
_SHARED: list[Zygote] = []


def zygote_channel() -> Channel:
    """This process's line to a zygote: started on first use, or adopted from the one its parent
    started for its workers with `prestart`."""
    found = _ZYGOTES.get(os.getpid())
    if found is None or not found.alive:
        own = Zygote()
        atexit.register(own.close)
        found = _ZYGOTES[os.getpid()] = own.channels[0]
    return found


def prestart(workers: int, kept: int = 1) -> None:
    """Start zygotes, each with a channel for each of the `workers` about to use it (forked from
    here, or this process itself: `adopt`), so that one comes up while this process imports and
    prepares, until `kept` of them wait unclaimed (`claim`), the first for the next pool of workers.
    A worker reads its channel's greeting, so a channel serves one worker: each pool of workers gets
    a fresh zygote (one claimed, or with too few channels, is closed), never one another pool used."""
    for previous in [z for z in _SHARED if z.claimed or len(z.channels) < workers or not z.running()]:
        _SHARED.remove(previous)
        previous.close()
    while len(_SHARED) < kept:
        _SHARED.append(Zygote(channels=workers))
        atexit.register(_SHARED[-1].close)


def hand_off() -> Zygote | None:
    """In a process that forked a child to take the first zygote `prestart` started (unclaimed):
    close this process's ends of its channels, so that it ends with the child, and forget it here
    (the next one kept becomes the first); the caller removes its scratch folder once it has ended
    (`cleared`)."""
    if not _SHARED or _SHARED[0].claimed:
        return None
    given = _SHARED.pop(0)
    atexit.unregister(given.close)
    for channel in given.channels:
        channel.control.close()
    return given


def ready() -> None:
    """Wait until the first zygote `prestart` started greets each of its channels (a process forked
    after this finds it up); one that does not come up is closed, and the next one kept waited for."""
    while _SHARED and not _SHARED[0].claimed:
        try:
            for channel in _SHARED[0].channels:
                channel.isolation  # noqa: B018 - its greeting read, and kept for whoever forks from here
            return
        except RunnerBroken:
            _SHARED.pop(0).close()


def forget(keep_first: bool = False) -> None:
    """In a process forked from one that keeps the zygotes `prestart` started for others: close this
    process's copies of their channels and leave them to their owner (all, or all but the first,
    which this process is about to take)."""
    for kept in _SHARED[1 if keep_first else 0 :]:
        if kept.owner != os.getpid():
            _SHARED.remove(kept)
            for channel in kept.channels:
                channel.control.close()


def cleared(given: Zygote) -> bool:
    """Whether a zygote given away (`hand_off`) has ended; its font list kept and scratch folder
    removed when it has."""
    if given.process.poll() is None:
        return False
    _keep_font_list(given.scratch / "mpl")
    shutil.rmtree(given.scratch, ignore_errors=True)
    return True


def at_hand() -> Channel:
    """The line to the zygote this process's graders are about to use: the first channel of the one
    `prestart` started (a worker forked from here takes it after), else this process's own."""
    if _SHARED and _SHARED[0].running():
        return _SHARED[0].channels[0]
    return zygote_channel()


def claim() -> bool:
    """Mark the zygote `prestart` started as taken by the workers about to adopt its channels; False
    when there is none waiting."""
    if not _SHARED or _SHARED[0].claimed or not _SHARED[0].running():
        return False
    _SHARED[0].claimed = True
    return True


def adopt(index: int) -> None:
    """In a forked worker: take channel `index` of the zygote the parent started."""
    if _SHARED and index < len(_SHARED[0].channels) and _SHARED[0].running():
        _ZYGOTES[os.getpid()] = _SHARED[0].channels[index]


class Runner:
    """One sandboxed process of one submission: requests and their replies, nothing counted."""

    def __init__(self, parent: Channel, sock: socket.socket, pid: int):
        self.parent, self.sock, self.pid = parent, sock, pid
        self.alive = True
        self.started = False  # its first word read: it started (`rnnkit.runner`)

    def request(self, message: dict, timeout: float, limit: int) -> dict:
        """The reply to `message`, within `timeout` seconds and `limit` bytes; RunnerDied (and the
        runner closed) when none comes; RunnerBroken (and the runner closed) where it could not
        start, before anything of the student's ran in it."""
        deadline = time.monotonic() + timeout
        self.send(message)
        return self.reply(max(0.0, deadline - time.monotonic()), limit)

    def send(self, message: dict) -> None:
        """`message` sent, its reply left for `reply`; RunnerDied (and the runner closed) where it cannot be."""
        try:
            wire.send(self.sock, message)
        except (wire.WireError, OSError) as error:
            self.close()
            raise RunnerDied(str(error)) from None

    def reply(self, timeout: float, limit: int) -> dict:
        """The reply to the request sent last (`request`)."""
        deadline = time.monotonic() + timeout
        try:
            if not self.started:
                first = wire.receive(self.sock, timeout=timeout, limit=1 << 16)
                if "broken" in first:
                    self.close()
                    raise RunnerBroken(f"a sandboxed runner could not start: {wire.field(first, 'broken', str, '')}")
                self.started = True
            return wire.receive(self.sock, timeout=max(0.0, deadline - time.monotonic()), limit=limit)
        except (wire.WireError, OSError) as error:
            self.close()
            raise RunnerDied(str(error)) from None

    def close(self) -> None:
        if self.alive:
            self.alive = False
            self.parent.kill(self.pid)
            self.sock.close()
