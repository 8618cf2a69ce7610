"""The checks of ch12_bptt: the book's cases of Example 12.1, Tables 12.1-12.2 and exercises 12.7.1-2, and hidden
draws (the exercises too, on variants of their givens)."""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
from rnnkit.helpers import ScalarLoss

from ...grading import draws, template
from ...grading.catalogue import mistake
from ...grading.spec import Branch, Case, Check
from ...grading.symbolic import to_fraction
from . import reference as ref


def _book():
    setup = ref.example_12_1()
    return [to_fraction(x) for x in setup["xs"]], to_fraction(setup["w"]), to_fraction(setup["target"]), to_fraction(setup["lr"])


def _sequence(rng: random.Random, longest: int = 12) -> list[Fraction]:
    return draws.rationals(rng, rng.randint(1, longest))


#: The longest sequence a drawer of the scalar recursion draws (scalar_forward, bptt_scalar), and that of
#: update_and_recompute and 12.7.2: a public case of each length, so the self-check meets the largest size first.
LONGEST, LONGEST_UPDATE = 12, 8


def _long_reads(n: int) -> list[Fraction]:
    """Example 12.1's reads (1, 0, 0) continued to n reads with the second text's (1, 2, -1) in turn: a
    long distance as in Table 12.2."""
    pattern = [Fraction(1), Fraction(0), Fraction(0), Fraction(1), Fraction(2), Fraction(-1)]
    return [pattern[t % len(pattern)] for t in range(n)]


def _public_forward():
    xs, w, _, _ = _book()
    return [Case((xs, w), label={"en": "Example 12.1 (1, 0, 0), w = 0.5", "zh": "例12.1：输入 (1, 0, 0)，w = 0.5"}),
            Case(([1, 2, -1], Fraction(1, 2)), label={"en": "second text, example 1: inputs (1, 2, -1), a = 0.5", "zh": "第二份教材例1：输入 (1, 2, -1)，a = 0.5"}),
            Case((_long_reads(LONGEST), Fraction(-3, 4)),
                 label={"en": f"{LONGEST} reads (the longest drawn): (1, 0, 0, 1, 2, -1) twice, w = -0.75",
                        "zh": f"{LONGEST}次读取（抽取的最长长度）：(1, 0, 0, 1, 2, -1) 两遍，w = -0.75"}),
            # the branches on which building every state from h0 is right too: shown here, never drawn
            Case(([Fraction(3, 4)], Fraction(1, 2)), {"h0": Fraction(-1, 2)},
                 label={"en": "one read (T = 1): x_1 = 0.75, w = 0.5, from h0 = -0.5", "zh": "只有一次读取（T = 1）：x_1 = 0.75，w = 0.5，从 h0 = -0.5 出发"}),
            Case(([1, 2, -1], Fraction(0)), {"h0": Fraction(1)},
                 label={"en": "w = 0: inputs (1, 2, -1) from h0 = 1, nothing carried", "zh": "w = 0：输入 (1, 2, -1)，从 h0 = 1 出发，什么也不传递"})]


def _public_bptt():
    xs, w, target, _ = _book()
    return [Case((xs, w, target), label={"en": "Table 12.1", "zh": "表12.1"}),
            Case(([1, 2, -1], Fraction(1, 2), 0), label={"en": "second text, example 1: L = h_3^2 / 2", "zh": "第二份教材例1：L = h_3^2 / 2"}),
            Case((_long_reads(LONGEST), Fraction(-3, 4), Fraction(1, 2)),
                 label={"en": f"{LONGEST} reads (the longest drawn): (1, 0, 0, 1, 2, -1) twice, w = -0.75, target 0.5",
                        "zh": f"{LONGEST}次读取（抽取的最长长度）：(1, 0, 0, 1, 2, -1) 两遍，w = -0.75，目标0.5"}),
            # the branches on which several mistakes are right too: shown here, never drawn
            Case(([Fraction(3, 4)], Fraction(1, 2), Fraction(1)), {"h0": Fraction(-1, 2)},
                 label={"en": "one read (T = 1): x_1 = 0.75, w = 0.5, target 1, from h0 = -0.5", "zh": "只有一次读取（T = 1）：x_1 = 0.75，w = 0.5，目标1，从 h0 = -0.5 出发"}),
            Case((xs, w, Fraction(1, 4)),
                 label={"en": "Example 12.1 with the target 0.25 = h_3: loss 0", "zh": "例12.1，目标取 0.25 = h_3：损失为0"})]


def _public_update():
    xs, w, target, lr = _book()
    return [Case((xs, w, target, lr), label={"en": "Example 12.1, learning rate 0.1", "zh": "例12.1，学习率0.1"}),
            Case((_long_reads(LONGEST_UPDATE), Fraction(1, 2), Fraction(1), Fraction(1, 10)),
                 label={"en": f"{LONGEST_UPDATE} reads (the longest drawn): (1, 0, 0, 1, 2, -1, 1, 0), w = 0.5, target 1, learning rate 0.1",
                        "zh": f"{LONGEST_UPDATE}次读取（抽取的最长长度）：(1, 0, 0, 1, 2, -1, 1, 0)，w = 0.5，目标1，学习率0.1"}),
            # from h_0 = 0 one read gives a zero gradient: w and the states are kept (a stale pass is right there)
            Case(([Fraction(3, 4)], Fraction(1, 2), Fraction(2), Fraction(1, 10)),
                 label={"en": "one read (T = 1): x_1 = 0.75, w = 0.5, target 2: from h_0 = 0 the gradient is 0", "zh": "只有一次读取（T = 1）：x_1 = 0.75，w = 0.5，目标2：从 h_0 = 0 出发梯度为0"})]


def _public_finite_difference():
    # central differences err by O(eps^2); a forward difference errs by about eps/2 |L''(w)|, beyond
    # the check's rtol (1e-6) in the cases with the second text's loss (L'' = 9.5) and eps = 1e-4;
    # the reference is the central difference with the eps given, so a wide eps shows whether it is used
    book, text2 = ScalarLoss(tuple(_book()[0]), Fraction(1)), ScalarLoss((1, 2, -1), 0)
    return [Case((book, 0.5), label={"en": "Example 12.1: L(w) at w = 0.5", "zh": "例12.1：L(w) 在 w = 0.5 处的值"}),
            Case((text2, 0.5), label={"en": "second text, example 1: L(a) = h_3^2 / 2 at a = 0.5 (dL/da = 0.75)", "zh": "第二份教材例1：L(a) = h_3^2 / 2 在 a = 0.5 处的值（dL/da = 0.75）"}),
            Case((book, 0.5), {"eps": 1e-4}, label={"en": "Example 12.1: L(w) at w = 0.5, with eps = 1e-4", "zh": "例12.1：L(w) 在 w = 0.5 处的值，取 eps = 1e-4"}),
            Case((text2, 0.5), {"eps": 0.25}, label={"en": "second text, example 1 at a = 0.5 with a wide step eps = 0.25 (the difference quotient, not dL/da)", "zh": "第二份教材例1：在 a = 0.5 处取较大的步长 eps = 0.25（要的是差商，而不是dL/da）"}),
            # the longest loss drawn (four reads), at a negative w
            Case((ScalarLoss((1, 2, -1, Fraction(1, 2)), 1), -0.5), {"eps": 0.1},
                 label={"en": "four reads (1, 2, -1, 0.5) (the longest drawn), target 1, at w = -0.5 with eps = 0.1",
                        "zh": "四次读取 (1, 2, -1, 0.5)（抽取的最长长度），目标1，在 w = -0.5 处取 eps = 0.1"}),
            # one read from h_0 = 0: L does not depend on w (every difference is right there)
            Case((ScalarLoss((Fraction(3, 4),), 1), 0.3), {"eps": 0.1},
                 label={"en": "one read x_1 = 0.75, target 1: a loss flat in w, at w = 0.3 with eps = 0.1", "zh": "只有一次读取 x_1 = 0.75，目标1：损失对w是平的，在 w = 0.3 处取 eps = 0.1"})]


