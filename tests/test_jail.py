"""The sandbox student code runs in (`rnnkit.jail`): what it sees, what it may do, and that
nothing it starts outlives it. Every test forks a child that enters the jail and reports back
through a pipe as JSON."""
from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit"))
from rnnkit import jail  # noqa: E402

AVAILABLE = jail.available()
pytestmark = pytest.mark.skipif(AVAILABLE is None, reason=f"no namespace sandbox on this machine: {jail._probe_error}")

REPO = Path(__file__).resolve().parents[1]
READONLY = [sys.base_prefix, sys.prefix]
MS_REMOUNT, MS_BIND = 0x20, 0x1000


class Jailed:
    """A forked child that entered the jail and runs `body(child)`: inside, `child.send()` reports a
    JSON message and `child.go_read` is a pipe the test writes to (`release()`); what `body`
    returns (or raises) is the last message. The pid is that of the intermediate process."""

    def __init__(self, body, workdir: Path, limits: jail.Limits = jail.Limits(), readonly=None, before=None):
        self.read_end, self.write_end = os.pipe()
        self.go_read, self.go_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.close(self.read_end)
                os.close(self.go_write)
                if before is not None:
                    before()
                jail.enter(str(workdir), READONLY if readonly is None else readonly, limits,
                           keep_fds=(self.write_end, self.go_read))
                message = {"ok": True, "result": body(self)}
            except BaseException as exc:  # noqa: BLE001 - the child reports everything, then leaves
                message = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            try:
                self.send(message)
            finally:
                os._exit(0)
        os.close(self.write_end)
        os.close(self.go_read)
        self.buffer = b""
        self.status = None

    def send(self, message: dict) -> None:
        """Inside: one message to the test."""
        os.write(self.write_end, json.dumps(message).encode() + b"\n")

    def receive(self, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.read_end], [], [], remaining)[0]:
                self.kill()
                raise AssertionError("the jailed child did not answer in time")
            chunk = os.read(self.read_end, 65536)
            if not chunk:
                raise AssertionError(f"the jailed child ended without an answer (status {self.wait()})")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def result(self, timeout: float = 10.0):
        message = self.receive(timeout)
        assert message.get("ok"), message.get("error")
        return message["result"]

    def release(self) -> None:
        os.write(self.go_write, b"x")

    def wait(self, timeout: float = 10.0) -> int:
        """The intermediate's wait status; killed (and the test failed) if it takes longer than `timeout`."""
        if self.status is None:
            deadline = time.monotonic() + timeout
            while True:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    self.kill()
                    raise AssertionError("the jailed child did not end in time")
                time.sleep(0.005)
            self.status = status
            os.close(self.read_end)
            os.close(self.go_write)
        return self.status

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            self.status = os.waitpid(self.pid, 0)[1]
            os.close(self.read_end)
            os.close(self.go_write)


def jailed(body, workdir: Path, **options):
    """Run `body` in a jailed child and return what it returned; the child has ended by then."""
    child = Jailed(body, workdir, **options)
    try:
        return child.result()
    finally:
        child.wait()


def _processes(cmdline: list[str]) -> set[int]:
    """Host pids of live (not zombie) processes with exactly this command line."""
    wanted = "\0".join(cmdline).encode() + b"\0"
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if handle.read() != wanted:
                    continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in (b"Z", b"X"):
            found.add(int(entry))
    return found


def _gone(pids: set[int], cmdline: list[str], seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not pids & _processes(cmdline):
            return True
        time.sleep(0.02)
    return False


def _children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "given.txt").write_text("from the grader")
    (tmp_path / "other-student").mkdir()
    (tmp_path / "other-student" / "answer.txt").write_text("secret")
    return tmp_path / "work"


def test_available_describes_the_isolation():
    assert "user, pid, net, mount, ipc, uts namespaces" in AVAILABLE
    assert "pivot_root" in AVAILABLE and "no capabilities" in AVAILABLE and AVAILABLE.endswith("rlimits")
    assert jail.available() is AVAILABLE  # cached


