"""A sandbox that a freshly forked child enters before it runs untrusted student code.

`enter()` puts the calling process into new user, pid, net, mount, ipc and uts namespaces, on a
private root file system built from scratch (read-only system folders and Python environment,
one writable work folder, a private /tmp, a minimal /dev and its own /proc), without network,
without capabilities and under resource limits. Only the standard library is used: the
namespaces, mounts and capabilities are set up through libc with ctypes.

The work folder is a tmpfs of `Limits.work_mb` MB at the path of the host folder, holding a copy
of the files that were there; the host folder is only read, never written.

Budgets for the whole runner: where this machine offers a writable cgroup v2 with the memory and
pids controllers, or writable cgroup v1 memory and pids hierarchies, `available()` makes a folder
rnnkit-<its pid> in each (below its own cgroup, else at the hierarchy's root), and `enter()`, while
still privileged, moves the process into a cgroup runner-<pid> of its own there (memory limit
without swap, pids.max), which everything it starts inherits. The caller removes that cgroup with
`release(pid)` after reaping the child, and the parent folders go when the caller exits. The
sandboxed code sees no /sys and cannot mount one, so it cannot change or leave its cgroup. The
rlimits stay as a per-process backstop; where there is no writable cgroup they are all there is.

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
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import fcntl
import json
import os
import platform
import re
import resource
import select
import shutil
import signal
import socket
import stat
import struct
import sys
import tempfile
import time
from dataclasses import dataclass

# OpenBLAS starts a thread pool when numpy is imported, and a process forked from one with such
# threads has been seen to hang when it moves into new namespaces. This only helps where nothing
# imported numpy before this module; callers should set it themselves before importing numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__all__ = ["Limits", "available", "enter", "release"]


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 2048        # RLIMIT_AS
    processes: int = 64          # RLIMIT_NPROC (counted inside the new user namespace)
    cpu_seconds: int = 600       # RLIMIT_CPU backstop
    file_mb: int = 64            # RLIMIT_FSIZE
    open_files: int = 256        # RLIMIT_NOFILE
    work_mb: int = 256           # size of the work folder's tmpfs


# --- kernel constants -----------------------------------------------------------------------

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_NAMESPACES = _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWPID | _CLONE_NEWIPC | _CLONE_NEWUTS

_MS_RDONLY = 0x1
_MS_NOSUID = 0x2
_MS_NODEV = 0x4
_MS_NOEXEC = 0x8
_MS_REMOUNT = 0x20
_MS_NOATIME = 0x400
_MS_NODIRATIME = 0x800
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 0x40000
_MS_RELATIME = 0x200000
_MS_STRICTATIME = 0x1000000
_MNT_DETACH = 0x2

# statvfs f_flag bits
_ST_RDONLY = 0x1
_ST_NOSUID = 0x2
_ST_NODEV = 0x4
_ST_NOEXEC = 0x8
_ST_NOATIME = 0x400
_ST_NODIRATIME = 0x800
_ST_RELATIME = 0x1000

# new mount API (open_tree, move_mount, mount_setattr)
_MOUNT_ATTR_RDONLY = 0x1
_MOUNT_ATTR_NOSUID = 0x2
_MOUNT_ATTR_NODEV = 0x4
_MOUNT_ATTR_NOEXEC = 0x8
_MOUNT_ATTR_IDMAP = 0x100000
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_AT_RECURSIVE = 0x8000
_OPEN_TREE_CLONE = 0x1
_MOVE_MOUNT_F_EMPTY_PATH = 0x4

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_SECUREBITS = 28
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
# SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED
# | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED
_SECUREBITS = 0x01 | 0x02 | 0x20 | 0x40 | 0x80
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1

# pivot_root per architecture; open_tree (428), move_mount (429) and mount_setattr (442) share
# their numbers on every architecture listed here.
_PIVOT_ROOT = {
    "x86_64": 155, "amd64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "loongarch64": 41,
    "ppc64le": 203, "ppc64": 203, "s390x": 217, "i386": 217, "i686": 217, "armv7l": 218, "armv8l": 218,
}
_MACHINE = platform.machine().lower()
_NR_PIVOT_ROOT = _PIVOT_ROOT.get(_MACHINE)
_NR_OPEN_TREE, _NR_MOVE_MOUNT, _NR_MOUNT_SETATTR = (428, 429, 442) if _MACHINE in _PIVOT_ROOT else (None, None, None)

#: Host uid and gid the sandbox runs as when the caller is root.
_SANDBOX_ID = 65534
_HOSTNAME = b"sandbox"
_SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_TMP_SIZE = "64m"
_PROBE_TIMEOUT = 20.0


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    for name in ("libc.so.6", None):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
        try:
            lib.unshare.argtypes = [ctypes.c_int]
            lib.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
            lib.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
            lib.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
            lib.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            lib.syscall.restype = ctypes.c_long
        except AttributeError:
            continue
        return lib
    return None


_libc = _load_libc()


# --- errors -----------------------------------------------------------------------------------

class _JailError(OSError):
    """A sandbox setup step failed; the message names the step."""


def _error(step: str, err: int | None = None) -> _JailError:
    err = ctypes.get_errno() if err is None else err
    err = err or errno.EIO
    return _JailError(err, f"jail: {step} failed: {os.strerror(err)}")


@contextlib.contextmanager
def _step(name: str):
    """Turn an OSError of the Python calls inside into one that names the step."""
    try:
        yield
    except _JailError:
        raise
    except OSError as exc:
        raise _error(name, exc.errno) from exc


def _check(rc: int, step: str) -> int:
    if rc < 0:
        raise _error(step)
    return rc


def _b(path: str) -> bytes:
    return os.fsencode(path)


# --- thin wrappers over the system calls ----------------------------------------------------

def _prctl(option: int, arg: int = 0) -> int:
    return _libc.prctl(option, arg, 0, 0, 0)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None, step: str) -> None:
    rc = _libc.mount(None if source is None else _b(source), _b(target), None if fstype is None else _b(fstype),
                     flags, None if data is None else data.encode())
    _check(rc, step)


def _umount2(target: str, flags: int, step: str) -> None:
    _check(_libc.umount2(_b(target), flags), step)


def _pivot_root(new_root: str, put_old: str) -> None:
    step = f"pivot_root({new_root}, {put_old})"
    if _NR_PIVOT_ROOT is not None:
        rc = _libc.syscall(ctypes.c_long(_NR_PIVOT_ROOT), ctypes.c_char_p(_b(new_root)), ctypes.c_char_p(_b(put_old)))
    elif hasattr(_libc, "pivot_root"):
        rc = _libc.pivot_root(ctypes.c_char_p(_b(new_root)), ctypes.c_char_p(_b(put_old)))
    else:
        raise _error(step, errno.ENOSYS)
    _check(rc, step)


def _open_tree(path: str) -> int:
    """A detached recursive copy of the mount tree at `path` (a bind mount not attached yet)."""
    if _NR_OPEN_TREE is None:
        raise _error(f"open_tree({path})", errno.ENOSYS)
    rc = _libc.syscall(ctypes.c_long(_NR_OPEN_TREE), ctypes.c_int(_AT_FDCWD), ctypes.c_char_p(_b(path)),
                       ctypes.c_uint(_OPEN_TREE_CLONE | os.O_CLOEXEC | _AT_RECURSIVE))
    return _check(rc, f"open_tree({path})")


def _mount_setattr(dirfd: int, path: str, flags: int, attr_set: int, userns_fd: int, step: str) -> None:
    if _NR_MOUNT_SETATTR is None:
        raise _error(step, errno.ENOSYS)
    attr = _MountAttr(attr_set, 0, 0, userns_fd if userns_fd >= 0 else 0)
    rc = _libc.syscall(ctypes.c_long(_NR_MOUNT_SETATTR), ctypes.c_int(dirfd), ctypes.c_char_p(_b(path)),
                       ctypes.c_uint(flags), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)))
    _check(rc, step)


def _move_mount(fd: int, target: str) -> None:
    rc = _libc.syscall(ctypes.c_long(_NR_MOVE_MOUNT), ctypes.c_int(fd), ctypes.c_char_p(b""), ctypes.c_int(_AT_FDCWD),
                       ctypes.c_char_p(_b(target)), ctypes.c_uint(_MOVE_MOUNT_F_EMPTY_PATH))
    _check(rc, f"move_mount onto {target}")


def _write_file(path: str, text: str, step: str) -> None:
    with _step(step):
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


# --- cgroups: memory and pids budgets of a whole runner ---------------------------------------

@dataclass(frozen=True)
class _Cgroups:
    version: int                 # 1 or 2
    parents: tuple[str, ...]     # the rnnkit-<owner pid> folders the runners' cgroups go in, one per hierarchy
    owner: int                   # the process that made them and removes them when it exits


_cgroups: _Cgroups | None = None


def _cgroup_bases() -> dict[str, list[str]]:
    """Where cgroups could be made, per hierarchy ("2", "memory", "pids"): the folder of this
    process's own cgroup first, then the hierarchy's mount point."""
    try:
        own = {}
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            for line in handle:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for name in controllers.split(",") if controllers else ["2"]:
                    own[name] = path
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
            mounts = [line.split() for line in handle if " - " in line]
    except (OSError, ValueError):
        return {}
    bases: dict[str, list[str]] = {}
    for fields in mounts:
        fstype, options = fields[fields.index("-") + 1], fields[fields.index("-") + 3].split(",")
        names = ["2"] if fstype == "cgroup2" else [n for n in ("memory", "pids") if n in options] if fstype == "cgroup" else []
        root, point = _unescape(fields[3]), _unescape(fields[4])
        for name in names:
            found = bases.setdefault(name, [])
            if _within(own.get(name, ""), root):
                found.append(os.path.normpath(os.path.join(point, os.path.relpath(own[name], root))))
            found.append(point)
    return {name: list(dict.fromkeys(found)) for name, found in bases.items()}


def _sweep(base: str) -> None:
    """Remove the rnnkit-<pid> folders under `base` of owners that were killed before they could
    (only empty cgroups: nothing is killed here)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            owner = name.partition("-")[2]
            if name.startswith("rnnkit-") and owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                parent = os.path.join(base, name)
                for runner in [n for n in os.listdir(parent) if n.startswith("runner-")] + [""]:
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(parent, runner))


