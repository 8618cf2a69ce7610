"""The shared contract of every assignment, proved once here, through real nbgrader on the shared
graded classes of both languages (tests/conftest.py: `graded_class`, and `graded_class_zh` whose
course speaks Chinese): the reference earns full marks, the untouched stub zero, each catalogued
mistake (in the Chinese class, the first of each check) loses points on its own check (and only on
the checks it can reach, or those of the mistakes handed in with it) and is named there, in the
course's language; and the release holds no solution, no hidden test and nothing of the grader.
Its fast twin, in-process and without nbgrader, is tests/grading/test_catalogue.py."""

import json
import re

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring import build
from autograder.authoring.submissions import filled
from rnnkit import messages

from .classroom import mutants, one_mistake_per_check
from .conftest import ASSIGNMENTS, REPO

pytestmark = pytest.mark.nbgrader

GRADED_MISTAKES = [(a, m.id) for a in ASSIGNMENTS for m in get(a).mistakes() if get(a).check(m.function).graded]
#: The Chinese class's mistakes (tests/classroom.py `one_mistake_per_check`).
GRADED_MISTAKES_ZH = [(a, m) for a, m in GRADED_MISTAKES if m in one_mistake_per_check(a)]


def _flat(text: str) -> str:
    """Text without whitespace (wrapping may break a line at a space or between CJK characters)."""
    return re.sub(r"\s+", "", text)


def _grade_texts(graded, assignment: str, student: str) -> dict[str, str]:
    """grade id -> what the grader printed in that cell of the autograded notebook."""
    notebook = nbformat.read(graded.root / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)
    return {
        cell.metadata.nbgrader.grade_id: "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id")
    }


def _full_marks_and_zero(graded, assignment: str, lang: str, monkeypatch) -> None:
    """Full marks on every autograded cell; the written answers wait for a TA, worth their points; the
    stub's every check says, in `lang`, that it is still the stub."""
    reference, stub = graded.rows(assignment, "reference"), graded.rows(assignment, "stub")
    written = {answer.name: answer.points for answer in get(assignment).written}
    auto = {name: row for name, row in reference.items() if name not in written}
    assert auto and all(row.score == row.max_score and not row.needs_manual for row in auto.values()), {
        k: r.score for k, r in auto.items()
    }
    assert {name: (row.max_score, row.needs_manual) for name, row in reference.items() if name in written} == {
        name: (points, True) for name, points in written.items()
    }
    assert set(stub) == set(reference) and all(row.score == 0 for row in stub.values())
    monkeypatch.setenv("COURSE_LANG", lang)
    texts = _grade_texts(graded, assignment, "stub")
    for name in auto:
        assert _flat(messages.text("check.not_implemented", name=name)) in _flat(texts[name]), name
    assert messages.text("notebook.summary", right=0, total=len(auto)) in texts[build.SUMMARY]


def _caught_on_its_check_only(graded, assignment: str, mistake: str, lang: str, monkeypatch) -> None:
    """The mistake's own check loses points and names it, in `lang`; no check it cannot reach loses
    any, but those fed by the other mistakes handed in with it (`tests.classroom.Mutants`)."""
    entry = next(m for m in get(assignment).mistakes() if m.id == mistake)
    pack = graded.holder(assignment, mistake)
    rows = graded.rows(assignment, pack.student)
    own = rows[entry.function]
    assert own.score < own.max_score
    assert mistake in own.misconceptions, own.misconceptions
    theirs = pack.others(mistake)
    assert entry.function not in theirs
    untouched = {
        name: row.score
        for name, row in rows.items()
        if name not in entry.checks and name not in theirs and row.score != row.max_score and not row.needs_manual
    }
    assert not untouched, f"points lost outside the checks it can affect: {untouched}"
    monkeypatch.setenv("COURSE_LANG", lang)
    assert _flat(messages.text(f"mistake.{mistake}")) in _flat(
        _grade_texts(graded, assignment, pack.student)[entry.function]
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_earns_full_marks_and_the_stub_zero(graded_class, assignment, monkeypatch):
    _full_marks_and_zero(graded_class, assignment, "en", monkeypatch)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_earns_full_marks_and_the_stub_zero_in_chinese(graded_class_zh, assignment, monkeypatch):
    _full_marks_and_zero(graded_class_zh, assignment, "zh", monkeypatch)


@pytest.mark.parametrize("assignment, mistake", GRADED_MISTAKES)
def test_each_mistake_loses_points_on_its_check_only_and_is_named(graded_class, assignment, mistake, monkeypatch):
    _caught_on_its_check_only(graded_class, assignment, mistake, "en", monkeypatch)


@pytest.mark.parametrize("assignment, mistake", GRADED_MISTAKES_ZH)
def test_a_mistake_of_each_check_loses_points_on_its_check_only_and_is_named_in_chinese(
    graded_class_zh, assignment, mistake, monkeypatch
):
    _caught_on_its_check_only(graded_class_zh, assignment, mistake, "zh", monkeypatch)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_release_holds_no_solution_hidden_test_or_grader(assignment):
    notebook = (REPO / "release" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
    for marker in (
        "BEGIN SOLUTION",
        "END SOLUTION",
        "BEGIN HIDDEN TESTS",
        "hidden=True",
        "autograder",
        "solutions",
        "sympy",
    ):
        assert marker not in notebook, marker
    assert "from rnnkit import checker" in notebook
    cells = json.loads(notebook)["cells"]
    assert any(cell.get("metadata", {}).get("nbgrader", {}).get("grade") for cell in cells)
    kit = "".join(path.read_text(encoding="utf-8") for path in (REPO / "kit" / "rnnkit" / "public").glob("*.json"))
    source = nbformat.read(REPO / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    answers = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in source.cells
        if cell.cell_type == "markdown" and "nbgrader" in cell.metadata
    }
    for answer in get(assignment).written:  # the rubric (the book's answer) is in the source only
        assert answers[answer.name] == build.rubric(get(assignment), answer.name, "en")
        for lang in ("en", "zh"):
            start = build.rubric(get(assignment), answer.name, lang)[:30]
            for form in (json.dumps(start, ensure_ascii=False)[1:-1], json.dumps(start)[1:-1]):
                assert form not in notebook and form not in kit, (answer.name, lang)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_mutants_hand_in_each_mistake_once_in_place_of_its_function_and_no_check_is_fed_by_two(assignment):
    release = REPO / "release" / assignment / f"{assignment}.ipynb"
    for sample, chosen in (
        (False, [m.id for m in get(assignment).mistakes()]),
        (True, one_mistake_per_check(assignment)),
    ):
        packs = mutants(assignment, sample)
        assert sorted(m.id for pack in packs for m in pack.mistakes) == sorted(chosen)
        assert len({pack.student for pack in packs}) == len(packs)
        for pack in packs:
            fed = [check for m in pack.mistakes for check in m.checks]
            assert len(fed) == len(set(fed)), pack.student
    pack = max(mutants(assignment), key=lambda pack: len(pack.mistakes))
    code = "\n".join(
        cell.source for cell in filled(release, get(assignment), *pack.mistakes).cells if cell.cell_type == "code"
    )
    assert all(m.source() in code for m in pack.mistakes)
    one, other = next(
        (a, b)
        for a in get(assignment).mistakes()
        for b in get(assignment).mistakes()
        if a.function == b.function and a != b
    )
    with pytest.raises(ValueError, match="two mistakes replace one function"):
        filled(release, get(assignment), one, other)
