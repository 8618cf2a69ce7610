"""Formulas without internet (issue 55, item 6), in Debian's chromium (tests/browser.py): the
student's feedback page, opened from disk and served by the course's Jupyter server, and
formgrader's submission view draw their math with MathJax from the machine itself, and no request
leaves it. The feedback page inlines MathJax 3 (the npm package `mathjax`, from
autograder.reporting.feedback_page) under a Content-Security-Policy that lets nothing else load,
not even an image from the web a student put in an answer; formgrader loads MathJax 2 from the
course's own server (the PyPI package jupyter-server-mathjax, through
autograder/templates/formgrade/mathjax.html.j2). A small course made here: the notebook of
tests/reporting/test_feedback_page.py with formulas, graded, its feedback page and its autograded
copy for formgrader; and a page without math, which gets no MathJax at all."""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from nbconvert import HTMLExporter
from nbgrader.api import Gradebook
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

from autograder.commands.course import nbgrader_env
from autograder.coursedir.ledger import Ledger
from autograder.reporting.feedback_page import has_math

from ..browser import LOAD_MS, browser_test, login, start_server
from ..conftest import make_course
from .test_feedback_page import ASSIGNMENT, HOSTILE_ID, NOTEBOOK, STUDENT, _grade, _notebook

pytestmark = pytest.mark.nbgrader

#: A student's answer with math: inline, display and an environment, and `\boldsymbol` (an
#: extension MathJax's smaller bundles fetch when they meet it).
MATH = (
    r"The loss is $L = \tfrac12 (h_3 - 1)^2 = 9/32$ and the state $\boldsymbol{h}_t = \tanh(W \boldsymbol{h}_{t-1})$."
    "\n\n"
    r"$$\frac{\partial L}{\partial W} = \sum_{t=1}^{T} \frac{\partial L}{\partial h_t} \frac{\partial h_t}{\partial W}$$"
    "\n\n"
    r"\begin{align} a &= b + c \\ d &= e \end{align}"
)
#: An image from the web in the same answer, which would tell that server who reads the page, and when.
PIXEL = "https://tracker.invalid/pixel.png"
#: How many formulas MATH holds.
FORMULAS = 4
#: How long MathJax may take to draw them once the page has loaded (ms).
READY_MS = 10_000
#: When MathJax 3 has typeset the page: how many formulas it drew and how many it could not read.
MATHJAX_3 = """() => window.MathJax && MathJax.startup && MathJax.startup.promise.then(() => [
    document.querySelectorAll('mjx-container').length,
    document.querySelectorAll('[data-mjx-error], [data-mml-node="merror"]').length])"""
#: The same for MathJax 2 in formgrader, once formgrader's scripts heard that MathJax started (`MathJax.loaded`).
MATHJAX_2 = """() => window.MathJax && MathJax.loaded === true && [
    document.querySelectorAll('.MathJax, .MathJax_SVG').length, document.querySelectorAll('.merror').length,
    MathJax.version]"""


def _with_math(image: bool = True) -> nbformat.NotebookNode:
    """test_feedback_page's notebook with MATH in a markdown cell, and PIXEL unless `image` is false."""
    notebook = _notebook()
    notebook.cells.insert(1, nbformat.v4.new_markdown_cell(MATH + (f"\n\n![a pixel]({PIXEL})" if image else "")))
    return notebook


