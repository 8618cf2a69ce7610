"""The checks of ch12_boundaries: state boundaries, truncation, padding and causality.

The `step` callables given to the student functions are the kit's `TanhStep`s: deterministic
tanh-RNN steps with seeded float64 weights, bit-identical on rows and batches - which is what the
probes demand.
"""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
from rnnkit.helpers import TanhStep

from ...grading import draws, probes, template
from ...grading.catalogue import mistake
from ...grading.spec import Branch, Case, Check
from . import reference as ref

def third_text_step(W_h: float = 0.5) -> TanhStep:
    """The third text's scalar tanh RNN: W_x = 1, W_h = 0.5, b = 0 (states 0.7616, 0.3634, -0.6741 for 1, 0, -1)."""
    return TanhStep([[1.0]], [[W_h]], [0.0], name=f"third text: W_x = 1, W_h = {W_h}, b = 0")


def _column(values) -> np.ndarray:
    return np.array(values, dtype=float).reshape(-1, 1)


# ----------------------------------------------------------------------------- draws
# The drawers' bounds (the largest public case of each check has them): D, d <= 3; run_independent up to
# 4 sequences of 12 steps; run_stream up to 4 segments of 6; run_entities up to 5 runs of 4;
# truncated_bptt_scalar T <= 12; a padded batch B <= 4, T <= 12. A branch's drawer stays inside them.

def _step(rng: random.Random, D: int, d: int) -> TanhStep:
    return TanhStep.seeded(rng.randrange(1, 10**6), D, d)


def _dims(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 3), rng.randint(1, 3)


def _unequal_dims(rng: random.Random) -> tuple[int, int]:
    D, d = rng.sample([1, 2, 3], 2)
    return D, d


def _inputs(rng: random.Random, T: int, D: int) -> np.ndarray:
    return draws.uniform(rng, (T, D), -1.5, 1.5)


def _h0(rng: random.Random, d: int) -> np.ndarray:
    return draws.uniform(rng, (d,), -0.6, 0.6)


def _lengths(rng: random.Random, B: int, T: int) -> np.ndarray:
    lengths = [rng.randint(1, T) for _ in range(B)]
    lengths[rng.randrange(B)] = rng.randint(1, T - 1)  # at least one padded row
    return np.array(lengths)


def _draw_independent(rng: random.Random, dims=_dims) -> Case:
    D, d = dims(rng)
    return Case((_step(rng, D, d), [_inputs(rng, rng.randint(1, 12), D) for _ in range(rng.randint(2, 4))], _h0(rng, d)))


def _draw_independent_twice(rng: random.Random) -> Case:
    """The same inputs twice among unrelated sequences: both must give the same states."""
    step, sequences, h0 = _draw_independent(rng).args
    sequences = sequences[:3]
    sequences.insert(rng.randint(1, len(sequences)), np.array(sequences[0], copy=True))
    return Case((step, sequences, h0))


def _draw_stream(rng: random.Random, dims=_dims, longest: int = 6) -> Case:
    D, d = dims(rng)
    return Case((_step(rng, D, d), [_inputs(rng, rng.randint(1, longest), D) for _ in range(rng.randint(2, 4))], _h0(rng, d)))


def _draw_entities(rng: random.Random, dims=_dims) -> Case:
    D, d = dims(rng)
    pool = rng.choice([[0, 1, 2], ["alice", "bob", "carol"], [17, 4], ["sensor-a", "sensor-b"]])
    stream, entity = [], None
    for _ in range(rng.randint(2, 5)):
        entity = rng.choice([e for e in pool if e != entity])
        stream += [(entity, row) for row in _inputs(rng, rng.randint(1, 4), D)]
    return Case((_step(rng, D, d), stream, _h0(rng, d)))


def _draw_truncated(rng: random.Random) -> Case:
    T = rng.randint(2, 12)
    k = rng.randint(1, T - 1)
    steps = set(rng.sample(range(1, T + 1), rng.randint(1, min(3, T)))) | {rng.randint(k + 1, T)}
    targets = {t: draws.rational(rng, -2, 2) for t in sorted(steps)}
    h0 = draws.rational(rng, -1, 1) if rng.random() < 0.5 else 0
    return Case((draws.rationals(rng, T), draws.rational(rng, -1, 1, denominators=(2, 3, 4, 5), nonzero=True), targets, k), {"h0": h0})


def _draw_masked(rng: random.Random, dims=_dims, lengths=_lengths) -> Case:
    D, d = dims(rng)
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    return Case((_step(rng, D, d), draws.uniform(rng, (B, T, D), -1.5, 1.5), lengths(rng, B, T), _h0(rng, d)))


def _with_length(length):
    """`_lengths` with one row (not the first, so that sorting moves it) of length `length(T)`."""
    def lengths(rng: random.Random, B: int, T: int) -> np.ndarray:
        drawn = [rng.randint(1, T) for _ in range(B)]
        drawn[rng.randrange(1, B)] = length(T)
        return np.array(drawn)
    return lengths


def _draw_loss(rng: random.Random, mask=None) -> Case:
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    valid = mask(rng, B, T) if mask else np.arange(T)[None, :] < _lengths(rng, B, T)[:, None]
    return Case((draws.uniform(rng, (B, T), 0.05, 3.0), valid))


def _one_valid(rng: random.Random, B: int, T: int) -> np.ndarray:
    mask = np.zeros((B, T), dtype=bool)
    mask[rng.randrange(B), rng.randrange(T)] = True
    return mask


def _last_padded(rng: random.Random, B: int, T: int) -> np.ndarray:
    mask = np.ones((B, T), dtype=bool)
    mask[rng.randrange(B), T - 1] = False
    return mask


def _draw_generation(rng: random.Random, dims=_dims) -> Case:
    D, d = dims(rng)
    return Case((_step(rng, D, d), _inputs(rng, rng.randint(1, 12), D), _h0(rng, d)))


def _draw_bidirectional(rng: random.Random, dims=_dims) -> Case:
    D, d = dims(rng)
    return Case((_step(rng, D, d), _step(rng, D, d), _inputs(rng, rng.randint(1, 12), D), _h0(rng, d)))


# ----------------------------------------------------------------------------- public (book) cases

def _seeded(seed: int, D: int = 3, d: int = 3) -> tuple[random.Random, TanhStep]:
    return random.Random(seed), TanhStep.seeded(seed, D, d)


def _public_independent():
    rng, step = _seeded(1201)
    return [Case((third_text_step(), [_column([1, 0, -1]), _column([-1])], np.zeros(1)),
                 label={"en": "third text's tanh RNN: (1, 0, -1), then an unrelated sequence (-1)", "zh": "第三份教材的 tanh RNN：先读 (1, 0, -1)，再读一条无关的序列 (-1)"}),
            Case((third_text_step(), [_column([1, 0, -1])], np.zeros(1)),
                 label={"en": "third text's tanh RNN: (1, 0, -1) as the only sequence", "zh": "第三份教材的 tanh RNN：(1, 0, -1) 是唯一的一条序列"}),
            Case((step, [_inputs(rng, 12, 3) for _ in range(4)], _h0(rng, 3)),
                 label={"en": "the largest size drawn: 4 sequences of 12 steps, D = d = 3, h0 not zero", "zh": "抽取范围内最大的规模：4条序列，每条12步，D = d = 3，h0不为零"})]


