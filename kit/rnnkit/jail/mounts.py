"""The private root: the plan of what it holds (read-only system folders and Python environment,
the work folder's tmpfs copy, a private /tmp, a minimal /dev, its own /proc), the detached trees
prepared while still root, and building it in the inner process with pivot_root."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
from dataclasses import dataclass

from .credentials import _idmap_userns
from .syscalls import (
    _AT_EMPTY_PATH,
    _AT_FDCWD,
    _AT_RECURSIVE,
    _MNT_DETACH,
    _MOUNT_ATTR_IDMAP,
    _MOUNT_ATTR_NODEV,
    _MOUNT_ATTR_NOEXEC,
    _MOUNT_ATTR_NOSUID,
    _MOUNT_ATTR_RDONLY,
    _MS_BIND,
    _MS_NOATIME,
    _MS_NODEV,
    _MS_NODIRATIME,
    _MS_NOEXEC,
    _MS_NOSUID,
    _MS_PRIVATE,
    _MS_RDONLY,
    _MS_REC,
    _MS_RELATIME,
    _MS_REMOUNT,
    _MS_STRICTATIME,
    _NR_OPEN_TREE,
    _ST_NOATIME,
    _ST_NODEV,
    _ST_NODIRATIME,
    _ST_NOEXEC,
    _ST_NOSUID,
    _ST_RDONLY,
    _ST_RELATIME,
    _error,
    _JailError,
    _mount,
    _mount_setattr,
    _move_mount,
    _open_tree,
    _pivot_root,
    _step,
    _umount2,
    _write_file,
)

_SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_TMP_SIZE = "64m"


# --- the plan: what the new root holds ------------------------------------------------------


@dataclass
class _Entry:
    dest: str  # absolute path inside the sandbox
    kind: str  # "ro", "dev" (bind mounts), "tmpfs", "work" (a tmpfs copy of source), "proc", "symlink"
    source: str = ""  # host path of a bind mount or of the work folder, target of a symlink
    options: str = ""  # tmpfs options
    flags: int = 0  # tmpfs mount flags
    is_dir: bool = True
    fd: int = -1  # detached mount tree (open_tree), attached by the inner process


def _within(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _plan(workdir: str, readonly: list[str], size_mb: int) -> tuple[list[_Entry], str]:
    """Everything the new root holds (the work folder a tmpfs of `size_mb` MB), parents before what
    is mounted inside them."""
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
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        entries.append(_Entry(f"/dev/{name}", "symlink", target))
    entries.append(_Entry("/dev/shm", "tmpfs", options=f"mode=1777,size={_TMP_SIZE}", flags=_MS_NOSUID | _MS_NODEV))
    entries.append(_Entry("/proc", "proc"))
    links: list[tuple[str, str]] = []
    for path in readonly:
        with _step(f"read-only path {path!r}"):
            real = os.path.realpath(path)
            os.stat(real)
            links += _links(os.path.join(os.getcwd(), path))
        if real == "/" or _within(real, "/proc"):
            raise _error(f"read-only path {path!r}", errno.EINVAL)
        if any(_within(real, done) for done in read_only):
            continue  # already visible, read-only, through a folder mounted before
        entries.append(_Entry(real, "ro", real, is_dir=os.path.isdir(real)))
        read_only.append(real)
    entries.append(_Entry(work, "work", work, options=f"mode=0755,size={int(size_mb)}m", flags=_MS_NOSUID | _MS_NODEV))
    # The links on the way to a read-only path are made again, so that a linked Python environment
    # is found at the path its interpreter uses (sys.prefix, sys.path), as on the host.
    hidden, taken = (*read_only, "/proc", "/dev", work), {entry.dest for entry in entries}
    for link, target in dict(links).items():
        if link not in taken and not any(_within(link, folder) for folder in hidden):
            entries.append(_Entry(link, "symlink", target))
            taken.add(link)
    order = sorted(range(len(entries)), key=lambda i: (entries[i].dest.count("/"), i))
    return [entries[i] for i in order], work


def _links(path: str) -> list[tuple[str, str]]:
    """The symbolic links met on the way from / to the real location of the absolute `path`, as
    (where, what it says), in the order they are met; ELOOP past 40."""
    found: list[tuple[str, str]] = []
    pending = [part for part in path.split("/") if part not in ("", ".")]
    current = "/"
    while pending:
        part = pending.pop(0)
        if part == "..":
            current = os.path.dirname(current)
            continue
        step = os.path.join(current, part)
        if not os.path.islink(step):
            current = step
            continue
        if len(found) == 40:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
        target = os.readlink(step)
        found.append((step, target))
        pending[:0] = [part for part in target.split("/") if part not in ("", ".")]
        current = "/" if target.startswith("/") else current
    return found


def _close_trees(plan: list[_Entry]) -> None:
    for entry in plan:
        if entry.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(entry.fd)
            entry.fd = -1


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
    for st, ms in (
        (_ST_RDONLY, _MS_RDONLY),
        (_ST_NOSUID, _MS_NOSUID),
        (_ST_NODEV, _MS_NODEV),
        (_ST_NOEXEC, _MS_NOEXEC),
        (_ST_NOATIME, _MS_NOATIME),
        (_ST_NODIRATIME, _MS_NODIRATIME),
        (_ST_RELATIME, _MS_RELATIME),
    ):
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
    for attr, ms in (
        (_MOUNT_ATTR_RDONLY, _MS_RDONLY),
        (_MOUNT_ATTR_NOSUID, _MS_NOSUID),
        (_MOUNT_ATTR_NODEV, _MS_NODEV),
        (_MOUNT_ATTR_NOEXEC, _MS_NOEXEC),
    ):
        if attrs & attr:
            wanted |= ms
    for point in _mounts_below(path) if recursive else [path]:
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
        _restrict(
            target + "/sys", _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV | _MOUNT_ATTR_NOEXEC, True
        )
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


def _build_root(plan: list[_Entry], work: str, features: list[str]) -> None:
    """In the inner process (pid 1, root of the new user namespace): the private root."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None, "making / private (MS_REC|MS_PRIVATE)")
    # A scratch tmpfs over an existing folder holds the new root and, after a first pivot_root,
    # the old one at /oldroot, from where the classic bind mounts take their sources.
    base = next(
        (d for d in ("/tmp", "/mnt", "/dev", "/run", "/var/tmp") if os.path.isdir(d) and not os.path.islink(d)), None
    )
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
