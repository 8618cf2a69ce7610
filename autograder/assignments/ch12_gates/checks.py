"""The checks of ch12_gates: the book's cases of section 12.4 (Examples 12.3-12.4, the second and third
texts' gate examples, Table 12.3's parameter budget) and seeded hidden draws.

Hidden draws: gate values and cells are exact Fractions for `lstm_cell_update`, `retention` and the
exercises 12.7.4-5 (scalar variants of their givens); `lstm_step` and `gru_step` get float64
parameters with input width m from 1 to 4, hidden width d from 1 to 5 (GRU: 2 to 5, see `_gru_case`),
full (non-diagonal) A and U_g matrices, and biases that push some gates to within a few thousandths
of 0 or 1.

Branches (`Branch`): every graded check lists its contract's extremes. The limits a mistake cannot be
told apart on (r = 1 for a reset mistake, z = 0, a closed forget gate for `retention`) are shown by
public cases, which earn nothing; the others are drawn at the head of every attempt's hidden cases
by the `_..._with` drawers below. Each check whose cost grows with size has a public case of the
largest size its drawer draws.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np

from ...grading import draws, template
from ...grading.catalogue import mistake
from ...grading.spec import Branch, Case, Check
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


def _pattern(rows: int, cols: int, shift: int) -> np.ndarray:
    """A full matrix of eighths in [-1, 1], by a formula (a public case's weights): no symmetry, no
    zero row, and another matrix for every `shift`."""
    return np.array([[((3 * r + 5 * c + 7 * shift) % 17 - 8) / 8 or 0.5 for c in range(cols)] for r in range(rows)])


# ----------------------------------------------------------------------------- branch helpers
#: A gate within this of 0 or 1 is a closed or an open gate (a float step reaches the limits only so).
SATURATED = 1e-6


def _entries(value) -> list:
    """The entries of a number or an array, as a flat list."""
    return list(np.asarray(value, dtype=object).reshape(-1))


def _floats(value) -> np.ndarray:
    return np.array([float(item) for item in _entries(value)], dtype=float)


def _any(value, test) -> bool:
    return any(test(item) for item in _entries(value))


def _near(values: np.ndarray, target: float) -> np.ndarray:
    return np.abs(values - target) <= SATURATED


def _logistic(a: np.ndarray) -> np.ndarray:
    """A float sigmoid, to tell which gates of a drawn step are at a limit (never a reference)."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(a, dtype=float)))


# ----------------------------------------------------------------------------- sigmoid


def _public_sigmoid():
    return [Case((0.0,), label={"en": "a = 0: a gate half open", "zh": "a = 0：门半开"}),
            Case((math.log(9),), label={"en": "a = ln 9: the forget gate 0.9 of Example 12.3", "zh": "a = ln 9：遗忘门0.9，即例12.3中的门值"}),
            Case((np.array([-2.0, 0.0, 2.0, 40.0, -40.0]),), label={"en": "a vector, element-wise, saturated at both ends", "zh": "一个向量，逐元素计算，两端都已饱和"}),
            Case((np.array([-1000.0, -3.5, 0.0, 0.5, 3.5, 1000.0]),),
                 label={"en": "the longest vector drawn (6 scores), out to a = -1000 and 1000, where exp overflows",
                        "zh": "抽取的最长向量（6个得分），一直到 a = -1000 和 1000，此时exp会溢出"})]


def _sigmoid_draw(rng: random.Random) -> Case:
    if rng.random() < 0.3:
        return Case((rng.uniform(-8, 8),))
    return Case((np.array([rng.uniform(-8, 8) for _ in range(rng.randint(1, 5))] + rng.sample([-700.0, -60.0, 60.0, 700.0], 1)),))


def _sigmoid_with(*extra):
    """A vector draw that holds the given scores too (at a random place)."""
    def draw(rng: random.Random) -> Case:
        values = [rng.uniform(-8, 8) for _ in range(rng.randint(1, 4))]
        for value in extra:
            values.insert(rng.randrange(len(values) + 1), value(rng) if callable(value) else value)
        return Case((np.array(values, dtype=float),))
    return draw


SIGMOID_LONGEST = 6  # up to 5 moderate scores and one far one
SIGMOID_BRANCHES = (
    Branch("scalar", lambda case, expected: np.ndim(case.args[0]) == 0, lambda rng: Case((rng.uniform(-8, 8),)),
            en="a single number in, a single number out", zh="输入一个数，输出一个数"),
    Branch("vector", lambda case, expected: np.ndim(case.args[0]) == 1, _sigmoid_with(),
            en="a vector, element by element", zh="一个向量，逐元素计算"),
    Branch("zero", lambda case, expected: _any(case.args[0], lambda a: a == 0), _sigmoid_with(0.0),
            en="a = 0: the gate half open", zh="a = 0：门半开"),
    Branch("overflow_negative", lambda case, expected: _any(case.args[0], lambda a: a < -709),
            _sigmoid_with(lambda rng: -rng.uniform(710, 1000)),
            en="a far below 0 (exp(-a) overflows a float): the value at 0, not NaN",
            zh="a 远小于0（exp(-a) 超出浮点数范围）：结果为0，不能是NaN"),
    Branch("overflow_positive", lambda case, expected: _any(case.args[0], lambda a: a > 709),
            _sigmoid_with(lambda rng: rng.uniform(710, 1000)),
            en="a far above 0 (exp(a) overflows a float): the value at 1, not NaN",
            zh="a 远大于0（exp(a) 超出浮点数范围）：结果为1，不能是NaN"),
    Branch("longest", lambda case, expected: np.size(case.args[0]) >= SIGMOID_LONGEST,
            lambda rng: Case((np.array([rng.uniform(-8, 8) for _ in range(SIGMOID_LONGEST - 1)] + [rng.choice([-700.0, 700.0])]),)),
            en="the longest vector drawn", zh="抽取的最长向量"),
)


# ----------------------------------------------------------------------------- lstm_cell_update


def _public_cell():
    two = dict(c_prev=_objects([Fraction(4, 5), Fraction(-1)]), f=_objects([Fraction(9, 10), Fraction(1, 2)]),
               i=_objects([Fraction(1, 5), Fraction(1)]), g=_objects([Fraction(1, 2), Fraction(-1, 2)]), o=_objects([Fraction(3, 4), Fraction(0)]))
    F = Fraction
    five = dict(c_prev=_objects([F(4, 5), F(-3, 2), F(2, 5), F(1), F(-1, 2)]), f=_objects([F(1), F(0), F(1, 2), F(3, 4), F(1, 4)]),
                i=_objects([F(0), F(1), F(1, 5), F(1, 2), F(3, 4)]), g=_objects([F(1, 2), F(-2, 3), F(-1), F(1, 4), F(1, 3)]),
                o=_objects([F(1), F(1, 2), F(3, 4), F(0), F(1, 10)]))
    return [
        _cell_case(ref.EXAMPLE_12_3, {"en": "Example 12.3: cell 0.8, f 0.9, i 0.2, g 0.5, o 0.75", "zh": "例12.3：单元值0.8，f 0.9，i 0.2，g 0.5，o 0.75"}),
        _cell_case(ref.EXERCISE_12_7_4, {"en": "exercise 12.7.4 setup: cell 0.8, f 0.5, i 0.25, g -0.4, o 1", "zh": "习题12.7.4的设定：单元值0.8，f 0.5，i 0.25，g -0.4，o 1"}),
        _cell_case(ref.TEXT2_EXAMPLE_3, {"en": "second text, example 3: cell 2, f 0.8, i 0.25, g -0.4, o 0.5", "zh": "第二份教材例3：单元值2，f 0.8，i 0.25，g -0.4，o 0.5"}),
        _cell_case(ref.TEXT3_LSTM, {"en": "third text: cell 0.8, f 0.9, i 0.2, g -0.5, o 0.75", "zh": "第三份教材：单元值0.8，f 0.9，i 0.2，g -0.5，o 0.75"}),
        Case(tuple(two[key] for key in ("c_prev", "f", "i", "g", "o")), label={"en": "two cells at once (element-wise, arrays of Fractions)", "zh": "同时计算两个单元（逐元素，Fraction数组）"}),
        Case(tuple(five[key] for key in ("c_prev", "f", "i", "g", "o")),
             label={"en": "five cells (the widest drawn) at the limit settings: f = 1 and i = 0, f = 0 and i = 1, a cell that comes to 0, o = 0",
                    "zh": "五个单元（抽取的最大宽度），取极限设置：f = 1 且 i = 0，f = 0 且 i = 1，一个单元恰好变为0，o = 0"}),
    ]


CELL_WIDEST = 5


def _cell_draw(rng: random.Random, d: int | None = None) -> Case:
    d = rng.randint(1, CELL_WIDEST) if d is None else d
    gate = lambda: _objects(draws.rationals(rng, d, low=0, high=1))  # noqa: E731 (0 and 1 are the limits)
    return Case((_objects(draws.rationals(rng, d, low=-2, high=2)), gate(), gate(), _objects(draws.rationals(rng, d, low=-1, high=1)), gate()))


def _cell_gate(case: Case, name: str) -> list:
    return _entries(case.args["c_prev f i g o".split().index(name)])


CELL_BRANCHES = (
    Branch("scalar", lambda case, expected: np.ndim(case.args[0]) == 0,
            lambda rng: Case(tuple(_entries(arg)[0] for arg in _cell_draw(rng, 1).args)),
            en="numbers in (Fractions), a Fraction cell out", zh="输入是数（Fraction），输出的单元值也是Fraction"),
    Branch("width_one", lambda case, expected: np.ndim(case.args[0]) == 1 and len(case.args[0]) == 1, lambda rng: _cell_draw(rng, 1),
            en="arrays of one cell", zh="只有一个单元的数组"),
    Branch("widest", lambda case, expected: np.ndim(case.args[0]) == 1 and len(case.args[0]) >= CELL_WIDEST,
            lambda rng: _cell_draw(rng, CELL_WIDEST), en="the widest arrays drawn", zh="抽取的最宽数组"),
    Branch("forget_open", lambda case, expected: 1 in _cell_gate(case, "f"), en="f = 1: the old cell kept whole", zh="f = 1：旧单元值完整保留"),
    Branch("forget_closed", lambda case, expected: 0 in _cell_gate(case, "f"), en="f = 0: the old cell dropped", zh="f = 0：旧单元值被丢弃"),
    Branch("input_closed", lambda case, expected: 0 in _cell_gate(case, "i"), en="i = 0: nothing written", zh="i = 0：什么都不写入"),
    Branch("input_open", lambda case, expected: 1 in _cell_gate(case, "i"), en="i = 1: the whole candidate written", zh="i = 1：写入整个候选值"),
    Branch("output_closed", lambda case, expected: 0 in _cell_gate(case, "o"), en="o = 0: nothing exposed, the cell still updated",
            zh="o = 0：不向外提供任何值，单元值照常更新"),
    Branch("cell_zero", lambda case, expected: _any(expected[0], lambda c: c == 0), en="a cell that comes to exactly 0", zh="单元值恰好变为0"),
    Branch("cell_negative", lambda case, expected: _any(expected[0], lambda c: c < 0), en="a negative cell (a negative h)", zh="单元值为负（h也为负）"),
    Branch("cell_beyond_one", lambda case, expected: _any(expected[0], lambda c: abs(c) > 1),
            en="a cell beyond -1 to 1 (the gates need not add up to one)", zh="单元值超出-1到1的范围（门值之和不必为一）"),
)


# ----------------------------------------------------------------------------- exercise 12.7.4


def _public_ex_12_7_4():
    F = Fraction
    return [_cell_case(ref.EXERCISE_12_7_4, {"en": "exercise 12.7.4: cell 0.8, f 0.5, i 0.25, g -0.4, o 1", "zh": "习题12.7.4：单元值0.8，f 0.5，i 0.25，g -0.4，o 1"}),
            Case((F(-3, 2), F(1), F(1, 2), F(3, 5), F(1, 2)),
                 label={"en": "the same question with other numbers: cell -1.5, f 1, i 0.5, g 0.6, o 0.5",
                        "zh": "换一组数值问同一个问题：单元值-1.5，f 1，i 0.5，g 0.6，o 0.5"}),
            Case((F(1, 2), F(1, 4), F(3, 4), F(-1, 2), F(0)),
                 label={"en": "the output gate closed from the start: cell 0.5, f 0.25, i 0.75, g -0.5, o 0",
                        "zh": "输出门一开始就关闭：单元值0.5，f 0.25，i 0.75，g -0.5，o 0"})]


def _gate(rng: random.Random, limits: float = 0.15) -> Fraction:
    """A gate value: a limit setting (0 or 1) with probability `limits`, else strictly between them."""
    if rng.random() < limits:
        return Fraction(rng.choice([0, 1]))
    d = rng.choice((3, 4, 5, 8, 10))
    return Fraction(rng.randint(1, d - 1), d)


def _draw_ex_12_7_4(rng: random.Random, **given) -> Case:
    """One scalar cell: an old cell of either sign, gates in [0, 1] (now and then a limit setting), a
    nonzero candidate in [-1, 1]; `given` fixes some of them."""
    values = {"c_prev": draws.rational(rng, -2, 2, nonzero=True), "f": _gate(rng), "i": _gate(rng),
              "g": draws.rational(rng, -1, 1, nonzero=True), "o": _gate(rng)}
    values.update({key: value(rng) if callable(value) else Fraction(value) for key, value in given.items()})
    return Case(tuple(values[key] for key in ("c_prev", "f", "i", "g", "o")))


def _between(rng: random.Random) -> Fraction:
    return _gate(rng, limits=0)


EX_12_7_4_BRANCHES = (
    Branch("output_open", lambda case, expected: case.args[4] == 1, lambda rng: _draw_ex_12_7_4(rng, o=1),
            en="o = 1, as in the book: h = tanh(c)", zh="o = 1，与书中相同：h = tanh(c)"),
    Branch("output_between", lambda case, expected: 0 < case.args[4] < 1, lambda rng: _draw_ex_12_7_4(rng, o=_between),
            en="an output gate strictly between 0 and 1", zh="输出门严格介于0和1之间"),
    Branch("output_closed", lambda case, expected: case.args[4] == 0,
            en="o = 0 given: the cell still updated, h = 0 both times", zh="给定 o = 0：单元值照常更新，两次的h都是0"),
    Branch("forget_open", lambda case, expected: case.args[1] == 1, en="f = 1: the old cell kept whole", zh="f = 1：旧单元值完整保留"),
    Branch("forget_closed", lambda case, expected: case.args[1] == 0, lambda rng: _draw_ex_12_7_4(rng, f=0, o=_between),
            en="f = 0: the old cell dropped", zh="f = 0：旧单元值被丢弃"),
    Branch("input_closed", lambda case, expected: case.args[2] == 0, lambda rng: _draw_ex_12_7_4(rng, i=0, f=_between, o=_between),
            en="i = 0: nothing written", zh="i = 0：什么都不写入"),
    Branch("cell_negative", lambda case, expected: expected["c"] < 0, en="a negative new cell", zh="新单元值为负"),
)


# ----------------------------------------------------------------------------- exercise 12.7.5


def _public_ex_12_7_5():
    five, F = ref.EXERCISE_12_7_5, Fraction
    return [Case(tuple(to_fraction(five[key]) for key in ("h_prev", "z", "r", "candidate")),
                 label={"en": "exercise 12.7.5: z = 1, r = 0, h_prev 0.8, candidate -0.4", "zh": "习题12.7.5：z = 1，r = 0，h_prev 0.8，候选值-0.4"}),
            Case((F(-3, 2), F(2, 5), F(3, 4), F(1, 2)),
                 label={"en": "the same question with other numbers: h_prev -1.5, z 0.4, r 0.75, candidate 0.5",
                        "zh": "换一组数值问同一个问题：h_prev -1.5，z 0.4，r 0.75，候选值0.5"}),
            Case((F(6, 5), F(0), F(1), F(-3, 4)),
                 label={"en": "the other limit settings: h_prev 1.2, z = 0, r = 1, candidate -0.75",
                        "zh": "另一组极限设置：h_prev 1.2，z = 0，r = 1，候选值-0.75"})]


def _draw_ex_12_7_5(rng: random.Random, **given) -> Case:
    """A nonzero h_prev and a candidate of either sign, z and r in [0, 1] (now and then a limit
    setting); `given` fixes some of them."""
    values = {"h_prev": draws.rational(rng, -2, 2, nonzero=True), "z": _gate(rng), "r": _gate(rng), "candidate": draws.rational(rng, -1, 1)}
    values.update({key: value(rng) if callable(value) else Fraction(value) for key, value in given.items()})
    return Case(tuple(values[key] for key in ("h_prev", "z", "r", "candidate")))


EX_12_7_5_BRANCHES = (
    Branch("keep_all", lambda case, expected: case.args[1] == 1 and case.args[2] == 0,
            en="z = 1 and r = 0, the book's question: the state kept", zh="z = 1 且 r = 0，即书中的问题：状态被保留"),
    Branch("update_keeps", lambda case, expected: case.args[1] == 1, lambda rng: _draw_ex_12_7_5(rng, z=1, r=_between),
            en="z = 1: the candidate has no weight", zh="z = 1：候选值的权重为零"),
    Branch("update_replaces", lambda case, expected: case.args[1] == 0, en="z = 0: the candidate taken whole", zh="z = 0：完整采用候选值"),
    Branch("mix_between", lambda case, expected: 0 < case.args[1] < 1, lambda rng: _draw_ex_12_7_5(rng, z=_between, r=_between),
            en="an update gate strictly between 0 and 1: a true mix", zh="更新门严格介于0和1之间：真正的混合"),
    Branch("reset_closed_mix", lambda case, expected: case.args[2] == 0 and 0 < case.args[1] < 1,
            lambda rng: _draw_ex_12_7_5(rng, z=_between, r=0), en="r = 0 in a true mix: the kept branch is still there",
            zh="在真正的混合中 r = 0：直接保留的分支仍然存在"),
    Branch("reset_open", lambda case, expected: case.args[2] == 1, en="r = 1: the candidate saw the whole old state",
            zh="r = 1：候选值看到了完整的旧状态"),
)


# ----------------------------------------------------------------------------- lstm_step


def _scalar_lstm_params(setup: dict) -> dict:
    """Example-style parameters: A = 0, so each gate is sigmoid(bias); the biases are the logits of the book's gate values."""
    zeros = np.zeros((2, 1))
    return {"A_f": zeros, "A_i": zeros.copy(), "A_o": zeros.copy(), "A_g": zeros.copy(),
            "b_f": np.array([_logit(setup["f"])]), "b_i": np.array([_logit(setup["i"])]),
            "b_o": np.array([_logit(setup["o"])]), "b_g": np.array([math.atanh(float(setup["g"]))])}


#: The widest step drawn: input width m and hidden width d.
STEP_M, STEP_D = 4, 5


def _public_lstm():
    two = {f"A_{name}": np.array(rows, dtype=float) for name, rows in (
        ("f", [[0.5, -0.25], [0.25, 0.5], [-0.5, 0.125], [0.0, 1.0]]),
        ("i", [[-0.25, 0.75], [0.5, 0.0], [0.125, -0.5], [1.0, 0.25]]),
        ("o", [[1.0, 0.0], [-0.5, 0.5], [0.25, 0.25], [0.0, -0.75]]),
        ("g", [[0.75, -1.0], [0.0, 0.5], [-0.25, 0.5], [0.5, 0.125]]))}
    two.update(b_f=np.array([1.0, 0.5]), b_i=np.array([-0.5, 0.0]), b_o=np.array([0.0, 0.25]), b_g=np.array([0.125, -0.25]))
    wide = {f"A_{name}": _pattern(STEP_M + STEP_D, STEP_D, shift) for shift, name in enumerate("fiog")}
    wide.update(b_f=np.array([30.0, 0.5, -0.25, 1.0, 0.0]), b_i=np.array([0.25, -30.0, 30.0, -0.5, 0.5]),
                b_o=np.array([0.5, 0.0, -0.5, 0.25, 1.0]), b_g=np.array([-0.25, 0.5, 0.125, 0.0, -0.5]))
    return [
        Case((np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.EXAMPLE_12_3)),
             label={"en": "Example 12.3 as a step: A = 0, biases logit(0.9), logit(0.2), logit(0.75), atanh(0.5)", "zh": "例12.3写成完整的一步：A = 0，偏置为 logit(0.9), logit(0.2), logit(0.75), atanh(0.5)"}),
        Case((np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.TEXT3_LSTM)),
             label={"en": "third text's LSTM as a step: gates 0.9, 0.2, 0.75, candidate -0.5", "zh": "第三份教材的LSTM写成完整的一步：门值0.9、0.2、0.75，候选值-0.5"}),
        Case((np.array([1.0, -0.5]), np.array([0.25, -0.75]), np.array([0.5, -1.0]), two), label={"en": "two inputs, two cells, full matrices", "zh": "两个输入，两个单元，完整矩阵"}),
        Case((np.array([0.5, -1.0, 0.25, 0.75]), np.array([-0.5, 0.25, 1.0, -0.75, 0.5]), np.array([1.5, -0.5, 0.25, -2.0, 0.75]), wide),
             label={"en": "the widest step drawn (4 inputs, 5 cells), four different blocks; in cell 1 f near 1, in cell 2 i near 0, in cell 3 i near 1",
                    "zh": "抽取的最宽的一步（4个输入，5个单元），四个块各不相同；单元1的f接近1，单元2的i接近0，单元3的i接近1"}),
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