def _make_parent(base: str, version: int) -> str | None:
    """This process's rnnkit-<pid> folder under `base` (in v2 with memory and pids for the
    cgroups below it), or None where that cannot be made."""
    path = os.path.join(base, f"rnnkit-{os.getpid()}")
    _sweep(base)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o755)
        if version == 2:
            with open(os.path.join(path, "cgroup.controllers"), encoding="ascii") as handle:
                if not {"memory", "pids"} <= set(handle.read().split()):
                    _write_file(os.path.join(base, "cgroup.subtree_control"), "+memory +pids", "enabling memory and pids")
            _write_file(os.path.join(path, "cgroup.subtree_control"), "+memory +pids", "enabling memory and pids")
        return path
    except OSError:
        _remove_cgroup(path)
        return None


def _cgroup_setup() -> _Cgroups | None:
    """This process's parent folders for the runners' cgroups: in cgroup v2 where it offers memory
    and pids, else in the v1 memory and pids hierarchies; None where neither is writable."""
    bases = _cgroup_bases()
    for version, names in ((2, ("2",)), (1, ("memory", "pids"))):
        parents: list[str] = []
        for name in names:
            parent = next(filter(None, (_make_parent(base, version) for base in bases.get(name, []))), None)
            if parent is None:
                break
            parents.append(parent)
        else:
            return _Cgroups(version, tuple(dict.fromkeys(parents)), os.getpid())
        for parent in parents:
            _remove_cgroup(parent)
    return None


