"""A student's view: the released notebook runs top to bottom in its own folder with only the kit
(`from rnnkit import checker`), untouched without a single error (a failing self-check writes to
stderr; a plot of a stub says which function to write), and a filled-in notebook passes every
visible check and says so in its closing summary."""
import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient
from rnnkit import messages
from rnnkit.selfcheck import public_checks, public_half

from autograder.layout import Course
from autograder.submissions import filled

from autograder.course import nbgrader

from .conftest import ASSIGNMENTS, REPO, make_course


def _flat(text: str) -> str:
    """Printed text with wrapped lines joined again."""
    return re.sub(r"\n +", " ", text)


def _printed(cell, stream: str | None = None) -> str:
    return _flat("".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream" and stream in (None, o.name)))


def _execute(notebook, folder):
    """Run the notebook as Jupyter's Run All does (stopping at an error); its errors (cell metadata,
    exception name) and each check cell's printed text, with the stream it went to."""
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    errors = [(cell.metadata.get("nbgrader", {}), output.ename) for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.output_type == "error"]
    checked = [(cell.metadata["nbgrader"]["grade_id"].removeprefix("selfcheck-"), _printed(cell), _printed(cell, "stderr"))
               for cell in notebook.cells if cell.cell_type == "code" and cell.source.startswith("check(")]
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
    assert sorted(name for name, _, _ in checked) == sorted(checks)  # one check cell per check of the kit
    for name, text, failed in checked:  # every check runs on the stub, earns nothing and says why, on stderr
        assert messages.text("check.not_implemented", name=name) in failed, (name, text)
        assert _all_right(name, checks[name]) not in text, (name, text)
    uses = [cell for cell in untouched.cells if "with uses_your_functions():" in cell.source]
    assert all(_flat(messages.text("notebook.needs_function", name="")).split()[-1] in _printed(cell) for cell in uses)
    assert not any(output.output_type == "display_data" for cell in uses for output in cell.outputs)  # no half-drawn plot
    summary = _printed(untouched.cells[-1])
    assert messages.text("notebook.summary", right=0, total=len(checks)) in summary, summary
    notebook = filled(path, assignment)
    errors, checked = _execute(notebook, folder)
    assert not errors
    points = {cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"] for cell in notebook.cells
              if cell.metadata.get("nbgrader", {}).get("grade")}
    assert points == {**{name: spec["points"] for name, spec in checks.items() if spec["points"]}, **public_half(assignment)["written"]}
    for name, text, failed in checked:
        assert text.startswith(_all_right(name, checks[name])) and not failed, (name, text)
        assert messages.text("check.public_note") in text, (name, text)
    summary = _printed(notebook.cells[-1])
    assert summary.startswith(messages.text("notebook.summary", right=len(checks), total=len(checks)) + "\n"), summary
    if public_half(assignment)["written"]:  # the written answers: graded by hand, said so
        assert _flat(summary).strip().endswith(_flat(messages.text("notebook.summary_written", names=", ".join(public_half(assignment)["written"])))), summary


def test_nbgrader_validate_names_each_failing_check_with_its_reason(tmp_path):
    """`nbgrader validate` on an untouched notebook, from the course root: every check cell fails,
    each with the self-check's reason (not a bare "Partial credit")."""
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    shutil.copytree(Course(REPO).release("ch12_bptt"), root / "mine")
    result = nbgrader(root, "validate", "mine/ch12_bptt.ipynb")
    text = _flat(result.stdout)
    graded = [name for name, spec in public_checks("ch12_bptt").items() if spec["points"]]  # a self-check cell is no test cell
    written = list(public_half("ch12_bptt")["written"])  # an unanswered written answer fails too
    assert written and f"VALIDATION FAILED ON {len(graded) + len(written)} CELL(S)" in text, text
    assert messages.text("check.not_implemented", name="rnn_backward") in text
    assert "Partial credit" not in text and "..." not in text.replace("... and", "")


def test_without_the_kit_the_first_cell_says_how_to_install_it():
    from autograder.build import KIT_WHEEL

    notebook = nbformat.read(REPO / "release" / "ch12_bptt" / "ch12_bptt.ipynb", as_version=4)
    setup = next(cell.source for cell in notebook.cells if cell.cell_type == "code")
    code = "import sys\nsys.modules['rnnkit'] = None  # as if the kit were not installed\n" + setup
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "COURSE_LANG": "en"})
    assert result.returncode != 0 and f"pip install {KIT_WHEEL}" in result.stderr and "restart the kernel" in result.stderr, result.stderr