def _draw_finite_difference(rng: random.Random) -> Case:
    """A loss of up to four reads, with a wide eps (the central difference then differs from L'(w))."""
    return Case((ScalarLoss(tuple(_sequence(rng, 4)), draws.rational(rng)), rng.uniform(-1.5, 1.5)), {"eps": rng.choice([0.05, 0.1, 0.2, 0.25, 0.5])})


def _public_polynomial():
    # at w = 0.5 the inner derivative 2w is 1, so the book's own point cannot show it missing
    return [Case((Fraction(1, 2),), label={"en": "Example 12.1: 2w(w^2 - 1) at w = 0.5", "zh": "例12.1：2w(w^2 - 1) 在 w = 0.5 处的值"}),
            Case((Fraction(23, 40),), label={"en": "Example 12.1 after the update: w = 0.575 (h_3 = 0.330625)", "zh": "例12.1更新之后：w = 0.575（h_3 = 0.330625）"})]


#: The largest sizes rnn_backward's drawer draws: T steps, D inputs, H hidden units.
RNN_T, RNN_D, RNN_H = 6, 3, 3


def _public_rnn_backward():
    xs, loss_at_h3 = np.array([[1.0], [0.0], [-1.0]]), np.array([[0.0], [0.0], [1.0]])
    largest = Case((np.array([[1.0, 0.0, -0.5], [0.5, -1.0, 0.25], [0.0, 0.75, 1.0], [-1.0, 0.5, 0.0], [0.25, 0.25, -0.75], [1.0, -0.5, 0.5]]),
                    np.array([0.25, -0.5, 0.0]),
                    np.array([[0.5, -0.25, 0.75], [-0.5, 0.25, 0.0], [0.125, 1.0, -0.375]]),
                    np.array([[0.25, 0.5, -0.125], [-0.375, 0.125, 0.25], [0.5, -0.25, 0.375]]),
                    np.array([0.125, -0.25, 0.0]),
                    np.array([[0.0, 0.0, 0.0], [0.5, 0.0, -0.25], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, -0.5, 0.25]])),
                   label={"en": f"the largest size drawn: T = {RNN_T} steps, D = {RNN_D} inputs, H = {RNN_H} hidden units, h_0 = (0.25, -0.5, 0), "
                                "non-symmetric weights, a loss at steps 2, 4 and 6",
                          "zh": f"抽取的最大规模：T = {RNN_T} 步，D = {RNN_D} 个输入坐标，H = {RNN_H} 个隐藏坐标，h_0 = (0.25, -0.5, 0)，"
                                "权重不对称，第2、4、6步有损失"})
    return [Case((xs, np.zeros(1), np.eye(1), np.array([[0.5]]), np.zeros(1), loss_at_h3), label={"en": "third text's tanh RNN (1, 0, -1), loss = h_3", "zh": "第三份教材的 tanh RNN，输入 (1, 0, -1)，损失 = h_3"}),
            # a 1 x 1 W_h is its own transpose: two hidden units and a non-symmetric W_h show whether it is transposed
            Case((xs, np.zeros(2), np.array([[1.0, -0.5]]), np.array([[0.5, 0.25], [-0.5, 0.5]]), np.zeros(2),
                  np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])),
                 label={"en": "third text's inputs (1, 0, -1) on two hidden units, not the book's weights: W_x = [[1, -0.5]], "
                              "a non-symmetric W_h = [[0.5, 0.25], [-0.5, 0.5]], loss = h_3[0]",
                        "zh": "第三份教材的输入 (1, 0, -1)，两个隐藏坐标，不用书中的权重：W_x = [[1, -0.5]]，"
                              "不对称的 W_h = [[0.5, 0.25], [-0.5, 0.5]]，损失 = h_3[0]"}),
            largest,
            # one step: one term per weight gradient (replacing and adding agree there); no loss at all: all gradients 0
            Case((np.array([[1.0, -0.5]]), np.array([0.5, -0.25]), np.array([[0.5, -0.25], [0.25, 1.0]]), np.array([[0.5, 0.25], [-0.5, 0.5]]),
                  np.array([0.0, 0.125]), np.array([[1.0, -0.5]])),
                 label={"en": "one step (T = 1) from h_0 = (0.5, -0.25), a loss gradient (1, -0.5) at h_1", "zh": "只有一步（T = 1），从 h_0 = (0.5, -0.25) 出发，损失梯度 (1, -0.5) 直接到达 h_1"}),
            Case((xs, np.zeros(1), np.eye(1), np.array([[0.5]]), np.zeros(1), np.zeros((3, 1))),
                 label={"en": "third text's tanh RNN (1, 0, -1) with no loss gradient at any step: every gradient is 0", "zh": "第三份教材的 tanh RNN，输入 (1, 0, -1)，每一步都没有损失梯度：所有梯度都为0"})]


def _public_clip():
    return [Case(([np.array([3.0, 4.0])], 1.0), label={"en": "norm 5 clipped to 1", "zh": "范数5，裁剪到1"}),
            Case(([np.array([0.3]), np.array([[0.4]])], 1.0), label={"en": "norm 0.5 left alone", "zh": "范数0.5，保持不变"}),
            # one norm over all tensors: the first alone is under the limit, and is scaled all the same
            Case(([np.array([0.3, 0.4]), np.array([[0.72, 0.96]])], 0.65),
                 label={"en": "two tensors of norms 0.5 and 1.2 (jointly 1.3) clipped to 0.65: both halved", "zh": "两个张量，范数分别为0.5和1.2（整体范数1.3），裁剪到0.65：两者都减半"}),
            # integer arrays cannot be scaled in place: only copies made as floats give the values
            Case(([np.array([3, 4]), np.array([[0, 12]])], 6.5),
                 label={"en": "integer gradients [3, 4] and [[0, 12]] (jointly 13) clipped to 6.5: float copies, the inputs left alone", "zh": "整数梯度 [3, 4] 和 [[0, 12]]（整体范数13）裁剪到6.5：返回浮点副本，输入保持不变"}),
            _public_clip_largest(),
            # all-zero gradients: norm 0, nothing to scale (and nothing to divide by)
            Case(([np.zeros(2), np.zeros((2, 2))], 1.0), label={"en": "gradients all 0 (norm 0), max_norm 1: copies all 0", "zh": "全为0的梯度（范数为0），max_norm为1：返回全0的副本"})]


