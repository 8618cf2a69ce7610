"""A real hub, end to end: `python -m autograder hub demo` as root (real accounts with PAM passwords,
JupyterHub 5.5, configurable-http-proxy 5.3, formgrader as a service of the grader account, every
assignment released through nbgrader's exchange), then each role held to its own by HTTP status
codes, logged in through the hub's login page as a browser is (its `_xsrf` cookie and form field):

* a student reaches her own server, and not formgrader, the grader account's server or another
  student's server;
* the TA reaches formgrader (its pages and its API: every assignment released), and not the course
  secret through it (contents, files), its kernels or terminals, nor the grader's server or terminal;
* the grader reaches its own server; logged out, every page leads to the login page.

On disk and in /proc: the course secret is the grader's alone (0600), and neither the TA nor a student
can read it or the formgrader process's environment (its hub token). SIGTERM stops the demo, and
nothing it started is left running. The demo's accounts are removed after.

Marked `hub` (`make test-hub`; `make test` leaves it out). Runs only as root with useradd, runuser
and npm, from a checkout that other accounts can enter; skips elsewhere with the reason."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from autograder.hub import accounts, demo, processes

from ..accounts import needs_accounts
from ..conftest import REPO

pytestmark = pytest.mark.hub

COURSE = "rnn-chapters"
GRADER = f"grader-{COURSE}"
SERVICE = f"services/{COURSE}"
#: Seconds the demo may take to say it is ready (a first run makes the students' environment).
READY = 420
#: Seconds a spawned server may take to be ready.
SPAWN = 120

#: (who, method, path, expected status): each role against what is and is not its own.
PROBES = [
    ("ada", "GET", "user/ada/lab", 200),
    ("ada", "GET", f"{SERVICE}/formgrader", 403),
    ("ada", "GET", f"user/{GRADER}/lab", 403),
    ("ada", "GET", "user/ben/lab", 403),
    ("ada", "GET", "user/ben/api/contents", 403),
    ("ta", "GET", f"{SERVICE}/formgrader", 200),
    ("ta", "GET", f"{SERVICE}/formgrader/api/assignments", 200),
    ("ta", "GET", f"{SERVICE}/static/jupyter_server_mathjax/MathJax.js", 200),  # formgrader's MathJax, served here
    ("ta", "GET", f"{SERVICE}/api/contents/course_secret", 403),
    ("ta", "GET", f"{SERVICE}/files/course_secret", 403),
    ("ta", "POST", f"{SERVICE}/api/kernels", 403),
    ("ta", "POST", f"{SERVICE}/api/terminals", 404),
    ("ta", "GET", f"user/{GRADER}/lab", 403),
    ("ta", "POST", f"user/{GRADER}/api/terminals", 403),
    (GRADER, "GET", f"user/{GRADER}/lab", 200),
    (GRADER, "POST", f"user/{GRADER}/api/terminals", 200),
]
#: Logged out: (path, the first answer); each ends on the login page.
LOGGED_OUT = [("hub/home", 302), ("user/ada/lab", 302), (f"{SERVICE}/formgrader", 302)]


def _skip_unless_possible() -> None:
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
    answer = session.post(base + f"hub/api/users/{name}/server", headers=xsrf(session, "/hub/"))
    assert answer.status_code in (201, 202), (name, answer.status_code, answer.text)


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


def _process_of(uid: int, marker: str) -> int:
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid and marker in Path(entry.path, "cmdline").read_text():
                    return int(entry.name)
            except OSError:
                continue
    pytest.fail(f"no process of uid {uid} running {marker}")


def _left(uids: set[int], marker: str) -> list[str]:
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


def _clean_up(folder: Path) -> None:
    """The demo's accounts removed, and what they owned in its folder (the caches stay)."""
    for name in [*accounts.STUDENTS, accounts.TA, GRADER]:
        subprocess.run(["userdel", name], capture_output=True)
    for part in ("course", "home", "exchange", "hub", "staff-env", "accounts.csv"):
        path = folder / part
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