def _public_stream():
    rng, step = _seeded(1202)
    return [Case((third_text_step(), [_column([1, 0]), _column([-1])], np.zeros(1)),
                 label={"en": "third text's (1, 0, -1) cut into two segments of one stream", "zh": "第三份教材的 (1, 0, -1)，切成同一条输入流的两个片段"}),
            Case((third_text_step(), [_column([1, 0, -1])], np.zeros(1)),
                 label={"en": "third text's (1, 0, -1) as one segment: the whole stream", "zh": "第三份教材的 (1, 0, -1) 作为一个片段：整条输入流"}),
            Case((step, [_inputs(rng, 6, 3) for _ in range(4)], _h0(rng, 3)),
                 label={"en": "the largest size drawn: 4 segments of 6 steps, D = d = 3, h0 not zero", "zh": "抽取范围内最大的规模：4个片段，每段6步，D = d = 3，h0不为零"})]


def _public_entities():
    step = third_text_step()
    rng, big = _seeded(1203)
    ids = [entity for entity in (0, 1, 0, 2, 0) for _ in range(4)]
    return [Case((step, [("a", np.array([1.0])), ("a", np.array([0.0])), ("b", np.array([-1.0]))], np.zeros(1)),
                 label={"en": "third text's inputs; the entity changes before the third", "zh": "第三份教材的输入；读到第三个输入之前实体已经改变"}),
            Case((step, [("a", np.array([1.0])), ("b", np.array([0.0])), ("a", np.array([-1.0]))], np.zeros(1)),
                 label={"en": "third text's inputs; entity a comes back at step 3", "zh": "第三份教材的输入；实体a在第3步再次出现"}),
            Case((step, [("a", np.array([1.0])), ("a", np.array([0.0])), ("a", np.array([-1.0]))], np.zeros(1)),
                 label={"en": "third text's inputs, all of one entity a", "zh": "第三份教材的输入，全部属于同一个实体a"}),
            Case((step, [("a", np.array([1.0]))], np.zeros(1)),
                 label={"en": "a stream of one pair: entity a, input 1", "zh": "只有一对的输入流：实体a，输入1"}),
            Case((big, list(zip(ids, _inputs(rng, 20, 3))), _h0(rng, 3)),
                 label={"en": "the largest size drawn: 5 runs of 4 steps, of entities 0, 1, 0, 2, 0 (the id 0 is falsy), D = d = 3, h0 not zero", "zh": "抽取范围内最大的规模：5段，每段4步，实体依次为0、1、0、2、0（id 0在布尔上下文中为假），D = d = 3，h0不为零"})]


def _public_truncated():
    setup = ref.truncated_setup()
    xs, w, targets = setup["xs"], setup["w"], setup["targets"]
    rng = random.Random(1204)
    big = (draws.rationals(rng, 12), draws.rational(rng, -1, 1, denominators=(2, 3, 4, 5), nonzero=True),
           {t: draws.rational(rng, -2, 2) for t in (3, 7, 11, 12)}, 5)
    return [Case((xs, w, targets, 2), label={"en": "section 12.3 setup: xs = (1, 0, 0, 0), w = 1/2, target 1 at step 4, k = 2", "zh": "12.3节的设定：xs = (1, 0, 0, 0)，w = 1/2，目标1设在第4步，k = 2"}),
            Case((xs, w, targets, 4), label={"en": "the same with k = 4 (full BPTT)", "zh": "同上，但 k = 4（完整BPTT）"}),
            Case(([1, 0, 0], Fraction(1, 2), {3: 1}, 3), label={"en": "Table 12.1 as one segment (k = 3)", "zh": "表12.1作为一个片段（k = 3）"}),
            # targets in both segments: each segment's gradient counts (above, the first segment has none)
            Case(([1, 2, -1], Fraction(1, 2), {1: 0, 2: 0, 3: 0}, 2),
                 label={"en": "second text, example 1 (1, 2, -1), a = 1/2, with a target 0 at every step instead of at step 3 only, k = 2", "zh": "第二份教材例1：输入 (1, 2, -1)，a = 1/2，每一步都有目标0（而不只在第3步），k = 2"}),
            Case((xs, w, targets, 1), label={"en": "section 12.3 setup with k = 1: every step a segment of its own", "zh": "12.3节的设定，但 k = 1：每一步自成一个片段"}),
            Case((xs, w, {2: 1}, 2), label={"en": "section 12.3 setup with the target 1 at step 2, before the boundary, k = 2", "zh": "12.3节的设定，但目标1设在第2步，位于边界之前，k = 2"}),
            Case(big, {"h0": Fraction(1, 3)},
                 label={"en": "the largest size drawn: T = 12, k = 5 (3 segments, the last one shorter), targets at steps 3, 7, 11 and 12, h0 = 1/3", "zh": "抽取范围内最大的规模：T = 12，k = 5（3个片段，最后一个较短），目标在第3、7、11和12步，h0 = 1/3"})]


def _public_masked():
    rng = random.Random(2024)
    big_rng, big = _seeded(1205)
    return [Case((third_text_step(), np.array([[[1.0], [0.0], [-1.0]], [[1.0], [0.0], [5.0]]]), np.array([3, 2]), np.zeros(1)),
                 label={"en": "third text's tanh RNN; row 2 has 2 valid steps, then padding", "zh": "第三份教材的 tanh RNN；第2行有2个有效步，之后是填充"}),
            Case((TanhStep.seeded(2024, 4, 3), draws.uniform(rng, (2, 5, 4)), np.array([5, 3]), np.zeros(3)),
                 label={"en": "third text's shapes (2, 5, 4) -> (2, 5, 3); the second sentence has 3 valid tokens", "zh": "第三份教材的形状 (2, 5, 4) -> (2, 5, 3)；第二句话有3个有效token"}),
            # the rows above come longest first; here the shorter row comes first and must stay first
            Case((third_text_step(), np.array([[[1.0], [0.0], [5.0]], [[1.0], [0.0], [-1.0]]]), np.array([2, 3]), np.zeros(1)),
                 label={"en": "third text's tanh RNN; the padded row first (lengths 2, 3)", "zh": "第三份教材的 tanh RNN；含填充的行排在前面（长度为2和3）"}),
            Case((third_text_step(), np.array([[[1.0], [0.0], [-1.0]], [[5.0], [5.0], [5.0]]]), np.array([3, 0]), np.full(1, 0.5)),
                 label={"en": "third text's tanh RNN from h0 = 0.5; row 2 is all padding (length 0)", "zh": "第三份教材的 tanh RNN，从 h0 = 0.5 出发；第2行全是填充（长度为0）"}),
            Case((third_text_step(), np.array([[[1.0], [0.0], [-1.0], [0.0], [0.0]]]), np.array([3]), np.zeros(1)),
                 label={"en": "a batch of one row (B = 1): the third text's sentence, 3 valid steps of 5", "zh": "只有一行的批量（B = 1）：第三份教材的句子，有3个有效步，共5步"}),
            Case((third_text_step(), np.array([[[1.0], [0.0], [-1.0]], [[-1.0], [0.0], [1.0]]]), np.array([3, 3]), np.zeros(1)),
                 label={"en": "no padding: both rows have all 3 steps valid", "zh": "没有填充：两行的3步全部有效"}),
            Case((big, draws.uniform(big_rng, (4, 12, 3), -1.5, 1.5), np.array([5, 12, 9, 12]), _h0(big_rng, 3)),
                 label={"en": "the largest size drawn: B = 4, T = 12, D = d = 3, lengths 5, 12, 9, 12, h0 not zero", "zh": "抽取范围内最大的规模：B = 4，T = 12，D = d = 3，长度为5、12、9、12，h0不为零"})]


