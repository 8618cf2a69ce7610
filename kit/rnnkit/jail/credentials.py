"""Who the sandboxed code is: the unprivileged host uid it drops to when the caller is root, the
id maps of its user namespaces (its own, and the one of the work folder's id-mapped mount), its
hostname, and the capabilities, securebits and no_new_privs it ends with."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal

from .syscalls import (
    _CLONE_NEWUSER,
    _PR_CAP_AMBIENT,
    _PR_CAP_AMBIENT_CLEAR_ALL,
    _PR_CAPBSET_DROP,
    _PR_SET_NO_NEW_PRIVS,
    _PR_SET_PDEATHSIG,
    _PR_SET_SECUREBITS,
    _check,
    _error,
    _JailError,
    _libc,
    _prctl,
    _step,
    _write_file,
)

#: Host uid and gid the sandbox runs as when the caller is root.
_SANDBOX_ID = 65534
_HOSTNAME = b"sandbox"
# SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED
# | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED
_SECUREBITS = 0x01 | 0x02 | 0x20 | 0x40 | 0x80
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


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


def _drop_to_sandbox_id() -> None:
    """As root, once the trees to mount are prepared: become host uid/gid `_SANDBOX_ID`, without groups."""
    with _step(f"dropping to uid/gid {_SANDBOX_ID}"):
        os.setgroups([])
        os.setresgid(_SANDBOX_ID, _SANDBOX_ID, _SANDBOX_ID)
        os.setresuid(_SANDBOX_ID, _SANDBOX_ID, _SANDBOX_ID)


def _write_id_maps(uid: int, gid: int) -> None:
    """Right after unshare: host `uid`/`gid` become root of the new user namespace (setgroups denied)."""
    try:
        _write_file("/proc/self/setgroups", "deny", "writing /proc/self/setgroups")
    except _JailError as exc:
        if exc.errno != errno.ENOENT:  # kernels before 3.19 have no such file
            raise
    _write_file("/proc/self/uid_map", f"0 {uid} 1\n", "writing /proc/self/uid_map")
    _write_file("/proc/self/gid_map", f"0 {gid} 1\n", "writing /proc/self/gid_map")


def _set_hostname() -> bool:
    """The uts namespace's own hostname; False where it could not be set."""
    return _libc.sethostname(_HOSTNAME, len(_HOSTNAME)) == 0


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
