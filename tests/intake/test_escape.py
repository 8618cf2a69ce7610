"""Student text made inert (autograder/intake/escape.py): a submission's file names, with terminal escape
sequences, bidi controls or markup in them, reach terminals, logs, the gradebook's comments and the
feedback page escaped or cleaned. The feedback page in a real browser: tests/reporting/test_browser.py."""

from __future__ import annotations

import ast
import html
import io
import logging
import os
import re
import unicodedata
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbgrader.api import Gradebook
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Application
from traitlets.config.loader import PyFileConfigLoader

from autograder.commands.course import nbgrader_env
from autograder.intake import admission, walk
from autograder.intake.escape import NAME_CHARS, ShownRecord, code_span, quoted, shown
from autograder.intake.sanitize import clean_markdown

from ..conftest import make_course

#: A student's file names: markup with script, an OSC title change (ESC ] 0; ... BEL), a right-to-left override.
HOSTILE = ["<img src=x onerror=alert(1)>.txt", "\x1b]0;pwned\x07", "\u202egnp.exe"]
#: Admission's reasons for a folder holding them (the first a FIFO, the others symbolic links).
REASONS = [
    "`'<img src=x onerror=alert(1)>.txt'` is a FIFO",
    "`'\\x1b]0;pwned\\x07'` is a symbolic link",
    "`'\\u202egnp.exe'` is a symbolic link",
]
BIDI = {"\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
#: Characters worth trying more often than hypothesis would: controls, bidi and zero-width marks,
#: lone surrogates (undecodable bytes of a file name), a tag character, quotes and a backslash.
NASTY = st.sampled_from(
    sorted(BIDI)
    + [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]]
    + ["\u200b", "\u200d", "\u2028", "\ufeff", "\ud800", "\udcff", "\U000e0041", "'", '"', "\\", "\u3000", "…"]
)
TEXT = st.text(st.one_of(st.characters(), NASTY))


def _controls(text: str, allowed: str = "\n\t") -> list[str]:
    """The C0 and C1 controls, DEL, bidi controls, zero-width marks and lone surrogates in `text`, but `allowed`."""
    return [
        ch
        for ch in text
        if ch not in allowed
        and (unicodedata.category(ch) in ("Cc", "Cs") or ch in BIDI or ch in "\u200b\u200c\u200d\u2060\ufeff")
    ]


