"""`masked_rnn_forward`: a padded batch, each row's state frozen after its last valid step (the third
text: two sentences padded to 5 tokens, take H_3 and not H_5; the survey text: a forgotten mask
pollutes the final state)."""

from __future__ import annotations

import random

import numpy as np

from rnnkit.helpers import TanhStep

from ....vocabulary import draws, probes
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import (
    arg,
    nonzero_h0,
    random_dims,
    random_h0,
    random_lengths,
    random_step,
    seeded,
    size,
    solution,
    third_text_step,
    widths_differ,
)


def public():
    rng = random.Random(2024)
    big_rng, big = seeded(1205)
    square_rng, square = seeded(1213, 2, 3)
    return [
        Case(
            (
                third_text_step(),
                np.array([[[1.0], [0.0], [-1.0]], [[1.0], [0.0], [5.0]]]),
                np.array([3, 2]),
                np.zeros(1),
            ),
            label={
                "en": "third text's tanh RNN; row 2 has 2 valid steps, then padding",
                "zh": "第三份教材的 tanh RNN；第2行有2个有效步，之后是填充",
            },
        ),
        Case(
            (TanhStep.seeded(2024, 4, 3), draws.uniform(rng, (2, 5, 4)), np.array([5, 3]), np.zeros(3)),
            label={
                "en": "third text's shapes (2, 5, 4) -> (2, 5, 3); the second sentence has 3 valid tokens",
                "zh": "第三份教材的形状 (2, 5, 4) -> (2, 5, 3)；第二句话有3个有效token",
            },
        ),
        # the rows above come longest first; here the shorter row comes first and must stay first
        Case(
            (
                third_text_step(),
                np.array([[[1.0], [0.0], [5.0]], [[1.0], [0.0], [-1.0]]]),
                np.array([2, 3]),
                np.zeros(1),
            ),
            label={
                "en": "third text's tanh RNN; the padded row first (lengths 2, 3)",
                "zh": "第三份教材的 tanh RNN；含填充的行排在前面（长度为2和3）",
            },
        ),
        Case(
            (
                third_text_step(),
                np.array([[[1.0], [0.0], [-1.0]], [[5.0], [5.0], [5.0]]]),
                np.array([3, 0]),
                np.full(1, 0.5),
            ),
            label={
                "en": "third text's tanh RNN from h0 = 0.5; row 2 is all padding (length 0)",
                "zh": "第三份教材的 tanh RNN，从 h0 = 0.5 出发；第2行全是填充（长度为0）",
            },
        ),
        Case(
            (third_text_step(), np.array([[[1.0], [0.0], [-1.0], [0.0], [0.0]]]), np.array([3]), np.zeros(1)),
            label={
                "en": "a batch of one row (B = 1): the third text's sentence, 3 valid steps of 5",
                "zh": "只有一行的批量（B = 1）：第三份教材的句子，有3个有效步，共5步",
            },
        ),
        Case(
            (
                third_text_step(),
                np.array([[[1.0], [0.0], [-1.0]], [[-1.0], [0.0], [1.0]]]),
                np.array([3, 3]),
                np.zeros(1),
            ),
            label={"en": "no padding: both rows have all 3 steps valid", "zh": "没有填充：两行的3步全部有效"},
        ),
        # B = d: the final states returned by coordinate instead of by row differ
        Case(
            (square, draws.uniform(square_rng, (3, 4, 2), -1.5, 1.5), np.array([4, 2, 3]), random_h0(square_rng, 3)),
            label={
                "en": "B = 3 rows of a state of d = 3 coordinates (D = 2), lengths 4, 2, 3, h0 not zero: "
                "one final state a row",
                "zh": "B = 3 行，状态有 d = 3 个坐标（D = 2），长度为4、2、3，h0不为零：每行一个最终状态",
            },
        ),
        Case(
            (big, draws.uniform(big_rng, (4, 12, 3), -1.5, 1.5), np.array([5, 12, 9, 12]), random_h0(big_rng, 3)),
            label={
                "en": "the largest size drawn: B = 4, T = 12, D = d = 3, lengths 5, 12, 9, 12, h0 not zero",
                "zh": "抽取范围内最大的规模：B = 4，T = 12，D = d = 3，长度为5、12、9、12，h0不为零",
            },
        ),
    ]