def _feedback_pages(root: Path, scratch: Path, notebooks: list) -> tuple[list[str], str]:
    """The feedback page of each notebook, as `nbgrader generate_feedback` makes it in the course at
    `root` (tests/reporting/test_feedback_page.py `_render`), on one graded submission; and the
    gradebook's URL."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = converter.exporter_class(parent=converter, config=converter.config)
    for preprocessor in converter.preprocessors:
        exporter.register_preprocessor(preprocessor)
    db_url = converter.coursedir.db_url
    _grade(db_url)
    folder = scratch / "handed-in"
    folder.mkdir()
    (folder / f"{NOTEBOOK}.ipynb").write_text("{}", encoding="utf-8")
    Ledger(db_url, config.CourseDirectory.course_id).receive(
        ASSIGNMENT, STUDENT, folder, source="submitted", received=dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
    )
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": db_url}}
    return [exporter.from_notebook_node(notebook, resources=resources)[0] for notebook in notebooks], db_url


@dataclass
class Course:
    """The course made here: its root, the feedback page with math (its path under the root and its
    HTML), the page of the same notebook without math, and the submission formgrader shows."""

    root: Path
    page: str
    html: str
    plain: str
    submission: str


@pytest.fixture(scope="module")
def math_course(tmp_path_factory) -> Course:
    scratch = tmp_path_factory.mktemp("offline-math")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COURSE_LANG", "en")
        patch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
        root = make_course(scratch / "course", [])
        (html, plain), db_url = _feedback_pages(root, scratch, [_with_math(), _notebook()])
    page = Path("feedback", STUDENT, ASSIGNMENT, f"{NOTEBOOK}.html")
    (root / page).parent.mkdir(parents=True)
    (root / page).write_text(html, encoding="utf-8")
    autograded = root / "autograded" / STUDENT / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    autograded.parent.mkdir(parents=True)
    nbformat.write(_with_math(image=False), autograded)  # formgrader shows a student's image from the web as it is
    with Gradebook(db_url) as gradebook:
        submission = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, STUDENT).id
    return Course(root, page.as_posix(), html, plain, submission)


@pytest.fixture(scope="module")
def server(math_course, tmp_path_factory):
    """The course's own Jupyter server (nbgrader's and the venv's server extensions) on the course made here."""
    running = start_server(math_course.root, tmp_path_factory.mktemp("jupyter"))
    yield running
    running.stop()


@dataclass
class Seen:
    """What a page asked for: `sent`, every URL that reached the network layer (a page's
    Content-Security-Policy stops a request before it); `blocked`, the URLs its policy stopped;
    `failed`, other local requests that failed or answered an error; `errors`, its script errors
    and error messages; `read`, what the page's check returned (None: it never did); `shown`, its text."""

    sent: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    read: list | None = None
    shown: str = ""

    def left(self, server_url: str = "") -> list[str]:
        """The URLs sent anywhere but this machine's files and the server at `server_url`."""
        here = urlsplit(server_url).netloc
        return [
            url
            for url in self.sent
            if not (url.startswith(("file:", "data:", "about:", "blob:")) or (here and urlsplit(url).netloc == here))
        ]


def _open(context, url: str, ready: str, referer: str | None = None) -> Seen:
    """Open `url` in `context` (which reaches only file:// and 127.0.0.1: tests/browser.py
    `local_only`) and wait, READY_MS at most, until the script `ready` returns a value, which `Seen.read` holds."""
    from playwright.sync_api import TimeoutError as Timeout

    seen = Seen()

    def record(route):
        seen.sent.append(route.request.url)
        route.fallback()  # on to local_only, which aborts what is not local

    def failed(request):
        if request.url != "about:blank":  # MathJax 2 tries a web font at about:blank to learn whether fonts load
            (seen.blocked if request.failure == "csp" else seen.failed).append(f"{request.url[:120]} {request.failure}")

    def console(message):  # what the policy blocked and what failed to load: `blocked` and `failed` tell them
        if message.type == "error" and not re.search(
            r"Content Security Policy|Failed to load|about:blank", message.text
        ):
            seen.errors.append(message.text[:300])

    def answered(response):
        if response.status >= 400:
            seen.failed.append(f"{response.url} {response.status}")

    context.route("**/*", record)
    context.on("requestfailed", failed)
    page = context.new_page()
    page.on("pageerror", lambda error: seen.errors.append(f"pageerror: {error}"))
    page.on("console", console)
    page.on("response", answered)
    try:
        page.goto(url, wait_until="load", timeout=LOAD_MS, referer=referer)
        with contextlib.suppress(Timeout):  # `read` stays None
            seen.read = page.wait_for_function(ready, timeout=READY_MS).json_value()
        seen.shown = page.inner_text("body")
    finally:
        page.close()
        context.unroute("**/*", record)
        context.remove_listener("requestfailed", failed)
    return seen


