"""The contract every assignment keeps, proved once for all of them (a test file of an assignment
holds only what is special to it): its checks are its solution's functions, in notebook order, with
points; the notebook holds each solution once and a test cell per check; every check catches a
catalogued mistake of its own or of a function it calls; every mistake is a cell a student could
have written, with something to say."""

from __future__ import annotations

import ast

import pytest

from autograder.assignments import ALL
from autograder.authoring import kit
from autograder.authoring.build import build_notebook
from autograder.coursedir import config
from autograder.vocabulary import catalogue
from autograder.vocabulary.spec import Assignment

SPECS = list(ALL.values())
by_name = pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@by_name
def test_the_checks_are_the_solutions_functions_with_points(spec):
    names = [check.name for check in spec.checks]
    assert list(spec.function_sources()) == names, "one check per solution function, in notebook order"
    settings = config.load()
    assert spec.name in settings.ASSIGNMENTS and set(settings.POINTS.get(spec.name, {})) <= {
        *names,
        *(a.name for a in spec.written),
    }
    assert all(
        spec.points(name, settings.POINTS) > 0
        for name in [*(c.name for c in spec.graded), *(a.name for a in spec.written)]
    )
    assert all(callable(getattr(spec.solution(), name)) for name in names)


@by_name
def test_the_notebook_holds_each_solution_once_and_a_test_cell_per_check(spec):
    cells = build_notebook(spec).cells
    setup = cells[1]
    assert (
        _nbgrader(setup)["locked"]
        and f'check = checker("{spec.name}", lang="en", kit="{kit.version()}")' in setup.source
    )
    solved = [
        _nbgrader(cell)["grade_id"] for cell in cells if _nbgrader(cell).get("solution") and cell.cell_type == "code"
    ]
    solution_cells = "\n".join(cell.source for cell in cells if _nbgrader(cell).get("solution"))
    assert all(solution_cells.count(source) == 1 for source in spec.function_sources().values())
    assert len(solved) == len(set(solved)) and all(grade_id.startswith("solution-") for grade_id in solved)
    graded = [_nbgrader(cell)["grade_id"] for cell in cells if _nbgrader(cell).get("grade")]
    checks = {check.name for check in spec.checks}
    assert [name for name in graded if name in checks] == [check.name for check in spec.graded]
    assert [name for name in graded if name not in checks] == [answer.name for answer in spec.written]
    points = sum(_nbgrader(cell).get("points", 0) for cell in cells)
    assert points == sum(
        spec.points(name, config.load().POINTS)
        for name in [*(c.name for c in spec.graded), *(a.name for a in spec.written)]
    )


@by_name
def test_every_check_catches_a_mistake_and_every_mistake_is_a_students_cell(spec):
    checks = {check.name for check in spec.checks}
    assert all(spec.for_check(name) for name in checks), "a check that catches no catalogued mistake"
    for entry in spec.mistakes():
        assert entry.function in checks and len(entry.text) > 40, entry.id
        source = entry.source()
        assert f"def {entry.function}(" in source and "import" not in source, (
            entry.id
        )  # np, Fraction and the notebook's names only
        assert callable(entry.namespace()[entry.function]), entry.id


@by_name
def test_no_name_is_defined_twice_in_an_exercise_module(spec):
    """A second mistake of the same id in one module would silently replace the first in the catalogue
    (across modules the catalogue refuses it: `test_a_mistake_id_used_twice_is_refused`)."""
    for path in (spec.folder / "checks").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
        assert len(names) == len(set(names)), (path.name, sorted({name for name in names if names.count(name) > 1}))


@by_name
def test_each_exercise_module_holds_its_check_and_its_own_mistakes(spec):
    """One place an exercise: `checks/<name>.py` defines the check `name` and the mistakes of its function."""
    modules = [module.__name__.rpartition(".")[2] for module in spec.mistakes_modules]
    assert modules == [check.name for check in spec.checks]
    assert all(entry.fn.__module__.endswith(f".checks.{entry.function}") for entry in spec.mistakes()), [
        entry.id for entry in spec.mistakes() if not entry.fn.__module__.endswith(f".checks.{entry.function}")
    ]


def test_an_exercise_module_that_is_not_a_check_and_a_mistake_id_used_twice_are_refused(tmp_path, monkeypatch):
    spec = ALL["ch12_bptt"]
    folder = tmp_path / "refused_toy"  # a package name of its own: imported modules stay in sys.modules
    (folder / "checks").mkdir(parents=True)
    (folder / "notebook.md").write_text((spec.folder / "notebook.md").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "checks" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "checks" / "sgd_step.py").write_text("CHECK = None\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    with pytest.raises(ValueError, match=r"checks/sgd_step.py must define CHECK = Check\('sgd_step'"):
        Assignment.found("toy", folder, importlib.import_module("refused_toy.checks"), spec.reference)
    with pytest.raises(ValueError, match="'last_use_only' is defined twice"):
        catalogue.mistakes("toy", (*spec.mistakes_modules, spec.mistakes_modules[1]), spec.template)
