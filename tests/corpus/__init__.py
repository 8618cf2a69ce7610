"""A corpus of student answers: correct variants, which must earn every point, and plausible mistakes,
which must lose points and be named rightly or not at all ("Correct work earns its points").

Written independently of the catalogue (the mistakes of `autograder/assignments/*/checks.py`), in the styles real
students use: loops or vectorised numpy, arrays, lists or tuples, Fractions, SymPy Rationals or floats
where allowed, namedtuples, `typing.NamedTuple`, `OrderedDict` and `defaultdict` results, numpy scalars,
helpers defined in the same cell, recursion, comprehensions, other functions of the notebook.

Each `Entry` replaces one function of the reference-filled release notebook
(`autograder.authoring.submissions.filled`) with its own source; its name is
`corpus-<assignment short>-<entry id>`. Entries that cannot touch each other's checks are graded
together, in one submission (a `Pack`, whose student id is `corpus-<assignment short>-pack-<n>`):
no check is fed by two of them, and none defines or uses a name another defines. A mistake names
the catalogued misconception it should be named as (`expected`: the grader names it on every
attempt), or None when none fits: then the grader must name nothing. `hidden_only`
marks a mistake the public cases cannot show (the self-check passes it; hidden cases or probes catch it).

`write_all(root)` writes one submission per pack into a course root whose assignments are released;
`verdicts(...)` and `summary(...)` count and describe what the grader made of the entries.
"""

from __future__ import annotations

import ast
import functools
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import nbformat

#: The student id's middle part for each assignment.
SHORT = {"ch11_rnn_state": "ch11", "ch12_bptt": "bptt", "ch12_gates": "gates", "ch12_boundaries": "bound"}
KINDS = ("variant", "mistake")


@dataclass(frozen=True)
class Entry:
    """One corpus submission: `source` replaces the definition of `function` in the notebook cell
    that defines it (it may define helpers and import modules before the function)."""

    assignment: str
    function: str
    kind: str
    id: str
    source: str
    #: for a mistake, the catalogued misconception id it should be named as (None: none fits, so the
    #: grader must name nothing on its check)
    expected: str | None = None
    #: a mistake that every public case misses (caught by hidden cases or probes only)
    hidden_only: bool = False
    #: the style of a variant, or the misconception of a mistake, in a few words
    why: str = ""

    @property
    def name(self) -> str:
        return f"corpus-{SHORT[self.assignment]}-{self.id}"

    @property
    def label(self) -> str:
        return f"{self.assignment}/{self.function}/{self.kind}/{self.id}"


def variant(assignment: str, function: str, id: str, source: str, why: str = "") -> Entry:
    return Entry(assignment, function, "variant", id, _clean(source), why=why)


def mistake(
    assignment: str, function: str, id: str, source: str, expected: str | None, why: str = "", hidden_only: bool = False
) -> Entry:
    return Entry(assignment, function, "mistake", id, _clean(source), expected, hidden_only, why)


def _clean(source: str) -> str:
    import textwrap

    return textwrap.dedent(source).strip("\n") + "\n"


def _entries() -> list[Entry]:
    from . import ch11_rnn_state, ch12_boundaries, ch12_bptt, ch12_gates

    found = [*ch11_rnn_state.ENTRIES, *ch12_bptt.ENTRIES, *ch12_gates.ENTRIES, *ch12_boundaries.ENTRIES]
    names = Counter(entry.name for entry in found)
    doubled = [name for name, count in names.items() if count > 1]
    assert not doubled, f"corpus ids used twice: {doubled}"
    for entry in found:
        assert entry.kind in KINDS, entry
        assert entry.kind == "mistake" or (entry.expected is None and not entry.hidden_only), entry
        assert all(c.isascii() and (c.isalnum() or c == "-") for c in entry.name), entry.name
        assert entry.function in _defined(entry.source), f"{entry.label} does not define {entry.function}"
    return found


def _defined(source: str) -> list[str]:
    return [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]


ENTRIES: list[Entry] = _entries()


def entries(assignments: Iterable[str] | None = None) -> list[Entry]:
    """The entries of `assignments` (all when None), in corpus order."""
    wanted = None if assignments is None else set(assignments)
    return [entry for entry in ENTRIES if wanted is None or entry.assignment in wanted]


