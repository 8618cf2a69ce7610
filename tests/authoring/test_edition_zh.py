"""The Chinese edition (COURSE_LANG = "zh"): notebooks of Chinese teaching text around the same code,
plots and a feedback page in Chinese. The contract in Chinese (reference full marks, stub zero, every
catalogued mistake caught and named, every message in Chinese) is tests/test_contract.py's."""

import os
import re
import subprocess
import sys

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring import build, kit
from autograder.labels import label

from ..conftest import ASSIGNMENTS, REPO

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
        missing_kit = repr(label("notebook.no_kit", wheel=kit.wheel_name()))
        return [
            c.source.replace(f'lang="{lang}"', "lang=EDITION").replace(missing_kit, "MESSAGE")
            for c in notebook.cells
            if c.cell_type == "code"
        ]

    assert code(chinese, "zh") == code(english, "en")
    assert (
        f'checker("{assignment}", lang="zh", kit="{kit.version()}")'
        in chinese.cells[1].source + chinese.cells[2].source
    )
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
    setup = next(
        c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("setup")
    )
    solution = next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    check = next(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")).split(
        "### BEGIN HIDDEN"
    )[0]
    code = "\n".join(
        [
            "import contextlib, io, sys",
            setup,
            solution,
            "out = io.StringIO()",
            "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):",
            "    " + check.strip().replace("\n", "\n    "),
            "sys.__stdout__.write(out.getvalue())",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "COURSE_LANG": "en"},
        cwd=REPO / "release" / assignment,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert CJK.search(result.stdout), result.stdout


def _formulas(markdown: str) -> list[str]:
    """Display and inline formulas, whitespace aside, in sorted order."""
    display = re.findall(r"\$\$(.*?)\$\$", markdown, flags=re.S)
    inline = re.findall(r"\$([^$]+)\$", re.sub(r"\$\$.*?\$\$", " ", markdown, flags=re.S))
    return sorted(re.sub(r"\s+", "", f) for f in display + inline)


def test_a_text_cell_without_its_chinese_is_refused(tmp_path, monkeypatch):
    spec = get("ch12_bptt")
    template = tmp_path / "notebook.md"
    text = spec.template.read_text(encoding="utf-8")
    start = text.rindex("\n%% zh\n")
    end = text.find("\n%% ", start + 1)
    template.write_text(
        text[:start] + (text[end:] if end != -1 else "\n"), encoding="utf-8"
    )  # the last Chinese cell gone
    monkeypatch.setattr(type(spec), "template", property(lambda self: template))
    with pytest.raises(ValueError, match="needs its translation"):
        build.template_cells(spec, "zh")
    template.write_text(text.replace("%% setup\n", "%% setup\n\n%% zh\n", 1), encoding="utf-8")
    with pytest.raises(ValueError, match="must follow a %% markdown or %% written cell"):
        build.template_cells(spec, "en")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_zh_release_starts_with_chinese_teaching_text(graded_class_zh, assignment):
    first = nbformat.read(graded_class_zh.root / "release" / assignment / f"{assignment}.ipynb", as_version=4).cells[0]
    assert CJK.search(first.source)


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
    from autograder.commands.course import feedback

    assignment = ASSIGNMENTS[0]
    monkeypatch.setenv("COURSE_LANG", "")  # the course's own setting decides
    feedback(graded_class_zh.root, [assignment], students=["reference"])
    page = (graded_class_zh.root / "feedback" / "reference" / assignment / f"{assignment}.html").read_text(
        encoding="utf-8"
    )
    monkeypatch.setenv("COURSE_LANG", "zh")
    for label_id in ("feedback.students_answer", "feedback.top", "feedback.grade_cell"):
        assert label(label_id) in page, label_id
    assert re.search(r"得分：\d+(\.\d+)? / \d+(\.\d+)?", page)
    assert not re.search(r"Score:|Student's answer|\(Top\)|Grade cell:", page)
