"""The checks of ch12_gates: the book's cases of section 12.4 (Examples 12.3-12.4, the second and third
texts' gate examples, Table 12.3's parameter budget) and seeded hidden draws.

Hidden draws: gate values and cells are exact Fractions for `lstm_cell_update`, `retention` and the
exercises 12.7.4-5 (scalar variants of their givens); `lstm_step` and `gru_step` get float64
parameters with input width m from 1 to 4, hidden width d from 1 to 5 (GRU: 2 to 5, see `_gru_case`),
full (non-diagonal) A and U_g matrices, and biases that push some gates to within a few thousandths
of 0 or 1.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np

from ...grading import draws, template
from ...grading.catalogue import mistake
from ...grading.spec import Case, Check
from ...grading.symbolic import to_fraction
from . import reference as ref




def _cell_case(setup: dict, label: dict[str, str], **override) -> Case:
    values = {**setup, **override}
    return Case(tuple(to_fraction(values[key]) for key in ("c_prev", "f", "i", "g", "o")), label=label)


def _objects(values) -> np.ndarray:
    return np.array(list(values), dtype=object)


def _logit(p) -> float:
    """The preactivation whose sigmoid is the gate value p (how a given gate value enters a step)."""
    p = float(p)
    return math.log(p / (1 - p))


def _public_sigmoid():
    return [Case((0.0,), label={"en": "a = 0: a gate half open", "zh": "a = 0：门半开"}),
            Case((math.log(9),), label={"en": "a = ln 9: the forget gate 0.9 of Example 12.3", "zh": "a = ln 9：遗忘门0.9，即例12.3中的门值"}),
            Case((np.array([-2.0, 0.0, 2.0, 40.0, -40.0]),), label={"en": "a vector, element-wise, saturated at both ends", "zh": "一个向量，逐元素计算，两端都已饱和"})]


def _public_cell():
    two = dict(c_prev=_objects([Fraction(4, 5), Fraction(-1)]), f=_objects([Fraction(9, 10), Fraction(1, 2)]),
               i=_objects([Fraction(1, 5), Fraction(1)]), g=_objects([Fraction(1, 2), Fraction(-1, 2)]), o=_objects([Fraction(3, 4), Fraction(0)]))
    return [
        _cell_case(ref.EXAMPLE_12_3, {"en": "Example 12.3: cell 0.8, f 0.9, i 0.2, g 0.5, o 0.75", "zh": "例12.3：单元值0.8，f 0.9，i 0.2，g 0.5，o 0.75"}),
        _cell_case(ref.EXERCISE_12_7_4, {"en": "exercise 12.7.4 setup: cell 0.8, f 0.5, i 0.25, g -0.4, o 1", "zh": "习题12.7.4的设定：单元值0.8，f 0.5，i 0.25，g -0.4，o 1"}),
        _cell_case(ref.TEXT2_EXAMPLE_3, {"en": "second text, example 3: cell 2, f 0.8, i 0.25, g -0.4, o 0.5", "zh": "第二份教材例3：单元值2，f 0.8，i 0.25，g -0.4，o 0.5"}),
        _cell_case(ref.TEXT3_LSTM, {"en": "third text: cell 0.8, f 0.9, i 0.2, g -0.5, o 0.75", "zh": "第三份教材：单元值0.8，f 0.9，i 0.2，g -0.5，o 0.75"}),
        Case(tuple(two[key] for key in ("c_prev", "f", "i", "g", "o")), label={"en": "two cells at once (element-wise, arrays of Fractions)", "zh": "同时计算两个单元（逐元素，Fraction数组）"}),
    ]


def _cell_draw(rng: random.Random) -> Case:
    d = rng.randint(1, 5)
    gate = lambda: _objects(draws.rationals(rng, d, low=0, high=1))  # noqa: E731 (0 and 1 are the limits)
    return Case((_objects(draws.rationals(rng, d, low=-2, high=2)), gate(), gate(), _objects(draws.rationals(rng, d, low=-1, high=1)), gate()))


def _public_ex_12_7_4():
    return [_cell_case(ref.EXERCISE_12_7_4, {"en": "exercise 12.7.4: cell 0.8, f 0.5, i 0.25, g -0.4, o 1", "zh": "习题12.7.4：单元值0.8，f 0.5，i 0.25，g -0.4，o 1"})]


def _gate(rng: random.Random, limits: float = 0.15) -> Fraction:
    """A gate value: a limit setting (0 or 1) with probability `limits`, else strictly between them."""
    if rng.random() < limits:
        return Fraction(rng.choice([0, 1]))
    d = rng.choice((3, 4, 5, 8, 10))
    return Fraction(rng.randint(1, d - 1), d)


def _draw_ex_12_7_4(rng: random.Random) -> Case:
    """One scalar cell: an old cell of either sign, gates in [0, 1] (now and then a limit setting), a
    nonzero candidate in [-1, 1]."""
    return Case((draws.rational(rng, -2, 2, nonzero=True), _gate(rng), _gate(rng), draws.rational(rng, -1, 1, nonzero=True), _gate(rng)))


def _public_ex_12_7_5():
    five = ref.EXERCISE_12_7_5
    return [Case(tuple(to_fraction(five[key]) for key in ("h_prev", "z", "r", "candidate")),
                 label={"en": "exercise 12.7.5: z = 1, r = 0, h_prev 0.8, candidate -0.4", "zh": "习题12.7.5：z = 1，r = 0，h_prev 0.8，候选值-0.4"})]


def _draw_ex_12_7_5(rng: random.Random) -> Case:
    """A nonzero h_prev and a candidate of either sign, z and r in [0, 1] (now and then a limit setting)."""
    return Case((draws.rational(rng, -2, 2, nonzero=True), _gate(rng), _gate(rng), draws.rational(rng, -1, 1)))


def _scalar_lstm_params(setup: dict) -> dict:
    """Example-style parameters: A = 0, so each gate is sigmoid(bias); the biases are the logits of the book's gate values."""
    zeros = np.zeros((2, 1))
    return {"A_f": zeros, "A_i": zeros.copy(), "A_o": zeros.copy(), "A_g": zeros.copy(),
            "b_f": np.array([_logit(setup["f"])]), "b_i": np.array([_logit(setup["i"])]),
            "b_o": np.array([_logit(setup["o"])]), "b_g": np.array([math.atanh(float(setup["g"]))])}


