"""`window_logits`: the two-token window baseline of section 11.3, which reads the last two tokens only
(Table 11.4)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from rnnkit.compare import compare

from ....vocabulary import template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import LONGEST, _draw_tokens_of_length, _tokens, book_model, random_model


def public():
    m = book_model()
    # The book's window adds the two embeddings (its W repeats [1, 0], [0, 1]) and its inputs end in
    # `key is` (two zero rows), so no book case shows the order of the two embeddings: the last case
    # halves the rows of the earlier token and ends in two different colours.
    ids = m["vocabulary"]
    older_halved = {
        "W": np.array([[0.5, 0.0], [0.0, 0.5], [1.0, 0.0], [0.0, 1.0]]),
        "b": m["window_baseline"]["b"].copy(),
    }
    return [
        Case((m["inputs"]["short_blue"], m), label={"en": "section 11.3: blue key is", "zh": "11.3节：blue key is"}),
        Case(
            (m["inputs"]["long_red"], m), label={"en": "Table 11.4: the long red input", "zh": "表11.4：较长的红色输入"}
        ),
        Case(
            (m["inputs"]["long_blue"], m),
            label={"en": "Table 11.4: the long blue input", "zh": "表11.4：较长的蓝色输入"},
        ),
        Case(
            ([ids["filler"], ids["red"], ids["blue"]], {**m, "window_baseline": older_halved}),
            label={
                "en": "filler red blue, with a window W whose earlier-token rows are halved ([0.5, 0], [0, 0.5], "
                "[1, 0], [0, 1]) instead of the book's",
                "zh": "filler red blue，窗口矩阵W中较早token的两行减半（[0.5, 0], [0, 0.5], [1, 0], [0, 1]），"
                "代替书中的矩阵",
            },
        ),
        # the book's window has b = 0 and non-negative weights, so its ReLU never cuts anything
        Case(
            (
                m["inputs"]["short_blue"],
                {**m, "window_baseline": {"W": m["window_baseline"]["W"].copy(), "b": np.array([-0.5, 0.25])}},
            ),
            label={
                "en": "section 11.3: blue key is, with the window's b = [-0.5, 0.25] instead of the book's zero bias",
                "zh": "11.3节：blue key is，窗口的偏置改用 b = [-0.5, 0.25]，代替书中为零的偏置",
            },
        ),
        Case(
            ([ids["key"], ids["is"]], m),
            label={"en": "section 11.3: the two-token input key is", "zh": "11.3节：只含两个token的输入 key is"},
        ),
        Case(
            ([ids["blue"], *[ids["filler"]] * (LONGEST - 3), ids["key"], ids["is"]], m),
            label={
                "en": f"Table 11.4 stretched: blue, {LONGEST - 3} fillers, key is ({LONGEST} tokens, the longest "
                "input graded)",
                "zh": f"加长的表11.4：blue，{LONGEST - 3}个filler，再接 key is（{LONGEST}个token，评分时最长的输入）",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    model = random_model(rng)
    return Case((_tokens(rng, model, 3), model))  # with two tokens the first two are the last two


def _window_pre_activation(case) -> np.ndarray:
    tokens, model = case.args
    x = np.concatenate(
        [
            np.asarray(model["embeddings"][tokens[-2]], dtype=float),
            np.asarray(model["embeddings"][tokens[-1]], dtype=float),
        ]
    )
    return x @ np.asarray(model["window_baseline"]["W"], dtype=float) + np.asarray(
        model["window_baseline"]["b"], dtype=float
    )


BRANCHES = (
    Branch(
        "two_tokens",
        lambda case, _: len(case.args[0]) == 2,
        None,
        en="exactly two tokens: the whole input is the window",
        zh="恰好两个token：整个输入就是窗口",
    ),
    Branch(
        "three_tokens",
        lambda case, _: len(case.args[0]) == 3,
        _draw_tokens_of_length(3),
        en="three tokens: the first token falls outside the window",
        zh="三个token：第一个token落在窗口之外",
    ),
    Branch(
        "longest",
        lambda case, _: len(case.args[0]) == LONGEST,
        _draw_tokens_of_length(LONGEST),
        en=f"the longest input graded ({LONGEST} tokens)",
        zh=f"评分时最长的输入（{LONGEST}个token）",
    ),
    Branch(
        "relu_cuts",
        lambda case, _: _window_pre_activation(case).min() < 0,
        draw,
        en="a negative pre-activation in the window's hidden layer, cut by ReLU",
        zh="窗口隐藏层有负的预激活值，被ReLU截掉",
    ),
)


CHECK = Check("window_logits", ref.window_logits, public, draw=draw, points=2, branches=BRANCHES)


#: The reference solution's functions (the notebook's solution cells) that the mistakes below call.
_solution = template.module(Path(__file__).parents[1] / "notebook.md")
output_logits, relu = _solution.output_logits, _solution.relu


@mistake(
    "window_logits",
    en="The window read the wrong tokens. The two-token baseline of section 11.3 sees only the LAST two tokens of the "
    "input, which is exactly why it cannot see the colour clue.",
    zh="窗口读错了token。11.3节的两词基线只看输入的最后两个token（不是开头两个），这正是它看不到颜色线索的原因。",
)
def window_reads_first_two(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[0]], model["embeddings"][token_ids[1]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])


@mistake(
    "window_logits",
    en="The two embeddings were concatenated in the wrong order. The earlier of the last two tokens comes first, then "
    "the last token; with a general window matrix the order changes the result.",
    zh="两个嵌入的拼接顺序反了。最后两个token中较早的那个在前，最后一个token在后；对一般的窗口矩阵，顺序会改变结果。",
)
def window_order_swapped(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[-1]], model["embeddings"][token_ids[-2]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])


def _relu_after_the_head(got, case, expected) -> bool:
    """The hidden layer without its ReLU, the ReLU put on the logits instead."""
    moved = relu(window_without_relu(*case.args))
    return compare(got, moved).ok and not compare(moved, expected).ok


@mistake(
    "window_logits",
    recognise=_relu_after_the_head,
    en="The window's hidden layer let negative values through. Section 11.3's window applies ReLU after adding its b "
    "and before the output head: a negative entry there is cut to zero, as in the RNN's update.",
    zh="窗口的隐藏层让负值通过了。11.3节的窗口在加上它的b之后、送入输出头之前要经过ReLU：那里的负数项要截成零，"
    "和RNN的更新一样。",
)
def window_without_relu(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[-2]], model["embeddings"][token_ids[-1]]])
    return output_logits(x @ window["W"] + window["b"], model["W_y"], model["b_y"])
