"""rnn_backward: backpropagation through time through h_t = tanh(x_t W_x + h_{t-1} W_h + b) (row vectors), the
second text's backward recursion, on the third text's example and larger ones."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import TWICE

#: The largest sizes the drawer draws: T steps, D inputs, H hidden units.
RNN_T, RNN_D, RNN_H = 6, 3, 3


def public():
    xs, loss_at_h3 = np.array([[1.0], [0.0], [-1.0]]), np.array([[0.0], [0.0], [1.0]])
    largest = Case(
        (
            np.array(
                [
                    [1.0, 0.0, -0.5],
                    [0.5, -1.0, 0.25],
                    [0.0, 0.75, 1.0],
                    [-1.0, 0.5, 0.0],
                    [0.25, 0.25, -0.75],
                    [1.0, -0.5, 0.5],
                ]
            ),
            np.array([0.25, -0.5, 0.0]),
            np.array([[0.5, -0.25, 0.75], [-0.5, 0.25, 0.0], [0.125, 1.0, -0.375]]),
            np.array([[0.25, 0.5, -0.125], [-0.375, 0.125, 0.25], [0.5, -0.25, 0.375]]),
            np.array([0.125, -0.25, 0.0]),
            np.array(
                [
                    [0.0, 0.0, 0.0],
                    [0.5, 0.0, -0.25],
                    [0.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0],
                    [0.0, 0.0, 0.0],
                    [1.0, -0.5, 0.25],
                ]
            ),
        ),
        label={
            "en": f"the largest size drawn: T = {RNN_T} steps, D = {RNN_D} inputs, H = {RNN_H} hidden units, "
            "h_0 = (0.25, -0.5, 0), non-symmetric weights, a loss at steps 2, 4 and 6",
            "zh": f"抽取的最大规模：T = {RNN_T} 步，D = {RNN_D} 个输入坐标，H = {RNN_H} 个隐藏坐标，"
            "h_0 = (0.25, -0.5, 0)，权重不对称，第2、4、6步有损失",
        },
    )
    return [
        Case(
            (xs, np.zeros(1), np.eye(1), np.array([[0.5]]), np.zeros(1), loss_at_h3),
            label={
                "en": "third text's tanh RNN (1, 0, -1), loss = h_3",
                "zh": "第三份教材的 tanh RNN，输入 (1, 0, -1)，损失 = h_3",
            },
        ),
        # a 1 x 1 W_h is its own transpose: two hidden units and a non-symmetric W_h show whether it is transposed
        Case(
            (
                xs,
                np.zeros(2),
                np.array([[1.0, -0.5]]),
                np.array([[0.5, 0.25], [-0.5, 0.5]]),
                np.zeros(2),
                np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]]),
            ),
            label={
                "en": "third text's inputs (1, 0, -1) on two hidden units, not the book's weights: "
                "W_x = [[1, -0.5]], a non-symmetric W_h = [[0.5, 0.25], [-0.5, 0.5]], loss = h_3[0]",
                "zh": "第三份教材的输入 (1, 0, -1)，两个隐藏坐标，不用书中的权重：W_x = [[1, -0.5]]，"
                "不对称的 W_h = [[0.5, 0.25], [-0.5, 0.5]]，损失 = h_3[0]",
            },
        ),
        largest,
        # one step: one term per weight gradient (replacing and adding agree there); no loss at all: all gradients 0
        Case(
            (
                np.array([[1.0, -0.5]]),
                np.array([0.5, -0.25]),
                np.array([[0.5, -0.25], [0.25, 1.0]]),
                np.array([[0.5, 0.25], [-0.5, 0.5]]),
                np.array([0.0, 0.125]),
                np.array([[1.0, -0.5]]),
            ),
            label={
                "en": "one step (T = 1) from h_0 = (0.5, -0.25), a loss gradient (1, -0.5) at h_1",
                "zh": "只有一步（T = 1），从 h_0 = (0.5, -0.25) 出发，损失梯度 (1, -0.5) 直接到达 h_1",
            },
        ),
        # as many steps as inputs and hidden units: xs read by feature instead of by step, or dh_direct
        # read by unit, shows as a wrong gradient
        Case(
            (
                np.array([[1.0, 0.5, 0.0], [-0.5, 0.0, 0.25], [0.0, -1.0, 0.5]]),
                np.array([0.0, 0.25, -0.25]),
                np.array([[0.5, 0.0, -0.25], [0.25, 0.5, 0.0], [0.0, -0.5, 0.75]]),
                np.array([[0.25, 0.5, 0.0], [-0.25, 0.0, 0.5], [0.125, 0.0, -0.25]]),
                np.array([0.0, 0.125, 0.0]),
                np.array([[0.0, 1.0, 0.0], [0.0, 0.0, -0.5], [0.5, 0.0, 0.0]]),
            ),
            label={
                "en": "T = 3 steps of D = 3 inputs on H = 3 hidden units, non-symmetric inputs, weights and loss "
                "gradients: a step and an input coordinate, or a step and a unit, read for each other give "
                "another gradient",
                "zh": "T = 3 步、D = 3 个输入坐标、H = 3 个隐藏坐标，输入、权重和损失梯度都不对称："
                "把步和输入坐标、或步和隐藏坐标互相读错，梯度就不同",
            },
        ),
        Case(
            (xs, np.zeros(1), np.eye(1), np.array([[0.5]]), np.zeros(1), np.zeros((3, 1))),
            label={
                "en": "third text's tanh RNN (1, 0, -1) with no loss gradient at any step: every gradient is 0",
                "zh": "第三份教材的 tanh RNN，输入 (1, 0, -1)，每一步都没有损失梯度：所有梯度都为0",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    T, D, H = rng.randint(1, RNN_T), rng.randint(1, RNN_D), rng.randint(2, RNN_H)
    W_h = draws.matrix(rng, H, H, scale=0.9)
    W_h[0, 1] += 0.5  # never symmetric
    return Case(
        (
            draws.uniform(rng, (T, D)),
            draws.uniform(rng, (H,), -0.5, 0.5),
            draws.matrix(rng, D, H),
            W_h,
            draws.matrix(rng, 0, H, scale=0.5),
            draws.uniform(rng, (T, H)),
        )
    )


BRANCHES = (
    Branch(
        "one_step",
        lambda case, _: len(case.args[0]) == 1,
        None,
        en="a sequence of one step (T = 1)",
        zh="只有一步的序列（T = 1）",
    ),
    Branch(
        "largest",
        lambda case, _: np.shape(case.args[0]) == (RNN_T, RNN_D) and len(case.args[1]) == RNN_H,
        None,
        en=f"the largest size drawn (T = {RNN_T}, D = {RNN_D}, H = {RNN_H})",
        zh=f"抽取的最大规模（T = {RNN_T}，D = {RNN_D}，H = {RNN_H}）",
    ),
    Branch(
        "non_square",
        lambda case, _: np.shape(case.args[2])[0] != np.shape(case.args[2])[1],
        None,
        en="a non-square W_x (D inputs, H hidden units, D != H)",
        zh="非方阵的W_x（D个输入坐标，H个隐藏坐标，D != H）",
    ),
    Branch(
        "start_not_zero",
        lambda case, _: bool(np.any(np.asarray(case.args[1]) != 0)),
        None,
        en="a start h_0 other than 0: dW_h has a term at step 1",
        zh="初始状态h_0不为0：dW_h在第1步也有一项",
    ),
    Branch(
        "no_direct_gradient",
        lambda case, _: not np.any(np.asarray(case.args[5])),
        None,
        en="no loss gradient at any step: every gradient is 0",
        zh="每一步都没有损失梯度：所有梯度都为0",
    ),
)

CHECK = Check(
    "rnn_backward",
    ref.rnn_backward,
    public,
    draw=draw,
    points=3,
    call=TWICE,
    branches=BRANCHES,
    kept="gradients_kept_between_calls",
)


@mistake(
    "rnn_backward",
    en="With row vectors, h_t = ... + h_{t-1} W_h, so the signal reaching h_{t-1} is delta_t W_h^T: transpose W_h on "
    "the way back.",
    zh="使用行向量时，h_t = ... + h_{t-1} W_h，所以传到h_{t-1}的信号是 delta_t W_h^T：反向传播时要把W_h转置。",
)
def recurrent_weight_not_transposed(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, transpose=False)


@mistake(
    "rnn_backward",
    en="Called a second time on the same inputs, your function returned larger weight gradients: the arrays dW_x, "
    "dW_h and db are added to across calls and never reset - a mutable default argument (grads={}) or a global. "
    "Start each call from zeros (np.zeros_like(W_x), ...): the sums over time belong to one backward pass.",
    zh="用同样的输入第二次调用时，你的函数返回的权重梯度变大了：dW_x、dW_h和db在多次调用之间一直累加，"
    "从未清零——可变的默认参数（grads={}）或全局变量。每次调用都要从0开始（np.zeros_like(W_x) 等）："
    "对时间的求和只属于一次反向传播。",
)
def gradients_kept_between_calls(xs, h0, W_x, W_h, b, dh_direct, totals={}):  # noqa: B006  (the mistake itself)
    result = _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct)
    for key in ("dW_x", "dW_h", "db"):
        totals[key] = totals[key] + result[key] if key in totals else result[key]
    return {**result, **{key: totals[key].copy() for key in ("dW_x", "dW_h", "db")}}


@mistake(
    "rnn_backward",
    en="The weight gradients are transposed: outer(delta_t, x_t) is the column-vector habit "
    "(W x_t, as the second text writes it). Here states are row vectors and x_t W_x multiplies W_x from the left, so "
    "dW_x has W_x's shape (D, H): its term is outer(x_t, delta_t), and dW_h's is outer(h_{t-1}, delta_t), the old "
    "state first.",
    zh="权重的梯度被转置了：outer(delta_t, x_t) 是列向量的习惯写法（即第二份教材的 W x_t）。这里的状态是行向量，"
    "x_t W_x 是从左边乘W_x，所以dW_x的形状与W_x相同，为 (D, H)：它的项是 outer(x_t, delta_t)，"
    "dW_h的项是 outer(h_{t-1}, delta_t)，旧状态在前。",
)
def weight_grads_transposed(xs, h0, W_x, W_h, b, dh_direct):
    result = _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct)
    return {**result, "dW_x": result["dW_x"].T, "dW_h": result["dW_h"].T}


@mistake(
    "rnn_backward",
    en="Each step passes through tanh: multiply by its local rate (1 - h_t^2) before the gradient reaches the weights.",
    zh="每一步都要经过tanh：梯度到达权重之前，要先乘以它的局部变化率 (1 - h_t^2)。",
)
def tanh_derivative_missing(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, tanh_rate=False)


@mistake(
    "rnn_backward",
    en="The weight gradients hold one time step only: inside the backward loop they were replaced (dW = ...) where "
    "each step's term must be added to them (dW += ...). W_x, W_h and b are used at every step, so their gradients "
    "are sums over time.",
    zh="权重的梯度只包含一个时间步：在反向循环中它们被替换掉了（dW = ...），而每一步的项都应该累加上去（dW += ...）。"
    "W_x、W_h和b在每一步都被使用，所以它们的梯度是对时间的求和。",
)
def grads_overwritten_each_step(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, accumulate=False)


@mistake(
    "rnn_backward",
    en="The gradient of W_h pairs delta_t with the new state h_t. At step t, W_h multiplies the state it reads, "
    "h_{t-1}: its term is the outer product of h_{t-1} and delta_t (as in Table 12.1, the OLD state).",
    zh="W_h的梯度把delta_t和新状态h_t配在了一起。在第t步，W_h乘的是它读入的状态h_{t-1}："
    "这一项是h_{t-1}与delta_t的外积（与表12.1一样，用的是旧状态）。",
)
def recurrent_grad_from_new_state(xs, h0, W_x, W_h, b, dh_direct):
    return _rnn_backward_variant(xs, h0, W_x, W_h, b, dh_direct, old_state=False)


def _rnn_backward_variant(
    xs, h0, W_x, W_h, b, dh_direct, *, transpose=True, tanh_rate=True, accumulate=True, old_state=True
):
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