def _public_lstm():
    two = {f"A_{name}": np.array(rows, dtype=float) for name, rows in (
        ("f", [[0.5, -0.25], [0.25, 0.5], [-0.5, 0.125], [0.0, 1.0]]),
        ("i", [[-0.25, 0.75], [0.5, 0.0], [0.125, -0.5], [1.0, 0.25]]),
        ("o", [[1.0, 0.0], [-0.5, 0.5], [0.25, 0.25], [0.0, -0.75]]),
        ("g", [[0.75, -1.0], [0.0, 0.5], [-0.25, 0.5], [0.5, 0.125]]))}
    two.update(b_f=np.array([1.0, 0.5]), b_i=np.array([-0.5, 0.0]), b_o=np.array([0.0, 0.25]), b_g=np.array([0.125, -0.25]))
    return [
        Case((np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.EXAMPLE_12_3)),
             label={"en": "Example 12.3 as a step: A = 0, biases logit(0.9), logit(0.2), logit(0.75), atanh(0.5)", "zh": "例12.3写成完整的一步：A = 0，偏置为 logit(0.9), logit(0.2), logit(0.75), atanh(0.5)"}),
        Case((np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.TEXT3_LSTM)),
             label={"en": "third text's LSTM as a step: gates 0.9, 0.2, 0.75, candidate -0.5", "zh": "第三份教材的LSTM写成完整的一步：门值0.9、0.2、0.75，候选值-0.5"}),
        Case((np.array([1.0, -0.5]), np.array([0.25, -0.75]), np.array([0.5, -1.0]), two), label={"en": "two inputs, two cells, full matrices", "zh": "两个输入，两个单元，完整矩阵"}),
    ]


