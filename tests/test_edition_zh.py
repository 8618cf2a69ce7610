"""The Chinese edition (COURSE_LANG = "zh"): notebooks of Chinese teaching text around the same code,
and the same contract through real nbgrader - reference full marks, stub zero, every catalogued
mistake caught and named, with every message in Chinese."""
import os
import re
import subprocess
import sys

import nbformat
import pytest
from rnnkit import messages

from autograder import build
from autograder.labels import label
from autograder.assignments import get

from .conftest import ASSIGNMENTS, REPO

pytestmark = pytest.mark.nbgrader

CJK = re.compile(r"[\u4e00-\u9fff]")


def _prose(markdown: str) -> str:
    """Teaching text without formulas, code and links."""
    for pattern in (r"\$\$.*?\$\$", r"\$[^$]*\$", r"`[^`]*`", r"\([^)]*https?://[^)]*\)"):
        markdown = re.sub(pattern, " ", markdown, flags=re.S)
    return markdown


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_zh_release_is_chinese_teaching_text_around_the_same_code(assignment, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    english = build.build_notebook(get(assignment))
    monkeypatch.setenv("COURSE_LANG", "zh")
    chinese = build.build_notebook(get(assignment))
    def code(notebook, lang):  # the same code, but for the edition the checker records and the missing kit's message
        monkeypatch.setenv("COURSE_LANG", lang)
        missing_kit = repr(label("notebook.no_kit", wheel=build.KIT_WHEEL))
        return [c.source.replace(f'lang="{lang}"', "lang=EDITION").replace(missing_kit, "MESSAGE")
                for c in notebook.cells if c.cell_type == "code"]

    assert code(chinese, "zh") == code(english, "en")
    assert f'checker("{assignment}", lang="zh")' in chinese.cells[1].source + chinese.cells[2].source
    assert [c.metadata for c in chinese.cells] == [c.metadata for c in english.cells]
    for en, zh in zip(english.cells, chinese.cells):
        if zh.cell_type == "markdown":
            prose = _prose(zh.source)
            assert len(CJK.findall(prose)) > len(re.findall(r"[A-Za-z]", prose)), zh.source
            assert _formulas(zh.source) == _formulas(en.source), zh.source


def test_a_zh_notebook_speaks_chinese_in_a_kernel_whose_environment_says_en(monkeypatch):
    """The edition is recorded in the notebook: its setup cell, its first solution and that
    solution's self-check, run in a fresh Python with COURSE_LANG=en."""
    assignment = ASSIGNMENTS[0]
    monkeypatch.setenv("COURSE_LANG", "zh")
    notebook = build.build_notebook(get(assignment))
    setup = next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("setup"))
    solution = next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    check = next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")).split("### BEGIN HIDDEN")[0]
    code = "\n".join(["import contextlib, io, sys", setup, solution,
                      "out = io.StringIO()", "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):",
                      "    " + check.strip().replace("\n", "\n    "), "sys.__stdout__.write(out.getvalue())"])
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "COURSE_LANG": "en"},
                            cwd=REPO / "release" / assignment)
    assert result.returncode == 0, result.stderr[-2000:]
    assert CJK.search(result.stdout), result.stdout


def _formulas(markdown: str) -> list[str]:
    """Display and inline formulas, whitespace aside, in sorted order."""
    display = re.findall(r"\$\$(.*?)\$\$", markdown, flags=re.S)
    inline = re.findall(r"\$([^$]+)\$", re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.S))
    return sorted(re.sub(r"\s+", "", f) for f in display + inline)


def test_a_zh_template_out_of_step_with_the_english_one_is_refused(tmp_path, monkeypatch):
    spec = get("ch12_bptt")
    template = tmp_path / "notebook.md"
    template.write_text(spec.template.read_text(encoding="utf-8"), encoding="utf-8")
    text = spec.template.with_name("notebook.zh.md").read_text(encoding="utf-8")
    (tmp_path / "notebook.zh.md").write_text(text.rsplit("%% markdown", 1)[0], encoding="utf-8")
    monkeypatch.setattr(type(spec), "template", property(lambda self: template))
    with pytest.raises(ValueError, match="must hold exactly"):
        build.template_cells(get("ch12_bptt"), "zh")


