"""What several exercises of ch12_bptt share: Example 12.1's givens, the scalar recursion's drawn sequences and
their lengths, helpers of drawers and branches, and the reference solution the mistakes call."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

from ...vocabulary import draws, template
from ...vocabulary.spec import Case
from ...vocabulary.symbolic import to_fraction
from . import reference as ref

#: The longest sequence a drawer of the scalar recursion draws (scalar_forward, bptt_scalar), and that of
#: update_and_recompute and 12.7.2: a public case of each length, so the self-check meets the largest size first.
LONGEST, LONGEST_UPDATE = 12, 8

#: Checks called twice on each case (`rnnkit.helpers.call_twice`: once on a copy, then on the case), so that
#: a gradient accumulator never reset between calls (a mutable default, a global) shows up as a wrong value
#: in the self-check as at grading: a sum over the uses of w, or over time, is made afresh in every call.
TWICE = "twice"

#: The reference solution (the notebook's solution cells), whose right functions the mistakes call.
SOLUTION = template.module(Path(__file__).with_name("notebook.md"))


def book():
    """Example 12.1's reads, w, target and learning rate, as fractions."""
    setup = ref.example_12_1()
    return (
        [to_fraction(x) for x in setup["xs"]],
        to_fraction(setup["w"]),
        to_fraction(setup["target"]),
        to_fraction(setup["lr"]),
    )


def sequence(rng: random.Random, longest: int = 12) -> list[Fraction]:
    return draws.rationals(rng, rng.randint(1, longest))


def long_reads(n: int) -> list[Fraction]:
    """Example 12.1's reads (1, 0, 0) continued to n reads with the second text's (1, 2, -1) in turn: a
    long distance as in Table 12.2."""
    pattern = [Fraction(1), Fraction(0), Fraction(0), Fraction(1), Fraction(2), Fraction(-1)]
    return [pattern[t % len(pattern)] for t in range(n)]


def start(case: Case):
    """The case's start state h0 (0 unless given)."""
    return case.kwargs.get("h0", 0)


def negative(rng: random.Random, low: int = -2) -> Fraction:
    return -abs(draws.rational(rng, low, -low, nonzero=True))


def replaced(case: Case, index: int, value) -> Case:
    """The case with its argument `index` replaced."""
    args = list(case.args)
    args[index] = value
    return Case(tuple(args), dict(case.kwargs))