# ----------------------------------------------------------------------------- building submissions


def replace_definition(cell_source: str, name: str, source: str) -> str:
    """`cell_source` with the top-level definition of `name` (decorators included) replaced by `source`."""
    lines = cell_source.splitlines()
    for node in ast.parse(cell_source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            return "\n".join([*lines[:start], *source.rstrip("\n").splitlines(), *lines[node.end_lineno :]])
    raise LookupError(f"no definition of {name} in the cell")


def notebook(release_notebook: Path, *chosen: Entry) -> nbformat.NotebookNode:
    """The released notebook answered by the reference solution, each entry's function by its source
    (entries of one assignment)."""
    from autograder.assignments import get
    from autograder.authoring.submissions import filled

    filled_notebook = filled(Path(release_notebook), get(chosen[0].assignment))
    for entry in chosen:
        cells = [
            cell
            for cell in filled_notebook.cells
            if cell.cell_type == "code"
            and cell.metadata.get("nbgrader", {}).get("solution")
            and entry.function in _defined(cell.source)
        ]
        if len(cells) != 1:
            raise LookupError(f"{entry.label}: {len(cells)} solution cells define {entry.function}")
        cells[0].source = replace_definition(cells[0].source, entry.function, entry.source)
    return filled_notebook


@dataclass(frozen=True)
class Pack:
    """Entries of one assignment graded in one submission, the `number`th of its assignment."""

    assignment: str
    number: int
    entries: tuple[Entry, ...]

    @property
    def student(self) -> str:
        return f"corpus-{SHORT[self.assignment]}-pack-{self.number}"


def _names(source: str) -> tuple[set[str], dict[str, str], set[str]]:
    """What a source binds at its top level (definitions and assignments), what it imports (name ->
    the import statement) and every name it uses."""
    tree = ast.parse(source)
    bound: set[str] = set()
    imports: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.update({(alias.asname or alias.name).split(".")[0]: ast.dump(node) for alias in node.names})
        else:
            bound |= {
                target.id
                for target in ast.walk(node)
                if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)
            }
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return bound, imports, used


def _apart(a: Entry, b: Entry) -> bool:
    """Whether two entries can share a submission: no check fed by both, and neither binds a name
    the other binds, imports otherwise or uses."""
    if fed_checks(a) & fed_checks(b):
        return False
    (bound_a, imports_a, used_a), (bound_b, imports_b, used_b) = _names(a.source), _names(b.source)
    same_imports = {name for name in imports_a.keys() & imports_b.keys() if imports_a[name] == imports_b[name]}
    return not (
        bound_a & (bound_b | used_b | imports_b.keys())
        or bound_b & (used_a | imports_a.keys())
        or (imports_a.keys() & imports_b.keys()) - same_imports
    )


def first_fit(items: Iterable, apart: Callable[[object, object], bool]) -> list[list]:
    """`items` in groups: each, in order, joins the first group it stands `apart` from every member
    of, else starts one."""
    groups: list[list] = []
    for item in items:
        home = next((members for members in groups if all(apart(item, other) for other in members)), None)
        if home is None:
            groups.append(home := [])
        home.append(item)
    return groups


@functools.cache
def _packs() -> dict[str, Pack]:
    """Entry name -> its pack: the entries of each assignment, in corpus order, packed by `first_fit`
    on `_apart`."""
    assignments = dict.fromkeys(entry.assignment for entry in ENTRIES)
    return {
        entry.name: pack
        for assignment in assignments
        for number, members in enumerate(first_fit((e for e in ENTRIES if e.assignment == assignment), _apart), 1)
        for pack in [Pack(assignment, number, tuple(members))]
        for entry in members
    }


def assignments_under_test(root: Path) -> list[str]:
    """The course's assignments (course_config.py of `root`) that are released there, narrowed by
    TEST_ASSIGNMENTS as tests/conftest.py narrows them."""
    from autograder.coursedir import config

    narrowed = os.environ.get("TEST_ASSIGNMENTS")
    return [
        name
        for name in config.load(Path(root)).ASSIGNMENTS
        if (narrowed is None or name in narrowed.split(","))
        and (Path(root) / "release" / name / f"{name}.ipynb").is_file()
    ]