#: The longest distance 12.7.1's drawer draws.
LONGEST_DISTANCE = 12


def _public_ex_12_7_1():
    one = ref.EXERCISE_12_7_1
    rate, distance = Fraction(int(one["rate"])), one["distance"]
    book = [Case((rate, Fraction(int(factor.p), int(factor.q)), distance),
                 label={"en": f"exercise 12.7.1: rate {rate}, factor {float(factor):g}, {distance} edges",
                        "zh": f"习题12.7.1：变化率{rate}，因子{float(factor):g}，{distance}条边"}) for factor in one["factors"]]
    # another size than the book's (the longest drawn): the self-check asks what the grade asks
    return book + [Case((Fraction(3), Fraction(-2, 3), LONGEST_DISTANCE),
                        label={"en": f"exercise 12.7.1 at another size: rate 3, factor -2/3, {LONGEST_DISTANCE} edges",
                               "zh": f"习题12.7.1换一个规模：变化率3，因子-2/3，{LONGEST_DISTANCE}条边"})]


def _draw_ex_12_7_1(rng: random.Random) -> Case:
    return Case((draws.rational(rng, -3, 3, nonzero=True), draws.rational(rng, -2, 2, nonzero=True), rng.randint(1, LONGEST_DISTANCE)))


def _public_ex_12_7_2():
    xs, w, target, lr = _book()
    return [Case((xs, w, target, lr), label={"en": "exercise 12.7.2: Example 12.1, inputs (1, 0, 0), w = 0.5, target 1, learning rate 0.1", "zh": "习题12.7.2：例12.1，输入 (1, 0, 0)，w = 0.5，目标1，学习率0.1"}),
            # another length than the book's three (the longest drawn): with three reads from h_0 = 0 the
            # first contributes nothing, so "the second read" is all that is missing there, and only there
            Case((_long_reads(LONGEST_UPDATE), Fraction(1, 2), Fraction(1), Fraction(1, 10)),
                 label={"en": f"exercise 12.7.2 at another length: {LONGEST_UPDATE} reads (1, 0, 0, 1, 2, -1, 1, 0), w = 0.5, target 1, learning rate 0.1",
                        "zh": f"习题12.7.2换一个长度：{LONGEST_UPDATE}次读取 (1, 0, 0, 1, 2, -1, 1, 0)，w = 0.5，目标1，学习率0.1"})]


def _draw_ex_12_7_2(rng: random.Random) -> Case:
    """As update_and_recompute's, with three reads or more: from h_0 = 0 the first read contributes
    nothing, so with two the last read is all there is."""
    return Case((draws.rationals(rng, rng.randint(3, LONGEST_UPDATE)), draws.rational(rng, -1, 1, nonzero=True), draws.rational(rng, -2, 2),
                 draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True)))


def _rnn_case(rng: random.Random) -> Case:
    T, D, H = rng.randint(1, RNN_T), rng.randint(1, RNN_D), rng.randint(2, RNN_H)
    W_h = draws.matrix(rng, H, H, scale=0.9)
    W_h[0, 1] += 0.5  # never symmetric
    return Case((draws.uniform(rng, (T, D)), draws.uniform(rng, (H,), -0.5, 0.5), draws.matrix(rng, D, H), W_h,
                 draws.matrix(rng, 0, H, scale=0.5), draws.uniform(rng, (T, H))))


def _clip_case(rng: random.Random) -> Case:
    """Float gradients, or (one draw in three) integer ones, which cannot be scaled in place."""
    shapes = rng.sample([(2,), (3,), (2, 2), (1, 3), (3, 2)], rng.randint(1, 3))
    if rng.random() < 1 / 3:
        grads = [np.array([rng.randint(-6, 6) for _ in range(int(np.prod(shape)))]).reshape(shape) for shape in shapes]
    else:
        grads = [draws.uniform(rng, shape, -3, 3) for shape in shapes]
    norm = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
    return Case((grads, round(norm * rng.choice([0.25, 0.5, 0.8, 1.5, 2.0]), 3)))


def _public_clip_largest():
    """Three tensors, the most the drawer draws, of the largest shapes, whose joint norm is exactly max_norm."""
    return Case(([np.array([[1.0, -2.0], [0.0, 2.0], [-1.0, 0.0]]), np.array([[2.0, 0.0], [-1.0, 1.0]]), np.array([0.0, 3.0, 0.0])], 5.0),
                label={"en": "three tensors (the most drawn) of norms sqrt(10), sqrt(6) and 3, jointly exactly 5, max_norm 5: left as they are",
                       "zh": "三个张量（抽取的最多个数），范数分别为根号10、根号6和3，整体范数恰好为5，max_norm为5：保持原样"})


# ----------------------------------------------------------------------------- the contracts' branches
# Each check lists the branches and extremes of its function's contract (`Branch`): a public case
# shows one, or every attempt draws one (`autograder.grading.checks.hidden_cases`).


def _h0(case: Case):
    return case.kwargs.get("h0", 0)


def _final(xs, w, h0=0):
    """h_T of h_t = x_t + w h_{t-1}, exactly."""
    h = h0
    for x in xs:
        h = x + w * h
    return h


def _negative(rng: random.Random, low: int = -2) -> Fraction:
    return -abs(draws.rational(rng, low, -low, nonzero=True))


def _draw_forward(rng: random.Random) -> Case:
    return Case((_sequence(rng), draws.rational(rng, nonzero=True)), {"h0": draws.rational(rng)})


def _draw_bptt(rng: random.Random) -> Case:
    return Case((_sequence(rng), draws.rational(rng, nonzero=True), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng)})


def _draw_update(rng: random.Random) -> Case:
    return Case((_sequence(rng, LONGEST_UPDATE), draws.rational(rng, -1, 1, nonzero=True), draws.rational(rng, -2, 2),
                 draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True)))


def _replace(case: Case, index: int, value) -> Case:
    """The case with its argument `index` replaced."""
    args = list(case.args)
    args[index] = value
    return Case(tuple(args), dict(case.kwargs))


