"""The student's feedback page (autograder/templates/course_feedback, autograder/reporting/feedback_page.py)
without a browser: a small graded notebook rendered through the course's `nbgrader generate_feedback`
exporter and preprocessors, on a gradebook made here. The page's language, title, one main landmark
and headings in order; a written answer that waits for a TA shown as waiting, never as a score of 0,
in both languages, and the ordinary total once a TA has scored it; pass and fail in words; grade ids
escaped; tables in named scroll regions and Chinese marked in the English edition; code colours of
AA contrast. The page in a browser, with axe-core: tests/reporting/test_accessibility.py."""

from __future__ import annotations

import datetime as dt
import re
from html.parser import HTMLParser

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import GetGrades
from pygments.styles import get_style_by_name
from pygments.token import Comment
from traitlets.config.loader import PyFileConfigLoader

from autograder.commands.course import nbgrader_env
from autograder.coursedir.ledger import Ledger
from autograder.labels import catalogue, label
from autograder.reporting import feedback_page
from autograder.reporting.feedback_page import AwaitingTA, accessible_html
from autograder.reporting.page_style import CJK, LATIN
from rnnkit import messages

from ..conftest import make_course

ASSIGNMENT, NOTEBOOK, STUDENT = "a1", "nb", "s1"
#: A grade id no nbgrader notebook would have, as the gradebook could hold it: markup and quotes.
HOSTILE_ID = 'q"><b>bold</b>'
#: The graded cells: grade id -> (points, the autograder's score; None for the written answer a TA grades).
GRADES = {"full": (2.0, 2.0), "half": (2.0, 1.0), "zero": (1.0, 0.0), HOSTILE_ID: (1.0, 1.0), "written": (1.0, None)}
TABLE = "| mechanism | carried through time |\n|---|---|\n| simple RNN | hidden state |"


def _notebook() -> nbformat.NotebookNode:
    """Chapter text (a heading with Chinese in it, a table), a test cell per check and the written answer."""
    cells = [nbformat.v4.new_markdown_cell("# Chapter 12 (随时间反向传播, BPTT)\n\n## Part 1\n\n" + TABLE)]
    for grade_id, (points, _) in GRADES.items():
        metadata = {
            "nbgrader": {
                "grade": True,
                "grade_id": grade_id,
                "points": points,
                "solution": grade_id == "written",
                "task": False,
                "locked": grade_id != "written",
                "schema_version": 3,
            }
        }
        cells.append(
            nbformat.v4.new_markdown_cell("My answer.", metadata=metadata)
            if grade_id == "written"
            else nbformat.v4.new_code_cell(f"check({grade_id!r})", metadata=metadata)
        )
    return nbformat.v4.new_notebook(cells=cells)


def _grade(db_url: str, ta_score: float | None = None) -> None:
    """The gradebook after autograding (the written answer needs a manual grade), or after a TA gave it `ta_score`."""
    with Gradebook(db_url) as gradebook:
        gradebook.add_assignment(ASSIGNMENT)
        gradebook.add_notebook(NOTEBOOK, ASSIGNMENT)
        for grade_id, (points, _) in GRADES.items():
            gradebook.add_grade_cell(grade_id, NOTEBOOK, ASSIGNMENT, max_score=points, cell_type="code")
        gradebook.add_solution_cell("written", NOTEBOOK, ASSIGNMENT)
        gradebook.add_student(STUDENT)
        gradebook.add_submission(ASSIGNMENT, STUDENT)
        for grade_id, (_, score) in GRADES.items():
            grade = gradebook.find_grade(grade_id, NOTEBOOK, ASSIGNMENT, STUDENT)
            grade.auto_score, grade.needs_manual_grade = score, score is None
        if ta_score is not None:
            written = gradebook.find_grade("written", NOTEBOOK, ASSIGNMENT, STUDENT)
            written.manual_score, written.needs_manual_grade = ta_score, False
        gradebook.db.commit()


