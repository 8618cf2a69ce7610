"""The checks of ch11_rnn_state: the book's cases of Tables 11.2-11.4, Examples 11.1-11.2, section 11.3
and exercise 11.7, and hidden cases on seeded random models (exercises 11.7.1 and 11.7.2 too: asked
of the book's model and of other models in the self-check, of random models at grading).

Each graded check lists its contract's branches and extremes (`*_BRANCHES`: answers of 0, of the
bound and None, ties, far-apart logits, one-token and longest inputs, ReLU cutting); each is shown
by a public case or drawn among every attempt's hidden cases. The public cases hold one case of the
largest size a hidden case can have (six entries, five candidates, `LONGEST` tokens, 100 fillers).

Random models keep the book's shapes (2-d embeddings and states, two candidates) but have entries of
both signs in 1/8 steps (so ReLU matters and float64 arithmetic stays exact), a non-symmetric W_h (so
`h_prev @ W_h` differs from `W_h @ h_prev`) and a shuffled vocabulary.
"""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
from rnnkit.helpers import load_model

from ...coursedir.config import DATA_DIR
from ...grading import draws, template
from ...grading.catalogue import mistake
from ...grading.spec import Branch, Case, Check
from . import reference as ref

TOKENS = ("red", "blue", "filler", "key", "is", "door", "lamp")
#: The longest input a hidden case of run_rnn or window_logits draws (a public case has this length).
LONGEST = 12
NAMES = ("red", "blue", "green", "black", "white", "silver")


# ----------------------------------------------------------------------------- the book's model
def book_model() -> dict:
    """sequence-v1.json as float64 arrays: the notebook's own `load_model()` (the kit's), on the course's copy."""
    return load_model(DATA_DIR / "sequence-v1.json")


def _book(**changes) -> dict:
    model = book_model()
    model.update({key: np.array(value, dtype=float) for key, value in changes.items()})
    return model


# ----------------------------------------------------------------------------- random models
def _nonsymmetric(rng: random.Random, size: int = 2, largest: int = 6) -> np.ndarray:
    """A non-symmetric matrix with entries k/8, |k| <= largest."""
    while True:
        W = np.array([[rng.randint(-largest, largest) / 8 for _ in range(size)] for _ in range(size)])
        if not np.array_equal(W, W.T):
            return W


def _nonzero(rng: random.Random, scale: float = 0.5) -> np.ndarray:
    while True:
        v = draws.matrix(rng, 0, 2, scale=scale)
        if np.all(v != 0):
            return v


def random_model(rng: random.Random) -> dict:
    """A model with the book's keys and shapes; the token ids are shuffled."""
    size = rng.randint(5, len(TOKENS))
    ids = list(range(size))
    rng.shuffle(ids)
    vocabulary = dict(zip(TOKENS[:size], ids))
    model = {
        "embeddings": draws.matrix(rng, size, 2),
        "W_x": draws.matrix(rng, 2, 2),
        "W_h": _nonsymmetric(rng),
        "b_h": draws.matrix(rng, 0, 2, scale=0.5),
        "W_y": draws.matrix(rng, 2, 2),
        "b_y": _nonzero(rng),
        "candidates": ["red", "blue"],
        "vocabulary": vocabulary,
        "window_baseline": {"W": draws.matrix(rng, 4, 2), "b": draws.matrix(rng, 0, 2, scale=0.5)},
    }
    model["inputs"] = {f"{length}_{clue}": [vocabulary[clue], *[vocabulary["filler"]] * fillers, vocabulary["key"], vocabulary["is"]]
                       for length, fillers in (("short", 0), ("long", 6)) for clue in ("red", "blue")}
    return model


def _tokens(rng: random.Random, model: dict, shortest: int, longest: int = LONGEST) -> list[int]:
    return [rng.randrange(len(model["embeddings"])) for _ in range(rng.randint(shortest, longest))]


def _exact(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in np.ravel(values)]


def _blue_margins(model: dict, most: int, float_exact: bool = False, number=Fraction) -> tuple[list, list] | None:
    """g(n) = logit(blue) - logit(red) without the output bias, after blue, n fillers, key, is, for
    n = 0..most (exact, or in floats with `number=float`: a quick look before the exact pass); and
    every state and logit computed on the way (2-d, written out: this runs for every model a
    drawer tries). With `float_exact`, None as soon as a value is not `_float_exact`."""
    ids = model["vocabulary"]
    E = [[number(float(v)) for v in r] for r in model["embeddings"]]
    W_x, W_h, W_y = ([[number(float(v)) for v in r] for r in model[k]] for k in ("W_x", "W_h", "W_y"))
    b_h, zero = [number(float(v)) for v in np.ravel(model["b_h"])], number(0)

    def step(x, h):
        return [max(zero, x[0] * W_x[0][j] + x[1] * W_x[1][j] + h[0] * W_h[0][j] + h[1] * W_h[1][j] + b_h[j]) for j in (0, 1)]

    h, margins, seen = step(E[ids["blue"]], [zero, zero]), [], []
    for _ in range(most + 1):
        middle = step(E[ids["key"]], h)
        final = step(E[ids["is"]], middle)
        z = [final[0] * W_y[0][j] + final[1] * W_y[1][j] for j in (0, 1)]
        margins.append(z[1] - z[0])
        seen += [*h, *middle, *final, *z]
        if float_exact and not all(map(_float_exact, [margins[-1], *h, *middle, *final, *z])):
            return None
        h = step(E[ids["filler"]], h)
    return margins, seen


def _float_exact(value: Fraction) -> bool:
    """True when float64 holds `value`, and any sum of a few such terms, exactly."""
    return value.denominator <= 2**40 and abs(value) < 2**8


def _tied_at(model: dict, rng: random.Random, lowest: int, highest: int) -> dict | None:
    """The model with its output bias set so that its answer to exercise 11.7.1 is a count drawn from
    lowest..highest and, as in the book, falls on an exact tie of the two logits (so the tie rule
    decides it); None when no count there can be, or when float64 would not hold every value on the
    way exactly (they must be dyadic rationals, so that the student's floats see the same tie)."""
    least = Fraction(1, 2**20)  # a margin no rounding can blur
    rough, _ = _blue_margins(model, highest + 1, number=float)
    if not any(all(rough[m] - rough[n] >= least / 2 for m in range(n)) for n in range(lowest, highest + 1)):
        return None  # no record count even in floats (far inside the margin): the exact pass would find none
    found = _blue_margins(model, highest + 1, float_exact=True)
    if found is None:
        return None
    margins, _ = found
    records = [n for n in range(lowest, highest + 1) if all(margins[m] - margins[n] >= least for m in range(n))]
    if not records:
        return None
    target = rng.choice(records)
    blue_bias = Fraction(rng.randint(-4, 4), 8)
    model["b_y"] = np.array([float(blue_bias + margins[target]), float(blue_bias)])
    return model


def flip_model(rng: random.Random) -> dict:
    """A random model whose answer to exercise 11.7.1 is between 2 and 10, on an exact tie."""
    while (model := _tied_at(random_model(rng), rng, 2, 10)) is None:
        pass
    return model


def late_flip_model(rng: random.Random, lowest: int = 90, highest: int = 100) -> dict:
    """A random model whose answer to exercise 11.7.1 lies near the end of the search (`lowest` to
    `highest`, 90 to 100 fillers by default), on an exact tie: red gains the same small dyadic amount
    on every filler (W_h keeps both coordinates and passes a share of the clue's to red; b_h and the
    filler add more), and `is` pushes the clue's coordinate below zero, so that ReLU and b_h matter.
    W_x is not symmetric (it passes a share of the clue to red), so `W_x @ x` reads other inputs."""
    while True:
        model = random_model(rng)
        ids, clue = model["vocabulary"], rng.randint(4, 8) / 8
        for token, row in (("blue", [0, clue]), ("filler", [rng.randint(0, 2) / 64, 0]), ("key", [0, 0]), ("is", [0, -2 * clue])):
            model["embeddings"][ids[token]] = row
        model.update(W_x=np.array([[1, 0], [rng.randint(1, 4) / 64, 1]]), W_h=np.array([[1, 0], [rng.randint(1, 4) / 64, 1]]),
                     b_h=np.array([rng.randint(1, 2) / 64, 0]), W_y=np.eye(2))
        if (tied := _tied_at(model, rng, lowest, highest)) is not None:
            return tied


