"""Source notebooks built from each assignment's `notebook.md` and its solution module.

`notebook.md` is a list of cells, each opened by a directive line:

    %% markdown            teaching text
    %% setup               read-only code (imports, `check = checker(...)`, given helpers)
    %% code                ordinary code (tables, plots); runs the student's functions
    %% exercise f [g ...]  one exercise: the solution cell (the source of f, g from the
                           assignment's solution module, released as the stub), then the test cell
                           of each of f, g: for a graded check (one with hidden draws) the visible
                           self-check + hidden grading; for a self-check alone, a locked cell
                           running the self-check
    %% written name        a written answer graded by hand (nbgrader's manually graded markdown
                           cell); its body is the rubric, the book's reference answer, which the
                           release replaces with nbgrader's answer stub

Inside setup and code cells a line `%include package.module:function` is replaced by that
function's source, so a helper given to students is written once.

Because solution cells are copied from the solution module, the two cannot drift apart.

The Chinese edition (`COURSE_LANG = "zh"`) takes its teaching text from `notebook.zh.md`, which
holds only `%% markdown` and `%% written` cells: one for each such cell of `notebook.md`, in the same
order. Code, formulas and contracts are shared, so the two editions cannot differ in what a student
writes.

Every notebook ends with a locked summary cell (`check.summary()`, grade id `summary`): in the
student's notebook it counts the checks right so far; at grading the grader writes it.
"""
from __future__ import annotations

import importlib
import inspect
import json
import shutil
from pathlib import Path

import nbformat

from . import config
from .labels import label
from .layout import Course
from .spec import Assignment

NBGRADER = {"schema_version": 3, "task": False}
#: The grade id of the closing summary cell.
SUMMARY = "summary"


def parse(text: str) -> list[tuple[str, list[str], str]]:
    """The template's cells as (kind, arguments, body)."""
    cells, kind, args, body = [], None, [], []
    for line in text.splitlines():
        if line.startswith("%% "):
            if kind:
                cells.append((kind, args, "\n".join(body).strip("\n")))
            kind, *args = line[3:].split()
            body = []
        elif kind is None:
            if line.strip():
                raise ValueError(f"text before the first %% directive: {line!r}")
        else:
            body.append(line)
    if kind:
        cells.append((kind, args, "\n".join(body).strip("\n")))
    return [cell for kind, args, body in cells for cell in _expanded(kind, args, body)]


def _expanded(kind: str, args: list[str], body: str) -> list[tuple[str, list[str], str]]:
    """One template cell as the notebook's cells: an exercise is its solution cell and a test cell
    per function; every other kind is itself."""
    if kind in ("solution", "check"):
        raise ValueError(f"%% {kind} {' '.join(args)}: write %% exercise {' '.join(args)} (the solution cell and its checks)")
    if kind != "exercise":
        return [(kind, args, body)]
    if not args or body.strip():
        raise ValueError(f"%% exercise {' '.join(args)}: name one or more solution functions, and put no text under it")
    return [("solution", args, ""), *(("check", [name], "") for name in args)]


def _expand_includes(body: str) -> str:
    """Replace each `%include module:function` line by the function's source."""
    lines = []
    for line in body.splitlines():
        if line.startswith("%include "):
            module, name = line.split(None, 1)[1].split(":")
            lines.append(inspect.getsource(getattr(importlib.import_module(module), name)).rstrip("\n"))
        else:
            lines.append(line)
    return "\n".join(lines)


#: The file name of the student kit's wheel (`python -m autograder kit` builds it).
KIT_WHEEL = "rnn_course_kit-0.2.0-py3-none-any.whl"
_KIT_IMPORT = "from rnnkit import checker, uses_your_functions"


def _with_edition(body: str, assignment: str, lang: str) -> str:
    """A setup cell whose `checker` call records the notebook's edition, so that its messages are in
    that language wherever the notebook is opened, and whose import of the kit says how to install
    it where it is missing."""
    guarded = (f"try:\n    {_KIT_IMPORT}\nexcept ModuleNotFoundError:\n"
               f"    raise ModuleNotFoundError({label('notebook.no_kit', wheel=KIT_WHEEL)!r}) from None")
    call = f'checker("{assignment}")'
    return body.replace(_KIT_IMPORT, guarded).replace(call, f'checker("{assignment}", lang="{lang}")')


def check_source(name: str) -> str:
    """The test cell of one check: the visible self-check, then the hidden grading call."""
    return (
        f'check("{name}", {name})\n'
        "### BEGIN HIDDEN TESTS\n"
        f'check("{name}", {name}, hidden=True)\n'
        "### END HIDDEN TESTS"
    )


#: The kinds of cell whose text an edition translates.
TEXT_KINDS = ("markdown", "written")


