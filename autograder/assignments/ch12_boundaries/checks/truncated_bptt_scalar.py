"""`truncated_bptt_scalar`: truncated BPTT of h_t = x_t + w h_{t-1} in segments of k steps, the
state's value carried and its gradient cut at each boundary (section 12.3, in the scalar recursion
of Example 12.1 and Table 12.1; exact)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws, probes
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import solution


def public():
    setup = ref.truncated_setup()
    xs, w, targets = setup["xs"], setup["w"], setup["targets"]
    rng = random.Random(1204)
    big = (
        draws.rationals(rng, 12),
        draws.rational(rng, -1, 1, denominators=(2, 3, 4, 5), nonzero=True),
        {t: draws.rational(rng, -2, 2) for t in (3, 7, 11, 12)},
        5,
    )
    return [
        Case(
            (xs, w, targets, 2),
            label={
                "en": "section 12.3 setup: xs = (1, 0, 0, 0), w = 1/2, target 1 at step 4, k = 2",
                "zh": "12.3节的设定：xs = (1, 0, 0, 0)，w = 1/2，目标1设在第4步，k = 2",
            },
        ),
        Case((xs, w, targets, 4), label={"en": "the same with k = 4 (full BPTT)", "zh": "同上，但 k = 4（完整BPTT）"}),
        Case(
            ([1, 0, 0], Fraction(1, 2), {3: 1}, 3),
            label={"en": "Table 12.1 as one segment (k = 3)", "zh": "表12.1作为一个片段（k = 3）"},
        ),
        # targets in both segments: each segment's gradient counts (above, the first segment has none)
        Case(
            ([1, 2, -1], Fraction(1, 2), {1: 0, 2: 0, 3: 0}, 2),
            label={
                "en": (
                    "second text, example 1 (1, 2, -1), a = 1/2, "
                    "with a target 0 at every step instead of at step 3 only, k = 2"
                ),
                "zh": "第二份教材例1：输入 (1, 2, -1)，a = 1/2，每一步都有目标0（而不只在第3步），k = 2",
            },
        ),
        Case(
            (xs, w, targets, 1),
            label={
                "en": "section 12.3 setup with k = 1: every step a segment of its own",
                "zh": "12.3节的设定，但 k = 1：每一步自成一个片段",
            },
        ),
        Case(
            (xs, w, {2: 1}, 2),
            label={
                "en": "section 12.3 setup with the target 1 at step 2, before the boundary, k = 2",
                "zh": "12.3节的设定，但目标1设在第2步，位于边界之前，k = 2",
            },
        ),
        Case(
            big,
            {"h0": Fraction(1, 3)},
            label={
                "en": (
                    "the largest size drawn: T = 12, k = 5 (3 segments, the last one shorter), "
                    "targets at steps 3, 7, 11 and 12, h0 = 1/3"
                ),
                "zh": "抽取范围内最大的规模：T = 12，k = 5（3个片段，最后一个较短），目标在第3、7、11和12步，h0 = 1/3",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    T = rng.randint(2, 12)
    k = rng.randint(1, T - 1)
    steps = set(rng.sample(range(1, T + 1), rng.randint(1, min(3, T)))) | {rng.randint(k + 1, T)}
    targets = {t: draws.rational(rng, -2, 2) for t in sorted(steps)}
    h0 = draws.rational(rng, -1, 1) if rng.random() < 0.5 else 0
    return Case(
        (draws.rationals(rng, T), draws.rational(rng, -1, 1, denominators=(2, 3, 4, 5), nonzero=True), targets, k),
        {"h0": h0},
    )


def _truncation(case: Case) -> tuple[list, int, dict, int]:
    xs, _, targets, k, *rest = case.args
    return list(xs), int(k), dict(targets), rest[0] if rest else case.kwargs.get("h0", 0)


BRANCHES = (
    Branch(
        "k_equals_T",
        lambda case, expected: _truncation(case)[1] == len(_truncation(case)[0]),
        en="k = T: one segment, no boundary (full BPTT)",
        zh="k = T：只有一个片段，没有边界（完整BPTT）",
    ),
    Branch(
        "k_one",
        lambda case, expected: _truncation(case)[1] == 1 and len(_truncation(case)[0]) > 1,
        en="k = 1: every step a segment of its own",
        zh="k = 1：每一步自成一个片段",
    ),
    Branch(
        "k_not_dividing_T",
        lambda case, expected: len(_truncation(case)[0]) % _truncation(case)[1] != 0,
        en="k does not divide T: the last segment is shorter",
        zh="k 不整除 T：最后一个片段较短",
    ),
    Branch(
        "targets_only_before_boundary",
        lambda case, expected: (lambda xs, k, targets, h0: k < len(xs) and max(targets) <= k)(*_truncation(case)),
        en="every target before the first boundary",
        zh="所有目标都在第一个边界之前",
    ),
    Branch(
        "targets_only_after_boundary",
        lambda case, expected: (lambda xs, k, targets, h0: k < len(xs) and min(targets) > k)(*_truncation(case)),
        en="every target after the first boundary",
        zh="所有目标都在第一个边界之后",
    ),
    Branch(
        "targets_on_both_sides",
        lambda case, expected: (lambda xs, k, targets, h0: min(targets) <= k < max(targets))(*_truncation(case)),
        en="targets on both sides of a boundary",
        zh="边界两侧都有目标",
    ),
    Branch(
        "several_boundaries",
        lambda case, expected: (lambda xs, k, targets, h0: len(xs) > 2 * k)(*_truncation(case)),
        en="two boundaries or more",
        zh="两个或更多边界",
    ),
    Branch("nonzero_h0", lambda case, expected: _truncation(case)[3] != 0, en="h0 is not zero", zh="h0 不为零"),
    Branch(
        "largest",
        lambda case, expected: len(_truncation(case)[0]) == 12,
        en="the largest size drawn: T = 12",
        zh="抽取范围内最大的规模：T = 12",
    ),
)


PROBES = (
    probes.truncation_value(),
    probes.truncation_not_full(),
    probes.truncation_detached(),
)


CHECK = Check(
    "truncated_bptt_scalar",
    ref.truncated_bptt_scalar,
    public,
    draw=draw,
    exact=True,
    probes=PROBES,
    branches=BRANCHES,
    points=3,
    call="twice",
    kept="gradient_kept_between_calls",
)


_truncated_bptt_scalar = solution.truncated_bptt_scalar


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


@mistake(
    "truncated_bptt_scalar",
    en=(
        "The gradient flowed back across the segment boundary as in full BPTT. "
        "Truncation keeps the state's value but treats it as a constant at the boundary: "
        "which dependencies on w remain inside a segment? (section 12.3)"
    ),
    zh=(
        "梯度像完整BPTT那样沿反向穿过了片段边界。截断保留状态的数值，但在边界处把它当作常数："
        "一个片段内还剩下哪些对w的依赖？（12.3节）"
    ),
)
def no_detach_at_boundary(xs, w, targets, k, h0=0):
    return _truncated_bptt_scalar(xs, w, targets, len(xs), h0)


@mistake(
    "truncated_bptt_scalar",
    en=(
        "The state's value did not survive the segment boundary. Truncation stops only the gradient; "
        "what value should the next segment start from? (section 12.3: the value is still there)"
    ),
    zh="状态的数值没能穿过片段边界保留下来。截断只停止梯度；下一个片段应当从什么数值开始？（12.3节：值还在）",
)
def value_zeroed_at_boundary(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, list(range(0, len(xs), k)), h0, 0)
    return {"states": states, "loss": loss, "grad": sum(grads)}


@mistake(
    "truncated_bptt_scalar",
    en=(
        "The segment boundaries are in the wrong place: with segments of k steps, "
        "count which steps belong to the first segment and where the second one begins."
    ),
    zh="片段边界的位置不对：片段长为k步时，数一数哪些步属于第一个片段，第二个片段从哪一步开始。",
)
def boundary_one_step_early(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, [0] + list(range(k - 1, len(xs), k)), h0, None)
    return {"states": states, "loss": loss, "grad": sum(grads)}


@mistake(
    "truncated_bptt_scalar",
    en=(
        "Only one segment's gradient survived. Each segment's loss gives its own part of the gradient; "
        "what happens to the parts from the earlier segments?"
    ),
    zh="只有一个片段的梯度保留了下来。每个片段的损失都给出梯度的一部分；前面那些片段的部分去哪儿了？",
)
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


@mistake(
    "truncated_bptt_scalar",
    en=(
        "A window of k steps was started at every step, so the windows slide forward one step at a time, overlap, "
        "and count one target's error in several of them. The segments of truncated BPTT follow one another without "
        "overlapping: re-read which steps make up each segment and where the next one begins (section 12.3)."
    ),
    zh=(
        "每一步都开始了一个k步的窗口，于是窗口每次只向前滑动一步，彼此重叠，同一个目标的误差被计入了好几个窗口。"
        "截断式BPTT的片段一个接一个，互不重叠：重读每个片段由哪些步组成，下一个片段从哪里开始（12.3节）。"
    ),
)
def window_slides_by_one(xs, w, targets, k, h0=0):
    return _windows(xs, w, targets, k, h0, range(len(xs)))


@mistake(
    "truncated_bptt_scalar",
    en=(
        "The windows of k steps slide forward one step at a time (every full window of k steps), "
        "so they overlap and one target's error is counted in several of them. "
        "The segments of truncated BPTT follow one another without overlapping: "
        "re-read which steps make up each segment and where the next one begins (section 12.3)."
    ),
    zh=(
        "k步的窗口每次只向前滑动一步（取遍所有完整的k步窗口），于是彼此重叠，同一个目标的误差被计入了好几个窗口。"
        "截断式BPTT的片段一个接一个，互不重叠：重读每个片段由哪些步组成，下一个片段从哪里开始（12.3节）。"
    ),
)
def full_windows_slide_by_one(xs, w, targets, k, h0=0):
    return _windows(xs, w, targets, k, h0, range(max(len(xs) - k + 1, 1)))


@mistake(
    "truncated_bptt_scalar",
    en="Called a second time on the same inputs, your function returned another gradient: the gradient is added "
    "to across calls and never reset - a mutable default argument, a global or an attribute kept between calls. "
    "Start every call from grad = 0: the sum over the segments belongs to one pass (section 12.3).",
    zh="用同样的输入第二次调用时，你的函数返回了另一个梯度：梯度在多次调用之间一直累加，从未清零——"
    "可变的默认参数、全局变量或在调用之间保留的属性。每次调用都要从 grad = 0 开始：对各片段的求和只属于一次计算（12.3节）。",
)
def gradient_kept_between_calls(xs, w, targets, k, h0=0, kept=[]):  # noqa: B006  (the mistake itself)
    result = _truncated_bptt_scalar(xs, w, targets, k, h0)
    kept.append(result["grad"])
    return {**result, "grad": sum(kept)}


@mistake(
    "truncated_bptt_scalar",
    en="At the first step of each segment the gradient took the carried state as 0. Detaching keeps the state's "
    "value and only stops the gradient flowing back through it: the term delta_t * h_{t-1} at the boundary still "
    "uses h_{t-1}'s value, a constant (section 12.3).",
    zh="在每个片段的第一步，梯度把带过来的状态当成了0。截断保留状态的数值，只是不让梯度沿它反向流过："
    "边界处的项 delta_t * h_{t-1} 仍然使用h_{t-1}的数值，只是把它当作常数（12.3节）。",
)
def carried_value_zeroed_in_gradient(xs, w, targets, k, h0=0):
    result = _truncated_bptt_scalar(xs, w, targets, k, h0)
    states, grad = result["states"], 0
    for start in range(0, len(xs), k):
        carry = 0
        for t in reversed(range(start, min(start + k, len(xs)))):
            delta = carry + (states[t] - targets[t + 1] if t + 1 in targets else 0)
            grad = grad + delta * (0 if t == start else states[t - 1])
            carry = delta * w
    return {**result, "grad": grad}