def _join_cgroup(limits: Limits) -> int | None:
    """Still privileged: move this process (and so all it starts) into cgroups of its own,
    runner-<pid> in each parent folder, with the memory and pids budgets of `limits`. Returns the
    cgroup version, or None where there are no cgroups."""
    if _cgroups is None:
        return None
    memory = str(int(limits.memory_mb) * 1024 * 1024)
    budgets = {"memory.limit_in_bytes": memory, "memory.memsw.limit_in_bytes": memory, "memory.max": memory,
               "memory.swap.max": "0", "pids.max": str(int(limits.processes))}  # in this order: memsw >= memory
    written = set()
    for parent in _cgroups.parents:
        path = os.path.join(parent, f"runner-{os.getpid()}")
        with _step(f"creating cgroup {path}"), contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o755)
        for name, value in budgets.items():
            if os.path.exists(os.path.join(path, name)):
                _write_file(os.path.join(path, name), value, f"writing {path}/{name}")
                written.add(name.split(".")[0])
        _write_file(os.path.join(path, "cgroup.procs"), str(os.getpid()), f"moving into cgroup {path}")
    if written != {"memory", "pids"}:
        raise _error("finding the cgroup's memory and pids budget files", errno.ENOENT)
    return _cgroups.version


def _remove_cgroup(path: str) -> None:
    """Kill every process in cgroup `path` and remove it; gives up quietly after two seconds."""
    deadline = time.monotonic() + 2.0
    while True:
        try:
            if os.path.exists(os.path.join(path, "cgroup.kill")):
                _write_file(os.path.join(path, "cgroup.kill"), "1", f"killing cgroup {path}")
            else:
                with open(os.path.join(path, "cgroup.procs"), encoding="ascii") as handle:
                    for pid in map(int, handle.read().split()):
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
            os.rmdir(path)
            return
        except OSError as exc:
            if exc.errno == errno.ENOENT or time.monotonic() > deadline:
                return
            time.sleep(0.01)