def _draw_min_fillers(rng: random.Random) -> Case:
    """Three draws in ten flip late (near the search's end), the others after 2 to 10 fillers."""
    return Case((late_flip_model(rng) if rng.random() < 0.3 else flip_model(rng),))


def _draw_exercise_11_7_1(rng: random.Random) -> Case:
    """Exercise 11.7.1 asked of a random model whose answer is 2 to 10 fillers, on an exact tie (the
    book's is 1), so the count, the state and the logits all differ from the book's."""
    while ref.min_fillers_to_flip(model := flip_model(rng)) is None:  # never so by construction: an answer exists
        pass
    return Case((model,))


def _draw_exercise_11_7_2(rng: random.Random) -> Case:
    """Exercise 11.7.2 asked of a random model (its `long_blue`: the clue, six fillers, `key is`): a
    non-symmetric W_h, whose off-diagonal entries stay, and entries of both signs in 1/8 and 1/16
    steps, so that float64 holds every value of the nine reads exactly (denominators at most 2^33,
    magnitudes below 2^9); the choice goes either way."""
    return Case((random_model(rng),))


# ----------------------------------------------------------------------------- public cases
def _floats(values) -> list[float]:
    return [float(v) for v in values]


def _public_relu():
    return [Case((np.array([-1.0, 0.5]),), label={"en": "section 11.2: ReLU of [-1, 0.5]", "zh": "11.2节：[-1, 0.5] 经过ReLU"}),
            Case((np.array([0.25, 0.0]),), label={"en": "Table 11.2, read 3: [0.25, 0] stays", "zh": "表11.2，第3次读取：[0.25, 0] 保持不变"}),
            # the hidden cases have up to six entries
            Case((np.array([-1.0, 0.5, 0.0, -0.25, 2.0, -3.0]),), label={"en": "section 11.2: ReLU of six entries [-1, 0.5, 0, -0.25, 2, -3]", "zh": "11.2节：六个元素 [-1, 0.5, 0, -0.25, 2, -3] 经过ReLU"})]


def _public_softmax():
    return [Case((np.array([0.375, 0.0]),), label={"en": "Example 11.1: z_3 = [0.375, 0]", "zh": "例11.1：z_3 = [0.375, 0]"}),
            Case((np.array([1.125, 0.0]),), label={"en": "Table 11.3, read 1: [1.125, 0]", "zh": "表11.3，第1次读取：[1.125, 0]"}),
            Case((np.array([1000.0, 999.0]),), label={"en": "large logits [1000, 999] (numerical stability)", "zh": "很大的 logits [1000, 999]（数值稳定性）"}),
            Case((np.array([800.0, 0.0, -5.0]),), label={"en": "three logits far apart [800, 0, -5] (numerical stability)", "zh": "三个相距很远的 logits [800, 0, -5]（数值稳定性）"}),
            # the hidden cases have up to six candidates
            Case((np.array([0.375, 0.0, 1.125, 0.125, 0.25, -1.0]),), label={"en": "six logits [0.375, 0, 1.125, 0.125, 0.25, -1] (the logits of Tables 11.3 and Example 11.2, and one more)",
                                                                              "zh": "六个 logits [0.375, 0, 1.125, 0.125, 0.25, -1]（表11.3和例11.2中的logits，再加一个）"})]


def _public_choose():
    m = book_model()
    red_short = _floats(ref.softmax(np.array([0.375, 0.0])))
    blue_short = _floats(ref.softmax(np.array([0.125, 0.25])))
    return [Case((red_short, m["candidates"]), label={"en": "Example 11.1: [0.592667, 0.407333]", "zh": "例11.1：[0.592667, 0.407333]"}),
            Case((blue_short, m["candidates"]), label={"en": "Example 11.2: [0.468791, 0.531209]", "zh": "例11.2：[0.468791, 0.531209]"}),
            Case(([0.5, 0.5], m["candidates"]), label={"en": "exercise 11.7.1: a tie [0.5, 0.5]", "zh": "习题11.7.1：平局 [0.5, 0.5]"}),
            # the hidden cases have up to five candidates; here the tie leaves out the first
            Case(([0.1, 0.3, 0.3, 0.2, 0.1], ["red", "blue", "green", "black", "white"]),
                 label={"en": "five candidates red, blue, green, black, white with [0.1, 0.3, 0.3, 0.2, 0.1]: a tie of blue and green",
                        "zh": "五个候选 red、blue、green、black、white，概率 [0.1, 0.3, 0.3, 0.2, 0.1]：blue与green平局"})]


def _public_rnn_step():
    m = book_model()
    x = {t: m["embeddings"][i] for t, i in m["vocabulary"].items()}
    weights = (m["W_x"], m["W_h"], m["b_h"])
    return [Case((x["red"], np.zeros(2), *weights), label={"en": "Table 11.2, read 1: red from [0, 0]", "zh": "表11.2，第1次读取：从 [0, 0] 出发读入red"}),
            Case((x["key"], np.array([1.0, 0.0]), *weights), label={"en": "Table 11.2, read 2: key from [1, 0]", "zh": "表11.2，第2次读取：从 [1, 0] 出发读入key"}),
            Case((x["is"], np.array([0.5, 0.0]), *weights), label={"en": "Table 11.2, read 3: is from [0.5, 0]", "zh": "表11.2，第3次读取：从 [0.5, 0] 出发读入is"}),
            Case((np.array([-1.0, 0.0]), np.array([0.5, 1.0]), *weights), label={"en": "section 11.2: a negative input is cut by ReLU", "zh": "11.2节：负的输入被ReLU截成零"}),
            # the book's b_h is zero, so it cannot show the bias missing
            Case((x["key"], np.array([1.0, 0.0]), m["W_x"], m["W_h"], np.array([0.25, -0.5])),
                 label={"en": "Table 11.2, read 2, with b_h = [0.25, -0.5] instead of the book's zero bias", "zh": "表11.2，第2次读取，改用 b_h = [0.25, -0.5]，代替书中为零的偏置"}),
            # the book's W_h is diagonal (symmetric), so it cannot tell h_prev @ W_h from W_h @ h_prev
            Case((x["key"], np.array([1.0, 0.0]), m["W_x"], np.array([[0.5, 0.25], [0.0, 0.5]]), m["b_h"]),
                 label={"en": "Table 11.2, read 2, with a non-symmetric W_h = [[0.5, 0.25], [0, 0.5]] instead of the book's", "zh": "表11.2，第2次读取，改用不对称的 W_h = [[0.5, 0.25], [0, 0.5]]，代替书中的矩阵"}),
            # the book's W_x is the identity, so it cannot tell x @ W_x from W_x @ x either
            Case((x["red"], np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]), m["W_h"], m["b_h"]),
                 label={"en": "Table 11.2, read 1, with a non-symmetric W_x = [[1, 0.5], [0, 1]] instead of the book's identity", "zh": "表11.2，第1次读取，改用不对称的 W_x = [[1, 0.5], [0, 1]]，代替书中的单位矩阵"})]


def _public_output_logits():
    m = book_model()
    return [Case((np.array(h), m["W_y"], m["b_y"]), label={"en": f"Table 11.3, read {t}: h = {h}", "zh": f"表11.3，第{t}次读取：h = {h}"})
            for t, h in ((1, [1.0, 0.0]), (2, [0.5, 0.0]), (3, [0.25, 0.0]))]


