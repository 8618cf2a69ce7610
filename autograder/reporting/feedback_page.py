"""What the student's feedback page (`autograder/templates/course_feedback`) needs beyond nbgrader's.

* `PageStyle` (a preprocessor of the template itself, in its conf.json): code highlighted in a
  Pygments style of WCAG AA contrast, and the font stacks of the course language
  (`autograder.reporting.page_style`) in `resources["fonts"]`.
* `AwaitingTA` (in `nbgrader generate_feedback`, after nbgrader's `GetGrades`, which shows a grade
  no one has given yet as a score of 0): marks each grade that waits for a TA and counts its points,
  which the headline names beside the grade as it stands.
* `accessible_html` (a filter the template applies to the page's body): each table in a named
  scroll region that keyboard users reach, so that no table makes the page scroll sideways, and in
  the English edition each run of Chinese text marked as Chinese. It only inserts markup between
  what is there, so nothing the student wrote is re-parsed into markup.
* `OfflineMath` (a preprocessor of the template, in its conf.json) and `has_math` (a filter): the
  page is one file a student opens from disk or from the hub, offline too, so MathJax is inlined
  into it (`MATHJAX`, only into a page that has math), and its Content-Security-Policy lets no
  request leave it: no CDN learns who reads which feedback, and the formulas render without internet.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
from html.parser import HTMLParser

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import default

from rnnkit.messages import language

from ..coursedir.config import REPO_ROOT
from ..coursedir.gradebook import CourseGradebook, awaiting_ta
from ..labels import catalogue, label
from .page_style import font_stack, mono_stack

#: The Pygments style of code (the PyPI package accessible-pygments): every token at least 7:1 on its background.
CODE_STYLE = "a11y-high-contrast-light"
#: Chinese characters and full-width punctuation; a run may hold spaces and digits between them.
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_RUN = re.compile(rf"[{_CJK}](?:[{_CJK}\s\d]*[{_CJK}])?")
#: Elements whose content is not text of the page.
_RAW = {"script", "style", "textarea", "title"}
#: MathJax 3 (the npm package `mathjax`, pinned in package-lock.json, which `make venv` installs with
#: `npm ci`): TeX to SVG in one file holding every TeX extension, so the page loads no other file
#: (SVG output draws its glyphs as paths and needs no web font). About 2.2 MB in a page with math.
MATHJAX = REPO_ROOT / "node_modules" / "mathjax" / "es5" / "tex-svg-full.js"
#: MathJax's settings: nbconvert's delimiters and AMS equation numbers, one cache of glyphs for the
#: page, no `\require` (it would load a file).
MATHJAX_CONFIG = (
    r"window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],"
    r" processEscapes: true, processEnvironments: true, tags: 'ams', packages: {'[-]': ['require']}},"
    r" svg: {fontCache: 'global'}};"
)
#: What starts math for MathJax with MATHJAX_CONFIG: a dollar sign, \( or \[, or an environment.
_MATH = re.compile(r"\$|\\[(\[]|\\begin\{")


class PageStyle(CSSHTMLHeaderPreprocessor):
    """nbconvert's code CSS (`resources["inlining"]`) in `CODE_STYLE`, and the font stacks of the
    course language as `resources["fonts"]` (`body`, `code`)."""

    @default("style")
    def _code_style(self):
        return CODE_STYLE

    def preprocess(self, nb, resources):
        nb, resources = super().preprocess(nb, resources)
        resources["fonts"] = {"body": font_stack(), "code": mono_stack()}
        return nb, resources


@functools.cache
def mathjax() -> dict[str, str]:
    """The page's MathJax as `resources["mathjax"]`: `config` and `script`, the texts of its two
    inline scripts, and `policy`, the page's Content-Security-Policy: those two scripts run and no
    other; styles inline; images and fonts only from data: URLs; nothing is fetched, framed or sent."""
    try:
        script = MATHJAX.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{MATHJAX}: MathJax for the feedback page is missing (make venv installs it with npm ci)"
        ) from None
    if re.search(r"</?script", script, re.IGNORECASE):  # it would end or open a script inside the inline one
        raise ValueError(f"{MATHJAX}: a script tag in MathJax's text; it cannot be inlined")
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
        for text in (MATHJAX_CONFIG, script)
    )
    policy = (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; font-src data:;"
        " base-uri 'none'; form-action 'none'"
    )
    return {"config": MATHJAX_CONFIG, "script": script, "policy": policy}


class OfflineMath(Preprocessor):
    """`resources["mathjax"]` (see `mathjax`) for the template."""

    def preprocess(self, nb, resources):
        resources["mathjax"] = mathjax()
        return nb, resources


def has_math(text: str) -> bool:
    """Whether MathJax, set as MATHJAX_CONFIG, may find math in `text` (the page's HTML): a page
    without any gets no MathJax. A dollar sign in code or output counts too, at the cost of size only."""
    return bool(_MATH.search(text))


class AwaitingTA(NbGraderPreprocessor):
    """Set `awaiting_ta` in the nbgrader metadata of every graded cell (True where the grade waits for
    a TA), and in `resources["nbgrader"]` the points waiting (`awaiting_ta`): the headline then gives
    the grade as it stands (after any late penalty, the waiting points counted 0) of all the points,
    and says how many of them wait."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with CourseGradebook(info["db_url"]) as gradebook:
            grades = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"]).grades
            waiting = {
                grade.name: (grade.score or 0.0, grade.max_score or 0.0) for grade in grades if awaiting_ta(grade)
            }
        for cell in nb.cells:
            if utils.is_grade(cell) or utils.is_task(cell):
                cell.metadata.nbgrader["awaiting_ta"] = cell.metadata.nbgrader["grade_id"] in waiting
        info["awaiting_ta"] = sum(points for _, points in waiting.values())
        info["score"] -= sum(score for score, _ in waiting.values())  # a waiting grade counts 0 until a TA gives it
        return nb, resources


class _Insertions(HTMLParser):
    """Where `accessible_html` inserts markup into an HTML text: `found`, (offset, markup) in document order."""

    def __init__(self, text: str, other_lang: str | None):
        super().__init__(convert_charrefs=False)  # text comes as written, character references apart
        self.text, self.other_lang = text, other_lang
        self.lines = [0] + [match.end() for match in re.finditer("\n", text)]
        self.found: list[tuple[int, str]] = []
        self.tables: list[tuple[int, int]] = []  # each open table: its start tag's offset, its place in `found`
        self.raw: str | None = None
        self.pieces: list[
            tuple[int, str, bool]
        ] = []  # the text since the last tag: (offset, text, whether written as it reads)
        self.feed(text)
        self.close()
        self.mark_language(len(text))

    def position(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag, attrs):
        self.mark_language(self.position())
        if tag == "table":
            self.tables.append((self.position(), len(self.found)))
        elif tag in _RAW:
            self.raw = tag

    def handle_endtag(self, tag):
        self.mark_language(self.position())
        if tag == self.raw:
            self.raw = None
        elif tag == "table" and self.tables:
            start, place = self.tables.pop()
            if not self.tables:  # an outermost table: one region holds it and the tables inside it
                region = html.escape(label("feedback.table_region"))
                self.found.insert(
                    place, (start, f'<div class="table-scroll" role="region" tabindex="0" aria-label="{region}">')
                )
                self.found.append((self.text.index(">", self.position()) + 1, "</div>"))

    def handle_data(self, data):
        self.pieces.append((self.position(), data, True))

    def handle_charref(self, name):
        self.pieces.append((self.position(), html.unescape(f"&#{name};"), False))

    def handle_entityref(self, name):
        self.pieces.append((self.position(), html.unescape(f"&{name};"), False))

    def mark_language(self, end: int) -> None:
        """A span around each run of Chinese in the text since the last tag, which ends at offset `end`."""
        pieces, self.pieces = self.pieces, []
        if not self.other_lang or self.raw or not any(_CJK_RUN.search(text) for _, text, _ in pieces):
            return
        spans = []  # of each character read: its (start, end) offsets in the HTML text
        for (offset, text, as_written), after in zip(pieces, [offset for offset, _, _ in pieces[1:]] + [end]):
            spans += (
                [(offset + k, offset + k + 1) for k in range(len(text))]
                if as_written
                else [(offset, after)] * len(text)
            )
        for run in _CJK_RUN.finditer("".join(text for _, text, _ in pieces)):
            self.found += [
                (spans[run.start()][0], f'<span lang="{self.other_lang}">'),
                (spans[run.end() - 1][1], "</span>"),
            ]


def accessible_html(text: str) -> str:
    """`text` (HTML) with each outermost table in a focusable scroll region named by the label
    `feedback.table_region`, and, in the English edition, each run of Chinese text in a span whose
    `lang` is the Chinese edition's `page.lang`."""
    other = catalogue("zh")["page.lang"] if language() == "en" else None
    parts, at = [], 0
    for offset, markup in _Insertions(text, other).found:
        parts += [text[at:offset], markup]
        at = offset
    return "".join(parts) + text[at:]
