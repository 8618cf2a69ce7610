"""The checks of ch11_rnn_state: the book's cases of Tables 11.2-11.4, Examples 11.1-11.2, section 11.3
and exercise 11.7, and hidden cases on seeded random models (exercises 11.7.1 and 11.7.2 too: asked
of the book's model in the self-check, of random models at grading).

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
from ...grading.spec import Case, Check
from . import reference as ref

TOKENS = ("red", "blue", "filler", "key", "is", "door", "lamp")
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


def _tokens(rng: random.Random, model: dict, shortest: int, longest: int = 12) -> list[int]:
    return [rng.randrange(len(model["embeddings"])) for _ in range(rng.randint(shortest, longest))]


def _exact(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in np.ravel(values)]


def _blue_margins(model: dict, most: int) -> tuple[list[Fraction], list[Fraction]]:
    """g(n) = logit(blue) - logit(red) without the output bias, after blue, n fillers, key, is, for
    n = 0..most (exact); and every state and logit computed on the way."""
    ids = model["vocabulary"]
    E = [[Fraction(float(v)) for v in r] for r in model["embeddings"]]
    W_x, W_h, W_y = ([[Fraction(float(v)) for v in r] for r in model[k]] for k in ("W_x", "W_h", "W_y"))
    b_h = _exact(model["b_h"])

    def step(x, h):
        return [max(Fraction(0), sum(x[i] * W_x[i][j] for i in range(2)) + sum(h[i] * W_h[i][j] for i in range(2)) + b_h[j]) for j in range(2)]

    h, margins, seen = step(E[ids["blue"]], [Fraction(0)] * 2), [], []
    for _ in range(most + 1):
        middle = step(E[ids["key"]], h)
        final = step(E[ids["is"]], middle)
        z = [sum(final[i] * W_y[i][j] for i in range(2)) for j in range(2)]
        margins.append(z[1] - z[0])
        seen += [*h, *middle, *final, *z]
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
    margins, seen = _blue_margins(model, highest + 1)
    if not all(_float_exact(value) for value in margins + seen):
        return None
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


def late_flip_model(rng: random.Random) -> dict:
    """A random model whose answer to exercise 11.7.1 lies near the end of the search (90 to 100
    fillers), on an exact tie: red gains the same small dyadic amount on every filler (W_h keeps both
    coordinates and passes a share of the clue's to red; b_h and the filler add more), and `is`
    pushes the clue's coordinate below zero, so that ReLU and b_h matter."""
    while True:
        model = random_model(rng)
        ids, clue = model["vocabulary"], rng.randint(4, 8) / 8
        for token, row in (("blue", [0, clue]), ("filler", [rng.randint(0, 2) / 64, 0]), ("key", [0, 0]), ("is", [0, -2 * clue])):
            model["embeddings"][ids[token]] = row
        model.update(W_x=np.eye(2), W_h=np.array([[1, 0], [rng.randint(1, 4) / 64, 1]]), b_h=np.array([rng.randint(1, 2) / 64, 0]),
                     W_y=np.eye(2))
        if (tied := _tied_at(model, rng, 90, 100)) is not None:
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
            Case((np.array([0.25, 0.0]),), label={"en": "Table 11.2, read 3: [0.25, 0] stays", "zh": "表11.2，第3次读取：[0.25, 0] 保持不变"})]


def _public_softmax():
    return [Case((np.array([0.375, 0.0]),), label={"en": "Example 11.1: z_3 = [0.375, 0]", "zh": "例11.1：z_3 = [0.375, 0]"}),
            Case((np.array([1.125, 0.0]),), label={"en": "Table 11.3, read 1: [1.125, 0]", "zh": "表11.3，第1次读取：[1.125, 0]"}),
            Case((np.array([1000.0, 999.0]),), label={"en": "large logits [1000, 999] (numerical stability)", "zh": "很大的 logits [1000, 999]（数值稳定性）"})]


def _public_choose():
    m = book_model()
    red_short = _floats(ref.softmax(np.array([0.375, 0.0])))
    blue_short = _floats(ref.softmax(np.array([0.125, 0.25])))
    return [Case((red_short, m["candidates"]), label={"en": "Example 11.1: [0.592667, 0.407333]", "zh": "例11.1：[0.592667, 0.407333]"}),
            Case((blue_short, m["candidates"]), label={"en": "Example 11.2: [0.468791, 0.531209]", "zh": "例11.2：[0.468791, 0.531209]"}),
            Case(([0.5, 0.5], m["candidates"]), label={"en": "exercise 11.7.1: a tie [0.5, 0.5]", "zh": "习题11.7.1：平局 [0.5, 0.5]"})]


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
                 label={"en": "Table 11.2, read 2, with a non-symmetric W_h = [[0.5, 0.25], [0, 0.5]] instead of the book's", "zh": "表11.2，第2次读取，改用不对称的 W_h = [[0.5, 0.25], [0, 0.5]]，代替书中的矩阵"})]