def _public_run_rnn():
    m = book_model()
    labels = {"short_red": {"en": "Table 11.3: red key is", "zh": "表11.3：red key is"}, "short_blue": {"en": "Example 11.2: blue key is", "zh": "例11.2：blue key is"},
              "long_red": {"en": "Table 11.4: red, six fillers, key is", "zh": "表11.4：red，六个filler，再接 key is"}, "long_blue": {"en": "Table 11.4: blue, six fillers, key is", "zh": "表11.4：blue，六个filler，再接 key is"}}
    ids = m["vocabulary"]
    longest = [ids["red"], *[ids["filler"]] * (LONGEST - 3), ids["key"], ids["is"]]
    return [*(Case((m["inputs"][name], m), label=label) for name, label in labels.items()),
            Case(([ids["red"]], m), label={"en": "Table 11.2, read 1 alone: the one-token input red", "zh": "表11.2，只有第1次读取：只含一个token的输入red"}),
            Case((longest, m), label={"en": f"Table 11.4 stretched: red, {LONGEST - 3} fillers, key is ({LONGEST} tokens, the longest input graded)",
                                      "zh": f"加长的表11.4：red，{LONGEST - 3}个filler，再接 key is（{LONGEST}个token，评分时最长的输入）"})]


def _public_window():
    m = book_model()
    # The book's window adds the two embeddings (its W repeats [1, 0], [0, 1]) and its inputs end in
    # `key is` (two zero rows), so no book case shows the order of the two embeddings: the last case
    # halves the rows of the earlier token and ends in two different colours.
    ids = m["vocabulary"]
    older_halved = {"W": np.array([[0.5, 0.0], [0.0, 0.5], [1.0, 0.0], [0.0, 1.0]]), "b": m["window_baseline"]["b"].copy()}
    return [Case((m["inputs"]["short_blue"], m), label={"en": "section 11.3: blue key is", "zh": "11.3节：blue key is"}),
            Case((m["inputs"]["long_red"], m), label={"en": "Table 11.4: the long red input", "zh": "表11.4：较长的红色输入"}),
            Case((m["inputs"]["long_blue"], m), label={"en": "Table 11.4: the long blue input", "zh": "表11.4：较长的蓝色输入"}),
            Case(([ids["filler"], ids["red"], ids["blue"]], {**m, "window_baseline": older_halved}),
                 label={"en": "filler red blue, with a window W whose earlier-token rows are halved ([0.5, 0], [0, 0.5], [1, 0], [0, 1]) instead of the book's", "zh": "filler red blue，窗口矩阵W中较早token的两行减半（[0.5, 0], [0, 0.5], [1, 0], [0, 1]），代替书中的矩阵"}),
            # the book's window has b = 0 and non-negative weights, so its ReLU never cuts anything
            Case((m["inputs"]["short_blue"], {**m, "window_baseline": {"W": m["window_baseline"]["W"].copy(), "b": np.array([-0.5, 0.25])}}),
                 label={"en": "section 11.3: blue key is, with the window's b = [-0.5, 0.25] instead of the book's zero bias", "zh": "11.3节：blue key is，窗口的偏置改用 b = [-0.5, 0.25]，代替书中为零的偏置"}),
            Case(([ids["key"], ids["is"]], m), label={"en": "section 11.3: the two-token input key is", "zh": "11.3节：只含两个token的输入 key is"}),
            Case(([ids["blue"], *[ids["filler"]] * (LONGEST - 3), ids["key"], ids["is"]], m),
                 label={"en": f"Table 11.4 stretched: blue, {LONGEST - 3} fillers, key is ({LONGEST} tokens, the longest input graded)",
                        "zh": f"加长的表11.4：blue，{LONGEST - 3}个filler，再接 key is（{LONGEST}个token，评分时最长的输入）"})]


def _drifting(red_bias: int) -> dict:
    """The book's model with W_h = I (the blue clue stays 1) and a filler embedding [1/128, 0] (red gains
    1/128 per filler): with b_y = [red_bias/128, 0] the logits tie after 128 - red_bias fillers (after
    100, the last count searched, for red_bias = 28)."""
    return _book(W_h=np.eye(2), embeddings=[[1, 0], [0, 1], [1 / 128, 0], [0, 0], [0, 0]], b_y=[red_bias / 128, 0])


def _public_min_fillers():
    # a tie after 100 fillers, the last count searched; one step short, the tie would come after 101
    # fillers, past the search, so None
    drifting, short = _drifting(28), _drifting(27)
    return [Case((book_model(),), label={"en": "exercise 11.7.1: the book's model", "zh": "习题11.7.1：书中的模型"}),
            Case((_book(b_y=[0.5, 0.0]),), label={"en": "the book's model with the red bias raised to 1/2: red wins with no filler at all", "zh": "书中的模型，红色偏置提高到1/2：一个filler都不插入，红色就胜出"}),
            Case((_book(b_y=[0.0625, 0.0]),), label={"en": "the book's model with the red bias halved to 1/16", "zh": "书中的模型，红色偏置减半为1/16"}),
            Case((drifting,), label={"en": "W_h = I, a filler embedding [1/128, 0], b_y = [28/128, 0]: a tie after 100 fillers", "zh": "W_h = I，filler的嵌入为 [1/128, 0]，b_y = [28/128, 0]：插入100个filler之后出现平局"}),
            Case((short,), label={"en": "W_h = I, a filler embedding [1/128, 0], b_y = [27/128, 0]: no flip within 100 fillers (None)", "zh": "W_h = I，filler的嵌入为 [1/128, 0]，b_y = [27/128, 0]：插入不超过100个filler都不会翻转（None）"}),
            Case((_book(W_h=np.array([[0.5, 0.0], [0.0, 1.0]])),), label={"en": "the book's model with W_h = [[1/2, 0], [0, 1]]: it never flips (None)", "zh": "书中的模型，但 W_h = [[1/2, 0], [0, 1]]：永远不会翻转（None）"})]


def _public_exercise_11_7_1():
    """Exercise 11.7.1 asked of the book's model (checked against 11.8's answer, never shown) and of two
    other models, whose answers are of other sizes (no filler; the last count searched), so that the
    self-check asks what the grade asks: the count for the model given."""
    return [Case((book_model(),), label={"en": "exercise 11.7.1: the book's model", "zh": "习题11.7.1：书中的模型"}),
            Case((_book(b_y=[0.5, 0.0]),), label={"en": "exercise 11.7.1 asked of the book's model with the red bias raised to 1/2", "zh": "习题11.7.1，对书中的模型提问，但红色偏置提高到1/2"}),
            Case((_drifting(28),), label={"en": "exercise 11.7.1 asked of a model with W_h = I, a filler embedding [1/128, 0] and b_y = [28/128, 0]",
                                          "zh": "习题11.7.1，对另一个模型提问：W_h = I，filler的嵌入为 [1/128, 0]，b_y = [28/128, 0]"})]


#: Exercise 11.7.2's other public model: W_x and W_h not symmetric (W_h with an off-diagonal entry to
#: keep; `W_x @ x`, `W_h @ h` and both transposed each read another state) and an output head that
#: swaps the coordinates, so that the larger state coordinate is not the chosen candidate.
OTHER_11_7_2 = {"W_x": [[1.0, 0.0], [0.5, 1.0]], "W_h": [[0.5, 0.0], [0.25, 0.5]], "W_y": [[0.0, 1.0], [1.0, 0.0]]}


def _public_exercise_11_7_2():
    """Exercise 11.7.2 asked of the book's model (checked against 11.8's answer, never shown) and of
    another model (`OTHER_11_7_2`)."""
    return [Case((book_model(),), label={"en": "exercise 11.7.2: the book's model", "zh": "习题11.7.2：书中的模型"}),
            Case((_book(**OTHER_11_7_2),), label={"en": "exercise 11.7.2 asked of the book's model with W_x = [[1, 0], [1/2, 1]], W_h = [[1/2, 0], [1/4, 1/2]] and W_y = [[0, 1], [1, 0]]",
                                                  "zh": "习题11.7.2，对书中的模型提问，但改用 W_x = [[1, 0], [1/2, 1]]、W_h = [[1/2, 0], [1/4, 1/2]] 和 W_y = [[0, 1], [1, 0]]"})]