def _matrix(rng: random.Random, rows: int, cols: int) -> np.ndarray:
    """A full matrix: every row and column has an entry off the diagonal (no coordinate stays on its own)."""
    A = draws.matrix(rng, rows, cols)
    for k in range(rows):
        A[k, (k + 1) % cols] += rng.choice([-0.5, 0.5]) if cols > 1 or rows > 1 else 0.0
    return A


def _bias(rng: random.Random, d: int) -> np.ndarray:
    """A bias; about a third of its coordinates push the gate near 0 or 1 (|bias| from 4 to 9)."""
    b = draws.matrix(rng, 0, d, scale=0.5)
    for k in range(d):
        if rng.random() < 0.35:
            b[k] = rng.choice([-1, 1]) * rng.uniform(4, 9)
    return b


def _lstm_case(rng: random.Random) -> Case:
    m, d = rng.randint(1, 4), rng.randint(1, 5)
    params = {f"A_{name}": _matrix(rng, m + d, d) for name in "fiog"}
    params.update({f"b_{name}": _bias(rng, d) for name in "fiog"})
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,)), draws.uniform(rng, (d,), -2, 2), params))


def _scalar_gru_params(setup: dict) -> dict:
    return {"A_r": np.zeros((2, 1)), "A_z": np.zeros((2, 1)), "W_g": np.array([[float(setup["W_g"])]]), "U_g": np.array([[float(setup["U_g"])]]),
            "b_r": np.array([_logit(setup["r"])]), "b_z": np.array([_logit(setup["z"])]), "b_g": np.array([float(setup["b_g"])])}


def _public_gru():
    e4, t3 = ref.EXAMPLE_12_4, ref.TEXT3_GRU
    two = {"A_r": np.array([[0.5, -0.5], [1.0, 0.25], [-0.75, 0.5]]), "A_z": np.array([[-0.25, 0.5], [0.5, -1.0], [0.25, 0.75]]),
           "W_g": np.array([[0.5, -0.25]]), "U_g": np.array([[0.25, 1.0], [-1.0, 0.5]]),
           "b_r": np.array([-1.0, 0.5]), "b_z": np.array([0.5, -0.25]), "b_g": np.array([0.0, 0.125])}
    return [
        Case((np.array([float(e4["x"])]), np.array([float(e4["h_prev"])]), _scalar_gru_params(e4)),
             label={"en": "Example 12.4 as a step: h_prev 0.8, biases logit(0.25), logit(0.9), no input contribution, U_g = 1", "zh": "例12.4写成完整的一步：h_prev 0.8，偏置为 logit(0.25), logit(0.9)，当前输入不作贡献，U_g = 1"}),
        Case((np.array([float(t3["x"])]), np.array([float(t3["h_prev"])]), _scalar_gru_params(t3)),
             label={"en": "third text's GRU as a step: x 1, h_prev 0.8, r 0.25, z 0.75, W_g 0.5, U_g 1", "zh": "第三份教材的GRU写成完整的一步：x 1，h_prev 0.8，r 0.25，z 0.75，W_g 0.5，U_g 1"}),
        Case((np.array([1.0]), np.array([0.5, -0.75]), two), label={"en": "two coordinates, U_g mixes them (where the reset acts matters)", "zh": "两个坐标，U_g会混合它们（重置作用在哪里会影响结果）"}),
    ]


def _gru_case(rng: random.Random) -> Case:
    """d starts at 2: with one coordinate U_g is a number, and resetting before or after it is the same."""
    m, d = rng.randint(1, 4), rng.randint(2, 5)
    params = {"A_r": _matrix(rng, m + d, d), "A_z": _matrix(rng, m + d, d), "W_g": draws.matrix(rng, m, d), "U_g": _matrix(rng, d, d) * 1.5,
              "b_r": _bias(rng, d), "b_z": _bias(rng, d), "b_g": draws.matrix(rng, 0, d, scale=0.5)}
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,), -1.5, 1.5), params))