def _lstm_case(rng: random.Random, m: int | None = None, d: int | None = None) -> Case:
    m, d = rng.randint(1, STEP_M) if m is None else m, rng.randint(1, STEP_D) if d is None else d
    params = {f"A_{name}": _matrix(rng, m + d, d) for name in "fiog"}
    params.update({f"b_{name}": _bias(rng, d) for name in "fiog"})
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,)), draws.uniform(rng, (d,), -2, 2), params))


def _saturate(params: dict, rng: random.Random, k: int, **gates) -> None:
    """Push gate `name` of coordinate k to its limit (1 or 0): a bias of 30 to 45 outweighs any drawn
    u A (at most 11.5 inputs of size up to 1.5 times entries up to 1.5), so the gate is within
    1e-7 of the limit."""
    for name, limit in gates.items():
        params[f"b_{name}"][k] = (1 if limit else -1) * rng.uniform(30, 45)


def _lstm_with(**gates):
    def draw(rng: random.Random) -> Case:
        case = _lstm_case(rng)
        _saturate(case.args[3], rng, rng.randrange(len(case.args[1])), **gates)
        return case
    return draw


def _lstm_gate(name: str, limit: float):
    return lambda case, expected: bool(np.any(_near(_floats(expected[2][name]), limit)))


LSTM_BRANCHES = (
    Branch("width_one", lambda case, expected: len(case.args[1]) == 1, lambda rng: _lstm_case(rng, d=1),
            en="one cell (d = 1)", zh="只有一个单元（d = 1）"),
    Branch("one_input", lambda case, expected: len(case.args[0]) == 1, lambda rng: _lstm_case(rng, m=1),
            en="one input (m = 1)", zh="只有一个输入（m = 1）"),
    Branch("widest", lambda case, expected: len(case.args[0]) >= STEP_M and len(case.args[1]) >= STEP_D,
            lambda rng: _lstm_case(rng, STEP_M, STEP_D), en="the widest step drawn (m = 4, d = 5)", zh="抽取的最宽的一步（m = 4，d = 5）"),
    Branch("zero_state", lambda case, expected: not np.any(case.args[1]),
            lambda rng: Case((draws.uniform(rng, (1,)), np.zeros(1), draws.uniform(rng, (1,), -2, 2), _lstm_case(rng, 1, 1).args[3])),
            en="h_prev = 0: the gates read the input alone", zh="h_prev = 0：门只读取输入"),
    Branch("forget_open", _lstm_gate("f", 1), _lstm_with(f=1), en="a forget gate at 1: the old cell kept", zh="遗忘门为1：旧单元值被保留"),
    Branch("forget_closed", _lstm_gate("f", 0), _lstm_with(f=0), en="a forget gate at 0: the old cell dropped", zh="遗忘门为0：旧单元值被丢弃"),
    Branch("input_closed", _lstm_gate("i", 0), _lstm_with(i=0), en="an input gate at 0: nothing written", zh="输入门为0：什么都不写入"),
    Branch("input_open", _lstm_gate("i", 1), _lstm_with(i=1), en="an input gate at 1: the whole candidate written", zh="输入门为1：写入整个候选值"),
    Branch("output_closed", _lstm_gate("o", 0), _lstm_with(o=0), en="an output gate at 0: h = 0, the cell still updated",
            zh="输出门为0：h = 0，单元值照常更新"),
)