_FORWARD_BRANCHES = (
    Branch("one_read", lambda case, _: len(case.args[0]) == 1, None,
           en="a sequence of one read (T = 1): the one state is x_1 + w h_0", zh="只有一次读取的序列（T = 1）：唯一的状态是 x_1 + w h_0"),
    Branch("longest", lambda case, _: len(case.args[0]) == LONGEST, None,
           en=f"the longest sequence drawn ({LONGEST} reads)", zh=f"抽取的最长序列（{LONGEST}次读取）"),
    Branch("negative_weight", lambda case, _: case.args[1] < 0,
           lambda rng: Case((_sequence(rng), _negative(rng)), {"h0": draws.rational(rng)}),
           en="a negative weight w: the states alternate in sign", zh="负的权重w：状态的符号交替变化"),
    Branch("zero_weight", lambda case, _: case.args[1] == 0, None,
           en="w = 0: each state is its own input, nothing is carried", zh="w = 0：每个状态就是它自己的输入，什么也不传递"),
    Branch("start_not_zero", lambda case, _: _h0(case) != 0,
           lambda rng: Case((_sequence(rng), draws.rational(rng, nonzero=True)), {"h0": draws.rational(rng, nonzero=True)}),
           en="a start h0 other than 0", zh="初始状态h0不为0"),
)

_BPTT_BRANCHES = (
    Branch("one_read", lambda case, _: len(case.args[0]) == 1, None,
           en="a sequence of one read (T = 1): one use of w, whose old state is h0", zh="只有一次读取的序列（T = 1）：w只用了一次，它乘的旧状态是h0"),
    Branch("longest", lambda case, _: len(case.args[0]) == LONGEST, None,
           en=f"the longest sequence drawn ({LONGEST} reads): rates carried back across {LONGEST - 1} edges",
           zh=f"抽取的最长序列（{LONGEST}次读取）：变化率向回跨越{LONGEST - 1}条边"),
    Branch("negative_weight", lambda case, _: case.args[1] < 0,
           lambda rng: Case((_sequence(rng), _negative(rng), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng)}),
           en="a negative weight w: dL/dh_t alternates in sign going back", zh="负的权重w：dL/dh_t 往回传时符号交替变化"),
    Branch("at_target", lambda case, expected: expected["loss"] == 0, None,
           en="h_T equal to the target: the loss, every rate and the gradient are 0", zh="h_T 恰好等于目标：损失、每个变化率和梯度都为0"),
    Branch("start_not_zero", lambda case, _: _h0(case) != 0,
           lambda rng: Case((_sequence(rng), draws.rational(rng, nonzero=True), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng, nonzero=True)}),
           en="a start h0 other than 0: the first use of w contributes too", zh="初始状态h0不为0：w的第一次使用也有贡献"),
)

_SGD_BRANCHES = (
    Branch("negative_gradient", lambda case, _: case.args[1] < 0, None, en="a negative gradient: w grows", zh="梯度为负：w变大"),
    Branch("positive_gradient", lambda case, _: case.args[1] > 0,
           lambda rng: Case((draws.rational(rng), abs(draws.rational(rng, nonzero=True)), draws.rational(rng, 0, 1, nonzero=True))),
           en="a positive gradient: w shrinks", zh="梯度为正：w变小"),
    Branch("zero_gradient", lambda case, _: case.args[1] == 0, None,
           en="a zero gradient: w is left as it is", zh="梯度为0：w保持不变"),
    Branch("zero_weight", lambda case, _: case.args[0] == 0,
           lambda rng: Case((Fraction(0), draws.rational(rng, nonzero=True), draws.rational(rng, 0, 1, nonzero=True))),
           en="w = 0 before the step", zh="更新前 w = 0"),
    Branch("large_step", lambda case, _: case.args[2] >= 1,
           lambda rng: Case((draws.rational(rng), draws.rational(rng, nonzero=True), rng.choice([Fraction(1), Fraction(3, 2), Fraction(2)]))),
           en="a step size (learning rate) of 1 or more", zh="步长（学习率）不小于1"),
)

_UPDATE_BRANCHES = (
    Branch("one_read", lambda case, _: len(case.args[0]) == 1, None,
           en="a sequence of one read: from h_0 = 0 the gradient is 0, so w is kept", zh="只有一次读取的序列：从 h_0 = 0 出发梯度为0，所以w保持不变"),
    Branch("longest", lambda case, _: len(case.args[0]) == LONGEST_UPDATE, None,
           en=f"the longest sequence drawn ({LONGEST_UPDATE} reads)", zh=f"抽取的最长序列（{LONGEST_UPDATE}次读取）"),
    Branch("negative_weight", lambda case, _: case.args[1] < 0,
           lambda rng: _replace(_draw_update(rng), 1, _negative(rng, -1)),
           en="a negative weight w", zh="负的权重w"),
    Branch("zero_gradient", lambda case, expected: expected["w"] == case.args[1], None,
           en="a zero gradient (one read from h_0 = 0, or h_T at the target): w and the states unchanged", zh="梯度为0（从 h_0 = 0 出发只读一次，或 h_T 恰好等于目标）：w和状态都不变"),
    Branch("large_step", lambda case, _: case.args[3] >= 1,
           lambda rng: _replace(_draw_update(rng), 3, rng.choice([Fraction(1), Fraction(3, 2), Fraction(2)])),
           en="a step size (learning rate) of 1 or more", zh="步长（学习率）不小于1"),
)

_MULTIPLIER_BRANCHES = (
    Branch("distance_zero", lambda case, _: case.args[1] == 0, None, en="distance 0: no edge, the multiplier is 1", zh="距离0：没有边，乘数为1"),
    Branch("distance_one", lambda case, _: case.args[1] == 1, None, en="distance 1: the factor itself", zh="距离1：就是因子本身"),
    Branch("longest", lambda case, _: case.args[1] == 16, None, en="the longest distance drawn (16)", zh="抽取的最长距离（16）"),
    Branch("vanishing", lambda case, _: 0 < abs(case.args[0]) < 1 and case.args[1] > 1, None, en="a factor below 1 in size: the signal vanishes", zh="大小小于1的因子：信号消失"),
    Branch("exploding", lambda case, _: abs(case.args[0]) > 1 and case.args[1] > 1, None, en="a factor above 1 in size: the signal explodes", zh="大小大于1的因子：信号爆炸"),
    Branch("negative_factor", lambda case, _: case.args[0] < 0,
           lambda rng: Case((_negative(rng), rng.randint(2, 16))), en="a negative factor: the sign alternates with the distance", zh="负的因子：符号随距离交替变化"),
    Branch("unit_factor", lambda case, _: abs(case.args[0]) == 1,
           lambda rng: Case((Fraction(-1), rng.randint(2, 16))), en="a factor of size 1: the signal neither vanishes nor explodes", zh="大小为1的因子：信号既不消失也不爆炸"),
)

_POLYNOMIAL_BRANCHES = (
    Branch("between_zero_and_one", lambda case, _: 0 < case.args[0] < 1, None, en="0 < w < 1: a negative gradient", zh="0 < w < 1：梯度为负"),
    Branch("stationary", lambda case, expected: expected == 0,
           lambda rng: Case((Fraction(0),)), en="w = 0 (or 1 or -1): a zero gradient", zh="w = 0（或1、-1）：梯度为0"),
    Branch("negative", lambda case, _: case.args[0] < 0,
           lambda rng: Case((_negative(rng, -3),)), en="a negative w", zh="负的w"),
    Branch("beyond_one", lambda case, _: abs(case.args[0]) > 1,
           lambda rng: Case((Fraction(rng.randint(33, 96), 32),)), en="|w| > 1: h_3 = w^2 overshoots the target", zh="|w| > 1：h_3 = w^2 超过目标"),
)

