"""The probes call a submission's functions in a second runner (`Session.apart`): the same cells, a
work folder of its own, and never a graded call. A function that keeps what it was called with,
and answers inputs of the same shapes with the value it gave before, cannot hand a probe's changed
inputs the graded case's value there; an honest function earns the same points as before."""

from __future__ import annotations

import pytest

from autograder.assignments import get
from autograder.grading.attempts import Attempt
from autograder.grading.checks import grade
from autograder.sandbox.session import Session
from rnnkit import codec
from rnnkit.checking import StudentFailure
from rnnkit.jail.limits import Limits

#: masked_rnn_forward, its state at a padded step being `keep`'s of the stepped and the carried state.
FORWARD = """
import numpy as np

def masked_rnn_forward(step, X, lengths, h0):
    X = np.asarray(X, dtype=float)
    B, T, _ = X.shape
    h = np.tile(np.asarray(h0, dtype=float), (B, 1))
    H = np.zeros((B, T, h.shape[1]))
    for t in range(T):
        valid = (t < np.asarray(lengths))[:, None]
        h = {keep}(valid, np.array([step(X[b, t], h[b]) for b in range(B)]), h)
        H[:, t] = h
    return H, h.copy()
"""
#: Masking by selection: padding never reaches the states.
SELECTING = FORWARD.format(keep="np.where")
#: Masking by multiplication: right on finite padding, while NaN padding reaches the states (0 * nan
#: is nan), which is the padding probe's catch.
MULTIPLYING = FORWARD.format(keep="(lambda valid, new, old: valid * new + ~valid * old)")
#: The same, answering inputs of shapes, lengths and h0 it has seen with the value it gave then: every
#: changed input of a probe has the graded case's shapes.
CACHED = (
    MULTIPLYING.replace("def masked_rnn_forward(", "def _forward(")
    + """
_seen = {}

def masked_rnn_forward(step, X, lengths, h0):
    key = (np.shape(X), tuple(np.asarray(lengths).tolist()), np.asarray(h0).tobytes())
    return _seen.setdefault(key, _forward(step, X, lengths, h0))
"""
)


@pytest.mark.parametrize(
    "source, points", [(SELECTING, 3), (MULTIPLYING, 0), (CACHED, 0)], ids=["selecting", "multiplying", "cached"]
)
def test_a_function_that_answers_same_shaped_inputs_from_a_cache_does_not_pass_the_probes(tmp_path, source, points):
    spec = get("ch12_boundaries")
    check = spec.check("masked_rnn_forward")
    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        session.run_cell(source)
        report = grade(
            spec,
            check,
            session.function(check.name, timeout=5, call=check.call),
            attempt=Attempt(b"k", "s"),
            hidden=2,
            timeout=0,
            points=3,
        )
        assert report.score == points, report.lines(graded=True)
        assert session.probes is not None and session.probes.ran == len(
            session.replay
        )  # the probes ran in the second runner


@pytest.mark.parametrize(
    "cells", ["", "import signal\nsignal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"], ids=["plain", "sigchld-ignored"]
)
def test_calls_apart_leave_the_runner_as_the_cells_left_it_and_a_fork_that_dies_costs_one_call(tmp_path, cells):
    source = "seen = []\n\ndef remember(x):\n    seen.append(x)\n    return len(seen)\n\ndef leave(x):\n    import os\n    os._exit(3)\n"
    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        session.run_cell(cells + source)
        remember, leave = session.function("remember", timeout=5), session.function("leave", timeout=5)
        with remember.apart():
            assert [codec.plain(remember(1)), codec.plain(remember(2))] == [1, 2]  # one fork for the block
        with remember.apart():
            assert codec.plain(remember(3)) == 1  # a new fork, of the runner as the cells left it
            with pytest.raises(StudentFailure) as died:
                leave(0)
            assert died.value.message_id == "check.runner_died"
            assert codec.plain(remember(4)) == 1  # the fork died: the next call has a new one
        assert [codec.plain(remember(5)), codec.plain(remember(6))] == [1, 2]  # the runner itself, untouched until now
        assert session.started == 1


#: Cells whose replies together outgrow a socket's buffer, and whose sources come near AHEAD each.
_LOUD = "big_{i} = {text!r}\nprint('x' * 60_000)\n"


