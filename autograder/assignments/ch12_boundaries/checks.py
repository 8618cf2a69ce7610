"""The checks of ch12_boundaries: state boundaries, truncation, padding and causality.

The `step` callables given to the student functions are the kit's `TanhStep`s: deterministic
tanh-RNN steps with seeded float64 weights, bit-identical on rows and batches - which is what the
probes demand.
"""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
from rnnkit.helpers import TanhStep

from ... import draws, probes
from ...checks import Case, Check
from . import reference as ref

def third_text_step(W_h: float = 0.5) -> TanhStep:
    """The third text's scalar tanh RNN: W_x = 1, W_h = 0.5, b = 0 (states 0.7616, 0.3634, -0.6741 for 1, 0, -1)."""
    return TanhStep([[1.0]], [[W_h]], [0.0], name=f"third text: W_x = 1, W_h = {W_h}, b = 0")


def _column(values) -> np.ndarray:
    return np.array(values, dtype=float).reshape(-1, 1)


# ----------------------------------------------------------------------------- draws

def _step(rng: random.Random, D: int, d: int) -> TanhStep:
    return TanhStep.seeded(rng.randrange(1, 10**6), D, d)


def _dims(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 3), rng.randint(1, 3)


def _inputs(rng: random.Random, T: int, D: int) -> np.ndarray:
    return draws.uniform(rng, (T, D), -1.5, 1.5)


def _h0(rng: random.Random, d: int) -> np.ndarray:
    return draws.uniform(rng, (d,), -0.6, 0.6)


def _lengths(rng: random.Random, B: int, T: int) -> np.ndarray:
    lengths = [rng.randint(1, T) for _ in range(B)]
    lengths[rng.randrange(B)] = rng.randint(1, T - 1)  # at least one padded row
    return np.array(lengths)


def _draw_independent(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), [_inputs(rng, rng.randint(1, 12), D) for _ in range(rng.randint(2, 4))], _h0(rng, d)))


def _draw_stream(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), [_inputs(rng, rng.randint(1, 6), D) for _ in range(rng.randint(2, 4))], _h0(rng, d)))


def _draw_entities(rng: random.Random) -> Case:
    D, d = _dims(rng)
    pool = rng.choice([[0, 1, 2], ["alice", "bob", "carol"], [17, 4], ["sensor-a", "sensor-b"]])
    stream, entity = [], None
    for _ in range(rng.randint(2, 5)):
        entity = rng.choice([e for e in pool if e != entity])
        stream += [(entity, row) for row in _inputs(rng, rng.randint(1, 4), D)]
    return Case((_step(rng, D, d), stream, _h0(rng, d)))


def _draw_truncated(rng: random.Random) -> Case:
    T = rng.randint(2, 12)
    k = rng.randint(1, T - 1)
    steps = set(rng.sample(range(1, T + 1), rng.randint(1, min(3, T)))) | {rng.randint(k + 1, T)}
    targets = {t: draws.rational(rng, -2, 2) for t in sorted(steps)}
    h0 = draws.rational(rng, -1, 1) if rng.random() < 0.5 else 0
    return Case((draws.rationals(rng, T), draws.rational(rng, -1, 1, denominators=(2, 3, 4, 5), nonzero=True), targets, k), {"h0": h0})


def _draw_masked(rng: random.Random) -> Case:
    D, d = _dims(rng)
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    return Case((_step(rng, D, d), draws.uniform(rng, (B, T, D), -1.5, 1.5), _lengths(rng, B, T), _h0(rng, d)))


def _draw_loss(rng: random.Random) -> Case:
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    mask = np.arange(T)[None, :] < _lengths(rng, B, T)[:, None]
    return Case((draws.uniform(rng, (B, T), 0.05, 3.0), mask))


def _draw_generation(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), _inputs(rng, rng.randint(1, 12), D), _h0(rng, d)))


def _draw_bidirectional(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), _step(rng, D, d), _inputs(rng, rng.randint(1, 12), D), _h0(rng, d)))


# ----------------------------------------------------------------------------- public (book) cases

def _public_independent():
    return [Case((third_text_step(), [_column([1, 0, -1]), _column([-1])], np.zeros(1)),
                 label="third text's tanh RNN: (1, 0, -1), then an unrelated sequence (-1)")]


def _public_stream():
    return [Case((third_text_step(), [_column([1, 0]), _column([-1])], np.zeros(1)),
                 label="third text's (1, 0, -1) cut into two segments of one stream")]


def _public_entities():
    step = third_text_step()
    return [Case((step, [("a", np.array([1.0])), ("a", np.array([0.0])), ("b", np.array([-1.0]))], np.zeros(1)),
                 label="third text's inputs; the entity changes before the third"),
            Case((step, [("a", np.array([1.0])), ("b", np.array([0.0])), ("a", np.array([-1.0]))], np.zeros(1)),
                 label="third text's inputs; entity a comes back at step 3")]