def _public_retention():
    (f1, k1), (f2, k2) = ref.SECTION_12_4_RETENTION
    t2 = ref.TEXT2_EXAMPLE_3
    return [Case((to_fraction(f1), k1), label={"en": f"section 12.4: f = {float(f1)} over {k1} edges", "zh": f"12.4节：f = {float(f1)}，跨越{k1}条边"}),
            Case((to_fraction(f2), k2), label={"en": f"section 12.4: f = {float(f2)} over {k2} edges", "zh": f"12.4节：f = {float(f2)}，跨越{k2}条边"}),
            Case((to_fraction(t2["f"]), t2["steps"]), label={"en": f"second text, example 3: f = {float(t2['f'])} over {t2['steps']} edges",
                                                         "zh": f"第二份教材例3：f = {float(t2['f'])}，跨越{t2['steps']}条边"}),
            Case((Fraction(1, 2), 8), label={"en": "a gate stuck at 0.5: the halving RNN of Chapter 11", "zh": "门值固定为0.5：即第11章中逐次减半的RNN"})]


def _count_public():
    D, H = ref.PARAM_COUNT["D"], ref.PARAM_COUNT["H"]
    return lambda: [Case((D, H), label={"en": f"third text: D = {D}, H = {H}", "zh": f"第三份教材：D = {D}, H = {H}"})]


def _count_draw(rng: random.Random) -> Case:
    return Case((rng.randint(1, 64), rng.randint(1, 64)))


CHECKS = [
    Check("sigmoid", ref.sigmoid, _public_sigmoid,
          draw=lambda rng: Case((rng.uniform(-8, 8),)) if rng.random() < 0.3 else Case((np.array([rng.uniform(-8, 8) for _ in range(rng.randint(1, 5))] + rng.sample([-700.0, -60.0, 60.0, 700.0], 1)),)), points=1),
    Check("lstm_cell_update", ref.lstm_cell_update, _public_cell, exact=True, draw=_cell_draw, points=2),
    Check("ex_12_7_4", ref.ex_12_7_4, _public_ex_12_7_4, exact=True, reveal=False, draw=_draw_ex_12_7_4, points=1),
    Check("lstm_step", ref.lstm_step, _public_lstm, draw=_lstm_case, points=3),
    Check("gru_step", ref.gru_step, _public_gru, draw=_gru_case, points=3),
    Check("ex_12_7_5", ref.ex_12_7_5, _public_ex_12_7_5, exact=True, reveal=False, draw=_draw_ex_12_7_5, points=1),
    Check("retention", ref.retention, _public_retention, exact=True,
          draw=lambda rng: Case((draws.rational(rng, 0, 1, denominators=(2, 4, 5, 8, 10, 20, 100)), rng.randint(1, 40))), points=1),
    Check("rnn_param_count", ref.rnn_param_count, _count_public(), draw=_count_draw, points=1),
    Check("lstm_param_count", ref.lstm_param_count, _count_public(), draw=_count_draw, points=1),
    Check("lstm_param_count_two_bias", ref.lstm_param_count_two_bias, _count_public(), draw=_count_draw, points=1),
    Check("gru_param_count", ref.gru_param_count, _count_public(), draw=_count_draw, points=1),
]


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).with_name("notebook.md"))
lstm_cell_update, sigmoid = _solution.lstm_cell_update, _solution.sigmoid


# ----------------------------------------------------------------------------- catalogued mistakes
# Each is the solution function as a student gets it wrong, named by its id, with what the
# student should rethink (never the answer) in both languages.
# Mistakes of `sigmoid` and `lstm_cell_update` also change the checks of their callers (`lstm_step`,
# `gru_step`), because the mistaken output is computed by running the solution module with the function
# swapped in. Exercise 12.7.4 computes its scalar cell itself (on scalars a dot product is the product,
# so `dot_product_not_elementwise` would be right on every draw of it): its mistakes are its own.


