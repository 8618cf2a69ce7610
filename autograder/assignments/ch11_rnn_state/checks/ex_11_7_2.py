"""`ex_11_7_2`: exercise 11.7.2, both diagonal entries of W_h set to 1 and the long blue input read: the
final state, the logits and the choice."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np

from ....vocabulary import template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import _book, _exact, _float_exact, _logits_level, book_model, random_model

#: Exercise 11.7.2's other public model: W_x and W_h not symmetric (W_h with an off-diagonal entry to
#: keep; `W_x @ x`, `W_h @ h` and both transposed each read another state) and an output head that
#: swaps the coordinates, so that the larger state coordinate is not the chosen candidate.
OTHER_11_7_2 = {"W_x": [[1.0, 0.0], [0.5, 1.0]], "W_h": [[0.5, 0.0], [0.25, 0.5]], "W_y": [[0.0, 1.0], [1.0, 0.0]]}


def public():
    """Exercise 11.7.2 asked of the book's model (checked against 11.8's answer, never shown) and of
    another model (`OTHER_11_7_2`)."""
    return [
        Case((book_model(),), label={"en": "exercise 11.7.2: the book's model", "zh": "习题11.7.2：书中的模型"}),
        Case(
            (_book(**OTHER_11_7_2),),
            label={
                "en": "exercise 11.7.2 asked of the book's model with W_x = [[1, 0], [1/2, 1]], "
                "W_h = [[1/2, 0], [1/4, 1/2]] and W_y = [[0, 1], [1, 0]]",
                "zh": "习题11.7.2，对书中的模型提问，但改用 W_x = [[1, 0], [1/2, 1]]、W_h = [[1/2, 0], [1/4, 1/2]] 和 "
                "W_y = [[0, 1], [1, 0]]",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    """Exercise 11.7.2 asked of a random model (its `long_blue`: the clue, six fillers, `key is`): a
    non-symmetric W_h, whose off-diagonal entries stay, and entries of both signs in 1/8 and 1/16
    steps, so that float64 holds every value of the nine reads exactly (denominators at most 2^33,
    magnitudes below 2^9); the choice goes either way."""
    return Case((random_model(rng),))


def _long_blue_exact(model: dict) -> tuple[list[Fraction], list[Fraction]]:
    """Exercise 11.7.2's final state and its logits without the output bias, in Fractions (the model's
    W_h with both diagonal entries set to 1)."""
    E = [[Fraction(float(v)) for v in r] for r in np.asarray(model["embeddings"], dtype=float)]
    W_x, W_h, W_y = (
        [[Fraction(float(v)) for v in r] for r in np.asarray(model[k], dtype=float)] for k in ("W_x", "W_h", "W_y")
    )
    W_h[0][0] = W_h[1][1] = Fraction(1)
    b_h = _exact(model["b_h"])
    h = [Fraction(0)] * 2
    for token in model["inputs"]["long_blue"]:
        h = [
            max(Fraction(0), sum(E[token][i] * W_x[i][j] + h[i] * W_h[i][j] for i in range(2)) + b_h[j])
            for j in range(2)
        ]
    return h, [sum(h[i] * W_y[i][j] for i in range(2)) for j in range(2)]


def _ex_11_7_2_first_chosen(tie: bool):
    """A random model whose long blue input ends with the first candidate chosen (on an exact tie of
    the logits with `tie`) while the state's larger coordinate is the second's."""

    def draw_first_chosen(rng: random.Random) -> Case:
        while True:
            model = random_model(rng)
            h, z = _long_blue_exact(model)
            red = z[1] - z[0] + (0 if tie else Fraction(rng.randint(1, 8), 8)) + Fraction(float(model["b_y"][1]))
            if h[1] > h[0] and _float_exact(red):
                model["b_y"] = np.array([float(red), model["b_y"][1]])
                return Case((model,))

    return draw_first_chosen


def _state_disagrees(expected, case) -> bool:
    h = list(expected["final_h"])
    return case.args[0]["candidates"][h.index(max(h))] != expected["choice"]


BRANCHES = (
    Branch(
        "second_chosen",
        lambda case, expected: expected["choice"] == case.args[0]["candidates"][1],
        draw,
        en="the second candidate (blue) chosen",
        zh="选中第二个候选（blue）",
    ),
    Branch(
        "first_chosen",
        lambda case, expected: expected["choice"] == case.args[0]["candidates"][0],
        _ex_11_7_2_first_chosen(False),
        en="the first candidate (red) chosen",
        zh="选中第一个候选（red）",
    ),
    Branch(
        "tie",
        lambda case, expected: _logits_level(expected),
        _ex_11_7_2_first_chosen(True),
        en="the final logits exactly level: the tie rule chooses",
        zh="最终logits恰好相等：由平局规则选择",
    ),
    Branch(
        "off_diagonal",
        lambda case, _: bool(np.asarray(case.args[0]["W_h"], dtype=float)[[0, 1], [1, 0]].any()),
        draw,
        en="a W_h with non-zero off-diagonal entries, which stay",
        zh="W_h有非零的非对角元素，它们保持不变",
    ),
    Branch(
        "state_disagrees",
        lambda case, expected: _state_disagrees(expected, case),
        draw,
        en="the larger state coordinate is not the chosen candidate's",
        zh="状态中较大的坐标并不对应被选中的候选",
    ),
)


# asked of the book's model and of another one (reveal=False: the self-check does not show 11.8's
# answer), graded on random models
CHECK = Check("ex_11_7_2", ref.ex_11_7_2, public, draw=draw, reveal=False, points=1, branches=BRANCHES)


#: The reference solution's functions (the notebook's solution cells) that the mistakes below call.
_solution = template.module(Path(__file__).parents[1] / "notebook.md")
output_logits, rnn_step = _solution.output_logits, _solution.rnn_step


@mistake(
    "ex_11_7_2",
    en="Only the diagonal entries of W_h were to become 1; the off-diagonal entries keep their values (0 in the "
    "book's model, so that the two colour coordinates still do not mix) (exercise 11.7.2).",
    zh="只有W_h的对角元素要改成1；非对角元素保持原值（书中的模型里为0，这样两个颜色坐标仍然互不混合；习题11.7.2）。",
)
def every_recurrent_entry_set_to_one(model):
    W_h = np.ones_like(model["W_h"])
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], W_h, model["b_h"])
    logits = output_logits(h, model["W_y"], model["b_y"])
    return {"final_h": h, "logits": logits, "choice": model["candidates"][int(np.argmax(logits))]}


@mistake(
    "ex_11_7_2",
    en="W_h was replaced by the identity (np.eye): its diagonal entries were to become 1, and its off-diagonal "
    "entries keep their values. In the book's model they are 0, so the identity gives the book's answer there and "
    "another answer wherever they are not (exercise 11.7.2).",
    zh="W_h被换成了单位矩阵（np.eye）：只有对角元素要改成1，非对角元素保持原值。书中的模型里它们是0，"
    "所以单位矩阵在书中的模型上给出正确答案，而在非对角元素不为0的模型上给出别的答案（习题11.7.2）。",
)
def recurrent_matrix_replaced_by_identity(model):
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], np.eye(len(model["b_h"])), model["b_h"])
    logits = output_logits(h, model["W_y"], model["b_y"])
    return {"final_h": h, "logits": logits, "choice": model["candidates"][int(np.argmax(logits))]}


@mistake(
    "ex_11_7_2",
    en="The choice was read from the hidden state. The model chooses by its logits z = h W_y + b_y, one score per "
    "candidate (softmax keeps their order); the state's coordinates are not candidate scores, and with another W_y or "
    "b_y the larger coordinate need not win (exercise 11.7.2).",
    zh="选择是从隐藏状态读出来的。模型按 logits z = h W_y + b_y 做选择，"
    "每个候选一个得分（softmax不改变它们的大小顺序）；状态的坐标不是候选的得分，换一个W_y或b_y，"
    "较大的坐标不一定胜出（习题11.7.2）。",
)
def choice_read_from_the_state(model):
    W_h = np.array(model["W_h"], dtype=float)
    np.fill_diagonal(W_h, 1.0)
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], W_h, model["b_h"])
    return {
        "final_h": h,
        "logits": output_logits(h, model["W_y"], model["b_y"]),
        "choice": model["candidates"][int(np.argmax(h))],
    }
