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
from ...grading.spec import Case, Check
from . import reference as ref

def third_text_step(W_h: float = 0.5) -> TanhStep:
    """The third text's scalar tanh RNN: W_x = 1, W_h = 0.5, b = 0 (states 0.7616, 0.3634, -0.6741 for 1, 0, -1)."""
    return TanhStep([[1.0]], [[W_h]], [0.0], name=f"third text: W_x = 1, W_h = {W_h}, b = 0")


def _column(values) -> np.ndarray:
    return np.array(values, dtype=float).reshape(-1, 1)


# ----------------------------------------------------------------------------- draws

def _step(rng: random.Random, D: int, d: int) -> TanhStep:
    return TanhStep.seeded(rng.randrange(1, 10**6), D, d)


def _dims(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 3), rng.randint(1, 3)


def _inputs(rng: random.Random, T: int, D: int) -> np.ndarray:
    return draws.uniform(rng, (T, D), -1.5, 1.5)


def _h0(rng: random.Random, d: int) -> np.ndarray:
    return draws.uniform(rng, (d,), -0.6, 0.6)


def _lengths(rng: random.Random, B: int, T: int) -> np.ndarray:
    lengths = [rng.randint(1, T) for _ in range(B)]
    lengths[rng.randrange(B)] = rng.randint(1, T - 1)  # at least one padded row
    return np.array(lengths)


def _draw_independent(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), [_inputs(rng, rng.randint(1, 12), D) for _ in range(rng.randint(2, 4))], _h0(rng, d)))


def _draw_stream(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), [_inputs(rng, rng.randint(1, 6), D) for _ in range(rng.randint(2, 4))], _h0(rng, d)))


def _draw_entities(rng: random.Random) -> Case:
    D, d = _dims(rng)
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


def _draw_masked(rng: random.Random) -> Case:
    D, d = _dims(rng)
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    return Case((_step(rng, D, d), draws.uniform(rng, (B, T, D), -1.5, 1.5), _lengths(rng, B, T), _h0(rng, d)))


def _draw_loss(rng: random.Random) -> Case:
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    mask = np.arange(T)[None, :] < _lengths(rng, B, T)[:, None]
    return Case((draws.uniform(rng, (B, T), 0.05, 3.0), mask))


def _draw_generation(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), _inputs(rng, rng.randint(1, 12), D), _h0(rng, d)))


def _draw_bidirectional(rng: random.Random) -> Case:
    D, d = _dims(rng)
    return Case((_step(rng, D, d), _step(rng, D, d), _inputs(rng, rng.randint(1, 12), D), _h0(rng, d)))


# ----------------------------------------------------------------------------- public (book) cases

def _public_independent():
    return [Case((third_text_step(), [_column([1, 0, -1]), _column([-1])], np.zeros(1)),
                 label={"en": "third text's tanh RNN: (1, 0, -1), then an unrelated sequence (-1)", "zh": "第三份教材的 tanh RNN：先读 (1, 0, -1)，再读一条无关的序列 (-1)"})]


def _public_stream():
    return [Case((third_text_step(), [_column([1, 0]), _column([-1])], np.zeros(1)),
                 label={"en": "third text's (1, 0, -1) cut into two segments of one stream", "zh": "第三份教材的 (1, 0, -1)，切成同一条输入流的两个片段"})]


def _public_entities():
    step = third_text_step()
    return [Case((step, [("a", np.array([1.0])), ("a", np.array([0.0])), ("b", np.array([-1.0]))], np.zeros(1)),
                 label={"en": "third text's inputs; the entity changes before the third", "zh": "第三份教材的输入；读到第三个输入之前实体已经改变"}),
            Case((step, [("a", np.array([1.0])), ("b", np.array([0.0])), ("a", np.array([-1.0]))], np.zeros(1)),
                 label={"en": "third text's inputs; entity a comes back at step 3", "zh": "第三份教材的输入；实体a在第3步再次出现"})]


def _public_truncated():
    setup = ref.truncated_setup()
    xs, w, targets = setup["xs"], setup["w"], setup["targets"]
    return [Case((xs, w, targets, 2), label={"en": "section 12.3 setup: xs = (1, 0, 0, 0), w = 1/2, target 1 at step 4, k = 2", "zh": "12.3节的设定：xs = (1, 0, 0, 0)，w = 1/2，目标1设在第4步，k = 2"}),
            Case((xs, w, targets, 4), label={"en": "the same with k = 4 (full BPTT)", "zh": "同上，但 k = 4（完整BPTT）"}),
            Case(([1, 0, 0], Fraction(1, 2), {3: 1}, 3), label={"en": "Table 12.1 as one segment (k = 3)", "zh": "表12.1作为一个片段（k = 3）"}),
            # targets in both segments: each segment's gradient counts (above, the first segment has none)
            Case(([1, 2, -1], Fraction(1, 2), {1: 0, 2: 0, 3: 0}, 2),
                 label={"en": "second text, example 1 (1, 2, -1), a = 1/2, with a target 0 at every step instead of at step 3 only, k = 2", "zh": "第二份教材例1：输入 (1, 2, -1)，a = 1/2，每一步都有目标0（而不只在第3步），k = 2"})]


