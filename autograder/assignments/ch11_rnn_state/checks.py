"""The checks of ch11_rnn_state: the book's cases of Tables 11.2-11.4, Examples 11.1-11.2, section 11.3
and exercise 11.7, and hidden cases on seeded random models (exercises 11.7.1 and 11.7.2 too: asked
of the book's model in the self-check, of random models at grading).

Random models keep the book's shapes (2-d embeddings and states, two candidates) but have entries of
both signs in 1/8 steps (so ReLU matters and float64 arithmetic stays exact), a non-symmetric W_h (so
`h_prev @ W_h` differs from `W_h @ h_prev`) and a shuffled vocabulary.
"""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
from rnnkit.helpers import load_model

from ... import draws
from ...checks import Case, Check
from ...config import DATA_DIR
from . import reference as ref

TOKENS = ("red", "blue", "filler", "key", "is", "door", "lamp")
NAMES = ("red", "blue", "green", "black", "white", "silver")


# ----------------------------------------------------------------------------- the book's model
def book_model() -> dict:
    """sequence-v1.json as float64 arrays: the notebook's own `load_model()` (the kit's), on the course's copy."""
    return load_model(DATA_DIR / "sequence-v1.json")


def _book(**changes) -> dict:
    model = book_model()
    model.update({key: np.array(value, dtype=float) for key, value in changes.items()})
    return model


# ----------------------------------------------------------------------------- random models
def _nonsymmetric(rng: random.Random, size: int = 2, largest: int = 6) -> np.ndarray:
    """A non-symmetric matrix with entries k/8, |k| <= largest."""
    while True:
        W = np.array([[rng.randint(-largest, largest) / 8 for _ in range(size)] for _ in range(size)])
        if not np.array_equal(W, W.T):
            return W


def _nonzero(rng: random.Random, scale: float = 0.5) -> np.ndarray:
    while True:
        v = draws.matrix(rng, 0, 2, scale=scale)
        if np.all(v != 0):
            return v


def random_model(rng: random.Random) -> dict:
    """A model with the book's keys and shapes; the token ids are shuffled."""
    size = rng.randint(5, len(TOKENS))
    ids = list(range(size))
    rng.shuffle(ids)
    vocabulary = dict(zip(TOKENS[:size], ids))
    model = {
        "embeddings": draws.matrix(rng, size, 2),
        "W_x": draws.matrix(rng, 2, 2),
        "W_h": _nonsymmetric(rng),
        "b_h": draws.matrix(rng, 0, 2, scale=0.5),
        "W_y": draws.matrix(rng, 2, 2),
        "b_y": _nonzero(rng),
        "candidates": ["red", "blue"],
        "vocabulary": vocabulary,
        "window_baseline": {"W": draws.matrix(rng, 4, 2), "b": draws.matrix(rng, 0, 2, scale=0.5)},
    }
    model["inputs"] = {f"{length}_{clue}": [vocabulary[clue], *[vocabulary["filler"]] * fillers, vocabulary["key"], vocabulary["is"]]
                       for length, fillers in (("short", 0), ("long", 6)) for clue in ("red", "blue")}
    return model


def _tokens(rng: random.Random, model: dict, shortest: int, longest: int = 12) -> list[int]:
    return [rng.randrange(len(model["embeddings"])) for _ in range(rng.randint(shortest, longest))]


def _exact(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in np.ravel(values)]


def _blue_margins(model: dict, most: int) -> tuple[list[Fraction], list[Fraction]]:
    """g(n) = logit(blue) - logit(red) without the output bias, after blue, n fillers, key, is, for
    n = 0..most (exact); and every state and logit computed on the way."""
    ids = model["vocabulary"]
    E = [[Fraction(float(v)) for v in r] for r in model["embeddings"]]
    W_x, W_h, W_y = ([[Fraction(float(v)) for v in r] for r in model[k]] for k in ("W_x", "W_h", "W_y"))
    b_h = _exact(model["b_h"])

    def step(x, h):
        return [max(Fraction(0), sum(x[i] * W_x[i][j] for i in range(2)) + sum(h[i] * W_h[i][j] for i in range(2)) + b_h[j]) for j in range(2)]

    h, margins, seen = step(E[ids["blue"]], [Fraction(0)] * 2), [], []
    for _ in range(most + 1):
        middle = step(E[ids["key"]], h)
        final = step(E[ids["is"]], middle)
        z = [sum(final[i] * W_y[i][j] for i in range(2)) for j in range(2)]
        margins.append(z[1] - z[0])
        seen += [*h, *middle, *final, *z]
        h = step(E[ids["filler"]], h)
    return margins, seen


