"""Source notebooks and solution modules are built from the templates; the release is nbgrader's, and clean."""

import importlib
import json
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring import build, kit
from autograder.commands.course import nbgrader, release
from autograder.coursedir.layout import Course
from autograder.vocabulary.template import BEGIN, END

from ..conftest import ASSIGNMENTS, REPO, make_course

COURSE = Course(REPO)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_committed_source_notebook_is_the_build_of_template_and_solutions(assignment):
    committed = COURSE.notebook(COURSE.source(assignment), assignment).read_text(encoding="utf-8")
    assert committed == build.notebook_text(build.build_notebook(get(assignment))), "run: python -m autograder release"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_committed_solution_module_is_the_templates_solution_and_imports(assignment):
    """solutions/<a>.py, the hidden reference solution as an importable module, is what the
    template holds: its source notebook's solution regions, function for function."""
    committed = (REPO / "solutions" / f"{assignment}.py").read_text(encoding="utf-8")
    assert committed == build.solution_text(get(assignment)), "run: python -m autograder release"
    module = importlib.import_module(f"solutions.{assignment}")
    for name, source in get(assignment).function_sources().items():
        assert source in committed and callable(getattr(module, name)), name


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_solution_function_is_in_exactly_one_solution_cell(assignment):
    notebook = nbformat.read(COURSE.notebook(COURSE.source(assignment), assignment), as_version=4)
    cells = "\n".join(c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    for name, source in get(assignment).function_sources().items():
        assert cells.count(source) == 1, name


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_release_leaks_no_solution_no_hidden_test_and_no_engine(assignment):
    folder = COURSE.release(assignment)
    assert {p.name for p in folder.iterdir() if p.suffix not in (".ipynb", ".json")} == {"README.md"}
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "pip install" in readme and not any(word in readme for word in ("SOLUTION", "hidden=True", "autograder"))
    text = COURSE.notebook(folder, assignment).read_text(encoding="utf-8")
    for marker in (
        BEGIN,
        END,
        "BEGIN HIDDEN TESTS",
        "END HIDDEN TESTS",
        "hidden=True",
        "autograder.assignments",
        "import autograder",
        "from autograder",
        "import solutions",
        "from solutions",
    ):
        assert marker not in text, marker
    notebook = nbformat.read(COURSE.notebook(folder, assignment), as_version=4)
    released = "\n".join(cell.source for cell in notebook.cells)
    for name, source in get(assignment).function_sources().items():
        body = source.split(BEGIN, 1)[1].split(END, 1)[0]
        for line in body.splitlines():
            if len(line.strip()) > 12:
                assert line.strip() not in released, f"{name}: solution line {line.strip()!r} in the release"


@pytest.mark.nbgrader
def test_the_committed_release_is_what_generate_assignment_makes_today(graded_class):
    """The shared class was released today by `release` (the build, then nbgrader's generate_assignment).
    Its settings (a shorter call limit) make another kit, which its setup cells name (and so their
    checksums differ): apart from that name, the same."""
    course = Course(graded_class.root)

    def apart_from_the_kit(path: Path, version: str) -> dict:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            source = "".join(cell["source"])
            if version in source:
                cell["source"] = source.replace(version, "<kit>")
                cell["metadata"]["nbgrader"].pop("checksum")
        return notebook

    for assignment in ASSIGNMENTS:
        made = apart_from_the_kit(course.notebook(course.release(assignment), assignment), kit.version(course.root))
        committed = apart_from_the_kit(COURSE.notebook(COURSE.release(assignment), assignment), kit.version())
        assert made == committed, f"release/{assignment} is stale: run python -m autograder release"


@pytest.mark.nbgrader
def test_plain_nbgrader_honours_course_config(tmp_path):
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    with (root / "course_config.py").open("a") as handle:
        handle.write(
            '\nCOURSE_ID = "spring-test"\nDATABASE_URL = "sqlite:///elsewhere.db"\nCELL_TIMEOUT = 7\n'
            'POINTS = {"ch12_bptt": {"bptt_scalar": 5}}\n'
        )
    release(root, ["ch12_bptt"])
    assert (root / "elsewhere.db").is_file() and not (root / "gradebook.db").exists()
    listing = nbgrader(root, "db", "assignment", "list").stdout
    assert "ch12_bptt" in listing
    notebook = nbformat.read(Course(root).notebook(Course(root).release("ch12_bptt"), "ch12_bptt"), as_version=4)
    points = {
        c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"].get("points")
        for c in notebook.cells
        if "nbgrader" in c.metadata
    }
    assert points["bptt_scalar"] == 5
    assert (
        points["scalar_forward"] == get("ch12_bptt").check("scalar_forward").points
    )  # the others keep their checks' points
    from traitlets.config.loader import PyFileConfigLoader

    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    assert loaded.CourseDirectory.course_id == "spring-test" and loaded.Execute.timeout == 7
