"""A student's view: the released notebook runs top to bottom in its own folder with only the kit
(`from rnnkit import checker`), the self-checks answer without errors, and a filled-in notebook
passes every visible check."""
import shutil

import nbformat
import pytest
from nbclient import NotebookClient
from rnnkit import messages
from rnnkit.selfcheck import public_checks

from autograder.layout import Course
from autograder.submissions import filled

from .conftest import ASSIGNMENTS, REPO


def _execute(notebook, folder):
    """Run the notebook; its errors (cell metadata, exception name) and each check cell's printed text."""
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}).execute()
    errors = [(cell.metadata.get("nbgrader", {}), output.ename) for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.output_type == "error"]
    checked = [(cell.metadata["nbgrader"]["grade_id"], "".join(output.get("text", "") for output in cell.get("outputs", []) if output.output_type == "stream"))
               for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]
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
    errors, checked = _execute(nbformat.read(path, as_version=4), folder)
    assert all(not cell.get("grade") and name == "NotImplementedError" for cell, name in errors), errors
    assert sorted(name for name, _ in checked) == sorted(checks)  # one check cell per check of the kit
    for name, text in checked:  # every check runs on the stub, earns nothing and says why
        assert messages.text("check.not_implemented", name=name) in text, (name, text)
        assert _all_right(name, checks[name]) not in text, (name, text)
    notebook = filled(path, assignment)
    errors, checked = _execute(notebook, folder)
    assert not errors
    points = {cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"] for cell in notebook.cells
              if cell.metadata.get("nbgrader", {}).get("grade")}
    assert points == {name: spec["points"] for name, spec in checks.items()}
    for name, text in checked:
        assert text.startswith(_all_right(name, checks[name])), (name, text)
        assert messages.text("check.public_note") in text, (name, text)