def _public_truncated():
    setup = ref.truncated_setup()
    xs, w, targets = setup["xs"], setup["w"], setup["targets"]
    return [Case((xs, w, targets, 2), label="section 12.3 setup: xs = (1, 0, 0, 0), w = 1/2, target 1 at step 4, k = 2"),
            Case((xs, w, targets, 4), label="the same with k = 4 (full BPTT)"),
            Case(([1, 0, 0], Fraction(1, 2), {3: 1}, 3), label="Table 12.1 as one segment (k = 3)"),
            # targets in both segments: each segment's gradient counts (above, the first segment has none)
            Case(([1, 2, -1], Fraction(1, 2), {1: 0, 2: 0, 3: 0}, 2),
                 label="second text, example 1 (1, 2, -1), a = 1/2, with a target 0 at every step instead of at step 3 only, k = 2")]


def _public_masked():
    rng = random.Random(2024)
    return [Case((third_text_step(), np.array([[[1.0], [0.0], [-1.0]], [[1.0], [0.0], [5.0]]]), np.array([3, 2]), np.zeros(1)),
                 label="third text's tanh RNN; row 2 has 2 valid steps, then padding"),
            Case((TanhStep.seeded(2024, 4, 3), draws.uniform(rng, (2, 5, 4)), np.array([5, 3]), np.zeros(3)),
                 label="third text's shapes (2, 5, 4) -> (2, 5, 3); the second sentence has 3 valid tokens"),
            # the rows above come longest first; here the shorter row comes first and must stay first
            Case((third_text_step(), np.array([[[1.0], [0.0], [5.0]], [[1.0], [0.0], [-1.0]]]), np.array([2, 3]), np.zeros(1)),
                 label="third text's tanh RNN; the padded row first (lengths 2, 3)")]


def _public_loss():
    losses = np.array([[0.5, 0.25, 1.0, 0.75, 2.0], [1.5, 0.5, 0.25, 9.0, 9.0]])
    return [Case((losses, np.arange(5)[None, :] < np.array([5, 3])[:, None]), label="third text's masked loss: lengths 5 and 3, N_valid = 8")]


def _public_generation():
    return [Case((third_text_step(), _column([1, 0, -1]), np.zeros(1)), label="third text's tanh RNN on (1, 0, -1)")]


def _public_bidirectional():
    return [Case((third_text_step(), third_text_step(-0.5), _column([1, 0, -1]), np.zeros(1)),
                 label="third text's step forward, W_h = -0.5 backward, on (1, 0, -1)")]


# ----------------------------------------------------------------------------- perturbations for the probes

def _replace_after(xs, t: int, seed: int) -> np.ndarray:
    xs = np.array(xs, dtype=float)
    if len(xs) > t:
        xs[t:] = probes.replacement_values(xs[t:].shape, seed)
    return xs


def _replace_before(xs, t: int, seed: int) -> np.ndarray:
    xs = np.array(xs, dtype=float)
    xs[:t - 1] = probes.replacement_values(xs[:t - 1].shape, seed)
    return xs


def _independent_after(case: Case, t: int) -> Case:
    step, sequences, h0 = case.args
    return Case((step, [_replace_after(xs, t, 100 * t + i) for i, xs in enumerate(sequences)], h0))


def _independent_pieces(case: Case):
    step, sequences, h0 = case.args
    for i, xs in enumerate(sequences):
        yield (f"sequence {i + 1}", Case((step, [xs], h0)),
               lambda out, i=i: probes.steps_view()(out[i]), lambda out: probes.steps_view()(out[0]))


def _stream_after(case: Case, t: int) -> Case:
    step, segments, h0 = case.args
    cuts = np.cumsum([0, *map(len, segments)])
    return Case((step, [_replace_after(xs, max(t - start, 0), 100 * t + k) for k, (xs, start) in enumerate(zip(segments, cuts))], h0))


def _stream_joined(case: Case):
    step, segments, h0 = case.args
    yield "the whole stream run as one segment", Case((step, [np.concatenate([np.asarray(s, dtype=float) for s in segments])], h0))


def _entities_after(case: Case, t: int) -> Case:
    step, stream, h0 = case.args
    xs = _replace_after([x for _, x in stream], t, 100 * t)
    return Case((step, [(entity, x) for (entity, _), x in zip(stream, xs)], h0))


def _entity_pieces(case: Case):
    step, stream, h0 = case.args
    for s in range(1, len(stream)):
        if stream[s][0] != stream[s - 1][0]:
            yield (f"the run of entity {stream[s][0]!r} that starts at step {s + 1}", Case((step, stream[s:], h0)),
                   lambda out, s=s: probes.steps_view()(out)[s:], probes.steps_view(offset=s))


def _masked_after(case: Case, t: int) -> Case:
    step, X, lengths, h0 = case.args
    X = np.array(X, dtype=float)
    X[:, t:] = probes.replacement_values(X[:, t:].shape, 100 * t)
    return Case((step, X, lengths, h0))