# ----------------------------------------------------------------------------- gru_step


def _scalar_gru_params(setup: dict) -> dict:
    return {"A_r": np.zeros((2, 1)), "A_z": np.zeros((2, 1)), "W_g": np.array([[float(setup["W_g"])]]), "U_g": np.array([[float(setup["U_g"])]]),
            "b_r": np.array([_logit(setup["r"])]), "b_z": np.array([_logit(setup["z"])]), "b_g": np.array([float(setup["b_g"])])}


def _public_gru():
    e4, t3 = ref.EXAMPLE_12_4, ref.TEXT3_GRU
    two = {"A_r": np.array([[0.5, -0.5], [1.0, 0.25], [-0.75, 0.5]]), "A_z": np.array([[-0.25, 0.5], [0.5, -1.0], [0.25, 0.75]]),
           "W_g": np.array([[0.5, -0.25]]), "U_g": np.array([[0.25, 1.0], [-1.0, 0.5]]),
           "b_r": np.array([-1.0, 0.5]), "b_z": np.array([0.5, -0.25]), "b_g": np.array([0.0, 0.125])}
    wide = {"A_r": _pattern(STEP_M + STEP_D, STEP_D, 4), "A_z": _pattern(STEP_M + STEP_D, STEP_D, 5), "W_g": _pattern(STEP_M, STEP_D, 6),
            "U_g": 1.5 * _pattern(STEP_D, STEP_D, 7), "b_r": np.array([0.5, 30.0, -0.25, 0.0, 1.0]),
            "b_z": np.array([-30.0, 0.25, 0.5, -1.0, 0.0]), "b_g": np.array([0.125, -0.5, 0.25, 0.0, -0.25])}
    return [
        Case((np.array([float(e4["x"])]), np.array([float(e4["h_prev"])]), _scalar_gru_params(e4)),
             label={"en": "Example 12.4 as a step: h_prev 0.8, biases logit(0.25), logit(0.9), no input contribution, U_g = 1", "zh": "例12.4写成完整的一步：h_prev 0.8，偏置为 logit(0.25), logit(0.9)，当前输入不作贡献，U_g = 1"}),
        Case((np.array([float(t3["x"])]), np.array([float(t3["h_prev"])]), _scalar_gru_params(t3)),
             label={"en": "third text's GRU as a step: x 1, h_prev 0.8, r 0.25, z 0.75, W_g 0.5, U_g 1", "zh": "第三份教材的GRU写成完整的一步：x 1，h_prev 0.8，r 0.25，z 0.75，W_g 0.5，U_g 1"}),
        Case((np.array([1.0]), np.array([0.5, -0.75]), two), label={"en": "two coordinates, U_g mixes them (where the reset acts matters)", "zh": "两个坐标，U_g会混合它们（重置作用在哪里会影响结果）"}),
        Case((np.array([0.5, -1.0, 0.25, 0.75]), np.array([-0.5, 0.25, 1.0, -0.75, 0.5]), wide),
             label={"en": "the widest step drawn (4 inputs, 5 coordinates); in coordinate 1 z near 0, in coordinate 2 r near 1",
                    "zh": "抽取的最宽的一步（4个输入，5个坐标）；坐标1的z接近0，坐标2的r接近1"}),
    ]


