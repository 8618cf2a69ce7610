"""`min_fillers_to_flip`: exercise 11.7.1's search, the fewest fillers between `blue` and `key is` that
make the RNN choose the first candidate (red), or None when no count up to 100 does."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import (
    _blue_margins,
    _book,
    _drifting,
    _exact,
    _flip_one_transition_late,
    _min_fillers_draw,
    book_model,
    flip_model,
    late_flip_model,
)


def public():
    # a tie after 100 fillers, the last count searched; one step short, the tie would come after 101
    # fillers, past the search, so None
    drifting, short = _drifting(28), _drifting(27)
    return [
        Case((book_model(),), label={"en": "exercise 11.7.1: the book's model", "zh": "习题11.7.1：书中的模型"}),
        Case(
            (_book(b_y=[0.5, 0.0]),),
            label={
                "en": "the book's model with the red bias raised to 1/2: red wins with no filler at all",
                "zh": "书中的模型，红色偏置提高到1/2：一个filler都不插入，红色就胜出",
            },
        ),
        Case(
            (_book(b_y=[0.0625, 0.0]),),
            label={"en": "the book's model with the red bias halved to 1/16", "zh": "书中的模型，红色偏置减半为1/16"},
        ),
        Case(
            (drifting,),
            label={
                "en": "W_h = I, a filler embedding [1/128, 0], b_y = [28/128, 0]: a tie after 100 fillers",
                "zh": "W_h = I，filler的嵌入为 [1/128, 0]，b_y = [28/128, 0]：插入100个filler之后出现平局",
            },
        ),
        Case(
            (short,),
            label={
                "en": "W_h = I, a filler embedding [1/128, 0], b_y = [27/128, 0]: no flip within 100 fillers (None)",
                "zh": "W_h = I，filler的嵌入为 [1/128, 0]，b_y = [27/128, 0]：插入不超过100个filler都不会翻转（None）",
            },
        ),
        Case(
            (_book(W_h=np.array([[0.5, 0.0], [0.0, 1.0]])),),
            label={
                "en": "the book's model with W_h = [[1/2, 0], [0, 1]]: it never flips (None)",
                "zh": "书中的模型，但 W_h = [[1/2, 0], [0, 1]]：永远不会翻转（None）",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    """Three draws in ten flip late (near the search's end), the others after 2 to 10 fillers."""
    return Case((late_flip_model(rng) if rng.random() < 0.3 else flip_model(rng),))


def _flips_on_a_tie(model: dict, fillers: int) -> bool:
    """True when the logits after `fillers` fillers are exactly level (the tie rule decides)."""
    margins, _ = _blue_margins(model, fillers)
    bias = _exact(model["b_y"])
    return margins[fillers] == bias[0] - bias[1]


BRANCHES = (
    Branch(
        "zero",
        lambda case, expected: expected == 0,
        None,  # one filler more flips too: a count one short is right
        en="the first candidate wins with no filler at all (0)",
        zh="一个filler都不插入，第一个候选就胜出（0）",
    ),
    Branch(
        "bound",
        lambda case, expected: expected == ref.MAX_FILLERS,
        _min_fillers_draw("bound"),
        en=f"the flip comes at the last count searched ({ref.MAX_FILLERS})",
        zh=f"翻转恰好发生在搜索的最后一个计数（{ref.MAX_FILLERS}）",
    ),
    Branch(
        "none",
        lambda case, expected: expected is None,
        _min_fillers_draw("none"),
        en=f"no count up to {ref.MAX_FILLERS} flips (None)",
        zh=f"不超过{ref.MAX_FILLERS}的计数都不翻转（None）",
    ),
    Branch(
        "tie",
        lambda case, expected: expected is not None and _flips_on_a_tie(case.args[0], expected),
        _min_fillers_draw("tie"),
        en="the flip comes on an exact tie of the logits (the tie rule decides)",
        zh="翻转发生在logits恰好相等之时（由平局规则决定）",
    ),
    Branch(
        "strict",
        lambda case, expected: expected is not None and not _flips_on_a_tie(case.args[0], expected),
        None,
        en="the flip comes with the first candidate strictly ahead",
        zh="翻转时第一个候选严格领先",
    ),
)


# reveal=False: the book's case is the answer of exercise 11.7.1, which the self-check must not show
CHECK = Check(
    "min_fillers_to_flip", ref.min_fillers_to_flip, public, draw=draw, reveal=False, points=2, branches=BRANCHES
)


@mistake(
    "min_fillers_to_flip",
    en="The count is off by one: you let the clue go through one update too many. Count the state transitions after "
    "the clue (fillers plus key and is), not all the tokens of the input (exercise 11.7.1).",
    zh="计数多了一：你让线索多经过了一次更新。数清线索之后的状态转换次数（filler加上key和is），"
    "不要把输入的全部token都算进去（习题11.7.1）。",
)
def tokens_counted_as_transitions(model):
    found = _flip_one_transition_late(model)
    return None if found is None else found[0]
