"""ch11_rnn_state: the reference solution earns full marks, the stub earns nothing, every catalogued
mistake is caught on its own check and named, and the hidden draws are what the spec asks for."""

from __future__ import annotations

import ast
import inspect
import random
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.assignments import get
from autograder.assignments.ch11_rnn_state import models as ch11_models
from autograder.assignments.ch11_rnn_state import reference as ref
from autograder.authoring import build, kit
from autograder.coursedir import config
from autograder.grading import checks as core
from autograder.grading.checks import Case
from autograder.vocabulary.symbolic import public_value
from rnnkit.compare import compare
from rnnkit.helpers import CALLS, pristine

from ..attempts import attempt

solution = get("ch11_rnn_state").solution()

A = "ch11_rnn_state"
SPEC = get(A)
CHECKS = {check.name: check for check in SPEC.checks}
MISTAKES = get(A).mistakes()
STUDENTS = [f"student-{i:03d}" for i in range(50)]
HIDDEN = config.load().HIDDEN_CASES
STUBS = ["relu", "softmax", "choose", "rnn_step", "output_logits", "run_rnn", "window_logits", "min_fillers_to_flip"]
EXERCISES = ["ex_11_7_1", "ex_11_7_2", "ex_11_7_3", "ex_11_7_4", "ex_11_7_5"]


_DRAWN: dict = {}
_hidden_cases = core.hidden_cases


def _cached_hidden_cases(spec, check, student, count, *args, **kwargs):
    """The core's seeded draws, computed once per (check, student) for the whole test module."""
    key = (spec.name, check.name, student, count, args, tuple(sorted(kwargs.items())))
    if key not in _DRAWN:
        _DRAWN[key] = _hidden_cases(spec, check, student, count, *args, **kwargs)
    return _DRAWN[key]


@pytest.fixture(autouse=True)
def _share_draws(monkeypatch):
    monkeypatch.setattr(core, "hidden_cases", _cached_hidden_cases)


def hidden(name: str, student: str) -> list[Case]:
    """The seeded hidden cases of one check (the core may return them with their references)."""
    found = core.hidden_cases(get(A), CHECKS[name], attempt(student), HIDDEN)
    return [item[0] if isinstance(item, tuple) else item for item in found]


def grade(name: str, fn, student: str = "student-000"):
    return core.grade(
        get(A),
        CHECKS[name],
        fn,
        attempt=attempt(student),
        hidden=HIDDEN,
        timeout=10,
        points=get(A).points(name, config.load().POINTS),
    )


def call(check, fn, case: Case):
    """The student's function called the check's way (`Check.call` names one of `rnnkit.helpers.CALLS`)."""
    return CALLS[check.call](fn, case.args, case.kwargs)


# ----------------------------------------------------------------------------- structure
def test_the_checks_are_the_stubs_then_the_exercises():
    assert list(CHECKS) == STUBS + EXERCISES


def test_setup_cell_holds_the_solution_load_model():
    setup = build.build_notebook(get(A)).cells[1].source
    assert (
        "from rnnkit import checker" in setup
        and f'check = checker("ch11_rnn_state", lang="en", kit="{kit.version()}")' in setup
    )
    for line in ("import numpy as np", "from fractions import Fraction", "import matplotlib.pyplot as plt"):
        assert line in setup
    ours = {node.name: ast.unparse(node) for node in ast.parse(setup).body if isinstance(node, ast.FunctionDef)}
    assert ours["load_model"] == ast.unparse(ast.parse(inspect.getsource(solution.load_model)).body[0])


