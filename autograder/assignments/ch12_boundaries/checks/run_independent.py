"""`run_independent`: unrelated sequences, each started again from h0 (the second text's rule:
handing one sample's final state to an unrelated one invents context, a data leak)."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import probes
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import (
    arg,
    column,
    nonzero_h0,
    random_dims,
    random_h0,
    random_inputs,
    random_step,
    replace_after,
    seeded,
    size,
    solution,
    third_text_step,
    unequal_widths,
)


def public():
    rng, step = seeded(1201)
    return [
        Case(
            (third_text_step(), [column([1, 0, -1]), column([-1])], np.zeros(1)),
            label={
                "en": "third text's tanh RNN: (1, 0, -1), then an unrelated sequence (-1)",
                "zh": "第三份教材的 tanh RNN：先读 (1, 0, -1)，再读一条无关的序列 (-1)",
            },
        ),
        Case(
            (third_text_step(), [column([1, 0, -1])], np.zeros(1)),
            label={
                "en": "third text's tanh RNN: (1, 0, -1) as the only sequence",
                "zh": "第三份教材的 tanh RNN：(1, 0, -1) 是唯一的一条序列",
            },
        ),
        Case(
            (step, [random_inputs(rng, 12, 3) for _ in range(4)], random_h0(rng, 3)),
            label={
                "en": "the largest size drawn: 4 sequences of 12 steps, D = d = 3, h0 not zero",
                "zh": "抽取范围内最大的规模：4条序列，每条12步，D = d = 3，h0不为零",
            },
        ),
    ]


def draw(rng: random.Random, dims=random_dims) -> Case:
    D, d = dims(rng)
    return Case(
        (
            random_step(rng, D, d),
            [random_inputs(rng, rng.randint(1, 12), D) for _ in range(rng.randint(2, 4))],
            random_h0(rng, d),
        )
    )


def _draw_independent_twice(rng: random.Random) -> Case:
    """The same inputs twice among unrelated sequences: both must give the same states."""
    step, sequences, h0 = draw(rng).args
    sequences = sequences[:3]
    sequences.insert(rng.randint(1, len(sequences)), np.array(sequences[0], copy=True))
    return Case((step, sequences, h0))


BRANCHES = (
    Branch(
        "one_sequence",
        arg(1, lambda sequences: len(sequences) == 1),
        en="a list of one sequence",
        zh="列表里只有一条序列",
    ),
    Branch(
        "length_one_sequence",
        arg(1, lambda sequences: any(len(xs) == 1 for xs in sequences)),
        en="a sequence of one step",
        zh="只有一步的序列",
    ),
    Branch(
        "same_inputs_twice",
        arg(
            1,
            lambda sequences: any(np.array_equal(a, b) for i, a in enumerate(sequences) for b in sequences[i + 1 :]),
        ),
        _draw_independent_twice,
        en="the same inputs twice: both sequences must give the same states",
        zh="同样的输入出现两次：两条序列必须得到相同的状态",
    ),
    nonzero_h0(2),
    unequal_widths(draw),
    Branch(
        "largest",
        lambda case, expected: (
            len(case.args[1]) == 4 and all(len(xs) == 12 for xs in case.args[1]) and size(case.args[0]) == (3, 3)
        ),
        en="the largest size drawn: 4 sequences of 12 steps, D = d = 3",
        zh="抽取范围内最大的规模：4条序列，每条12步，D = d = 3",
    ),
)


def _independent_after(case: Case, t: int) -> Case:
    step, sequences, h0 = case.args
    return Case((step, [replace_after(xs, t, 100 * t + i) for i, xs in enumerate(sequences)], h0))


def _independent_pieces(case: Case):
    step, sequences, h0 = case.args
    for i, xs in enumerate(sequences):
        yield (
            f"sequence {i + 1}",
            Case((step, [xs], h0)),
            lambda out, i=i: probes.steps_view()(out[i]),
            lambda out: probes.steps_view()(out[0]),
        )


PROBES = (
    probes.alone(
        _independent_pieces,
        message={
            "en": (
                "State-boundary rule broken: {piece} gave different states after the others than when run "
                "alone (first at {where}). Independent sequences must not pass anything to each other."
            ),
            "zh": (
                "违反状态边界规则：{piece}接在其他序列之后运行，得到的状态与单独运行时不同（最早出现在{where}）。"
                "相互独立的序列之间不能传递任何东西。"
            ),
        },
    ),
    probes.causal(probes.sequences_view, lambda c: max(map(len, c.args[1])), _independent_after),
)


CHECK = Check(
    "run_independent",
    ref.run_independent,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=1,
)


_run_independent, _run_stream = solution.run_independent, solution.run_stream


@mistake(
    "run_independent",
    en=(
        "A later sequence started from the state an earlier one left behind. These sequences are unrelated: "
        "where must each one's state come from? (second text: carrying state into an unrelated sample invents "
        "context and leaks data)"
    ),
    zh=(
        "后一条序列从前一条序列留下的状态开始。这些序列彼此无关：每条序列的状态应当从哪里来？（第二份教材："
        "把状态带进无关的样本，会凭空造出上下文，并造成数据泄漏）"
    ),
)
def state_carried_across_sequences(step, sequences, h0):
    return _run_stream(step, sequences, h0)


@mistake(
    "run_independent",
    en=(
        "Each returned array should hold the states produced by reading the inputs, one row per input; "
        "check what its first row is and how many rows it has."
    ),
    zh="返回的每个数组应当保存读取输入后产生的状态，每个输入一行；检查它的第一行是什么，以及它有多少行。",
)
def initial_state_included(step, sequences, h0):
    return [np.vstack([np.asarray(h0, dtype=float), states]) for states in _run_independent(step, sequences, h0)]
