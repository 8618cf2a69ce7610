"""What the student's feedback page (`autograder/templates/course_feedback`) needs beyond nbgrader's.

* `PageStyle` (a preprocessor of the template itself, in its conf.json): code highlighted in a
  Pygments style of WCAG AA contrast, and the font stacks of the course language
  (`autograder.reporting.page_style`) in `resources["fonts"]`.
* `AwaitingTA` (in `nbgrader generate_feedback`, after nbgrader's `GetGrades`, which shows a grade
  no one has given yet as a score of 0): marks each grade that waits for a TA and counts its points
  apart from the points graded so far.
* `accessible_html` (a filter the template applies to the page's body): each table in a named
  scroll region that keyboard users reach, so that no table makes the page scroll sideways, and in
  the English edition each run of Chinese text marked as Chinese. It only inserts markup between
  what is there, so nothing the student wrote is re-parsed into markup.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import default

from rnnkit.messages import language

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


class AwaitingTA(NbGraderPreprocessor):
    """Set `awaiting_ta` in the nbgrader metadata of every graded cell (True where the grade waits for
    a TA), and in `resources["nbgrader"]`: `awaiting_ta` (the points waiting), `graded_score` and
    `graded_max` (the score, after any late penalty, and the maximum of the points graded so far)."""

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
        info["graded_score"] = info["score"] - sum(score for score, _ in waiting.values())
        info["graded_max"] = info["max_score"] - info["awaiting_ta"]
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
