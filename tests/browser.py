"""Browser-test harness: the course's own Jupyter server (nbgrader's server extensions, as the venv
enables them) and Debian's headless chromium driven by Playwright.

Where chromium or Playwright is missing the browser tests skip with the reason; in CI (`CI=true`,
which `.ci/run` sets) they fail instead, so they never pass there unrun.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
#: Launch flags that work as root in a container; Playwright adds a fresh temporary user-data-dir.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: How long a page may take to load, and how long its scripts get afterwards (ms).
LOAD_MS, SETTLE_MS = 30_000, 750


def required() -> bool:
    """Whether a missing browser is a failure (CI) rather than a skip."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need_browser() -> None:
    """Skip (fail in CI) with a one-line reason unless chromium and Playwright are here."""
    reason = None
    if not os.access(CHROMIUM, os.X_OK):
        reason = f"no chromium at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "Playwright is not installed (pip install -r requirements.lock)"
    if reason:
        (pytest.fail if required() else pytest.skip)(f"browser tests: {reason}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A running Jupyter server: its base URL, token, course root and log."""

    url: str
    token: str
    root: Path
    process: subprocess.Popen
    log: Path

    def get(self, path: str, timeout: float = 10) -> tuple[int, str]:
        """(status, body) of an authenticated GET of `path` (no browser)."""
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", "replace")

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM to the server's process group, SIGKILL if it is still there after `timeout` seconds."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.process.poll() is not None:
                return
            try:
                os.killpg(self.process.pid, sig)
                self.process.wait(timeout)
            except ProcessLookupError:
                return
            except subprocess.TimeoutExpired:
                continue


def start_server(root: Path, scratch: Path, timeout: float = 60) -> Server:
    """`jupyter server` of this venv with `root` as root dir and working folder, on 127.0.0.1, a free
    port and a fresh token, no browser; returns once /api/status answers (else raises with its log)."""
    scratch.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(scratch / "config"),
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    log = scratch / "server.log"
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "server",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--ServerApp.open_browser=False",
        "--ServerApp.allow_root=True",
    ]
    with log.open("w") as out:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = Server(f"http://127.0.0.1:{port}", token, Path(root), process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if server.get("/api/status", timeout=2)[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(
        f"jupyter server did not answer on {server.url} within {timeout:.0f} s "
        f"(exit code {process.poll()}):\n{server.tail()}"
    )


@pytest.fixture(scope="session")
def browser_ready():
    """Skip (fail in CI) when there is no browser; through `browser_test`, before any costlier fixture."""
    need_browser()


#: Marks a browser test: its browser check runs first (usefixtures come before a test's own fixtures).
browser_test = pytest.mark.usefixtures("browser_ready")


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, through Playwright, for the whole run."""
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, timeout=LOAD_MS)
        yield chromium
        chromium.close()


#: What MathJax's CDN answers: formgrader's scripts stop without a MathJax object, and there is no internet.
MATHJAX_STUB = (
    "window.MathJax = {Hub: {Config() {}, Queue() {}, Configured() {}, Register: {StartupHook() {}, MessageHook() {}},"
    " Startup: {signal: {Interest() {}}}}};"
)


def local_only(route) -> None:
    """file:// and 127.0.0.1 pass, MathJax gets the stub, everything else is aborted."""
    url = urlsplit(route.request.url)
    if url.hostname in ("127.0.0.1", None):
        route.continue_()
    elif "mathjax" in url.path.lower():
        route.fulfill(status=200, content_type="application/javascript", body=MATHJAX_STUB)
    else:
        route.abort()


@contextlib.contextmanager
def local_context(browser):
    """A fresh browser context that reaches only file:// and 127.0.0.1 (see `local_only`)."""
    context = browser.new_context()
    context.route("**/*", local_only)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def context(browser):
    with local_context(browser) as context:
        yield context


@dataclass
class Visit:
    """What a page did: its HTTP status (None for file://), the names its student scripts set in
    `window.<hostile.SCRIPT_FLAG>` (None when unset), the dialogs it opened, its text and what
    `read(page)` returned."""

    status: int | None
    flag: list | None
    dialogs: list[str]
    text: str
    read: object = None


def visit(context, url: str, flag: str, referer: str | None = None, read=None) -> Visit:
    """Open `url` (from `referer`: Jupyter serves /files/ only to its own pages), let its scripts
    run, click its javascript: links, and report what ran and what `read(page)` found."""
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(f"{dialog.type}: {dialog.message}"), dialog.dismiss()))
    try:
        response = page.goto(url, wait_until="load", timeout=LOAD_MS, referer=referer)
        page.wait_for_timeout(SETTLE_MS)
        if page.evaluate(
            "() => { const links = document.querySelectorAll(\"a[href^='javascript:' i]\");"
            " links.forEach(a => a.click()); return links.length }"
        ):
            page.wait_for_timeout(SETTLE_MS)
        found = read(page) if read else None
        status = response.status if response is not None and url.startswith("http") else None
        return Visit(status, page.evaluate(f"window[{flag!r}]"), dialogs, page.inner_text("body"), found)
    finally:
        page.close()


