"""The demo hub as the hub tests drive it: `python -m autograder hub demo` in a process of its own
(`Demo`), logged in as a browser posts the hub's login form (`login`), servers started and waited for,
requests made as a role (`status`), and what is left of it found and removed after.

Runs only as root with useradd, runuser and npm, from a checkout that other accounts can enter;
`skip_unless_possible` skips elsewhere with the reason."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from autograder.hub import accounts

from ..accounts import needs_accounts
from ..conftest import REPO

COURSE = "rnn-chapters"
GRADER = f"grader-{COURSE}"
SERVICE = f"services/{COURSE}"
#: Seconds the demo may take to say it is ready (a first run makes the students' and the staff's environments).
READY = 600
#: Seconds a spawned server may take to be ready.
SPAWN = 120


@dataclass
class Running:
    """A demo hub that said it is ready: its address, folder, accounts (name -> `accounts.Account`) and
    the seconds each step of the tests took (printed when it stops)."""

    base: str
    folder: Path
    people: dict
    times: dict[str, float] = field(default_factory=dict)

    @property
    def course(self) -> Path:
        return self.folder / "course"


def skip_unless_possible() -> None:
    """Skip, with the reason, where the demo hub cannot run."""
    needs_accounts()
    if shutil.which("npm") is None:
        pytest.skip("needs npm for configurable-http-proxy 5.3 (apt-get install npm)")
    closed = [str(p) for p in REPO.parents if not os.stat(p).st_mode & 0o001]
    if closed:
        pytest.skip(f"other accounts cannot enter {closed[0]}, above the checkout the demo hub serves them from")


class Demo:
    """`python -m autograder hub demo` in a process of its own, its lines read as they come."""

    def __init__(self, port: int):
        env = {**os.environ, "AUTOGRADER_WARM": "0"}
        command = [sys.executable, "-m", "autograder", "--root", str(REPO), "hub", "demo", "--port", str(port)]
        self.process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[str] = []
        self.queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.queue.put(line.rstrip("\n"))
        self.queue.put(None)

    def wait_for(self, text: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.queue.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            self.lines.append(line)
            if text in line:
                return line
        pytest.fail(f"the demo did not say {text!r}:\n" + "\n".join(self.lines[-30:]))

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(90)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        while (line := self.queue.get(timeout=5)) is not None:
            self.lines.append(line)
        return code


def login(base: str, name: str, password: str) -> requests.Session:
    """A session logged in through the hub's login form, as a browser posts it."""
    session = requests.Session()
    assert session.get(base + "hub/login").status_code == 200
    answer = session.post(
        base + "hub/login",
        data={"username": name, "password": password, "_xsrf": session.cookies.get("_xsrf", path="/hub/")},
        allow_redirects=False,
    )
    assert answer.status_code == 302 and "/hub/login" not in answer.headers["location"], (name, answer.status_code)
    return session


def xsrf(session: requests.Session, path: str) -> dict[str, str]:
    """The header that carries the `_xsrf` cookie of `path` (a hub API call, a server's POST)."""
    return {"X-XSRFToken": session.cookies.get("_xsrf", path=path) or ""}


def start_server(base: str, session: requests.Session, name: str) -> None:
    """Ask the hub to start `name`'s server (one a browser started already is left as it is)."""
    answer = session.post(base + f"hub/api/users/{name}/server", headers=xsrf(session, "/hub/"))
    running = answer.status_code == 400 and "is already running" in answer.text
    assert answer.status_code in (201, 202) or running, (name, answer.status_code, answer.text)


def wait_ready(base: str, session: requests.Session, name: str) -> None:
    deadline = time.monotonic() + SPAWN
    while time.monotonic() < deadline:
        model = session.get(base + f"hub/api/users/{name}", headers=xsrf(session, "/hub/")).json()
        if model.get("servers", {}).get("", {}).get("ready"):
            return
        time.sleep(1)
    pytest.fail(f"the server of {name} was not ready in {SPAWN} s")


def status(base: str, session: requests.Session, method: str, path: str) -> int:
    """The status a request ends with, redirects (the hub's OAuth) followed; a POST carries the
    `_xsrf` cookie of the server it goes to, as JupyterLab sends it."""
    if method == "GET":
        return session.get(base + path).status_code
    prefix = "/" + "/".join(path.split("/")[:2]) + "/"
    session.get(base + path.split("/api/")[0] + "/api/status")  # the server's own _xsrf cookie
    return session.post(base + path, headers=xsrf(session, prefix)).status_code


def runs_as(name: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", name, "--", *command], capture_output=True, text=True, cwd="/")


def process_of(uid: int, marker: str) -> int:
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid and marker in Path(entry.path, "cmdline").read_text():
                    return int(entry.name)
            except OSError:
                continue
    pytest.fail(f"no process of uid {uid} running {marker}")


def left_running(uids: set[int], marker: str) -> list[str]:
    """Live processes (zombies aside: they have ended) of `uids`, or whose command line names `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                line = Path(entry.path, "cmdline").read_text().replace("\0", " ")
                state = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z" and (os.stat(entry.path).st_uid in uids or marker in line):
                    found.append(f"{entry.name} ({state}): {line}")
            except (OSError, IndexError):
                continue
    return found


def clean_up(folder: Path) -> None:
    """The demo's accounts removed, and what they owned in its folder (the caches stay)."""
    for name in [*accounts.STUDENTS, accounts.TA, GRADER]:
        subprocess.run(["userdel", name], capture_output=True)
    for part in ("course", "home", "exchange", "hub", "accounts.csv"):
        path = folder / part
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