def _masked_row(case: Case, r: int) -> Case:
    step, X, lengths, h0 = case.args
    X = np.array(X, dtype=float)
    X[r] = probes.replacement_values(X[r].shape, 1000 + r)
    return Case((step, X, lengths, h0))


def _masked_junk(case: Case):
    step, X, lengths, h0 = case.args
    padded = np.arange(np.shape(X)[1])[None, :] >= np.asarray(lengths)[:, None]
    for name, kind in probes.JUNK:
        X2 = np.array(X, dtype=float)
        X2[padded] = probes.junk(X2[padded].shape, kind, seed=7)
        yield name, Case((step, X2, lengths, h0))


def _loss_junk(case: Case):
    losses, mask = case.args
    for name, kind in probes.JUNK:
        junked = np.array(losses, dtype=float)
        junked[~np.asarray(mask, dtype=bool)] = abs(kind)
        yield name, Case((junked, mask))


def _generation_after(case: Case, t: int) -> Case:
    step, xs, h0 = case.args
    return Case((step, _replace_after(xs, t, 100 * t), h0))


def _bidirectional_after(case: Case, t: int) -> Case:
    step_f, step_b, xs, h0 = case.args
    return Case((step_f, step_b, _replace_after(xs, t, 100 * t), h0))


def _bidirectional_before(case: Case, t: int) -> Case:
    step_f, step_b, xs, h0 = case.args
    return Case((step_f, step_b, _replace_before(xs, t, 100 * t), h0))


_MASKED_STATES = lambda out: probes.batch_view()(out[0])  # noqa: E731

PROBES = {
    "run_independent": (
        probes.alone(_independent_pieces, message="probe.independent_sequences"),
        probes.causal(probes.sequences_view, lambda c: max(map(len, c.args[1])), _independent_after),
    ),
    "run_stream": (
        probes.same_result(probes.segments_view, _stream_joined, message="probe.stream_carry"),
        probes.causal(probes.segments_view, lambda c: sum(map(len, c.args[1])), _stream_after),
    ),
    "run_entities": (
        probes.alone(_entity_pieces, message="probe.entity_reset"),
        probes.causal(probes.steps_view(), lambda c: len(c.args[1]), _entities_after),
    ),
    "truncated_bptt_scalar": (
        probes.truncation_value(),
        probes.truncation_not_full(),
        probes.truncation_detached(),
    ),
    "masked_rnn_forward": (
        probes.same_result(probes.batch_view(final=True), _masked_junk, message="probe.padding_junk"),
        probes.rows_independent(probes.batch_view(final=True), lambda c: len(c.args[1]), _masked_row),
        probes.causal(_MASKED_STATES, lambda c: np.shape(c.args[1])[1], _masked_after),
    ),
    "masked_mean_loss": (
        probes.same_result(probes.value_view("the loss"), _loss_junk, message="probe.padding_junk_loss"),
    ),
    "generation_features": (
        probes.causal(probes.steps_view(), lambda c: len(c.args[1]), _generation_after, message="probe.causal_generation"),
    ),
    "bidirectional_features": (
        probes.causal(probes.columns_view(0, 2, "the forward half"), lambda c: len(c.args[2]), _bidirectional_after, message="probe.forward_half"),
        probes.anticausal(probes.columns_view(1, 2, "the backward half"), lambda c: len(c.args[2]), _bidirectional_before, message="probe.backward_half"),
    ),
}


def _exercise(label: str):
    return lambda: [Case(label=label)]


CHECKS = [
    Check("run_independent", ref.run_independent, _public_independent, draw=_draw_independent, probes=PROBES["run_independent"], points=1),
    Check("run_stream", ref.run_stream, _public_stream, draw=_draw_stream, probes=PROBES["run_stream"], points=1),
    Check("run_entities", ref.run_entities, _public_entities, draw=_draw_entities, probes=PROBES["run_entities"], points=2),
    Check("truncated_bptt_scalar", ref.truncated_bptt_scalar, _public_truncated, draw=_draw_truncated, exact=True,
          probes=PROBES["truncated_bptt_scalar"], points=3),
    Check("ex_12_7_3", ref.ex_12_7_3, _exercise("exercise 12.7.3 (reference answer 12.8)"), reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("masked_rnn_forward", ref.masked_rnn_forward, _public_masked, draw=_draw_masked, probes=PROBES["masked_rnn_forward"], points=3),
    Check("masked_mean_loss", ref.masked_mean_loss, _public_loss, draw=_draw_loss, probes=PROBES["masked_mean_loss"], points=1),
    Check("generation_features", ref.generation_features, _public_generation, draw=_draw_generation, probes=PROBES["generation_features"], points=1),
    Check("bidirectional_features", ref.bidirectional_features, _public_bidirectional, draw=_draw_bidirectional,
          probes=PROBES["bidirectional_features"], points=2),
    Check("ex_12_7_6", ref.ex_12_7_6, _exercise("exercise 12.7.6 (reference answer 12.8)"), reveal=False, points=0),  # a self-check: the points are its written answer's
]
