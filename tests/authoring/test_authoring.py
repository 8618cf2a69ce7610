"""Adding an exercise through the spec alone (docs/adding-an-exercise.md): a toy assignment with one
check in the three files an author writes (the notebook template with the solution and both
languages, the SymPy reference, the check with its mistake), released and graded by real nbgrader."""

import importlib
import textwrap

import pytest

from autograder.assignments import ALL
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import autograde, release
from autograder.reporting import classdata
from autograder.vocabulary.spec import Assignment
from rnnkit import messages

from ..conftest import make_course

pytestmark = pytest.mark.nbgrader

FILES = {
    "notebook.md": '''
        %% markdown
        # A toy exercise
        Doubling, exactly.
        %% zh
        # 一个玩具练习
        精确地加倍。
        %% setup
        from fractions import Fraction
        %% exercise double
        def double(x):
            """Twice x. Exact in, exact out."""
            ### BEGIN SOLUTION
            return 2 * x
            ### END SOLUTION
        ''',
    "reference.py": """
        from autograder.vocabulary.symbolic import to_sympy


        def double(x):
            return 2 * to_sympy(x)


        def book_values():
            return {}


        def book_log():
            return []
        """,
    "checks/double.py": """
        from fractions import Fraction

        from autograder.vocabulary import draws
        from autograder.vocabulary.catalogue import mistake
        from autograder.vocabulary.spec import Case, Check

        from toy.reference import double

        CHECK = Check("double", double, lambda: [Case((Fraction(3, 4),), label={"en": "3/4", "zh": "四分之三（3/4）"})],
                      points=2, exact=True, draw=lambda rng: Case((draws.rational(rng, -3, 3, nonzero=True),)))


        @mistake("double", en="Doubling adds x to itself, not 2.", zh="加倍是把x加到它自己身上，而不是加2。")
        def added_instead(x):
            return x + 2
        """,
}


def test_a_toy_check_added_through_the_spec_alone_is_graded_by_real_nbgrader(tmp_path, monkeypatch):
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "checks").mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = Assignment.found(
        "toy", folder, importlib.import_module("toy.checks"), importlib.import_module("toy.reference")
    )
    monkeypatch.setitem(ALL, "toy", spec)
    monkeypatch.setitem(
        messages.catalogue("en"), "mistake.added_instead", spec.mistakes()[0].says["en"]
    )  # as `make venv` builds the kit

    root = make_course(tmp_path / "course")
    with (root / "course_config.py").open("a") as handle:
        handle.write('\nASSIGNMENTS = ["toy"]\n')
    release(root, ["toy"])
    notebook = root / "release" / "toy" / "toy.ipynb"
    assert "return 2 * x" not in notebook.read_text()
    (entry,) = spec.mistakes()
    write_submission(root, "reference", "toy", filled(notebook, spec))
    write_submission(root, "stub", "toy", None)
    write_submission(root, "mutant", "toy", filled(notebook, spec, entry))
    outcomes = autograde(root, ["toy"], workers=1)
    assert all(o.ok for o in outcomes), [o.log for o in outcomes]
    rows = {row.student: row for row in classdata.collect(root)}
    assert (rows["reference"].score, rows["reference"].max_score) == (2, 2)
    assert rows["stub"].score == 0
    assert rows["mutant"].score < 2 and rows["mutant"].misconceptions == ["added_instead"]