def _public_loss():
    losses = np.array([[0.5, 0.25, 1.0, 0.75, 2.0], [1.5, 0.5, 0.25, 9.0, 9.0]])
    rng = random.Random(1206)
    return [Case((losses, np.arange(5)[None, :] < np.array([5, 3])[:, None]), label={"en": "third text's masked loss: lengths 5 and 3, N_valid = 8", "zh": "第三份教材的掩码损失：长度为5和3，N_valid = 8"}),
            Case((np.array([losses[0], [9.0] * 5, losses[1]]), np.arange(5)[None, :] < np.array([5, 0, 3])[:, None]),
                 label={"en": "third text's losses with an all-padding row between them: lengths 5, 0 and 3, N_valid = 8", "zh": "第三份教材的损失，中间夹着一行全是填充：长度为5、0和3，N_valid = 8"}),
            Case((losses, np.ones((2, 5), dtype=bool)), label={"en": "third text's losses without padding: lengths 5 and 5, N_valid = 10", "zh": "第三份教材的损失，没有填充：长度为5和5，N_valid = 10"}),
            Case((losses[1:], np.arange(5)[None, :] < np.array([3])[:, None]), label={"en": "a batch of one row (B = 1): the third text's second row, length 3, N_valid = 3", "zh": "只有一行的批量（B = 1）：第三份教材的第二行，长度为3，N_valid = 3"}),
            Case((draws.uniform(rng, (4, 12), 0.05, 3.0), np.arange(12)[None, :] < np.array([12, 3, 7, 11])[:, None]),
                 label={"en": "the largest size drawn: B = 4, T = 12, lengths 12, 3, 7, 11", "zh": "抽取范围内最大的规模：B = 4，T = 12，长度为12、3、7、11"})]


def _public_generation():
    rng, step = _seeded(1207)
    return [Case((third_text_step(), _column([1, 0, -1]), np.zeros(1)), label={"en": "third text's tanh RNN on (1, 0, -1)", "zh": "第三份教材的 tanh RNN 读取 (1, 0, -1)"}),
            Case((third_text_step(), _column([1]), np.zeros(1)), label={"en": "third text's tanh RNN on one input (1)", "zh": "第三份教材的 tanh RNN 只读一个输入 (1)"}),
            Case((step, _inputs(rng, 12, 3), _h0(rng, 3)), label={"en": "the largest size drawn: T = 12, D = d = 3, h0 not zero", "zh": "抽取范围内最大的规模：T = 12，D = d = 3，h0不为零"})]


def _public_bidirectional():
    rng, step = _seeded(1208)
    return [Case((third_text_step(), third_text_step(-0.5), _column([1, 0, -1]), np.zeros(1)),
                 label={"en": "third text's step forward, W_h = -0.5 backward, on (1, 0, -1)", "zh": "正向用第三份教材的单步，反向用 W_h = -0.5，输入 (1, 0, -1)"}),
            Case((third_text_step(), third_text_step(-0.5), _column([1]), np.zeros(1)),
                 label={"en": "the same two steps on one input (1)", "zh": "同样的两个单步，只读一个输入 (1)"}),
            Case((step, TanhStep.seeded(1209, 3, 3), _inputs(rng, 12, 3), _h0(rng, 3)),
                 label={"en": "the largest size drawn: T = 12, D = d = 3, h0 not zero", "zh": "抽取范围内最大的规模：T = 12，D = d = 3，h0不为零"})]


# ----------------------------------------------------------------------------- branches
# Each check's contract branches and extremes (`Branch`): shown by a public case above where the
# self-check should warn (a public case gates the points), else drawn at the head of every attempt's
# hidden cases. A branch on which a catalogued mistake is always right (a single sequence for the
# carried state, one entity for the missing reset, k = 1 for sliding windows, no padding for every
# padding mistake) is public: a drawer could never separate it.

def _nonzero(h0) -> bool:
    return bool(np.any(np.asarray(h0, dtype=float) != 0))


def _widths_differ(step) -> bool:
    D, d = np.shape(step.W_x)
    return D != d


def _size(step) -> tuple[int, int]:
    return tuple(np.shape(step.W_x))


def _arg(index: int, test):
    """holds(case, expected) testing the case's argument `index`."""
    return lambda case, expected: bool(test(case.args[index]))


def _nonzero_h0(index: int) -> Branch:
    return Branch("nonzero_h0", _arg(index, _nonzero),
                  en="h0 is not zero: every sequence starts from the h0 given, not from zeros",
                  zh="h0 不为零：序列从给定的 h0 出发，而不是从零出发")


def _widths(draw) -> Branch:
    return Branch("input_width_differs", _arg(0, _widths_differ), lambda rng: draw(rng, dims=_unequal_dims),
                  en="the input width D differs from the state width d", zh="输入宽度 D 与状态宽度 d 不同")


def _truncation(case: Case) -> tuple[list, int, dict, int]:
    xs, _, targets, k, *rest = case.args
    return list(xs), int(k), dict(targets), rest[0] if rest else case.kwargs.get("h0", 0)


def _lengths_of(case: Case) -> list[int]:
    return [int(n) for n in np.asarray(case.args[2]).reshape(-1)]


def _mask_of(case: Case) -> np.ndarray:
    return np.asarray(case.args[1], dtype=bool)