def draw(rng: random.Random, dims=random_dims, lengths=random_lengths) -> Case:
    D, d = dims(rng)
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    return Case(
        (random_step(rng, D, d), draws.uniform(rng, (B, T, D), -1.5, 1.5), lengths(rng, B, T), random_h0(rng, d))
    )


def _with_length(length):
    """`random_lengths` with one row (not the first, so that sorting moves it) of length `length(T)`."""

    def lengths(rng: random.Random, B: int, T: int) -> np.ndarray:
        drawn = [rng.randint(1, T) for _ in range(B)]
        drawn[rng.randrange(1, B)] = length(T)
        return np.array(drawn)

    return lengths


def _lengths_of(case: Case) -> list[int]:
    return [int(n) for n in np.asarray(case.args[2]).reshape(-1)]


BRANCHES = (
    Branch(
        "all_padding_row",
        lambda case, expected: 0 in _lengths_of(case),
        en="a row that is all padding (length 0)",
        zh="全是填充的一行（长度为0）",
    ),
    Branch(
        "full_row",
        lambda case, expected: np.shape(case.args[1])[1] in _lengths_of(case),
        en="a row without padding",
        zh="没有填充的一行",
    ),
    Branch(
        "no_padding",
        lambda case, expected: min(_lengths_of(case)) == np.shape(case.args[1])[1],
        en="no padding at all",
        zh="完全没有填充",
    ),
    Branch(
        "length_one_row",
        lambda case, expected: 1 in _lengths_of(case) and np.shape(case.args[1])[1] > 1,
        lambda rng: draw(rng, lengths=_with_length(lambda T: 1)),
        en="a row with one valid step, then padding",
        zh="只有一个有效步、之后全是填充的一行",
    ),
    Branch(
        "gap_only_at_end",
        lambda case, expected: np.shape(case.args[1])[1] - 1 in _lengths_of(case),
        lambda rng: draw(rng, lengths=_with_length(lambda T: T - 1)),
        en="a row whose only padding is its last step",
        zh="只有最后一步是填充的一行",
    ),
    Branch(
        "padded_row_first",
        lambda case, expected: any(a < b for a, b in zip(_lengths_of(case), _lengths_of(case)[1:])),
        en="a shorter row before a longer one",
        zh="较短的行排在较长的行之前",
    ),
    Branch(
        "batch_of_one",
        lambda case, expected: len(_lengths_of(case)) == 1,
        en="a batch of one row (B = 1)",
        zh="只有一行的批量（B = 1）",
    ),
    nonzero_h0(3),
    Branch(
        "input_width_differs",
        arg(0, widths_differ),
        en="the input width D differs from the state width d",
        zh="输入宽度 D 与状态宽度 d 不同",
    ),
    Branch(
        "largest",
        lambda case, expected: np.shape(case.args[1]) == (4, 12, 3) and size(case.args[0]) == (3, 3),
        en="the largest size drawn: B = 4, T = 12, D = d = 3",
        zh="抽取范围内最大的规模：B = 4，T = 12，D = d = 3",
    ),
)


def _masked_after(case: Case, t: int) -> Case:
    step, X, lengths, h0 = case.args
    X = np.array(X, dtype=float)
    X[:, t:] = probes.replacement_values(X[:, t:].shape, 100 * t)
    return Case((step, X, lengths, h0))


def _masked_row(case: Case, r: int) -> Case:
    step, X, lengths, h0 = case.args
    X = np.array(X, dtype=float)
    X[r] = probes.replacement_values(X[r].shape, 1000 + r)
    return Case((step, X, lengths, h0))


