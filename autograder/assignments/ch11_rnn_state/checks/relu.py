"""`relu`: ReLU of a vector, every negative entry cut to zero (section 11.2, Table 11.2)."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import _floats_of


def public():
    return [
        Case(
            (np.array([-1.0, 0.5]),),
            label={"en": "section 11.2: ReLU of [-1, 0.5]", "zh": "11.2节：[-1, 0.5] 经过ReLU"},
        ),
        Case(
            (np.array([0.25, 0.0]),),
            label={"en": "Table 11.2, read 3: [0.25, 0] stays", "zh": "表11.2，第3次读取：[0.25, 0] 保持不变"},
        ),
        # the hidden cases have up to six entries
        Case(
            (np.array([-1.0, 0.5, 0.0, -0.25, 2.0, -3.0]),),
            label={
                "en": "section 11.2: ReLU of six entries [-1, 0.5, 0, -0.25, 2, -3]",
                "zh": "11.2节：六个元素 [-1, 0.5, 0, -0.25, 2, -3] 经过ReLU",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    v = draws.matrix(rng, 0, rng.randint(1, 6))
    v[rng.randrange(len(v))] = -rng.randint(1, 8) / 8
    return Case((v,))


def _relu_branch_draw(kind: str):
    def draw_kind(rng: random.Random) -> Case:
        if kind == "all_negative":
            return Case((np.array([-rng.randint(1, 16) / 8 for _ in range(rng.randint(2, 6))]),))
        if kind == "single":
            return Case((np.array([-rng.randint(1, 16) / 8]),))
        v = draw(rng).args[0]  # a zero entry beside a negative one
        while len(v) < 2:
            v = draw(rng).args[0]
        v[(int(np.argmin(v)) + rng.randint(1, len(v) - 1)) % len(v)] = 0.0
        return Case((v,))

    return draw_kind


BRANCHES = (
    Branch(
        "negative_entry",
        lambda case, _: min(_floats_of(case.args[0])) < 0,
        _relu_branch_draw("zero"),
        en="a negative entry, cut to zero",
        zh="有负数项，被截成零",
    ),
    Branch(
        "zero_entry",
        lambda case, _: 0.0 in _floats_of(case.args[0]),
        _relu_branch_draw("zero"),
        en="an entry exactly 0, which stays 0",
        zh="有恰好为0的项，它保持为0",
    ),
    Branch(
        "all_negative",
        lambda case, _: max(_floats_of(case.args[0])) < 0,
        _relu_branch_draw("all_negative"),
        en="every entry negative: all cut to zero",
        zh="每一项都是负数：全部截成零",
    ),
    Branch(
        "single_entry",
        lambda case, _: len(_floats_of(case.args[0])) == 1,
        _relu_branch_draw("single"),
        en="a vector of one entry",
        zh="只有一个元素的向量",
    ),
)


CHECK = Check("relu", ref.relu, public, draw=draw, points=1, branches=BRANCHES)


@mistake(
    "relu",
    en="Negative entries came through unchanged. ReLU keeps the positive entries and cuts every negative entry to "
    "zero (section 11.2: ReLU of [-1, 0.5]); check where your state update applies it.",
    zh="负数项原样通过了。ReLU保留正数项，把每个负数项截成零（11.2节：[-1, 0.5] 经过ReLU）；"
    "检查你的状态更新在哪里应用ReLU。",
)
def relu_missing(v):
    return np.asarray(v, dtype=float)