def _drawn(seen: Seen) -> None:
    """Every formula of MATH drawn by MathJax, none unreadable, none left as TeX in the text."""
    assert seen.read is not None, f"MathJax never finished: {seen}"
    assert seen.read[:2] == [FORMULAS, 0], seen.read
    assert not re.search(r"\$|\\begin|\\frac|boldsymbol", seen.shown), seen.shown[:2000]


class _Head(HTMLParser):
    """A page's Content-Security-Policy (`policy`, from its meta element) and the texts of its scripts, as a browser reads them."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.policy, self.scripts, self._in_script = None, [], False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            self.policy = attrs["content"]
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def test_a_page_with_math_carries_mathjax_and_a_policy_that_lets_only_it_run(math_course):
    head = _Head(math_course.html)
    assert len(head.scripts) == 2 and "MathJax" in head.scripts[1] and len(head.scripts[1]) > 1_000_000
    hashes = set(re.findall(r"'sha256-([^']+)'", head.policy))
    assert hashes == {base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() for script in head.scripts}
    directives = dict(d.strip().split(" ", 1) for d in head.policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["img-src"] == directives["font-src"] == "data:"
    assert "unsafe" not in directives["script-src"] and "http" not in head.policy, head.policy


def test_a_page_without_math_carries_no_script(math_course):
    head = _Head(math_course.plain)
    assert head.scripts == [] and "default-src 'none'" in head.policy
    assert not has_math(math_course.plain.split("</style>")[-1]) and len(math_course.plain) < len(math_course.html) / 5


def test_has_math_finds_what_mathjax_would():
    for text in ("$x$", r"\(x\)", r"\[x\]", r"\begin{align}x\end{align}", "costs $5"):
        assert has_math(f"<p>{text}</p>"), text
    for text in ("no math", r"C:\path", "100 %"):
        assert not has_math(f"<p>{text}</p>"), text


@browser_test
def test_the_recorder_sees_nbconverts_own_page_ask_a_cdn_for_mathjax(context, tmp_path):
    """The positive control: nbconvert's stock page of the same notebook asks a CDN for MathJax (which
    the harness answers with a stub), and `_open` sees that request leave."""
    page = tmp_path / "stock.html"
    page.write_text(HTMLExporter().from_notebook_node(_with_math())[0], encoding="utf-8")
    seen = _open(context, page.as_uri(), "() => [0, 0]")
    assert any("mathjax" in url.lower() and urlsplit(url).scheme == "https" for url in seen.left()), seen.sent


@browser_test
def test_the_feedback_page_opened_from_disk_draws_its_formulas_and_asks_nothing_of_the_network(math_course, context):
    seen = _open(context, (math_course.root / math_course.page).as_uri(), MATHJAX_3)
    assert seen.left() == [] and seen.failed == [] and seen.errors == [], seen
    _drawn(seen)
    assert seen.blocked == [f"{PIXEL} csp"], seen.blocked  # the student's image from the web


@browser_test
def test_the_feedback_page_served_by_jupyter_draws_its_formulas(math_course, server, context):
    login(context, server)
    seen = _open(context, f"{server.url}/files/{math_course.page}", MATHJAX_3, referer=f"{server.url}/tree")
    assert seen.left(server.url) == [] and seen.failed == [] and seen.errors == [], f"{seen}\n{server.tail()}"
    _drawn(seen)


@browser_test
def test_formgrader_draws_the_formulas_with_mathjax_from_the_courses_own_server(math_course, server, context):
    login(context, server)
    seen = _open(context, f"{server.url}/formgrader/submissions/{math_course.submission}/", MATHJAX_2)
    # test_feedback_page's gradebook holds a grade id with markup, which formgrader's scripts cannot select (nbgrader allows none)
    errors = [error for error in seen.errors if HOSTILE_ID not in error]
    assert seen.left(server.url) == [] and seen.failed == [] and errors == [], f"{seen}\n{server.tail()}"
    assert any("/static/jupyter_server_mathjax/MathJax.js" in url for url in seen.sent), seen.sent
    _drawn(seen)
    assert seen.read[2].startswith("2.7"), seen.read  # MathJax 2, whose API formgrader's scripts call
