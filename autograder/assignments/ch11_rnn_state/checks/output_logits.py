"""`output_logits`: the logits h W_y + b_y, one per candidate (Table 11.3)."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import _floats_of, _nonsymmetric, _nonzero, book_model


def public():
    m = book_model()
    return [
        Case(
            (np.array(h), m["W_y"], m["b_y"]),
            label={"en": f"Table 11.3, read {t}: h = {h}", "zh": f"表11.3，第{t}次读取：h = {h}"},
        )
        for t, h in ((1, [1.0, 0.0]), (2, [0.5, 0.0]), (3, [0.25, 0.0]))
    ] + [
        # the book's W_y is the identity, so it cannot tell h @ W_y from W_y @ h
        Case(
            (np.array([1.0, 0.5]), np.array([[1.0, 0.5], [0.0, 1.0]]), m["b_y"]),
            label={
                "en": "h = [1, 0.5] with a non-symmetric W_y = [[1, 0.5], [0, 1]] instead of the book's identity",
                "zh": "h = [1, 0.5]，改用不对称的 W_y = [[1, 0.5], [0, 1]]，代替书中的单位矩阵",
            },
        )
    ]


def draw(rng: random.Random) -> Case:
    return Case((draws.matrix(rng, 0, 2, scale=2), draws.matrix(rng, 2, 2), _nonzero(rng)))


def _output_branch_draw(kind: str):
    def draw_kind(rng: random.Random) -> Case:
        h, W_y, b_y = draw(rng).args
        if kind == "zero_state":
            return Case((np.zeros(2), W_y, b_y))
        if kind == "nonsymmetric":
            return Case((np.abs(h) + 0.125, _nonsymmetric(rng, largest=8), b_y))
        return Case((h, W_y, b_y - 2))  # every logit pushed down: some is negative

    return draw_kind


BRANCHES = (
    Branch(
        "zero_state",
        lambda case, _: not any(_floats_of(case.args[0])),
        _output_branch_draw("zero_state"),
        en="the zero state: the logits are b_y",
        zh="零状态：logits就是b_y",
    ),
    Branch(
        "negative_logit",
        lambda case, expected: min(expected) < 0,
        _output_branch_draw("negative"),
        en="a negative logit",
        zh="有负的logit",
    ),
    Branch(
        "nonsymmetric_W_y",
        lambda case, _: not np.array_equal(np.asarray(case.args[1]), np.asarray(case.args[1]).T),
        _output_branch_draw("nonsymmetric"),
        en="a non-symmetric W_y (h @ W_y differs from W_y @ h)",
        zh="不对称的W_y（h @ W_y 与 W_y @ h 不同）",
    ),
    Branch(
        "bias",
        lambda case, _: any(_floats_of(case.args[2])),
        draw,
        en="a non-zero output bias b_y",
        zh="非零的输出偏置b_y",
    ),
)


CHECK = Check("output_logits", ref.output_logits, public, draw=draw, points=1, branches=BRANCHES)


@mistake(
    "output_logits",
    en="The output bias b_y is missing from the logits. It is the red advantage of section 11.2 that a blue clue has "
    "to beat; add it after multiplying by W_y.",
    zh="logits里缺少输出偏置b_y。它就是11.2节中红色的那个小优势，蓝色线索必须超过它；乘以W_y之后再加上它。",
)
def output_bias_forgotten(h, W_y, b_y):
    return h @ W_y
