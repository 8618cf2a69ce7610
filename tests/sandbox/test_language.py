"""One language path: each entry point (the command line, `nbgrader_config.py` through
`pipeline.configure`) reads the course language once (`Course.language`: the environment's
COURSE_LANG for one command, else course_config's) and speaks it (`rnnkit.messages.speaking`); a
runner gets it in its spawn request. The grader never writes the environment."""

from __future__ import annotations

import ast
import os
import re

import nbformat
import pytest
from traitlets.config import Config

from autograder import pipeline
from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands import cli
from autograder.commands.course import nbgrader, release
from autograder.coursedir.layout import Course
from autograder.labels import label
from rnnkit import messages

from ..conftest import REPO, make_course

A = "ch12_bptt"
CJK = re.compile(r"[\u4e00-\u9fff]")
#: The one write of the environment left: nbgrader's gradebook runs `alembic` from PATH in this process.
KNOWN_WRITES = {"PATH"}
#: The warm process's child of a command takes the environment of the command's caller, whole
#: (autograder/commands/warm.py): it writes none of its own.
CALLERS_ENVIRONMENT = "autograder/commands/warm.py"


def _environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def environment_writes(source: str) -> list[str]:
    """What a module's code writes of `os.environ` (the key where it is written, else how)."""
    writes = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and _environ(node.value) and isinstance(node.ctx, (ast.Store, ast.Del)):
            writes.append(node.slice.value if isinstance(node.slice, ast.Constant) else ast.unparse(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if _environ(node.func.value) and node.func.attr in ("update", "setdefault", "pop", "popitem", "clear"):
                writes.append(f"os.environ.{node.func.attr}")
            elif (
                isinstance(node.func.value, ast.Name)
                and node.func.value.id == "os"
                and node.func.attr in ("putenv", "unsetenv")
            ):
                writes.append(f"os.{node.func.attr}")
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and any(
            map(_environ, getattr(node, "targets", [getattr(node, "target", None)]))
        ):
            writes.append("os.environ")
    return writes


def test_the_scan_sees_every_kind_of_write():
    source = (
        'import os\nos.environ["COURSE_LANG"] = "zh"\ndel os.environ[key]\nos.environ.update(a=1)\n'
        'os.environ.setdefault("X", "1")\nos.putenv("Y", "2")\nos.environ = {}\nos.environ.get("Z")\n'
    )
    assert sorted(environment_writes(source)) == [
        "COURSE_LANG",
        "key",
        "os.environ",
        "os.environ.setdefault",
        "os.environ.update",
        "os.putenv",
    ]


def test_no_module_of_the_grader_writes_the_environment():
    writes = {
        f"{path.relative_to(REPO)}: {key}"
        for path in (REPO / "autograder").rglob("*.py")
        for key in environment_writes(path.read_text(encoding="utf-8"))
        if key not in KNOWN_WRITES and path.relative_to(REPO).as_posix() != CALLERS_ENVIRONMENT
    }
    assert writes == set()


def _zh_course(tmp_path):
    root = make_course(tmp_path / "course", [A])
    with (root / "course_config.py").open("a") as handle:
        handle.write('\nCOURSE_LANG = "zh"\nHIDDEN_CASES = 1\nCELL_TIMEOUT = 10\nCALL_TIMEOUT = 2\n')
    return root


def test_configure_tells_the_exporters_the_course_language_and_changes_nothing_else(tmp_path, monkeypatch):
    """nbgrader_config.py's reading: course_config's language, or the environment's for one command;
    the process's own language and its environment are left as they were."""
    root = _zh_course(tmp_path)
    monkeypatch.delenv("COURSE_LANG", raising=False)
    spoken, environment = list(messages._chosen), dict(os.environ)
    given = Config()
    pipeline.configure(given, str(root))
    assert given.CourseExporter.language == "zh" and given.Autograde.exporter_class.endswith(".GradingExporter")
    assert messages._chosen == spoken and dict(os.environ) == environment and messages.language() == "en"
    monkeypatch.setenv("COURSE_LANG", "en")
    given = Config()
    pipeline.configure(given, str(root))
    assert given.CourseExporter.language == "en"


@pytest.mark.parametrize("exporter", [pipeline.GradingExporter, pipeline.FeedbackExporter])
def test_an_exporter_speaks_the_language_it_was_told_while_it_converts(exporter, monkeypatch):
    monkeypatch.delenv("COURSE_LANG", raising=False)
    heard = []
    config = Config()
    config.CourseExporter.language = "zh"
    made = exporter(config=config)
    made.register_preprocessor(
        lambda nb, resources: (heard.append(messages.language()), (nb, resources))[1], enabled=True
    )
    made.from_notebook_node(nbformat.v4.new_notebook())
    assert heard == ["zh"] and messages.language() == "en"


def test_the_command_line_speaks_the_course_language_for_the_command_only(tmp_path, monkeypatch):
    root = _zh_course(tmp_path)
    monkeypatch.delenv("COURSE_LANG", raising=False)
    heard = []
    monkeypatch.setattr(cli, "_run", lambda args, at: heard.append((messages.language(), at)) or 0)
    assert cli.main(["--root", str(root), "report"]) == 0
    assert heard == [("zh", Course(root).root)] and messages._chosen == []
    monkeypatch.setenv("COURSE_LANG", "en")
    assert cli.main(["--root", str(root), "report"]) == 0 and heard[-1][0] == "en"


@pytest.mark.nbgrader
def test_a_zh_course_grades_in_chinese_without_course_lang_in_the_environment(tmp_path, monkeypatch):
    """Plain `nbgrader autograde` and `generate_feedback` in a course whose course_config says zh, with
    no COURSE_LANG anywhere: the grader's reports, the runner's own words and the feedback page in Chinese."""
    monkeypatch.delenv("COURSE_LANG", raising=False)
    root = _zh_course(tmp_path)
    release(root, [A])
    notebook = filled(Course(root).notebook(Course(root).release(A), A), get(A), get(A).mistakes()[0])
    notebook.cells.append(
        nbformat.v4.new_code_cell("from rnnkit import messages\nprint('runner:', messages.language())")
    )
    write_submission(root, "mistaken", A, notebook)
    nbgrader(root, "autograde", A)
    nbgrader(root, "generate_feedback", A)
    graded = nbformat.read(Course(root).notebook(Course(root).autograded("mistaken", A), A), as_version=4)
    texts = [output.get("text", "") for cell in graded.cells for output in cell.get("outputs", [])]
    reports = [
        text
        for cell in graded.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
        for text in (output.get("text", "") for output in cell.outputs)
        if text
    ]
    with messages.speaking("zh"):
        top = label("feedback.top")
    assert "runner: zh\n" in texts
    assert reports and all(CJK.search(report) for report in reports)
    assert top in (root / "feedback" / "mistaken" / A / f"{A}.html").read_text(encoding="utf-8")
