"""The thin layer over libc (loaded with ctypes): kernel constants, system call wrappers and the
error that names the failing setup step."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import sys

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

# pivot_root per architecture; open_tree (428), move_mount (429) and mount_setattr (442) share
# their numbers on every architecture listed here.
_PIVOT_ROOT = {
    "x86_64": 155,
    "amd64": 155,
    "aarch64": 41,
    "arm64": 41,
    "riscv64": 41,
    "loongarch64": 41,
    "ppc64le": 203,
    "ppc64": 203,
    "s390x": 217,
    "i386": 217,
    "i686": 217,
    "armv7l": 218,
    "armv8l": 218,
}
_MACHINE = platform.machine().lower()
_NR_PIVOT_ROOT = _PIVOT_ROOT.get(_MACHINE)
_NR_OPEN_TREE, _NR_MOVE_MOUNT, _NR_MOUNT_SETATTR = (428, 429, 442) if _MACHINE in _PIVOT_ROOT else (None, None, None)


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


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


def _why(error: BaseException) -> str:
    """What went wrong, in one line: a failed step's own sentence, else the error's type and message."""
    text = error.strerror if isinstance(error, _JailError) and error.strerror else f"{type(error).__name__}: {error}"
    return " ".join(str(text).split())


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
    rc = _libc.mount(
        None if source is None else _b(source),
        _b(target),
        None if fstype is None else _b(fstype),
        flags,
        None if data is None else data.encode(),
    )
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
    rc = _libc.syscall(
        ctypes.c_long(_NR_OPEN_TREE),
        ctypes.c_int(_AT_FDCWD),
        ctypes.c_char_p(_b(path)),
        ctypes.c_uint(_OPEN_TREE_CLONE | os.O_CLOEXEC | _AT_RECURSIVE),
    )
    return _check(rc, f"open_tree({path})")


def _mount_setattr(dirfd: int, path: str, flags: int, attr_set: int, userns_fd: int, step: str) -> None:
    if _NR_MOUNT_SETATTR is None:
        raise _error(step, errno.ENOSYS)
    attr = _MountAttr(attr_set, 0, 0, userns_fd if userns_fd >= 0 else 0)
    rc = _libc.syscall(
        ctypes.c_long(_NR_MOUNT_SETATTR),
        ctypes.c_int(dirfd),
        ctypes.c_char_p(_b(path)),
        ctypes.c_uint(flags),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    _check(rc, step)


def _move_mount(fd: int, target: str) -> None:
    rc = _libc.syscall(
        ctypes.c_long(_NR_MOVE_MOUNT),
        ctypes.c_int(fd),
        ctypes.c_char_p(b""),
        ctypes.c_int(_AT_FDCWD),
        ctypes.c_char_p(_b(target)),
        ctypes.c_uint(_MOVE_MOUNT_F_EMPTY_PATH),
    )
    _check(rc, f"move_mount onto {target}")


def _write_file(path: str, text: str, step: str) -> None:
    with _step(step):
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