def _float_exact(value: Fraction) -> bool:
    """True when float64 holds `value`, and any sum of a few such terms, exactly."""
    return value.denominator <= 2**40 and abs(value) < 2**8


def _tied_at(model: dict, rng: random.Random, lowest: int, highest: int) -> dict | None:
    """The model with its output bias set so that its answer to exercise 11.7.1 is a count drawn from
    lowest..highest and, as in the book, falls on an exact tie of the two logits (so the tie rule
    decides it); None when no count there can be, or when float64 would not hold every value on the
    way exactly (they must be dyadic rationals, so that the student's floats see the same tie)."""
    least = Fraction(1, 2**20)  # a margin no rounding can blur
    margins, seen = _blue_margins(model, highest + 1)
    if not all(_float_exact(value) for value in margins + seen):
        return None
    records = [n for n in range(lowest, highest + 1) if all(margins[m] - margins[n] >= least for m in range(n))]
    if not records:
        return None
    target = rng.choice(records)
    blue_bias = Fraction(rng.randint(-4, 4), 8)
    model["b_y"] = np.array([float(blue_bias + margins[target]), float(blue_bias)])
    return model


def flip_model(rng: random.Random) -> dict:
    """A random model whose answer to exercise 11.7.1 is between 2 and 10, on an exact tie."""
    while (model := _tied_at(random_model(rng), rng, 2, 10)) is None:
        pass
    return model


def late_flip_model(rng: random.Random) -> dict:
    """A random model whose answer to exercise 11.7.1 lies near the end of the search (90 to 100
    fillers), on an exact tie: red gains the same small dyadic amount on every filler (W_h keeps both
    coordinates and passes a share of the clue's to red; b_h and the filler add more), and `is`
    pushes the clue's coordinate below zero, so that ReLU and b_h matter."""
    while True:
        model = random_model(rng)
        ids, clue = model["vocabulary"], rng.randint(4, 8) / 8
        for token, row in (("blue", [0, clue]), ("filler", [rng.randint(0, 2) / 64, 0]), ("key", [0, 0]), ("is", [0, -2 * clue])):
            model["embeddings"][ids[token]] = row
        model.update(W_x=np.eye(2), W_h=np.array([[1, 0], [rng.randint(1, 4) / 64, 1]]), b_h=np.array([rng.randint(1, 2) / 64, 0]),
                     W_y=np.eye(2))
        if (tied := _tied_at(model, rng, 90, 100)) is not None:
            return tied


def _draw_min_fillers(rng: random.Random) -> Case:
    """Three draws in ten flip late (near the search's end), the others after 2 to 10 fillers."""
    return Case((late_flip_model(rng) if rng.random() < 0.3 else flip_model(rng),))


def _draw_exercise_11_7_1(rng: random.Random) -> Case:
    """Exercise 11.7.1 asked of a random model whose answer is 2 to 10 fillers, on an exact tie (the
    book's is 1), so the count, the state and the logits all differ from the book's."""
    while ref.min_fillers_to_flip(model := flip_model(rng)) is None:  # never so by construction: an answer exists
        pass
    return Case((model,))


def _draw_exercise_11_7_2(rng: random.Random) -> Case:
    """Exercise 11.7.2 asked of a random model (its `long_blue`: the clue, six fillers, `key is`): a
    non-symmetric W_h, whose off-diagonal entries stay, and entries of both signs in 1/8 and 1/16
    steps, so that float64 holds every value of the nine reads exactly (denominators at most 2^33,
    magnitudes below 2^9); the choice goes either way."""
    return Case((random_model(rng),))


# ----------------------------------------------------------------------------- public cases
def _floats(values) -> list[float]:
    return [float(v) for v in values]


def _public_relu():
    return [Case((np.array([-1.0, 0.5]),), label="section 11.2: ReLU of [-1, 0.5]"),
            Case((np.array([0.25, 0.0]),), label="Table 11.2, read 3: [0.25, 0] stays")]


def _public_softmax():
    return [Case((np.array([0.375, 0.0]),), label="Example 11.1: z_3 = [0.375, 0]"),
            Case((np.array([1.125, 0.0]),), label="Table 11.3, read 1: [1.125, 0]"),
            Case((np.array([1000.0, 999.0]),), label="large logits [1000, 999] (numerical stability)")]