def _drop_cgroups(cgroups: _Cgroups) -> None:
    """Remove the runners' cgroups left and the parent folders (only in the process that made them)."""
    if os.getpid() != cgroups.owner:
        return
    for parent in cgroups.parents:
        with contextlib.suppress(OSError):
            for name in os.listdir(parent):
                if name.startswith("runner-"):
                    _remove_cgroup(os.path.join(parent, name))
        _remove_cgroup(parent)


# --- the plan: what the new root holds ------------------------------------------------------

@dataclass
class _Entry:
    dest: str                  # absolute path inside the sandbox
    kind: str                  # "ro", "dev" (bind mounts), "tmpfs", "work" (a tmpfs copy of source), "proc", "symlink"
    source: str = ""           # host path of a bind mount or of the work folder, target of a symlink
    options: str = ""          # tmpfs options
    flags: int = 0             # tmpfs mount flags
    is_dir: bool = True
    fd: int = -1               # detached mount tree (open_tree), attached by the inner process


def _within(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _plan(workdir: str, readonly: list[str], work_mb: int) -> tuple[list[_Entry], str]:
    """Everything the new root holds, parents before what is mounted inside them."""
    with _step(f"workdir {workdir!r}"):
        work = os.path.realpath(workdir)
        os.stat(work)
        if not os.path.isdir(work):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    if work == "/" or _within(work, "/proc"):
        raise _error(f"workdir {workdir!r}", errno.EINVAL)
    entries: list[_Entry] = []
    read_only: list[str] = []
    for top in _SYSTEM_DIRS:
        if os.path.islink(top):
            entries.append(_Entry(top, "symlink", os.readlink(top)))
        elif os.path.isdir(top):
            entries.append(_Entry(top, "ro", top))
            read_only.append(top)
    entries.append(_Entry("/tmp", "tmpfs", options=f"mode=1777,size={_TMP_SIZE}", flags=_MS_NOSUID | _MS_NODEV))
    entries.append(_Entry("/dev", "tmpfs", options="mode=0755,size=64k", flags=_MS_NOSUID | _MS_NOEXEC))
    for name in _DEVICES:
        device = os.path.realpath(f"/dev/{name}")
        if os.path.exists(device):
            entries.append(_Entry(f"/dev/{name}", "dev", device, is_dir=False))
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        entries.append(_Entry(f"/dev/{name}", "symlink", target))
    entries.append(_Entry("/dev/shm", "tmpfs", options=f"mode=1777,size={_TMP_SIZE}", flags=_MS_NOSUID | _MS_NODEV))
    entries.append(_Entry("/proc", "proc"))
    for path in readonly:
        with _step(f"read-only path {path!r}"):
            real = os.path.realpath(path)
            os.stat(real)
        if real == "/" or _within(real, "/proc"):
            raise _error(f"read-only path {path!r}", errno.EINVAL)
        if any(_within(real, done) for done in read_only):
            continue  # already visible, read-only, through a folder mounted before
        entries.append(_Entry(real, "ro", real, is_dir=os.path.isdir(real)))
        read_only.append(real)
    entries.append(_Entry(work, "work", work, options=f"mode=0755,size={int(work_mb)}m", flags=_MS_NOSUID | _MS_NODEV))
    order = sorted(range(len(entries)), key=lambda i: (entries[i].dest.count("/"), i))
    return [entries[i] for i in order], work


def _close_trees(plan: list[_Entry]) -> None:
    for entry in plan:
        if entry.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(entry.fd)
            entry.fd = -1


def _idmap_userns(uid: int, gid: int) -> int:
    """A user namespace (as an fd) in which host `uid`/`gid` are the sandbox id: the id mapping of
    the work folder's mount. Needs root; made by a throw-away child."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.close(done_w)
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            os.write(ready_w, b"1" if _libc.unshare(_CLONE_NEWUSER) == 0 else b"0")
            os.read(done_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(done_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise _error("unshare(user namespace) for the id-mapped work folder", errno.EPERM)
        _write_file(f"/proc/{pid}/uid_map", f"{uid} {_SANDBOX_ID} 1\n", "writing the work folder's uid map")
        _write_file(f"/proc/{pid}/gid_map", f"{gid} {_SANDBOX_ID} 1\n", "writing the work folder's gid map")
        with _step("opening the id-mapping user namespace"):
            return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(done_w)
        os.close(ready_r)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _prepare_trees(plan: list[_Entry], work: str) -> bool:
    """As root, before dropping to the sandbox uid: detached copies of every folder to be mounted,
    already read-only (the work folder also id-mapped to the sandbox uid, to be copied). False where the
    kernel or a file system does not allow it; then nothing is kept open."""
    if _NR_OPEN_TREE is None:
        return False
    userns = -1
    try:
        info = os.stat(work)
        userns = _idmap_userns(info.st_uid, info.st_gid)
        for entry in plan:
            if entry.kind not in ("ro", "work", "dev"):
                continue
            entry.fd = _open_tree(entry.source)
            if entry.kind == "ro":
                attrs, ns = _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV, -1
            elif entry.kind == "dev":
                attrs, ns = _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NOEXEC, -1
            else:
                attrs, ns = _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV | _MOUNT_ATTR_IDMAP, userns
            _mount_setattr(entry.fd, "", _AT_EMPTY_PATH | _AT_RECURSIVE, attrs, ns, f"mount_setattr({entry.source})")
        return True
    except OSError:
        _close_trees(plan)
        return False
    finally:
        if userns >= 0:
            os.close(userns)


# --- inside: building the new root ----------------------------------------------------------

def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _mounts_below(path: str) -> list[str]:
    """Mount points at or below `path` in this mount namespace, parents first."""
    for source in ("/proc/self/mountinfo", "/oldroot/proc/self/mountinfo"):
        try:
            with open(source, encoding="utf-8", errors="surrogateescape") as handle:
                points = [_unescape(line.split()[4]) for line in handle if line.strip()]
        except OSError:
            continue
        found = [p for p in points if _within(p, path)]
        return sorted(set(found), key=lambda p: p.count("/")) or [path]
    return [path]


def _locked_flags(path: str) -> int:
    """The MS_* flags a bind remount must repeat: inside a user namespace the kernel refuses a
    remount that would clear nosuid, nodev, noexec, read-only or change the atime mode of a
    mount inherited from the host."""
    fl = os.statvfs(path).f_flag
    flags = 0
    for st, ms in ((_ST_RDONLY, _MS_RDONLY), (_ST_NOSUID, _MS_NOSUID), (_ST_NODEV, _MS_NODEV), (_ST_NOEXEC, _MS_NOEXEC),
                   (_ST_NOATIME, _MS_NOATIME), (_ST_NODIRATIME, _MS_NODIRATIME), (_ST_RELATIME, _MS_RELATIME)):
        if fl & st:
            flags |= ms
    if not fl & (_ST_NOATIME | _ST_RELATIME):
        flags |= _MS_STRICTATIME
    return flags


def _restrict(path: str, attrs: int, recursive: bool) -> None:
    """Add mount attributes (MOUNT_ATTR_*) to the mount at `path` (and those below it)."""
    step = f"making {path} {'read-only' if attrs & _MOUNT_ATTR_RDONLY else 'nosuid'}"
    try:
        _mount_setattr(_AT_FDCWD, path, _AT_RECURSIVE if recursive else 0, attrs, -1, step)
        return
    except _JailError as exc:
        if exc.errno not in (errno.ENOSYS, errno.EINVAL):
            raise
    wanted = 0
    for attr, ms in ((_MOUNT_ATTR_RDONLY, _MS_RDONLY), (_MOUNT_ATTR_NOSUID, _MS_NOSUID), (_MOUNT_ATTR_NODEV, _MS_NODEV),
                     (_MOUNT_ATTR_NOEXEC, _MS_NOEXEC)):
        if attrs & attr:
            wanted |= ms
    for point in (_mounts_below(path) if recursive else [path]):
        with _step(step):
            flags = _MS_BIND | _MS_REMOUNT | wanted | _locked_flags(point)
        try:
            _mount(None, point, None, flags, None, step)
        except _JailError as exc:
            if exc.errno != errno.EPERM or not flags & _MS_NODEV or _locked_flags(point) & _MS_NODEV:
                raise
            _mount(None, point, None, flags & ~_MS_NODEV, None, step)


def _mount_point(path: str, is_dir: bool) -> None:
    with _step(f"creating mount point {path}"):
        if is_dir:
            if not os.path.isdir(path):
                os.makedirs(path, mode=0o755)
        else:
            parent = os.path.dirname(path)
            if not os.path.isdir(parent):
                os.makedirs(parent, mode=0o755)
            if not os.path.exists(path):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))


def _copy_regular(source: str, target: str) -> None:
    """copytree's copy function: regular files only (a FIFO or device is left out)."""
    if stat.S_ISREG(os.lstat(source).st_mode):
        shutil.copy2(source, target)


def _fill_work(entry: _Entry, target: str) -> None:
    """The work folder's own tmpfs at `target`, holding a copy of the host folder, which is only
    read (through its id-mapped, read-only tree where there is one)."""
    _mount("tmpfs", target, "tmpfs", entry.flags, entry.options, f"mount tmpfs on {entry.dest}")
    source = "/oldroot" + entry.source
    if entry.fd >= 0:
        source = "/work-source"
        _mount_point(source, True)
        _move_mount(entry.fd, source)
        os.close(entry.fd)
        entry.fd = -1
    step = f"copying {entry.source} into its tmpfs"
    with _step(step):
        try:
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True, copy_function=_copy_regular)
        except shutil.Error as exc:  # the files that could not be copied, and why (e.g. no space left)
            raise _JailError(errno.EIO, f"jail: {step} failed: {str(exc)[:500]}") from None
    if source == "/work-source":
        _umount2(source, _MNT_DETACH, "unmounting the work folder's source")


