"""`choose`: the candidate of the highest probability, a tie to the one listed first (Examples 11.1 and
11.2, the tie rule of exercise 11.7.1)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import book_model

NAMES = ("red", "blue", "green", "black", "white", "silver")


def _floats(values) -> list[float]:
    return [float(v) for v in values]


def public():
    m = book_model()
    red_short = _floats(ref.softmax(np.array([0.375, 0.0])))
    blue_short = _floats(ref.softmax(np.array([0.125, 0.25])))
    return [
        Case(
            (red_short, m["candidates"]),
            label={"en": "Example 11.1: [0.592667, 0.407333]", "zh": "例11.1：[0.592667, 0.407333]"},
        ),
        Case(
            (blue_short, m["candidates"]),
            label={"en": "Example 11.2: [0.468791, 0.531209]", "zh": "例11.2：[0.468791, 0.531209]"},
        ),
        Case(
            ([0.5, 0.5], m["candidates"]),
            label={"en": "exercise 11.7.1: a tie [0.5, 0.5]", "zh": "习题11.7.1：平局 [0.5, 0.5]"},
        ),
        # the hidden cases have up to five candidates; here the tie leaves out the first
        Case(
            ([0.1, 0.3, 0.3, 0.2, 0.1], ["red", "blue", "green", "black", "white"]),
            label={
                "en": "five candidates red, blue, green, black, white with [0.1, 0.3, 0.3, 0.2, 0.1]: a tie of blue "
                "and green",
                "zh": "五个候选 red、blue、green、black、white，概率 [0.1, 0.3, 0.3, 0.2, 0.1]：blue与green平局",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
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


def _choose_branch_draw(kind: str):
    def draw_kind(rng: random.Random) -> Case:
        size = rng.randint(3, 5)
        names = rng.sample(NAMES, size)
        weights = [rng.randint(1, 6) for _ in range(size)]
        top = 7 + rng.randint(0, 2)
        tied = (
            rng.sample(range(1, size), 2) if kind == "tie_not_first" else rng.sample(range(size), rng.randint(3, size))
        )
        for i in tied:
            weights[i] = top
        total = sum(weights)
        probs = [w / total for w in weights]  # equal weights give bit-identical probabilities
        return Case((np.array(probs) if rng.random() < 0.5 else probs, names))

    return draw_kind


def _tops(case) -> list[int]:
    probs = [Fraction(float(p)) for p in case.args[0]]
    return [i for i, p in enumerate(probs) if p == max(probs)]


BRANCHES = (
    Branch(
        "tie_at_top",
        lambda case, _: len(_tops(case)) >= 2,
        _choose_branch_draw("three_way_tie"),
        en="an exact tie at the top",
        zh="最高概率恰好相等（平局）",
    ),
    Branch(
        "later_wins",
        lambda case, _: _tops(case)[0] > 0,
        _choose_branch_draw("tie_not_first"),
        en="a candidate after the first wins",
        zh="排在第一个之后的候选胜出",
    ),
    Branch(
        "tie_not_first",
        lambda case, _: len(_tops(case)) >= 2 and _tops(case)[0] > 0,
        _choose_branch_draw("tie_not_first"),
        en="a tie at the top that leaves out the first candidate",
        zh="并列最高的候选里没有第一个候选",
    ),
    Branch(
        "three_way_tie",
        lambda case, _: len(_tops(case)) >= 3,
        _choose_branch_draw("three_way_tie"),
        en="three or more candidates tied at the top",
        zh="三个或更多候选并列最高",
    ),
)


CHECK = Check("choose", ref.choose, public, draw=draw, points=1, branches=BRANCHES)


def _tie_to_another(got, case, expected) -> bool:
    """A tie given to a tied candidate after the first, by whatever rule (the last, the name)."""
    tops = _tops(case)
    return isinstance(got, str) and len(tops) >= 2 and got in [case.args[1][i] for i in tops[1:]]


@mistake(
    "choose",
    recognise=_tie_to_another,
    en="On an exact tie your choice went to a later candidate. The book's tie rule gives a tie to the candidate "
    "listed first in `candidates`: only a strictly higher probability should replace the current best.",
    zh="遇到恰好相等的平局时，你选了排在后面的候选。书中的平局规则把平局判给`candidates`中排在前面的候选："
    "只有严格更高的概率才能取代当前的最佳候选。",
)
def tie_to_last(probs, candidates):
    best = 0
    for i in range(1, len(candidates)):
        if probs[i] >= probs[best]:
            best = i
    return candidates[best]


@mistake(
    "choose",
    en="You returned a position, not a candidate. `choose` returns the entry of `candidates` itself (for example the "
    'string "red").',
    zh='你返回的是位置，而不是候选。`choose`返回的是`candidates`中的那个元素本身（例如字符串"red"）。',
)
def choice_as_index(probs, candidates):
    return int(np.argmax(probs))