def test_inside_sees_only_the_system_python_and_its_workdir(workdir: Path):
    def body(child):
        import numpy  # after OPENBLAS_NUM_THREADS=1 (set when the jail module was imported)

        status = Path("/proc/self/status").read_text().splitlines()
        seen = {"pid": os.getpid(), "cwd": os.getcwd(), "root": sorted(os.listdir("/")),
                "numpy": int(numpy.arange(10).sum()), "openblas": os.environ.get("OPENBLAS_NUM_THREADS"),
                "given": Path("given.txt").read_text(),
                "repo": [p for p in ("pyproject.toml", "autograder", "tests", "kit", ".git") if (REPO / p).exists()],
                "repo_listing": sorted(os.listdir(REPO)) if REPO.is_dir() else [],
                "siblings": sorted(os.listdir(workdir.parent)),
                "other_student": (workdir.parent / "other-student" / "answer.txt").exists(),
                "home": os.path.exists("/home"), "root_home": sorted(os.listdir("/root")) if os.path.isdir("/root") else [],
                "dev": sorted(os.listdir("/dev")), "proc_1": Path("/proc/1/cmdline").exists(),
                "caps": [line.split()[1] for line in status if line.startswith("Cap")],
                "no_new_privs": [line.split()[1] for line in status if line.startswith("NoNewPrivs")]}
        Path("written.txt").write_text("hello")
        seen["tmp_write"] = Path("/tmp/x").write_text("x") == 1
        with open("/dev/null", "w") as null:
            null.write("ignored")
        seen["urandom"] = len(Path("/dev/urandom").open("rb").read(8))
        refused = {}
        for target in ("/usr/jail-test", os.path.join(sys.prefix, "jail-test"), os.path.join(sys.base_prefix, "jail-test"),
                       "/etc/jail-test", "/jail-test", "/dev/jail-test", "/proc/sys/user/max_user_namespaces"):
            try:
                with open(target, "w") as handle:
                    handle.write("0")
                refused[target] = None
            except OSError as exc:
                refused[target] = exc.errno
        seen["refused"] = refused
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        mounts = {}
        for name, args in (("remount / rw", (None, b"/", None, MS_REMOUNT | MS_BIND, None)),
                           ("remount /usr rw", (None, b"/usr", None, MS_REMOUNT | MS_BIND, None)),
                           ("remount prefix rw", (None, os.fsencode(sys.prefix), None, MS_REMOUNT | MS_BIND, None)),
                           ("tmpfs on /usr", (b"tmpfs", b"/usr", b"tmpfs", 0, None))):
            rc = libc.mount(*args)
            mounts[name] = 0 if rc == 0 else ctypes.get_errno()
        seen["mounts"] = mounts
        seen["umount"] = libc.umount2(b"/usr", 2) == 0
        seen["unshare"] = libc.unshare(0x10000000) == 0  # a nested user namespace
        return seen

    seen = jailed(body, workdir)
    assert seen["pid"] == 1
    assert seen["cwd"] == str(workdir.resolve())
    allowed_top = {"usr", "lib", "lib64", "lib32", "bin", "sbin", "etc", "tmp", "dev", "proc"}
    allowed_top |= {Path(p).resolve().parts[1] for p in READONLY + [str(workdir)]}
    assert set(seen["root"]) <= allowed_top, seen["root"]
    assert seen["numpy"] == 45 and seen["openblas"] == "1"
    assert seen["given"] == "from the grader"
    assert seen["repo"] == [] and set(seen["repo_listing"]) <= {".venv"}, seen["repo_listing"]
    assert seen["siblings"] == ["work"] and not seen["other_student"]
    assert not seen["home"]
    assert set(seen["root_home"]) <= {".pyenv"}, seen["root_home"]
    assert set(seen["dev"]) == {"null", "zero", "full", "random", "urandom", "shm", "fd", "stdin", "stdout", "stderr"}
    assert seen["proc_1"]
    assert seen["caps"] and all(value == "0000000000000000" for value in seen["caps"]), seen["caps"]
    assert seen["no_new_privs"] == ["1"]
    assert seen["tmp_write"] and seen["urandom"] == 8
    assert (workdir / "written.txt").read_text() == "hello"
    assert (workdir / "written.txt").stat().st_uid == workdir.stat().st_uid  # the owner on disk is the folder's
    for target, code in seen["refused"].items():
        assert code in (errno.EROFS, errno.EACCES, errno.EPERM), (target, code)
        assert not os.path.exists(target) or target.startswith("/proc") or target.startswith("/dev"), target
    assert all(code in (errno.EPERM, errno.EACCES) for code in seen["mounts"].values()), seen["mounts"]
    assert not seen["umount"] and not seen["unshare"]


def test_no_network(workdir: Path):
    def body(child):
        out = {"interfaces": sorted(name for _, name in socket.if_nameindex())}
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=1).close()
            out["outside"] = None
        except OSError as exc:
            out["outside"] = exc.errno or str(exc)
        try:
            with socket.socket() as server:
                server.bind(("127.0.0.1", 0))
                out["bind"] = True
        except OSError:
            out["bind"] = False
        return out

    out = jailed(body, workdir)
    assert out["outside"] is not None
    assert out["interfaces"] == ["lo"]


def test_background_processes_die_with_the_sandbox(workdir: Path):
    command = ["sleep", "297.25"]  # a duration no other test uses
    before = _processes(command)

    def body(child):
        sleeper = subprocess.Popen(command, start_new_session=True)
        child.send({"ok": True, "result": sleeper.pid})
        os.read(child.go_read, 1)  # wait until the test has looked
        os._exit(0)

    child = Jailed(body, workdir)
    inner_pid = child.result()
    started = _processes(command) - before
    assert len(started) == 1 and inner_pid not in started  # host-visible under another pid
    child.release()
    assert os.WEXITSTATUS(child.wait()) == 0
    assert _gone(started, command), "a sleep started in the sandbox outlived it"


def test_memory_limit(workdir: Path):
    def body(child):
        small = bytearray(100 * 1024 * 1024)
        try:
            bytearray(3 * 1024 ** 3)
            return f"allocated 3 GiB (and {len(small)} bytes)"
        except MemoryError:
            return "MemoryError"

    assert jailed(body, workdir, limits=jail.Limits(memory_mb=1024)) == "MemoryError"