# ----------------------------------------------------------------------------- hidden draws
def _draw_relu(rng: random.Random) -> Case:
    v = draws.matrix(rng, 0, rng.randint(1, 6))
    v[rng.randrange(len(v))] = -rng.randint(1, 8) / 8
    return Case((v,))


def _draw_softmax(rng: random.Random) -> Case:
    z = draws.matrix(rng, 0, rng.randint(2, 6), scale=rng.choice([1, 2, 4]))
    if rng.random() < 0.3:
        z = z + rng.choice([-1, 1]) * rng.randint(700, 1000)  # exp of these overflows without the shift
    return Case((z,))


def _draw_choose(rng: random.Random) -> Case:
    size = rng.randint(2, 5)
    names = rng.sample(NAMES, size)
    weights = [rng.randint(1, 9) for _ in range(size)]
    tied = rng.sample(range(size), rng.randint(2, size))
    top = max(weights) + rng.randint(0, 2)
    for i in tied:
        weights[i] = top
    total = sum(weights)
    probs = [w / total for w in weights]  # equal weights give bit-identical probabilities
    return Case((np.array(probs) if rng.random() < 0.5 else probs, names))


def _draw_rnn_step(rng: random.Random) -> Case:
    return Case((draws.matrix(rng, 0, 2), draws.matrix(rng, 0, 2, scale=2), draws.matrix(rng, 2, 2), _nonsymmetric(rng, largest=8),
                 draws.matrix(rng, 0, 2, scale=0.5)))


def _draw_output_logits(rng: random.Random) -> Case:
    return Case((draws.matrix(rng, 0, 2, scale=2), draws.matrix(rng, 2, 2), _nonzero(rng)))


def _draw_run_rnn(rng: random.Random) -> Case:
    model = random_model(rng)
    return Case((_tokens(rng, model, 2), model))  # one read cannot tell a carried state from a refetched clue


def _draw_window(rng: random.Random) -> Case:
    model = random_model(rng)
    return Case((_tokens(rng, model, 3), model))  # with two tokens the first two are the last two


# ----------------------------------------------------------------------------- branches
# Each check's contract, branch by branch and extreme by extreme (`Branch`): every attempt has a case of
# each, a public case or else a hidden draw of the branch's own drawer (its first hidden cases). A
# branch on which some catalogued mistake is right by construction (a one-token run cannot show a
# refetched clue, a two-token window reads its first two tokens, a strict flip shows no tie rule)
# has no drawer: a public case shows it.
def _floats_of(values) -> list[float]:
    return [float(v) for v in np.ravel(np.asarray(values, dtype=float))]


def _relu_branch_draw(kind: str):
    def draw(rng: random.Random) -> Case:
        if kind == "all_negative":
            return Case((np.array([-rng.randint(1, 16) / 8 for _ in range(rng.randint(2, 6))]),))
        if kind == "single":
            return Case((np.array([-rng.randint(1, 16) / 8]),))
        v = _draw_relu(rng).args[0]  # a zero entry beside a negative one
        while len(v) < 2:
            v = _draw_relu(rng).args[0]
        v[(int(np.argmin(v)) + rng.randint(1, len(v) - 1)) % len(v)] = 0.0
        return Case((v,))
    return draw


RELU_BRANCHES = (
    Branch("negative_entry", lambda case, _: min(_floats_of(case.args[0])) < 0, _relu_branch_draw("zero"),
           en="a negative entry, cut to zero", zh="有负数项，被截成零"),
    Branch("zero_entry", lambda case, _: 0.0 in _floats_of(case.args[0]), _relu_branch_draw("zero"),
           en="an entry exactly 0, which stays 0", zh="有恰好为0的项，它保持为0"),
    Branch("all_negative", lambda case, _: max(_floats_of(case.args[0])) < 0, _relu_branch_draw("all_negative"),
           en="every entry negative: all cut to zero", zh="每一项都是负数：全部截成零"),
    Branch("single_entry", lambda case, _: len(_floats_of(case.args[0])) == 1, _relu_branch_draw("single"),
           en="a vector of one entry", zh="只有一个元素的向量"),
)


#: exp overflows above this (float64), and underflows to 0 below its negative
_EXP_LIMIT = 709.8


def _softmax_branch_draw(kind: str):
    def draw(rng: random.Random) -> Case:
        size = rng.randint(3 if kind == "more_than_two" else 2, 6)
        if kind == "all_equal":  # 0: softmax without exp would divide 0 by 0
            return Case((np.zeros(size),))
        z = draws.matrix(rng, 0, size, scale=rng.choice([1, 2, 4]))
        if kind in ("large_negative", "large_positive"):
            return Case((z + (1 if kind == "large_positive" else -1) * rng.randint(800, 1000),))
        z[rng.randrange(size)] = rng.randint(750, 1000)  # far above the others: a shift by the smallest overflows
        return Case((z,))
    return draw


def _spread(case) -> float:
    z = _floats_of(case.args[0])
    return max(z) - min(z)


SOFTMAX_BRANCHES = (
    Branch("far_apart", lambda case, _: _spread(case) > _EXP_LIMIT, _softmax_branch_draw("far_apart"),
           en="logits so far apart that exp of their distance overflows", zh="logits相距极远，它们之差的exp会溢出"),
    Branch("large_positive", lambda case, _: min(_floats_of(case.args[0])) > _EXP_LIMIT, _softmax_branch_draw("large_positive"),
           en="every logit large and positive: exp of each overflows", zh="每个logit都是很大的正数：各自的exp都会溢出"),
    Branch("large_negative", lambda case, _: max(_floats_of(case.args[0])) < -_EXP_LIMIT - 40, _softmax_branch_draw("large_negative"),
           en="every logit large and negative: exp of each underflows to 0", zh="每个logit都是绝对值很大的负数：各自的exp都会下溢为0"),
    Branch("all_equal", lambda case, _: len(set(_floats_of(case.args[0]))) == 1, _softmax_branch_draw("all_equal"),
           en="all logits equal: a uniform distribution", zh="所有logit相等：均匀分布"),
    Branch("more_than_two", lambda case, _: len(_floats_of(case.args[0])) > 2, _softmax_branch_draw("more_than_two"),
           en="more than two candidates", zh="多于两个候选"),
)


def _choose_branch_draw(kind: str):
    def draw(rng: random.Random) -> Case:
        size = rng.randint(3, 5)
        names = rng.sample(NAMES, size)
        weights = [rng.randint(1, 6) for _ in range(size)]
        top = 7 + rng.randint(0, 2)
        tied = rng.sample(range(1, size), 2) if kind == "tie_not_first" else rng.sample(range(size), rng.randint(3, size))
        for i in tied:
            weights[i] = top
        total = sum(weights)
        probs = [w / total for w in weights]  # equal weights give bit-identical probabilities
        return Case((np.array(probs) if rng.random() < 0.5 else probs, names))
    return draw


def _tops(case) -> list[int]:
    probs = [Fraction(float(p)) for p in case.args[0]]
    return [i for i, p in enumerate(probs) if p == max(probs)]


CHOOSE_BRANCHES = (
    Branch("tie_at_top", lambda case, _: len(_tops(case)) >= 2, _choose_branch_draw("three_way_tie"),
           en="an exact tie at the top", zh="最高概率恰好相等（平局）"),
    Branch("later_wins", lambda case, _: _tops(case)[0] > 0, _choose_branch_draw("tie_not_first"),
           en="a candidate after the first wins", zh="排在第一个之后的候选胜出"),
    Branch("tie_not_first", lambda case, _: len(_tops(case)) >= 2 and _tops(case)[0] > 0, _choose_branch_draw("tie_not_first"),
           en="a tie at the top that leaves out the first candidate", zh="并列最高的候选里没有第一个候选"),
    Branch("three_way_tie", lambda case, _: len(_tops(case)) >= 3, _choose_branch_draw("three_way_tie"),
           en="three or more candidates tied at the top", zh="三个或更多候选并列最高"),
)