def login(context, server: Server) -> None:
    """Log `context` in to `server` through its login page with the token, as an instructor does."""
    page = context.new_page()
    try:
        page.goto(f"{server.url}/login?next=%2Fapi%2Fstatus", timeout=LOAD_MS)
        page.fill("#password_input", server.token)
        with page.expect_navigation(timeout=LOAD_MS):
            page.click("#login_submit")
        if not any(cookie["name"].startswith("username-") for cookie in context.cookies(server.url)):
            raise RuntimeError(f"login to {server.url} with the token set no cookie:\n{server.tail()}")
    finally:
        page.close()


@pytest.fixture(scope="session")
def served_class(graded_class, tmp_path_factory):
    """The course's own Jupyter server on the shared graded class (see tests/conftest.py), for the whole run."""
    server = start_server(graded_class.root, tmp_path_factory.mktemp("jupyter"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def served_class_zh(graded_class_zh, tmp_path_factory):
    """The course's own Jupyter server on the Chinese edition's graded class, for the whole run."""
    server = start_server(graded_class_zh.root, tmp_path_factory.mktemp("jupyter-zh"))
    yield server
    server.stop()


@pytest.fixture
def instructor(context, served_class):
    """A browser context logged in to the course's Jupyter server."""
    login(context, served_class)
    return context


# ---------------------------------------------------------------------------------------------
# Accessibility: axe-core and the checks it cannot make

#: axe-core's rules of WCAG 2.0, 2.1 and 2.2, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
#: Rules axe files as best practice that the course holds its pages to as well: headings in order,
#: one main landmark, all content in landmarks.
BEST_PRACTICE = ["heading-order", "landmark-one-main", "region", "page-has-heading-one"]
#: The narrowest viewport a page must fit without sideways scrolling (WCAG 1.4.10 Reflow), CSS px.
REFLOW_WIDTH = 320


def axe_violations(page) -> list[str]:
    """One line per rule axe-core (bundled by the PyPI package axe-playwright-python) finds violated
    on `page`, among WCAG_TAGS and BEST_PRACTICE, with the first offending elements. One run: axe
    runs a rule enabled by name (`rules`) besides the rules of the tags it runs only (`runOnly`)."""
    from axe_playwright_python.sync_playwright import Axe

    options = {
        "runOnly": {"type": "tag", "values": WCAG_TAGS},
        "rules": {rule: {"enabled": True} for rule in BEST_PRACTICE},
        "resultTypes": ["violations"],
    }
    return [
        f"{v['id']} ({len(v['nodes'])}): {v['help']}: " + " | ".join(n["html"][:160] for n in v["nodes"][:3])
        for v in Axe().run(page, options=options).response["violations"]
    ]


def overflow_at(page, width: int = REFLOW_WIDTH) -> int:
    """How many CSS px the page scrolls sideways in a viewport `width` px wide (0: it reflows)."""
    page.set_viewport_size({"width": width, "height": 800})
    page.wait_for_timeout(100)
    return page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")


#: What keyboard users reach with Tab: links, controls, summaries of details and focusable regions.
FOCUSABLE = (
    "a[href], button:not([disabled]), input:not([disabled]), select, textarea, summary, [tabindex]:not([tabindex='-1'])"
)


def unreached_by_tab(page) -> list[str]:
    """The focusable, visible elements of `page` that pressing Tab from the top never focuses."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0) }")
    targets = page.evaluate(f"""() => {{
        const all = [...document.querySelectorAll({FOCUSABLE!r})].filter(e => e.checkVisibility({{visibilityProperty: true}}));
        all.forEach((e, i) => e.setAttribute('data-focus-probe', String(i)));
        return all.length }}""")
    reached = set()
    for _ in range(targets + 5):
        page.keyboard.press("Tab")
        probe = page.evaluate("() => document.activeElement && document.activeElement.getAttribute('data-focus-probe')")
        if probe is not None:
            reached.add(int(probe))
    return page.evaluate(
        "(reached) => [...document.querySelectorAll('[data-focus-probe]')]"
        ".filter(e => !reached.includes(Number(e.getAttribute('data-focus-probe')))).map(e => e.outerHTML.slice(0, 160))",
        sorted(reached),
    )
