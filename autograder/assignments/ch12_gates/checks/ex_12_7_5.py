"""ex_12_7_5: exercise 12.7.5, the final mix of one GRU coordinate in Cho's convention with the
candidate given (does z = 1, r = 0 zero the state?), asked with the book's gates and others, answers
not shown."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from ....vocabulary.symbolic import to_fraction
from .. import reference as ref
from ..models import between, gate


def public():
    five, F = ref.EXERCISE_12_7_5, Fraction
    return [
        Case(
            tuple(to_fraction(five[key]) for key in ("h_prev", "z", "r", "candidate")),
            label={
                "en": "exercise 12.7.5: z = 1, r = 0, h_prev 0.8, candidate -0.4",
                "zh": "习题12.7.5：z = 1，r = 0，h_prev 0.8，候选值-0.4",
            },
        ),
        Case(
            (F(-3, 2), F(2, 5), F(3, 4), F(1, 2)),
            label={
                "en": "the same question with other numbers: h_prev -1.5, z 0.4, r 0.75, candidate 0.5",
                "zh": "换一组数值问同一个问题：h_prev -1.5，z 0.4，r 0.75，候选值0.5",
            },
        ),
        Case(
            (F(6, 5), F(0), F(1), F(-3, 4)),
            label={
                "en": "the other limit settings: h_prev 1.2, z = 0, r = 1, candidate -0.75",
                "zh": "另一组极限设置：h_prev 1.2，z = 0，r = 1，候选值-0.75",
            },
        ),
    ]


def draw(rng: random.Random, **given) -> Case:
    """A nonzero h_prev and a candidate of either sign, z and r in [0, 1] (now and then a limit
    setting); `given` fixes some of them."""
    values = {
        "h_prev": draws.rational(rng, -2, 2, nonzero=True),
        "z": gate(rng),
        "r": gate(rng),
        "candidate": draws.rational(rng, -1, 1),
    }
    values.update({key: value(rng) if callable(value) else Fraction(value) for key, value in given.items()})
    return Case(tuple(values[key] for key in ("h_prev", "z", "r", "candidate")))


BRANCHES = (
    Branch(
        "keep_all",
        lambda case, expected: case.args[1] == 1 and case.args[2] == 0,
        en="z = 1 and r = 0, the book's question: the state kept",
        zh="z = 1 且 r = 0，即书中的问题：状态被保留",
    ),
    Branch(
        "update_keeps",
        lambda case, expected: case.args[1] == 1,
        lambda rng: draw(rng, z=1, r=between),
        en="z = 1: the candidate has no weight",
        zh="z = 1：候选值的权重为零",
    ),
    Branch(
        "update_replaces",
        lambda case, expected: case.args[1] == 0,
        en="z = 0: the candidate taken whole",
        zh="z = 0：完整采用候选值",
    ),
    Branch(
        "mix_between",
        lambda case, expected: 0 < case.args[1] < 1,
        lambda rng: draw(rng, z=between, r=between),
        en="an update gate strictly between 0 and 1: a true mix",
        zh="更新门严格介于0和1之间：真正的混合",
    ),
    Branch(
        "reset_closed_mix",
        lambda case, expected: case.args[2] == 0 and 0 < case.args[1] < 1,
        lambda rng: draw(rng, z=between, r=0),
        en="r = 0 in a true mix: the kept branch is still there",
        zh="在真正的混合中 r = 0：直接保留的分支仍然存在",
    ),
    Branch(
        "reset_open",
        lambda case, expected: case.args[2] == 1,
        en="r = 1: the candidate saw the whole old state",
        zh="r = 1：候选值看到了完整的旧状态",
    ),
)


CHECK = Check(
    "ex_12_7_5",
    ref.ex_12_7_5,
    public,
    exact=True,
    reveal=False,
    draw=draw,
    points=1,
    branches=BRANCHES,
)


@mistake(
    "ex_12_7_5",
    en=(
        "The reset gate also scaled the directly kept branch. In the GRU of section 12.4.2 r acts only inside the "
        "candidate computation (done already: the candidate is given); the final mix weighs h_prev by z and the "
        "candidate by 1 - z, and r does not touch h_prev there. A reset gate of 0 does not erase the state (12.8)."
    ),
    zh=(
        "重置门也缩放了直接保留的分支。在12.4.2节的GRU中，r只在候选值的计算内部起作用（这里已经算好：候选值是给定的）；"
        "最后的混合用z给h_prev加权、用 1 - z 给候选值加权，r在这里不碰h_prev。重置门为0并不会抹掉状态（12.8）。"
    ),
)
def ex_reset_on_kept_branch(h_prev, z, r, candidate):
    return {"keep weight": z, "candidate weight": 1 - z, "h": z * (r * h_prev) + (1 - z) * candidate}


@mistake(
    "ex_12_7_5",
    en=(
        "These are the weights of the complementary convention (the second text's), where z weights the candidate. In "
        "the Cho convention of section 12.4.2 the update gate weights the OLD state: a larger z keeps more of h_prev, "
        "and 1 - z is the candidate's share."
    ),
    zh=(
        "这是互补约定（第二份教材采用的约定）下的权重，其中z给候选值加权。"
        "在12.4.2节的Cho约定中，更新门给旧状态加权：z越大，保留的h_prev越多，1 - z 才是候选值所占的比例。"
    ),
)
def ex_complementary_convention(h_prev, z, r, candidate):
    return {"keep weight": 1 - z, "candidate weight": z, "h": (1 - z) * h_prev + z * candidate}


@mistake(
    "ex_12_7_5",
    en=(
        "The reset gate was folded into the weight of the kept branch (z * r), so r = 0 came out as erasing the state. "
        "In the GRU of section 12.4.2 r acts only inside the candidate's computation, done already here; the keep "
        "weight is the weight h_prev has in the final mix h = z * h_prev + (1 - z) * g: look at which gates appear "
        "there (12.8: a reset gate of 0 does not remove the separately kept branch)."
    ),
    zh=(
        "重置门被并进了直接保留分支的权重（z * r），于是 r = 0 被算成了抹掉状态。"
        "在12.4.2节的GRU中，r只在候选值的计算内部起作用，而这里候选值已经算好；"
        "保留权重是h_prev在最终混合 h = z * h_prev + (1 - z) * g 中的权重：看一看那里出现的是哪些门（12.8："
        "重置门为0并不移除单独保留的旧状态分支）。"
    ),
)
def ex_reset_erases_state(h_prev, z, r, candidate):
    keep = z * r
    return {"keep weight": keep, "candidate weight": 1 - z, "h": keep * h_prev + (1 - z) * candidate}


@mistake(
    "ex_12_7_5",
    en=(
        "The old state was kept whole and the candidate's share added on top (a residual update, h_prev + new). The "
        "GRU's final mix in section 12.4.2 weights the old state by the update gate and the candidate by its "
        "complement, so the two weights add up to one."
    ),
    zh=(
        "旧状态被完整保留，再在上面加上候选值的份额（残差式更新，h_prev + 新值）。"
        "12.4.2节中GRU的最终混合用更新门给旧状态加权、用它的补数给候选值加权，两个权重之和为一。"
    ),
)
def ex_residual_mix(h_prev, z, r, candidate):
    return {"keep weight": 1, "candidate weight": 1 - z, "h": h_prev + (1 - z) * candidate}