# --- sigmoid ------------------------------------------------------------------------------------


@mistake("sigmoid",
         en="Check the sign inside the exponential: sigmoid(a) must grow with a, so a large positive score should open the gate (value near 1), not close it.",
         zh="检查指数里的符号：sigmoid(a) 必须随a增大而增大，所以得分是很大的正数时，门应当打开（门值接近1），而不是关上。")
def sigmoid_exponent_sign(a):
    a = np.asarray(a, dtype=float)
    return 1.0 / (1.0 + np.exp(a))


# --- lstm_cell_update: the cell path of Example 12.3 ---------------------------------------------


@mistake("lstm_cell_update",
         en="The output gate was applied to the stored cell. In section 12.4.1 the output gate only scales what is exposed, h = o * tanh(c); the cell c = f * c_prev + i * g is stored without it (exercise 12.7.4 asks exactly this).",
         zh="输出门被作用到了存储的单元状态上。在12.4.1节中，输出门只缩放向外提供的值，h = o * tanh(c)；单元状态 c = f * c_prev + i * g 存储时不经过输出门（习题12.7.4问的正是这一点）。")
def output_gate_on_cell(c_prev, f, i, g, o):
    c = o * (f * c_prev + i * g)
    return c, np.tanh(np.asarray(c, dtype=float))


@mistake("lstm_cell_update",
         en="The hidden value skips a squashing step: the output gate multiplies tanh of the cell, not the cell itself (section 12.4.1, h_t = o_t * tanh(c_t)).",
         zh="隐藏值少了一步压缩：输出门乘的是单元状态的tanh，而不是单元状态本身（12.4.1节，h_t = o_t * tanh(c_t)）。")
def h_without_tanh(c_prev, f, i, g, o):
    c = f * c_prev + i * g
    return c, o * c


@mistake("lstm_cell_update",
         en="The cell is squashed with the wrong function before the output gate. sigmoid keeps only values between 0 and 1, so a negative cell could never show as a negative h: section 12.4.1 exposes h_t = o_t * tanh(c_t).",
         zh="单元状态在进入输出门之前用错了压缩函数。sigmoid只给出0到1之间的值，负的单元状态就永远无法表现为负的h：12.4.1节暴露出去的是 h_t = o_t * tanh(c_t)。")
def sigmoid_on_cell(c_prev, f, i, g, o):
    c = f * c_prev + i * g
    return c, o * sigmoid(np.asarray(c, dtype=float))


@mistake("lstm_cell_update",
         en="The input gate was replaced by 1 - f. In the LSTM of section 12.4.1 the input and forget gates are independent and need not add up to one: use the given i for the written part.",
         zh="输入门被换成了 1 - f。在12.4.1节的LSTM中，输入门和遗忘门彼此独立，门值之和不必为一：写入的部分要用给定的i。")
def coupled_input_forget_gates(c_prev, f, i, g, o):
    c = f * c_prev + (1 - f) * g
    return c, o * np.tanh(np.asarray(c, dtype=float))


@mistake("lstm_cell_update",
         en="The symbol ⊙ (逐项相乘) is a coordinate-by-coordinate product, not a dot product: each cell coordinate keeps and writes its own amounts, and the result has one entry per coordinate.",
         zh="符号⊙（逐项相乘）表示对应坐标逐项相乘，不是点积：每个单元坐标各自保留、写入自己的量，结果每个坐标各有一项。")
def dot_product_not_elementwise(c_prev, f, i, g, o):
    c = np.dot(f, c_prev) + np.dot(i, g)
    return c, o * np.tanh(np.asarray(c, dtype=float))


# --- lstm_step: where the gates come from --------------------------------------------------------