_FINITE_DIFFERENCE_BRANCHES = (
    Branch("default_eps", lambda case, _: "eps" not in case.kwargs, None, en="eps left at its default 1e-6", zh="eps取默认值1e-6"),
    Branch("wide_eps", lambda case, _: case.kwargs.get("eps", 1e-6) >= 0.05, None,
           en="a wide eps: the quotient differs visibly from the derivative", zh="较大的eps：差商与导数明显不同"),
    Branch("negative_w", lambda case, _: case.args[1] < 0, None, en="a negative w", zh="负的w"),
    Branch("longest", lambda case, _: len(case.args[0].xs) == 4, None, en="the longest loss drawn (four reads)", zh="抽取的最长损失（四次读取）"),
    Branch("flat", lambda case, expected: expected == 0, None,
           en="a loss of one read, flat in w (from h_0 = 0, h_1 = x_1): the quotient is 0", zh="只有一次读取的损失，对w是平的（从 h_0 = 0 出发，h_1 = x_1）：差商为0"),
)

_TANH_BRANCHES = (
    Branch("zero", lambda case, _: case.args[0] == 0, None, en="a = 0: the rate is 1", zh="a = 0：变化率为1"),
    Branch("positive", lambda case, _: case.args[0] > 0, None, en="a positive a", zh="正的a"),
    Branch("negative", lambda case, _: case.args[0] < 0, lambda rng: Case((-rng.uniform(0.1, 3),)), en="a negative a: the same rate as at -a", zh="负的a：与-a处的变化率相同"),
    Branch("saturated", lambda case, _: abs(case.args[0]) >= 4,
           lambda rng: Case((rng.choice([-1, 1]) * rng.uniform(4, 6),)), en="|a| of 4 or more: tanh saturates and the rate nearly vanishes", zh="|a| 不小于4：tanh饱和，变化率几乎为0"),
)


_RNN_BRANCHES = (
    Branch("one_step", lambda case, _: len(case.args[0]) == 1, None,
           en="a sequence of one step (T = 1)", zh="只有一步的序列（T = 1）"),
    Branch("largest", lambda case, _: np.shape(case.args[0]) == (RNN_T, RNN_D) and len(case.args[1]) == RNN_H, None,
           en=f"the largest size drawn (T = {RNN_T}, D = {RNN_D}, H = {RNN_H})", zh=f"抽取的最大规模（T = {RNN_T}，D = {RNN_D}，H = {RNN_H}）"),
    Branch("non_square", lambda case, _: np.shape(case.args[2])[0] != np.shape(case.args[2])[1], None,
           en="a non-square W_x (D inputs, H hidden units, D != H)", zh="非方阵的W_x（D个输入坐标，H个隐藏坐标，D != H）"),
    Branch("start_not_zero", lambda case, _: bool(np.any(np.asarray(case.args[1]) != 0)), None,
           en="a start h_0 other than 0: dW_h has a term at step 1", zh="初始状态h_0不为0：dW_h在第1步也有一项"),
    Branch("no_direct_gradient", lambda case, _: not np.any(np.asarray(case.args[5])), None,
           en="no loss gradient at any step: every gradient is 0", zh="每一步都没有损失梯度：所有梯度都为0"),
)


def _clip_exploding(rng: random.Random) -> Case:
    grads = [draws.uniform(rng, shape, -300, 300) for shape in rng.sample([(2,), (3,), (2, 2), (1, 3), (3, 2)], rng.randint(1, 3))]
    return Case((grads, rng.choice([0.5, 1.0, 2.0])))


def _squared_norm(grads) -> Fraction:
    return sum((Fraction(float(v)) ** 2 for g in grads for v in np.asarray(g, dtype=float).flat), Fraction(0))


_CLIP_BRANCHES = (
    Branch("under", lambda case, _: _squared_norm(case.args[0]) < Fraction(case.args[1]) ** 2 and _squared_norm(case.args[0]) > 0, None,
           en="a joint norm under max_norm: unchanged copies", zh="整体范数小于max_norm：返回不变的副本"),
    Branch("over", lambda case, _: _squared_norm(case.args[0]) > Fraction(case.args[1]) ** 2, None,
           en="a joint norm over max_norm: all scaled by one factor", zh="整体范数大于max_norm：全部按同一个因子缩放"),
    Branch("at_norm", lambda case, _: _squared_norm(case.args[0]) == Fraction(case.args[1]) ** 2, None,
           en="a joint norm exactly max_norm: unchanged copies", zh="整体范数恰好等于max_norm：返回不变的副本"),
    Branch("all_zero", lambda case, _: _squared_norm(case.args[0]) == 0, None,
           en="all-zero gradients (norm 0): zero copies, no division by 0", zh="全为0的梯度（范数为0）：返回全0的副本，不能除以0"),
    Branch("exploding", lambda case, _: _squared_norm(case.args[0]) > 10_000 * Fraction(case.args[1]) ** 2, _clip_exploding,
           en="an exploding gradient, a hundred times max_norm or more", zh="爆炸的梯度，达到max_norm的一百倍以上"),
    Branch("integer", lambda case, _: all(np.asarray(g).dtype.kind == "i" for g in case.args[0]), None,
           en="integer gradients: float copies", zh="整数梯度：返回浮点副本"),
    Branch("several", lambda case, _: len(case.args[0]) > 1, None, en="several tensors: one joint norm", zh="多个张量：一个整体范数"),
    Branch("most_tensors", lambda case, _: len(case.args[0]) == 3, None, en="three tensors, the most drawn", zh="三个张量，抽取的最多个数"),
)

_EX_12_7_1_BRANCHES = (
    Branch("book", lambda case, _: case.args[2] == ref.EXERCISE_12_7_1["distance"], None, en="the book's four edges", zh="书中的四条边"),
    Branch("longest", lambda case, _: case.args[2] == LONGEST_DISTANCE, None,
           en=f"another distance than the book's, the longest drawn ({LONGEST_DISTANCE} edges)", zh=f"与书中不同的距离，即抽取的最长距离（{LONGEST_DISTANCE}条边）"),
    Branch("one_edge", lambda case, _: case.args[2] == 1,
           lambda rng: Case((draws.rational(rng, -3, 3, nonzero=True), draws.rational(rng, -2, 2, nonzero=True), 1)),
           en="one edge: the rate times the factor once", zh="一条边：变化率乘一次因子"),
    Branch("negative_factor", lambda case, _: case.args[1] < 0, None, en="a negative factor", zh="负的因子"),
    Branch("negative_rate", lambda case, _: case.args[0] < 0,
           lambda rng: Case((_negative(rng, -3), draws.rational(rng, -2, 2, nonzero=True), rng.randint(1, LONGEST_DISTANCE))),
           en="a negative rate at the end", zh="末端的变化率为负"),
)