def _gru_case(rng: random.Random, m: int | None = None, d: int | None = None) -> Case:
    """d starts at 2: with one coordinate U_g is a number, and resetting before or after it is the same."""
    m, d = rng.randint(1, STEP_M) if m is None else m, rng.randint(2, STEP_D) if d is None else d
    params = {"A_r": _matrix(rng, m + d, d), "A_z": _matrix(rng, m + d, d), "W_g": draws.matrix(rng, m, d), "U_g": _matrix(rng, d, d) * 1.5,
              "b_r": _bias(rng, d), "b_z": _bias(rng, d), "b_g": draws.matrix(rng, 0, d, scale=0.5)}
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,), -1.5, 1.5), params))


def _gru_with(**gates):
    def draw(rng: random.Random) -> Case:
        case = _gru_case(rng)
        _saturate(case.args[2], rng, rng.randrange(len(case.args[1])), **gates)
        return case
    return draw


def _gru_gates(case: Case) -> tuple[np.ndarray, np.ndarray]:
    x, h_prev, params = case.args
    u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
    return _logistic(u @ params["A_r"] + params["b_r"]), _logistic(u @ params["A_z"] + params["b_z"])


def _gru_gate(**limits):
    def holds(case: Case, expected) -> bool:
        r, z = _gru_gates(case)
        found = np.ones(len(r), dtype=bool)
        for name, limit in limits.items():
            found &= _near({"r": r, "z": z}[name], limit)
        return bool(found.any())
    return holds


