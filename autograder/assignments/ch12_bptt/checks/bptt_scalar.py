"""bptt_scalar: backpropagation through time on the scalar recursion, w's gradient as the sum of the
contributions of its uses (Example 12.1, Table 12.1)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import LONGEST, SOLUTION, TWICE, book, long_reads, negative, sequence, start


def public():
    xs, w, target, _ = book()
    return [
        Case((xs, w, target), label={"en": "Table 12.1", "zh": "表12.1"}),
        Case(
            ([1, 2, -1], Fraction(1, 2), 0),
            label={"en": "second text, example 1: L = h_3^2 / 2", "zh": "第二份教材例1：L = h_3^2 / 2"},
        ),
        Case(
            (long_reads(LONGEST), Fraction(-3, 4), Fraction(1, 2)),
            label={
                "en": f"{LONGEST} reads (the longest drawn): (1, 0, 0, 1, 2, -1) twice, w = -0.75, target 0.5",
                "zh": f"{LONGEST}次读取（抽取的最长长度）：(1, 0, 0, 1, 2, -1) 两遍，w = -0.75，目标0.5",
            },
        ),
        # the branches on which several mistakes are right too: shown here, never drawn
        Case(
            ([Fraction(3, 4)], Fraction(1, 2), Fraction(1)),
            {"h0": Fraction(-1, 2)},
            label={
                "en": "one read (T = 1): x_1 = 0.75, w = 0.5, target 1, from h0 = -0.5",
                "zh": "只有一次读取（T = 1）：x_1 = 0.75，w = 0.5，目标1，从 h0 = -0.5 出发",
            },
        ),
        Case(
            (xs, w, Fraction(1, 4)),
            label={"en": "Example 12.1 with the target 0.25 = h_3: loss 0", "zh": "例12.1，目标取 0.25 = h_3：损失为0"},
        ),
    ]


def draw(rng: random.Random) -> Case:
    return Case(
        (sequence(rng), draws.rational(rng, nonzero=True), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng)}
    )


BRANCHES = (
    Branch(
        "one_read",
        lambda case, _: len(case.args[0]) == 1,
        None,
        en="a sequence of one read (T = 1): one use of w, whose old state is h0",
        zh="只有一次读取的序列（T = 1）：w只用了一次，它乘的旧状态是h0",
    ),
    Branch(
        "longest",
        lambda case, _: len(case.args[0]) == LONGEST,
        None,
        en=f"the longest sequence drawn ({LONGEST} reads): rates carried back across {LONGEST - 1} edges",
        zh=f"抽取的最长序列（{LONGEST}次读取）：变化率向回跨越{LONGEST - 1}条边",
    ),
    Branch(
        "negative_weight",
        lambda case, _: case.args[1] < 0,
        lambda rng: Case((sequence(rng), negative(rng), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng)}),
        en="a negative weight w: dL/dh_t alternates in sign going back",
        zh="负的权重w：dL/dh_t 往回传时符号交替变化",
    ),
    Branch(
        "at_target",
        lambda case, expected: expected["loss"] == 0,
        None,
        en="h_T equal to the target: the loss, every rate and the gradient are 0",
        zh="h_T 恰好等于目标：损失、每个变化率和梯度都为0",
    ),
    Branch(
        "start_not_zero",
        lambda case, _: start(case) != 0,
        lambda rng: Case(
            (sequence(rng), draws.rational(rng, nonzero=True), draws.rational(rng, -3, 3)),
            {"h0": draws.rational(rng, nonzero=True)},
        ),
        en="a start h0 other than 0: the first use of w contributes too",
        zh="初始状态h0不为0：w的第一次使用也有贡献",
    ),
)

CHECK = Check(
    "bptt_scalar",
    ref.bptt_scalar,
    public,
    exact=True,
    draw=draw,
    points=3,
    call=TWICE,
    branches=BRANCHES,
    kept="contributions_kept_between_calls",
)


_bptt_scalar = SOLUTION.bptt_scalar


@mistake(
    "bptt_scalar",
    en="Only the last use of w was counted. w is shared: every read uses it, so add the contribution of every use "
    "(Table 12.1, last column).",
    zh="只计入了w的最后一次使用。w是共享参数：每次读取都会用到它，所以要把每次使用的贡献都加起来（表12.1最后一列）。",
)
def last_use_only(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["contributions"][-1]}


@mistake(
    "bptt_scalar",
    en="The gradient was divided by the number of reads. Shared-parameter contributions are added, not averaged; the "
    "loss here has a single target (section 12.2).",
    zh="梯度被除以了读取次数。共享参数的各项贡献要相加，而不是取平均；这里的损失只有一个目标（12.2节）。",
)
def divided_by_reads(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["grad"] / len(xs)}


@mistake(
    "bptt_scalar",
    en="A use of w in h_t = x_t + w h_{t-1} changes h_t by h_{t-1} per unit of w: multiply each dL/dh_t by the OLD "
    "state h_{t-1}.",
    zh="h_t = x_t + w h_{t-1} 中的这一次使用w，使h_t对w的变化率为h_{t-1}：把每个dL/dh_t乘以旧状态h_{t-1}。",
)
def old_state_factor_missing(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "contributions": result["dL_dh"], "grad": sum(result["dL_dh"])}


@mistake(
    "bptt_scalar",
    en="The contribution of the use of w at step t is dL/dh_t times the old state h_{t-1}, not the new state h_t "
    "(Table 12.1, columns 2 and 3).",
    zh="第t步那次使用w的贡献，是dL/dh_t乘以旧状态h_{t-1}，而不是乘以新状态h_t（表12.1第2、3列）。",
)
def new_state_instead_of_old(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    contributions = [d * h for d, h in zip(result["dL_dh"], result["states"])]
    return {**result, "contributions": contributions, "grad": sum(contributions)}


@mistake(
    "bptt_scalar",
    en="The gradient holds the contribution of one use of w only: inside the loop it was replaced (grad = ...) where "
    "it must be added to (grad += ...). Start from 0 and add the contribution of every step "
    "(Table 12.1, last column).",
    zh="梯度里只剩下w某一次使用的贡献：在循环中它被替换掉了（grad = ...），而这里应该累加（grad += ...）。从0开始，"
    "把每一步的贡献都加上去（表12.1最后一列）。",
)
def grad_overwritten_each_use(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["contributions"][0]}  # grad = ... in a loop from T down to 1 keeps step 1's


@mistake(
    "bptt_scalar",
    en="Called a second time on the same inputs, your function counted the first call's contributions again: the "
    "list (or total) the contributions are added to is never reset between calls - a mutable default argument "
    "(contributions=[]) or a global. Start every call from an empty list and a zero sum "
    "(Table 12.1 sums the uses of w of one pass).",
    zh="用同样的输入第二次调用时，你的函数把第一次调用的贡献又算了一遍："
    "累加贡献的列表（或总和）在两次调用之间从未清空——可变的默认参数（contributions=[]）或全局变量。"
    "每次调用都要从空列表和0开始（表12.1求和的是一次计算中w的各次使用）。",
)
def contributions_kept_between_calls(xs, w, target, h0=0, kept=[]):  # noqa: B006  (the mistake itself)
    result = _bptt_scalar(xs, w, target, h0)
    kept.extend(result["contributions"])
    return {**result, "contributions": list(kept), "grad": sum(kept)}