def _pre_activation(case) -> np.ndarray:
    x, h, W_x, W_h, b_h = (np.asarray(a, dtype=float) for a in case.args)
    return x @ W_x + h @ W_h + b_h


def _draw_rnn_step_all_cut(rng: random.Random) -> Case:
    """Every pre-activation below zero (the new state is [0, 0]), and some above it without the bias."""
    while True:
        x, h, W_x, W_h, _ = _draw_rnn_step(rng).args
        pre = x @ W_x + h @ W_h
        if pre.max() > 0:
            return Case((x, h, W_x, W_h, -np.maximum(pre, 0) - np.array([rng.randint(1, 4) / 8 for _ in range(2)])))


RNN_STEP_BRANCHES = (
    Branch("first_read", lambda case, _: not any(_floats_of(case.args[1])), None,  # W_h @ 0 = 0 @ W_h
           en="the first read, from h_0 = [0, 0]", zh="第一次读取，从 h_0 = [0, 0] 出发"),
    Branch("relu_cuts", lambda case, _: _pre_activation(case).min() < 0, _draw_rnn_step,
           en="a negative pre-activation, cut by ReLU", zh="有负的预激活值，被ReLU截掉"),
    Branch("all_cut", lambda case, _: _pre_activation(case).max() <= 0, _draw_rnn_step_all_cut,
           en="every pre-activation at most 0: the new state is [0, 0]", zh="所有预激活值都不大于0：新状态为 [0, 0]"),
    Branch("bias", lambda case, _: any(_floats_of(case.args[4])), _draw_rnn_step,
           en="a non-zero bias b_h", zh="非零的偏置b_h"),
    Branch("nonsymmetric_W_h", lambda case, _: not np.array_equal(np.asarray(case.args[3]), np.asarray(case.args[3]).T), _draw_rnn_step,
           en="a non-symmetric W_h (h_prev @ W_h differs from W_h @ h_prev)", zh="不对称的W_h（h_prev @ W_h 与 W_h @ h_prev 不同）"),
    Branch("nonsymmetric_W_x", lambda case, _: not np.array_equal(np.asarray(case.args[2]), np.asarray(case.args[2]).T), _draw_rnn_step,
           en="a non-symmetric W_x (x @ W_x differs from W_x @ x)", zh="不对称的W_x（x @ W_x 与 W_x @ x 不同）"),
)


def _output_branch_draw(kind: str):
    def draw(rng: random.Random) -> Case:
        h, W_y, b_y = _draw_output_logits(rng).args
        if kind == "zero_state":
            return Case((np.zeros(2), W_y, b_y))
        if kind == "nonsymmetric":
            return Case((np.abs(h) + 0.125, _nonsymmetric(rng, largest=8), b_y))
        return Case((h, W_y, b_y - 2))  # every logit pushed down: some is negative
    return draw


OUTPUT_LOGITS_BRANCHES = (
    Branch("zero_state", lambda case, _: not any(_floats_of(case.args[0])), _output_branch_draw("zero_state"),
           en="the zero state: the logits are b_y", zh="零状态：logits就是b_y"),
    Branch("negative_logit", lambda case, expected: min(expected) < 0, _output_branch_draw("negative"),
           en="a negative logit", zh="有负的logit"),
    Branch("nonsymmetric_W_y", lambda case, _: not np.array_equal(np.asarray(case.args[1]), np.asarray(case.args[1]).T), _output_branch_draw("nonsymmetric"),
           en="a non-symmetric W_y (h @ W_y differs from W_y @ h)", zh="不对称的W_y（h @ W_y 与 W_y @ h 不同）"),
    Branch("bias", lambda case, _: any(_floats_of(case.args[2])), _draw_output_logits,
           en="a non-zero output bias b_y", zh="非零的输出偏置b_y"),
)


def _cuts_on_the_way(tokens, model) -> bool:
    """True when some read of `tokens` has a negative pre-activation (ReLU cuts it)."""
    h = np.zeros(len(model["b_h"]))
    for token in tokens:
        pre = np.asarray(model["embeddings"][token], dtype=float) @ model["W_x"] + h @ np.asarray(model["W_h"], dtype=float) + model["b_h"]
        if pre.min() < 0:
            return True
        h = np.maximum(pre, 0)
    return False


def _draw_tokens_of_length(length: int):
    def draw(rng: random.Random) -> Case:
        model = random_model(rng)
        return Case((_tokens(rng, model, length, length), model))
    return draw


def _zero_input(case) -> bool:
    tokens, model = case.args
    return any(not np.any(np.asarray(model["embeddings"][token], dtype=float)) for token in tokens)


def _draw_run_rnn_zero_input(rng: random.Random) -> Case:
    """A random model whose filler embedding is zero (as in the book), read among the tokens."""
    tokens, model = _draw_run_rnn(rng).args
    filler = model["vocabulary"]["filler"]
    model["embeddings"][filler] = 0.0
    tokens[rng.randrange(1, len(tokens))] = filler
    return Case((tokens, model))


RUN_RNN_BRANCHES = (
    Branch("length_one", lambda case, _: len(case.args[0]) == 1, None,
           en="a one-token input", zh="只含一个token的输入"),
    Branch("longest", lambda case, _: len(case.args[0]) == LONGEST, _draw_tokens_of_length(LONGEST),
           en=f"the longest input graded ({LONGEST} tokens)", zh=f"评分时最长的输入（{LONGEST}个token）"),
    Branch("zero_input", lambda case, _: _zero_input(case), _draw_run_rnn_zero_input,
           en="a read of a token whose embedding is zero (filler, key, is)", zh="读入嵌入为零的token（filler、key、is）"),
    Branch("relu_cuts", lambda case, _: _cuts_on_the_way(*case.args), _draw_run_rnn,
           en="a read whose pre-activation is negative, cut by ReLU", zh="某次读取的预激活值为负，被ReLU截掉"),
)


def _window_pre_activation(case) -> np.ndarray:
    tokens, model = case.args
    x = np.concatenate([np.asarray(model["embeddings"][tokens[-2]], dtype=float), np.asarray(model["embeddings"][tokens[-1]], dtype=float)])
    return x @ np.asarray(model["window_baseline"]["W"], dtype=float) + np.asarray(model["window_baseline"]["b"], dtype=float)


WINDOW_BRANCHES = (
    Branch("two_tokens", lambda case, _: len(case.args[0]) == 2, None,
           en="exactly two tokens: the whole input is the window", zh="恰好两个token：整个输入就是窗口"),
    Branch("three_tokens", lambda case, _: len(case.args[0]) == 3, _draw_tokens_of_length(3),
           en="three tokens: the first token falls outside the window", zh="三个token：第一个token落在窗口之外"),
    Branch("longest", lambda case, _: len(case.args[0]) == LONGEST, _draw_tokens_of_length(LONGEST),
           en=f"the longest input graded ({LONGEST} tokens)", zh=f"评分时最长的输入（{LONGEST}个token）"),
    Branch("relu_cuts", lambda case, _: _window_pre_activation(case).min() < 0, _draw_window,
           en="a negative pre-activation in the window's hidden layer, cut by ReLU", zh="窗口隐藏层有负的预激活值，被ReLU截掉"),
)


def _flips_on_a_tie(model: dict, fillers: int) -> bool:
    """True when the logits after `fillers` fillers are exactly level (the tie rule decides)."""
    margins, _ = _blue_margins(model, fillers)
    bias = _exact(model["b_y"])
    return margins[fillers] == bias[0] - bias[1]