def test_shown_escapes_terminal_and_bidi_controls_and_keeps_the_rest():
    assert shown("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert shown("ok\rREFUSED\x1b[2K\x9b2K\x7f") == "ok\\rREFUSED\\x1b[2K\\x9b2K\\x7f"
    assert (
        shown("\u202egnp.exe \u2066a\u2069 \u200e\u200f\u061c\u200b")
        == "\\u202egnp.exe \\u2066a\\u2069 \\u200e\\u200f\\u061c\\u200b"
    )
    kept = "Traceback:\n\tline 1\n第一行\u3000答案 é ✓ C:\\x1b is a backslash"
    assert shown(kept) == kept


@given(TEXT)
def test_shown_leaves_no_control_but_newline_and_tab_and_changes_shown_text_no_more(text):
    out = shown(text)
    assert not _controls(out), out
    assert shown(out) == out


def test_quoted_writes_a_name_as_repr_does_and_cuts_a_long_one_in_the_middle():
    assert [quoted(name) for name in HOSTILE] == [
        "'<img src=x onerror=alert(1)>.txt'",
        "'\\x1b]0;pwned\\x07'",
        "'\\u202egnp.exe'",
    ]
    assert quoted("two\nlines\tand 'quotes'") == "\"two\\nlines\\tand 'quotes'\""
    long = "a" * 60 + "/" + "b" * 200
    assert quoted(long) == "'" + "a" * (NAME_CHARS // 2) + "…" + "b" * (NAME_CHARS // 2 - 1) + "'"


@given(TEXT)
def test_quoted_holds_no_control_and_reads_back_as_the_name(name):
    out = quoted(name)
    assert not _controls(out, allowed=""), out
    assert shown(out) == out
    back = ast.literal_eval(out)
    assert back == name if len(name) <= NAME_CHARS else (len(back) == NAME_CHARS and "…" in back)


def _hand_in(folder: Path, names: list[str]) -> Path:
    """A submission folder with its notebook and `names` beside it: the first a FIFO, the others symbolic links."""
    folder.mkdir()
    (folder / "nb.ipynb").write_text("{}")
    os.mkfifo(folder / names[0])
    for name in names[1:]:
        (folder / name).symlink_to("elsewhere")
    return folder


@given(st.text(st.sampled_from("`' <>&*_[]()!\\#ab"), min_size=1).filter(str.strip))
def test_a_code_span_shows_any_text_as_written(text):
    """What markdown (nbconvert's, as the feedback page renders a comment) makes of `code_span`:
    the text as written, in one code element, whatever backticks, markup or spaces it holds."""
    rendered = clean_markdown(f"before {code_span(text)} after")
    found = re.fullmatch(r"<p>before <code>(.*)</code> after</p>\s*", rendered, re.S)
    assert found and html.unescape(found[1]) == text, rendered


def test_admission_names_a_hostile_file_quoted_with_its_controls_escaped(tmp_path):
    reasons = walk.inspect(_hand_in(tmp_path / "hand-in", HOSTILE), "nb.ipynb").reasons
    assert sorted(reasons) == sorted(REASONS)


def refusal_comment(tmp_path: Path, names: list[str]) -> tuple[str, bool]:
    """The comment and flag that `record_refusal` leaves on a student's earlier submission in a real
    gradebook (a sqlite file in `tmp_path`) when a hand-in holding `names` (see `_hand_in`) is refused."""
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url, "course") as gb:
        gb.add_assignment("a")
        gb.add_notebook("nb", "a")
        gb.add_solution_cell("answer", "nb", "a")
        gb.add_student("mallory")
        gb.add_submission("a", "mallory")
    reasons = walk.inspect(_hand_in(tmp_path / "hand-in", names), "nb.ipynb").reasons
    admission.record_refusal(url, "course", "a", "mallory", [*reasons, "a reason with a raw \x1b[2K\r erase in it"])
    with Gradebook(url, "course") as gb:
        notebook = gb.find_submission_notebook("nb", "a", "mallory")
        return notebook.comments[0].auto_comment, notebook.flagged


def test_a_refusal_reaches_the_gradebook_as_plain_text_with_its_controls_escaped(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
    comment, flagged = refusal_comment(tmp_path, HOSTILE)
    assert flagged and comment.startswith("Not autograded: admission refused this submission because ")
    assert all(reason in comment for reason in REASONS) and "raw \\x1b[2K\\r erase" in comment
    assert not _controls(comment, allowed=""), comment


def test_a_refusal_speaks_the_course_language(tmp_path, monkeypatch):
    """In the Chinese edition a refused hand-in's comment is Chinese, its reasons included; only the
    file names (quoted, controls escaped) stay as the student wrote them."""
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])
    monkeypatch.setenv("COURSE_LANG", "zh")
    comment, _ = refusal_comment(tmp_path, HOSTILE)
    assert comment.startswith("未自动评分：接收检查拒收了这份提交，因为") and "符号链接" in comment, comment
    ours = re.sub(r"'[^']*'|a reason with a raw .* in it", "", comment)  # the names, and the reason the helper adds
    assert not re.search(r"\b(is|the|it|not|because)\b", ours), comment


def test_clean_markdown_keeps_a_tas_markdown_and_drops_script():
    html = clean_markdown(
        "**bold** and `code`\n\n<img src=x onerror=alert(1)> <script>alert(2)</script> [link](javascript:alert(3))"
    )
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert "onerror" not in html and "<script" not in html and "javascript:" not in html, html


def feedback_html(root: Path, comment: str) -> str:
    """The page the course's `nbgrader generate_feedback` makes (its configuration, exporter and
    template) of a notebook with one answer cell that carries `comment`, as nbgrader puts a gradebook
    comment into the notebook's metadata."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    feedback = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = feedback.exporter_class(parent=feedback, config=feedback.config)  # as nbgrader's converter makes it
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                "My answer.",
                metadata={
                    "nbgrader": {
                        "solution": True,
                        "grade": False,
                        "task": False,
                        "grade_id": "answer",
                        "comment": comment,
                    }
                },
            )
        ]
    )
    html, _ = exporter.from_notebook_node(
        notebook, resources={"nbgrader": {"notebook": "nb", "score": 0, "max_score": 0, "late_penalty": 0}}
    )
    return html


def test_a_refusal_on_the_feedback_page_shows_each_file_name_as_written(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
    comment, _ = refusal_comment(tmp_path, HOSTILE)
    page = feedback_html(make_course(tmp_path / "course", []), comment)
    shown_names = [html.unescape(name) for name in re.findall(r"<code>([^<]*)</code>", page)]
    assert all(quoted(name) in shown_names for name in HOSTILE), shown_names
    assert "<img" not in page.split('id="comment-answer"')[1]


def test_the_course_feedback_page_cleans_a_comment_and_keeps_its_markdown(tmp_path):
    root = make_course(tmp_path / "course", [])
    html = feedback_html(root, "**Mind** the sum. <img src=x onerror=alert(1)> <script>alert(2)</script>")
    assert "<strong>Mind</strong> the sum." in html and "&lt;script&gt;alert(2)" in html
    assert "onerror" not in html and "<script>alert(2)" not in html


@pytest.fixture
def shown_records():
    """Log records made as in every nbgrader process of the course (`admission.install`), until the test ends."""
    before = logging.getLogRecordFactory()
    admission.install()
    yield
    logging.setLogRecordFactory(before)


def test_log_records_and_their_tracebacks_come_out_escaped(shown_records):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    log = logging.getLogger("tests.test_escape")
    log.addHandler(handler)
    try:
        log.error("refused %s of %s: %s", "a", "mallory", "\x1b]0;pwned\x07")
        try:
            raise ValueError("\u202egnp.exe\rREFUSED")
        except ValueError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    out = stream.getvalue()
    assert "refused a of mallory: \\x1b]0;pwned\\x07\n" in out and "ValueError: \\u202egnp.exe\\rREFUSED" in out
    assert "failed\nTraceback (most recent call last):\n" in out and not _controls(out), out


def test_an_applications_log_comes_out_escaped(shown_records, capsys):
    Application().log.error(
        "skipped %s", "\x1b]0;pwned\x07\u202e"
    )  # nbgrader's apps log through traitlets' Application.log
    err = capsys.readouterr().err
    assert "skipped \\x1b]0;pwned\\x07\\u202e" in err and not _controls(err), err


def test_a_record_is_a_shown_record_once_installed(shown_records):
    assert isinstance(logging.getLogger("nbgrader").makeRecord("n", logging.INFO, "f", 1, "m", (), None), ShownRecord)
