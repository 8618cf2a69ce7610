"""The sandbox student code runs in (`rnnkit.jail`): what it sees, what it may do, and that
nothing it starts outlives it. Every test forks a child that enters the jail and reports back
through a pipe as JSON."""

from __future__ import annotations

import ctypes
import dataclasses
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "kit"))
from rnnkit import jail, wire  # noqa: E402

AVAILABLE = jail.available()
pytestmark = pytest.mark.skipif(AVAILABLE is None, reason=f"no namespace sandbox on this machine: {jail._probe_error}")
CGROUPS = jail._cgroups  # this process's parent folders of the runners' cgroups, or None
needs_cgroup = pytest.mark.skipif(
    CGROUPS is None,
    reason="no writable cgroup here (not root, or no cgroup v2 with memory "
    "and pids delegated, nor writable cgroup v1 memory and pids)",
)

REPO = Path(__file__).resolve().parents[2]
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
                jail.enter(
                    str(workdir),
                    READONLY if readonly is None else readonly,
                    limits,
                    keep_fds=(self.write_end, self.go_read),
                )
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
        self.usage = None  # the intermediate's resource usage, pid 1 of the namespace's included (`wait`)

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
                pid, status, self.usage = os.wait4(self.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    self.kill()
                    raise AssertionError("the jailed child did not end in time")
                time.sleep(0.005)
            self.status = status
            self._ended()
        return self.status

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            _, self.status, self.usage = os.wait4(self.pid, 0)
            self._ended()

    def _ended(self) -> None:
        """After the reap: what the zygote does (remove the cgroup), and close the pipes."""
        jail.release(self.pid)
        os.close(self.read_end)
        os.close(self.go_write)


def jailed(body, workdir: Path, **options):
    """Run `body` in a jailed child and return what it returned; the child has ended by then."""
    child = Jailed(body, workdir, **options)
    try:
        return child.result()
    finally:
        child.wait()


def _sleep(seconds: int) -> list[str]:
    """A sleep command no other test uses, nor a concurrent run of these tests."""
    return ["sleep", f"{seconds}.{os.getpid()}"]


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


def _started(cmdline: list[str], before: set[int], count: int = 1, seconds: float = 30.0) -> set[int]:
    """The processes with this command line that were not there `before`, once there are `count`
    of them: a process that Popen or fork has just started may still be on its way to exec."""
    deadline = time.monotonic() + seconds
    while len(_processes(cmdline) - before) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return _processes(cmdline) - before


def _gone(pids: set[int], cmdline: list[str], seconds: float = 30.0) -> bool:
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


def _runner_cgroups(pid: int) -> list[str]:
    return [os.path.join(parent, f"runner-{pid}") for parent in CGROUPS.parents]


def _cgroup_procs(pid: int) -> set[int]:
    found = set()
    for path in _runner_cgroups(pid):
        found |= set(map(int, Path(path, "cgroup.procs").read_text().split()))
    return found


def _cgroup_value(pid: int, *names: str) -> int:
    """The first of the files `names` found in the runner's cgroups (v1 and v2 name them differently)."""
    for path in _runner_cgroups(pid):
        for name in names:
            if os.path.exists(os.path.join(path, name)):
                return int(Path(path, name).read_text())
    raise AssertionError(f"none of {names} in {_runner_cgroups(pid)}")


def _runners_left() -> set[str]:
    return {
        os.path.join(parent, name)
        for parent in (CGROUPS.parents if CGROUPS else ())
        for name in os.listdir(parent)
        if name.startswith("runner-")
    }


@pytest.fixture(autouse=True)
def no_cgroup_left():
    """A test leaves no runner's cgroup behind in this process's parent folders."""
    before = _runners_left()
    yield
    left = _runners_left() - before
    for path in left:  # those of a test that failed, too
        jail._remove_cgroup(path)
    assert not left


def _snapshot(folder: Path) -> dict:
    return {
        str(path.relative_to(folder)): (
            path.read_bytes() if path.is_file() else None,
            path.stat().st_mode,
            path.stat().st_mtime_ns,
        )
        for path in sorted(folder.rglob("*"))
    } | {".": (None, folder.stat().st_mode, folder.stat().st_mtime_ns)}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "given.txt").write_text("from the grader")
    (tmp_path / "other-student").mkdir()
    (tmp_path / "other-student" / "answer.txt").write_text("secret")
    return tmp_path / "work"