def test_load_model_matches_the_data_and_the_contract():
    model, book = solution.load_model(), ch11_models.book_model()
    assert set(model) >= {
        "embeddings",
        "W_x",
        "W_h",
        "b_h",
        "W_y",
        "b_y",
        "candidates",
        "vocabulary",
        "inputs",
        "window_baseline",
    }
    assert model["candidates"] == ["red", "blue"]
    assert model["embeddings"].shape == (5, 2) and model["embeddings"].dtype == np.float64
    for key in ("embeddings", "W_x", "W_h", "b_h", "W_y", "b_y"):
        assert np.array_equal(model[key], book[key]) and model[key].dtype == np.float64
    assert model["vocabulary"] == book["vocabulary"] and model["inputs"] == book["inputs"]
    assert all(np.array_equal(model["window_baseline"][k], book["window_baseline"][k]) for k in ("W", "b"))


def test_messages_do_not_give_the_answers():
    for entry in MISTAKES:
        text = entry.text
        for answer in ("0.592667", "0.531209", "0.532182", "0.530236", "[0, 1/8]", "[1/8, 1/8]", "[0, 1]", '{"B"'):
            assert answer not in text, (entry.id, answer)
        assert not re.search(r"\b(answer is|the answer)\b", text, re.I)


# ----------------------------------------------------------------------------- full marks, zero marks
# ----------------------------------------------------------------------------- the catalogue


@pytest.mark.parametrize("entry", [e for e in MISTAKES if CHECKS[e.function].draw], ids=lambda e: e.id)
def test_mistake_is_wrong_on_every_hidden_case(entry):
    check = CHECKS[entry.function]
    fn = entry.namespace()[entry.function]
    for case in hidden(entry.function, "student-007"):
        assert not compare(call(check, fn, case), check.expected(case), rtol=check.rtol).ok, entry.id


def test_state_carried_mistake_is_deterministic_and_shows_only_after_a_warm_up():
    entry = next(e for e in MISTAKES if e.id == "state_carried_between_calls")
    check = CHECKS["run_rnn"]
    case = check.public()[0]
    polluted = entry.namespace()["run_rnn"]
    for tokens in ([0, 1, 2], [1, 1, 1, 1]):  # earlier calls leave memory in the shared default
        polluted(tokens, case.args[1])
    first, second = (call(check, entry.namespace()["run_rnn"], case) for _ in range(2))
    assert compare(first, second).ok
    # a fresh copy called once (no warm-up) is right: only carrying the state between calls is wrong
    alone = pristine(entry.namespace()["run_rnn"])(*case.args)
    assert compare(alone, check.expected(case)).ok
    assert not compare(first, check.expected(case)).ok


# ----------------------------------------------------------------------------- hidden draws
def _draws(name: str, student: str = "student-001") -> list[Case]:
    return hidden(name, student)


def test_hidden_draws_are_seeded_and_vary_by_student():
    for name in STUBS:
        once, again, other = (
            _draws(name),
            _hidden_cases(get(A), CHECKS[name], attempt("student-001"), HIDDEN),
            _draws(name, "student-002"),
        )
        again = [item[0] if isinstance(item, tuple) else item for item in again]
        assert [repr(c.args) for c in once] == [repr(c.args) for c in again], name
        assert [repr(c.args) for c in once] != [repr(c.args) for c in other], name


def test_random_models_have_negative_entries_and_nonsymmetric_recurrence():
    lengths, fillers = Counter(), Counter()
    for student in STUDENTS[:12]:
        for case in _draws("run_rnn", student) + _draws("window_logits", student):
            tokens, model = case.args
            lengths[len(tokens)] += 1
            assert 2 <= len(tokens) <= 12
            assert (model["embeddings"] < 0).any() or (model["W_x"] < 0).any()
            assert not np.array_equal(model["W_h"], model["W_h"].T)
            assert sorted(model["vocabulary"].values()) == list(range(len(model["embeddings"])))
        for case in _draws("min_fillers_to_flip", student):
            answer = ref.min_fillers_to_flip(case.args[0])
            fillers[answer] += 1
            assert answer is not None and answer != 1
        for case in _draws("choose", student):
            probs, names = case.args
            top = max(probs)
            assert sum(p == top for p in probs) >= 2  # an exact tie at the top
    assert len(lengths) >= 8 and max(lengths) == 12
    assert len(fillers) >= 5