_EX_12_7_2_BRANCHES = (
    Branch("book", lambda case, _: len(case.args[0]) == 3, None,
           en="the book's three reads: from h_0 = 0 only the second read's contribution is missing", zh="书中的三次读取：从 h_0 = 0 出发，漏掉的只有第二次读取的贡献"),
    Branch("longest", lambda case, _: len(case.args[0]) == LONGEST_UPDATE, None,
           en=f"another length than the book's, the longest drawn ({LONGEST_UPDATE} reads): several contributions are missing",
           zh=f"与书中不同的长度，即抽取的最长长度（{LONGEST_UPDATE}次读取）：漏掉的贡献不止一项"),
    Branch("negative_weight", lambda case, _: case.args[1] < 0,
           lambda rng: _replace(_draw_ex_12_7_2(rng), 1, _negative(rng, -1)), en="a negative weight w", zh="负的权重w"),
    Branch("overshoot", lambda case, _: _final(case.args[0], case.args[1]) > case.args[2],
           lambda rng: (lambda case: _replace(case, 2, _final(case.args[0], case.args[1]) - abs(draws.rational(rng, nonzero=True))))(_draw_ex_12_7_2(rng)),
           en="h_T above the target: a positive gradient, w moves down", zh="h_T 高于目标：梯度为正，w变小"),
)


#: Checks called twice on each case (`rnnkit.helpers.call_twice`: once on a copy, then on the case), so that
#: a gradient accumulator never reset between calls (a mutable default, a global) shows up as a wrong value
#: in the self-check as at grading: a sum over the uses of w, or over time, is made afresh in every call.
TWICE = "twice"


CHECKS = [
    Check("scalar_forward", ref.scalar_forward, _public_forward, exact=True, draw=_draw_forward, points=1,
          branches=_FORWARD_BRANCHES),
    Check("bptt_scalar", ref.bptt_scalar, _public_bptt, exact=True, draw=_draw_bptt, points=3, call=TWICE,
          branches=_BPTT_BRANCHES),
    Check("sgd_update", ref.sgd_update, lambda: [Case((Fraction(1, 2), Fraction(-3, 4), Fraction(1, 10)), label={"en": "Example 12.1: 0.5 - 0.1 (-0.75)", "zh": "例12.1：0.5 - 0.1 (-0.75)"}),
                                                 Case((Fraction(-1, 2), Fraction(0), Fraction(1, 10)), label={"en": "a gradient of 0: w = -0.5 stays", "zh": "梯度为0：w = -0.5 保持不变"})], exact=True,
          draw=lambda rng: Case((draws.rational(rng), draws.rational(rng, nonzero=True), draws.rational(rng, 0, 1, nonzero=True))), points=1,
          branches=_SGD_BRANCHES),
    Check("update_and_recompute", ref.update_and_recompute, _public_update, exact=True, draw=_draw_update, points=2, call=TWICE,
          branches=_UPDATE_BRANCHES),
    Check("signal_multiplier", ref.signal_multiplier,
          lambda: [Case((Fraction(f), d), label={"en": f"Table 12.2, factor {f}, distance {d}", "zh": f"表12.2，局部因子{f}，距离{d}"}) for f in ("1/2", "3/2") for d in (0, 1, 8, 16)], exact=True,
          draw=lambda rng: Case((draws.rational(rng, -2, 2, nonzero=True), rng.randint(2, 16))), points=1, branches=_MULTIPLIER_BRANCHES),
    Check("polynomial_grad", ref.polynomial_grad, _public_polynomial, exact=True,
          draw=lambda rng: Case((draws.rational(rng, -3, 3, denominators=(7, 9, 11, 13, 16, 25, 32)),)), points=1,  # many values: a harvest repeats none
          branches=_POLYNOMIAL_BRANCHES),
    Check("finite_difference_grad", ref.finite_difference_grad, _public_finite_difference, rtol=1e-6, draw=_draw_finite_difference, points=1,
          branches=_FINITE_DIFFERENCE_BRANCHES),
    Check("tanh_local_rate", ref.tanh_local_rate, lambda: [Case((2.0,), label={"en": "section 12.3: a = 2", "zh": "12.3节：在 a = 2 处"}), Case((0.0,), label={"en": "a = 0", "zh": "在 a = 0 处"})],
          draw=lambda rng: Case((rng.uniform(-3, 3),)), points=1, branches=_TANH_BRANCHES),
    Check("rnn_backward", ref.rnn_backward, _public_rnn_backward, draw=_rnn_case, points=3, call=TWICE,
          branches=_RNN_BRANCHES),
    Check("clip_by_global_norm", ref.clip_by_global_norm, _public_clip, draw=_clip_case, call="returning_copies", points=2,
          branches=_CLIP_BRANCHES),
    Check("ex_12_7_1", ref.ex_12_7_1, _public_ex_12_7_1, exact=True, reveal=False, draw=_draw_ex_12_7_1, points=1, branches=_EX_12_7_1_BRANCHES),
    Check("ex_12_7_2", ref.ex_12_7_2, _public_ex_12_7_2, exact=True, reveal=False, draw=_draw_ex_12_7_2, points=1, call=TWICE,
          branches=_EX_12_7_2_BRANCHES),
]


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).with_name("notebook.md"))
_bptt_scalar, _scalar_forward = _solution.bptt_scalar, _solution.scalar_forward


# ----------------------------------------------------------------------------- catalogued mistakes
# Each is the solution function as a student gets it wrong, named by its id, with what the
# student should rethink (never the answer) in both languages.


@mistake("scalar_forward",
         en="Each new state must be built from the previous state h_{t-1}, not from h0 every time: carry h forward through the loop (Example 12.1: 1, 0.5, 0.25).",
         zh="每个新状态都必须由上一个状态h_{t-1}算出，而不是每次都从h0出发：在循环中把h一步步向前传递（例12.1：1, 0.5, 0.25）。")
def old_state_not_carried(xs, w, h0=0):
    return [x + w * h0 for x in xs]


@mistake("bptt_scalar",
         en="Only the last use of w was counted. w is shared: every read uses it, so add the contribution of every use (Table 12.1, last column).",
         zh="只计入了w的最后一次使用。w是共享参数：每次读取都会用到它，所以要把每次使用的贡献都加起来（表12.1最后一列）。")
def last_use_only(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["contributions"][-1]}


@mistake("bptt_scalar",
         en="The gradient was divided by the number of reads. Shared-parameter contributions are added, not averaged; the loss here has a single target (section 12.2).",
         zh="梯度被除以了读取次数。共享参数的各项贡献要相加，而不是取平均；这里的损失只有一个目标（12.2节）。")
def divided_by_reads(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["grad"] / len(xs)}