BRANCHES = {
    "run_independent": (
        Branch("one_sequence", _arg(1, lambda sequences: len(sequences) == 1),
               en="a list of one sequence", zh="列表里只有一条序列"),
        Branch("length_one_sequence", _arg(1, lambda sequences: any(len(xs) == 1 for xs in sequences)),
               en="a sequence of one step", zh="只有一步的序列"),
        Branch("same_inputs_twice", _arg(1, lambda sequences: any(np.array_equal(a, b) for i, a in enumerate(sequences) for b in sequences[i + 1:])),
               _draw_independent_twice, en="the same inputs twice: both sequences must give the same states",
               zh="同样的输入出现两次：两条序列必须得到相同的状态"),
        _nonzero_h0(2),
        _widths(_draw_independent),
        Branch("largest", lambda case, expected: len(case.args[1]) == 4 and all(len(xs) == 12 for xs in case.args[1]) and _size(case.args[0]) == (3, 3),
               en="the largest size drawn: 4 sequences of 12 steps, D = d = 3", zh="抽取范围内最大的规模：4条序列，每条12步，D = d = 3"),
    ),
    "run_stream": (
        Branch("one_segment", _arg(1, lambda segments: len(segments) == 1), en="the whole stream in one segment", zh="整条输入流只有一个片段"),
        Branch("length_one_segment", _arg(1, lambda segments: any(len(xs) == 1 for xs in segments)),
               en="a segment of one step", zh="只有一步的片段"),
        Branch("every_segment_one_step", _arg(1, lambda segments: len(segments) > 1 and all(len(xs) == 1 for xs in segments)),
               lambda rng: _draw_stream(rng, longest=1), en="a stream cut after every step: segments of one step each",
               zh="每一步之后都切开的输入流：每个片段只有一步"),
        _nonzero_h0(2),
        _widths(_draw_stream),
        Branch("largest", lambda case, expected: len(case.args[1]) == 4 and all(len(xs) == 6 for xs in case.args[1]) and _size(case.args[0]) == (3, 3),
               en="the largest size drawn: 4 segments of 6 steps, D = d = 3", zh="抽取范围内最大的规模：4个片段，每段6步，D = d = 3"),
    ),
    "run_entities": (
        Branch("one_entity", _arg(1, lambda stream: len(stream) > 1 and len({entity for entity, _ in stream}) == 1),
               en="one entity throughout: no reset at all", zh="自始至终只有一个实体：完全不重置"),
        Branch("one_pair", _arg(1, lambda stream: len(stream) == 1), en="a stream of a single pair", zh="只有一对的输入流"),
        Branch("change_every_step", _arg(1, lambda stream: len(stream) > 1 and all(a[0] != b[0] for a, b in zip(stream, stream[1:]))),
               en="the entity changes at every step", zh="实体每一步都在变化"),
        Branch("entity_returns", _arg(1, lambda stream: any(stream[t][0] != stream[t - 1][0] and stream[t][0] in {e for e, _ in stream[:t]} for t in range(1, len(stream)))),
               en="an entity comes back after another one", zh="一个实体在另一个实体之后再次出现"),
        Branch("falsy_entity_id", _arg(1, lambda stream: any(not entity for entity, _ in stream)),
               en="an entity id that is falsy (0), in a run of several steps", zh="在布尔上下文中为假的实体id（0），连续出现好几步"),
        _nonzero_h0(2),
        _widths(_draw_entities),
        Branch("largest", lambda case, expected: len(case.args[1]) == 20 and _size(case.args[0]) == (3, 3),
               en="the largest size drawn: 5 runs of 4 steps, D = d = 3", zh="抽取范围内最大的规模：5段，每段4步，D = d = 3"),
    ),
    "truncated_bptt_scalar": (
        Branch("k_equals_T", lambda case, expected: _truncation(case)[1] == len(_truncation(case)[0]),
               en="k = T: one segment, no boundary (full BPTT)", zh="k = T：只有一个片段，没有边界（完整BPTT）"),
        Branch("k_one", lambda case, expected: _truncation(case)[1] == 1 and len(_truncation(case)[0]) > 1,
               en="k = 1: every step a segment of its own", zh="k = 1：每一步自成一个片段"),
        Branch("k_not_dividing_T", lambda case, expected: len(_truncation(case)[0]) % _truncation(case)[1] != 0,
               en="k does not divide T: the last segment is shorter", zh="k 不整除 T：最后一个片段较短"),
        Branch("targets_only_before_boundary", lambda case, expected: (lambda xs, k, targets, h0: k < len(xs) and max(targets) <= k)(*_truncation(case)),
               en="every target before the first boundary", zh="所有目标都在第一个边界之前"),
        Branch("targets_only_after_boundary", lambda case, expected: (lambda xs, k, targets, h0: k < len(xs) and min(targets) > k)(*_truncation(case)),
               en="every target after the first boundary", zh="所有目标都在第一个边界之后"),
        Branch("targets_on_both_sides", lambda case, expected: (lambda xs, k, targets, h0: min(targets) <= k < max(targets))(*_truncation(case)),
               en="targets on both sides of a boundary", zh="边界两侧都有目标"),
        Branch("several_boundaries", lambda case, expected: (lambda xs, k, targets, h0: len(xs) > 2 * k)(*_truncation(case)),
               en="two boundaries or more", zh="两个或更多边界"),
        Branch("nonzero_h0", lambda case, expected: _truncation(case)[3] != 0, en="h0 is not zero", zh="h0 不为零"),
        Branch("largest", lambda case, expected: len(_truncation(case)[0]) == 12, en="the largest size drawn: T = 12", zh="抽取范围内最大的规模：T = 12"),
    ),
    "masked_rnn_forward": (
        Branch("all_padding_row", lambda case, expected: 0 in _lengths_of(case), en="a row that is all padding (length 0)", zh="全是填充的一行（长度为0）"),
        Branch("full_row", lambda case, expected: np.shape(case.args[1])[1] in _lengths_of(case), en="a row without padding", zh="没有填充的一行"),
        Branch("no_padding", lambda case, expected: min(_lengths_of(case)) == np.shape(case.args[1])[1], en="no padding at all", zh="完全没有填充"),
        Branch("length_one_row", lambda case, expected: 1 in _lengths_of(case) and np.shape(case.args[1])[1] > 1,
               lambda rng: _draw_masked(rng, lengths=_with_length(lambda T: 1)), en="a row with one valid step, then padding",
               zh="只有一个有效步、之后全是填充的一行"),
        Branch("gap_only_at_end", lambda case, expected: np.shape(case.args[1])[1] - 1 in _lengths_of(case),
               lambda rng: _draw_masked(rng, lengths=_with_length(lambda T: T - 1)), en="a row whose only padding is its last step",
               zh="只有最后一步是填充的一行"),
        Branch("padded_row_first", lambda case, expected: any(a < b for a, b in zip(_lengths_of(case), _lengths_of(case)[1:])),
               en="a shorter row before a longer one", zh="较短的行排在较长的行之前"),
        Branch("batch_of_one", lambda case, expected: len(_lengths_of(case)) == 1, en="a batch of one row (B = 1)", zh="只有一行的批量（B = 1）"),
        _nonzero_h0(3),
        Branch("input_width_differs", _arg(0, _widths_differ), en="the input width D differs from the state width d", zh="输入宽度 D 与状态宽度 d 不同"),
        Branch("largest", lambda case, expected: np.shape(case.args[1]) == (4, 12, 3) and _size(case.args[0]) == (3, 3),
               en="the largest size drawn: B = 4, T = 12, D = d = 3", zh="抽取范围内最大的规模：B = 4，T = 12，D = d = 3"),
    ),
    "masked_mean_loss": (
        Branch("all_padding_row", lambda case, expected: bool((~_mask_of(case)).all(axis=1).any()), en="a row that is all padding", zh="全是填充的一行"),
        Branch("no_padding", lambda case, expected: bool(_mask_of(case).all()), en="no padding at all", zh="完全没有填充"),
        Branch("one_valid_position", lambda case, expected: int(_mask_of(case).sum()) == 1 and _mask_of(case).shape[0] > 1,
               lambda rng: _draw_loss(rng, _one_valid), en="one valid position in the whole batch (N_valid = 1)", zh="整个批量只有一个有效位置（N_valid = 1）"),
        Branch("gap_only_at_end", lambda case, expected: (lambda mask: int((~mask).sum()) == 1 and not mask[:, -1].all())(_mask_of(case)),
               lambda rng: _draw_loss(rng, _last_padded), en="a mask whose only gap is one row's last step", zh="掩码中唯一的空缺是某一行的最后一步"),
        Branch("unequal_rows", lambda case, expected: len(set(_mask_of(case).sum(axis=1).tolist())) > 1, en="rows with different numbers of valid positions", zh="各行有效位置的个数不同"),
        Branch("batch_of_one", lambda case, expected: _mask_of(case).shape[0] == 1, en="a batch of one row (B = 1)", zh="只有一行的批量（B = 1）"),
        Branch("largest", lambda case, expected: _mask_of(case).shape == (4, 12), en="the largest size drawn: B = 4, T = 12", zh="抽取范围内最大的规模：B = 4，T = 12"),
    ),
    "generation_features": (
        Branch("length_one", _arg(1, lambda xs: len(xs) == 1), en="a sequence of one step", zh="只有一步的序列"),
        _nonzero_h0(2),
        _widths(_draw_generation),
        Branch("largest", lambda case, expected: len(case.args[1]) == 12 and _size(case.args[0]) == (3, 3),
               en="the largest size drawn: T = 12, D = d = 3", zh="抽取范围内最大的规模：T = 12，D = d = 3"),
    ),
    "bidirectional_features": (
        Branch("length_one", _arg(2, lambda xs: len(xs) == 1), en="a sequence of one step: both readers have read only x_1", zh="只有一步的序列：两个方向都只读了x_1"),
        _nonzero_h0(3),
        _widths(_draw_bidirectional),
        Branch("largest", lambda case, expected: len(case.args[2]) == 12 and _size(case.args[0]) == (3, 3),
               en="the largest size drawn: T = 12, D = d = 3", zh="抽取范围内最大的规模：T = 12，D = d = 3"),
    ),
}