def _public_choose():
    m = book_model()
    red_short = _floats(ref.softmax(np.array([0.375, 0.0])))
    blue_short = _floats(ref.softmax(np.array([0.125, 0.25])))
    return [Case((red_short, m["candidates"]), label="Example 11.1: [0.592667, 0.407333]"),
            Case((blue_short, m["candidates"]), label="Example 11.2: [0.468791, 0.531209]"),
            Case(([0.5, 0.5], m["candidates"]), label="exercise 11.7.1: a tie [0.5, 0.5]")]


def _public_rnn_step():
    m = book_model()
    x = {t: m["embeddings"][i] for t, i in m["vocabulary"].items()}
    weights = (m["W_x"], m["W_h"], m["b_h"])
    return [Case((x["red"], np.zeros(2), *weights), label="Table 11.2, read 1: red from [0, 0]"),
            Case((x["key"], np.array([1.0, 0.0]), *weights), label="Table 11.2, read 2: key from [1, 0]"),
            Case((x["is"], np.array([0.5, 0.0]), *weights), label="Table 11.2, read 3: is from [0.5, 0]"),
            Case((np.array([-1.0, 0.0]), np.array([0.5, 1.0]), *weights), label="section 11.2: a negative input is cut by ReLU"),
            # the book's b_h is zero, so it cannot show the bias missing
            Case((x["key"], np.array([1.0, 0.0]), m["W_x"], m["W_h"], np.array([0.25, -0.5])),
                 label="Table 11.2, read 2, with b_h = [0.25, -0.5] instead of the book's zero bias"),
            # the book's W_h is diagonal (symmetric), so it cannot tell h_prev @ W_h from W_h @ h_prev
            Case((x["key"], np.array([1.0, 0.0]), m["W_x"], np.array([[0.5, 0.25], [0.0, 0.5]]), m["b_h"]),
                 label="Table 11.2, read 2, with a non-symmetric W_h = [[0.5, 0.25], [0, 0.5]] instead of the book's")]


def _public_output_logits():
    m = book_model()
    return [Case((np.array(h), m["W_y"], m["b_y"]), label=f"Table 11.3, read {t}: h = {h}")
            for t, h in ((1, [1.0, 0.0]), (2, [0.5, 0.0]), (3, [0.25, 0.0]))]


def _public_run_rnn():
    m = book_model()
    labels = {"short_red": "Table 11.3: red key is", "short_blue": "Example 11.2: blue key is",
              "long_red": "Table 11.4: red, six fillers, key is", "long_blue": "Table 11.4: blue, six fillers, key is"}
    return [Case((m["inputs"][name], m), label=label) for name, label in labels.items()]


def _public_window():
    m = book_model()
    # The book's window adds the two embeddings (its W repeats [1, 0], [0, 1]) and its inputs end in
    # `key is` (two zero rows), so no book case shows the order of the two embeddings: the last case
    # halves the rows of the earlier token and ends in two different colours.
    ids = m["vocabulary"]
    older_halved = {"W": np.array([[0.5, 0.0], [0.0, 0.5], [1.0, 0.0], [0.0, 1.0]]), "b": m["window_baseline"]["b"].copy()}
    return [Case((m["inputs"]["short_blue"], m), label="section 11.3: blue key is"),
            Case((m["inputs"]["long_red"], m), label="Table 11.4: the long red input"),
            Case((m["inputs"]["long_blue"], m), label="Table 11.4: the long blue input"),
            Case(([ids["filler"], ids["red"], ids["blue"]], {**m, "window_baseline": older_halved}),
                 label="filler red blue, with a window W whose earlier-token rows are halved ([0.5, 0], [0, 0.5], [1, 0], [0, 1]) instead of the book's")]


def _public_min_fillers():
    # W_h = I and a filler embedding [1/128, 0]: red gains 1/128 per filler, so that b_y = [28/128, 0]
    # ties after 100 fillers, the last count searched
    drifting = _book(W_h=np.eye(2), embeddings=[[1, 0], [0, 1], [1 / 128, 0], [0, 0], [0, 0]], b_y=[28 / 128, 0])
    # the same drift one step short: the tie would come after 101 fillers, past the search, so None
    short = _book(W_h=np.eye(2), embeddings=[[1, 0], [0, 1], [1 / 128, 0], [0, 0], [0, 0]], b_y=[27 / 128, 0])
    return [Case((book_model(),), label="exercise 11.7.1: the book's model"),
            Case((_book(b_y=[0.0625, 0.0]),), label="the book's model with the red bias halved to 1/16"),
            Case((drifting,), label="W_h = I, a filler embedding [1/128, 0], b_y = [28/128, 0]: a tie after 100 fillers"),
            Case((short,), label="W_h = I, a filler embedding [1/128, 0], b_y = [27/128, 0]: no flip within 100 fillers (None)"),
            Case((_book(W_h=np.array([[0.5, 0.0], [0.0, 1.0]])),), label="the book's model with W_h = [[1/2, 0], [0, 1]]: it never flips (None)")]


