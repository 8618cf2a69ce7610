"""Resource limits: `Limits`, the rlimits of every process, and the cgroups (v2, else v1 memory and
pids hierarchies) that hold the memory and pids budgets of a whole runner."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import signal
import time
from dataclasses import dataclass

from .mounts import _unescape, _within
from .syscalls import _error, _JailError, _step, _write_file


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What one submission's student code may use, from course_config.py to the jail: the one
    definition of each limit and its default. A field in capitals is the course setting of that
    name (described by `autograder.coursedir.settings.Settings`, which takes its default from here);
    the others are the jail's own backstops. The grader sends it whole in a runner's spawn request
    (`dataclasses.asdict`) and the runner rebuilds it (`Limits(**fields)`)."""

    CELL_TIMEOUT: float = 120.0  # seconds a cell may run
    CALL_TIMEOUT: float = 10.0  # seconds one call of a student's function may take
    MEMORY_LIMIT_MB: int = 2048  # RLIMIT_AS, and the runner's cgroup memory
    OUTPUT_LIMIT_KB: int = 256  # output one cell may keep
    OUTPUT_TOTAL_KB: int = 1024  # output all the cells of a submission may keep
    PROCESS_LIMIT: int = 64  # RLIMIT_NPROC (counted inside the new user namespace), the cgroup's pids.max
    WORK_LIMIT_MB: int = 256  # size of the work folder's tmpfs
    SUBMISSION_TIMEOUT: float = 600.0  # seconds of waiting on the submission's runners, in all
    RUNNER_RESTARTS: int = 8  # times the submission's runner may be started again
    cpu_seconds: int = 600  # RLIMIT_CPU backstop of every process
    file_mb: int = 64  # RLIMIT_FSIZE
    open_files: int = 256  # RLIMIT_NOFILE


def _apply_rlimits(limits: Limits) -> None:
    mib = 1024 * 1024
    wanted = (
        ("RLIMIT_AS", resource.RLIMIT_AS, int(limits.MEMORY_LIMIT_MB) * mib, int(limits.MEMORY_LIMIT_MB) * mib),
        ("RLIMIT_NPROC", resource.RLIMIT_NPROC, int(limits.PROCESS_LIMIT), int(limits.PROCESS_LIMIT)),
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


# --- cgroups: memory and pids budgets of a whole runner ---------------------------------------


class _BudgetRefused(_JailError):
    """The runner's cgroup could not be made or joined."""


@dataclass(frozen=True)
class _Cgroups:
    version: int  # 1 or 2
    parents: tuple[str, ...]  # the rnnkit-<owner> folders the runners' cgroups go in, one per hierarchy
    owner: str  # the process that made them and removes them when it exits (`_owner`)


def _started(pid: str) -> str | None:
    """When process `pid` of this pid namespace started (clock ticks after boot), or None where
    there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def _owner() -> str:
    """This process named for good, "<pid namespace>-<pid>-<start time>": a pid alone is given to
    another process once this one ends, and names other processes in other pid namespaces."""
    namespace = os.readlink("/proc/self/ns/pid").strip("pid:[]")
    return f"{namespace}-{os.getpid()}-{_started('self')}"


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
        names = (
            ["2"]
            if fstype == "cgroup2"
            else [n for n in ("memory", "pids") if n in options]
            if fstype == "cgroup"
            else []
        )
        root, point = _unescape(fields[3]), _unescape(fields[4])
        for name in names:
            found = bases.setdefault(name, [])
            if _within(own.get(name, ""), root):
                found.append(os.path.normpath(os.path.join(point, os.path.relpath(own[name], root))))
            found.append(point)
    return {name: list(dict.fromkeys(found)) for name, found in bases.items()}


def _gone(owner: str, namespace: str) -> bool:
    """Whether the process that made the folder rnnkit-<owner> has ended; never for one of another
    pid namespace than `namespace`, whose pids this process cannot look up."""
    parts = owner.split("-")
    if len(parts) == 1 and owner.isdigit():  # a folder named before owners carried their start time
        return not os.path.exists(f"/proc/{owner}")
    return len(parts) == 3 and parts[0] == namespace and parts[1].isdigit() and _started(parts[1]) != parts[2]


def _sweep(base: str, owner: str) -> None:
    """Remove the rnnkit-<owner> folders under `base` of owners that were killed before they could
    (only empty cgroups: nothing is killed here); `owner` is this process's."""
    namespace = owner.partition("-")[0]
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            if name.startswith("rnnkit-") and _gone(name[len("rnnkit-") :], namespace):
                parent = os.path.join(base, name)
                for runner in [n for n in os.listdir(parent) if n.startswith("runner-")] + [""]:
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(parent, runner))