def test_min_fillers_draws_flip_on_an_exact_tie_that_floats_see():
    rng = random.Random(11)
    for _ in range(20):
        model = ch11_models.flip_model(rng)
        n = ref.min_fillers_to_flip(model)
        logits = ref.filler_logits(model, n)
        assert logits[0] == logits[1]
        assert solution.min_fillers_to_flip(model) == n


def test_late_draws_flip_near_the_end_of_the_search_on_an_exact_tie_that_floats_see():
    rng = random.Random(12)
    answers = set()
    for _ in range(20):
        model = ch11_models.late_flip_model(rng)
        n = ref.min_fillers_to_flip(model)
        logits = ref.filler_logits(model, n)
        assert 90 <= n <= 100 and logits[0] == logits[1]
        assert solution.min_fillers_to_flip(model) == n
        answers.add(n)
    assert len(answers) >= 5
    late = [
        ref.min_fillers_to_flip(case.args[0])
        for student in STUDENTS[:10]
        for case in _draws("min_fillers_to_flip", student)
    ]
    assert any(n >= 90 for n in late) and any(n <= 10 for n in late)


def test_a_search_that_stops_before_100_fillers_loses_points():
    source = inspect.getsource(solution.min_fillers_to_flip).replace("range(101)", "range(100)")
    report = grade("min_fillers_to_flip", core.catalogue.submission(get(A).template, source)["min_fillers_to_flip"])
    assert not next(r for r in report.results if "after 100 fillers" in r.label).ok
    assert report.score < get(A).points("min_fillers_to_flip", config.load().POINTS)


def test_a_missing_state_bias_is_named_in_a_caller_and_a_wrong_uncatalogued_bias_gets_no_name():
    forgotten = core.catalogue.submission(
        get(A).template, "def rnn_step(x, h_prev, W_x, W_h, b_h):\n    return relu(x @ W_x + h_prev @ W_h)\n"
    )
    assert grade("run_rnn", forgotten["run_rnn"]).misconceptions == ["state_bias_forgotten"]
    subtracted = core.catalogue.submission(
        get(A).template, "def rnn_step(x, h_prev, W_x, W_h, b_h):\n    return relu(x @ W_x + h_prev @ W_h - b_h)\n"
    )
    for name in ("rnn_step", "run_rnn"):
        for student in STUDENTS[:3]:
            report = grade(name, subtracted[name], student)
            assert report.passed < len(report.results) and report.misconceptions == [], (
                name,
                student,
                report.misconceptions,
            )


def test_a_tie_broken_by_the_candidates_name_is_named_tie_to_last_on_every_attempt():
    """Whether the name is given does not depend on the draw: the grader recognises a tie given to a
    tied candidate after the first (`tie_to_last`'s `recognise`), not only the last one's output."""
    by_name = core.catalogue.submission(
        get(A).template, "def choose(probs, candidates):\n    return max(zip(probs, candidates))[1]\n"
    )["choose"]
    for student in STUDENTS[:6]:
        report = grade("choose", by_name, student)
        wrong = [result for result in report.results if not result.ok]
        assert wrong and {result.misconception for result in wrong} == {"tie_to_last"}, (student, report.results)
    right = grade("choose", solution.choose)
    assert right.passed == len(right.results) and right.misconceptions == []


