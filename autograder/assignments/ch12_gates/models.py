"""What two or more exercises of ch12_gates share: the book-style case builders (a cell case from a
setup, the logit of a given gate value, matrices by a formula), the branch tests on entries and on
gates near a limit, the gate values drawn for the exercises 12.7.4-5, the random LSTM and GRU
parameters (widest step, full matrices, saturating biases), and the cases, drawer and branches of
the four parameter counts."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np

from ...vocabulary import draws
from ...vocabulary.spec import Branch, Case
from ...vocabulary.symbolic import to_fraction
from . import reference as ref


def cell_case(setup: dict, label: dict[str, str], **override) -> Case:
    values = {**setup, **override}
    return Case(tuple(to_fraction(values[key]) for key in ("c_prev", "f", "i", "g", "o")), label=label)


def logit(p) -> float:
    """The preactivation whose sigmoid is the gate value p (how a given gate value enters a step)."""
    p = float(p)
    return math.log(p / (1 - p))


def pattern(rows: int, cols: int, shift: int) -> np.ndarray:
    """A full matrix of eighths in [-1, 1], by a formula (a public case's weights): no symmetry, no
    zero row, and another matrix for every `shift`."""
    return np.array([[((3 * r + 5 * c + 7 * shift) % 17 - 8) / 8 or 0.5 for c in range(cols)] for r in range(rows)])


#: A gate within this of 0 or 1 is a closed or an open gate (a float step reaches the limits only so).
SATURATED = 1e-6


def entries(value) -> list:
    """The entries of a number or an array, as a flat list."""
    return list(np.asarray(value, dtype=object).reshape(-1))


def any_entry(value, test) -> bool:
    return any(test(item) for item in entries(value))


def near(values: np.ndarray, target: float) -> np.ndarray:
    return np.abs(values - target) <= SATURATED


def gate(rng: random.Random, limits: float = 0.15) -> Fraction:
    """A gate value: a limit setting (0 or 1) with probability `limits`, else strictly between them."""
    if rng.random() < limits:
        return Fraction(rng.choice([0, 1]))
    d = rng.choice((3, 4, 5, 8, 10))
    return Fraction(rng.randint(1, d - 1), d)


def between(rng: random.Random) -> Fraction:
    return gate(rng, limits=0)


#: The widest step drawn: input width m and hidden width d.
STEP_M, STEP_D = 4, 5


def full_matrix(rng: random.Random, rows: int, cols: int) -> np.ndarray:
    """A full matrix: every row and column has an entry off the diagonal (no coordinate stays on its own)."""
    A = draws.matrix(rng, rows, cols)
    for k in range(rows):
        A[k, (k + 1) % cols] += rng.choice([-0.5, 0.5]) if cols > 1 or rows > 1 else 0.0
    return A


def gate_bias(rng: random.Random, d: int) -> np.ndarray:
    """A bias; about a third of its coordinates push the gate near 0 or 1 (|bias| from 4 to 9)."""
    b = draws.matrix(rng, 0, d, scale=0.5)
    for k in range(d):
        if rng.random() < 0.35:
            b[k] = rng.choice([-1, 1]) * rng.uniform(4, 9)
    return b


def saturate(params: dict, rng: random.Random, k: int, **gates) -> None:
    """Push gate `name` of coordinate k to its limit (1 or 0): a bias of 30 to 45 outweighs any drawn
    u A (at most 11.5 inputs of size up to 1.5 times entries up to 1.5), so the gate is within
    1e-7 of the limit."""
    for name, limit in gates.items():
        params[f"b_{name}"][k] = (1 if limit else -1) * rng.uniform(30, 45)


COUNT_MOST = 64


def count_public():
    D, H = ref.PARAM_COUNT["D"], ref.PARAM_COUNT["H"]
    return lambda: [
        Case((D, H), label={"en": f"third text: D = {D}, H = {H}", "zh": f"第三份教材：D = {D}, H = {H}"}),
        Case(
            (COUNT_MOST, COUNT_MOST),
            label={
                "en": f"the largest widths drawn: D = {COUNT_MOST}, H = {COUNT_MOST}",
                "zh": f"抽取的最大宽度：D = {COUNT_MOST}，H = {COUNT_MOST}",
            },
        ),
    ]


def count_draw(rng: random.Random) -> Case:
    return Case((rng.randint(1, COUNT_MOST), rng.randint(1, COUNT_MOST)))


COUNT_BRANCHES = (
    Branch(
        "input_one",
        lambda case, expected: case.args[0] == 1,
        lambda rng: Case((1, rng.randint(2, COUNT_MOST))),
        en="input width D = 1",
        zh="输入宽度 D = 1",
    ),
    Branch(
        "hidden_one",
        lambda case, expected: case.args[1] == 1,
        lambda rng: Case((rng.randint(2, COUNT_MOST), 1)),
        en="hidden width H = 1",
        zh="隐藏宽度 H = 1",
    ),
    Branch(
        "largest",
        lambda case, expected: case.args[0] >= COUNT_MOST and case.args[1] >= COUNT_MOST,
        lambda rng: Case((COUNT_MOST, COUNT_MOST)),
        en="the largest widths drawn",
        zh="抽取的最大宽度",
    ),
)