def _lstm_gates(x, h_prev, params, *, h_first, candidate):
    """The four gate values of an LSTM step, with the concatenation order and candidate activation given."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([h_prev, x] if h_first else [x, h_prev])
    f = sigmoid(u @ params["A_f"] + params["b_f"])
    i = sigmoid(u @ params["A_i"] + params["b_i"])
    o = sigmoid(u @ params["A_o"] + params["b_o"])
    g = candidate(u @ params["A_g"] + params["b_g"])
    return {"f": f, "i": i, "o": o, "g": g}


@mistake("lstm_step",
         en="Check the order of the concatenation: the chapter builds u_t = [x_t, h_{t-1}] with the input first, so the first m rows of each A read the input and the last d rows read the old hidden state.",
         zh="检查拼接的顺序：本章构造的是 u_t = [x_t, h_{t-1}]，输入在前，所以每个A的前m行读取输入，后d行读取旧隐藏状态。")
def lstm_concat_h_first(x, h_prev, c_prev, params):
    gates = _lstm_gates(x, h_prev, params, h_first=True, candidate=np.tanh)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
    return h, c, gates


@mistake("lstm_step",
         en="The candidate g uses the wrong squashing function. Gates are proportions (sigmoid, between 0 and 1), but the candidate must be able to write negative values too: look again at which activation section 12.4.1 gives g_t.",
         zh="候选值g用错了压缩函数。门是比例（sigmoid，介于0和1之间），但候选值必须也能写入负数：再看一看12.4.1节给g_t用的是哪个激活函数。")
def lstm_candidate_sigmoid(x, h_prev, c_prev, params):
    gates = _lstm_gates(x, h_prev, params, h_first=False, candidate=sigmoid)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
    return h, c, gates


# --- gru_step: the conventions of section 12.4.2 -------------------------------------------------


def _gru_variant(x, h_prev, params, *, h_first=False, candidate=np.tanh, reset_after=False, reset_kept=False, complementary=False):
    """A GRU step with one convention changed; the defaults give Cho's convention of the chapter."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([h_prev, x] if h_first else [x, h_prev])
    r = sigmoid(u @ params["A_r"] + params["b_r"])
    z = sigmoid(u @ params["A_z"] + params["b_z"])
    recurrent = r * (h_prev @ params["U_g"]) if reset_after else (r * h_prev) @ params["U_g"]
    g = candidate(x @ params["W_g"] + recurrent + params["b_g"])
    kept = r * h_prev if reset_kept else h_prev
    return (1 - z) * kept + z * g if complementary else z * kept + (1 - z) * g


@mistake("gru_step",
         en="This is the complementary convention (the second text's), where z weights the candidate. In the Cho convention of Chapter 12 the update gate weights the OLD state: a larger z keeps more of h_prev (Example 12.4).",
         zh="这是互补约定（第二份教材采用的约定），其中z给候选状态加权。第12章采用Cho约定，更新门给旧状态加权：z越大，保留的h_prev越多（例12.4）。")
def gru_complementary_update(x, h_prev, params):
    return _gru_variant(x, h_prev, params, complementary=True)


@mistake("gru_step",
         en="The reset gate also scaled the directly kept branch. In Example 12.4 the reset gate only changes how much of the old state the candidate sees; the branch z * h_prev is kept untouched (exercise 12.7.5).",
         zh="重置门也缩放了直接保留的分支。在例12.4中，重置门只改变候选状态能看到多少旧状态；分支 z * h_prev 原样保留（习题12.7.5）。")
def gru_reset_on_kept_branch(x, h_prev, params):
    return _gru_variant(x, h_prev, params, reset_kept=True)


@mistake("gru_step",
         en="The reset gate was applied after the matrix product U_g (the PyTorch placement). The chapter's formula resets the old state first, (r * h_prev) U_g; when U_g mixes coordinates the two orders differ.",
         zh="重置门被放在了与U_g的矩阵乘法之后（PyTorch的放置方式）。本章的公式先重置旧状态，即 (r * h_prev) U_g；当U_g混合各个坐标时，两种顺序的结果不同。")
