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
can read it or the formgrader process's environment (its hub token). SIGTERM stops the demo after the
last hub test, and nothing it started is left running (`conftest.running_hub`); its accounts are
removed after. The whole cycle in a browser: test_browser_cycle.py.

Marked `hub` (`make test-hub`; `make test` leaves it out). Runs only as root with useradd, runuser
and npm, from a checkout that other accounts can enter; skips elsewhere with the reason."""

from __future__ import annotations

import time

import pytest
import requests

from autograder.hub import accounts

from .demo_hub import GRADER, SERVICE, login, process_of, runs_as, start_server, status, wait_ready

pytestmark = pytest.mark.hub

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


def test_a_real_hub_keeps_each_role_to_its_own(running_hub, capsys):
    base, folder, people, times = running_hub.base, running_hub.folder, running_hub.people, running_hub.times
    table = folder / "accounts.csv"
    assert table.stat().st_mode & 0o777 == 0o600 and table.stat().st_uid == 0
    assert {name: a.role for name, a in people.items()} == {
        **{name: "student" for name in accounts.STUDENTS},
        "ta": "ta",
        GRADER: "grader",
    }
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
        (path, anonymous.get(base + path, allow_redirects=False), anonymous.get(base + path)) for path, _ in LOGGED_OUT
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
    service = process_of(people[GRADER].uid, "autograder.hub.service")
    for name in ("ta", "ada"):
        assert runs_as(name, "cat", str(secret)).returncode != 0, f"{name} reads the course secret"
        assert runs_as(name, "cat", f"/proc/{service}/environ").returncode != 0, f"{name} reads the token"