def _page(tmp_path, lang: str = "en", ta_score: float | None = None) -> str:
    """The feedback page of the graded notebook, made as `nbgrader generate_feedback` makes it in a course of language `lang`."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("COURSE_LANG", lang)
        monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
        return _render(make_course(tmp_path / "course", []), tmp_path, ta_score)


def _render(root, tmp_path, ta_score: float | None) -> str:
    """The page in the course at `root`, its gradebook (`_grade`) and the ledger's receipt of the hand-in made here."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = converter.exporter_class(parent=converter, config=converter.config)  # as nbgrader's converter makes it
    for preprocessor in converter.preprocessors:
        exporter.register_preprocessor(preprocessor)
    db_url = converter.coursedir.db_url
    _grade(db_url, ta_score)
    folder = tmp_path / "handed-in"
    folder.mkdir(exist_ok=True)
    (folder / f"{NOTEBOOK}.ipynb").write_text("{}", encoding="utf-8")
    Ledger(db_url, config.CourseDirectory.course_id).receive(
        ASSIGNMENT, STUDENT, folder, source="submitted", received=dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
    )
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": db_url}}
    html, _ = exporter.from_notebook_node(_notebook(), resources=resources)
    return html


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    """The English page, the written answer waiting for a TA."""
    return _page(tmp_path_factory.mktemp("en"))


@pytest.fixture(scope="module")
def page_zh(tmp_path_factory) -> str:
    return _page(tmp_path_factory.mktemp("zh"), "zh")


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


class _Tags(HTMLParser):
    """The start tags of a page: their names and every (attribute, value), as a browser reads them."""

    def __init__(self, html: str):
        super().__init__()
        self.names: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.names.append(tag)
        self.attributes += attrs


# ---------------------------------------------------------------------------------------------
# The page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_has_its_language_title_one_main_and_headings_in_order(request, lang):
    page = request.getfixturevalue("page_zh" if lang == "zh" else "page")
    with messages.speaking(lang):
        assert (
            f'<html lang="{label("page.lang")}">' in page
            and f"<title>{label('feedback.title', notebook=NOTEBOOK)}</title>" in page
        )
    assert page.count("<main>") == page.count("</main>") == 1
    levels = [int(name[1]) for name in _Tags(page).names if re.fullmatch(r"h[1-6]", name)]
    assert levels[0] == 1 and levels.count(1) == 2  # the page's own heading, then the notebook's
    assert all(later <= earlier + 1 for earlier, later in zip(levels, levels[1:])), levels
    body = re.search(r"body \{[^}]*font-family: ([^;]*);", page)[1]
    assert body.startswith(CJK if lang == "zh" else LATIN)


def _written(page: str) -> list[str]:
    """The written answer's entry in the contents and its cell's heading, as text."""
    return [
        _text(re.search(pattern, page, re.S)[0])
        for pattern in (
            r'<li><a href="#written">.*?</li>',
            r'<div class="panel nbgrader_cell" id="written">\s*<div class="panel-heading">.*?</div>',
        )
    ]


def test_a_written_answer_waiting_for_a_ta_is_shown_waiting_with_its_points(page):
    assert "<h1>nb (4.0 of 7.0 points; 1.0 of them await a TA)</h1>" in page  # one total: the grade of all points
    assert _written(page) == [
        "written ○ Awaiting a TA: 1.0 points",
        "Student's answer ○ Awaiting a TA: 1.0 points Back to top",
    ]
    assert "Points awaiting a TA: 1; until a TA grades them, the grade above counts them as 0." in page


def test_a_chinese_page_says_the_same_in_chinese(page_zh):
    assert "<h1>nb（7.0 分中得 4.0 分；其中 1.0 分等待助教评分）</h1>" in page_zh
    assert all("等待助教评分：1.0 分" in shown and "得分" not in shown for shown in _written(page_zh))
    assert "另有 1 分等待助教评分：评分之前，上面的成绩按 0 分计。" in page_zh
    assert not re.search(r"Score|Awaiting|full marks|no points|Back to top", page_zh)


def test_once_a_ta_has_scored_the_answer_the_ordinary_total_shows(tmp_path):
    page = _page(tmp_path, ta_score=0.5)
    assert "<h1>nb (Score: 4.5 / 7.0)</h1>" in page
    assert [shown.split(" ◐ ")[0] for shown in _written(page)] == [
        "written (Score: 0.5 / 1.0)",
        "Student's answer Score: 0.5 / 1.0",
    ]
    assert not re.search("await|Awaiting", page)