def gru_reset_after_matmul(x, h_prev, params):
    return _gru_variant(x, h_prev, params, reset_after=True)


@mistake("gru_step",
         en="Check the order of the concatenation for the gates: u_t = [x_t, h_{t-1}], input first, so the first m rows of A_r and A_z read the input.",
         zh="检查门的拼接顺序：u_t = [x_t, h_{t-1}]，输入在前，所以A_r和A_z的前m行读取输入。")
def gru_concat_h_first(x, h_prev, params):
    return _gru_variant(x, h_prev, params, h_first=True)


@mistake("gru_step",
         en="The GRU candidate uses the wrong squashing function: it is a value that can be negative, not a proportion. Look again at the activation of the candidate in section 12.4.2.",
         zh="GRU的候选状态用错了压缩函数：它是可以为负的数值，不是比例。再看一看12.4.2节中候选状态的激活函数。")
def gru_candidate_sigmoid(x, h_prev, params):
    return _gru_variant(x, h_prev, params, candidate=sigmoid)


# --- retention along the direct cell path ---------------------------------------------------------


@mistake("retention",
         en="The forget gate value is the fraction that is KEPT on each edge (close to 1 means forgetting little), not the fraction that is lost.",
         zh="遗忘门的值是每条边上保留下来的比例（接近1表示忘得少），而不是丢掉的比例。")
def retention_forget_as_loss(f, steps):
    return (1 - f) ** steps


@mistake("retention",
         en="Count the edges, not the states: each edge of the direct cell path multiplies by the forget gate once, and zero edges leave the value unchanged.",
         zh="数边，不要数状态：单元直接路径上的每条边都乘一次遗忘门，零条边则让数值保持不变。")
def retention_counts_states(f, steps):
    return f ** (steps + 1)


# --- parameter counts (Table 12.3, the third text's 24 / 96 / 108 / 72) --------------------------


@mistake("rnn_param_count",
         en="The bias vector was left out of the count: the simple RNN cell has W_x, W_h and one bias b_h of width H.",
         zh="计数时漏掉了偏置向量：简单RNN单元有W_x、W_h和一个宽度为H的偏置b_h。")
def rnn_count_without_bias(D, H):
    return D * H + H * H


@mistake("rnn_param_count",
         en="Two bias vectors were counted where the cell has one. Count one bias of width H (the third text's single-bias convention).",
         zh="单元只有一个偏置向量，你却数了两个。只数一个宽度为H的偏置（第三份教材的单偏置约定）。")
def rnn_count_two_biases(D, H):
    return D * H + H * H + 2 * H


@mistake("lstm_param_count",
         en="This counts two bias vectors per block (the layout of some libraries). The LSTM of section 12.4.1 has one bias per gate and per candidate.",
         zh="这里每个块数了两个偏置向量（某些库的布局）。12.4.1节的LSTM每个门各有一个偏置，候选值也有一个。")
def lstm_count_two_biases(D, H):
    return 4 * (D * H + H * H + 2 * H)


@mistake("lstm_param_count",
         en="The biases were left out: each of the four blocks (three gates and the candidate) has its own bias of width H besides its matrix A.",
         zh="漏掉了偏置：四个块（三个门和候选值）除了各自的矩阵A，还各有一个宽度为H的偏置。")
def lstm_count_without_bias(D, H):
    return 4 * (D * H + H * H)


@mistake("lstm_param_count_two_bias",
         en="This count has only one bias vector per block. Here every block stores two (an input bias and a recurrent bias): count both.",
         zh="这个计数每个块只有一个偏置向量。这里每个块都存两个偏置（一个输入偏置和一个递归偏置）：两个都要数。")
def lstm_two_bias_count_one_bias(D, H):
    return 4 * (D * H + H * H + H)


