"""The processes around the sandbox: a session of its own, the parent-death signal, closing the
inherited descriptors (shared with the unsandboxed mode), and the intermediate process that waits
for pid 1 of the new namespace and exits the way it did."""

from __future__ import annotations

import contextlib
import os
import resource
import signal

from .syscalls import _PR_SET_PDEATHSIG, _check, _prctl


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
