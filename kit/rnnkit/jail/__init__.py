"""A sandbox that a freshly forked child enters before it runs untrusted student code.

`enter()` puts the calling process into new user, pid, net, mount, ipc and uts namespaces, on a
private root file system built from scratch (read-only system folders and Python environment,
one writable work folder, a private /tmp, a minimal /dev and its own /proc), without network,
without capabilities and under resource limits. Only the standard library is used: the
namespaces, mounts and capabilities are set up through libc with ctypes.

The work folder is a tmpfs of `Limits.WORK_LIMIT_MB` MB at the path of the host folder, holding a copy
of the files that were there; the host folder is only read, never written.

Budgets for the whole runner: where this machine offers a writable cgroup v2 with the memory and
pids controllers, or writable cgroup v1 memory and pids hierarchies, `available()` makes a folder
rnnkit-<pid namespace>-<pid>-<start time> in each (below its own cgroup, else at the hierarchy's
root; a pid alone may be another process's by the time another process sweeps the folders of
owners that are gone), and `enter()`, while still privileged, moves the process into a fresh cgroup
runner-<pid> of its own there (memory limit without swap, pids.max), which everything it starts
inherits; where that fails, enter() raises and the child runs nothing. The caller removes that
cgroup with `release(pid)` after reaping the child, and the parent folders go when the caller
exits. The sandboxed code sees no /sys and cannot mount one, so it cannot change or leave its
cgroup. The rlimits stay as a per-process backstop; where no cgroup can be made, or this machine
refuses to let a process join one, they are all there is, and `available()` says so.

The process tree looks like this::

    caller (the grader)
      `- child that called enter()      intermediate: waits, then exits with the inner status
           `- pid 1 of the new namespace   enter() returns here; the student code runs here

Killing the intermediate (the pid the caller's fork returned) kills the whole namespace: the
inner process has PR_SET_PDEATHSIG(SIGKILL), and when pid 1 of a pid namespace dies, the kernel
kills everything else in it.

Who the sandboxed code is, seen from the host:

* caller not root: the caller's own uid (unprivileged user namespaces);
* caller root (the usual case for a grader): the intermediate drops to the unprivileged uid/gid
  65534 before it creates the namespaces, and the host work folder is read through a read-only
  id-mapped mount (its files seen as the sandbox's) to make the sandbox's copy. Running as host
  root inside a user namespace would let the code read root-only files of the mounted folders
  (such as /etc/shadow), and the kernel does not apply RLIMIT_NPROC to host uid 0 at all. Where
  id-mapped mounts are not available (kernel before 5.12, or a file system without them), the
  sandbox stays host root mapped into its namespace, and `available()` says so.

`available()` describes what this machine gives, found by entering the sandbox once in a
throw-away child; call it once in the parent before forking so that the children inherit the
answer (and the cgroup folders). Where namespaces cannot be created at all, `enter()` only starts
a session, closes the inherited file descriptors, sets the parent-death signal and applies the
rlimits, and the work folder is the host folder itself.

The steps of `enter()`, in order, and the modules of this package that take them:

1. `process`: a session of its own and the parent-death signal (where there are no namespaces,
   `enter()` then only closes the descriptors and applies the rlimits);
2. `mounts`: the plan of the private root, its paths checked before the cgroup and namespaces;
3. `limits`: still privileged, into the runner's own cgroup;
4. caller root: `mounts` prepares the detached read-only (work folder: id-mapped) trees, then
   `credentials` drops to the sandbox uid;
5. unshare the namespaces, `credentials` writes the id maps, fork: the intermediate waits
   (`process`), the inner process goes on;
6. `mounts` builds the private root (pivot_root), `credentials` sets the hostname and `network`
   brings up the loopback;
7. `credentials` drops the capabilities (securebits, no_new_privs), `process` closes the
   descriptors, `limits` applies the rlimits.

`syscalls` holds the libc wrappers, the kernel constants and the error that names the failing step.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time

from .credentials import _SANDBOX_ID, _drop_capabilities, _drop_to_sandbox_id, _set_hostname, _write_id_maps
from .limits import (
    Limits,
    _apply_rlimits,
    _BudgetRefused,
    _cgroup_setup,
    _Cgroups,
    _drop_cgroups,
    _join_cgroup,
    _remove_cgroup,
)
from .mounts import _build_root, _close_trees, _plan, _prepare_trees, _within
from .network import _loopback_up
from .process import _close_fds, _die_with_parent, _setsid, _supervise
from .syscalls import _NAMESPACES, _PR_SET_DUMPABLE, _PR_SET_PDEATHSIG, _check, _libc, _prctl, _step, _why

# OpenBLAS starts a thread pool when numpy is imported, and a process forked from one with such
# threads has been seen to hang when it moves into new namespaces. This only helps where nothing
# imported numpy before this module; callers should set it themselves before importing numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__all__ = ["Limits", "available", "budgets", "enter", "refusal", "release", "shut_down"]

_PROBE_TIMEOUT = 20.0

# --- public API -------------------------------------------------------------------------------

_UNKNOWN = object()
_available_cache: object = _UNKNOWN
_probe_error: str | None = None  # why available() said None (`refusal`)
_description: str | None = None  # what the last enter() in this process set up
_cgroups: _Cgroups | None = None  # the parent folders of the runners' cgroups that available() made


def available() -> str | None:
    """A one-line description of the strongest isolation this machine gives (e.g. "user, pid, net,
    mount, ipc, uts namespaces; private root (pivot_root) with read-only system and Python
    environment; no capabilities; cgroup v2 memory and pids per runner; rlimits per process"), or
    None if namespaces cannot be created. Decided by actually entering the sandbox in a forked
    throw-away child; the answer is cached (and inherited by children forked afterwards), and so
    are the cgroup folders made for the runners."""
    global _available_cache
    if _available_cache is _UNKNOWN:
        _available_cache = _probe()
    return _available_cache  # type: ignore[return-value]


def budgets() -> int | None:
    """The cgroup version that holds each runner's memory and pids budgets here (`available()`
    decides it, once), or None where the rlimits are all there is."""
    available()
    return None if _cgroups is None else _cgroups.version


def refusal() -> str | None:
    """Why `available()` is None (the step this machine refused), where it is."""
    return _probe_error if available() is None else None


def _probe() -> str | None:
    """Enter the sandbox in a throw-away child, with a cgroup of its own where one can be made;
    without one only where the cgroups can be made but this machine refuses to let a process join
    them (the same refusal every runner would meet), never for another failure: that one is tried
    once more, then the answer is None."""
    global _cgroups, _probe_error
    if _libc is None:
        _probe_error = "not Linux, or libc not found"
        return None
    _cgroups = _cgroup_setup()
    report = _probe_once()
    if not report.get("description") and not report.get(
        "budget"
    ):  # another step failed: once more (a loaded machine's timeout)
        report = _probe_once()
    if report.get("budget") and _cgroups is not None:
        _drop_cgroups(_cgroups)
        _cgroups = None
        report = _probe_once()
    description = report.get("description")
    _probe_error = None if description else str(report.get("error") or "the probe failed without a word")
    if _cgroups is not None and not description:  # no sandbox: no runner joins them
        _drop_cgroups(_cgroups)
        _cgroups = None
    if _cgroups is not None:
        atexit.register(_drop_cgroups, _cgroups)
    return str(description) if description else None


def _probe_once() -> dict:
    """What a throw-away child that entered the sandbox reports: {"description"}, or {"error",
    "budget"} (whether its cgroup was what failed)."""
    workdir = tempfile.mkdtemp(prefix="jail-probe-")
    readonly = sorted({os.path.abspath(p) for p in (sys.base_prefix, sys.prefix) if os.path.isdir(p)})
    read_end, write_end = os.pipe()
    pid = -1
    try:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(read_end)
                _enter(workdir, readonly, Limits(), (write_end,), probing=True)
                with open("probe", "w", encoding="ascii") as handle:
                    handle.write("ok")
                with open("/proc/self/status", encoding="ascii") as handle:
                    capabilities = [line.split()[1] for line in handle if line.startswith("CapEff:")]
                good = (
                    os.getpid() == 1 and os.path.isfile(os.path.join(workdir, "probe")) and capabilities == ["0" * 16]
                )
                report = (
                    {"description": _description}
                    if good
                    else {"error": f"unexpected state: pid {os.getpid()}, caps {capabilities}"}
                )
                os.write(write_end, json.dumps(report).encode())
                code = 0
            except BaseException as exc:  # noqa: BLE001 - report and leave, whatever happened
                with contextlib.suppress(BaseException):
                    failed = {"error": _why(exc), "budget": isinstance(exc, _BudgetRefused)}
                    os.write(write_end, json.dumps(failed).encode())
            finally:
                os._exit(code)
        os.close(write_end)
        write_end = -1
        data = b""
        deadline = time.monotonic() + _PROBE_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([read_end], [], [], remaining)[0]:
                data = b'{"error": "the probe did not answer in time"}'
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
        try:
            report = json.loads(data.decode() or "{}")
        except ValueError:
            report = {}
        return report if isinstance(report, dict) else {}
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if pid > 0:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            release(pid)
        shutil.rmtree(workdir, ignore_errors=True)


def enter(workdir: str, readonly: list[str], limits: Limits, keep_fds: tuple[int, ...] = ()) -> None:
    """Called in a freshly forked child. On return the calling code runs inside the sandbox:

    - new user, pid, net, mount, ipc and uts namespaces; enter() forks once more: the
      intermediate process waits for the inner one and os._exit()s with its status (it never
      returns to the caller); enter() returns only in the inner process, pid 1 of its namespace;
    - PR_SET_PDEATHSIG(SIGKILL) in both, so killing the intermediate (or its parent) kills
      everything in the namespace;
    - a fresh tmpfs root (pivot_root, old root detached): read-only /usr, /lib, /lib64, /bin,
      /sbin, /etc (top-level symlinks recreated), every path in `readonly` read-only at the same
      absolute path (its real location, and the links that lead there from the path given), at
      `workdir`'s path (and the cwd) a tmpfs of `limits.WORK_LIMIT_MB` MB holding a copy of its
      files (the host folder is not written), a private /tmp (64m),
      /dev with null, zero, full, random, urandom and a /dev/shm tmpfs, a fresh /proc
      (/proc/sys read-only); nothing else of the host;
    - no network (loopback only);
    - no capabilities (bounding set, capset, PR_SET_NO_NEW_PRIVS), no nested user namespaces;
    - a cgroup of its own with the memory and pids budgets of `limits` where available() made
      cgroup folders (the caller calls release(pid) after reaping this child), joined before
      the namespaces are made (or OSError); the rlimits of `limits` (and RLIMIT_CORE 0);
    - descriptors other than 0, 1, 2 and `keep_fds` closed; a session of its own.

    Where namespaces are not available (available() is None), enter() only starts a session,
    closes the descriptors, sets PR_SET_PDEATHSIG and applies the rlimits.

    Raises OSError naming the failing step. In the intermediate process that happens only
    before the inner process is forked; the caller must os._exit() whatever happens.
    """
    _enter(workdir, readonly, limits, tuple(keep_fds), probing=False)


def _unsandboxed(limits: Limits, keep_fds: tuple[int, ...]) -> None:
    global _description
    parent = os.getppid()
    _setsid()
    _close_fds(keep_fds)
    _die_with_parent(parent)
    _apply_rlimits(limits)
    _description = "session of its own; rlimits"


def _enter(workdir: str, readonly: list[str], limits: Limits, keep_fds: tuple[int, ...], probing: bool) -> None:
    global _description
    parent = os.getppid()
    _setsid()
    if _libc is None or (not probing and available() is None):
        _unsandboxed(limits, keep_fds)
        return
    _die_with_parent(parent)
    # The intermediate must be able to wait for the inner process, whatever the caller set.
    with contextlib.suppress(OSError, ValueError):
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    plan, work = _plan(workdir, list(readonly), limits.WORK_LIMIT_MB)
    cgroup = _join_cgroup(_cgroups, limits)

    euid, egid = os.geteuid(), os.getegid()
    if euid == 0 and _prepare_trees(plan, work):
        who = f"runs as unprivileged host uid {_SANDBOX_ID} (work folder id-mapped)"
        _drop_to_sandbox_id()
        euid = egid = _SANDBOX_ID
        _die_with_parent(parent)  # changing the uid cleared it
    elif euid == 0:
        who = "runs as host root mapped into its user namespace (no id-mapped mounts here; RLIMIT_NPROC not enforced)"
        with contextlib.suppress(OSError):
            os.setgroups([])
    else:
        who = f"runs as the caller's uid {euid}"
    # A uid change makes the process non-dumpable, which leaves /proc/self/uid_map owned by root.
    _prctl(_PR_SET_DUMPABLE, 1)

    try:
        _check(_libc.unshare(_NAMESPACES), "unshare(user, mount, net, pid, ipc, uts namespaces)")
        _write_id_maps(euid, egid)
        alive_r, alive_w = os.pipe()
        with _step("fork into the new pid namespace"):
            inner = os.fork()
    except BaseException:
        _close_trees(plan)
        raise
    if inner != 0:
        _supervise(inner, alive_w)  # never returns

    # The inner process: pid 1 of the new pid namespace, root of the new user namespace.
    os.close(alive_w)
    _check(_prctl(_PR_SET_PDEATHSIG, signal.SIGKILL), "PR_SET_PDEATHSIG")
    if select.select([alive_r], [], [], 0)[0]:  # the intermediate is already gone
        os._exit(1)
    features: list[str] = []
    try:
        _build_root(plan, work, features)
    finally:
        _close_trees(plan)
    if _set_hostname():
        features.append("own hostname")
    features.append("loopback-only network" if _loopback_up() else "no network interfaces up")
    _drop_capabilities()
    _close_fds(keep_fds)
    _apply_rlimits(limits)
    python = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)}
    ro = [e.dest for e in plan if e.kind == "ro"]
    shown = "system and Python environment" if all(any(_within(p, d) for d in ro) for p in python) else "system"
    budgets = (
        f"cgroup v{cgroup} memory and pids per runner; rlimits per process"
        if cgroup
        else "rlimits per process (no writable cgroup)"
    )
    _description = "; ".join(
        [
            "user, pid, net, mount, ipc, uts namespaces",
            f"private root (pivot_root) with read-only {shown}, writable work folder (a size-limited tmpfs copy), "
            "private /tmp, minimal /dev, own /proc",
        ]
        + [f for f in features if f != "own hostname"]
        + ["no capabilities, no_new_privs", who, budgets]
    )


def shut_down() -> None:
    """In the process that called available(): remove the cgroups it made for runners (also done at
    its exit; this is for a process that ends with os._exit)."""
    if _cgroups is not None:
        _drop_cgroups(_cgroups)


def release(pid: int) -> None:
    """In the process that called available(): kill whatever is left in the cgroups of `pid` (a
    child that called enter(), already reaped) and remove them. Never raises."""
    if _cgroups is not None:
        for parent in _cgroups.parents:
            _remove_cgroup(os.path.join(parent, f"runner-{pid}"))