GRU_BRANCHES = (
    Branch("width_one", lambda case, expected: len(case.args[1]) == 1, en="one coordinate (d = 1)", zh="只有一个坐标（d = 1）"),
    Branch("one_input", lambda case, expected: len(case.args[0]) == 1, lambda rng: _gru_case(rng, m=1),
            en="one input (m = 1)", zh="只有一个输入（m = 1）"),
    Branch("widest", lambda case, expected: len(case.args[0]) >= STEP_M and len(case.args[1]) >= STEP_D,
            lambda rng: _gru_case(rng, STEP_M, STEP_D), en="the widest step drawn (m = 4, d = 5)", zh="抽取的最宽的一步（m = 4，d = 5）"),
    Branch("update_keeps", _gru_gate(z=1), _gru_with(z=1), en="an update gate at 1: the old state kept", zh="更新门为1：旧状态被保留"),
    Branch("update_replaces", _gru_gate(z=0), _gru_with(z=0), en="an update gate at 0: the candidate taken", zh="更新门为0：采用候选值"),
    Branch("reset_closed", _gru_gate(r=0), _gru_with(r=0), en="a reset gate at 0: the candidate sees no old state",
            zh="重置门为0：候选值看不到旧状态"),
    Branch("reset_open", _gru_gate(r=1), _gru_with(r=1), en="a reset gate at 1: the candidate sees the whole old state",
            zh="重置门为1：候选值看到完整的旧状态"),
    Branch("exercise_12_7_5", _gru_gate(z=1, r=0), _gru_with(z=1, r=0),
            en="z = 1 and r = 0 in one coordinate (exercise 12.7.5): the state kept there", zh="同一坐标上 z = 1 且 r = 0（习题12.7.5）：该坐标的状态被保留"),
)


