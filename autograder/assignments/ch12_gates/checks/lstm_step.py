"""lstm_step: one LSTM step of section 12.4.1, the gates computed from u = [x, h_prev] (Example 12.3
and the third text's LSTM written as steps, then full matrices up to the widest step drawn)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np

from ....vocabulary import draws, template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import STEP_D, STEP_M, entries, full_matrix, gate_bias, logit, near, pattern, saturate


def _scalar_lstm_params(setup: dict) -> dict:
    """Example-style parameters: A = 0, so each gate is sigmoid(bias); the biases are the logits of the
    book's gate values."""
    zeros = np.zeros((2, 1))
    return {
        "A_f": zeros,
        "A_i": zeros.copy(),
        "A_o": zeros.copy(),
        "A_g": zeros.copy(),
        "b_f": np.array([logit(setup["f"])]),
        "b_i": np.array([logit(setup["i"])]),
        "b_o": np.array([logit(setup["o"])]),
        "b_g": np.array([math.atanh(float(setup["g"]))]),
    }


def public():
    two = {
        f"A_{name}": np.array(rows, dtype=float)
        for name, rows in (
            ("f", [[0.5, -0.25], [0.25, 0.5], [-0.5, 0.125], [0.0, 1.0]]),
            ("i", [[-0.25, 0.75], [0.5, 0.0], [0.125, -0.5], [1.0, 0.25]]),
            ("o", [[1.0, 0.0], [-0.5, 0.5], [0.25, 0.25], [0.0, -0.75]]),
            ("g", [[0.75, -1.0], [0.0, 0.5], [-0.25, 0.5], [0.5, 0.125]]),
        )
    }
    two.update(
        b_f=np.array([1.0, 0.5]), b_i=np.array([-0.5, 0.0]), b_o=np.array([0.0, 0.25]), b_g=np.array([0.125, -0.25])
    )
    wide = {f"A_{name}": pattern(STEP_M + STEP_D, STEP_D, shift) for shift, name in enumerate("fiog")}
    wide.update(
        b_f=np.array([30.0, 0.5, -0.25, 1.0, 0.0]),
        b_i=np.array([0.25, -30.0, 30.0, -0.5, 0.5]),
        b_o=np.array([0.5, 0.0, -0.5, 0.25, 1.0]),
        b_g=np.array([-0.25, 0.5, 0.125, 0.0, -0.5]),
    )
    return [
        Case(
            (np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.EXAMPLE_12_3)),
            label={
                "en": "Example 12.3 as a step: A = 0, biases logit(0.9), logit(0.2), logit(0.75), atanh(0.5)",
                "zh": "例12.3写成完整的一步：A = 0，偏置为 logit(0.9), logit(0.2), logit(0.75), atanh(0.5)",
            },
        ),
        Case(
            (np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.TEXT3_LSTM)),
            label={
                "en": "third text's LSTM as a step: gates 0.9, 0.2, 0.75, candidate -0.5",
                "zh": "第三份教材的LSTM写成完整的一步：门值0.9、0.2、0.75，候选值-0.5",
            },
        ),
        Case(
            (np.array([1.0, -0.5]), np.array([0.25, -0.75]), np.array([0.5, -1.0]), two),
            label={"en": "two inputs, two cells, full matrices", "zh": "两个输入，两个单元，完整矩阵"},
        ),
        Case(
            (
                np.array([0.5, -1.0, 0.25, 0.75]),
                np.array([-0.5, 0.25, 1.0, -0.75, 0.5]),
                np.array([1.5, -0.5, 0.25, -2.0, 0.75]),
                wide,
            ),
            label={
                "en": (
                    "the widest step drawn (4 inputs, 5 cells), four different blocks; in cell 1 f near 1, in cell 2 i "
                    "near 0, in cell 3 i near 1"
                ),
                "zh": (
                    "抽取的最宽的一步（4个输入，5个单元），四个块各不相同；单元1的f接近1，单元2的i接近0，单元3的i接近1"
                ),
            },
        ),
    ]


def draw(rng: random.Random, m: int | None = None, d: int | None = None) -> Case:
    m, d = rng.randint(1, STEP_M) if m is None else m, rng.randint(1, STEP_D) if d is None else d
    params = {f"A_{name}": full_matrix(rng, m + d, d) for name in "fiog"}
    params.update({f"b_{name}": gate_bias(rng, d) for name in "fiog"})
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,)), draws.uniform(rng, (d,), -2, 2), params))


def _floats(value) -> np.ndarray:
    return np.array([float(item) for item in entries(value)], dtype=float)


def _lstm_with(**gates):
    def saturated(rng: random.Random) -> Case:
        case = draw(rng)
        saturate(case.args[3], rng, rng.randrange(len(case.args[1])), **gates)
        return case

    return saturated


def _lstm_gate(name: str, limit: float):
    return lambda case, expected: bool(np.any(near(_floats(expected[2][name]), limit)))