def _never_flips(rng: random.Random) -> dict:
    """A model of `late_flip_model` that would tie after 100 fillers (red gains on every filler, so the
    margin is smallest there) with red's bias lowered a little: no count up to the bound flips, None."""
    model = late_flip_model(rng, ref.MAX_FILLERS, ref.MAX_FILLERS)
    model["b_y"] = model["b_y"] - np.array([rng.randint(1, 8) / 64, 0.0])
    return model


def _min_fillers_draw(kind: str):
    def draw(rng: random.Random) -> Case:
        if kind == "zero":
            while (model := _tied_at(random_model(rng), rng, 0, 0)) is None:
                pass
        elif kind == "bound":
            model = late_flip_model(rng, ref.MAX_FILLERS, ref.MAX_FILLERS)
        elif kind == "none":
            model = _never_flips(rng)
        else:
            model = flip_model(rng)
        return Case((model,))
    return draw


MIN_FILLERS_BRANCHES = (
    Branch("zero", lambda case, expected: expected == 0, None,  # one filler more flips too: a count one short is right
           en="the first candidate wins with no filler at all (0)", zh="一个filler都不插入，第一个候选就胜出（0）"),
    Branch("bound", lambda case, expected: expected == ref.MAX_FILLERS, _min_fillers_draw("bound"),
           en=f"the flip comes at the last count searched ({ref.MAX_FILLERS})", zh=f"翻转恰好发生在搜索的最后一个计数（{ref.MAX_FILLERS}）"),
    Branch("none", lambda case, expected: expected is None, _min_fillers_draw("none"),
           en=f"no count up to {ref.MAX_FILLERS} flips (None)", zh=f"不超过{ref.MAX_FILLERS}的计数都不翻转（None）"),
    Branch("tie", lambda case, expected: expected is not None and _flips_on_a_tie(case.args[0], expected), _min_fillers_draw("tie"),
           en="the flip comes on an exact tie of the logits (the tie rule decides)", zh="翻转发生在logits恰好相等之时（由平局规则决定）"),
    Branch("strict", lambda case, expected: expected is not None and not _flips_on_a_tie(case.args[0], expected), None,
           en="the flip comes with the first candidate strictly ahead", zh="翻转时第一个候选严格领先"),
)


def _logits_level(expected) -> bool:
    return expected["logits"][0] == expected["logits"][1]


EX_11_7_1_BRANCHES = (
    Branch("zero", lambda case, expected: expected["min_fillers"] == 0, _min_fillers_draw("zero"),
           en="the first candidate wins with no filler at all (0)", zh="一个filler都不插入，第一个候选就胜出（0）"),
    Branch("bound", lambda case, expected: expected["min_fillers"] == ref.MAX_FILLERS, _min_fillers_draw("bound"),
           en=f"the flip comes at the last count searched ({ref.MAX_FILLERS})", zh=f"翻转恰好发生在搜索的最后一个计数（{ref.MAX_FILLERS}）"),
    Branch("tie", lambda case, expected: _logits_level(expected), _min_fillers_draw("tie"),
           en="the flip comes on an exact tie of the logits", zh="翻转发生在logits恰好相等之时"),
    Branch("strict", lambda case, expected: not _logits_level(expected), None,
           en="the flip comes with the first candidate strictly ahead", zh="翻转时第一个候选严格领先"),
)


def _long_blue_exact(model: dict) -> tuple[list[Fraction], list[Fraction]]:
    """Exercise 11.7.2's final state and its logits without the output bias, in Fractions (the model's
    W_h with both diagonal entries set to 1)."""
    E = [[Fraction(float(v)) for v in r] for r in np.asarray(model["embeddings"], dtype=float)]
    W_x, W_h, W_y = ([[Fraction(float(v)) for v in r] for r in np.asarray(model[k], dtype=float)] for k in ("W_x", "W_h", "W_y"))
    W_h[0][0] = W_h[1][1] = Fraction(1)
    b_h = _exact(model["b_h"])
    h = [Fraction(0)] * 2
    for token in model["inputs"]["long_blue"]:
        h = [max(Fraction(0), sum(E[token][i] * W_x[i][j] + h[i] * W_h[i][j] for i in range(2)) + b_h[j]) for j in range(2)]
    return h, [sum(h[i] * W_y[i][j] for i in range(2)) for j in range(2)]


def _ex_11_7_2_first_chosen(tie: bool):
    """A random model whose long blue input ends with the first candidate chosen (on an exact tie of
    the logits with `tie`) while the state's larger coordinate is the second's."""
    def draw(rng: random.Random) -> Case:
        while True:
            model = random_model(rng)
            h, z = _long_blue_exact(model)
            red = z[1] - z[0] + (0 if tie else Fraction(rng.randint(1, 8), 8)) + Fraction(float(model["b_y"][1]))
            if h[1] > h[0] and _float_exact(red):
                model["b_y"] = np.array([float(red), model["b_y"][1]])
                return Case((model,))
    return draw


def _state_disagrees(expected, case) -> bool:
    h = list(expected["final_h"])
    return case.args[0]["candidates"][h.index(max(h))] != expected["choice"]


EX_11_7_2_BRANCHES = (
    Branch("second_chosen", lambda case, expected: expected["choice"] == case.args[0]["candidates"][1], _draw_exercise_11_7_2,
           en="the second candidate (blue) chosen", zh="选中第二个候选（blue）"),
    Branch("first_chosen", lambda case, expected: expected["choice"] == case.args[0]["candidates"][0], _ex_11_7_2_first_chosen(False),
           en="the first candidate (red) chosen", zh="选中第一个候选（red）"),
    Branch("tie", lambda case, expected: _logits_level(expected), _ex_11_7_2_first_chosen(True),
           en="the final logits exactly level: the tie rule chooses", zh="最终logits恰好相等：由平局规则选择"),
    Branch("off_diagonal", lambda case, _: bool(np.asarray(case.args[0]["W_h"], dtype=float)[[0, 1], [1, 0]].any()), _draw_exercise_11_7_2,
           en="a W_h with non-zero off-diagonal entries, which stay", zh="W_h有非零的非对角元素，它们保持不变"),
    Branch("state_disagrees", lambda case, expected: _state_disagrees(expected, case), _draw_exercise_11_7_2,
           en="the larger state coordinate is not the chosen candidate's", zh="状态中较大的坐标并不对应被选中的候选"),
)


CHECKS = [
    Check("relu", ref.relu, _public_relu, draw=_draw_relu, points=1, branches=RELU_BRANCHES),
    Check("softmax", ref.softmax, _public_softmax, draw=_draw_softmax, points=1, branches=SOFTMAX_BRANCHES),
    Check("choose", ref.choose, _public_choose, draw=_draw_choose, points=1, branches=CHOOSE_BRANCHES),
    Check("rnn_step", ref.rnn_step, _public_rnn_step, draw=_draw_rnn_step, points=2, branches=RNN_STEP_BRANCHES),
    Check("output_logits", ref.output_logits, _public_output_logits, draw=_draw_output_logits, points=1, branches=OUTPUT_LOGITS_BRANCHES),
    Check("run_rnn", ref.run_rnn, _public_run_rnn, draw=_draw_run_rnn, call="after_warm_up", points=3, branches=RUN_RNN_BRANCHES),
    Check("window_logits", ref.window_logits, _public_window, draw=_draw_window, points=2, branches=WINDOW_BRANCHES),
    # reveal=False: the book's case is the answer of exercise 11.7.1, which the self-check must not show
    Check("min_fillers_to_flip", ref.min_fillers_to_flip, _public_min_fillers, draw=_draw_min_fillers, reveal=False, points=2, branches=MIN_FILLERS_BRANCHES),
    # exercises 11.7.1 and 11.7.2 asked of the book's model and of other ones (reveal=False: the
    # self-check does not show 11.8's answer), graded on random models
    Check("ex_11_7_1", ref.ex_11_7_1, _public_exercise_11_7_1, draw=_draw_exercise_11_7_1, reveal=False, points=1, branches=EX_11_7_1_BRANCHES),
    Check("ex_11_7_2", ref.ex_11_7_2, _public_exercise_11_7_2, draw=_draw_exercise_11_7_2, reveal=False, points=1, branches=EX_11_7_2_BRANCHES),
    Check("ex_11_7_3", ref.ex_11_7_3, lambda: [Case(label={"en": "exercise 11.7.3", "zh": "习题11.7.3"})], reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("ex_11_7_4", ref.ex_11_7_4, lambda: [Case(label={"en": "exercise 11.7.4", "zh": "习题11.7.4"})], reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("ex_11_7_5", ref.ex_11_7_5, lambda: [Case(label={"en": "exercise 11.7.5", "zh": "习题11.7.5"})], reveal=False, points=0),  # a self-check: the points are its written answer's
]


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).with_name("notebook.md"))
choose, output_logits, relu, rnn_step, softmax = _solution.choose, _solution.output_logits, _solution.relu, _solution.rnn_step, _solution.softmax


