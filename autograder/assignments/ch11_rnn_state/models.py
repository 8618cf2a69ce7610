"""What two or more exercise modules of ch11_rnn_state share: the book's model (`book_model`; `_book`
and `_drifting` for it with some entries changed), the seeded random models of the hidden cases
(`random_model`, and `flip_model` and `late_flip_model`, whose answer to exercise 11.7.1 falls on an
exact tie), the exact arithmetic that builds them, the drawers of inputs and of exercise 11.7.1's
branches, small helpers, and `_flip_one_transition_late`, which mistakes of two checks call.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
from gmpy2 import mpq

from rnnkit.helpers import load_model

from ...coursedir.config import DATA_DIR
from ...vocabulary import draws, template
from ...vocabulary.spec import Case
from . import reference as ref

TOKENS = ("red", "blue", "filler", "key", "is", "door", "lamp")
#: The longest input a hidden case of run_rnn or window_logits draws (a public case has this length).
LONGEST = 12


def book_model() -> dict:
    """sequence-v1.json as float64 arrays: the notebook's own `load_model()` (the kit's), on the course's copy."""
    return load_model(DATA_DIR / "sequence-v1.json")


def _book(**changes) -> dict:
    model = book_model()
    model.update({key: np.array(value, dtype=float) for key, value in changes.items()})
    return model


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
    model["inputs"] = {
        f"{length}_{clue}": [vocabulary[clue], *[vocabulary["filler"]] * fillers, vocabulary["key"], vocabulary["is"]]
        for length, fillers in (("short", 0), ("long", 6))
        for clue in ("red", "blue")
    }
    return model


def _tokens(rng: random.Random, model: dict, shortest: int, longest: int = LONGEST) -> list[int]:
    return [rng.randrange(len(model["embeddings"])) for _ in range(rng.randint(shortest, longest))]


def _exact(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in np.ravel(values)]


def _blue_margins(model: dict, most: int, float_exact: bool = False, number=mpq) -> tuple[list, list] | None:
    """g(n) = logit(blue) - logit(red) without the output bias, after blue, n fillers, key, is, for
    n = 0..most (exact in GMP's rationals, or in floats with `number=float`: a quick look before the
    exact pass); and every state and logit computed on the way (2-d, written out: this runs for every
    model a drawer tries). With `float_exact`, None as soon as a value is not `_float_exact`."""
    ids = model["vocabulary"]
    E = [[number(float(v)) for v in r] for r in model["embeddings"]]
    W_x, W_h, W_y = ([[number(float(v)) for v in r] for r in model[k]] for k in ("W_x", "W_h", "W_y"))
    b_h, zero = [number(float(v)) for v in np.ravel(model["b_h"])], number(0)

    def step(x, h):
        return [
            max(zero, x[0] * W_x[0][j] + x[1] * W_x[1][j] + h[0] * W_h[0][j] + h[1] * W_h[1][j] + b_h[j])
            for j in (0, 1)
        ]

    h, margins, seen = step(E[ids["blue"]], [zero, zero]), [], []
    for _ in range(most + 1):
        middle = step(E[ids["key"]], h)
        final = step(E[ids["is"]], middle)
        z = [final[0] * W_y[0][j] + final[1] * W_y[1][j] for j in (0, 1)]
        margins.append(z[1] - z[0])
        seen += [*h, *middle, *final, *z]
        if float_exact and not all(map(_float_exact, [margins[-1], *h, *middle, *final, *z])):
            return None
        h = step(E[ids["filler"]], h)
    return margins, seen


def _float_exact(value: mpq) -> bool:
    """True when float64 holds `value`, and any sum of a few such terms, exactly."""
    return value.denominator <= 2**40 and abs(value) < 2**8


def _tied_at(model: dict, rng: random.Random, lowest: int, highest: int) -> dict | None:
    """The model with its output bias set so that its answer to exercise 11.7.1 is a count drawn from
    lowest..highest and, as in the book, falls on an exact tie of the two logits (so the tie rule
    decides it); None when no count there can be, or when float64 would not hold every value on the
    way exactly (they must be dyadic rationals, so that the student's floats see the same tie)."""
    least = Fraction(1, 2**20)  # a margin no rounding can blur
    rough, _ = _blue_margins(model, highest + 1, number=float)
    if not any(all(rough[m] - rough[n] >= least / 2 for m in range(n)) for n in range(lowest, highest + 1)):
        return None  # no record count even in floats (far inside the margin): the exact pass would find none
    found = _blue_margins(model, highest + 1, float_exact=True)
    if found is None:
        return None
    margins, _ = found
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


