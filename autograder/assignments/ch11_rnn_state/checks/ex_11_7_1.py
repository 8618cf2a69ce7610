"""`ex_11_7_1`: exercise 11.7.1 answered for a model: the fewest fillers, and the final state and logits
with that many."""

from __future__ import annotations

import random

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import (
    _book,
    _drifting,
    _flip_one_transition_late,
    _logits_level,
    _min_fillers_draw,
    book_model,
    flip_model,
)


def public():
    """Exercise 11.7.1 asked of the book's model (checked against 11.8's answer, never shown) and of two
    other models, whose answers are of other sizes (no filler; the last count searched), so that the
    self-check asks what the grade asks: the count for the model given."""
    return [
        Case((book_model(),), label={"en": "exercise 11.7.1: the book's model", "zh": "习题11.7.1：书中的模型"}),
        Case(
            (_book(b_y=[0.5, 0.0]),),
            label={
                "en": "exercise 11.7.1 asked of the book's model with the red bias raised to 1/2",
                "zh": "习题11.7.1，对书中的模型提问，但红色偏置提高到1/2",
            },
        ),
        Case(
            (_drifting(28),),
            label={
                "en": "exercise 11.7.1 asked of a model with W_h = I, a filler embedding [1/128, 0] and "
                "b_y = [28/128, 0]",
                "zh": "习题11.7.1，对另一个模型提问：W_h = I，filler的嵌入为 [1/128, 0]，b_y = [28/128, 0]",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    """Exercise 11.7.1 asked of a random model whose answer is 2 to 10 fillers, on an exact tie (the
    book's is 1), so the count, the state and the logits all differ from the book's."""
    while ref.min_fillers_to_flip(model := flip_model(rng)) is None:  # never so by construction: an answer exists
        pass
    return Case((model,))


BRANCHES = (
    Branch(
        "zero",
        lambda case, expected: expected["min_fillers"] == 0,
        _min_fillers_draw("zero"),
        en="the first candidate wins with no filler at all (0)",
        zh="一个filler都不插入，第一个候选就胜出（0）",
    ),
    Branch(
        "bound",
        lambda case, expected: expected["min_fillers"] == ref.MAX_FILLERS,
        _min_fillers_draw("bound"),
        en=f"the flip comes at the last count searched ({ref.MAX_FILLERS})",
        zh=f"翻转恰好发生在搜索的最后一个计数（{ref.MAX_FILLERS}）",
    ),
    Branch(
        "tie",
        lambda case, expected: _logits_level(expected),
        _min_fillers_draw("tie"),
        en="the flip comes on an exact tie of the logits",
        zh="翻转发生在logits恰好相等之时",
    ),
    Branch(
        "strict",
        lambda case, expected: not _logits_level(expected),
        None,
        en="the flip comes with the first candidate strictly ahead",
        zh="翻转时第一个候选严格领先",
    ),
)


# asked of the book's model and of other ones (reveal=False: the self-check does not show 11.8's
# answer), graded on random models
CHECK = Check("ex_11_7_1", ref.ex_11_7_1, public, draw=draw, reveal=False, points=1, branches=BRANCHES)


@mistake(
    "ex_11_7_1",
    en="The count is one short of the sequence you ran: the state and logits you report come from one filler more "
    "than the count says. With n fillers the clue goes through n + 2 updates (the fillers, key and is), not one per "
    "token of the input; count the state transitions after the clue (exercise 11.7.1).",
    zh="计数比你实际运行的序列少了一：你报告的状态和logits来自比这个计数多一个filler的序列。有n个filler时，"
    "线索之后经过 n + 2 次更新（各个filler，再加上key和is），而不是输入中每个token各一次；"
    "要数线索之后的状态转换次数（习题11.7.1）。",
)
def every_token_counted_as_a_halving(model):
    # each token taken as an update of the clue: the state read is that of one filler more, so the
    # count reported is one short of the sequence that flips
    found = _flip_one_transition_late(model)
    return None if found is None else {"min_fillers": found[0], "final_h": found[1], "logits": found[2]}