# ----------------------------------------------------------------------------- properties
vectors = st.lists(st.integers(-64, 64).map(lambda k: k / 8), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(vectors, st.sampled_from([0.0, 500.0, -900.0]))
def test_softmax_matches_the_exact_reference_and_is_stable(z, shift):
    z = np.array(z) + shift
    got = solution.softmax(z)
    assert np.isfinite(got).all() and abs(got.sum() - 1) < 1e-12
    assert compare(got, public_value(ref.softmax(z))).ok


@settings(max_examples=60, deadline=None)
@given(vectors)
def test_relu_matches_the_reference(v):
    assert compare(solution.relu(np.array(v)), public_value(ref.relu(np.array(v)))).ok


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=6), st.data())
def test_choose_takes_the_first_of_the_highest(weights, data):
    names = data.draw(st.permutations(["red", "blue", "green", "black", "white", "silver"]))[: len(weights)]
    probs = [w / sum(weights) if sum(weights) else 0.0 for w in weights]
    expected = names[weights.index(max(weights))]
    assert solution.choose(probs, names) == ref.choose(probs, names) == expected


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 12))
def test_run_rnn_matches_the_engine_and_starts_from_zero(seed, length):
    rng = random.Random(seed)
    model = ch11_models.random_model(rng)
    tokens = [rng.randrange(len(model["embeddings"])) for _ in range(length)]
    before = [rng.randrange(len(model["embeddings"])) for _ in range(rng.randint(1, 12))]
    alone = solution.run_rnn(tokens, model)
    solution.run_rnn(before, model)
    after = solution.run_rnn(tokens, model)  # running B after A equals running B alone
    assert compare(alone, public_value(ref.run_rnn(tokens, model))).ok
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(alone, after) for k in ("h", "logits", "probs"))
    for t in range(1, length + 1):  # causal: the first t outputs depend on the first t tokens only
        prefix = solution.run_rnn(tokens[:t], model)
        assert all(np.array_equal(p["h"], a["h"]) for p, a in zip(prefix, alone))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_window_and_step_match_the_engine(seed):
    rng = random.Random(seed)
    model = ch11_models.random_model(rng)
    tokens = [rng.randrange(len(model["embeddings"])) for _ in range(rng.randint(2, 12))]
    assert compare(solution.window_logits(tokens, model), public_value(ref.window_logits(tokens, model))).ok
    x, h = model["embeddings"][tokens[0]], np.abs(model["embeddings"][tokens[-1]])
    assert compare(
        solution.rnn_step(x, h, model["W_x"], model["W_h"], model["b_h"]),
        public_value(ref.rnn_step(x, h, model["W_x"], model["W_h"], model["b_h"])),
    ).ok


def test_min_fillers_is_computed_not_hard_coded():
    book = ch11_models.book_model()
    assert solution.min_fillers_to_flip(book) == ref.min_fillers_to_flip(book) == 1
    halved = ch11_models._book(b_y=[1 / 16, 0])
    assert solution.min_fillers_to_flip(halved) == ref.min_fillers_to_flip(halved) == 2
    never = ch11_models._book(W_h=[[0.5, 0], [0, 1]])  # the blue coordinate never decays
    assert solution.min_fillers_to_flip(never) is None and ref.min_fillers_to_flip(never) is None
    shuffled = ch11_models._book()
    order = [4, 2, 0, 3, 1]  # new id of each old id
    shuffled["embeddings"] = shuffled["embeddings"][np.argsort(order)]
    shuffled["vocabulary"] = {token: order[i] for token, i in book["vocabulary"].items()}
    assert solution.min_fillers_to_flip(shuffled) == 1


def test_exercise_answers_match_the_reference_answers_of_11_8():
    one = solution.ex_11_7_1(solution.load_model())
    assert one["min_fillers"] == 1 and list(one["final_h"]) == [0, 0.125] and list(one["logits"]) == [0.125, 0.125]
    two = solution.ex_11_7_2(solution.load_model())
    assert list(two["final_h"]) == [0, 1] and list(two["logits"]) == [0.125, 1] and two["choice"] == "blue"
    for name in ("ex_11_7_3", "ex_11_7_4", "ex_11_7_5"):
        assert getattr(solution, name)() == getattr(ref, name)()
        letters = set(re.findall(r"^\s+([A-F])\. ", getattr(solution, name).__doc__, re.M))
        assert getattr(solution, name)() < letters


