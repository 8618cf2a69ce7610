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
from ...grading.spec import Case, Check
from ...grading.symbolic import to_fraction
from . import reference as ref


def _book():
    setup = ref.example_12_1()
    return [to_fraction(x) for x in setup["xs"]], to_fraction(setup["w"]), to_fraction(setup["target"]), to_fraction(setup["lr"])


def _sequence(rng: random.Random, longest: int = 12) -> list[Fraction]:
    return draws.rationals(rng, rng.randint(1, longest))


def _public_forward():
    xs, w, _, _ = _book()
    return [Case((xs, w), label={"en": "Example 12.1 (1, 0, 0), w = 0.5", "zh": "例12.1：输入 (1, 0, 0)，w = 0.5"}),
            Case(([1, 2, -1], Fraction(1, 2)), label={"en": "second text, example 1: inputs (1, 2, -1), a = 0.5", "zh": "第二份教材例1：输入 (1, 2, -1)，a = 0.5"})]


def _public_bptt():
    xs, w, target, _ = _book()
    return [Case((xs, w, target), label={"en": "Table 12.1", "zh": "表12.1"}),
            Case(([1, 2, -1], Fraction(1, 2), 0), label={"en": "second text, example 1: L = h_3^2 / 2", "zh": "第二份教材例1：L = h_3^2 / 2"})]


def _public_update():
    xs, w, target, lr = _book()
    return [Case((xs, w, target, lr), label={"en": "Example 12.1, learning rate 0.1", "zh": "例12.1，学习率0.1"})]


def _public_finite_difference():
    # central differences err by O(eps^2); a forward difference errs by about eps/2 |L''(w)|, beyond
    # the check's rtol (1e-6) in the cases with the second text's loss (L'' = 9.5) and eps = 1e-4;
    # the reference is the central difference with the eps given, so a wide eps shows whether it is used
    book, text2 = ScalarLoss(tuple(_book()[0]), Fraction(1)), ScalarLoss((1, 2, -1), 0)
    return [Case((book, 0.5), label={"en": "Example 12.1: L(w) at w = 0.5", "zh": "例12.1：L(w) 在 w = 0.5 处的值"}),
            Case((text2, 0.5), label={"en": "second text, example 1: L(a) = h_3^2 / 2 at a = 0.5 (dL/da = 0.75)", "zh": "第二份教材例1：L(a) = h_3^2 / 2 在 a = 0.5 处的值（dL/da = 0.75）"}),
            Case((book, 0.5), {"eps": 1e-4}, label={"en": "Example 12.1: L(w) at w = 0.5, with eps = 1e-4", "zh": "例12.1：L(w) 在 w = 0.5 处的值，取 eps = 1e-4"}),
            Case((text2, 0.5), {"eps": 0.25}, label={"en": "second text, example 1 at a = 0.5 with a wide step eps = 0.25 (the difference quotient, not dL/da)", "zh": "第二份教材例1：在 a = 0.5 处取较大的步长 eps = 0.25（要的是差商，而不是dL/da）"})]


def _draw_finite_difference(rng: random.Random) -> Case:
    """A loss of up to four reads, with a wide eps (the central difference then differs from L'(w))."""
    return Case((ScalarLoss(tuple(_sequence(rng, 4)), draws.rational(rng)), rng.uniform(-1.5, 1.5)), {"eps": rng.choice([0.05, 0.1, 0.2, 0.25, 0.5])})


def _public_polynomial():
    # at w = 0.5 the inner derivative 2w is 1, so the book's own point cannot show it missing
    return [Case((Fraction(1, 2),), label={"en": "Example 12.1: 2w(w^2 - 1) at w = 0.5", "zh": "例12.1：2w(w^2 - 1) 在 w = 0.5 处的值"}),
            Case((Fraction(23, 40),), label={"en": "Example 12.1 after the update: w = 0.575 (h_3 = 0.330625)", "zh": "例12.1更新之后：w = 0.575（h_3 = 0.330625）"})]


def _public_rnn_backward():
    xs, loss_at_h3 = np.array([[1.0], [0.0], [-1.0]]), np.array([[0.0], [0.0], [1.0]])
    return [Case((xs, np.zeros(1), np.eye(1), np.array([[0.5]]), np.zeros(1), loss_at_h3), label={"en": "third text's tanh RNN (1, 0, -1), loss = h_3", "zh": "第三份教材的 tanh RNN，输入 (1, 0, -1)，损失 = h_3"}),
            # a 1 x 1 W_h is its own transpose: two hidden units and a non-symmetric W_h show whether it is transposed
            Case((xs, np.zeros(2), np.array([[1.0, -0.5]]), np.array([[0.5, 0.25], [-0.5, 0.5]]), np.zeros(2),
                  np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])),
                 label={"en": "third text's inputs (1, 0, -1) on two hidden units, not the book's weights: W_x = [[1, -0.5]], "
                              "a non-symmetric W_h = [[0.5, 0.25], [-0.5, 0.5]], loss = h_3[0]",
                        "zh": "第三份教材的输入 (1, 0, -1)，两个隐藏坐标，不用书中的权重：W_x = [[1, -0.5]]，"
                              "不对称的 W_h = [[0.5, 0.25], [-0.5, 0.5]]，损失 = h_3[0]"})]