def _grade_texts(graded, assignment: str, student: str) -> dict[str, str]:
    notebook = nbformat.read(graded.root / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)
    return {cell.metadata.nbgrader.grade_id: "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            for cell in notebook.cells if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id")}


def _flat(text: str) -> str:
    """Text without whitespace (wrapping may break a line at a space or between CJK characters)."""
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_zh_reference_full_marks_stub_zero_in_chinese(graded_class_zh, assignment, monkeypatch):
    reference, stub = graded_class_zh.rows(assignment, "reference"), graded_class_zh.rows(assignment, "stub")
    auto = {name: row for name, row in reference.items() if not row.needs_manual}  # the written answers wait for a TA
    assert auto and all(row.score == row.max_score for row in auto.values())
    assert {name for name, row in reference.items() if row.needs_manual} == {answer.name for answer in get(assignment).written}
    assert set(stub) == set(reference) and all(row.score == 0 for row in stub.values())
    monkeypatch.setenv("COURSE_LANG", "zh")
    texts = _grade_texts(graded_class_zh, assignment, "stub")
    for name in auto:
        assert _flat(messages.text("check.not_implemented", name=name)) in _flat(texts[name])
    assert messages.text("notebook.summary", right=0, total=len(auto)) in texts["summary"]
    first = nbformat.read(graded_class_zh.root / "release" / assignment / f"{assignment}.ipynb", as_version=4).cells[0]
    assert CJK.search(first.source)


@pytest.mark.parametrize("assignment, mistake", [(a, m.id) for a in ASSIGNMENTS for m in get(a).mistakes() if get(a).check(m.function).graded])
def test_zh_each_mistake_is_caught_and_named_in_chinese(graded_class_zh, assignment, mistake, monkeypatch):
    entry = next(m for m in get(assignment).mistakes() if m.id == mistake)
    own = graded_class_zh.rows(assignment, mistake)[entry.function]
    assert own.score < own.max_score and mistake in own.misconceptions
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert _flat(messages.text(f"mistake.{mistake}")) in _flat(_grade_texts(graded_class_zh, assignment, mistake)[entry.function])


def test_zh_plots_render_without_missing_glyphs(graded_class_zh):
    notebooks = sorted((graded_class_zh.root / "autograded" / "reference").rglob("*.ipynb"))
    assert len(notebooks) == len(ASSIGNMENTS)
    for path in notebooks:
        outputs = [o for cell in nbformat.read(path, as_version=4).cells for o in cell.get("outputs", [])]
        assert any("image/png" in o.get("data", {}) for o in outputs), path  # every assignment draws a plot
        assert not [o for o in outputs if "missing from" in o.get("text", "")], path


def test_zh_feedback_page_speaks_chinese_around_the_checks(graded_class_zh, monkeypatch):
    """The course's feedback template follows the course language: its score lines, cell headings and
    links, not only the check messages inside the cells."""
    from autograder.course import feedback

    assignment = ASSIGNMENTS[0]
    monkeypatch.setenv("COURSE_LANG", "")  # the course's own setting decides
    feedback(graded_class_zh.root, [assignment], students=["reference"])
    page = (graded_class_zh.root / "feedback" / "reference" / assignment / f"{assignment}.html").read_text(encoding="utf-8")
    monkeypatch.setenv("COURSE_LANG", "zh")
    for label_id in ("feedback.students_answer", "feedback.top", "feedback.grade_cell"):
        assert label(label_id) in page, label_id
    assert re.search(r"得分：\d+(\.\d+)? / \d+(\.\d+)?", page)
    assert not re.search(r"Score:|Student's answer|\(Top\)|Grade cell:", page)