# ----------------------------------------------------------------------------- retention


def _public_retention():
    (f1, k1), (f2, k2) = ref.SECTION_12_4_RETENTION
    t2 = ref.TEXT2_EXAMPLE_3
    return [Case((to_fraction(f1), k1), label={"en": f"section 12.4: f = {float(f1)} over {k1} edges", "zh": f"12.4节：f = {float(f1)}，跨越{k1}条边"}),
            Case((to_fraction(f2), k2), label={"en": f"section 12.4: f = {float(f2)} over {k2} edges", "zh": f"12.4节：f = {float(f2)}，跨越{k2}条边"}),
            Case((to_fraction(t2["f"]), t2["steps"]), label={"en": f"second text, example 3: f = {float(t2['f'])} over {t2['steps']} edges",
                                                         "zh": f"第二份教材例3：f = {float(t2['f'])}，跨越{t2['steps']}条边"}),
            Case((Fraction(1, 2), 8), label={"en": "a gate stuck at 0.5: the halving RNN of Chapter 11", "zh": "门值固定为0.5：即第11章中逐次减半的RNN"}),
            Case((Fraction(3, 4), 0), label={"en": "f = 0.75 over 0 edges: nothing multiplied yet", "zh": "f = 0.75，跨越0条边：还没有乘过任何因子"}),
            Case((Fraction(0), 5), label={"en": "f = 0 over 5 edges: the gate closed", "zh": "f = 0，跨越5条边：门已关闭"}),
            Case((Fraction(1), 40), label={"en": "f = 1 over 40 edges (the most drawn): the gate fully open", "zh": "f = 1，跨越40条边（抽取的最多边数）：门完全打开"})]


RETENTION_MOST = 40