def template_cells(spec: Assignment, lang: str) -> list[tuple[str, list[str], str]]:
    """The template's cells in language `lang`: `notebook.md`, with the markdown and written cells
    of `notebook.<lang>.md` in place of the English ones."""
    cells = parse(spec.template.read_text(encoding="utf-8"))
    written = [args for kind, args, _ in cells if kind == "written"]
    if written != [[answer.name] for answer in spec.written]:
        raise ValueError(f"{spec.template}: its %% written cells {written} must be the spec's written answers "
                         f"{[answer.name for answer in spec.written]}, in that order")
    if lang == "en":
        return cells
    edition = spec.template.with_name(f"notebook.{lang}.md")
    texts = parse(edition.read_text(encoding="utf-8"))
    translated = [index for index, (kind, _, _) in enumerate(cells) if kind in TEXT_KINDS]
    if [(kind, args) for kind, args, _ in texts] != [cells[index][:2] for index in translated]:
        raise ValueError(f"{edition} must hold exactly {len(translated)} %% markdown and %% written cells, one per such cell of "
                         f"{spec.template.name} in the same order (written cells with the same names); it holds "
                         f"{[kind for kind, _, _ in texts]}")
    for index, cell in zip(translated, texts):
        cells[index] = cell
    return cells


def rubric(spec: Assignment, name: str, lang: str) -> str:
    """The rubric of one written answer in language `lang`: the body of its `%% written` cell."""
    return next(body for kind, args, body in template_cells(spec, lang) if kind == "written" and args == [name])


def build_notebook(spec: Assignment, root: Path = config.REPO_ROOT) -> nbformat.NotebookNode:
    """The nbgrader source notebook of one assignment, in the course language."""
    assignment, sources, settings = spec.name, spec.function_sources(), config.load(root)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    cells = [*template_cells(spec, config.language(root)), ("summary", [], "check.summary()")]
    for index, (kind, args, body) in enumerate(cells):
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(body)
        elif kind == "code":
            cell = nbformat.v4.new_code_cell(_expand_includes(body))
        elif kind in ("setup", "summary"):
            cell = nbformat.v4.new_code_cell(_with_edition(_expand_includes(body), assignment, config.language(root)))
            grade_id = SUMMARY if kind == "summary" else f"setup-{index}"
            cell.metadata["nbgrader"] = {**NBGRADER, "grade": False, "solution": False, "locked": True, "grade_id": grade_id}
        elif kind == "solution":
            missing = [name for name in args if name not in sources]
            if missing:
                raise KeyError(f"{assignment}: no function {missing} in {spec.solutions}")
            cell = nbformat.v4.new_code_cell("\n\n\n".join(sources[name] for name in args))
            cell.metadata["nbgrader"] = {**NBGRADER, "grade": False, "solution": True, "locked": False, "grade_id": f"solution-{args[0]}"}
        elif kind == "check" and spec.check(args[0]).graded:
            (name,) = args
            cell = nbformat.v4.new_code_cell(check_source(name))
            cell.metadata["nbgrader"] = {
                **NBGRADER, "grade": True, "solution": False, "locked": True, "grade_id": name,
                "points": spec.points(name, settings.POINTS),
            }
        elif kind == "check":
            (name,) = args
            cell = nbformat.v4.new_code_cell(f'check("{name}", {name})')
            cell.metadata["nbgrader"] = {**NBGRADER, "grade": False, "solution": False, "locked": True, "grade_id": f"selfcheck-{name}"}
        elif kind == "written":
            (name,) = args
            cell = nbformat.v4.new_markdown_cell(body)
            cell.metadata["nbgrader"] = {**NBGRADER, "grade": True, "solution": True, "locked": False, "grade_id": name,
                                         "points": spec.points(name, settings.POINTS)}
        else:
            raise ValueError(f"{assignment}: unknown cell kind {kind!r}")
        cell.id = f"{kind}-{index:02d}"
        notebook.cells.append(cell)
    return notebook


def notebook_text(notebook: nbformat.NotebookNode) -> str:
    """The notebook as committed: stable JSON with a final newline."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_source(spec: Assignment, root: Path = config.REPO_ROOT) -> Path:
    """Write `source/<assignment>/<assignment>.ipynb`, and beside it the data files it names and the
    students' README (how to install the kit, work and hand in), which nbgrader releases with it."""
    assignment = spec.name
    folder = Course(Path(root)).source(assignment)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{assignment}.ipynb"
    text = notebook_text(build_notebook(spec, root))
    path.write_text(text, encoding="utf-8")
    for data in config.DATA_DIR.glob("*.json"):
        if data.name in text:
            shutil.copy2(data, folder / data.name)
    (folder / "README.md").write_text(label("student.readme", assignment=assignment, wheel=KIT_WHEEL), encoding="utf-8")
    return path