BRANCHES = (
    Branch(
        "width_one",
        lambda case, expected: len(case.args[1]) == 1,
        lambda rng: draw(rng, d=1),
        en="one cell (d = 1)",
        zh="只有一个单元（d = 1）",
    ),
    Branch(
        "one_input",
        lambda case, expected: len(case.args[0]) == 1,
        lambda rng: draw(rng, m=1),
        en="one input (m = 1)",
        zh="只有一个输入（m = 1）",
    ),
    Branch(
        "widest",
        lambda case, expected: len(case.args[0]) >= STEP_M and len(case.args[1]) >= STEP_D,
        lambda rng: draw(rng, STEP_M, STEP_D),
        en="the widest step drawn (m = 4, d = 5)",
        zh="抽取的最宽的一步（m = 4，d = 5）",
    ),
    Branch(
        "zero_state",
        lambda case, expected: not np.any(case.args[1]),
        lambda rng: Case(
            (draws.uniform(rng, (1,)), np.zeros(1), draws.uniform(rng, (1,), -2, 2), draw(rng, 1, 1).args[3])
        ),
        en="h_prev = 0: the gates read the input alone",
        zh="h_prev = 0：门只读取输入",
    ),
    Branch(
        "forget_open",
        _lstm_gate("f", 1),
        _lstm_with(f=1),
        en="a forget gate at 1: the old cell kept",
        zh="遗忘门为1：旧单元值被保留",
    ),
    Branch(
        "forget_closed",
        _lstm_gate("f", 0),
        _lstm_with(f=0),
        en="a forget gate at 0: the old cell dropped",
        zh="遗忘门为0：旧单元值被丢弃",
    ),
    Branch(
        "input_closed",
        _lstm_gate("i", 0),
        _lstm_with(i=0),
        en="an input gate at 0: nothing written",
        zh="输入门为0：什么都不写入",
    ),
    Branch(
        "input_open",
        _lstm_gate("i", 1),
        _lstm_with(i=1),
        en="an input gate at 1: the whole candidate written",
        zh="输入门为1：写入整个候选值",
    ),
    Branch(
        "output_closed",
        _lstm_gate("o", 0),
        _lstm_with(o=0),
        en="an output gate at 0: h = 0, the cell still updated",
        zh="输出门为0：h = 0，单元值照常更新",
    ),
)


CHECK = Check("lstm_step", ref.lstm_step, public, draw=draw, points=3, branches=BRANCHES)


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).resolve().parents[1] / "notebook.md")
lstm_cell_update, sigmoid = _solution.lstm_cell_update, _solution.sigmoid


def _lstm_gates(x, h_prev, params, *, h_first, candidate):
    """The four gate values of an LSTM step, with the concatenation order and candidate activation given."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([h_prev, x] if h_first else [x, h_prev])
    f = sigmoid(u @ params["A_f"] + params["b_f"])
    i = sigmoid(u @ params["A_i"] + params["b_i"])
    o = sigmoid(u @ params["A_o"] + params["b_o"])
    g = candidate(u @ params["A_g"] + params["b_g"])
    return {"f": f, "i": i, "o": o, "g": g}


@mistake(
    "lstm_step",
    en=(
        "Check the order of the concatenation: the chapter builds u_t = [x_t, h_{t-1}] with the input first, so the "
        "first m rows of each A read the input and the last d rows read the old hidden state."
    ),
    zh="检查拼接的顺序：本章构造的是 u_t = [x_t, h_{t-1}]，输入在前，所以每个A的前m行读取输入，后d行读取旧隐藏状态。",
)
def lstm_concat_h_first(x, h_prev, c_prev, params):
    gates = _lstm_gates(x, h_prev, params, h_first=True, candidate=np.tanh)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
    return h, c, gates


@mistake(
    "lstm_step",
    en=(
        "The candidate g uses the wrong squashing function. Gates are proportions (sigmoid, between 0 and 1), but the "
        "candidate must be able to write negative values too: look again at which activation section 12.4.1 gives g_t."
    ),
    zh=(
        "候选值g用错了压缩函数。"
        "门是比例（sigmoid，介于0和1之间），但候选值必须也能写入负数：再看一看12.4.1节给g_t用的是哪个激活函数。"
    ),
)
def lstm_candidate_sigmoid(x, h_prev, c_prev, params):
    gates = _lstm_gates(x, h_prev, params, h_first=False, candidate=sigmoid)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), gates["f"], gates["i"], gates["g"], gates["o"])
    return h, c, gates


@mistake(
    "lstm_step",
    en=(
        "The stacked gate blocks were read in PyTorch's order i, f, g, o, but the chapter's blocks come in its own "
        "order f, i, o, g (A_f, A_i, A_o, A_g of section 12.4.1): each block was used under another gate's name, so "
        "the wrong weights went through the wrong activation. Keep each gate with its own A and b; the second text "
        "warns to check the gate order before moving weights between layouts."
    ),
    zh=(
        "堆叠的门块被按PyTorch的顺序 i, f, g, o 读取，"
        "而本章的块有自己的顺序 f, i, o, g（12.4.1节的 A_f、A_i、A_o、A_g）：每个块都被当成了另一个门来用，"
        "于是错误的权重经过了错误的激活函数。让每个门用它自己的A和b；"
        "第二份教材也提醒，在不同布局之间迁移权重前要先核对门顺序。"
    ),
)
def lstm_pytorch_gate_order(x, h_prev, c_prev, params):
    u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
    stacked = np.hstack(
        [params["A_f"], params["A_i"], params["A_o"], params["A_g"]]
    )  # the chapter's blocks, in its order
    bias = np.concatenate([params["b_f"], params["b_i"], params["b_o"], params["b_g"]])
    i, f, g, o = np.split(u @ stacked + bias, 4)  # read in PyTorch's order
    f, i, o, g = sigmoid(f), sigmoid(i), sigmoid(o), np.tanh(g)
    c, h = lstm_cell_update(np.asarray(c_prev, dtype=float), f, i, g, o)
    return h, c, {"f": f, "i": i, "o": o, "g": g}