def _retention_draw(rng: random.Random, steps: int | None = None) -> Case:
    f = draws.rational(rng, 0, 1, denominators=(2, 4, 5, 8, 10, 20, 100))
    return Case((f, rng.randint(1, RETENTION_MOST) if steps is None else steps))


RETENTION_BRANCHES = (
    Branch("zero_edges", lambda case, expected: case.args[1] == 0, en="0 edges: the value unchanged", zh="0条边：数值不变"),
    Branch("one_edge", lambda case, expected: case.args[1] == 1, lambda rng: _retention_draw(rng, 1), en="one edge", zh="一条边"),
    Branch("most_edges", lambda case, expected: case.args[1] >= RETENTION_MOST, lambda rng: _retention_draw(rng, RETENTION_MOST),
            en="the most edges drawn", zh="抽取的最多边数"),
    Branch("forget_closed", lambda case, expected: case.args[0] == 0 and case.args[1] > 0, en="f = 0: nothing left", zh="f = 0：什么都不剩"),
    Branch("forget_open", lambda case, expected: case.args[0] == 1, en="f = 1: everything kept", zh="f = 1：全部保留"),
    Branch("forget_half", lambda case, expected: case.args[0] == Fraction(1, 2), en="f = 0.5: kept and lost alike", zh="f = 0.5：保留与丢失一样多"),
)


# ----------------------------------------------------------------------------- parameter counts

COUNT_MOST = 64


def _count_public():
    D, H = ref.PARAM_COUNT["D"], ref.PARAM_COUNT["H"]
    return lambda: [Case((D, H), label={"en": f"third text: D = {D}, H = {H}", "zh": f"第三份教材：D = {D}, H = {H}"}),
                    Case((COUNT_MOST, COUNT_MOST), label={"en": f"the largest widths drawn: D = {COUNT_MOST}, H = {COUNT_MOST}",
                                                          "zh": f"抽取的最大宽度：D = {COUNT_MOST}，H = {COUNT_MOST}"})]


def _count_draw(rng: random.Random) -> Case:
    return Case((rng.randint(1, COUNT_MOST), rng.randint(1, COUNT_MOST)))


COUNT_BRANCHES = (
    Branch("input_one", lambda case, expected: case.args[0] == 1, lambda rng: Case((1, rng.randint(2, COUNT_MOST))),
            en="input width D = 1", zh="输入宽度 D = 1"),
    Branch("hidden_one", lambda case, expected: case.args[1] == 1, lambda rng: Case((rng.randint(2, COUNT_MOST), 1)),
            en="hidden width H = 1", zh="隐藏宽度 H = 1"),
    Branch("largest", lambda case, expected: case.args[0] >= COUNT_MOST and case.args[1] >= COUNT_MOST,
            lambda rng: Case((COUNT_MOST, COUNT_MOST)), en="the largest widths drawn", zh="抽取的最大宽度"),
)


CHECKS = [
    Check("sigmoid", ref.sigmoid, _public_sigmoid, draw=_sigmoid_draw, points=1, branches=SIGMOID_BRANCHES),
    Check("lstm_cell_update", ref.lstm_cell_update, _public_cell, exact=True, draw=_cell_draw, points=2, branches=CELL_BRANCHES),
    Check("ex_12_7_4", ref.ex_12_7_4, _public_ex_12_7_4, exact=True, reveal=False, draw=_draw_ex_12_7_4, points=1, branches=EX_12_7_4_BRANCHES),
    Check("lstm_step", ref.lstm_step, _public_lstm, draw=_lstm_case, points=3, branches=LSTM_BRANCHES),
    Check("gru_step", ref.gru_step, _public_gru, draw=_gru_case, points=3, branches=GRU_BRANCHES),
    Check("ex_12_7_5", ref.ex_12_7_5, _public_ex_12_7_5, exact=True, reveal=False, draw=_draw_ex_12_7_5, points=1, branches=EX_12_7_5_BRANCHES),
    Check("retention", ref.retention, _public_retention, exact=True, draw=_retention_draw, points=1, branches=RETENTION_BRANCHES),
    Check("rnn_param_count", ref.rnn_param_count, _count_public(), draw=_count_draw, points=1, branches=COUNT_BRANCHES),
    Check("lstm_param_count", ref.lstm_param_count, _count_public(), draw=_count_draw, points=1, branches=COUNT_BRANCHES),
    Check("lstm_param_count_two_bias", ref.lstm_param_count_two_bias, _count_public(), draw=_count_draw, points=1, branches=COUNT_BRANCHES),
    Check("gru_param_count", ref.gru_param_count, _count_public(), draw=_count_draw, points=1, branches=COUNT_BRANCHES),
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
         en="The symbol ⊙ is a coordinate-by-coordinate product, not a dot product: each cell coordinate keeps and writes its own amounts, and the result has one entry per coordinate.",
         zh="符号⊙（逐项相乘）表示对应坐标逐项相乘，不是点积：每个单元坐标各自保留、写入自己的量，结果每个坐标各有一项。")
def dot_product_not_elementwise(c_prev, f, i, g, o):
    c = np.dot(f, c_prev) + np.dot(i, g)
    return c, o * np.tanh(np.asarray(c, dtype=float))


@mistake("lstm_cell_update",
         en="The old cell was carried over whole and the new part added on top (a residual update, c_prev + i * g), as in the first LSTM of 1997, before the forget gate. The chapter's LSTM (section 12.4.1, after Gers et al., 2000) lets the forget gate decide how much of the old cell stays: look at what multiplies c_{t-1}.",
         zh="旧单元值被完整带过来，再把新的部分加在上面（残差式更新，c_prev + i * g），就像加入遗忘门之前1997年的最初LSTM。本章的LSTM（12.4.1节，沿用Gers等人2000年的形式）由遗忘门决定旧单元值留下多少：看一看什么在乘 c_{t-1}。")