@mistake("bptt_scalar",
         en="A use of w in h_t = x_t + w h_{t-1} changes h_t by h_{t-1} per unit of w: multiply each dL/dh_t by the OLD state h_{t-1}.",
         zh="h_t = x_t + w h_{t-1} 中的这一次使用w，使h_t对w的变化率为h_{t-1}：把每个dL/dh_t乘以旧状态h_{t-1}。")
def old_state_factor_missing(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "contributions": result["dL_dh"], "grad": sum(result["dL_dh"])}


@mistake("bptt_scalar",
         en="The contribution of the use of w at step t is dL/dh_t times the old state h_{t-1}, not the new state h_t (Table 12.1, columns 2 and 3).",
         zh="第t步那次使用w的贡献，是dL/dh_t乘以旧状态h_{t-1}，而不是乘以新状态h_t（表12.1第2、3列）。")
def new_state_instead_of_old(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    contributions = [d * h for d, h in zip(result["dL_dh"], result["states"])]
    return {**result, "contributions": contributions, "grad": sum(contributions)}


@mistake("bptt_scalar",
         en="The gradient holds the contribution of one use of w only: inside the loop it was replaced (grad = ...) where it must be added to (grad += ...). Start from 0 and add the contribution of every step (Table 12.1, last column).",
         zh="梯度里只剩下w某一次使用的贡献：在循环中它被替换掉了（grad = ...），而这里应该累加（grad += ...）。从0开始，把每一步的贡献都加上去（表12.1最后一列）。")
def grad_overwritten_each_use(xs, w, target, h0=0):
    result = _bptt_scalar(xs, w, target, h0)
    return {**result, "grad": result["contributions"][0]}  # grad = ... in a loop from T down to 1 keeps step 1's


@mistake("bptt_scalar",
         en="Called a second time on the same inputs, your function counted the first call's contributions again: the list (or total) the contributions are added to is never reset between calls - a mutable default argument (contributions=[]) or a global. Start every call from an empty list and a zero sum (Table 12.1 sums the uses of w of one pass).",
         zh="用同样的输入第二次调用时，你的函数把第一次调用的贡献又算了一遍：累加贡献的列表（或总和）在两次调用之间从未清空——可变的默认参数（contributions=[]）或全局变量。每次调用都要从空列表和0开始（表12.1求和的是一次计算中w的各次使用）。")
def contributions_kept_between_calls(xs, w, target, h0=0, kept=[]):  # noqa: B006  (the mistake itself)
    result = _bptt_scalar(xs, w, target, h0)
    kept.extend(result["contributions"])
    return {**result, "contributions": list(kept), "grad": sum(kept)}


@mistake("sgd_update",
         en="Gradient descent steps against the gradient: w_new = w - lr * grad (0.5 - 0.1 * (-0.75) = 0.575).",
         zh="梯度下降沿梯度的反方向更新：w_new = w - lr * grad（0.5 - 0.1 * (-0.75) = 0.575）。")
def update_sign(w, grad, lr):
    return w + lr * grad


@mistake("sgd_update")
def float_where_exact(w, grad, lr):
    return float(w) - float(lr) * float(grad)


@mistake("update_and_recompute",
         en="After the update the old states are stale: recompute the forward pass with the new w before you report states and loss.",
         zh="更新之后，旧的状态已经过时：先用新的w重新做一遍前向计算，再报告状态和损失。")
def stale_states_after_update(xs, w, target, lr):
    states = _scalar_forward(xs, w)
    w_new = w - lr * _bptt_scalar(xs, w, target)["grad"]
    return {"w": w_new, "states": states, "loss": (states[-1] - target) ** 2 / 2}


@mistake("signal_multiplier",
         en="The distance counts edges between states, and each edge multiplies once: distance 0 gives 1, distance 8 gives factor^8 (Table 12.2).",
         zh="距离数的是状态之间的边，每条边乘一次：距离0得到1，距离8得到factor^8（表12.2）。")
def multiplier_off_by_one_edge(factor, distance):
    return factor ** (distance + 1)


@mistake("signal_multiplier",
         en="The multiplier was rounded. Return the exact power (1/256 is not 0.0039).",
         zh="乘数被舍入了。请返回精确的乘方（1/256不是0.0039）。")
def rounded_value(factor, distance):
    return round(float(factor**distance), 4)


@mistake("finite_difference_grad",
         en="A central difference spans w - eps to w + eps, a width of 2 eps: divide by 2 * eps.",
         zh="中心差分从 w - eps 一直跨到 w + eps，区间宽度是 2 eps：所以结果要除以 2 * eps。")
def difference_not_halved(f, w, eps=1e-6):
    return (f(w + eps) - f(w - eps)) / eps


@mistake("finite_difference_grad",
         en="A one-sided difference (f(w + eps) - f(w)) / eps is off by about eps/2 times the curvature of f: step to both sides of w, to w + eps and to w - eps, so that the errors of the two sides cancel.",
         zh="单侧差分 (f(w + eps) - f(w)) / eps 的误差约为eps/2乘以f的曲率：要向w的两侧各走一步，分别到 w + eps 和 w - eps，让两侧的误差相互抵消。")
def forward_difference(f, w, eps=1e-6):
    return (f(w + eps) - f(w)) / eps


@mistake("finite_difference_grad",
         en="A one-sided difference (f(w) - f(w - eps)) / eps, looking back only, is off by about eps/2 times the curvature of f: step to both sides of w, to w + eps and to w - eps, so that the errors of the two sides cancel.",
         zh="只向后看的单侧差分 (f(w) - f(w - eps)) / eps 的误差约为eps/2乘以f的曲率：要向w的两侧各走一步，分别到 w + eps 和 w - eps，让两侧的误差相互抵消。")
def backward_difference(f, w, eps=1e-6):
    return (f(w) - f(w - eps)) / eps


@mistake("finite_difference_grad",
         en="The step eps you are given is not the one you used: with a wide eps the central difference differs from the derivative, and the check asks for the difference with that eps. Use the eps argument (its default is 1e-6), not a fixed step.",
         zh="你用的步长不是传入的eps：eps较大时，中心差分与导数不同，而检查要的正是用这个eps算出的差分。请使用参数eps（默认值为1e-6），不要用固定的步长。")
def eps_ignored(f, w, eps=1e-6):
    step = 1e-6
    return (f(w + step) - f(w - step)) / (2 * step)


@mistake("polynomial_grad",
         en="Apply the chain rule through w^2 - 1 as well: the inner function contributes a factor 2w.",
         zh="链式法则也要穿过 w^2 - 1：内层函数还贡献一个因子2w。")
def inner_derivative_missing(w):
    return w * w - 1


@mistake("tanh_local_rate",
         en="The local rate of tanh is 1 - tanh(a)^2: square the tanh value (about 0.071 at a = 2).",
         zh="tanh的局部变化率是 1 - tanh(a)^2：要把tanh的值平方（a = 2 时约为0.071）。")
def tanh_rate_not_squared(a):
    return 1 - np.tanh(a)


@mistake("rnn_backward",
         en="With row vectors, h_t = ... + h_{t-1} W_h, so the signal reaching h_{t-1} is delta_t W_h^T: transpose W_h on the way back.",
         zh="使用行向量时，h_t = ... + h_{t-1} W_h，所以传到h_{t-1}的信号是 delta_t W_h^T：反向传播时要把W_h转置。")
def recurrent_weight_not_transposed(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, transpose=False)


@mistake("rnn_backward",
         en="Called a second time on the same inputs, your function returned larger weight gradients: the arrays dW_x, dW_h and db are added to across calls and never reset - a mutable default argument (grads={}) or a global. Start each call from zeros (np.zeros_like(W_x), ...): the sums over time belong to one backward pass.",
         zh="用同样的输入第二次调用时，你的函数返回的权重梯度变大了：dW_x、dW_h和db在多次调用之间一直累加，从未清零——可变的默认参数（grads={}）或全局变量。每次调用都要从0开始（np.zeros_like(W_x) 等）：对时间的求和只属于一次反向传播。")
def gradients_kept_between_calls(xs, h0, W_x, W_h, b, dh_direct, totals={}):  # noqa: B006  (the mistake itself)
    result = _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct)
    for key in ("dW_x", "dW_h", "db"):
        totals[key] = totals[key] + result[key] if key in totals else result[key]
    return {**result, **{key: totals[key].copy() for key in ("dW_x", "dW_h", "db")}}