def test_a_real_hub_keeps_each_role_to_its_own(capsys):
    _skip_unless_possible()
    folder = REPO / demo.FOLDER
    port = processes.free_port()
    base = f"http://127.0.0.1:{port}/"
    times, start = {}, time.perf_counter()
    hub = Demo(port)
    uids: set[int] = set()
    try:
        assert hub.wait_for("hub ready at", READY) == f"hub ready at {base}"
        times["demo ready"] = time.perf_counter() - start
        table = folder / "accounts.csv"
        assert table.stat().st_mode & 0o777 == 0o600 and table.stat().st_uid == 0
        people = {a.name: a for a in accounts.read_csv(table)}
        assert {name: a.role for name, a in people.items()} == {
            **{name: "student" for name in accounts.STUDENTS},
            "ta": "ta",
            GRADER: "grader",
        }
        uids = {a.uid for a in people.values()}
        secret = folder / "course" / "course_secret"
        info = secret.stat()
        assert (info.st_mode & 0o777, info.st_uid) == (0o600, people[GRADER].uid)
        assert (folder / "course").stat().st_mode & 0o077 == 0

        step = time.perf_counter()
        sessions = {name: login(base, name, people[name].password) for name in ("ada", "ben", "ta", GRADER)}
        for name in ("ada", "ben", GRADER):
            start_server(base, sessions[name], name)
        for name in ("ada", "ben", GRADER):
            wait_ready(base, sessions[name], name)
        times["log in, three servers up"] = time.perf_counter() - step

        step = time.perf_counter()
        found = [(who, method, path, status(base, sessions[who], method, path)) for who, method, path, _ in PROBES]
        anonymous = requests.Session()
        out = [
            (path, anonymous.get(base + path, allow_redirects=False), anonymous.get(base + path))
            for path, _ in LOGGED_OUT
        ]
        released = sessions["ta"].get(base + f"{SERVICE}/formgrader/api/assignments").json()
        times["status codes"] = time.perf_counter() - step
        with capsys.disabled():
            print("\n  who                  request                                              status")
            for who, method, path, code in found:
                print(f"  {who:<20} {method:<4} /{path:<48} {code}")
            for path, first, last in out:
                print(f"  {'(logged out)':<20} GET  /{path:<48} {first.status_code} -> {last.status_code} /hub/login")
        assert found == PROBES
        for (path, expected), (_, first, last) in zip(LOGGED_OUT, out):
            assert first.status_code == expected and last.status_code == 200, path
            assert last.url.startswith(base + "hub/login"), (path, last.url)
        assert {a["name"]: a["status"] for a in released} == {
            name: "released" for name in ("ch11_rnn_state", "ch12_bptt", "ch12_gates", "ch12_boundaries")
        }, "formgrader's token reads the grader's groups (the scopes of hub config)"

        # On disk: neither the TA nor a student reads the course secret or formgrader's hub token.
        service = _process_of(people[GRADER].uid, "autograder.hub.service")
        for name in ("ta", "ada"):
            assert runs_as(name, "cat", str(secret)).returncode != 0, f"{name} reads the course secret"
            assert runs_as(name, "cat", f"/proc/{service}/environ").returncode != 0, f"{name} reads the token"
    finally:
        step = time.perf_counter()
        code = hub.stop()
        times["stop"] = time.perf_counter() - step
        left = _left(uids, str(folder))
        _clean_up(folder)
        with capsys.disabled():
            print("  " + "; ".join(f"{what} {seconds:.1f} s" for what, seconds in times.items()))
            print(f"  hub end to end: {time.perf_counter() - start:.1f} s")
    assert code == 0, "\n".join(hub.lines[-20:])
    assert "nothing it started is running" in hub.lines[-1] and "userdel ada" in hub.lines[-1], hub.lines[-1]
    assert not left, left
    assert not processes.listening(port)