# ----------------------------------------------------------------------------- perturbations for the probes

def _replace_after(xs, t: int, seed: int) -> np.ndarray:
    xs = np.array(xs, dtype=float)
    if len(xs) > t:
        xs[t:] = probes.replacement_values(xs[t:].shape, seed)
    return xs


def _replace_before(xs, t: int, seed: int) -> np.ndarray:
    xs = np.array(xs, dtype=float)
    xs[:t - 1] = probes.replacement_values(xs[:t - 1].shape, seed)
    return xs


def _independent_after(case: Case, t: int) -> Case:
    step, sequences, h0 = case.args
    return Case((step, [_replace_after(xs, t, 100 * t + i) for i, xs in enumerate(sequences)], h0))


def _independent_pieces(case: Case):
    step, sequences, h0 = case.args
    for i, xs in enumerate(sequences):
        yield (f"sequence {i + 1}", Case((step, [xs], h0)),
               lambda out, i=i: probes.steps_view()(out[i]), lambda out: probes.steps_view()(out[0]))


def _stream_after(case: Case, t: int) -> Case:
    step, segments, h0 = case.args
    cuts = np.cumsum([0, *map(len, segments)])
    return Case((step, [_replace_after(xs, max(t - start, 0), 100 * t + k) for k, (xs, start) in enumerate(zip(segments, cuts))], h0))


def _stream_joined(case: Case):
    step, segments, h0 = case.args
    yield "the whole stream run as one segment", Case((step, [np.concatenate([np.asarray(s, dtype=float) for s in segments])], h0))


def _entities_after(case: Case, t: int) -> Case:
    step, stream, h0 = case.args
    xs = _replace_after([x for _, x in stream], t, 100 * t)
    return Case((step, [(entity, x) for (entity, _), x in zip(stream, xs)], h0))


def _entity_pieces(case: Case):
    step, stream, h0 = case.args
    for s in range(1, len(stream)):
        if stream[s][0] != stream[s - 1][0]:
            yield (f"the run of entity {stream[s][0]!r} that starts at step {s + 1}", Case((step, stream[s:], h0)),
                   lambda out, s=s: probes.steps_view()(out)[s:], probes.steps_view(offset=s))


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


def _loss_junk(case: Case):
    losses, mask = case.args
    for name, kind in probes.JUNK:
        junked = np.array(losses, dtype=float)
        junked[~np.asarray(mask, dtype=bool)] = abs(kind)
        yield name, Case((junked, mask))


def _generation_after(case: Case, t: int) -> Case:
    step, xs, h0 = case.args
    return Case((step, _replace_after(xs, t, 100 * t), h0))


def _bidirectional_after(case: Case, t: int) -> Case:
    step_f, step_b, xs, h0 = case.args
    return Case((step_f, step_b, _replace_after(xs, t, 100 * t), h0))


def _bidirectional_before(case: Case, t: int) -> Case:
    step_f, step_b, xs, h0 = case.args
    return Case((step_f, step_b, _replace_before(xs, t, 100 * t), h0))


_MASKED_STATES = lambda out: probes.batch_view()(out[0])  # noqa: E731

PROBES = {
    "run_independent": (
        probes.alone(_independent_pieces, message={"en": "State-boundary rule broken: {piece} gave different states after the others than when run alone (first at {where}). Independent sequences must not pass anything to each other.",
                 "zh": "违反状态边界规则：{piece}接在其他序列之后运行，得到的状态与单独运行时不同（最早出现在{where}）。相互独立的序列之间不能传递任何东西。"}),
        probes.causal(probes.sequences_view, lambda c: max(map(len, c.args[1])), _independent_after),
    ),
    "run_stream": (
        probes.same_result(probes.segments_view, _stream_joined, message={"en": "State-boundary rule broken: the segments of one stream do not give the same states as {variant} (first at {where}). Cutting a stream into segments must not change what the state carries.",
                 "zh": "违反状态边界规则：同一条输入流的各个片段，得到的状态与{variant}不同（最早出现在{where}）。把输入流切成片段，不能改变状态携带的内容。"}),
        probes.causal(probes.segments_view, lambda c: sum(map(len, c.args[1])), _stream_after),
    ),
    "run_entities": (
        probes.alone(_entity_pieces, message={"en": "State-boundary rule broken at an entity change: {piece} gave different states than the same part of the stream run alone (first at {where}). A new entity must start as if nothing came before it.",
                 "zh": "在实体切换处违反状态边界规则：{piece}得到的状态，与把输入流的同一部分单独运行时不同（最早出现在{where}）。新实体必须像前面什么都没有一样开始。"}),
        probes.causal(probes.steps_view(), lambda c: len(c.args[1]), _entities_after),
    ),
    "truncated_bptt_scalar": (
        probes.truncation_value(),
        probes.truncation_not_full(),
        probes.truncation_detached(),
    ),
    "masked_rnn_forward": (
        probes.same_result(probes.batch_view(final=True), _masked_junk, message={"en": "Padding rule broken: {variant} in the padded positions of X changed {where}. Padded positions must not reach any state - note that 0 * nan is nan, and inf - inf too.",
                 "zh": "违反填充规则：X的填充位置中的{variant}改变了{where}。填充位置不能影响任何状态——注意 0 * nan 和 inf - inf 的结果都是nan。"}),
        probes.rows_independent(probes.batch_view(final=True), lambda c: len(c.args[1]), _masked_row),
        probes.causal(_MASKED_STATES, lambda c: np.shape(c.args[1])[1], _masked_after),
    ),
    "masked_mean_loss": (
        probes.same_result(probes.value_view("the loss"), _loss_junk, message={"en": "Padding rule broken: {variant} in the padded positions of the losses changed {where}. Padded positions may hold anything and must not reach the loss - note that 0 * nan is nan.",
                 "zh": "违反填充规则：损失的填充位置中的{variant}改变了{where}。填充位置可以是任意值，但不能进入损失——注意 0 * nan 的结果仍是nan。"}),
    ),
    "generation_features": (
        probes.causal(probes.steps_view(), lambda c: len(c.args[1]), _generation_after, message={"en": "Leak: changing only the inputs after step {after} changed the generation feature at {where}. A generator at step t has not seen later inputs, so its features may not depend on them.",
                 "zh": "泄漏：只改动第{after}步之后的输入，{where}处的生成特征就变了。生成器在第t步还没有见过后面的输入，所以它的特征不能依赖这些输入。"}),
    ),
    "bidirectional_features": (
        probes.causal(probes.columns_view(0, 2, "the forward half"), lambda c: len(c.args[2]), _bidirectional_after, message={"en": "Causality rule broken: changing only the inputs after step {after} changed {where}. The forward half at step t may read x_1..x_t only.",
                 "zh": "违反因果规则：只改动第{after}步之后的输入，{where}就变了。前向那一半在第t步只能读取x_1..x_t。"}),
        probes.anticausal(probes.columns_view(1, 2, "the backward half"), lambda c: len(c.args[2]), _bidirectional_before, message={"en": "Direction rule broken: changing only the inputs before step {before} changed {where}. The backward half at step t reads x_T down to x_t only.",
                 "zh": "违反方向规则：只改动第{before}步之前的输入，{where}就变了。反向那一半在第t步只读取从x_T到x_t的输入。"}),
    ),
}