def _attach(entry: _Entry, new: str, features: list[str]) -> None:
    target = new + entry.dest
    if entry.kind == "symlink":
        with _step(f"symlink {entry.dest} -> {entry.source}"):
            if not os.path.lexists(target):
                parent = os.path.dirname(target)
                if not os.path.isdir(parent):
                    os.makedirs(parent, mode=0o755)
                os.symlink(entry.source, target)
        return
    _mount_point(target, entry.is_dir)
    if entry.kind == "tmpfs":
        _mount("tmpfs", target, "tmpfs", entry.flags, entry.options, f"mount tmpfs on {entry.dest}")
    elif entry.kind == "work":
        _fill_work(entry, target)
    elif entry.kind == "proc":
        _mount("proc", target, "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None, "mount proc on /proc")
        # No nested user namespaces: the limit is per user namespace, and /proc/sys is read-only
        # below, so the sandboxed code (uid 0 of this namespace) cannot raise it again.
        try:
            _write_file(target + "/sys/user/max_user_namespaces", "0", "limiting nested user namespaces")
            features.append("no nested user namespaces")
        except OSError:
            pass
        _mount(target + "/sys", target + "/sys", None, _MS_BIND | _MS_REC, None, "bind /proc/sys")
        _restrict(target + "/sys", _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV | _MOUNT_ATTR_NOEXEC, True)
    elif entry.fd >= 0:
        _move_mount(entry.fd, target)
        os.close(entry.fd)
        entry.fd = -1
    else:
        _mount("/oldroot" + entry.source, target, None, _MS_BIND | _MS_REC, None, f"bind {entry.source}")
        if entry.kind == "ro":
            _restrict(target, _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV, True)
        else:
            _restrict(target, _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NOEXEC, False)


def _loopback_up() -> bool:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack("16sH22x", b"lo", 0)
            flags = struct.unpack("16sH22x", fcntl.ioctl(sock.fileno(), _SIOCGIFFLAGS, request))[1]
            fcntl.ioctl(sock.fileno(), _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | _IFF_UP))
        return True
    except OSError:
        return False


