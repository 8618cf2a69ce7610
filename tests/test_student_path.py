"""A student's view: the released notebook runs top to bottom in its own folder, the self-checks
answer without errors, and a filled-in notebook passes every visible check."""
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.submissions import filled

from .conftest import ASSIGNMENTS, REPO


def _execute(notebook, folder):
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}).execute()
    errors = [(cell.metadata.get("nbgrader", {}), output.ename) for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.output_type == "error"]
    scores = [float(output.data["text/plain"]) for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")
              for output in cell.get("outputs", []) if output.output_type == "execute_result"]
    return errors, scores


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_released_notebook_works_for_a_student(assignment, tmp_path):
    folder = tmp_path / assignment
    shutil.copytree(REPO / "release" / assignment, folder)
    path = folder / f"{assignment}.ipynb"
    errors, scores = _execute(nbformat.read(path, as_version=4), folder)
    assert all(not cell.get("grade") and name == "NotImplementedError" for cell, name in errors), errors
    assert scores and all(score == 0 for score in scores)
    notebook = filled(path, assignment)
    errors, scores = _execute(notebook, folder)
    assert not errors
    points = [cell.metadata["nbgrader"]["points"] for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]
    assert scores == points
    assert "Only the public book cases ran here" in "".join(
        output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", []))
