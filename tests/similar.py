"""Independent work and planted copies of ch12_bptt, for the similarity tests
(`autograder.reporting.similarity`).

An *independent* student answers every function with one of its correct implementations (the
reference solution or a variant of `tests/corpus/`): student i takes implementation i modulo how many
the function has, so no two of them hand in the same notebook. A *copy* starts from the first
independent student's notebook and disguises it: identifiers renamed and comments dropped, cells
merged with their functions reordered, comments changed. The *hard-coded* copy returns, from
`bptt_scalar`, the expected value of another independent student's hidden case, as a student would
type it from that student's feedback (`write_hard_coded`).
"""

from __future__ import annotations

import ast
import builtins
import io
import tokenize
from fractions import Fraction
from pathlib import Path

import nbformat

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.grading.result import stored

from . import corpus

ASSIGNMENT = "ch12_bptt"
INDEPENDENT = [f"similar-{i}" for i in range(1, 6)]
SOURCE = INDEPENDENT[0]
COPIES = {
    "similar-copy-renamed": "identifiers renamed, comments dropped",
    "similar-copy-merged": "cells merged, their functions reordered",
    "similar-copy-comments": "comments changed",
}
HARD_CODED, HARD_CODED_CHECK, HARD_CODED_FROM = "similar-copy-hard-coded", "bptt_scalar", INDEPENDENT[1]


def _release(root: Path) -> Path:
    return Path(root) / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def _solution_cells(notebook) -> list:
    return [
        cell
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")
    ]


def answered(notebook, assignment: str, choose) -> nbformat.NotebookNode:
    """`notebook` (reference-filled) with each function that has corpus variants answered by
    implementation `choose(n)` of its n + 1 (0: the reference, i: the i-th variant)."""
    variants: dict[str, list[str]] = {}
    for entry in corpus.entries([assignment]):
        if entry.kind == "variant":
            variants.setdefault(entry.function, []).append(entry.source)
    for function, sources in variants.items():
        choice = choose(len(sources) + 1)
        cell = next((c for c in _solution_cells(notebook) if function in corpus._defined(c.source)), None)
        if choice and cell is not None:
            cell.source = corpus.replace_definition(cell.source, function, sources[choice - 1])
    return notebook


def independent(root: Path, index: int) -> nbformat.NotebookNode:
    """The notebook of independent student `index` (1 for `INDEPENDENT[0]`): implementation `index`
    modulo how many a function has."""
    return answered(filled(_release(root), get(ASSIGNMENT)), ASSIGNMENT, lambda n: index % n)


def disguised(notebook) -> nbformat.NotebookNode:
    """`notebook` with the local variables of its solution cells renamed and their comments dropped."""
    for cell in _solution_cells(notebook):
        cell.source = ast.unparse(_Renamer().visit(ast.parse(cell.source)))
    return notebook


class _Renamer(ast.NodeTransformer):
    """Renames the local variables of every function (not its parameters, which a check may pass by
    name, nor any global)."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        params = {
            a.arg
            for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg)
            if a
        }
        stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        inner = {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef) and n is not node}
        names = {name: f"my_{name}_value" for name in sorted(stored - params - inner - set(dir(builtins)))}
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and child.id in names:
                child.id = names[child.id]
        self.generic_visit(node)
        return node


def _without_comments(source: str) -> str:
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
    return tokenize.untokenize(tokens)


def copies(root: Path) -> dict[str, nbformat.NotebookNode]:
    """The disguised copies of the first independent student (`COPIES`)."""
    made = {"similar-copy-renamed": disguised(independent(root, 1))}
    merged = independent(root, 1)
    cells = _solution_cells(merged)
    for first, second in zip(cells[0::2], cells[1::2]):  # the later cell's functions first, in the earlier cell
        first.source, second.source = second.source + "\n\n\n" + first.source, "# (moved up)\n"
    made["similar-copy-merged"] = merged
    commented = independent(root, 1)
    for cell in _solution_cells(commented):
        lines = _without_comments(cell.source).splitlines()
        cell.source = "\n".join(
            f"{line}  # my own working" if line.strip().startswith("return") else line for line in lines
        )
    made["similar-copy-comments"] = commented
    return made


def write_all(root: Path) -> dict[str, str]:
    """Write the independent students and the copies (the hard-coded one last); student ->
    "independent" or "copy"."""
    kinds = {}
    for index, student in enumerate(INDEPENDENT, 1):
        write_submission(root, student, ASSIGNMENT, independent(root, index))
        kinds[student] = "independent"
    for student, notebook in copies(root).items():
        write_submission(root, student, ASSIGNMENT, notebook)
        kinds[student] = "copy"
    kinds[write_hard_coded(root)] = "copy"
    return kinds


def _exact(value):
    """A stored value as the exact numbers a student types from a feedback page."""
    if isinstance(value, dict):
        return {key: _exact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_exact(item) for item in value]
    return Fraction(value).limit_denominator(10**12) if isinstance(value, float) else value


def hard_coded_value(root: Path) -> tuple[str, dict]:
    """The label and expected value of `HARD_CODED_FROM`'s first ordinary hidden case of
    `HARD_CODED_CHECK`, as grading will draw it: the course secret, that student's first attempt and
    the ledger's digest of what they hand in (`autograder.grading.attempts`), and the class's
    `HIDDEN_CASES`."""
    from autograder.coursedir import config
    from autograder.coursedir.ledger import digest, handed_in
    from autograder.grading.attempts import Attempt, read_secret
    from autograder.grading.checks import hidden_draws

    spec = get(ASSIGNMENT)
    attempt = Attempt(
        read_secret(root),
        HARD_CODED_FROM,
        1,
        digest(handed_in(Path(root) / "submitted" / HARD_CODED_FROM / ASSIGNMENT)),
    )
    draws = hidden_draws(spec, spec.check(HARD_CODED_CHECK), attempt, config.load(root).HIDDEN_CASES)
    draw = next(d for d in draws if not d.branch)
    return draw.case.label, stored(draw.expected)


def write_hard_coded(root: Path) -> str:
    """Write the copy whose `bptt_scalar` returns another student's expected value (after the
    independent students are written); its student id."""
    _, value = hard_coded_value(root)
    notebook = independent(root, 1)
    cell = next(c for c in _solution_cells(notebook) if HARD_CODED_CHECK in corpus._defined(c.source))
    cell.source = corpus.replace_definition(
        cell.source,
        HARD_CODED_CHECK,
        "from fractions import Fraction\n\n\n"
        f"def {HARD_CODED_CHECK}(xs, w, target, h0=0):\n    return {_exact(value)!r}\n",
    )
    write_submission(root, HARD_CODED, ASSIGNMENT, notebook)
    return HARD_CODED
