"""The package's shape, from its imports: no import circle among the modules of `autograder` and
`rnnkit` (imports inside functions and type-checking-only imports counted); the rooms of `autograder`
stacked in `FLOORS`, with at most two imports running back up; at most ten modules at the top of
`autograder`; and the assignments never imported from inside a function - the spec is handed down,
not looked up from below."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import REPO

PACKAGES = {"autograder": REPO / "autograder", "rnnkit": REPO / "kit" / "rnnkit"}


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, bool]]:
    """(module imported, from inside a function) for each import of one module of the packages."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def resolve(target: str) -> str | None:
        while target and target not in MODULES:
            target = target.rpartition(".")[0]
        return target if target and target != name else None

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - (child.level - 1)] if child.level else []
                module = ".".join([*base, *([child.module] if child.module else [])])
                targets = [
                    f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES else module for alias in child.names
                ]
            else:
                targets = []
            found.extend((target, inside) for target in filter(None, map(resolve, targets)))
            visit(child, inside)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The import circles a depth-first walk of `arrows` (module -> the modules it imports) meets."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    circles = []

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(arrows.get(name, ())):
            if state.get(target) == 1:
                circles.append(path[path.index(target) :] + [target])
            elif target not in state:
                walk(target, [*path, target])
        state[name] = 2

    for name in sorted(arrows):
        if name not in state:
            walk(name, [name])
    return circles


def test_no_import_circle():
    arrows = {name: {target for target, _ in imports} for name, imports in GRAPH.items()}
    assert len(MODULES) > 40 and sum(map(len, arrows.values())) > 100
    assert not _circles(arrows), _circles(arrows)


#: The rooms, lowest first: a module imports from its own floor or below. The kit is the floor.
FLOORS = (
    ("rnnkit",),
    # the term beside the course folder: the settings check the term's rules as they load
    ("autograder.coursedir", "autograder.labels", "autograder.term"),
    ("autograder.sandbox",),
    ("autograder.vocabulary",),
    ("autograder.assignments",),
    ("autograder.grading",),
    ("autograder.authoring",),
    ("autograder.intake",),
    ("autograder.reporting",),
    ("autograder.lms",),
    ("autograder.commands", "autograder.hub", "autograder.pipeline"),
    ("autograder", "autograder.__main__"),
)
MOST_RUNNING_BACK_UP = 0
MOST_AT_THE_TOP = 10


def floor(module: str) -> int:
    """The floor of `module`: that of the longest room of `FLOORS` it is in."""
    rooms = [
        (len(room), level)
        for level, rooms in enumerate(FLOORS)
        for room in rooms
        if module == room or module.startswith(room + ".")
    ]
    assert rooms, f"{module} is in no room of FLOORS: put it in one (tests/test_structure.py)"
    return max(rooms)[1]


def running_back_up(graph: dict[str, list[tuple[str, bool]]]) -> list[tuple[str, str]]:
    """The imports of `graph` from a lower floor to a higher one."""
    return sorted(
        {(name, target) for name, imports in graph.items() for target, _ in imports if floor(target) > floor(name)}
    )


def test_every_module_is_in_a_room_and_few_imports_run_back_up():
    up = running_back_up(GRAPH)
    assert len(up) <= MOST_RUNNING_BACK_UP, up
    assert running_back_up(
        {
            "autograder.grading.checks": [("autograder.reporting.report", True)],
            "autograder.reporting.report": [("autograder.grading.checks", False)],
        }
    ) == [("autograder.grading.checks", "autograder.reporting.report")]


def test_the_top_of_the_package_keeps_a_handful_of_modules():
    top = sorted(path.name for path in PACKAGES["autograder"].glob("*.py"))
    assert len(top) <= MOST_AT_THE_TOP, top
    rooms = [path.name for path in PACKAGES["autograder"].iterdir() if (path / "__init__.py").is_file()]
    assert {
        "coursedir",
        "sandbox",
        "vocabulary",
        "grading",
        "assignments",
        "authoring",
        "intake",
        "reporting",
        "commands",
    } <= set(rooms), rooms


def test_the_assignments_are_never_looked_up_from_inside_a_function():
    looked_up = [
        (name, target)
        for name, imports in GRAPH.items()
        for target, inside in imports
        if inside and target.startswith("autograder.assignments")
    ]
    assert not looked_up, looked_up


def test_the_check_sees_a_circle_and_a_lookup_where_there_is_one(tmp_path):
    """Its teeth: the two modules of a circle, one of them importing the assignments in a function."""
    source = "def f():\n    from .assignments import get\n    from . import b\nif TYPE_CHECKING:\n    from .reporting import report\n"
    path = tmp_path / "a.py"
    path.write_text(source, encoding="utf-8")
    MODULES.update({"autograder.a": path, "autograder.b": tmp_path / "b.py"})
    (tmp_path / "b.py").write_text("from . import a\n", encoding="utf-8")
    try:
        imports = _imports("autograder.a", path)
        assert ("autograder.assignments", True) in imports and ("autograder.b", True) in imports
        assert ("autograder.reporting.report", False) in imports  # a type-checking import is an import
        assert _imports("autograder.b", tmp_path / "b.py") == [("autograder.a", False)]
        assert _circles({"autograder.a": {"autograder.b"}, "autograder.b": {"autograder.a"}}) == [
            ["autograder.a", "autograder.b", "autograder.a"]
        ]
    finally:
        del MODULES["autograder.a"], MODULES["autograder.b"]


#: The tests of the whole product, at the top of tests/: the contract through real nbgrader, the
#: corpus of real students' styles, a class of a few hundred, the documents and this file.
WHOLE_PRODUCT = {"test_contract.py", "test_corpus.py", "test_scale.py", "test_docs.py", "test_structure.py"}


def test_the_tests_mirror_the_package():
    """A test file sits in the folder of the room it tests (`tests/grading/` for `autograder/grading/`,
    `tests/kit/` for the kit), or at the top when it tests the whole product."""
    tests = Path(__file__).resolve().parent
    rooms = {path.name for path in PACKAGES["autograder"].iterdir() if (path / "__init__.py").is_file()} | {"kit"}
    misplaced = [
        path.relative_to(tests).as_posix()
        for path in tests.rglob("test_*.py")
        if path.parent.name not in rooms and not (path.parent == tests and path.name in WHOLE_PRODUCT)
    ]
    assert not misplaced, misplaced
    assert {path.parent.name for path in tests.rglob("test_*.py")} - {"tests"} <= rooms