def pack_of(entry: Entry) -> Pack:
    return _packs()[entry.name]


def packs(assignments: Iterable[str] | None = None) -> list[Pack]:
    """The packs of `assignments` (all when None), in corpus order."""
    return list({pack.student: pack for pack in map(pack_of, entries(assignments))}.values())


def write_all(root: Path, assignments: Iterable[str] | None = None) -> dict[str, Pack]:
    """Write one submission per pack of `assignments` (default: `assignments_under_test`) into course
    root `root`. Returns student -> pack."""
    from autograder.authoring.submissions import write_submission

    root = Path(root)
    written = {}
    for pack in packs(assignments_under_test(root) if assignments is None else list(assignments)):
        release = root / "release" / pack.assignment / f"{pack.assignment}.ipynb"
        write_submission(root, pack.student, pack.assignment, notebook(release, *pack.entries))
        written[pack.student] = pack
    return written


# ----------------------------------------------------------------------------- the self-check, in process


def selfchecks(entry: Entry, release_notebook: Path | None = None) -> dict:
    """The kit's self-check of every check of the entry's notebook, run as a student runs the
    notebook top to bottom (without its table and plot cells): the setup and solution cells are
    executed in order in one namespace, and at each grade cell the function of that name, as it
    stands there, is self-checked (`rnnkit.selfcheck.selfcheck`). Returns check -> Report."""
    from autograder.coursedir.config import REPO_ROOT
    from rnnkit.selfcheck import selfcheck

    release_notebook = release_notebook or REPO_ROOT / "release" / entry.assignment / f"{entry.assignment}.ipynb"
    space: dict = {"__name__": f"corpus_{entry.name.replace('-', '_')}"}
    reports = {}
    for index, cell in enumerate(notebook(release_notebook, entry).cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        if meta.get("grade") or str(meta.get("grade_id", "")).startswith("selfcheck-"):
            name = meta["grade_id"].removeprefix("selfcheck-")
            reports[name] = selfcheck(entry.assignment, name, space.get(name))
        elif meta.get("solution") or str(meta.get("grade_id", "")).startswith("setup"):
            exec(compile(cell.source, f"<{entry.name} cell {index}>", "exec"), space)
    return reports


# ----------------------------------------------------------------------------- verdicts


def fed_checks(entry: Entry) -> set[str]:
    """The checks the entry's function can change: its own and those of its (indirect) callers in
    the reference solution."""
    from autograder.assignments import get
    from autograder.vocabulary import catalogue

    return {entry.function, *catalogue.callers(get(entry.assignment).template, entry.function)}


@dataclass(frozen=True)
class Verdict:
    """What the grader made of one entry.

    variant: "right" (full marks on every check) or "refused" (points lost somewhere, listed in
    `detail`). mistake: "missed" (no point lost on its check), else "named rightly" (exactly the
    expected id), "not named" (nothing named) or "named wrongly" (anything else); `collateral` lists
    checks the mistake's function does not feed that lost points anyway."""

    entry: Entry
    outcome: str
    detail: str = ""
    collateral: tuple[str, ...] = ()

    @property
    def good(self) -> bool:
        return self.outcome in ("right", "named rightly", "not named") and not self.collateral


def _describe(row) -> str:
    text = f"{row.grade_id} {row.score:g}/{row.max_score:g}"
    if row.misconceptions:
        text += f" named {row.misconceptions}"
    failed = [case for case in row.cases if not case.ok]
    if failed:
        text += f"; {len(failed)}/{len(row.cases)} cases failed: " + ", ".join(
            case.label + (f" [{case.misconception}]" if case.misconception else "") for case in failed[:4]
        )
    return text


def report_text(root: Path, entry: Entry, grade_id: str) -> str:
    """The grader's report in the grade cell `grade_id` of the entry's autograded notebook."""
    path = Path(root) / "autograded" / pack_of(entry).student / entry.assignment / f"{entry.assignment}.ipynb"
    if not path.is_file():
        return ""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            parts = []
            for output in cell.get("outputs", []):
                parts.append(output.get("text", "") or output.get("data", {}).get("text/plain", ""))
            return "\n".join(parts).strip()
    return ""


def verdict(entry: Entry, rows: dict) -> Verdict:
    """The verdict on one entry from the autograded rows of its pack (grade id -> classdata.Row; a
    written answer, left to a TA, is no part of it). The checks fed by the pack's other mistakes are
    theirs; a point lost on any other check counts against the entry."""
    others = set().union(
        *(fed_checks(other) for other in pack_of(entry).entries if other != entry and other.kind == "mistake")
    )
    rows = {grade_id: row for grade_id, row in rows.items() if not row.needs_manual and grade_id not in others}
    if not rows:
        return Verdict(
            entry, "refused" if entry.kind == "variant" else "missed", "not graded (no rows in the gradebook)"
        )
    if entry.kind == "variant":
        lost = [row for row in rows.values() if row.score < row.max_score]
        return Verdict(entry, "refused" if lost else "right", "; ".join(_describe(row) for row in lost))
    own = rows.get(entry.function)
    collateral = tuple(
        sorted(
            f"{row.grade_id} {row.score:g}/{row.max_score:g}"
            for grade_id, row in rows.items()
            if grade_id not in fed_checks(entry) and row.score < row.max_score
        )
    )
    if own is None or own.score >= own.max_score:
        return Verdict(entry, "missed", _describe(own) if own else "no row for its check", collateral)
    named = list(own.misconceptions)
    if not named:
        outcome = "not named"
    elif entry.expected is not None and named == [entry.expected]:
        outcome = "named rightly"
    else:
        outcome = "named wrongly"
    return Verdict(entry, outcome, _describe(own), collateral)


def verdicts(rows_of: Callable[[Pack], dict], chosen: Iterable[Entry] | None = None) -> list[Verdict]:
    """The verdict on every chosen entry; `rows_of(pack)` gives the graded rows of its pack ({} if none)."""
    return [verdict(entry, rows_of(pack_of(entry)) or {}) for entry in (ENTRIES if chosen is None else chosen)]


def counts(found: list[Verdict]) -> dict[str, int]:
    variants = [v for v in found if v.entry.kind == "variant"]
    mistakes = [v for v in found if v.entry.kind == "mistake"]
    return {
        "variants": len(variants),
        "variants right": sum(v.outcome == "right" for v in variants),
        "mistakes": len(mistakes),
        "mistakes caught": sum(v.outcome != "missed" for v in mistakes),
        "named rightly": sum(v.outcome == "named rightly" for v in mistakes),
        "not named": sum(v.outcome == "not named" for v in mistakes),
        "not named (a catalogued id was expected)": sum(
            v.outcome == "not named" and v.entry.expected is not None for v in mistakes
        ),
        "named wrongly": sum(v.outcome == "named wrongly" for v in mistakes),
        "collateral losses": sum(bool(v.collateral) for v in mistakes),
    }


def summary(found: list[Verdict]) -> str:
    """The verdict counts, then one line per entry that is not as it should be."""
    c = counts(found)
    head = (
        f"corpus: {c['variants right']}/{c['variants']} variants right; {c['mistakes caught']}/{c['mistakes']} mistakes caught: "
        f"{c['named rightly']} named rightly, {c['not named']} not named "
        f"({c['not named (a catalogued id was expected)']} of them with a catalogued id expected), "
        f"{c['named wrongly']} named wrongly; {c['collateral losses']} with points lost on checks their function does not feed"
    )
    lines = [head]
    for v in found:
        if v.outcome == "not named" and v.entry.expected is not None:
            lines.append(
                f"  note, not named although {v.entry.expected} fits: {v.entry.label} [{v.entry.name}]: {v.detail}"
            )
        if not v.good:
            expected = f" (expected {v.entry.expected})" if v.entry.kind == "mistake" else ""
            lines.append(
                f"  {v.outcome.upper()}: {v.entry.label} [{v.entry.name}]{expected}: {v.detail}"
                + (f"; collateral: {', '.join(v.collateral)}" if v.collateral else "")
            )
    return "\n".join(lines)


def per_assignment() -> dict[str, tuple[int, int]]:
    """assignment -> (variants, mistakes) in the corpus."""
    out: dict[str, list[int]] = {}
    for entry in ENTRIES:
        out.setdefault(entry.assignment, [0, 0])[entry.kind == "mistake"] += 1
    return {name: (v, m) for name, (v, m) in out.items()}