def _public_output_logits():
    m = book_model()
    return [Case((np.array(h), m["W_y"], m["b_y"]), label={"en": f"Table 11.3, read {t}: h = {h}", "zh": f"表11.3，第{t}次读取：h = {h}"})
            for t, h in ((1, [1.0, 0.0]), (2, [0.5, 0.0]), (3, [0.25, 0.0]))]


def _public_run_rnn():
    m = book_model()
    labels = {"short_red": {"en": "Table 11.3: red key is", "zh": "表11.3：red key is"}, "short_blue": {"en": "Example 11.2: blue key is", "zh": "例11.2：blue key is"},
              "long_red": {"en": "Table 11.4: red, six fillers, key is", "zh": "表11.4：red，六个filler，再接 key is"}, "long_blue": {"en": "Table 11.4: blue, six fillers, key is", "zh": "表11.4：blue，六个filler，再接 key is"}}
    return [Case((m["inputs"][name], m), label=label) for name, label in labels.items()]


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
                 label={"en": "filler red blue, with a window W whose earlier-token rows are halved ([0.5, 0], [0, 0.5], [1, 0], [0, 1]) instead of the book's", "zh": "filler red blue，窗口矩阵W中较早token的两行减半（[0.5, 0], [0, 0.5], [1, 0], [0, 1]），代替书中的矩阵"})]


def _public_min_fillers():
    # W_h = I and a filler embedding [1/128, 0]: red gains 1/128 per filler, so that b_y = [28/128, 0]
    # ties after 100 fillers, the last count searched
    drifting = _book(W_h=np.eye(2), embeddings=[[1, 0], [0, 1], [1 / 128, 0], [0, 0], [0, 0]], b_y=[28 / 128, 0])
    # the same drift one step short: the tie would come after 101 fillers, past the search, so None
    short = _book(W_h=np.eye(2), embeddings=[[1, 0], [0, 1], [1 / 128, 0], [0, 0], [0, 0]], b_y=[27 / 128, 0])
    return [Case((book_model(),), label={"en": "exercise 11.7.1: the book's model", "zh": "习题11.7.1：书中的模型"}),
            Case((_book(b_y=[0.0625, 0.0]),), label={"en": "the book's model with the red bias halved to 1/16", "zh": "书中的模型，红色偏置减半为1/16"}),
            Case((drifting,), label={"en": "W_h = I, a filler embedding [1/128, 0], b_y = [28/128, 0]: a tie after 100 fillers", "zh": "W_h = I，filler的嵌入为 [1/128, 0]，b_y = [28/128, 0]：插入100个filler之后出现平局"}),
            Case((short,), label={"en": "W_h = I, a filler embedding [1/128, 0], b_y = [27/128, 0]: no flip within 100 fillers (None)", "zh": "W_h = I，filler的嵌入为 [1/128, 0]，b_y = [27/128, 0]：插入不超过100个filler都不会翻转（None）"}),
            Case((_book(W_h=np.array([[0.5, 0.0], [0.0, 1.0]])),), label={"en": "the book's model with W_h = [[1/2, 0], [0, 1]]: it never flips (None)", "zh": "书中的模型，但 W_h = [[1/2, 0], [0, 1]]：永远不会翻转（None）"})]


def _public_exercise(number: str):
    """The exercise asked of the book's model (checked against 11.8's answer; the hidden cases ask it
    of other models)."""
    return lambda: [Case((book_model(),), label={"en": f"exercise {number}: the book's model", "zh": f"习题{number}：书中的模型"})]


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


CHECKS = [
    Check("relu", ref.relu, _public_relu, draw=_draw_relu, points=1),
    Check("softmax", ref.softmax, _public_softmax, draw=_draw_softmax, points=1),
    Check("choose", ref.choose, _public_choose, draw=_draw_choose, points=1),
    Check("rnn_step", ref.rnn_step, _public_rnn_step, draw=_draw_rnn_step, points=2),
    Check("output_logits", ref.output_logits, _public_output_logits, draw=_draw_output_logits, points=1),
    Check("run_rnn", ref.run_rnn, _public_run_rnn, draw=_draw_run_rnn, call="after_warm_up", points=3),
    Check("window_logits", ref.window_logits, _public_window, draw=_draw_window, points=2),
    # reveal=False: the book's case is the answer of exercise 11.7.1, which the self-check must not show
    Check("min_fillers_to_flip", ref.min_fillers_to_flip, _public_min_fillers, draw=_draw_min_fillers, reveal=False, points=2),
    # exercises 11.7.1 and 11.7.2 asked of the book's model (reveal=False: the self-check does not show
    # 11.8's answer), graded on other models
    Check("ex_11_7_1", ref.ex_11_7_1, _public_exercise("11.7.1"), draw=_draw_exercise_11_7_1, reveal=False, points=1),
    Check("ex_11_7_2", ref.ex_11_7_2, _public_exercise("11.7.2"), draw=_draw_exercise_11_7_2, reveal=False, points=1),
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
