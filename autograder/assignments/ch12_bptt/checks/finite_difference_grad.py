"""finite_difference_grad: the central difference of a scalar function with the step eps given, the book's
numerical check of Example 12.1."""

from __future__ import annotations

import random
from fractions import Fraction

from rnnkit.helpers import ScalarLoss

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import book, sequence


def public():
    # central differences err by O(eps^2); a forward difference errs by about eps/2 |L''(w)|, beyond
    # the check's rtol (1e-6) in the cases with the second text's loss (L'' = 9.5) and eps = 1e-4;
    # the reference is the central difference with the eps given, so a wide eps shows whether it is used
    example, text2 = ScalarLoss(tuple(book()[0]), Fraction(1)), ScalarLoss((1, 2, -1), 0)
    return [
        Case((example, 0.5), label={"en": "Example 12.1: L(w) at w = 0.5", "zh": "例12.1：L(w) 在 w = 0.5 处的值"}),
        Case(
            (text2, 0.5),
            label={
                "en": "second text, example 1: L(a) = h_3^2 / 2 at a = 0.5 (dL/da = 0.75)",
                "zh": "第二份教材例1：L(a) = h_3^2 / 2 在 a = 0.5 处的值（dL/da = 0.75）",
            },
        ),
        Case(
            (example, 0.5),
            {"eps": 1e-4},
            label={
                "en": "Example 12.1: L(w) at w = 0.5, with eps = 1e-4",
                "zh": "例12.1：L(w) 在 w = 0.5 处的值，取 eps = 1e-4",
            },
        ),
        Case(
            (text2, 0.5),
            {"eps": 0.25},
            label={
                "en": "second text, example 1 at a = 0.5 with a wide step eps = 0.25 "
                "(the difference quotient, not dL/da)",
                "zh": "第二份教材例1：在 a = 0.5 处取较大的步长 eps = 0.25（要的是差商，而不是dL/da）",
            },
        ),
        # the longest loss drawn (four reads), at a negative w
        Case(
            (ScalarLoss((1, 2, -1, Fraction(1, 2)), 1), -0.5),
            {"eps": 0.1},
            label={
                "en": "four reads (1, 2, -1, 0.5) (the longest drawn), target 1, at w = -0.5 with eps = 0.1",
                "zh": "四次读取 (1, 2, -1, 0.5)（抽取的最长长度），目标1，在 w = -0.5 处取 eps = 0.1",
            },
        ),
        # |w| above 1, as draws have it: a step that grows with |w| (eps * max(1, |w|)) shows here
        Case(
            (text2, 1.25),
            {"eps": 0.25},
            label={
                "en": "second text, example 1 at a = 1.25 with eps = 0.25 (the step is eps, whatever the size of a)",
                "zh": "第二份教材例1：在 a = 1.25 处取 eps = 0.25（步长就是eps，与a的大小无关）",
            },
        ),
        # one read from h_0 = 0: L does not depend on w (every difference is right there)
        Case(
            (ScalarLoss((Fraction(3, 4),), 1), 0.3),
            {"eps": 0.1},
            label={
                "en": "one read x_1 = 0.75, target 1: a loss flat in w, at w = 0.3 with eps = 0.1",
                "zh": "只有一次读取 x_1 = 0.75，目标1：损失对w是平的，在 w = 0.3 处取 eps = 0.1",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    """A loss of up to four reads, with a wide eps (the central difference then differs from L'(w))."""
    return Case(
        (ScalarLoss(tuple(sequence(rng, 4)), draws.rational(rng)), rng.uniform(-1.5, 1.5)),
        {"eps": rng.choice([0.05, 0.1, 0.2, 0.25, 0.5])},
    )


BRANCHES = (
    Branch(
        "default_eps",
        lambda case, _: "eps" not in case.kwargs,
        None,
        en="eps left at its default 1e-6",
        zh="eps取默认值1e-6",
    ),
    Branch(
        "wide_eps",
        lambda case, _: case.kwargs.get("eps", 1e-6) >= 0.05,
        None,
        en="a wide eps: the quotient differs visibly from the derivative",
        zh="较大的eps：差商与导数明显不同",
    ),
    Branch("negative_w", lambda case, _: case.args[1] < 0, None, en="a negative w", zh="负的w"),
    Branch(
        "longest",
        lambda case, _: len(case.args[0].xs) == 4,
        None,
        en="the longest loss drawn (four reads)",
        zh="抽取的最长损失（四次读取）",
    ),
    Branch(
        "flat",
        lambda case, expected: expected == 0,
        None,
        en="a loss of one read, flat in w (from h_0 = 0, h_1 = x_1): the quotient is 0",
        zh="只有一次读取的损失，对w是平的（从 h_0 = 0 出发，h_1 = x_1）：差商为0",
    ),
)

CHECK = Check(
    "finite_difference_grad",
    ref.finite_difference_grad,
    public,
    rtol=1e-6,
    draw=draw,
    points=1,
    branches=BRANCHES,
)


@mistake(
    "finite_difference_grad",
    en="A central difference spans w - eps to w + eps, a width of 2 eps: divide by 2 * eps.",
    zh="中心差分从 w - eps 一直跨到 w + eps，区间宽度是 2 eps：所以结果要除以 2 * eps。",
)
def difference_not_halved(f, w, eps=1e-6):
    return (f(w + eps) - f(w - eps)) / eps


@mistake(
    "finite_difference_grad",
    en="A one-sided difference (f(w + eps) - f(w)) / eps is off by about eps/2 times the curvature of f: step to "
    "both sides of w, to w + eps and to w - eps, so that the errors of the two sides cancel.",
    zh="单侧差分 (f(w + eps) - f(w)) / eps 的误差约为eps/2乘以f的曲率：要向w的两侧各走一步，"
    "分别到 w + eps 和 w - eps，让两侧的误差相互抵消。",
)
def forward_difference(f, w, eps=1e-6):
    return (f(w + eps) - f(w)) / eps


@mistake(
    "finite_difference_grad",
    en="A one-sided difference (f(w) - f(w - eps)) / eps, looking back only, is off by about eps/2 times the "
    "curvature of f: step to both sides of w, to w + eps and to w - eps, so that the errors of the two sides cancel.",
    zh="只向后看的单侧差分 (f(w) - f(w - eps)) / eps 的误差约为eps/2乘以f的曲率：要向w的两侧各走一步，"
    "分别到 w + eps 和 w - eps，让两侧的误差相互抵消。",
)
def backward_difference(f, w, eps=1e-6):
    return (f(w) - f(w - eps)) / eps


@mistake(
    "finite_difference_grad",
    en="The step eps you are given is not the one you used: with a wide eps the central difference differs from the "
    "derivative, and the check asks for the difference with that eps. Use the eps argument (its default is 1e-6), "
    "not a fixed step.",
    zh="你用的步长不是传入的eps：eps较大时，中心差分与导数不同，而检查要的正是用这个eps算出的差分。"
    "请使用参数eps（默认值为1e-6），不要用固定的步长。",
)
def eps_ignored(f, w, eps=1e-6):
    step = 1e-6
    return (f(w + step) - f(w - step)) / (2 * step)