def _masked_junk(case: Case):
    step, X, lengths, h0 = case.args
    padded = np.arange(np.shape(X)[1])[None, :] >= np.asarray(lengths)[:, None]
    for name, kind in probes.JUNK:
        X2 = np.array(X, dtype=float)
        X2[padded] = probes.junk(X2[padded].shape, kind, seed=7)
        yield name, Case((step, X2, lengths, h0))


_MASKED_STATES = lambda out: probes.batch_view()(out[0])  # noqa: E731


PROBES = (
    probes.same_result(
        probes.batch_view(final=True),
        _masked_junk,
        message={
            "en": (
                "Padding rule broken: {variant} in the padded positions of X changed {where}. "
                "Padded positions must not reach any state - note that 0 * nan is nan, and inf - inf too."
            ),
            "zh": (
                "违反填充规则：X的填充位置中的{variant}改变了{where}。"
                "填充位置不能影响任何状态——注意 0 * nan 和 inf - inf 的结果都是nan。"
            ),
        },
    ),
    probes.rows_independent(probes.batch_view(final=True), lambda c: len(c.args[1]), _masked_row),
    probes.causal(_MASKED_STATES, lambda c: np.shape(c.args[1])[1], _masked_after),
)


CHECK = Check(
    "masked_rnn_forward",
    ref.masked_rnn_forward,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=3,
)


_masked_rnn_forward = solution.masked_rnn_forward


def _unmasked(step, X, h0):
    """States of every row through all T steps, padding included."""
    X = np.asarray(X, dtype=float)
    h = np.tile(np.asarray(h0, dtype=float), (X.shape[0], 1))
    H = []
    for t in range(X.shape[1]):
        h = step(X[:, t], h)
        H.append(h)
    return np.stack(H, axis=1)


@mistake(
    "masked_rnn_forward",
    en=(
        "Padded steps still changed the state after the end of a row. Even a zero padding vector moves a tanh RNN's "
        "state (third text); what should the state do after a row's last valid step?"
    ),
    zh=(
        "某一行结束之后，填充的时间步仍然改变了状态。即使填充向量为零，也会改变 tanh RNN 的状态（第三份教材）；"
        "一行的最后一个有效步之后，状态应当怎样？"
    ),
)
def padding_updates_state(step, X, lengths, h0):
    H = _unmasked(step, X, h0)
    return H, H[np.arange(len(H)), np.asarray(lengths) - 1]


@mistake(
    "masked_rnn_forward",
    en=(
        "The final state was read at the last column of the padded batch, after padding had updated it. "
        "Which step is the last valid one of each row? (third text: take H_3, not H_5)"
    ),
    zh=(
        "最终状态取自填充后批量的最后一列，而填充已经更新过它。每一行的最后一个有效步是哪一步？（第三份教材："
        "取H_3，而不是H_5）"
    ),
)
def final_state_at_padded_end(step, X, lengths, h0):
    H = _unmasked(step, X, h0)
    return H, H[:, -1]


@mistake(
    "masked_rnn_forward",
    en=(
        "After a row ends, its states were set to zero. The contract freezes a finished row: "
        "what should the positions after its last valid step hold?"
    ),
    zh="某一行结束之后，它的状态被设成了零。按接口约定，已经结束的行要冻结：它最后一个有效步之后的位置应当保存什么？",
)
def padded_states_zeroed(step, X, lengths, h0):
    H, final = _masked_rnn_forward(step, X, lengths, h0)
    valid = np.arange(H.shape[1])[None, :] < np.asarray(lengths)[:, None]
    return np.where(valid[:, :, None], H, 0.0), final


@mistake(
    "masked_rnn_forward",
    en=(
        "The rows come back in a different order than they went in (sorted by length, as packing does). "
        "Row b of every result must belong to row b of X."
    ),
    zh="返回的行与输入时的顺序不同（像打包那样按长度排了序）。每个结果的第b行都必须对应X的第b行。",
)
def rows_left_sorted_by_length(step, X, lengths, h0):
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return _masked_rnn_forward(step, np.asarray(X, dtype=float)[order], np.asarray(lengths)[order], h0)