def _make_parent(base: str, version: int, owner: str) -> str | None:
    """This process's rnnkit-<owner> folder under `base` (in v2 with memory and pids for the
    cgroups below it), or None where that cannot be made."""
    path = os.path.join(base, f"rnnkit-{owner}")
    _sweep(base, owner)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o755)
        if version == 2:
            with open(os.path.join(path, "cgroup.controllers"), encoding="ascii") as handle:
                if not {"memory", "pids"} <= set(handle.read().split()):
                    _write_file(
                        os.path.join(base, "cgroup.subtree_control"), "+memory +pids", "enabling memory and pids"
                    )
            _write_file(os.path.join(path, "cgroup.subtree_control"), "+memory +pids", "enabling memory and pids")
        return path
    except OSError:
        _remove_cgroup(path)
        return None


def _cgroup_setup() -> _Cgroups | None:
    """This process's parent folders for the runners' cgroups: in cgroup v2 where it offers memory
    and pids, else in the v1 memory and pids hierarchies; None where neither is writable."""
    bases = _cgroup_bases()
    try:
        owner = _owner()
    except OSError:
        return None
    for version, names in ((2, ("2",)), (1, ("memory", "pids"))):
        parents: list[str] = []
        for name in names:
            parent = next(filter(None, (_make_parent(base, version, owner) for base in bases.get(name, []))), None)
            if parent is None:
                break
            parents.append(parent)
        else:
            return _Cgroups(version, tuple(dict.fromkeys(parents)), owner)
        for parent in parents:
            _remove_cgroup(parent)
    return None


def _join_cgroup(cgroups: _Cgroups | None, limits: Limits) -> int | None:
    """Still privileged: move this process (and so all it starts) into fresh cgroups of its own,
    runner-<pid> in each parent folder of `cgroups`, with the memory and pids budgets of `limits`.
    Returns the cgroup version, or None where there are no cgroups; _BudgetRefused where one of
    them cannot be made, given its budget or joined."""
    if cgroups is None:
        return None
    memory = str(int(limits.MEMORY_LIMIT_MB) * 1024 * 1024)
    budgets = {
        "memory.limit_in_bytes": memory,
        "memory.memsw.limit_in_bytes": memory,
        "memory.max": memory,
        "memory.swap.max": "0",
        "pids.max": str(int(limits.PROCESS_LIMIT)),
    }  # in this order: memsw >= memory
    written = set()
    try:
        for parent in cgroups.parents:
            path = os.path.join(parent, f"runner-{os.getpid()}")
            _remove_cgroup(path)  # one left by an earlier runner of this pid, whose processes outlived its release
            with _step(f"creating cgroup {path}"):
                os.mkdir(path, 0o755)
            for name, value in budgets.items():
                if os.path.exists(os.path.join(path, name)):
                    _write_file(os.path.join(path, name), value, f"writing {path}/{name}")
                    written.add(name.split(".")[0])
            _write_file(os.path.join(path, "cgroup.procs"), str(os.getpid()), f"moving into cgroup {path}")
        if written != {"memory", "pids"}:
            raise _error("finding the cgroup's memory and pids budget files", errno.ENOENT)
    except OSError as exc:
        raise _BudgetRefused(exc.errno, exc.strerror or str(exc)) from None
    return cgroups.version


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
    try:
        if _owner() != cgroups.owner:
            return
    except OSError:  # no /proc: not the process that made them
        return
    for parent in cgroups.parents:
        with contextlib.suppress(OSError):
            for name in os.listdir(parent):
                if name.startswith("runner-"):
                    _remove_cgroup(os.path.join(parent, name))
        _remove_cgroup(parent)