def _exercise(label: dict[str, str]):
    return lambda: [Case(label=label)]


CHECKS = [
    Check("run_independent", ref.run_independent, _public_independent, draw=_draw_independent, probes=PROBES["run_independent"], branches=BRANCHES["run_independent"], points=1),
    Check("run_stream", ref.run_stream, _public_stream, draw=_draw_stream, probes=PROBES["run_stream"], branches=BRANCHES["run_stream"], points=1),
    Check("run_entities", ref.run_entities, _public_entities, draw=_draw_entities, probes=PROBES["run_entities"], branches=BRANCHES["run_entities"], points=2),
    Check("truncated_bptt_scalar", ref.truncated_bptt_scalar, _public_truncated, draw=_draw_truncated, exact=True,
          probes=PROBES["truncated_bptt_scalar"], branches=BRANCHES["truncated_bptt_scalar"], points=3),
    Check("ex_12_7_3", ref.ex_12_7_3, _exercise({"en": "exercise 12.7.3 (reference answer 12.8)", "zh": "习题12.7.3（参考解答12.8）"}), reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("masked_rnn_forward", ref.masked_rnn_forward, _public_masked, draw=_draw_masked, probes=PROBES["masked_rnn_forward"], branches=BRANCHES["masked_rnn_forward"], points=3),
    Check("masked_mean_loss", ref.masked_mean_loss, _public_loss, draw=_draw_loss, probes=PROBES["masked_mean_loss"], branches=BRANCHES["masked_mean_loss"], points=1),
    Check("generation_features", ref.generation_features, _public_generation, draw=_draw_generation, probes=PROBES["generation_features"], branches=BRANCHES["generation_features"], points=1),
    Check("bidirectional_features", ref.bidirectional_features, _public_bidirectional, draw=_draw_bidirectional,
          probes=PROBES["bidirectional_features"], branches=BRANCHES["bidirectional_features"], points=2),
    Check("ex_12_7_6", ref.ex_12_7_6, _exercise({"en": "exercise 12.7.6 (reference answer 12.8)", "zh": "习题12.7.6（参考解答12.8）"}), reveal=False, points=0),  # a self-check: the points are its written answer's
]


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).with_name("notebook.md"))
_generation_features, _masked_rnn_forward, _run_independent, _run_stream, _truncated_bptt_scalar = _solution.generation_features, _solution.masked_rnn_forward, _solution.run_independent, _solution.run_stream, _solution.truncated_bptt_scalar


# ----------------------------------------------------------------------------- catalogued mistakes
# Each is the solution function as a student gets it wrong, named by its id, with what the
# student should rethink (never the answer) in both languages.
# The sources are pasted into student notebooks to build mutant submissions, so they use only `np`,
# the correct solution functions (as `_name`) and the private helpers below.


# ----------------------------------------------------------------------------- state boundaries

@mistake("run_independent",
         en="A later sequence started from the state an earlier one left behind. These sequences are unrelated: where must each one's state come from? (second text: carrying state into an unrelated sample invents context and leaks data)",
         zh="后一条序列从前一条序列留下的状态开始。这些序列彼此无关：每条序列的状态应当从哪里来？（第二份教材：把状态带进无关的样本，会凭空造出上下文，并造成数据泄漏）")
def state_carried_across_sequences(step, sequences, h0):
    return _run_stream(step, sequences, h0)


@mistake("run_independent",
         en="Each returned array should hold the states produced by reading the inputs, one row per input; check what its first row is and how many rows it has.",
         zh="返回的每个数组应当保存读取输入后产生的状态，每个输入一行；检查它的第一行是什么，以及它有多少行。")
def initial_state_included(step, sequences, h0):
    return [np.vstack([np.asarray(h0, dtype=float), states]) for states in _run_independent(step, sequences, h0)]


@mistake("run_stream",
         en="The segments here are pieces of ONE stream (the third text's audio cut into pieces): ask whether a new segment should forget what the previous one read.",
         zh="这里的片段是同一条输入流的几个部分（第三份教材中被切成几段的音频）：想一想，新片段是否应当忘掉上一个片段读过的内容。")
def state_reset_inside_stream(step, segments, h0):
    return _run_independent(step, segments, h0)


@mistake("run_entities",
         en="The state ran on from one entity into the next. Where do the entity boundaries fall in the stream, and what should a new entity start from? (second text: reset at entity boundaries)",
         zh="状态从一个实体一路延续到了下一个实体。输入流中的实体边界在哪里？新实体应当从什么状态开始？（第二份教材：在实体边界重置状态）")
def no_reset_on_entity_change(step, stream, h0):
    return _run_stream(step, [np.array([x for _, x in stream], dtype=float)], h0)[0]


@mistake("run_entities",
         en="When an entity comes back after another one, its old state was picked up again. The contract resets on every change of entity id, whatever came before: re-read when the state is reset.",
         zh="一个实体在另一个实体之后再次出现时，又接上了它原来的状态。接口约定要求：实体id每变化一次，状态就重置一次，不管之前出现过什么。重读接口约定中何时重置状态的说明。")
def entity_state_resumed(step, stream, h0):
    saved, states = {}, []
    for entity, x in stream:
        h = step(np.asarray(x, dtype=float), saved.get(entity, np.asarray(h0, dtype=float)))
        saved[entity] = h
        states.append(h)
    return np.array(states)


# ----------------------------------------------------------------------------- truncated BPTT

def _segments(xs, w, targets, starts, h0, restart):
    """Truncated BPTT over segments beginning at the 0-based `starts`; each segment starts from the
    carried value, or from `restart` when it is not None. Returns states, loss, and per-segment grads."""
    states, loss, grads, h = [], 0, [], h0
    for start, end in zip(starts, list(starts[1:]) + [len(xs)]):
        if end <= start:
            continue
        part = {t - start: y for t, y in targets.items() if start < t <= end}
        first = h if (start == 0 or restart is None) else restart
        result = _truncated_bptt_scalar(xs[start:end], w, part, end - start, first)
        states, loss = states + result["states"], loss + result["loss"]
        grads.append(result["grad"])
        h = states[-1]
    return states, loss, grads


@mistake("truncated_bptt_scalar",
         en="The gradient flowed back across the segment boundary as in full BPTT. Truncation keeps the state's value but treats it as a constant at the boundary: which dependencies on w remain inside a segment? (section 12.3)",
         zh="梯度像完整BPTT那样沿反向穿过了片段边界。截断保留状态的数值，但在边界处把它当作常数：一个片段内还剩下哪些对w的依赖？（12.3节）")
def no_detach_at_boundary(xs, w, targets, k, h0=0):
    return _truncated_bptt_scalar(xs, w, targets, len(xs), h0)


