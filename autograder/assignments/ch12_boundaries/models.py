"""What several exercises of ch12_boundaries share: the third text's tanh RNN, the drawers of
steps, inputs, initial states and lengths, the branches of a nonzero h0 and of unequal widths, the
perturbation of later inputs for the causal probes, the self-checks' single case, and the reference
solution whose right functions the mistakes call."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from rnnkit.helpers import TanhStep

from ...vocabulary import draws, probes, template
from ...vocabulary.spec import Branch, Case


def third_text_step(W_h: float = 0.5) -> TanhStep:
    """The third text's scalar tanh RNN: W_x = 1, W_h = 0.5, b = 0 (states 0.7616, 0.3634, -0.6741 for 1, 0, -1)."""
    return TanhStep([[1.0]], [[W_h]], [0.0], name=f"third text: W_x = 1, W_h = {W_h}, b = 0")


def column(values) -> np.ndarray:
    return np.array(values, dtype=float).reshape(-1, 1)


def random_step(rng: random.Random, D: int, d: int) -> TanhStep:
    return TanhStep.seeded(rng.randrange(1, 10**6), D, d)


def random_dims(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 3), rng.randint(1, 3)


def _unequal_dims(rng: random.Random) -> tuple[int, int]:
    D, d = rng.sample([1, 2, 3], 2)
    return D, d


def random_inputs(rng: random.Random, T: int, D: int) -> np.ndarray:
    return draws.uniform(rng, (T, D), -1.5, 1.5)


def random_h0(rng: random.Random, d: int) -> np.ndarray:
    return draws.uniform(rng, (d,), -0.6, 0.6)


def random_lengths(rng: random.Random, B: int, T: int) -> np.ndarray:
    lengths = [rng.randint(1, T) for _ in range(B)]
    lengths[rng.randrange(B)] = rng.randint(1, T - 1)  # at least one padded row
    return np.array(lengths)


def seeded(seed: int, D: int = 3, d: int = 3) -> tuple[random.Random, TanhStep]:
    return random.Random(seed), TanhStep.seeded(seed, D, d)


def _nonzero(h0) -> bool:
    return bool(np.any(np.asarray(h0, dtype=float) != 0))


def widths_differ(step) -> bool:
    D, d = np.shape(step.W_x)
    return D != d


def size(step) -> tuple[int, int]:
    return tuple(np.shape(step.W_x))


def arg(index: int, test):
    """holds(case, expected) testing the case's argument `index`."""
    return lambda case, expected: bool(test(case.args[index]))


def nonzero_h0(index: int) -> Branch:
    return Branch(
        "nonzero_h0",
        arg(index, _nonzero),
        en="h0 is not zero: every sequence starts from the h0 given, not from zeros",
        zh="h0 不为零：序列从给定的 h0 出发，而不是从零出发",
    )


def unequal_widths(draw) -> Branch:
    return Branch(
        "input_width_differs",
        arg(0, widths_differ),
        lambda rng: draw(rng, dims=_unequal_dims),
        en="the input width D differs from the state width d",
        zh="输入宽度 D 与状态宽度 d 不同",
    )


def replace_after(xs, t: int, seed: int) -> np.ndarray:
    xs = np.array(xs, dtype=float)
    if len(xs) > t:
        xs[t:] = probes.replacement_values(xs[t:].shape, seed)
    return xs


def exercise(label: dict[str, str]):
    return lambda: [Case(label=label)]


#: The reference solution (the notebook's solution cells), whose right functions the mistakes call.
solution = template.module(Path(__file__).with_name("notebook.md"))
