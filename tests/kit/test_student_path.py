"""A student's view: the released notebook runs top to bottom in its own folder with only the kit
(`from rnnkit import checker`), untouched without a single error and calmly (a stub's check says
"not started" on stdout; only a wrong answer writes to stderr; a plot of a stub says which function
to write), and a filled-in notebook passes every visible check and says so in its closing summary,
which says once that only public cases ran. Every line a check or the summary prints fits
`messages.WIDTH`, so that `nbgrader validate` (indent 4, lines cut past 87 characters) shows it
whole."""

import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.assignments import get
from autograder.authoring.submissions import filled
from autograder.commands.course import nbgrader
from autograder.coursedir.layout import Course
from rnnkit import messages
from rnnkit.messages import display_width
from rnnkit.selfcheck import public_checks, public_half

from ..conftest import ASSIGNMENTS, REPO, make_course


def _flat(text: str) -> str:
    """Printed text with wrapped lines joined again."""
    return re.sub(r"\n +", " ", text)


def _raw(cell, stream: str | None = None) -> str:
    return "".join(
        o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream" and stream in (None, o.name)
    )


def _printed(cell, stream: str | None = None) -> str:
    return _flat(_raw(cell, stream))


def _too_wide(cells) -> list[str]:
    """The lines the cells printed that are wider than `messages.WIDTH` columns, or that nbgrader
    validate would cut (its indent of 4 and more than 87 characters)."""
    return [
        line
        for cell in cells
        for line in _raw(cell).splitlines()
        if display_width(line) > messages.WIDTH or len("    " + line) > 87
    ]


def _check_cells(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.startswith("check(")]


def _execute(notebook, folder):
    """Run the notebook as Jupyter's Run All does (stopping at an error); its errors (cell metadata,
    exception name) and each check cell's printed text, with the stream it went to."""
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    errors = [
        (cell.metadata.get("nbgrader", {}), output.ename)
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.output_type == "error"
    ]
    checked = [
        (cell.metadata["nbgrader"]["grade_id"].removeprefix("selfcheck-"), _printed(cell), _printed(cell, "stderr"))
        for cell in _check_cells(notebook)
    ]
    return errors, checked


def _all_right(name: str, spec: dict) -> str:
    """The first line a check prints when every book case is right."""
    if spec["rules"]["reveal"]:
        return messages.text("check.public_summary", name=name, passed=len(spec["cases"]), total=len(spec["cases"]))
    return messages.text("check.selfcheck_right", name=name)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_released_notebook_works_for_a_student(assignment, tmp_path):
    checks = public_checks(assignment)
    folder = tmp_path / assignment
    shutil.copytree(Course(REPO).release(assignment), folder)
    path = Course(REPO).notebook(folder, assignment)
    untouched = nbformat.read(path, as_version=4)
    errors, checked = _execute(untouched, folder)  # raises on the first error (as Run All stops there)
    order = [name for name, _, _ in checked]  # the notebook's order
    assert sorted(order) == sorted(checks)  # one check cell per check of the kit
    for name, text, failed in checked:  # every check runs on the stub, earns nothing and says so, calmly
        assert text.strip() == messages.text("check.not_started", name=name) and not failed, (name, text, failed)
        assert "does not agree" not in text and messages.text("check.public_note") not in text, (name, text)
    uses = [cell for cell in untouched.cells if "with uses_your_functions():" in cell.source]
    assert all(_flat(messages.text("notebook.needs_function", name="")).split()[-1] in _printed(cell) for cell in uses)
    assert not any(
        output.output_type == "display_data" for cell in uses for output in cell.outputs
    )  # no half-drawn plot
    written = public_half(assignment)["written"]
    every = sum(spec["points"] for spec in checks.values()) + sum(written.values())
    summary = _printed(untouched.cells[-1])
    assert summary.startswith(
        messages.text("notebook.summary", right=0, total=len(checks))
        + messages.text("notebook.summary_worth", points=0, all=f"{every:g}")
        + "\n"
    ), summary
    assert messages.text("notebook.summary_stub", names=", ".join(order)) in summary, summary  # in notebook order
    assert summary.count(messages.text("check.public_note")) == 1, summary
    assert not _too_wide([*_check_cells(untouched), *uses, untouched.cells[-1]])
    notebook = filled(path, get(assignment))
    errors, checked = _execute(notebook, folder)
    assert not errors
    points = {
        cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"]
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("grade")
    }
    assert points == {
        **{name: spec["points"] for name, spec in checks.items() if spec["points"]},
        **public_half(assignment)["written"],
    }
    for name, text, failed in checked:
        assert text.startswith(_all_right(name, checks[name])) and not failed, (name, text)
        assert messages.text("check.public_note") not in text, (name, text)  # said once, in the summary
    summary = _printed(notebook.cells[-1])
    worth = sum(spec["points"] for spec in checks.values())
    assert summary.startswith(
        messages.text("notebook.summary", right=len(checks), total=len(checks))
        + messages.text("notebook.summary_worth", points=f"{worth:g}", all=f"{every:g}")
        + "\n"
    ), summary
    assert messages.text("notebook.summary_right", names=", ".join(order)) in summary, summary
    assert not any(
        messages.text(group, names="").split(":")[0] in summary
        for group in ("notebook.summary_wrong", "notebook.summary_stub")
    )
    assert (
        summary.strip().endswith(messages.text("check.public_note"))
        and summary.count(messages.text("check.public_note")) == 1
    ), summary
    if written:  # the written answers: graded by hand, said so, with their points
        names = ", ".join(
            messages.text("notebook.points_item", name=name, count=int(points) if points == int(points) else points)
            for name, points in written.items()
        )
        assert messages.text("notebook.summary_written", names=names) in summary, summary
    assert not _too_wide([*_check_cells(notebook), notebook.cells[-1]])


def test_nbgrader_validate_names_each_failing_check_with_its_reason(tmp_path):
    """`nbgrader validate` on an untouched notebook, from the course root: every check cell fails,
    each with the self-check's reason (not a bare "Partial credit"): under validate a stub's
    not-started line goes to stderr, which nbgrader reads as a failed cell. No line is cut."""
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    shutil.copytree(Course(REPO).release("ch12_bptt"), root / "mine")
    result = nbgrader(root, "validate", "mine/ch12_bptt.ipynb")
    text = _flat(result.stdout)
    graded = [
        name for name, spec in public_checks("ch12_bptt").items() if spec["points"]
    ]  # a self-check cell is no test cell
    written = list(public_half("ch12_bptt")["written"])  # an unanswered written answer fails too
    assert written and f"VALIDATION FAILED ON {len(graded) + len(written)} CELL(S)" in text, text
    assert all(messages.text("check.not_started", name=name) in text for name in graded), text
    assert "Partial credit" not in text and "..." not in text.replace("... and", "")


def test_without_the_kit_the_first_cell_says_how_to_install_it():
    from autograder.authoring.kit import wheel_name

    notebook = nbformat.read(REPO / "release" / "ch12_bptt" / "ch12_bptt.ipynb", as_version=4)
    setup = next(cell.source for cell in notebook.cells if cell.cell_type == "code")
    code = "import sys\nsys.modules['rnnkit'] = None  # as if the kit were not installed\n" + setup
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "COURSE_LANG": "en"}
    )
    assert (
        result.returncode != 0
        and f"pip install {wheel_name()}" in result.stderr
        and "restart the kernel" in result.stderr
    ), result.stderr
