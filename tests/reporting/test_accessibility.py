"""Every page the course renders, in both editions, opened in Debian's chromium from the course's own
Jupyter server: the feedback page of a right, a wrong, a hostile (sanitised) and a refused
submission, the class report and the similarity page. axe-core finds no violation of WCAG 2.0, 2.1 and 2.2 A and AA (nor
of the best-practice rules in `tests.browser.BEST_PRACTICE`), and the checks axe cannot make hold:
the page's language and the language of passages in the other one, a text alternative and a data
table for every plot, no sideways scrolling at 320 CSS px, every control reached by Tab, and no sign
told by colour or shape alone."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from autograder.assignments import get
from autograder.commands.course import feedback, nbgrader_env
from autograder.coursedir.layout import Course
from autograder.reporting import classdata, report, similarity_page
from rnnkit import messages

from .. import hostile
from ..browser import (
    BEST_PRACTICE,
    LOAD_MS,
    SETTLE_MS,
    axe_violations,
    browser_test,
    local_context,
    login,
    overflow_at,
    unreached_by_tab,
)
from ..classroom import holder
from ..conftest import ASSIGNMENTS
from ..intake.test_escape import feedback_html, refusal_comment

pytestmark = [
    pytest.mark.nbgrader,
    browser_test,
    pytest.mark.skipif(
        hostile.ASSIGNMENT not in ASSIGNMENTS, reason=f"TEST_ASSIGNMENTS leaves out {hostile.ASSIGNMENT}"
    ),
]

A = hostile.ASSIGNMENT
#: The submission that holds the first catalogued mistake, in each class.
WRONG, WRONG_ZH = (holder(A, get(A).mistakes()[0].id, sample).student for sample in (False, True))
#: The file names of a refused hand-in, markup and terminal controls among them.
REFUSED_NAMES = ["<img src=x onerror=alert(1)>.txt", "\x1b]0;pwned\x07", "\u202egnp.exe"]
#: Each page kind: (student, assignment) of a feedback page, "report" or "similarity" (of `A`).
PAGES = {
    **{f"right-{a}": ("reference", a) for a in ASSIGNMENTS},
    "wrong": (WRONG, A),
    "hostile": ("html-injector", A),
    "refused": ("refused-hand-in", A),
    "report": "report",
    "similarity": "similarity",
}
#: The pages that are not a student's feedback.
CLASS_PAGES = {"report": "reports/class-report.html", "similarity": f"reports/similarity-{A}.html"}
#: The Chinese class holds the reference, the stub and the first mistake of each check; no hostile submission.
PAGES_ZH = {**{kind: page for kind, page in PAGES.items() if kind != "hostile"}, "wrong": (WRONG_ZH, A)}
#: What nbconvert writes as the alt text of an image without one.
NO_DESCRIPTION = "No description has been provided for this image"


@contextlib.contextmanager
def _language(lang: str):
    """COURSE_LANG set to `lang` ("" lets the course's own setting decide) for a block."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COURSE_LANG", lang)
        yield


def _write_pages(root: Path, kinds: dict, scratch: Path) -> dict[str, str]:
    """Write every page of `kinds` in the course at `root`, in its own language; kind -> path under the root."""
    students = sorted({page[0] for page in kinds.values() if page not in CLASS_PAGES and page[0] != "refused-hand-in"})
    with _language(""):
        feedback(root, students=students)  # every assignment of theirs, in one nbgrader run
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
            comment, _ = refusal_comment(scratch, REFUSED_NAMES)
        refused = root / "feedback" / "refused-hand-in" / A / f"{A}.html"
        refused.parent.mkdir(parents=True, exist_ok=True)
        refused.write_text(feedback_html(root, comment), encoding="utf-8")
        with messages.speaking(Course(root).language):  # as the command line speaks the course's language
            report.write_html(classdata.load(root), Course(root).reports / "class-report.html")
            similarity_page.write(root, A)
    return {
        kind: CLASS_PAGES.get(page) or f"feedback/{page[0]}/{page[1]}/{page[1]}.html" for kind, page in kinds.items()
    }


@pytest.fixture(scope="module")
def pages_en(graded_class, tmp_path_factory):
    return _write_pages(graded_class.root, PAGES, tmp_path_factory.mktemp("refused-en"))


@pytest.fixture(scope="module")
def pages_zh(graded_class_zh, tmp_path_factory):
    return _write_pages(graded_class_zh.root, PAGES_ZH, tmp_path_factory.mktemp("refused-zh"))


#: Text of the page outside any element whose language is Chinese, that holds a CJK character.
CJK_OUTSIDE_ZH = r"""() => {
    const cjk = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const marked = node.parentElement.closest('[lang]');
        if (cjk.test(node.data) && !(marked && marked.lang.startsWith('zh'))) found.push(node.data.trim().slice(0, 80));
    }
    return found }"""

#: Every plot (a PNG output of the notebook, a figure of the report; not an image a student's own
#: markdown or HTML shows), with its text alternative and whether a data table (in a details
#: element) stands beside it: in the same notebook output or the same figure of the report.
PLOTS = r"""() => [...document.querySelectorAll('div.output_png img, figure img')].map(img => {
    const box = img.closest('div.output, figure, .plot');
    return {alt: img.getAttribute('alt') || '', table: !!(box && box.querySelector('details table'))} })"""

#: Elements that show a sign (no letter or digit) with no name a screen reader reads; a sign in
#: MathML (the math MathJax writes for screen readers beside the formula it draws) is read as math.
UNNAMED_SIGNS = r"""() => [...document.querySelectorAll('body *')].filter(e =>
    e.children.length === 0 && e.textContent.trim() && !/[\p{L}\p{N}]/u.test(e.textContent)
    && /[\u2190-\u2bff\u2300-\u23ff\u2600-\u27bf]/u.test(e.textContent)
    && !e.closest('[aria-label], [aria-hidden="true"]') && !e.closest('pre, code, math'))
    .map(e => e.outerHTML.slice(0, 160))"""


@pytest.fixture(scope="module")
def instructor_en(browser, served_class):
    """A browser context logged in to the English class's server, for this module's pages."""
    with local_context(browser) as context:
        login(context, served_class)
        yield context


@pytest.fixture(scope="module")
def instructor_zh(browser, served_class_zh):
    """The same for the Chinese class's server."""
    with local_context(browser) as context:
        login(context, served_class_zh)
        yield context


def _check(context, server, path: str, lang: str) -> None:
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        response = page.goto(
            f"{server.url}/files/{path}", wait_until="load", timeout=LOAD_MS, referer=f"{server.url}/tree"
        )
        assert response.status == 200, server.tail()
        page.wait_for_timeout(SETTLE_MS)
        assert axe_violations(page) == []
        assert page.evaluate("document.documentElement.lang") == lang
        if lang == "en":
            assert page.evaluate(CJK_OUTSIDE_ZH) == []
        plots = page.evaluate(PLOTS)
        assert all(p["table"] and len(p["alt"]) > 20 and p["alt"] != NO_DESCRIPTION for p in plots), plots
        assert page.evaluate(UNNAMED_SIGNS) == []
        assert unreached_by_tab(page) == []
        assert overflow_at(page) <= 0
    finally:
        page.close()


#: A page that breaks WCAG rules (no language, an image without a text alternative, faint text) and
#: every rule of BEST_PRACTICE (no h1, a heading level skipped, no main landmark, text outside landmarks).
BROKEN = """<!DOCTYPE html><html><head><title>broken</title></head><body>
<h2>Results</h2><h4>Details</h4><p style="color: #bbbbbb; background: #ffffff">faint text</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="40" height="40"></body></html>"""


def test_the_axe_run_finds_the_wcag_and_best_practice_rules_a_page_breaks(context):
    page = context.new_page()
    try:
        page.set_content(BROKEN)
        found = {line.split(" ", 1)[0] for line in axe_violations(page)}
    finally:
        page.close()
    assert {"html-has-lang", "image-alt", "color-contrast", *BEST_PRACTICE} <= found, found


@pytest.mark.parametrize("kind", PAGES)
def test_the_english_pages_pass_wcag_22_aa(kind, pages_en, served_class, instructor_en):
    _check(instructor_en, served_class, pages_en[kind], "en")


@pytest.mark.parametrize("kind", PAGES_ZH)
def test_the_chinese_pages_pass_wcag_22_aa(kind, pages_zh, served_class_zh, instructor_zh):
    _check(instructor_zh, served_class_zh, pages_zh[kind], "zh-Hans")


def test_every_assignment_draws_a_plot_with_words(pages_en, graded_class):
    """The plots the checks above hold to words exist: each assignment's reference draws one."""
    for assignment in ASSIGNMENTS:
        text = (graded_class.root / pages_en[f"right-{assignment}"]).read_text(encoding="utf-8")
        assert "<img" in text and "<details" in text, assignment