def test_process_limit(workdir: Path):
    command = ["sleep", "3017"]
    before = _processes(command)

    def body(child):
        forked, error = 0, None
        for _ in range(100):
            try:
                pid = os.fork()
            except OSError as exc:
                error = exc.errno
                break
            if pid == 0:
                try:
                    os.execv("/usr/bin/sleep", command)
                finally:
                    os._exit(1)
            forked += 1
        child.send({"ok": True, "result": {"forked": forked, "errno": error}})
        os.read(child.go_read, 1)
        return None

    child = Jailed(body, workdir, limits=jail.Limits(processes=16))
    out = child.result()
    assert out["errno"] == errno.EAGAIN and 5 <= out["forked"] < 16, out
    deadline = time.monotonic() + 2
    while len(_processes(command) - before) < out["forked"] and time.monotonic() < deadline:
        time.sleep(0.02)  # the last children may still be on their way to exec
    sleepers = _processes(command) - before
    assert len(sleepers) == out["forked"]
    child.release()
    child.wait()
    assert _gone(sleepers, command), "processes forked in the sandbox outlived it"


def test_kill_from_outside_ends_everything(workdir: Path):
    command = ["sleep", "302"]
    before = _processes(command)

    def body(child):
        subprocess.Popen(command)
        child.send({"ok": True, "result": "looping"})
        while True:
            pass

    child = Jailed(body, workdir)
    assert child.result() == "looping"
    inner = _children_of(child.pid)
    sleepers = _processes(command) - before
    assert len(inner) == 1 and sleepers
    os.kill(child.pid, signal.SIGKILL)
    status = child.wait()
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and any(_alive(pid) for pid in inner):
        time.sleep(0.02)
    assert not any(_alive(pid) for pid in inner), "pid 1 of the sandbox survived its parent"
    assert _gone(sleepers, command)


def test_the_intermediate_exits_like_the_inner_process(workdir: Path):
    child = Jailed(lambda c: os._exit(7), workdir)
    assert os.WIFEXITED(child.wait()) and os.WEXITSTATUS(child.status) == 7

    def body(child):
        child.send({"ok": True, "result": "ready"})
        signal.pause()

    child = Jailed(body, workdir)
    assert child.result() == "ready"
    (inner,) = _children_of(child.pid)
    os.kill(inner, signal.SIGKILL)  # pid 1 of the namespace, killed from the host
    assert os.WIFSIGNALED(child.wait()) and os.WTERMSIG(child.status) == signal.SIGKILL


def test_cpu_limit_kills_even_pid_1(workdir: Path):
    def body(child):
        child.send({"ok": True, "result": "spinning"})
        while True:
            pass

    child = Jailed(body, workdir, limits=jail.Limits(cpu_seconds=1))
    assert child.result() == "spinning"
    started = time.monotonic()
    status = child.wait()
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert time.monotonic() - started < 5


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to play an unprivileged caller")
def test_unprivileged_caller():
    """A caller that is not root gets the same sandbox from user namespaces alone (without the
    Python environment here: /root is not readable to it)."""
    work = Path(tempfile.mkdtemp(prefix="jail-unprivileged-"))
    os.chown(work, 65534, 65534)

    def become_nobody():
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)

    def body(child):  # only what is already imported: the standard library is not visible
        with open("mine", "w") as handle:
            handle.write("x")
        try:
            open("/usr/jail-test", "w")
            usr = None
        except OSError as exc:
            usr = exc.errno
        return {"pid": os.getpid(), "root": sorted(os.listdir("/")), "cwd": os.getcwd(), "usr": usr,
                "description": jail._description}

    try:
        out = jailed(body, work, readonly=[], before=become_nobody)
        assert out["pid"] == 1 and out["cwd"] == str(work) and out["usr"] in (errno.EROFS, errno.EACCES)
        assert "root" not in out["root"] and "work" not in out["root"]
        assert "caller's uid 65534" in out["description"]
        assert (work / "mine").stat().st_uid == 65534
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_without_namespaces_only_rlimits_and_a_session(workdir: Path):
    """Where available() is None, enter() keeps the caller's view and only limits it."""
    inherited = os.open(os.devnull, os.O_RDONLY)

    def pretend_no_namespaces():
        jail._available_cache = None

    def body(child):
        try:
            os.fstat(inherited)
            closed = False
        except OSError:
            closed = True
        return {"pid": os.getpid(), "session_leader": os.getsid(0) == os.getpid(), "closed": closed,
                "repo": (REPO / "pyproject.toml").exists(), "as": resource.getrlimit(resource.RLIMIT_AS)[0],
                "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0]}

    try:
        out = jailed(body, workdir, limits=jail.Limits(memory_mb=1024, open_files=100), before=pretend_no_namespaces)
    finally:
        os.close(inherited)
    assert out["pid"] != 1 and out["session_leader"] and out["closed"] and out["repo"]
    assert out["as"] == 1024 * 1024 * 1024 and out["nofile"] == 100
