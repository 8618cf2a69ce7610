"""A check's way of calling a student's function (`rnnkit.helpers.CALLS`: twice from pristine
defaults, after a warm-up run, held to "returns copies", plainly) is the runner's: one request per
case, and the same report as the same function called in-process, as the self-check calls it."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.grading.checks import called_here
from autograder.sandbox.session import Session
from rnnkit.checking import Case, Rules, run_cases
from rnnkit.jail.limits import Limits

SOURCE = """
def total(xs, kept=[]):
    kept.extend(xs)
    return sum(kept)

def fresh(xs):
    return sum(xs)

def reads(token_ids, model, memory=[]):
    memory.extend(token_ids)
    return len(memory)

def given(xs):
    return xs
"""
CASES = {
    "total": [(Case(([1, 2],), label="a"), True, 3), (Case(([4],), label="b"), False, 4)],
    "fresh": [(Case(([1, 2],), label="a"), True, 3), (Case(([4],), label="b"), False, 4)],
    "reads": [(Case(([0, 1], {"embeddings": [[0.0], [1.0], [2.0]]}), label="a"), True, 2)],
    "given": [(Case((np.array([1.0, 2.0]),), label="a"), True, np.array([1.0, 2.0]))],
}


@pytest.mark.parametrize("way", ["plain", "twice", "after_warm_up", "returning_copies"])
def test_the_runner_calls_a_function_the_checks_way_in_one_request_per_case_as_the_self_check_does(tmp_path, way):
    names = ["reads"] if way == "after_warm_up" else ["total", "fresh", "given"]
    space: dict = {}
    exec(SOURCE, space)
    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        session.run_cell(SOURCE)
        asked, send = [], session.runner.send
        session.runner.send = lambda message: asked.append((message["op"], len(message["calls"]))) or send(message)
        for name in names:
            rules, remote = Rules(call=way), session.function(name, timeout=5, call=way)
            own = run_cases("test", name, space[name], CASES[name], rules, timeout=5)
            graded = run_cases("test", name, remote, CASES[name], called_here(rules, remote), timeout=0)
            assert [(r.ok, r.message) for r in graded.results] == [(r.ok, r.message) for r in own.results], (way, name)
            if name in ("total", "reads") and way in (
                "twice",
                "after_warm_up",
            ):  # memory kept between calls: a wrong value
                assert not graded.results[0].ok
    assert asked == [("calls", 1)] * sum(len(CASES[name]) for name in names)


def test_a_function_in_the_sandbox_is_called_plainly_here_and_one_here_the_checks_way():
    rules = Rules(call="twice")
    assert called_here(rules, sum) is rules
    assert called_here(rules, type("Remote", (), {"holds_call": True})()).call == "plain"