def test_available_describes_the_isolation():
    assert "user, pid, net, mount, ipc, uts namespaces" in AVAILABLE
    assert "pivot_root" in AVAILABLE and "no capabilities" in AVAILABLE and "rlimits per process" in AVAILABLE
    assert "writable work folder (a size-limited tmpfs copy)" in AVAILABLE
    assert jail.available() is AVAILABLE  # cached


@needs_cgroup
def test_available_names_the_cgroup_version(monkeypatch):
    assert AVAILABLE.endswith(f"; cgroup v{CGROUPS.version} memory and pids per runner; rlimits per process")
    assert all(os.path.basename(parent) == f"rnnkit-{jail.limits._owner()}" for parent in CGROUPS.parents)
    monkeypatch.setattr(jail, "_cgroups", CGROUPS)  # restored after the probe below
    monkeypatch.setattr(jail, "_cgroup_setup", lambda: None)
    assert jail._probe().endswith("; rlimits per process (no writable cgroup)")


@needs_cgroup
def test_a_probe_that_fails_once_for_another_reason_keeps_the_budgets(monkeypatch, tmp_path):
    """A probe that fails once at another step than its cgroup (a loaded machine, a timeout) is
    made again as it was: the runners keep their cgroups, never the rlimits alone."""
    failed = tmp_path / "failed-once"
    enter = jail._enter

    def busy_once(*args, **kwargs):
        if not failed.exists():  # in the first probe's child
            failed.touch()
            raise OSError(errno.EBUSY, "the machine was busy")
        return enter(*args, **kwargs)

    monkeypatch.setattr(jail, "_enter", busy_once)
    monkeypatch.setattr(jail, "_cgroups", CGROUPS)  # restored after the probe below
    try:
        assert jail._probe() == AVAILABLE and jail._cgroups == CGROUPS and failed.exists()
    finally:
        jail._cgroup_setup()  # this process's own folders, whatever the probe did with them


