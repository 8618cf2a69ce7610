"""Answer similarity (`autograder.reporting.similarity`): on the shared graded class, independent
correct submissions and planted copies (`tests/similar.py`), and the value flag of the copy that
hard-codes another student's hidden value; the command's files; a hostile student's code and id
shown as written."""

from __future__ import annotations

import ast
import csv
import itertools
import json
import os
import subprocess
import sys

import pytest

from autograder.coursedir.layout import Course
from autograder.grading.result import CaseOutcome
from autograder.reporting import classdata
from autograder.reporting.classdata import ClassData, Row
from autograder.reporting.similarity import (
    CODE_CHARS,
    FLOOR,
    MIN_MATCHES,
    Flag,
    Pair,
    Similarity,
    analyse,
    code_cells,
    fingerprints,
    flags,
    pairs,
    public_answers,
    released_cells,
)
from autograder.reporting.similarity_page import render

from .. import similar
from ..conftest import ASSIGNMENTS, REPO, make_course

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(
        similar.ASSIGNMENT not in ASSIGNMENTS, reason=f"TEST_ASSIGNMENTS leaves out {similar.ASSIGNMENT}"
    ),
]
A = similar.ASSIGNMENT
PLANTED = [*similar.COPIES, similar.HARD_CODED]


def _codes(root, students):
    """Each student's code as the page reads it: what they wrote, a stub left as released left out."""
    course = Course(root)
    released = released_cells(course.notebook(course.release(A), A))
    return {
        s: code_cells(course.notebook(course.autograded(s, A), A), written=True, released=released) for s in students
    }


def _one_function_written(tmp_path, index: int, move_comments: bool = False) -> str:
    """The code of a student who wrote the `index`-th solution cell of the committed release (the
    reference's function) and left every other stub as released, its comment lines moved to the end
    with `move_comments`."""
    release = REPO / "release" / A / f"{A}.ipynb"
    notebook = json.loads(release.read_text(encoding="utf-8"))
    solutions = [
        c for c in notebook["cells"] if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("solution")
    ]
    reference = ast.parse(source := (REPO / "solutions" / f"{A}.py").read_text(encoding="utf-8"))
    functions = {n.name: ast.get_source_segment(source, n) for n in reference.body if isinstance(n, ast.FunctionDef)}
    for number, cell in enumerate(solutions):
        text = "".join(cell["source"])
        if number == index:
            cell["source"] = functions[text.split("def ", 1)[1].split("(", 1)[0]]
        elif move_comments:
            lines = text.splitlines()
            cell["source"] = "\n".join(
                [
                    *(x for x in lines if not x.lstrip().startswith("#")),
                    *(x for x in lines if x.lstrip().startswith("#")),
                ]
            )
    path = tmp_path / f"student-{index}-{move_comments}.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return code_cells(path, written=True, released=released_cells(release))


def test_students_who_each_wrote_one_function_and_left_the_other_stubs_are_not_similar(tmp_path):
    """The released stubs, handed in untouched or with their comment lines moved, are nobody's code:
    two students who wrote different functions share nothing (they scored 0.80 before, above every
    independent pair of complete solutions)."""
    codes = {f"s{i}": _one_function_written(tmp_path, i, move_comments=i == 2) for i in range(4)}
    assert all(codes.values())  # each one's own function is read
    assert pairs(fingerprints(codes, code_cells(REPO / "release" / A / f"{A}.ipynb")), floor=0) == []


def test_every_planted_copy_ranks_above_every_independent_pair(graded_class):
    root = graded_class.root
    given = code_cells(Course(root).notebook(Course(root).release(A), A))
    scores = {
        (p.student_a, p.student_b): p.score
        for p in pairs(fingerprints(_codes(root, similar.INDEPENDENT + PLANTED), given), floor=0)
    }
    score = lambda a, b: scores.get(tuple(sorted((a, b))), 0.0)  # noqa: E731
    copied = {copy: score(copy, similar.SOURCE) for copy in PLANTED}
    family = {similar.SOURCE, *PLANTED}  # the source and its copies: every pair among them is copied work
    independent = {
        (a, b): score(a, b) for a, b in itertools.combinations(similar.INDEPENDENT + PLANTED, 2) if not {a, b} <= family
    }
    assert min(copied.values()) > max(independent.values()), (
        copied,
        sorted(independent.items(), key=lambda kv: -kv[1])[:5],
    )
    assert min(copied.values()) >= 0.75 and max(independent.values()) < 0.75, (copied, max(independent.values()))


def test_the_value_flag_finds_the_hard_coded_copy_and_nothing_else_in_the_class(graded_class):
    data = classdata.load(graded_class.root, values_of=A)
    found = flags(data, A)
    assert not flags(classdata.load(graded_class.root), A)  # the values are read only where asked for
    label, _ = similar.hard_coded_value(graded_class.root)
    assert found and {(f.student, f.check, f.matches_student, f.other_case) for f in found} == {
        (similar.HARD_CODED, similar.HARD_CODED_CHECK, similar.HARD_CODED_FROM, label)
    }
    assert len(found) >= MIN_MATCHES
    row = graded_class.rows(A, similar.HARD_CODED)[similar.HARD_CODED_CHECK]
    assert {f.case for f in found} == {case.label for case in row.cases if not case.public and not case.ok}
    graded = {outcome.student for outcome in graded_class.outcomes if outcome.assignment == A and outcome.ok}
    assert {
        s.student for s in data.graded(A)
    } == graded  # the whole class was looked at: corpus, mutants, hostile submissions