def _public_masked():
    rng = random.Random(2024)
    return [Case((third_text_step(), np.array([[[1.0], [0.0], [-1.0]], [[1.0], [0.0], [5.0]]]), np.array([3, 2]), np.zeros(1)),
                 label={"en": "third text's tanh RNN; row 2 has 2 valid steps, then padding", "zh": "第三份教材的 tanh RNN；第2行有2个有效步，之后是填充"}),
            Case((TanhStep.seeded(2024, 4, 3), draws.uniform(rng, (2, 5, 4)), np.array([5, 3]), np.zeros(3)),
                 label={"en": "third text's shapes (2, 5, 4) -> (2, 5, 3); the second sentence has 3 valid tokens", "zh": "第三份教材的形状 (2, 5, 4) -> (2, 5, 3)；第二句话有3个有效token"}),
            # the rows above come longest first; here the shorter row comes first and must stay first
            Case((third_text_step(), np.array([[[1.0], [0.0], [5.0]], [[1.0], [0.0], [-1.0]]]), np.array([2, 3]), np.zeros(1)),
                 label={"en": "third text's tanh RNN; the padded row first (lengths 2, 3)", "zh": "第三份教材的 tanh RNN；含填充的行排在前面（长度为2和3）"})]


def _public_loss():
    losses = np.array([[0.5, 0.25, 1.0, 0.75, 2.0], [1.5, 0.5, 0.25, 9.0, 9.0]])
    return [Case((losses, np.arange(5)[None, :] < np.array([5, 3])[:, None]), label={"en": "third text's masked loss: lengths 5 and 3, N_valid = 8", "zh": "第三份教材的掩码损失：长度为5和3，N_valid = 8"})]


def _public_generation():
    return [Case((third_text_step(), _column([1, 0, -1]), np.zeros(1)), label={"en": "third text's tanh RNN on (1, 0, -1)", "zh": "第三份教材的 tanh RNN 读取 (1, 0, -1)"})]


def _public_bidirectional():
    return [Case((third_text_step(), third_text_step(-0.5), _column([1, 0, -1]), np.zeros(1)),
                 label={"en": "third text's step forward, W_h = -0.5 backward, on (1, 0, -1)", "zh": "正向用第三份教材的单步，反向用 W_h = -0.5，输入 (1, 0, -1)"})]


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
    Check("run_independent", ref.run_independent, _public_independent, draw=_draw_independent, probes=PROBES["run_independent"], points=1),
    Check("run_stream", ref.run_stream, _public_stream, draw=_draw_stream, probes=PROBES["run_stream"], points=1),
    Check("run_entities", ref.run_entities, _public_entities, draw=_draw_entities, probes=PROBES["run_entities"], points=2),
    Check("truncated_bptt_scalar", ref.truncated_bptt_scalar, _public_truncated, draw=_draw_truncated, exact=True,
          probes=PROBES["truncated_bptt_scalar"], points=3),
    Check("ex_12_7_3", ref.ex_12_7_3, _exercise({"en": "exercise 12.7.3 (reference answer 12.8)", "zh": "习题12.7.3（参考解答12.8）"}), reveal=False, points=0),  # a self-check: the points are its written answer's
    Check("masked_rnn_forward", ref.masked_rnn_forward, _public_masked, draw=_draw_masked, probes=PROBES["masked_rnn_forward"], points=3),
    Check("masked_mean_loss", ref.masked_mean_loss, _public_loss, draw=_draw_loss, probes=PROBES["masked_mean_loss"], points=1),
    Check("generation_features", ref.generation_features, _public_generation, draw=_draw_generation, probes=PROBES["generation_features"], points=1),
    Check("bidirectional_features", ref.bidirectional_features, _public_bidirectional, draw=_draw_bidirectional,
          probes=PROBES["bidirectional_features"], points=2),
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
         en="The backward states are in reading order (from x_T back to x_1), not aligned with the positions. Which backward state belongs beside the forward state at step t?",
         zh="反向状态按读取顺序排列（从x_T倒读到x_1），没有与位置对齐。哪一个反向状态应当放在第t步的前向状态旁边？")
def backward_not_realigned(step_f, step_b, xs, h0):
    return np.concatenate([_generation_features(step_f, xs, h0), _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)], axis=1)


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