@needs_cgroup
def test_the_folders_of_a_killed_owner_go_at_the_next_start():
    """An owner is its pid namespace, pid and start time: the folders of one that ended go, even
    where its pid is another process's now (this one's, here), those named by a pid alone (made
    before owners carried their start) go with their pid, and those of another pid namespace,
    whose pids this process cannot look up, stay."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    namespace, pid, start = jail.limits._owner().split("-")
    names = {
        "legacy": f"rnnkit-{dead.pid}",
        "reused": f"rnnkit-{namespace}-{pid}-{int(start) - 1}",
        "foreign": f"rnnkit-{int(namespace) + 1}-{dead.pid}-{start}",
    }
    stale = {
        kind: [os.path.join(os.path.dirname(parent), name) for parent in CGROUPS.parents]
        for kind, name in names.items()
    }
    for path in sum(stale.values(), []):
        os.mkdir(path)
        os.mkdir(os.path.join(path, "runner-1"))
    try:
        assert jail._cgroup_setup() == CGROUPS  # this process's own folders, found again
        assert not any(os.path.exists(path) for path in stale["legacy"] + stale["reused"])
        assert all(os.path.isdir(path) for path in stale["foreign"])
    finally:
        for path in stale["foreign"]:
            jail._remove_cgroup(os.path.join(path, "runner-1"))
            jail._remove_cgroup(path)


def test_a_python_environment_reached_through_links_is_where_its_path_says(workdir: Path, tmp_path: Path):
    """A read-only path given through links (a course's `.venv` linked to the real environment,
    here through a relative link and an absolute one) is there inside at that path: the links are
    made again, the real folder is mounted read-only."""
    real = Path(sys.prefix).resolve()
    (tmp_path / "course").mkdir()
    (tmp_path / "elsewhere").symlink_to(real)
    (tmp_path / "course" / ".venv").symlink_to("../elsewhere")
    venv = str(tmp_path / "course" / ".venv")

    def body(child):
        return {
            "real": os.path.realpath(venv),
            "python": os.path.exists(os.path.join(venv, "bin", "python")),
            "site": sorted(os.listdir(os.path.join(venv, "lib"))),
            "writable": os.access(venv + "/", os.W_OK),
        }

    out = jailed(body, workdir, readonly=[sys.base_prefix, venv])
    assert out == {"real": str(real), "python": True, "site": sorted(os.listdir(real / "lib")), "writable": False}


def test_inside_sees_only_the_system_python_and_its_workdir(workdir: Path):
    def body(child):
        import numpy  # after OPENBLAS_NUM_THREADS=1 (set when the jail module was imported)

        status = Path("/proc/self/status").read_text().splitlines()
        seen = {
            "pid": os.getpid(),
            "cwd": os.getcwd(),
            "root": sorted(os.listdir("/")),
            "numpy": int(numpy.arange(10).sum()),
            "openblas": os.environ.get("OPENBLAS_NUM_THREADS"),
            "given": Path("given.txt").read_text(),
            "repo": [p for p in ("pyproject.toml", "autograder", "tests", "kit", ".git") if (REPO / p).exists()],
            "repo_listing": sorted(os.listdir(REPO)) if REPO.is_dir() else [],
            "siblings": sorted(os.listdir(workdir.parent)),
            "other_student": (workdir.parent / "other-student" / "answer.txt").exists(),
            "home": os.path.exists("/home"),
            "root_home": sorted(os.listdir("/root")) if os.path.isdir("/root") else [],
            "dev": sorted(os.listdir("/dev")),
            "proc_1": Path("/proc/1/cmdline").exists(),
            "caps": [line.split()[1] for line in status if line.startswith("Cap")],
            "no_new_privs": [line.split()[1] for line in status if line.startswith("NoNewPrivs")],
        }
        Path("written.txt").write_text("hello")
        seen["tmp_write"] = Path("/tmp/x").write_text("x") == 1
        with open("/dev/null", "w") as null:
            null.write("ignored")
        seen["urandom"] = len(Path("/dev/urandom").open("rb").read(8))
        refused = {}
        for target in (
            "/usr/jail-test",
            os.path.join(sys.prefix, "jail-test"),
            os.path.join(sys.base_prefix, "jail-test"),
            "/etc/jail-test",
            "/jail-test",
            "/dev/jail-test",
            "/proc/sys/user/max_user_namespaces",
        ):
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
        for name, args in (
            ("remount / rw", (None, b"/", None, MS_REMOUNT | MS_BIND, None)),
            ("remount /usr rw", (None, b"/usr", None, MS_REMOUNT | MS_BIND, None)),
            ("remount prefix rw", (None, os.fsencode(sys.prefix), None, MS_REMOUNT | MS_BIND, None)),
            ("tmpfs on /usr", (b"tmpfs", b"/usr", b"tmpfs", 0, None)),
            ("cgroup2 on /tmp", (b"none", b"/tmp", b"cgroup2", 0, None)),
            ("cgroup v1 on /tmp", (b"cgroup", b"/tmp", b"cgroup", 0, b"memory,pids")),
        ):
            rc = libc.mount(*args)
            mounts[name] = 0 if rc == 0 else ctypes.get_errno()
        seen["mounts"] = mounts
        seen["sys"] = os.path.exists("/sys")
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
    assert not (workdir / "written.txt").exists()  # written to the sandbox's own copy
    for target, code in seen["refused"].items():
        assert code in (errno.EROFS, errno.EACCES, errno.EPERM), (target, code)
        assert not os.path.exists(target) or target.startswith("/proc") or target.startswith("/dev"), target
    assert all(code in (errno.EPERM, errno.EACCES) for code in seen["mounts"].values()), seen["mounts"]
    assert not seen["sys"]  # no cgroup files to write, none to mount
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
    command = _sleep(297)
    before = _processes(command)

    def body(child):
        sleeper = subprocess.Popen(command, start_new_session=True)
        child.send({"ok": True, "result": sleeper.pid})
        os.read(child.go_read, 1)  # wait until the test has looked
        os._exit(0)

    child = Jailed(body, workdir)
    inner_pid = child.result()
    started = _started(command, before)
    assert len(started) == 1 and inner_pid not in started  # host-visible under another pid
    child.release()
    assert os.WEXITSTATUS(child.wait()) == 0
    assert _gone(started, command), "a sleep started in the sandbox outlived it"


def test_memory_limit(workdir: Path):
    def body(child):
        small = bytearray(100 * 1024 * 1024)
        try:
            bytearray(3 * 1024**3)
            return f"allocated 3 GiB (and {len(small)} bytes)"
        except MemoryError:
            return "MemoryError"

    # RLIMIT_AS counts the address space the forked child starts with (this test process's, larger in
    # a pytest-xdist worker that has imported more): the limit leaves 512 MiB above it
    size = next(
        int(line.split()[1])
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmSize:")
    )
    assert jailed(body, workdir, limits=jail.Limits(MEMORY_LIMIT_MB=size // 1024 + 512)) == "MemoryError"


def test_process_limit(workdir: Path):
    command = _sleep(3017)
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

    child = Jailed(body, workdir, limits=jail.Limits(PROCESS_LIMIT=16))
    out = child.result()
    assert out["errno"] == errno.EAGAIN and 5 <= out["forked"] < 16, out
    sleepers = _started(command, before, out["forked"])
    assert len(sleepers) == out["forked"]
    child.release()
    child.wait()
    assert _gone(sleepers, command), "processes forked in the sandbox outlived it"


def test_kill_from_outside_ends_everything(workdir: Path):
    command = _sleep(302)
    before = _processes(command)

    def body(child):
        subprocess.Popen(command)
        child.send({"ok": True, "result": "looping"})
        while True:
            pass

    child = Jailed(body, workdir)
    assert child.result() == "looping"
    inner = _children_of(child.pid)
    sleepers = _started(command, before)
    assert len(inner) == 1 and sleepers
    os.kill(child.pid, signal.SIGKILL)
    status = child.wait()
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    deadline = time.monotonic() + 30  # a safety net: they are gone in moments
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
    status = child.wait(timeout=60)  # a safety net only: the limit is on CPU time, whatever the machine's load
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    # killed for its CPU time: what it had used when killed (its pid 1, reaped by the intermediate,
    # included) is the limit's 1 s, give or take the kernel's accounting
    used = child.usage.ru_utime + child.usage.ru_stime
    assert 0.5 <= used < 10, used


_FOUR_CHILDREN = r"""
import json, os, select, signal, time
ready_r, ready_w = os.pipe()
pids = set()
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        try:
            with open("/proc/self/oom_score_adj", "w") as handle:  # the kernel kills these, not the test's own large process
                handle.write("1000")
            block = b"x" * (150 << 20)  # written: resident, not only reserved
            os.write(ready_w, b"%d\n" % os.getpid())
            time.sleep(30)
        except MemoryError:
            os._exit(3)
        finally:
            os._exit(0)
    pids.add(pid)
