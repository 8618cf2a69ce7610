"""Random inputs for hidden cases: exact rationals, float matrices, uniform float arrays."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from rnnkit.helpers import uniform  # noqa: F401  (one drawer for the kit's seeded steps and the checks)

DENOMINATORS = (1, 2, 3, 4, 5, 8, 10)


def rational(
    rng: random.Random, low: int = -2, high: int = 2, denominators=DENOMINATORS, nonzero: bool = False
) -> Fraction:
    """A Fraction in [low, high] with a small denominator."""
    while True:
        d = rng.choice(denominators)
        value = Fraction(rng.randint(low * d, high * d), d)
        if value or not nonzero:
            return value


def rationals(rng: random.Random, n: int, **kw) -> list[Fraction]:
    """`n` independent rationals."""
    return [rational(rng, **kw) for _ in range(n)]


def matrix(rng: random.Random, rows: int, cols: int, scale: float = 1.0) -> np.ndarray:
    """A float64 matrix (or vector when `rows` is 0) with entries of both signs, in 1/8 steps."""
    shape = (cols,) if rows == 0 else (rows, cols)
    return np.array([rng.randint(-8, 8) / 8 * scale for _ in range(int(np.prod(shape)))], dtype=float).reshape(shape)