def _public_clip():
    return [Case(([np.array([3.0, 4.0])], 1.0), label={"en": "norm 5 clipped to 1", "zh": "范数5，裁剪到1"}),
            Case(([np.array([0.3]), np.array([[0.4]])], 1.0), label={"en": "norm 0.5 left alone", "zh": "范数0.5，保持不变"}),
            # one norm over all tensors: the first alone is under the limit, and is scaled all the same
            Case(([np.array([0.3, 0.4]), np.array([[0.72, 0.96]])], 0.65),
                 label={"en": "two tensors of norms 0.5 and 1.2 (jointly 1.3) clipped to 0.65: both halved", "zh": "两个张量，范数分别为0.5和1.2（整体范数1.3），裁剪到0.65：两者都减半"}),
            # integer arrays cannot be scaled in place: only copies made as floats give the values
            Case(([np.array([3, 4]), np.array([[0, 12]])], 6.5),
                 label={"en": "integer gradients [3, 4] and [[0, 12]] (jointly 13) clipped to 6.5: float copies, the inputs left alone", "zh": "整数梯度 [3, 4] 和 [[0, 12]]（整体范数13）裁剪到6.5：返回浮点副本，输入保持不变"})]


def _public_ex_12_7_1():
    one = ref.EXERCISE_12_7_1
    rate, distance = Fraction(int(one["rate"])), one["distance"]
    return [Case((rate, Fraction(int(factor.p), int(factor.q)), distance),
                 label={"en": f"exercise 12.7.1: rate {rate}, factor {float(factor):g}, {distance} edges",
                        "zh": f"习题12.7.1：变化率{rate}，因子{float(factor):g}，{distance}条边"}) for factor in one["factors"]]


def _draw_ex_12_7_1(rng: random.Random) -> Case:
    return Case((draws.rational(rng, -3, 3, nonzero=True), draws.rational(rng, -2, 2, nonzero=True), rng.randint(1, 12)))


def _public_ex_12_7_2():
    xs, w, target, lr = _book()
    return [Case((xs, w, target, lr), label={"en": "exercise 12.7.2: Example 12.1, inputs (1, 0, 0), w = 0.5, target 1, learning rate 0.1", "zh": "习题12.7.2：例12.1，输入 (1, 0, 0)，w = 0.5，目标1，学习率0.1"})]


def _draw_ex_12_7_2(rng: random.Random) -> Case:
    """As update_and_recompute's, with three reads or more: from h_0 = 0 the first read contributes
    nothing, so with two the last read is all there is."""
    return Case((draws.rationals(rng, rng.randint(3, 8)), draws.rational(rng, -1, 1, nonzero=True), draws.rational(rng, -2, 2),
                 draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True)))


def _rnn_case(rng: random.Random) -> Case:
    T, D, H = rng.randint(1, 6), rng.randint(1, 3), rng.randint(2, 3)
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


CHECKS = [
    Check("scalar_forward", ref.scalar_forward, _public_forward, exact=True,
          draw=lambda rng: Case((_sequence(rng), draws.rational(rng, nonzero=True)), {"h0": draws.rational(rng)}), points=1),
    Check("bptt_scalar", ref.bptt_scalar, _public_bptt, exact=True,
          draw=lambda rng: Case((_sequence(rng), draws.rational(rng, nonzero=True), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng)}), points=3),
    Check("sgd_update", ref.sgd_update, lambda: [Case((Fraction(1, 2), Fraction(-3, 4), Fraction(1, 10)), label={"en": "Example 12.1: 0.5 - 0.1 (-0.75)", "zh": "例12.1：0.5 - 0.1 (-0.75)"})], exact=True,
          draw=lambda rng: Case((draws.rational(rng), draws.rational(rng, nonzero=True), draws.rational(rng, 0, 1, nonzero=True))), points=1),
    Check("update_and_recompute", ref.update_and_recompute, _public_update, exact=True,
          draw=lambda rng: Case((_sequence(rng, 8), draws.rational(rng, -1, 1, nonzero=True), draws.rational(rng, -2, 2), draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True))), points=2),
    Check("signal_multiplier", ref.signal_multiplier,
          lambda: [Case((Fraction(f), d), label={"en": f"Table 12.2, factor {f}, distance {d}", "zh": f"表12.2，局部因子{f}，距离{d}"}) for f in ("1/2", "3/2") for d in (0, 1, 8, 16)], exact=True,
          draw=lambda rng: Case((draws.rational(rng, -2, 2, nonzero=True), rng.randint(2, 16))), points=1),
    Check("polynomial_grad", ref.polynomial_grad, _public_polynomial, exact=True,
          draw=lambda rng: Case((draws.rational(rng, -3, 3, denominators=(7, 9, 11, 13, 16, 25, 32)),)), points=1),  # many values: a harvest repeats none
    Check("finite_difference_grad", ref.finite_difference_grad, _public_finite_difference, rtol=1e-6, draw=_draw_finite_difference, points=1),
    Check("tanh_local_rate", ref.tanh_local_rate, lambda: [Case((2.0,), label={"en": "section 12.3: a = 2", "zh": "12.3节：在 a = 2 处"}), Case((0.0,), label={"en": "a = 0", "zh": "在 a = 0 处"})],
          draw=lambda rng: Case((rng.uniform(-3, 3),)), points=1),
    Check("rnn_backward", ref.rnn_backward, _public_rnn_backward, rtol=1e-6, draw=_rnn_case, points=3),
    Check("clip_by_global_norm", ref.clip_by_global_norm, _public_clip, draw=_clip_case, call="returning_copies", points=2),
    Check("ex_12_7_1", ref.ex_12_7_1, _public_ex_12_7_1, exact=True, reveal=False, draw=_draw_ex_12_7_1, points=1),
    Check("ex_12_7_2", ref.ex_12_7_2, _public_ex_12_7_2, exact=True, reveal=False, draw=_draw_ex_12_7_2, points=1),
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