held, ended = set(), {}
deadline = time.monotonic() + 10
while held | set(ended) != pids and time.monotonic() < deadline:
    if select.select([ready_r], [], [], 0.02)[0]:
        held |= set(map(int, os.read(ready_r, 4096).split()))
    for pid in pids - set(ended):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            ended[pid] = status
print(json.dumps({"alive": len(held - set(ended)),  # holding its 150 MB (one still stuck allocating at the deadline holds none)
                  "killed": sum(os.WIFSIGNALED(s) and os.WTERMSIG(s) == signal.SIGKILL for s in ended.values()),
                  "memory_errors": sum(os.WIFEXITED(s) and os.WEXITSTATUS(s) == 3 for s in ended.values())}))
for pid in pids - set(ended):
    os.kill(pid, signal.SIGKILL)
"""


@needs_cgroup
def test_memory_budget_counts_the_whole_runner(workdir: Path):
    """Four children of 150 MB each: every one stays under RLIMIT_AS (400 MB), together they pass
    the runner's budget (400 MB), and the kernel kills some of them. The children are forked from a
    fresh Python started in the jail, whose address space is small (the test process's own, which
    RLIMIT_AS would count in every forked child, is not)."""

    def body(child):
        done = subprocess.run([sys.executable, "-I", "-c", _FOUR_CHILDREN], capture_output=True, text=True, timeout=20)
        return json.loads(done.stdout)

    child = Jailed(body, workdir, limits=jail.Limits(MEMORY_LIMIT_MB=400))
    out = child.result(timeout=20)
    peak = _cgroup_value(child.pid, "memory.max_usage_in_bytes", "memory.peak")
    limit = _cgroup_value(child.pid, "memory.limit_in_bytes", "memory.max")
    child.wait()
    assert out["memory_errors"] == 0, out  # no child reached RLIMIT_AS
    assert out["killed"] >= 1 and out["alive"] <= 2, out
    assert limit == 400 << 20 and peak <= limit


@needs_cgroup
def test_pids_budget_counts_the_whole_runner(workdir: Path):
    """With RLIMIT_NPROC out of the way, the cgroup alone stops a chain of processes (each the
    child of the one before) at the budget, counted over the whole runner."""
    original = jail._apply_rlimits

    def without_nproc():
        jail._apply_rlimits = lambda limits: original(dataclasses.replace(limits, PROCESS_LIMIT=10_000))

    def body(child):
        depth, error = 0, None
        while depth < 40:  # a bound for a machine where the budget does not hold
            try:
                pid = os.fork()
            except OSError as exc:
                error = exc.errno
                break
            if pid:
                time.sleep(60)  # this link holds
                os._exit(0)
            depth += 1
        child.send({"ok": True, "result": {"depth": depth, "errno": error}})
        time.sleep(60)

    child = Jailed(body, workdir, limits=jail.Limits(PROCESS_LIMIT=16), before=without_nproc)
    out = child.result()
    try:
        assert out == {"depth": 14, "errno": errno.EAGAIN}  # 16 = the intermediate, pid 1 and 14 below it
        assert _cgroup_value(child.pid, "pids.current") == _cgroup_value(child.pid, "pids.max") == 16
        assert child.pid in _cgroup_procs(child.pid) and len(_cgroup_procs(child.pid)) == 16
    finally:
        child.kill()


@needs_cgroup
def test_kill_removes_the_runners_cgroup_and_everything_in_it(workdir: Path):
    command = _sleep(303)
    before = _processes(command)

    def body(child):
        subprocess.Popen(command, start_new_session=True)
        child.send({"ok": True, "result": "started"})
        signal.pause()

    child = Jailed(body, workdir)
    assert child.result() == "started"
    paths = _runner_cgroups(child.pid)
    sleepers = _started(command, before)
    assert all(os.path.isdir(path) for path in paths) and len(sleepers) == 1
    assert {child.pid} | sleepers <= _cgroup_procs(child.pid)
    child.kill()  # then release(), as the zygote does
    assert not any(os.path.exists(path) for path in paths)
    assert _gone(sleepers, command)


@needs_cgroup
def test_the_zygote_removes_the_cgroups_of_its_runners(workdir: Path):
    """The zygote's kill op leaves no cgroup behind, and its own folders go when it exits; the
    grader's `WORK_LIMIT_MB` reaches the jail."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "MPLCONFIGDIR": str(workdir.parent),
    }
    zygote = subprocess.Popen(
        [sys.executable, "-I", "-m", "rnnkit.runner", str(theirs.fileno())],
        pass_fds=[theirs.fileno()],
        cwd="/",
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    theirs.close()
    try:
        ours.settimeout(60)
        hello = json.loads(ours.recv(1 << 16))
        owner = f"{jail.limits._owner().split('-')[0]}-{zygote.pid}-{jail.limits._started(str(zygote.pid))}"
        parents = [os.path.join(os.path.dirname(p), f"rnnkit-{owner}") for p in CGROUPS.parents]
        assert hello["pid"] == zygote.pid and "memory and pids per runner" in hello["isolation"]
        assert all(os.path.isdir(parent) for parent in parents)
        mine, runner_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        request = {
            "op": "spawn",
            "workdir": str(workdir),
            "readonly": READONLY,
            "language": "en",
            "limits": dataclasses.asdict(jail.Limits(MEMORY_LIMIT_MB=1024, PROCESS_LIMIT=32, WORK_LIMIT_MB=16)),
        }
        socket.send_fds(ours, [json.dumps(request).encode()], [runner_end.fileno()])
        runner_end.close()
        pid = json.loads(ours.recv(1 << 16))["pid"]
        command = _sleep(305)
        source = (
            f"import os, subprocess; subprocess.Popen({command!r}, start_new_session=True); "
            "s = os.statvfs('.'); print(s.f_blocks * s.f_frsize)"
        )
        wire.send(mine, {"op": "run_cell", "source": source})
        assert wire.receive(mine, timeout=30) == {"started": True}  # its first word, before any reply
        outputs = wire.receive(mine, timeout=30)["outputs"]
        assert outputs[0]["text"].strip() == str(16 << 20)
        paths = [os.path.join(parent, f"runner-{pid}") for parent in parents]
        assert all(os.path.isdir(path) for path in paths)
        sleepers = _started(command, set())
        ours.send(json.dumps({"op": "kill", "pid": pid}).encode())
        assert json.loads(ours.recv(1 << 16)) == {"killed": True}
        assert not any(os.path.exists(path) for path in paths)
        assert sleepers and _gone(sleepers, command)
        mine.close()
    finally:
        ours.close()
        zygote.wait(timeout=10)
    assert not any(os.path.exists(parent) for parent in parents)


def test_work_folder_is_a_tmpfs_of_work_limit_mb(workdir: Path):
    """A write past `WORK_LIMIT_MB` fails with ENOSPC, and nothing of it lands on the host."""
    before = _snapshot(workdir)

    def body(child):
        fd = os.open("big", os.O_WRONLY | os.O_CREAT, 0o644)
        written, error = 0, None
        try:
            while written < 32 << 20:
                written += os.write(fd, b"\0" * (1 << 20))
        except OSError as exc:
            error = exc.errno
        finally:
            os.close(fd)
        return {"written": written, "errno": error, "given": Path("given.txt").read_text()}

    out = jailed(body, workdir, limits=jail.Limits(WORK_LIMIT_MB=8))
    assert out["errno"] == errno.ENOSPC and out["written"] <= 8 << 20, out
    assert out["given"] == "from the grader"
    assert _snapshot(workdir) == before


def test_the_host_work_folder_is_never_written(workdir: Path):
    """The runner works on its own copy of the files (a data file in a subfolder too); the host
    folder stays as it was, and the next runner gets the files as they were."""
    (workdir / "data").mkdir()
    (workdir / "data" / "sequence-v1.json").write_text("[1, 2, 3]")
    before = _snapshot(workdir)

    def body(child):
        seen = Path("data/sequence-v1.json").read_text()
        Path("given.txt").write_text("changed")
        Path("new.txt").write_text("new")
        os.remove("data/sequence-v1.json")
        os.mkdir("made")
        os.chmod(".", 0o777)
        return {"seen": seen, "listing": sorted(os.listdir("."))}

    out = jailed(body, workdir)
    assert out == {"seen": "[1, 2, 3]", "listing": ["data", "given.txt", "made", "new.txt"]}
    assert _snapshot(workdir) == before
    assert jailed(lambda child: sorted(os.listdir(".")) + [Path("given.txt").read_text()], workdir) == [
        "data",
        "given.txt",
        "from the grader",
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to play an unprivileged caller")
def test_unprivileged_caller():
    """A caller that is not root gets the same sandbox from user namespaces alone (without the
    Python environment here: /root is not readable to it)."""
    work = Path(tempfile.mkdtemp(prefix="jail-unprivileged-"))
    os.chown(work, 65534, 65534)

    def become_nobody():
        jail._cgroups = None  # what its own available() would find: no cgroup it may write
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
        return {
            "pid": os.getpid(),
            "root": sorted(os.listdir("/")),
            "cwd": os.getcwd(),
            "usr": usr,
            "description": jail._description,
        }

    try:
        out = jailed(body, work, readonly=[], before=become_nobody)
        assert out["pid"] == 1 and out["cwd"] == str(work) and out["usr"] in (errno.EROFS, errno.EACCES)
        assert "root" not in out["root"] and "work" not in out["root"]
        assert "caller's uid 65534" in out["description"]
        assert out["description"].endswith("; rlimits per process (no writable cgroup)")
        assert not (work / "mine").exists()  # written to the sandbox's own copy
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
        return {
            "pid": os.getpid(),
            "session_leader": os.getsid(0) == os.getpid(),
            "closed": closed,
            "repo": (REPO / "pyproject.toml").exists(),
            "as": resource.getrlimit(resource.RLIMIT_AS)[0],
            "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        }

    try:
        out = jailed(
            body, workdir, limits=jail.Limits(MEMORY_LIMIT_MB=1024, open_files=100), before=pretend_no_namespaces
        )
    finally:
        os.close(inherited)
    assert out["pid"] != 1 and out["session_leader"] and out["closed"] and out["repo"]
    assert out["as"] == 1024 * 1024 * 1024 and out["nofile"] == 100