def _build_root(plan: list[_Entry], work: str, features: list[str]) -> None:
    """In the inner process (pid 1, root of the new user namespace): the private root."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None, "making / private (MS_REC|MS_PRIVATE)")
    # A scratch tmpfs over an existing folder holds the new root and, after a first pivot_root,
    # the old one at /oldroot, from where the classic bind mounts take their sources.
    base = next((d for d in ("/tmp", "/mnt", "/dev", "/run", "/var/tmp") if os.path.isdir(d) and not os.path.islink(d)), None)
    if base is None:
        raise _error("finding a folder for the scratch root", errno.ENOENT)
    _mount("tmpfs", base, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0700,size=64k", f"mount scratch tmpfs on {base}")
    with _step("creating /oldroot and /newroot"):
        os.mkdir(base + "/oldroot", 0o700)
        os.mkdir(base + "/newroot", 0o755)
    _pivot_root(base, base + "/oldroot")
    with _step("chdir /"):
        os.chdir("/")
    _mount("tmpfs", "/newroot", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=1m", "mount tmpfs for the new root")
    for entry in plan:
        _attach(entry, "/newroot", features)
    if _libc.sethostname(_HOSTNAME, len(_HOSTNAME)) == 0:
        features.append("own hostname")
    features.append("loopback-only network" if _loopback_up() else "no network interfaces up")
    _umount2("/oldroot", _MNT_DETACH, "unmounting the old root (MNT_DETACH)")
    with _step("chdir /newroot"):
        os.chdir("/newroot")
    _pivot_root(".", ".")
    _umount2(".", _MNT_DETACH, "unmounting the scratch root (MNT_DETACH)")
    with _step("chdir /"):
        os.chdir("/")
    _restrict("/", _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV, False)
    _restrict("/dev", _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NOEXEC, False)
    with _step(f"chdir {work}"):
        os.chdir(work)


def _drop_capabilities() -> None:
    try:
        with open("/proc/sys/kernel/cap_last_cap", "rb") as handle:  # binary: no codec to import here
            last = int(handle.read())
    except (OSError, ValueError):
        last = 63
    _prctl(_PR_SET_SECUREBITS, _SECUREBITS)  # best effort: exec as uid 0 gives no capabilities
    for cap in range(last + 1):
        if _prctl(_PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() != errno.EINVAL:
            raise _error(f"PR_CAPBSET_DROP({cap})")
    _prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)  # EINVAL on kernels without ambient capabilities
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset (drop all capabilities)")
    _check(_prctl(_PR_SET_NO_NEW_PRIVS, 1), "PR_SET_NO_NEW_PRIVS")


# --- the parts shared with the unsandboxed mode ---------------------------------------------

def _setsid() -> None:
    with contextlib.suppress(OSError):  # already a session leader
        os.setsid()


def _die_with_parent(parent: int) -> None:
    """PR_SET_PDEATHSIG(SIGKILL); if the parent is already gone, die now."""
    _check(_prctl(_PR_SET_PDEATHSIG, signal.SIGKILL), "PR_SET_PDEATHSIG")
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def _close_fds(keep) -> None:
    """Close every descriptor but 0, 1, 2 and `keep`."""
    kept = sorted({int(fd) for fd in keep if int(fd) > 2})
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    top = hard if hard != resource.RLIM_INFINITY and hard < (1 << 22) else (1 << 22)
    top = max([top] + [fd + 1 for fd in kept])
    low = 3
    for fd in kept:
        if fd > low:
            os.closerange(low, fd)
        low = max(low, fd + 1)
    os.closerange(low, top)


def _apply_rlimits(limits: Limits) -> None:
    mib = 1024 * 1024
    wanted = (
        ("RLIMIT_AS", resource.RLIMIT_AS, int(limits.memory_mb) * mib, int(limits.memory_mb) * mib),
        ("RLIMIT_NPROC", resource.RLIMIT_NPROC, int(limits.processes), int(limits.processes)),
        # soft = hard: SIGXCPU at a soft limit would be ignored by pid 1 of the namespace, SIGKILL is not
        ("RLIMIT_CPU", resource.RLIMIT_CPU, int(limits.cpu_seconds), int(limits.cpu_seconds)),
        ("RLIMIT_FSIZE", resource.RLIMIT_FSIZE, int(limits.file_mb) * mib, int(limits.file_mb) * mib),
        ("RLIMIT_NOFILE", resource.RLIMIT_NOFILE, int(limits.open_files), int(limits.open_files)),
        ("RLIMIT_CORE", resource.RLIMIT_CORE, 0, 0),
    )
    for name, which, soft, hard in wanted:
        with _step(f"setrlimit({name})"):
            current = resource.getrlimit(which)[1]
            if current != resource.RLIM_INFINITY:
                hard = min(hard, current)
            resource.setrlimit(which, (min(soft, hard), hard))


# --- the intermediate process -----------------------------------------------------------------

def _exit_like(status: int) -> None:
    """Leave the way the inner process did: same exit code, or killed by the same signal."""
    try:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            with contextlib.suppress(OSError):
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            with contextlib.suppress(OSError, ValueError, RuntimeError):
                signal.signal(sig, signal.SIG_DFL)
            with contextlib.suppress(OSError, ValueError):
                signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            os.kill(os.getpid(), sig)
            os._exit(128 + sig)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
    finally:
        os._exit(1)


def _supervise(inner: int, alive_fd: int) -> None:
    """The intermediate: hold nothing, wait for pid 1 of the namespace, exit with its status.
    Never returns."""
    status = 1 << 8
    try:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, signal.SIG_DFL)
        _close_fds((alive_fd,))
        while True:
            try:
                _, status = os.waitpid(inner, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
    finally:
        _exit_like(status)


# --- public API -------------------------------------------------------------------------------

_UNKNOWN = object()
_available_cache: object = _UNKNOWN
_probe_error: str | None = None      # why available() said None (for debugging)
_description: str | None = None      # what the last enter() in this process set up


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


def _probe() -> str | None:
    """Enter the sandbox once, with a cgroup of its own where one can be made, else without."""
    global _cgroups, _probe_error
    if _libc is None:
        _probe_error = "not Linux, or libc not found"
        return None
    _cgroups = _cgroup_setup()
    found = _probe_once()
    if found is None and _cgroups is not None:
        _drop_cgroups(_cgroups)
        _cgroups = None
        found = _probe_once()
    if _cgroups is not None:
        atexit.register(_drop_cgroups, _cgroups)
    return found


def _probe_once() -> str | None:
    global _probe_error
    workdir = tempfile.mkdtemp(prefix="jail-probe-")
    readonly = sorted({os.path.realpath(p) for p in (sys.base_prefix, sys.prefix) if os.path.isdir(p)})
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
                good = os.getpid() == 1 and os.path.isfile(os.path.join(workdir, "probe")) and capabilities == ["0" * 16]
                report = {"description": _description} if good else {"error": f"unexpected state: pid {os.getpid()}, caps {capabilities}"}
                os.write(write_end, json.dumps(report).encode())
                code = 0
            except BaseException as exc:  # noqa: BLE001 - report and leave, whatever happened
                with contextlib.suppress(BaseException):
                    os.write(write_end, json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
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
        if report.get("description"):
            _probe_error = None
            return str(report["description"])
        _probe_error = str(report.get("error") or "the probe failed without a word")
        return None
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
      absolute path, at `workdir`'s path (and the cwd) a tmpfs of `limits.work_mb` MB holding a
      copy of its files (the host folder is not written), a private /tmp (64m),
      /dev with null, zero, full, random, urandom and a /dev/shm tmpfs, a fresh /proc
      (/proc/sys read-only); nothing else of the host;
    - no network (loopback only);
    - no capabilities (bounding set, capset, PR_SET_NO_NEW_PRIVS), no nested user namespaces;
    - a cgroup of its own with the memory and pids budgets of `limits` where available() made
      cgroup folders (the caller calls release(pid) after reaping this child); the rlimits of
      `limits` (and RLIMIT_CORE 0);
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
    plan, work = _plan(workdir, list(readonly), limits.work_mb)
    cgroup = _join_cgroup(limits)

    euid, egid = os.geteuid(), os.getegid()
    if euid == 0 and _prepare_trees(plan, work):
        who = f"runs as unprivileged host uid {_SANDBOX_ID} (work folder id-mapped)"
        with _step(f"dropping to uid/gid {_SANDBOX_ID}"):
            os.setgroups([])
            os.setresgid(_SANDBOX_ID, _SANDBOX_ID, _SANDBOX_ID)
            os.setresuid(_SANDBOX_ID, _SANDBOX_ID, _SANDBOX_ID)
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
        try:
            _write_file("/proc/self/setgroups", "deny", "writing /proc/self/setgroups")
        except _JailError as exc:
            if exc.errno != errno.ENOENT:  # kernels before 3.19 have no such file
                raise
        _write_file("/proc/self/uid_map", f"0 {euid} 1\n", "writing /proc/self/uid_map")
        _write_file("/proc/self/gid_map", f"0 {egid} 1\n", "writing /proc/self/gid_map")
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
    _drop_capabilities()
    _close_fds(keep_fds)
    _apply_rlimits(limits)
    python = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)}
    ro = [e.dest for e in plan if e.kind == "ro"]
    shown = "system and Python environment" if all(any(_within(p, d) for d in ro) for p in python) else "system"
    budgets = f"cgroup v{cgroup} memory and pids per runner; rlimits per process" if cgroup else "rlimits per process (no writable cgroup)"
    _description = "; ".join(
        ["user, pid, net, mount, ipc, uts namespaces",
         f"private root (pivot_root) with read-only {shown}, writable work folder (a size-limited tmpfs copy), "
         "private /tmp, minimal /dev, own /proc"]
        + [f for f in features if f != "own hostname"]
        + ["no capabilities, no_new_privs", who, budgets])


def release(pid: int) -> None:
    """In the process that called available(): kill whatever is left in the cgroups of `pid` (a
    child that called enter(), already reaped) and remove them. Never raises."""
    if _cgroups is not None:
        for parent in _cgroups.parents:
            _remove_cgroup(os.path.join(parent, f"runner-{pid}"))