def late_flip_model(rng: random.Random, lowest: int = 90, highest: int = 100) -> dict:
    """A random model whose answer to exercise 11.7.1 lies near the end of the search (`lowest` to
    `highest`, 90 to 100 fillers by default), on an exact tie: red gains the same small dyadic amount
    on every filler (W_h keeps both coordinates and passes a share of the clue's to red; b_h and the
    filler add more), and `is` pushes the clue's coordinate below zero, so that ReLU and b_h matter.
    W_x is not symmetric (it passes a share of the clue to red), so `W_x @ x` reads other inputs."""
    while True:
        model = random_model(rng)
        ids, clue = model["vocabulary"], rng.randint(4, 8) / 8
        for token, row in (
            ("blue", [0, clue]),
            ("filler", [rng.randint(0, 2) / 64, 0]),
            ("key", [0, 0]),
            ("is", [0, -2 * clue]),
        ):
            model["embeddings"][ids[token]] = row
        model.update(
            W_x=np.array([[1, 0], [rng.randint(1, 4) / 64, 1]]),
            W_h=np.array([[1, 0], [rng.randint(1, 4) / 64, 1]]),
            b_h=np.array([rng.randint(1, 2) / 64, 0]),
            W_y=np.eye(2),
        )
        if (tied := _tied_at(model, rng, lowest, highest)) is not None:
            return tied


def _floats_of(values) -> list[float]:
    return [float(v) for v in np.ravel(np.asarray(values, dtype=float))]


def _draw_tokens_of_length(length: int):
    def draw(rng: random.Random) -> Case:
        model = random_model(rng)
        return Case((_tokens(rng, model, length, length), model))

    return draw


def _drifting(red_bias: int) -> dict:
    """The book's model with W_h = I (the blue clue stays 1) and a filler embedding [1/128, 0] (red gains
    1/128 per filler): with b_y = [red_bias/128, 0] the logits tie after 128 - red_bias fillers (after
    100, the last count searched, for red_bias = 28)."""
    return _book(W_h=np.eye(2), embeddings=[[1, 0], [0, 1], [1 / 128, 0], [0, 0], [0, 0]], b_y=[red_bias / 128, 0])


def _never_flips(rng: random.Random) -> dict:
    """A model of `late_flip_model` that would tie after 100 fillers (red gains on every filler, so the
    margin is smallest there) with red's bias lowered a little: no count up to the bound flips, None."""
    model = late_flip_model(rng, ref.MAX_FILLERS, ref.MAX_FILLERS)
    model["b_y"] = model["b_y"] - np.array([rng.randint(1, 8) / 64, 0.0])
    return model


def _min_fillers_draw(kind: str):
    def draw(rng: random.Random) -> Case:
        if kind == "zero":
            while (model := _tied_at(random_model(rng), rng, 0, 0)) is None:
                pass
        elif kind == "bound":
            model = late_flip_model(rng, ref.MAX_FILLERS, ref.MAX_FILLERS)
        elif kind == "none":
            model = _never_flips(rng)
        else:
            model = flip_model(rng)
        return Case((model,))

    return draw


def _logits_level(expected) -> bool:
    return expected["logits"][0] == expected["logits"][1]


#: The reference solution's functions (the notebook's solution cells) that `_flip_one_transition_late` calls.
_solution = template.module(Path(__file__).with_name("notebook.md"))
choose, output_logits, rnn_step = _solution.choose, _solution.output_logits, _solution.rnn_step


def _flip_one_transition_late(model):
    """The first filler count n whose sequence, read with one transition too many after the clue
    (n + 3 tokens taken as n + 3 updates), makes red win, with that state and its logits; or None."""
    ids = model["vocabulary"]

    def step(token: str, h: np.ndarray) -> np.ndarray:
        return rnn_step(model["embeddings"][ids[token]], h, model["W_x"], model["W_h"], model["b_h"])

    h = step("filler", step("blue", np.zeros(len(model["b_h"]))))  # the clue and the filler too many
    for fillers in range(101):
        final = step("is", step("key", h))
        logits = output_logits(final, model["W_y"], model["b_y"])
        if choose(logits, model["candidates"]) == model["candidates"][0]:
            return fillers, final, logits
        h = step("filler", h)
    return None