def test_the_probes_runner_follows_the_cells_as_they_run_and_never_blocks_on_its_replies(tmp_path):
    """The probes' runner is sent each cell once the submission's runner has run it, its replies read
    only before its own next request: a dozen cells of 30 KB whose outputs (60 KB each) fill its
    socket many times over run there once, in order, and the first probe call finds them all."""
    with Session(tmp_path, Limits(CELL_TIMEOUT=60, OUTPUT_LIMIT_KB=100), "en", {}) as session:
        probes = session.for_probes()
        for i in range(12):
            session.run_cell(_LOUD.format(i=i, text="y" * 30_000))
        session.run_cell("def count():\n    return sum(1 for name in globals() if name.startswith('big_'))\n")
        assert probes.owed  # sent ahead, not waited for
        assert codec.plain(session.function("count", timeout=5).probe_calls()) == 12
        assert (probes.ran, probes.started, probes.owed) == (len(session.replay), 1, [])


def test_a_probes_runner_that_dies_while_it_follows_is_started_again_with_every_cell(tmp_path):
    """Its death is met at the next request there: a new runner replays every cell, and the probes'
    call is answered by the function the cells defined."""
    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        probes = session.for_probes()
        session.run_cell("base = 40\n")
        session.run_cell("def answer():\n    return base + 2\n")
        probes.runner.parent.kill(probes.runner.pid)  # as if a cell had killed it there
        assert codec.plain(session.function("answer", timeout=5).probe_calls()) == 42
        assert probes.started == 2 and probes.ran == len(session.replay)


#: A function that keeps a log of its calls (`log` reads it), fails on 3 and ends its process on 13.
_COUNTED = """
import os

calls = []

def counted(x):
    calls.append(x)
    if x == 3:
        raise ValueError("three")
    if x == 13:
        os._exit(3)
    return 10 * x

def log():
    return list(calls)
"""


def test_a_probes_calls_sent_together_come_back_in_order_and_stop_at_the_first_failure(tmp_path):
    """`RemoteFunction.many`: one request, the values in order; after a call that fails the runner
    makes no other; a fork that dies in one answers for it, and the next calls get a new fork."""
    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        session.run_cell(_COUNTED)
        counted, log = session.function("counted", timeout=5), session.function("log", timeout=5)
        with counted.apart():
            outcomes = counted.many([((1,), {}), ((2,), {}), ((3,), {}), ((4,), {})])
            assert [codec.plain(value) for value in outcomes[:2]] == [10, 20]
            assert len(outcomes) == 3 and isinstance(outcomes[2], StudentFailure)
            assert outcomes[2].message_id.startswith("check.crashed")
            assert codec.plain(log()) == [1, 2, 3]  # 4 was never called
            outcomes = counted.many([((5,), {}), ((13,), {}), ((6,), {})])
            assert codec.plain(outcomes[0]) == 50 and outcomes[1].message_id == "check.runner_died"
            assert len(outcomes) == 2 and not session.forked
            assert [codec.plain(value) for value in counted.many([((7,), {})])] == [70]  # a new fork
            assert codec.plain(log()) == [7]
        assert codec.plain(log()) == [] and codec.plain(counted(8)) == 80  # the runner itself, in step
        assert session.started == 1


def test_a_probe_reads_its_outputs_in_turn_and_meets_a_failure_or_an_unbuilt_case_where_it_comes(tmp_path):
    """`Probing.many` hands a probe the outputs in order (the graded case's own, the value graded):
    a rule broken before a failing call is seen before the failure, and a case that cannot be built
    raises after the outputs of those built before it."""
    from autograder.vocabulary import probes
    from rnnkit.checking import Case, Probing, accepted, call_student

    def run(case, fn):
        return accepted(call_student(fn, case, name="counted", timeout=0), name="counted", case=case)

    def unbuilt(x):
        if x == 9:
            raise KeyError("no such part")
        return graded if x == 1 else Case((x,))

    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        session.run_cell(_COUNTED)
        counted, log = session.function("counted", timeout=5), session.function("log", timeout=5)
        graded = Case((1,))
        with counted.apart():
            probing = Probing(run, counted, graded, 10, "counted")
            assert list(probes.outputs(probing, [2, 1, 4], unbuilt)) == [(2, 20), (1, 10), (4, 40)]
            assert codec.plain(log()) == [2, 4]  # the graded case itself is not called again
            outputs = probes.outputs(probing, [5, 3, 6], unbuilt)
            assert next(outputs) == (5, 50)
            with pytest.raises(StudentFailure):
                next(outputs)
            outputs = probes.outputs(probing, [7, 9, 8], unbuilt)
            assert next(outputs) == (7, 70)
            with pytest.raises(KeyError):
                next(outputs)
            assert codec.plain(log()) == [2, 4, 5, 3, 7]
