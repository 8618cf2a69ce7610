"""`rnn_step`: one read, the new state ReLU(x W_x + h_prev W_h + b_h) in row vectors (Table 11.2)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from ....vocabulary import draws, template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import _floats_of, _nonsymmetric, book_model


def public():
    m = book_model()
    x = {t: m["embeddings"][i] for t, i in m["vocabulary"].items()}
    weights = (m["W_x"], m["W_h"], m["b_h"])
    return [
        Case(
            (x["red"], np.zeros(2), *weights),
            label={"en": "Table 11.2, read 1: red from [0, 0]", "zh": "表11.2，第1次读取：从 [0, 0] 出发读入red"},
        ),
        Case(
            (x["key"], np.array([1.0, 0.0]), *weights),
            label={"en": "Table 11.2, read 2: key from [1, 0]", "zh": "表11.2，第2次读取：从 [1, 0] 出发读入key"},
        ),
        Case(
            (x["is"], np.array([0.5, 0.0]), *weights),
            label={"en": "Table 11.2, read 3: is from [0.5, 0]", "zh": "表11.2，第3次读取：从 [0.5, 0] 出发读入is"},
        ),
        Case(
            (np.array([-1.0, 0.0]), np.array([0.5, 1.0]), *weights),
            label={"en": "section 11.2: a negative input is cut by ReLU", "zh": "11.2节：负的输入被ReLU截成零"},
        ),
        # the book's b_h is zero, so it cannot show the bias missing
        Case(
            (x["key"], np.array([1.0, 0.0]), m["W_x"], m["W_h"], np.array([0.25, -0.5])),
            label={
                "en": "Table 11.2, read 2, with b_h = [0.25, -0.5] instead of the book's zero bias",
                "zh": "表11.2，第2次读取，改用 b_h = [0.25, -0.5]，代替书中为零的偏置",
            },
        ),
        # the book's W_h is diagonal (symmetric), so it cannot tell h_prev @ W_h from W_h @ h_prev
        Case(
            (x["key"], np.array([1.0, 0.0]), m["W_x"], np.array([[0.5, 0.25], [0.0, 0.5]]), m["b_h"]),
            label={
                "en": "Table 11.2, read 2, with a non-symmetric W_h = [[0.5, 0.25], [0, 0.5]] instead of the book's",
                "zh": "表11.2，第2次读取，改用不对称的 W_h = [[0.5, 0.25], [0, 0.5]]，代替书中的矩阵",
            },
        ),
        # the book's W_x is the identity, so it cannot tell x @ W_x from W_x @ x either
        Case(
            (x["red"], np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]), m["W_h"], m["b_h"]),
            label={
                "en": "Table 11.2, read 1, with a non-symmetric W_x = [[1, 0.5], [0, 1]] instead of the book's "
                "identity",
                "zh": "表11.2，第1次读取，改用不对称的 W_x = [[1, 0.5], [0, 1]]，代替书中的单位矩阵",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    return Case(
        (
            draws.matrix(rng, 0, 2),
            draws.matrix(rng, 0, 2, scale=2),
            draws.matrix(rng, 2, 2),
            _nonsymmetric(rng, largest=8),
            draws.matrix(rng, 0, 2, scale=0.5),
        )
    )


def _pre_activation(case) -> np.ndarray:
    x, h, W_x, W_h, b_h = (np.asarray(a, dtype=float) for a in case.args)
    return x @ W_x + h @ W_h + b_h


def _draw_rnn_step_all_cut(rng: random.Random) -> Case:
    """Every pre-activation below zero (the new state is [0, 0]), and some above it without the bias."""
    while True:
        x, h, W_x, W_h, _ = draw(rng).args
        pre = x @ W_x + h @ W_h
        if pre.max() > 0:
            return Case((x, h, W_x, W_h, -np.maximum(pre, 0) - np.array([rng.randint(1, 4) / 8 for _ in range(2)])))


BRANCHES = (
    Branch(
        "first_read",
        lambda case, _: not any(_floats_of(case.args[1])),
        None,  # W_h @ 0 = 0 @ W_h
        en="the first read, from h_0 = [0, 0]",
        zh="第一次读取，从 h_0 = [0, 0] 出发",
    ),
    Branch(
        "relu_cuts",
        lambda case, _: _pre_activation(case).min() < 0,
        draw,
        en="a negative pre-activation, cut by ReLU",
        zh="有负的预激活值，被ReLU截掉",
    ),
    Branch(
        "all_cut",
        lambda case, _: _pre_activation(case).max() <= 0,
        _draw_rnn_step_all_cut,
        en="every pre-activation at most 0: the new state is [0, 0]",
        zh="所有预激活值都不大于0：新状态为 [0, 0]",
    ),
    Branch(
        "bias",
        lambda case, _: any(_floats_of(case.args[4])),
        draw,
        en="a non-zero bias b_h",
        zh="非零的偏置b_h",
    ),
    Branch(
        "nonsymmetric_W_h",
        lambda case, _: not np.array_equal(np.asarray(case.args[3]), np.asarray(case.args[3]).T),
        draw,
        en="a non-symmetric W_h (h_prev @ W_h differs from W_h @ h_prev)",
        zh="不对称的W_h（h_prev @ W_h 与 W_h @ h_prev 不同）",
    ),
    Branch(
        "nonsymmetric_W_x",
        lambda case, _: not np.array_equal(np.asarray(case.args[2]), np.asarray(case.args[2]).T),
        draw,
        en="a non-symmetric W_x (x @ W_x differs from W_x @ x)",
        zh="不对称的W_x（x @ W_x 与 W_x @ x 不同）",
    ),
)


CHECK = Check("rnn_step", ref.rnn_step, public, draw=draw, points=2, branches=BRANCHES)


#: The reference solution's functions (the notebook's solution cells) that the mistakes below call.
_solution = template.module(Path(__file__).parents[1] / "notebook.md")
relu = _solution.relu


@mistake(
    "rnn_step",
    en="The recurrent term was computed as W_h @ h_prev. The book uses row vectors: the old state multiplies the "
    "matrix from the left, h_prev @ W_h (the order matters when W_h is not symmetric).",
    zh="递归项被算成了 W_h @ h_prev。书中使用行向量：旧状态从左边乘矩阵，即 h_prev @ W_h（W_h不对称时，"
    "顺序会影响结果）。",
)
def recurrent_weight_transposed(x, h_prev, W_x, W_h, b_h):
    return relu(x @ W_x + W_h @ h_prev + b_h)


@mistake(
    "rnn_step",
    en="The input term was computed as W_x @ x. The book uses row vectors: the input multiplies the matrix from the "
    "left, x_t W_x, as the old state does in h_{t-1} W_h (the order matters when W_x is not symmetric; the book's W_x "
    "is the identity, so its tables cannot show it).",
    zh="输入项被算成了 W_x @ x。书中使用行向量：输入从左边乘矩阵，即 x_t W_x，和旧状态的 h_{t-1} W_h "
    "一样（W_x不对称时，顺序会影响结果；书中的W_x是单位矩阵，所以书里的表格看不出这一点）。",
)
def input_weight_transposed(x, h_prev, W_x, W_h, b_h):
    return relu(W_x @ x + h_prev @ W_h + b_h)


@mistake(
    "rnn_step",
    en="Both matrices were applied to column vectors (W_x @ x and W_h @ h_prev), the habit of texts that write states "
    "as columns. This chapter writes vectors as rows: h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h), each vector "
    "multiplying its matrix from the left (Table 11.2's update in matrix form).",
    zh="两个矩阵都按列向量的习惯来乘（W_x @ x 和 W_h @ h_prev），这是把状态写成列向量的教材的写法。本章把向量写成行："
    "h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h)，每个向量都从左边乘它的矩阵（表11.2那次更新的矩阵形式）。",
)
def column_vector_convention(x, h_prev, W_x, W_h, b_h):
    return relu(W_x @ x + W_h @ h_prev + b_h)


@mistake(
    "rnn_step",
    en="The state update leaves out the bias b_h. Each step adds it inside the ReLU, "
    "h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h); the book's b_h is zero, so only other weights show it missing.",
    zh="状态更新里漏掉了偏置b_h。每一步都要在ReLU里面把它加上：h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h)；"
    "书中的b_h是零，所以只有换一组权重才看得出它被漏掉了。",
)
def state_bias_forgotten(x, h_prev, W_x, W_h, b_h):
    return relu(x @ W_x + h_prev @ W_h)