def cell_without_forget_gate(c_prev, f, i, g, o):
    c = c_prev + i * g
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


@mistake("lstm_step",
         en="The stacked gate blocks were read in PyTorch's order i, f, g, o, but the chapter's blocks come in its own order f, i, o, g (A_f, A_i, A_o, A_g of section 12.4.1): each block was used under another gate's name, so the wrong weights went through the wrong activation. Keep each gate with its own A and b; the second text warns to check the gate order before moving weights between layouts.",
         zh="堆叠的门块被按PyTorch的顺序 i, f, g, o 读取，而本章的块有自己的顺序 f, i, o, g（12.4.1节的 A_f、A_i、A_o、A_g）：每个块都被当成了另一个门来用，于是错误的权重经过了错误的激活函数。让每个门用它自己的A和b；第二份教材也提醒，在不同布局之间迁移权重前要先核对门顺序。")
def lstm_pytorch_gate_order(x, h_prev, c_prev, params):
    u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
    stacked = np.hstack([params["A_f"], params["A_i"], params["A_o"], params["A_g"]])  # the chapter's blocks, in its order
    bias = np.concatenate([params["b_f"], params["b_i"], params["b_o"], params["b_g"]])
    i, f, g, o = np.split(u @ stacked + bias, 4)  # read in PyTorch's order
    f, i, o, g = sigmoid(f), sigmoid(i), sigmoid(o), np.tanh(g)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), f, i, g, o)
    return h, c, {"f": f, "i": i, "o": o, "g": g}


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


@mistake("gru_step",
         en="The old state was added whole and the candidate's share added on top (a residual update, h_prev + new). The GRU of section 12.4.2 mixes instead: the update gate weights the old state and its complement weights the candidate, so the two shares add up to one (Example 12.4: 90 % of the old value, 10 % of the candidate).",
         zh="旧状态被完整加上，再在上面加上候选值的份额（残差式更新，h_prev + 新值）。12.4.2节的GRU做的是混合：更新门给旧状态加权，它的补数给候选值加权，两份权重之和为一（例12.4：旧值的90%，候选值的10%）。")
def gru_residual_update(x, h_prev, params):
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([x, h_prev])
    r = sigmoid(u @ params["A_r"] + params["b_r"])
    z = sigmoid(u @ params["A_z"] + params["b_z"])
    g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
    return h_prev + (1 - z) * g


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


@mistake("gru_param_count",
         en="This counts four blocks, the LSTM's (three gates and a candidate). Count the GRU's own blocks in section 12.4.2: it keeps no separate cell and has no output gate.",
         zh="这里数了四个块，那是LSTM的（三个门加一个候选值）。按12.4.2节数GRU自己的块：它不单独保存单元状态，也没有输出门。")
def gru_count_four_blocks(D, H):
    return 4 * (D * H + H * H + H)


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


@mistake("ex_12_7_4",
         en="The old cell was kept whole and the new part added on top (c_prev + i * g), as if there were no forget gate. In section 12.4.1 the forget gate decides how much of the old cell is kept: the kept part is the old cell scaled by it.",
         zh="旧单元值被完整保留，再把新的部分加在上面（c_prev + i * g），好像没有遗忘门一样。在12.4.1节中，由遗忘门决定旧单元值保留多少：保留的部分是被它缩放后的旧单元值。")
def ex_cell_without_forget_gate(c_prev, f, i, g, o):
    kept, written = c_prev, i * g
    c = kept + written
    tanh_c = np.tanh(np.asarray(c, dtype=float))
    return {"kept": kept, "written": written, "c": c, "h": o * tanh_c, "c with o = 0": c, "h with o = 0": 0 * tanh_c}


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


@mistake("ex_12_7_5",
         en="The reset gate was folded into the weight of the kept branch (z * r), so r = 0 came out as erasing the state. In the GRU of section 12.4.2 r acts only inside the candidate's computation, done already here; the keep weight is the weight h_prev has in the final mix h = z * h_prev + (1 - z) * g: look at which gates appear there (12.8: a reset gate of 0 does not remove the separately kept branch).",
         zh="重置门被并进了直接保留分支的权重（z * r），于是 r = 0 被算成了抹掉状态。在12.4.2节的GRU中，r只在候选值的计算内部起作用，而这里候选值已经算好；保留权重是h_prev在最终混合 h = z * h_prev + (1 - z) * g 中的权重：看一看那里出现的是哪些门（12.8：重置门为0并不移除单独保留的旧状态分支）。")
def ex_reset_erases_state(h_prev, z, r, candidate):
    keep = z * r
    return {"keep weight": keep, "candidate weight": 1 - z, "h": keep * h_prev + (1 - z) * candidate}


@mistake("ex_12_7_5",
         en="The old state was kept whole and the candidate's share added on top (a residual update, h_prev + new). The GRU's final mix in section 12.4.2 weights the old state by the update gate and the candidate by its complement, so the two weights add up to one.",
         zh="旧状态被完整保留，再在上面加上候选值的份额（残差式更新，h_prev + 新值）。12.4.2节中GRU的最终混合用更新门给旧状态加权、用它的补数给候选值加权，两个权重之和为一。")
def ex_residual_mix(h_prev, z, r, candidate):
    return {"keep weight": 1, "candidate weight": 1 - z, "h": h_prev + (1 - z) * candidate}