def test_pass_and_fail_are_told_in_words_beside_hidden_icons(page):
    for grade_id, status in (("full", "full"), ("half", "partial"), ("zero", "none")):
        item = re.search(rf'<li><a href="#{grade_id}">.*?</li>', page)[0]
        assert f'<span class="status {status}"><span aria-hidden="true" class="icon">' in item
        assert _text(item).endswith(label(f"feedback.status_{status}")), item
    icons = re.findall(r"<span([^>]*)>[✓◐✗○]</span>", page)
    assert icons and all('aria-hidden="true"' in attributes for attributes in icons)


def test_grade_ids_are_escaped_wherever_the_page_names_them(page):
    assert "b" not in _Tags(page).names  # no comment here: nothing of the page's own is bold markup
    named = _Tags(page).attributes
    assert named.count(("href", f"#{HOSTILE_ID}")) == 1 and ("id", HOSTILE_ID) in named
    assert _text(page).count('q"&gt;&lt;b&gt;bold&lt;/b&gt;') == 3  # the contents, the cell's heading and its code


def test_tables_scroll_in_named_regions_and_chinese_is_marked_in_the_english_page(page, page_zh):
    region = (
        f'<div aria-label="{label("feedback.table_region")}" class="table-scroll" role="region" tabindex="0"><table>'
    )
    assert page.count(region) == 1
    assert f'<span lang="{catalogue("zh")["page.lang"]}">' in page
    assert 'lang="zh' not in page_zh.split("<body>")[1]


def test_awaiting_ta_runs_after_nbgrader_puts_the_grades_in(tmp_path):
    config = PyFileConfigLoader("nbgrader_config.py", path=str(make_course(tmp_path / "course", []))).load_config()
    steps = GenerateFeedback(config=config).preprocessors
    assert steps.index(GetGrades) < steps.index(AwaitingTA)


# ---------------------------------------------------------------------------------------------
# accessible_html


def _without_insertions(html: str) -> str:
    return re.sub(r'<div class="table-scroll"[^>]*>|</div>|<span lang="zh-Hans">|</span>', "", html)


def test_each_outermost_table_gets_one_region_and_nothing_else_changes():
    text = (
        "<p>x</p><table><tr><td><table><tr><td>1</td></tr></table></td></tr></table>\n<table>\n<tr><td>2</td></tr>"
        '</table><img alt="<table>" src="x.png"><pre>&lt;table&gt;</pre><table><tr><td>never closed'
    )
    with messages.speaking("en"):
        out = accessible_html(text)
    assert out.count('role="region" tabindex="0"') == 2 and out.count("</table></div>") == 2
    assert _without_insertions(out) == text


def test_chinese_runs_are_marked_in_the_english_edition_only():
    text = '<h1 id="x">BPTT (&#38543;&#26102;间, x) 中&amp;文</h1><script>var s = "中文";</script><p title="中文">表 12.1 ok</p>'
    with messages.speaking("en"):
        out = accessible_html(text)
    assert '(<span lang="zh-Hans">&#38543;&#26102;间</span>, x)' in out
    assert '<span lang="zh-Hans">中</span>&amp;<span lang="zh-Hans">文</span>' in out
    assert '<script>var s = "中文";</script>' in out and 'title="中文"' in out
    assert '<span lang="zh-Hans">表</span> 12.1 ok' in out
    assert _without_insertions(out) == text
    with messages.speaking("zh"):
        assert accessible_html(text) == text


# ---------------------------------------------------------------------------------------------
# Code colours


def _luminance(colour: str) -> float:
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(one: str, other: str) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_code_colour_has_aa_contrast_on_the_code_background(page):
    style = get_style_by_name(feedback_page.CODE_STYLE)
    colours = {f"#{spec['color']}" for _, spec in style if spec["color"]}
    code_background = re.search(r"\npre \{[^}]*background: (#[0-9a-f]{6})", page)[1]
    assert (
        colours
        and min(
            _contrast(colour, background)
            for colour in colours
            for background in (style.background_color, code_background)
        )
        >= 4.5
    )
    assert (
        re.search(r"\.highlight \.c1 \{ color: (#[0-9a-fA-F]{6})", page)[1].lower()
        == f"#{style.style_for_token(Comment.Single)['color']}"
    )