@mistake("truncated_bptt_scalar",
         en="The state's value did not survive the segment boundary. Truncation stops only the gradient; what value should the next segment start from? (section 12.3: the value is still there)",
         zh="状态的数值没能穿过片段边界保留下来。截断只停止梯度；下一个片段应当从什么数值开始？（12.3节：值还在）")
def value_zeroed_at_boundary(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, list(range(0, len(xs), k)), h0, 0)
    return {"states": states, "loss": loss, "grad": sum(grads)}


@mistake("truncated_bptt_scalar",
         en="The segment boundaries are in the wrong place: with segments of k steps, count which steps belong to the first segment and where the second one begins.",
         zh="片段边界的位置不对：片段长为k步时，数一数哪些步属于第一个片段，第二个片段从哪一步开始。")
def boundary_one_step_early(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, [0] + list(range(k - 1, len(xs), k)), h0, None)
    return {"states": states, "loss": loss, "grad": sum(grads)}


@mistake("truncated_bptt_scalar",
         en="Only one segment's gradient survived. Each segment's loss gives its own part of the gradient; what happens to the parts from the earlier segments?",
         zh="只有一个片段的梯度保留了下来。每个片段的损失都给出梯度的一部分；前面那些片段的部分去哪儿了？")
def segment_gradients_overwritten(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, list(range(0, len(xs), k)), h0, None)
    return {"states": states, "loss": loss, "grad": grads[-1]}


def _windows(xs, w, targets, k, h0, starts):
    """Windows of k steps beginning at the 0-based `starts` (they may overlap), each with its own
    gradient from the targets inside it, the state entering it held at its forward value. Returns the
    result of full BPTT with the windows' gradients summed in place of its own."""
    result = _truncated_bptt_scalar(xs, w, targets, len(xs), h0)
    states, grad = result["states"], 0
    for start in starts:
        end = min(start + k, len(xs))
        part = {t - start: y for t, y in targets.items() if start < t <= end}
        first = h0 if start == 0 else states[start - 1]
        grad = grad + _truncated_bptt_scalar(xs[start:end], w, part, end - start, first)["grad"]
    return {"states": states, "loss": result["loss"], "grad": grad}


@mistake("truncated_bptt_scalar",
         en="A window of k steps was started at every step, so the windows slide forward one step at a time, overlap, and count one target's error in several of them. The segments of truncated BPTT follow one another without overlapping: re-read which steps make up each segment and where the next one begins (section 12.3).",
         zh="每一步都开始了一个k步的窗口，于是窗口每次只向前滑动一步，彼此重叠，同一个目标的误差被计入了好几个窗口。截断式BPTT的片段一个接一个，互不重叠：重读每个片段由哪些步组成，下一个片段从哪里开始（12.3节）。")
def window_slides_by_one(xs, w, targets, k, h0=0):
    return _windows(xs, w, targets, k, h0, range(len(xs)))


@mistake("truncated_bptt_scalar",
         en="The windows of k steps slide forward one step at a time (every full window of k steps), so they overlap and one target's error is counted in several of them. The segments of truncated BPTT follow one another without overlapping: re-read which steps make up each segment and where the next one begins (section 12.3).",
         zh="k步的窗口每次只向前滑动一步（取遍所有完整的k步窗口），于是彼此重叠，同一个目标的误差被计入了好几个窗口。截断式BPTT的片段一个接一个，互不重叠：重读每个片段由哪些步组成，下一个片段从哪里开始（12.3节）。")
def full_windows_slide_by_one(xs, w, targets, k, h0=0):
    return _windows(xs, w, targets, k, h0, range(max(len(xs) - k + 1, 1)))


# ----------------------------------------------------------------------------- padding and masks

def _unmasked(step, X, h0):
    """States of every row through all T steps, padding included."""
    X = np.asarray(X, dtype=float)
    h = np.tile(np.asarray(h0, dtype=float), (X.shape[0], 1))
    H = []
    for t in range(X.shape[1]):
        h = step(X[:, t], h)
        H.append(h)
    return np.stack(H, axis=1)


@mistake("masked_rnn_forward",
         en="Padded steps still changed the state after the end of a row. Even a zero padding vector moves a tanh RNN's state (third text); what should the state do after a row's last valid step?",
         zh="某一行结束之后，填充的时间步仍然改变了状态。即使填充向量为零，也会改变 tanh RNN 的状态（第三份教材）；一行的最后一个有效步之后，状态应当怎样？")
def padding_updates_state(step, X, lengths, h0):
    H = _unmasked(step, X, h0)
    return H, H[np.arange(len(H)), np.asarray(lengths) - 1]


@mistake("masked_rnn_forward",
         en="The final state was read at the last column of the padded batch, after padding had updated it. Which step is the last valid one of each row? (third text: take H_3, not H_5)",
         zh="最终状态取自填充后批量的最后一列，而填充已经更新过它。每一行的最后一个有效步是哪一步？（第三份教材：取H_3，而不是H_5）")
def final_state_at_padded_end(step, X, lengths, h0):
    H = _unmasked(step, X, h0)
    return H, H[:, -1]


@mistake("masked_rnn_forward",
         en="After a row ends, its states were set to zero. The contract freezes a finished row: what should the positions after its last valid step hold?",
         zh="某一行结束之后，它的状态被设成了零。按接口约定，已经结束的行要冻结：它最后一个有效步之后的位置应当保存什么？")
def padded_states_zeroed(step, X, lengths, h0):
    H, final = _masked_rnn_forward(step, X, lengths, h0)
    valid = np.arange(H.shape[1])[None, :] < np.asarray(lengths)[:, None]
    return np.where(valid[:, :, None], H, 0.0), final


@mistake("masked_rnn_forward",
         en="The rows come back in a different order than they went in (sorted by length, as packing does). Row b of every result must belong to row b of X.",
         zh="返回的行与输入时的顺序不同（像打包那样按长度排了序）。每个结果的第b行都必须对应X的第b行。")
def rows_left_sorted_by_length(step, X, lengths, h0):
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return _masked_rnn_forward(step, np.asarray(X, dtype=float)[order], np.asarray(lengths)[order], h0)


@mistake("masked_mean_loss",
         en="The masked losses were averaged over all B*T positions. The third text divides by N_valid: what should the denominator count?",
         zh="掩码后的损失在全部B*T个位置上取了平均。第三份教材除以的是N_valid：分母应当数什么？")
def loss_averaged_over_padding(losses, mask):
    return float(np.mean(np.asarray(losses, dtype=float) * np.asarray(mask, dtype=float)))


@mistake("masked_mean_loss",
         en="The losses at padded positions were added in. Which positions does the mask say carry real data, and which may hold anything?",
         zh="填充位置上的损失也被加了进来。掩码说明哪些位置是真实数据，哪些位置可以是任意值？")
def padded_losses_included(losses, mask):
    return float(np.mean(losses))


@mistake("masked_mean_loss",
         en="Each row was averaged first and then the rows. The third text's loss divides one sum over all valid positions by N_valid: compare the two when rows have different lengths.",
         zh="先对每一行取平均，再对各行取平均。第三份教材的损失是把所有有效位置上的一个总和除以N_valid：各行长度不同时，比较一下这两种算法。")
def mean_of_row_means(losses, mask):
    losses, mask = np.asarray(losses, dtype=float), np.asarray(mask, dtype=bool)
    return float(np.mean([np.sum(row[m]) / np.count_nonzero(m) for row, m in zip(losses, mask)]))


