"""The hub's processes: started in a session of their own, and stopped so that nothing is left.

JupyterHub stops what it started when it gets SIGTERM (the servers, the services, the proxy), but not
when it dies. What outlives it is found by the kernel's record, never by name: the hub's descendants,
noted while it runs (`Started`), and every process of the demo's own accounts; those get SIGTERM,
and SIGKILL after a grace."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

#: Seconds the hub has to stop what it started, and what is left to go after SIGTERM.
HUB_GRACE, LEFT_GRACE = 30.0, 5.0


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def start(command: list[str], cwd: Path, log: Path, env: dict[str, str]) -> subprocess.Popen:
    """`command` in a session of its own (a Ctrl-C at the terminal reaches the demo, which stops it),
    its output appended to `log` (0600)."""
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    try:
        return subprocess.Popen(
            command, cwd=cwd, env=env, stdout=descriptor, stderr=subprocess.STDOUT, start_new_session=True
        )
    finally:
        os.close(descriptor)


def _processes() -> dict[int, tuple[int, int, int, str]]:
    """pid -> (parent pid, session id, uid, start time) of every live process."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            uid = os.stat(f"/proc/{entry.name}").st_uid
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), int(fields[3]), uid, fields[19])
    return found


class Started:
    """The processes the hub started, as they come and go: its descendants (the proxy, the services,
    the servers and their kernels, each in a session of its own) are noted while the hub runs (a child
    outlives a hub that dies), and what runs as the demo's accounts counts as well."""

    def __init__(self, hub: subprocess.Popen, uids: set[int]):
        self.hub, self.uids = hub, uids
        self.seen: dict[int, str] = {}  # pid -> start time (a pid used again is another process)

    def note(self) -> None:
        """Note the hub's descendants now."""
        table = _processes()
        if self.hub.pid in table:
            self.seen.setdefault(self.hub.pid, table[self.hub.pid][3])
        grew = True
        while grew:
            grew = False
            for pid, (parent, _, _, started) in table.items():
                if parent in self.seen and pid not in self.seen:
                    self.seen[pid] = started
                    grew = True

    def left(self) -> list[int]:
        """What of it still runs, this process aside."""
        table = _processes()
        return sorted(
            pid
            for pid, (_, _, uid, started) in table.items()
            if pid != os.getpid() and (self.seen.get(pid) == started or uid in self.uids)
        )

    def stop(self) -> list[int]:
        """Stop the hub (SIGTERM, then SIGKILL after `HUB_GRACE`), then whatever it started is left;
        the processes that were left after the hub stopped."""
        self.note()
        if self.hub.poll() is None:
            self.hub.send_signal(signal.SIGTERM)
            try:
                self.hub.wait(HUB_GRACE)
            except subprocess.TimeoutExpired:
                self.hub.kill()
                self.hub.wait()
        leftover = self.left()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.left():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + LEFT_GRACE
            while self.left() and time.monotonic() < deadline:
                time.sleep(0.1)
        return leftover