# ----------------------------------------------------------------------------- catalogued mistakes
# Each is the solution function as a student gets it wrong, named by its id, with what the
# student should rethink (never the answer) in both languages.
# A mistake is named where it reproduces at least two wrong answers of a check (or its only one), a
# mistake of a function the check calls only when the student's version of that function fails its
# own public cases; on a tie the check's own mistakes come first, in the order below.


def _flip_one_transition_late(model):
    """The first filler count n whose sequence, read with one transition too many after the clue
    (n + 3 tokens taken as n + 3 updates), makes red win, with that state and its logits; or None."""
    ids = model["vocabulary"]
    for fillers in range(101):
        tokens = [ids["blue"]] + [ids["filler"]] * (fillers + 1) + [ids["key"], ids["is"]]
        h = np.zeros(len(model["b_h"]))
        for token in tokens:
            h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        if choose(logits, model["candidates"]) == model["candidates"][0]:
            return fillers, h, logits
    return None


@mistake("min_fillers_to_flip",
         en="The count is off by one: you let the clue go through one update too many. Count the state transitions after the clue (fillers plus key and is), not all the tokens of the input (exercise 11.7.1).",
         zh="计数多了一：你让线索多经过了一次更新。数清线索之后的状态转换次数（filler加上key和is），不要把输入的全部token都算进去（习题11.7.1）。")
def tokens_counted_as_transitions(model):
    found = _flip_one_transition_late(model)
    return None if found is None else found[0]


@mistake("relu",
         en="Negative entries came through unchanged. ReLU keeps the positive entries and cuts every negative entry to zero (section 11.2: ReLU of [-1, 0.5]); check where your state update applies it.",
         zh="负数项原样通过了。ReLU保留正数项，把每个负数项截成零（11.2节：[-1, 0.5] 经过ReLU）；检查你的状态更新在哪里应用ReLU。")
def relu_missing(v):
    return np.asarray(v, dtype=float)


@mistake("softmax",
         en="The scores were divided by their sum without exponentiating them first. Softmax takes exp of every logit, then divides by the sum of those exponentials (Example 11.1), so every probability is positive.",
         zh="这些logit没有先取指数，就直接除以了它们的和。Softmax先对每个logit取exp，再除以这些指数值之和（例11.1），所以每个概率都是正数。")
def softmax_without_exp(z):
    z = np.asarray(z, dtype=float)
    return z / np.sum(z)


@mistake("choose",
         en="On an exact tie your choice went to a later candidate. The book's tie rule gives a tie to the candidate listed first in `candidates`: only a strictly higher probability should replace the current best.",
         zh="遇到恰好相等的平局时，你选了排在后面的候选。书中的平局规则把平局判给`candidates`中排在前面的候选：只有严格更高的概率才能取代当前的最佳候选。")
def tie_to_last(probs, candidates):
    best = 0
    for i in range(1, len(candidates)):
        if probs[i] >= probs[best]:
            best = i
    return candidates[best]


@mistake("choose",
         en="You returned a position, not a candidate. `choose` returns the entry of `candidates` itself (for example the string \"red\").",
         zh="你返回的是位置，而不是候选。`choose`返回的是`candidates`中的那个元素本身（例如字符串\"red\"）。")
def choice_as_index(probs, candidates):
    return int(np.argmax(probs))


@mistake("rnn_step",
         en="The recurrent term was computed as W_h @ h_prev. The book uses row vectors: the old state multiplies the matrix from the left, h_prev @ W_h (the order matters when W_h is not symmetric).",
         zh="递归项被算成了 W_h @ h_prev。书中使用行向量：旧状态从左边乘矩阵，即 h_prev @ W_h（W_h不对称时，顺序会影响结果）。")
def recurrent_weight_transposed(x, h_prev, W_x, W_h, b_h):
    return relu(x @ W_x + W_h @ h_prev + b_h)


@mistake("rnn_step",
         en="The input term was computed as W_x @ x. The book uses row vectors: the input multiplies the matrix from the left, x_t W_x, as the old state does in h_{t-1} W_h (the order matters when W_x is not symmetric; the book's W_x is the identity, so its tables cannot show it).",
         zh="输入项被算成了 W_x @ x。书中使用行向量：输入从左边乘矩阵，即 x_t W_x，和旧状态的 h_{t-1} W_h 一样（W_x不对称时，顺序会影响结果；书中的W_x是单位矩阵，所以书里的表格看不出这一点）。")
def input_weight_transposed(x, h_prev, W_x, W_h, b_h):
    return relu(W_x @ x + h_prev @ W_h + b_h)


@mistake("rnn_step",
         en="Both matrices were applied to column vectors (W_x @ x and W_h @ h_prev), the habit of texts that write states as columns. This chapter writes vectors as rows: h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h), each vector multiplying its matrix from the left (Table 11.2's update in matrix form).",
         zh="两个矩阵都按列向量的习惯来乘（W_x @ x 和 W_h @ h_prev），这是把状态写成列向量的教材的写法。本章把向量写成行：h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h)，每个向量都从左边乘它的矩阵（表11.2那次更新的矩阵形式）。")
def column_vector_convention(x, h_prev, W_x, W_h, b_h):
    return relu(W_x @ x + W_h @ h_prev + b_h)


@mistake("rnn_step",
         en="The state update leaves out the bias b_h. Each step adds it inside the ReLU, h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h); the book's b_h is zero, so only other weights show it missing.",
         zh="状态更新里漏掉了偏置b_h。每一步都要在ReLU里面把它加上：h_t = ReLU(x_t W_x + h_{t-1} W_h + b_h)；书中的b_h是零，所以只有换一组权重才看得出它被漏掉了。")
def state_bias_forgotten(x, h_prev, W_x, W_h, b_h):
    return relu(x @ W_x + h_prev @ W_h)


@mistake("output_logits",
         en="The output bias b_y is missing from the logits. It is the red advantage of section 11.2 that a blue clue has to beat; add it after multiplying by W_y.",
         zh="logits里缺少输出偏置b_y。它就是11.2节中红色的那个小优势，蓝色线索必须超过它；乘以W_y之后再加上它。")
def output_bias_forgotten(h, W_y, b_y):
    return h @ W_y


@mistake("run_rnn",
         en="The state of one call leaked into the next: this call did not start from h_0 = 0. Each independent test starts from a zero state (section 11.4); keep no memory between calls (look for a mutable default argument or a global).",
         zh="上一次调用的状态泄漏到了下一次：这次调用没有从 h_0 = 0 开始。每个独立测试都从零状态开始（11.4节）；不要在调用之间保留任何记忆（检查是否用了可变的默认参数或全局变量）。")