@mistake("gru_param_count",
         en="This counts two bias vectors per block. The GRU of section 12.4.2 has one bias for each gate and one for the candidate.",
         zh="这里每个块数了两个偏置向量。12.4.2节的GRU每个门各有一个偏置，候选状态也有一个。")
def gru_count_two_biases(D, H):
    return 3 * (D * H + H * H + 2 * H)


@mistake("gru_param_count",
         en="The biases were left out: each of the GRU's three blocks (reset gate, update gate, candidate) has a bias of width H.",
         zh="漏掉了偏置：GRU的三个块（重置门、更新门、候选状态）各有一个宽度为H的偏置。")
def gru_count_without_bias(D, H):
    return 3 * (D * H + H * H)


# --- exercise answers ------------------------------------------------------------------------------


@mistake("ex_12_7_4",
         en="The output gate was applied to the cell, so with o = 0 the new cell came out erased. The output gate only scales what the cell exposes, h = o * tanh(c); the cell c = f * c_prev + i * g is updated and kept whatever o is (12.8: the output gate controls how much is exposed, not how the cell is updated).",
         zh="输出门被作用到了单元状态上，于是 o = 0 时新单元值被抹掉了。输出门只缩放单元向外提供的值，h = o * tanh(c)；单元状态 c = f * c_prev + i * g 无论o是多少都照常更新并保留（12.8：输出门控制向外提供多少，而不是本步怎样更新单元）。")
def ex_output_gate_erases_cell(c_prev, f, i, g, o):
    kept, written = f * c_prev, i * g
    c, c_closed = o * (kept + written), 0 * (kept + written)  # the output gate on the stored cell
    return {"kept": kept, "written": written, "c": c, "h": np.tanh(np.asarray(c, dtype=float)),
            "c with o = 0": c_closed, "h with o = 0": np.tanh(np.asarray(c_closed, dtype=float))}


@mistake("ex_12_7_4",
         en="The hidden value skips a squashing step: the output gate multiplies tanh of the new cell, h = o * tanh(c), not the cell itself (section 12.4.1).",
         zh="隐藏值少了一步压缩：输出门乘的是新单元值的tanh，h = o * tanh(c)，而不是单元值本身（12.4.1节）。")
def ex_h_without_tanh(c_prev, f, i, g, o):
    kept, written = f * c_prev, i * g
    c = kept + written
    return {"kept": kept, "written": written, "c": c, "h": o * c, "c with o = 0": c, "h with o = 0": 0 * c}


@mistake("ex_12_7_5",
         en="The reset gate also scaled the directly kept branch. In the GRU of section 12.4.2 r acts only inside the candidate computation (done already: the candidate is given); the final mix weighs h_prev by z and the candidate by 1 - z, and r does not touch h_prev there. A reset gate of 0 does not erase the state (12.8).",
         zh="重置门也缩放了直接保留的分支。在12.4.2节的GRU中，r只在候选值的计算内部起作用（这里已经算好：候选值是给定的）；最后的混合用z给h_prev加权、用 1 - z 给候选值加权，r在这里不碰h_prev。重置门为0并不会抹掉状态（12.8）。")
def ex_reset_on_kept_branch(h_prev, z, r, candidate):
    return {"keep weight": z, "candidate weight": 1 - z, "h": z * (r * h_prev) + (1 - z) * candidate}


@mistake("ex_12_7_5",
         en="These are the weights of the complementary convention (the second text's), where z weights the candidate. In the Cho convention of section 12.4.2 the update gate weights the OLD state: a larger z keeps more of h_prev, and 1 - z is the candidate's share.",
         zh="这是互补约定（第二份教材采用的约定）下的权重，其中z给候选值加权。在12.4.2节的Cho约定中，更新门给旧状态加权：z越大，保留的h_prev越多，1 - z 才是候选值所占的比例。")
def ex_complementary_convention(h_prev, z, r, candidate):
    return {"keep weight": 1 - z, "candidate weight": z, "h": (1 - z) * h_prev + z * candidate}