def test_a_public_answer_returned_for_every_case_is_never_a_classmates_value():
    """A function that returns a public case's answer for every case (the kit gives it to everyone)
    is not flagged when one classmate's hidden case happens to be that value; the same function
    returning a value only that classmate's case has is."""
    check = "finite_difference_grad"
    public = public_answers(A, check)[0]
    hidden = lambda student, label, value: CaseOutcome(label, False, True, expected=value)  # noqa: E731

    def wrong_every_time(value):
        return [CaseOutcome(f"hidden case {i}", False, False, expected=0.125 * i, got=value) for i in (1, 2, 3)]

    def found(value):
        rows = [
            Row("constant", A, check, 0.0, 1.0, cases=wrong_every_time(value)),
            Row(
                "classmate",
                A,
                check,
                1.0,
                1.0,
                cases=[
                    hidden("classmate", "hidden case 1", value * (1 + 1e-6)),
                    hidden("classmate", "hidden case 2", -3.0),
                ],
            ),
        ]
        return [(f.student, f.matches_student, f.other_case) for f in flags(ClassData.from_rows(rows), A)]

    assert isinstance(public, float) and found(public) == []
    assert found(public + 0.5) == [("constant", "classmate", "hidden case 1")] * 3


def test_the_command_writes_the_ranked_pairs_the_flags_and_the_page(graded_class):
    root = graded_class.root  # it writes only its own page and sheets
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), "similarity", A], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[:3] == [
        str(root / "reports" / f"similarity-{A}.html"),
        str(root / "exports" / f"similarity-{A}.csv"),
        str(root / "exports" / f"variant-flags-{A}.csv"),
    ]
    assert "not a verdict" in lines[3]
    with open(root / "exports" / f"similarity-{A}.csv", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["student_a", "student_b", "score"]
    scores = [float(score) for _, _, score in rows[1:]]
    assert scores == sorted(scores, reverse=True) and all(FLOOR <= s <= 1 for s in scores)
    assert all(a < b for a, b, _ in rows[1:])
    listed = {(a, b) for a, b, _ in rows[1:]}
    assert all(tuple(sorted((copy, similar.SOURCE))) in listed for copy in PLANTED)
    with open(root / "exports" / f"variant-flags-{A}.csv", encoding="utf-8") as handle:
        flagged = list(csv.reader(handle))
    assert flagged[0] == ["student", "check", "case", "matches_student"]
    assert {(s, c, m) for s, c, _, m in flagged[1:]} == {
        (similar.HARD_CODED, similar.HARD_CODED_CHECK, similar.HARD_CODED_FROM)
    }
    page = (root / "reports" / f"similarity-{A}.html").read_text(encoding="utf-8")
    assert "not a verdict" in page and "<mark>" in page and "<script" not in page.lower()


def test_an_assignment_never_released_is_refused_with_one_line(tmp_path):
    root = make_course(tmp_path / "course", [A])
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), "similarity", A], capture_output=True, text=True
    )
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1 and "release" in done.stderr
    assert not (root / "exports").exists() and not (root / "reports").exists()


HOSTILE_ID = '<img src=x onerror=alert(1)>"'
HOSTILE_CODE = 'def f():\n    return "</pre><script>alert(1)</script>"  # <b>bold</b> & \u202e\n'


def test_a_students_code_and_id_are_shown_as_written_never_as_markup():
    pair = Pair(HOSTILE_ID, "b", 0.9, 0.9, 0.8, ((0, 20),), ((0, 10),))
    found = Similarity(
        "a1",
        [pair],
        [Flag(HOSTILE_ID, "f", "hidden case 1", "b", "hidden case 2")],
        {HOSTILE_ID: HOSTILE_CODE, "b": HOSTILE_CODE},
        2,
        (),
    )
    page = render(found, "<course>")
    assert "<script" not in page and "<img" not in page and "<b>" not in page and "<course>" not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_a_flood_of_code_is_left_out_and_named_and_the_rest_of_the_class_is_still_compared():
    honest = "def f(xs):\n    total = 0\n    for x in xs:\n        total = total + x * x\n    return total / len(xs)\n"
    codes = {"a": honest, "b": honest.replace("total", "acc"), "flood": "x = 1\n" * (CODE_CHARS // 6 + 1)}
    found = analyse(ClassData.from_rows([]), "a1", codes, given="")
    assert found.too_long == ("flood",) and found.students == 3 and "flood" not in found.codes
    assert [(p.student_a, p.student_b) for p in found.pairs] == [("a", "b")]
    assert "flood" in render(found, "c")


def test_the_scores_are_the_same_in_every_process():
    """copydetect hashes k-grams with Python's `hash`, whose seed differs from process to process; the
    course's fingerprints do not, so a pair scores the same whenever the command runs."""
    script = (
        "import json; from autograder.reporting.similarity import analyse; from autograder.reporting.classdata import ClassData; "
        "import sys; codes = json.loads(sys.stdin.read()); "
        "print([(p.student_a, p.student_b, p.score) for p in analyse(ClassData.from_rows([]), 'a1', codes, given='').pairs])"
    )
    base = (
        "def f(xs, w):\n    h = 0\n    states = []\n"
        "    for x in xs:\n        h = x + w * h\n        states.append(h)\n    return states\n"
    )
    codes = {
        "a": base,
        "b": base.replace("states", "out") + "def g(y):\n    return [v * 2 for v in y]\n",
        "c": base.replace("h = x + w * h", "h = w * h + x") + "print(f([1, 2], 0.5))\n",
    }
    runs = {
        subprocess.run(
            [sys.executable, "-c", script],
            input=json.dumps(codes),
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1 and "('a', 'b'" in runs.pop()