@mistake("rnn_backward",
         en="The weight gradients are transposed: outer(delta_t, x_t) is the column-vector habit (W x_t, as the second text writes it). Here states are row vectors and x_t W_x multiplies W_x from the left, so dW_x has W_x's shape (D, H): its term is outer(x_t, delta_t), and dW_h's is outer(h_{t-1}, delta_t), the old state first.",
         zh="权重的梯度被转置了：outer(delta_t, x_t) 是列向量的习惯写法（即第二份教材的 W x_t）。这里的状态是行向量，x_t W_x 是从左边乘W_x，所以dW_x的形状与W_x相同，为 (D, H)：它的项是 outer(x_t, delta_t)，dW_h的项是 outer(h_{t-1}, delta_t)，旧状态在前。")
def weight_grads_transposed(xs, h0, W_x, W_h, b, dh_direct):
    result = _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct)
    return {**result, "dW_x": result["dW_x"].T, "dW_h": result["dW_h"].T}


@mistake("rnn_backward",
         en="Each step passes through tanh: multiply by its local rate (1 - h_t^2) before the gradient reaches the weights.",
         zh="每一步都要经过tanh：梯度到达权重之前，要先乘以它的局部变化率 (1 - h_t^2)。")
def tanh_derivative_missing(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, tanh_rate=False)


@mistake("rnn_backward",
         en="The weight gradients hold one time step only: inside the backward loop they were replaced (dW = ...) where each step's term must be added to them (dW += ...). W_x, W_h and b are used at every step, so their gradients are sums over time.",
         zh="权重的梯度只包含一个时间步：在反向循环中它们被替换掉了（dW = ...），而每一步的项都应该累加上去（dW += ...）。W_x、W_h和b在每一步都被使用，所以它们的梯度是对时间的求和。")
def grads_overwritten_each_step(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, accumulate=False)


@mistake("rnn_backward",
         en="The gradient of W_h pairs delta_t with the new state h_t. At step t, W_h multiplies the state it reads, h_{t-1}: its term is the outer product of h_{t-1} and delta_t (as in Table 12.1, the OLD state).",
         zh="W_h的梯度把delta_t和新状态h_t配在了一起。在第t步，W_h乘的是它读入的状态h_{t-1}：这一项是h_{t-1}与delta_t的外积（与表12.1一样，用的是旧状态）。")
def recurrent_grad_from_new_state(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, old_state=False)


@mistake("clip_by_global_norm",
         en="Clipping by the global norm rescales all gradients by one factor (max_norm / norm) so the direction is kept; clipping each entry changes the direction.",
         zh="按全局范数做梯度裁剪时，所有梯度都按同一个因子（max_norm / norm）缩放，方向保持不变；逐项裁剪则会改变梯度的方向。")
def clipped_elementwise(grads, max_norm):
    return [np.clip(np.asarray(g, dtype=float), -max_norm, max_norm) for g in grads]


@mistake("clip_by_global_norm",
         en="Each tensor was clipped by its own norm. The global norm is one number over all tensors together; when it is too large, every tensor is scaled by the same factor, even one whose own norm is small, so the overall direction is kept.",
         zh="每个张量都按它自己的范数做了裁剪。全局范数是把所有张量合在一起算出的一个数；它过大时，每个张量都按同一个因子缩放，即使某个张量自己的范数很小也一样，这样整体方向才能保持不变。")
def per_tensor_clipping(grads, max_norm):
    clipped = []
    for g in grads:
        g = np.asarray(g, dtype=float)
        norm = float(np.sqrt(np.sum(g**2)))
        clipped.append(g * (max_norm / norm) if norm > max_norm else g.copy())
    return clipped


@mistake("ex_12_7_2",
         en="\"The second read\" is the book's answer for Example 12.1's three reads only: from h_0 = 0 the first read contributes nothing, so there the second is all that is missing. In general the program misses every use of w but the last: add the contributions of all the earlier reads (Table 12.1, last column).",
         zh="“第二次读取”只是书中针对例12.1三次读取的答案：从 h_0 = 0 出发，第一次读取没有贡献，所以在那里漏掉的只有第二次。一般来说，这个程序漏掉的是除最后一次以外w的每一次使用：要把前面所有读取的贡献都加起来（表12.1最后一列）。")
def second_read_only(xs, w, target, lr):
    table = _bptt_scalar(xs, w, target)
    return {"missing contribution": table["contributions"][1], "w_new": w - lr * table["grad"]}


def _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, *, transpose=True, tanh_rate=True, accumulate=True, old_state=True):
    """rnn_backward with one step changed; the defaults give the solution."""
    xs, h0 = np.asarray(xs, dtype=float), np.asarray(h0, dtype=float)
    states = [h0]
    for x in xs:
        states.append(np.tanh(x @ W_x + states[-1] @ W_h + b))
    dW_x, dW_h, db, carry = np.zeros_like(W_x), np.zeros_like(W_h), np.zeros_like(b), np.zeros_like(h0)
    for t in reversed(range(len(xs))):
        delta = (dh_direct[t] + carry) * ((1 - states[t + 1] ** 2) if tanh_rate else 1)
        terms = (np.outer(xs[t], delta), np.outer(states[t] if old_state else states[t + 1], delta), delta)
        dW_x, dW_h, db = [total + term for total, term in zip((dW_x, dW_h, db), terms)] if accumulate else terms
        carry = delta @ (W_h.T if transpose else W_h)
    return {"dW_x": dW_x, "dW_h": dW_h, "db": db, "dh0": carry}