def test_exercise_checks_never_reveal_the_answer():
    wrong = {
        "ex_11_7_1": lambda model: {"min_fillers": 2, "final_h": [0, 0.0625], "logits": [0.125, 0.0625]},
        "ex_11_7_2": lambda model: {"final_h": [1, 1], "logits": [1.125, 1], "choice": "red"},
        "ex_11_7_3": lambda: {"A"},
        "ex_11_7_4": lambda: {"A"},
        "ex_11_7_5": lambda: {"A"},
        "min_fillers_to_flip": lambda model: 3,
    }
    for name, fn in wrong.items():
        report = grade(name, fn)
        text = "\n".join(report.lines(graded=False))
        assert report.score == 0
        assert "needs" not in text
        for answer in ("0.125", "1/8", "blue", "'B'", "'C'", "'D'", "'E'"):
            assert answer not in text.split("Likely misconception")[0], (name, answer, text)


# ----------------------------------------------------------------------------- the self-check finds what the grade finds
def _public_report(name: str, source: str):
    """The public cases of check `name` alone, on the reference solution with `source` in it."""
    fn = core.catalogue.submission(get(A).template, source)[name]
    return core.run_cases(
        A,
        name,
        fn,
        core.public_cases(CHECKS[name]),
        CHECKS[name].rules,
        diagnose=lambda got, case, expected: core.diagnose(
            get(A), CHECKS[name], got, case, expected, lambda function: function == name
        ),
    )


@pytest.mark.parametrize(
    "mistake",
    [
        "input_weight_transposed",
        "column_vector_convention",
        "recurrent_weight_transposed",
        "window_without_relu",
        "choice_read_from_the_state",
        "tie_to_last",
    ],
)
def test_a_catalogued_mistake_fails_a_public_case_and_is_named_there(mistake):
    entry = next(e for e in MISTAKES if e.id == mistake)
    report = _public_report(entry.function, entry.source())
    assert report.passed < len(report.results) and report.misconceptions == [mistake], (mistake, report.misconceptions)


@pytest.mark.parametrize(
    "name, source",
    [
        (
            "min_fillers_to_flip",
            "def min_fillers_to_flip(model):\n    ids = model['vocabulary']\n    for n in range(1, 101):\n"
            "        last = run_rnn([ids['blue']] + [ids['filler']] * n + [ids['key'], ids['is']], model)[-1]\n"
            "        if choose(last['probs'], model['candidates']) == model['candidates'][0]:\n            return n\n    return None\n",
        ),
        (
            "ex_11_7_1",
            "def ex_11_7_1(model):\n    return {'min_fillers': 1, 'final_h': [0.0, 0.125], 'logits': [0.125, 0.125]}\n",
        ),
        (
            "softmax",
            "def softmax(z):\n    z = np.asarray(z, dtype=float)\n    e = np.exp(z - z.min())\n    return e / e.sum()\n",
        ),
    ],
    ids=["fillers-counted-from-one", "book-answer-typed-in", "softmax-shifted-by-the-smallest"],
)
def test_an_uncatalogued_classic_fails_the_self_check_and_is_named_nowhere(name, source):
    report = _public_report(name, source)
    assert report.passed < len(report.results) and report.misconceptions == [], report.lines(graded=False)


def test_every_branch_leads_the_hidden_cases_or_is_public():
    for name in STUBS + ["ex_11_7_1", "ex_11_7_2"]:
        check = CHECKS[name]
        public = [(case, expected) for case, _, expected in core._public_cases(check)]
        drawn = [(case, check.expected(case)) for case in hidden(name, "student-003")]
        for branch in check.branches:
            assert any(branch.holds(case, expected) for case, expected in public + drawn), (name, branch.name)


def test_late_flips_have_a_nonsymmetric_input_matrix():
    rng = random.Random(13)
    for _ in range(5):
        model = ch11_models.late_flip_model(rng)
        assert not np.array_equal(model["W_x"], model["W_x"].T)