def _public_exercise(number: str):
    """The exercise asked of the book's model (checked against 11.8's answer; the hidden cases ask it
    of other models)."""
    return lambda: [Case((book_model(),), label=f"exercise {number}: the book's model")]


# ----------------------------------------------------------------------------- hidden draws
def _draw_relu(rng: random.Random) -> Case:
    v = draws.matrix(rng, 0, rng.randint(1, 6))
    v[rng.randrange(len(v))] = -rng.randint(1, 8) / 8
    return Case((v,))


def _draw_softmax(rng: random.Random) -> Case:
    z = draws.matrix(rng, 0, rng.randint(2, 6), scale=rng.choice([1, 2, 4]))
    if rng.random() < 0.3:
        z = z + rng.choice([-1, 1]) * rng.randint(700, 1000)  # exp of these overflows without the shift
    return Case((z,))


def _draw_choose(rng: random.Random) -> Case:
    size = rng.randint(2, 5)
    names = rng.sample(NAMES, size)
    weights = [rng.randint(1, 9) for _ in range(size)]
    tied = rng.sample(range(size), rng.randint(2, size))
    top = max(weights) + rng.randint(0, 2)
    for i in tied:
        weights[i] = top
    total = sum(weights)
    probs = [w / total for w in weights]  # equal weights give bit-identical probabilities
    return Case((np.array(probs) if rng.random() < 0.5 else probs, names))


def _draw_rnn_step(rng: random.Random) -> Case:
    return Case((draws.matrix(rng, 0, 2), draws.matrix(rng, 0, 2, scale=2), draws.matrix(rng, 2, 2), _nonsymmetric(rng, largest=8),
                 draws.matrix(rng, 0, 2, scale=0.5)))


def _draw_output_logits(rng: random.Random) -> Case:
    return Case((draws.matrix(rng, 0, 2, scale=2), draws.matrix(rng, 2, 2), _nonzero(rng)))


def _draw_run_rnn(rng: random.Random) -> Case:
    model = random_model(rng)
    return Case((_tokens(rng, model, 2), model))  # one read cannot tell a carried state from a refetched clue


def _draw_window(rng: random.Random) -> Case:
    model = random_model(rng)
    return Case((_tokens(rng, model, 3), model))  # with two tokens the first two are the last two


CHECKS = [
    Check("relu", ref.relu, _public_relu, draw=_draw_relu, points=1),
    Check("softmax", ref.softmax, _public_softmax, draw=_draw_softmax, points=1),
    Check("choose", ref.choose, _public_choose, draw=_draw_choose, points=1),
    Check("rnn_step", ref.rnn_step, _public_rnn_step, draw=_draw_rnn_step, points=2),
    Check("output_logits", ref.output_logits, _public_output_logits, draw=_draw_output_logits, points=1),
    Check("run_rnn", ref.run_rnn, _public_run_rnn, draw=_draw_run_rnn, call="after_warm_up", points=3),
    Check("window_logits", ref.window_logits, _public_window, draw=_draw_window, points=2),
    # reveal=False: the book's case is the answer of exercise 11.7.1, which the self-check must not show
    Check("min_fillers_to_flip", ref.min_fillers_to_flip, _public_min_fillers, draw=_draw_min_fillers, reveal=False, points=2),
    # exercises 11.7.1 and 11.7.2 asked of the book's model (reveal=False: the self-check does not show
    # 11.8's answer), graded on other models
    Check("ex_11_7_1", ref.ex_11_7_1, _public_exercise("11.7.1"), draw=_draw_exercise_11_7_1, reveal=False, points=1),
    Check("ex_11_7_2", ref.ex_11_7_2, _public_exercise("11.7.2"), draw=_draw_exercise_11_7_2, reveal=False, points=1),
    Check("ex_11_7_3", ref.ex_11_7_3, lambda: [Case(label="exercise 11.7.3")], reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("ex_11_7_4", ref.ex_11_7_4, lambda: [Case(label="exercise 11.7.4")], reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("ex_11_7_5", ref.ex_11_7_5, lambda: [Case(label="exercise 11.7.5")], reveal=False, points=0),  # a self-check: the points are its written answer's
]
