"""Source notebooks built from each assignment's `notebook.md`.

`notebook.md`'s cells are `autograder.vocabulary.template`'s; the solution cells hold the reference
solution, released as the stub.

Every markdown and written cell is followed by its Chinese (`%% zh`), which the Chinese edition
(`COURSE_LANG = "zh"`) shows in its place. Code, formulas and contracts are shared, so the two
editions cannot differ in what a student writes.

Every notebook ends with a locked summary cell (`check.summary()`, grade id `summary`): in the
student's notebook it counts the checks right so far; at grading the grader writes it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

from rnnkit.messages import LANGUAGES

from ..coursedir import config
from ..coursedir.layout import Course
from ..labels import label
from ..vocabulary import template
from ..vocabulary.spec import SUMMARY, Assignment
from ..vocabulary.template import KIT_IMPORT, expand_includes, parse
from . import kit

NBGRADER = {"schema_version": 3, "task": False}


def _with_edition(body: str, assignment: str, lang: str, root: Path) -> str:
    """A setup cell whose `checker` call records the notebook's edition, so that its messages are in
    that language wherever the notebook is opened, and the version of the course's kit (`kit.version`),
    so that the self-check says when it runs on another; and whose import of the kit says how to
    install it where it is missing."""
    guarded = (
        f"try:\n    {KIT_IMPORT}\nexcept ModuleNotFoundError:\n"
        f"    raise ModuleNotFoundError({label('notebook.no_kit', wheel=kit.wheel_name(root))!r}) from None"
    )
    call = f'checker("{assignment}")'
    named = f'checker("{assignment}", lang="{lang}", kit="{kit.version(root)}")'
    return body.replace(KIT_IMPORT, guarded).replace(call, named)


def check_source(name: str) -> str:
    """The test cell of one check: the visible self-check, then the hidden grading call."""
    return (
        f'check("{name}", {name})\n### BEGIN HIDDEN TESTS\ncheck("{name}", {name}, hidden=True)\n### END HIDDEN TESTS'
    )


#: The kinds of cell whose text an edition translates.
TEXT_KINDS = ("markdown", "written")


def template_cells(spec: Assignment, lang: str) -> list[tuple[str, list[str], str]]:
    """The template's cells in language `lang`: each markdown and written cell of `notebook.md` in
    English, or the translation under it (`%% <lang>`)."""
    cells, translations = [], []
    for kind, args, body in parse(spec.template.read_text(encoding="utf-8")):
        if kind in LANGUAGES:
            if not cells or cells[-1][0] not in TEXT_KINDS or len(translations[-1]) > LANGUAGES.index(kind) - 1 or args:
                raise ValueError(
                    f"{spec.template}: %% {kind} {' '.join(args)} must follow a %% markdown or %% written cell "
                    f"(or the translations before it, in the order {', '.join(LANGUAGES[1:])})"
                )
            translations[-1].append(body)
            continue
        if cells and cells[-1][0] in TEXT_KINDS and len(translations[-1]) != len(LANGUAGES) - 1:
            raise ValueError(
                f"{spec.template}: the %% {cells[-1][0]} {' '.join(cells[-1][1])} cell needs its translation "
                f"under it: {', '.join(f'%% {other}' for other in LANGUAGES[1:])}"
            )
        cells.append((kind, args, body))
        translations.append([])
    written = [args for kind, args, _ in cells if kind == "written"]
    if written != [[answer.name] for answer in spec.written]:
        raise ValueError(
            f"{spec.template}: its %% written cells {written} must be the spec's written answers "
            f"{[answer.name for answer in spec.written]}, in that order"
        )
    if lang == "en":
        return cells
    return [
        (kind, args, texts[LANGUAGES.index(lang) - 1]) if kind in TEXT_KINDS else (kind, args, body)
        for (kind, args, body), texts in zip(cells, translations)
    ]
    edition = spec.template.with_name(f"notebook.{lang}.md")
    texts = parse(edition.read_text(encoding="utf-8"))
    translated = [index for index, (kind, _, _) in enumerate(cells) if kind in TEXT_KINDS]
    if [(kind, args) for kind, args, _ in texts] != [cells[index][:2] for index in translated]:
        raise ValueError(
            f"{edition} must hold exactly {len(translated)} %% markdown and %% written cells, one per such cell of "
            f"{spec.template.name} in the same order (written cells with the same names); it holds "
            f"{[kind for kind, _, _ in texts]}"
        )
    for index, cell in zip(translated, texts):
        cells[index] = cell
    return cells


def rubric(spec: Assignment, name: str, lang: str) -> str:
    """The rubric of one written answer in language `lang`: the body of its `%% written` cell."""
    return next(body for kind, args, body in template_cells(spec, lang) if kind == "written" and args == [name])


def build_notebook(spec: Assignment, root: Path = config.REPO_ROOT) -> nbformat.NotebookNode:
    """The nbgrader source notebook of one assignment, in the course language."""
    assignment, settings = spec.name, config.load(root)
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
            cell = nbformat.v4.new_code_cell(expand_includes(body))
        elif kind in ("setup", "summary"):
            cell = nbformat.v4.new_code_cell(
                _with_edition(expand_includes(body), assignment, config.language(root), Path(root))
            )
            grade_id = SUMMARY if kind == "summary" else f"setup-{index}"
            cell.metadata["nbgrader"] = {
                **NBGRADER,
                "grade": False,
                "solution": False,
                "locked": True,
                "grade_id": grade_id,
            }
        elif kind == "solution":
            cell = nbformat.v4.new_code_cell(body)
            cell.metadata["nbgrader"] = {
                **NBGRADER,
                "grade": False,
                "solution": True,
                "locked": False,
                "grade_id": f"solution-{args[0]}",
            }
        elif kind == "check" and spec.check(args[0]).graded:
            (name,) = args
            cell = nbformat.v4.new_code_cell(check_source(name))
            cell.metadata["nbgrader"] = {
                **NBGRADER,
                "grade": True,
                "solution": False,
                "locked": True,
                "grade_id": name,
                "points": spec.points(name, settings.POINTS),
            }
        elif kind == "check":
            (name,) = args
            cell = nbformat.v4.new_code_cell(f'check("{name}", {name})')
            cell.metadata["nbgrader"] = {
                **NBGRADER,
                "grade": False,
                "solution": False,
                "locked": True,
                "grade_id": f"selfcheck-{name}",
            }
        elif kind == "written":
            (name,) = args
            cell = nbformat.v4.new_markdown_cell(body)
            cell.metadata["nbgrader"] = {
                **NBGRADER,
                "grade": True,
                "solution": True,
                "locked": False,
                "grade_id": name,
                "points": spec.points(name, settings.POINTS),
            }
        else:
            raise ValueError(f"{assignment}: unknown cell kind {kind!r}")
        cell.id = f"{kind}-{index:02d}"
        notebook.cells.append(cell)
    return notebook


def notebook_text(notebook: nbformat.NotebookNode) -> str:
    """The notebook as committed: stable JSON with a final newline."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def solution_text(spec: Assignment) -> str:
    """`solutions/<assignment>.py`: the reference solution as an importable module, built from the
    template (the notebook's setup and its solution cells, `autograder.vocabulary.template.module_text`)."""
    return (
        f'"""Reference solution of {spec.name}: built by `release` from autograder/assignments/{spec.name}/notebook.md '
        f'(edit that file), its setup and solution cells."""\n' + template.module_text(spec.template)
    )


def write_source(spec: Assignment, root: Path = config.REPO_ROOT) -> Path:
    """Write `source/<assignment>/<assignment>.ipynb`, and beside it the data files it names and the
    students' README (how to install the kit, work and hand in), which nbgrader releases with it; and
    the reference solution as a module, `solutions/<assignment>.py` (`solution_text`)."""
    assignment = spec.name
    folder = Course(Path(root)).source(assignment)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{assignment}.ipynb"
    text = notebook_text(build_notebook(spec, root))
    path.write_text(text, encoding="utf-8")
    for data in config.DATA_DIR.glob("*.json"):
        if data.name in text:
            shutil.copyfile(data, folder / data.name)  # its mode the umask's: the course's copy is private
    (folder / "README.md").write_text(
        label("student.readme", assignment=assignment, wheel=kit.wheel_name(root)), encoding="utf-8"
    )
    solutions = Path(root) / "solutions"
    solutions.mkdir(exist_ok=True)
    (solutions / "__init__.py").touch()
    (solutions / f"{assignment}.py").write_text(solution_text(spec), encoding="utf-8")
    return path