def state_carried_between_calls(token_ids, model, memory={}):  # noqa: B006  (the mistake itself)
    h = memory.get("h", np.zeros(len(model["b_h"])))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
    memory["h"] = h
    return steps


@mistake("run_rnn",
         en="After the first read, the old state was replaced by the first token's embedding. Each read must combine the current input with the state the previous read produced (Table 11.2: read 3 halves [0.5, 0], it does not go back to red's embedding).",
         zh="第一次读取之后，旧状态被换成了第一个token的嵌入。每次读取都必须把当前输入与上一次读取产生的状态结合起来（表11.2：第3次读取把 [0.5, 0] 减半，并没有回头重新取出red的嵌入）。")
def first_embedding_refetched(token_ids, model):
    first = model["embeddings"][token_ids[0]]
    h = np.zeros(len(model["b_h"]))
    steps = []
    for t, token in enumerate(token_ids):
        old = h if t == 0 else first  # goes back to the clue's embedding instead of the carried state
        h = rnn_step(model["embeddings"][token], old, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
    return steps


@mistake("run_rnn",
         en="The probabilities were computed from the hidden state. Softmax belongs to the logits z_t = h_t W_y + b_y, one score per candidate; hidden coordinates are not candidate scores (section 11.2).",
         zh="概率是从隐藏状态算出来的。Softmax应当作用于 logits z_t = h_t W_y + b_y，每个候选一个得分；隐藏坐标不是候选的得分（11.2节）。")
def softmax_over_hidden_state(token_ids, model):
    h = np.zeros(len(model["b_h"]))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(h)})
    return steps


@mistake("run_rnn",
         en="Each candidate was normalised across the reads. At every step the probabilities are shared among the candidates: softmax over that step's logits, so each step's probabilities sum to one.",
         zh="每个候选都跨各次读取做了归一化。每一步的概率是在各候选之间分配的：对该步的logits做softmax，使每一步的概率之和为一。")
def softmax_over_steps(token_ids, model):
    h = np.zeros(len(model["b_h"]))
    states, logits = [], []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        states.append(h)
        logits.append(output_logits(h, model["W_y"], model["b_y"]))
    by_candidate = [softmax(column) for column in np.array(logits).T]  # each candidate over the reads
    probs = np.array(by_candidate).T
    return [{"h": s, "logits": z, "probs": p} for s, z, p in zip(states, logits, probs)]


@mistake("window_logits",
         en="The window read the wrong tokens. The two-token baseline of section 11.3 sees only the LAST two tokens of the input, which is exactly why it cannot see the colour clue.",
         zh="窗口读错了token。11.3节的两词基线只看输入的最后两个token（不是开头两个），这正是它看不到颜色线索的原因。")
def window_reads_first_two(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[0]], model["embeddings"][token_ids[1]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])


@mistake("window_logits",
         en="The two embeddings were concatenated in the wrong order. The earlier of the last two tokens comes first, then the last token; with a general window matrix the order changes the result.",
         zh="两个嵌入的拼接顺序反了。最后两个token中较早的那个在前，最后一个token在后；对一般的窗口矩阵，顺序会改变结果。")
def window_order_swapped(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[-1]], model["embeddings"][token_ids[-2]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])


@mistake("window_logits",
         en="The window's hidden layer let negative values through. Section 11.3's window applies ReLU after adding its b and before the output head: a negative entry there is cut to zero, as in the RNN's update.",
         zh="窗口的隐藏层让负值通过了。11.3节的窗口在加上它的b之后、送入输出头之前要经过ReLU：那里的负数项要截成零，和RNN的更新一样。")
def window_without_relu(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[-2]], model["embeddings"][token_ids[-1]]])
    return output_logits(x @ window["W"] + window["b"], model["W_y"], model["b_y"])


@mistake("ex_11_7_1",
         en="The count is one short of the sequence you ran: the state and logits you report come from one filler more than the count says. With n fillers the clue goes through n + 2 updates (the fillers, key and is), not one per token of the input; count the state transitions after the clue (exercise 11.7.1).",
         zh="计数比你实际运行的序列少了一：你报告的状态和logits来自比这个计数多一个filler的序列。有n个filler时，线索之后经过 n + 2 次更新（各个filler，再加上key和is），而不是输入中每个token各一次；要数线索之后的状态转换次数（习题11.7.1）。")
def every_token_counted_as_a_halving(model):
    # each token taken as an update of the clue: the state read is that of one filler more, so the
    # count reported is one short of the sequence that flips
    found = _flip_one_transition_late(model)
    return None if found is None else {"min_fillers": found[0], "final_h": found[1], "logits": found[2]}


@mistake("ex_11_7_2",
         en="Only the diagonal entries of W_h were to become 1; the off-diagonal entries keep their values (0 in the book's model, so that the two colour coordinates still do not mix) (exercise 11.7.2).",
         zh="只有W_h的对角元素要改成1；非对角元素保持原值（书中的模型里为0，这样两个颜色坐标仍然互不混合；习题11.7.2）。")
def every_recurrent_entry_set_to_one(model):
    W_h = np.ones_like(model["W_h"])
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], W_h, model["b_h"])
    logits = output_logits(h, model["W_y"], model["b_y"])
    return {"final_h": h, "logits": logits, "choice": model["candidates"][int(np.argmax(logits))]}


@mistake("ex_11_7_2",
         en="The choice was read from the hidden state. The model chooses by its logits z = h W_y + b_y, one score per candidate (softmax keeps their order); the state's coordinates are not candidate scores, and with another W_y or b_y the larger coordinate need not win (exercise 11.7.2).",
         zh="选择是从隐藏状态读出来的。模型按 logits z = h W_y + b_y 做选择，每个候选一个得分（softmax不改变它们的大小顺序）；状态的坐标不是候选的得分，换一个W_y或b_y，较大的坐标不一定胜出（习题11.7.2）。")
def choice_read_from_the_state(model):
    W_h = np.array(model["W_h"], dtype=float)
    np.fill_diagonal(W_h, 1.0)
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], W_h, model["b_h"])
    return {"final_h": h, "logits": output_logits(h, model["W_y"], model["b_y"]), "choice": model["candidates"][int(np.argmax(h))]}


@mistake("ex_11_7_3",
         en="A hidden state that changes from read to read is no evidence that parameters changed: with fixed weights the activations change at every read. Rethink what would prove an update (exercise 11.7.3).",
         zh="隐藏状态随每次读取而变化，并不能证明参数变了：权重固定时，激活值本来就会在每次读取时变化。重新想一想，什么证据才能证明参数确实更新过（习题11.7.3）。")
def changing_state_taken_as_learning():
    return {"A", "C", "E"}


@mistake("ex_11_7_3",
         en="Rethink what a reset before every read removes: the old state's contribution. Follow Table 11.2 with the state set to [0, 0] before each read and see what the last read gives.",
         zh="重新想一想，每次读取前都重置状态会移除什么：旧状态的贡献。按表11.2再算一遍，但每次读取前把状态设为 [0, 0]，看看最后一次读取得到什么。")
def reset_thought_harmless():
    return {"B", "C", "D"}


@mistake("ex_11_7_4",
         en="Two right answers do not tell you how they were produced. Rethink which controlled observation would show the mechanism, a parameter change, or the document that was supplied (exercise 11.7.4).",
         zh="两个正确答案不能告诉你它们是怎样得出的。重新想一想，怎样的受控观察才能揭示其中的机制、参数的变化，或实际提供了哪份文档（习题11.7.4）。")
def right_answers_taken_as_proof():
    return {"A", "D", "E"}


@mistake("ex_11_7_5",
         en="A hidden vector is the result of a numerical computation, not an approval event. Rethink which record the application must consult before it acts (exercise 11.7.5).",
         zh="隐藏向量是数值计算的结果，不是审批事件。重新想一想，应用在执行操作之前必须查阅哪份记录（习题11.7.5）。")
def hidden_vector_as_authority():
    return {"A", "D"}