# ----------------------------------------------------------------------------- causality and leakage

@mistake("generation_features",
         en="The feature at step t was built from inputs after t. A generator at step t has produced only x_1..x_t: which direction of reading is allowed? (exercise 12.7.6)",
         zh="第t步的特征用到了t之后的输入。生成器到第t步只生成了x_1..x_t：允许按哪个方向读取？（习题12.7.6）")
def generation_reads_future(step, xs, h0):
    return _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]


@mistake("generation_features",
         en="The sequence was read from its last input to its first, so row t holds a state that has seen x_T..x_{T-t+1}, the end of the sequence, not x_1..x_t. A generator reads forwards: start from h0 with x_1 and keep the rows in time order.",
         zh="序列被从最后一个输入读到了第一个，所以第t行的状态看到的是序列末尾的x_T..x_{T-t+1}，而不是x_1..x_t。生成器是向前读的：从h0出发先读x_1，并按时间顺序保留各行。")
def sequence_reversed(step, xs, h0):
    return _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)


@mistake("generation_features",
         en="Every step got the state after the whole sequence, so step t sees inputs after t. Generation features may only use what has been read up to t.",
         zh="每一步拿到的都是读完整个序列后的状态，所以第t步看到了t之后的输入。生成用的特征只能使用截至t已经读过的内容。")
def final_state_everywhere(step, xs, h0):
    states = _generation_features(step, xs, h0)
    return np.repeat(states[-1:], len(states), axis=0)


@mistake("generation_features",
         en="Features for generation came out with both directions. The backward half has read the future, which a generator does not have (section 12.5: bidirectional is not a generator seeing its unwritten words).",
         zh="生成用的特征包含了两个方向。反向那一半已经读过未来，而生成器并没有未来（12.5节：“双向”并不是说生成器能看见自己还没生成的词）。")
def both_directions_in_generation(step, xs, h0):
    forward = _generation_features(step, xs, h0)
    backward = _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([forward, backward], axis=1)


@mistake("bidirectional_features",
         en="The backward reader's states were not put back in time order: they stand in the order they were produced, so row 1 holds the state after reading x_T alone. The backward state shown at step t must be the one that has read x_T down to x_t. After reading the reversed inputs, in which order must that list of states stand beside the forward states? (section 12.5; the survey text: one reader goes left to right, the other right to left)",
         zh="反向读取器的状态没有按时间顺序放回：它们保持着产生时的顺序，所以第1行是只读了x_T之后的状态。第t步显示的反向状态，必须是从x_T一直读到x_t之后的那个状态。倒着读完输入之后，这一串状态应当按什么顺序与前向状态并排？（12.5节；综述文本：一条从左向右读，一条从右向左读）")
def backward_not_realigned(step_f, step_b, xs, h0):
    return np.concatenate([_generation_features(step_f, xs, h0), _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)], axis=1)


@mistake("bidirectional_features",
         en="The backward half read the inputs from x_1 onwards, in the same direction as the forward half, only with its own step. A backward reader starts at the last input: at step t it has read x_T, x_{T-1}, ..., x_t (section 12.5: the backward language model reads from the right).",
         zh="反向那一半和前向那一半一样，从x_1开始往后读，只是换了自己的单步函数。反向读取器从最后一个输入开始：在第t步，它已经读了x_T、x_{T-1}、……、x_t（12.5节：反向语言模型从右侧读起）。")
def backward_reads_forwards(step_f, step_b, xs, h0):
    return np.concatenate([_generation_features(step_f, xs, h0), _generation_features(step_b, xs, h0)], axis=1)


@mistake("bidirectional_features",
         en="The backward state at step t did not include x_t itself. Re-read the contract: at t the backward reader has read x_T down to which input?",
         zh="第t步的反向状态没有包含x_t本身。重读接口约定：在第t步，反向读取器已经从x_T读到了哪个输入？")
def backward_excludes_current(step_f, step_b, xs, h0):
    backward = _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    shifted = np.vstack([backward[1:], np.asarray(h0, dtype=float)[None, :]])
    return np.concatenate([_generation_features(step_f, xs, h0), shifted], axis=1)


@mistake("bidirectional_features",
         en="The backward direction was computed with the forward step. The two directions are separate networks, each with its own step function.",
         zh="反向方向是用前向的单步函数算的。两个方向是两个独立的网络，各有自己的单步函数。")
def forward_step_used_backward(step_f, step_b, xs, h0):
    backward = _generation_features(step_f, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([_generation_features(step_f, xs, h0), backward], axis=1)


@mistake("bidirectional_features",
         en="The two halves of each feature row are in the wrong order. Check which direction the contract puts first.",
         zh="每行特征的两半顺序反了。检查接口约定把哪个方向放在前面。")
def halves_swapped(step_f, step_b, xs, h0):
    backward = _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([backward, _generation_features(step_f, xs, h0)], axis=1)


# ----------------------------------------------------------------------------- exercises

@mistake("ex_12_7_3",
         en="Truncation cuts something at the boundary. Re-read the last paragraph of section 12.3: what does the program still pass on, and what does it stop?",
         zh="截断会在边界处切断某样东西。重读12.3节最后一段：程序仍然传递什么，又停止了什么？")
def gradient_crosses_truncation():
    return {"passes": {"A", "B", "C"}, "cut": set()}


@mistake("ex_12_7_3",
         en="The state's value is not lost at a truncation boundary. Re-read section 12.3: what is still there, and what stops?",
         zh="状态的数值不会在截断边界处丢失。重读12.3节：什么仍然在，什么停止了？")
def value_cut_at_truncation():
    return {"passes": set(), "cut": {"A", "B", "C"}}


@mistake("ex_12_7_3",
         en="A nonzero carried state does not show what training did (12.8). Which items are things that actually cross or are cut at the boundary?",
         zh="传过去的状态非零，并不能说明训练做了什么（12.8节）。哪些选项才是真正穿过边界、或在边界处被切断的东西？")
def carried_state_proves_tracking():
    return {"passes": {"A", "E"}, "cut": {"B", "C"}}


@mistake("ex_12_7_6",
         en="The problem is not the model's size or how the language models were pretrained. Ask what the backward state at position t has read, and whether the generator has it at that moment.",
         zh="问题不在于模型的大小，也不在于语言模型是怎样预训练的。想一想：位置t的反向状态读过什么，生成器在那一刻是否拥有这些内容。")
def leak_blamed_on_model_size():
    return {"leak": {"C"}, "full_context_ok": {"P", "S"}}


@mistake("ex_12_7_6",
         en="Full context is fine only when the whole input is really available at prediction time. For each task ask: does the model already have the later words when it predicts?",
         zh="只有在预测时确实能拿到完整输入，使用完整上下文才没有问题。对每个任务都问一问：模型在预测时是否已经拥有后面的词？")
def full_context_for_generation():
    return {"leak": {"A", "B"}, "full_context_ok": {"P", "Q", "R", "S"}}


@mistake("ex_12_7_6",
         en="12.8 names sentiment classification as one example, not as the only task: another listed task also sees the whole input before it predicts. For each option ask whether the complete sentence is already given when the model answers.",
         zh="12.8只是举情感分类为例，并没有说它是唯一的任务：列出的任务中还有一个在预测之前也能看到完整的输入。对每个选项都问一问：模型作答时，完整的句子是否已经给定？")
def only_the_example_of_12_8():
    return {"leak": {"A", "B"}, "full_context_ok": {"P"}}
