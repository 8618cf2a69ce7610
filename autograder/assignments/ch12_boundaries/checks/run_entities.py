"""`run_entities`: a stream of (entity id, input) pairs, the state reset to h0 whenever the entity
changes, even to one seen before (the second text: carry the state correctly per entity)."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import probes
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import (
    arg,
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
    step = third_text_step()
    rng, big = seeded(1203)
    ids = [entity for entity in (0, 1, 0, 2, 0) for _ in range(4)]
    return [
        Case(
            (step, [("a", np.array([1.0])), ("a", np.array([0.0])), ("b", np.array([-1.0]))], np.zeros(1)),
            label={
                "en": "third text's inputs; the entity changes before the third",
                "zh": "第三份教材的输入；读到第三个输入之前实体已经改变",
            },
        ),
        Case(
            (step, [("a", np.array([1.0])), ("b", np.array([0.0])), ("a", np.array([-1.0]))], np.zeros(1)),
            label={
                "en": "third text's inputs; entity a comes back at step 3",
                "zh": "第三份教材的输入；实体a在第3步再次出现",
            },
        ),
        Case(
            (step, [("a", np.array([1.0])), ("a", np.array([0.0])), ("a", np.array([-1.0]))], np.zeros(1)),
            label={"en": "third text's inputs, all of one entity a", "zh": "第三份教材的输入，全部属于同一个实体a"},
        ),
        Case(
            (step, [("a", np.array([1.0]))], np.zeros(1)),
            label={"en": "a stream of one pair: entity a, input 1", "zh": "只有一对的输入流：实体a，输入1"},
        ),
        Case(
            (big, list(zip(ids, random_inputs(rng, 20, 3))), random_h0(rng, 3)),
            label={
                "en": (
                    "the largest size drawn: 5 runs of 4 steps, of entities 0, 1, 0, 2, 0 (the id 0 is falsy), "
                    "D = d = 3, h0 not zero"
                ),
                "zh": (
                    "抽取范围内最大的规模：5段，每段4步，实体依次为0、1、0、2、0（id 0在布尔上下文中为假），"
                    "D = d = 3，h0不为零"
                ),
            },
        ),
    ]


def draw(rng: random.Random, dims=random_dims) -> Case:
    D, d = dims(rng)
    pool = rng.choice([[0, 1, 2], ["alice", "bob", "carol"], [17, 4], ["sensor-a", "sensor-b"]])
    stream, entity = [], None
    for _ in range(rng.randint(2, 5)):
        entity = rng.choice([e for e in pool if e != entity])
        stream += [(entity, row) for row in random_inputs(rng, rng.randint(1, 4), D)]
    return Case((random_step(rng, D, d), stream, random_h0(rng, d)))


BRANCHES = (
    Branch(
        "one_entity",
        arg(1, lambda stream: len(stream) > 1 and len({entity for entity, _ in stream}) == 1),
        en="one entity throughout: no reset at all",
        zh="自始至终只有一个实体：完全不重置",
    ),
    Branch("one_pair", arg(1, lambda stream: len(stream) == 1), en="a stream of a single pair", zh="只有一对的输入流"),
    Branch(
        "change_every_step",
        arg(1, lambda stream: len(stream) > 1 and all(a[0] != b[0] for a, b in zip(stream, stream[1:]))),
        en="the entity changes at every step",
        zh="实体每一步都在变化",
    ),
    Branch(
        "entity_returns",
        arg(
            1,
            lambda stream: any(
                stream[t][0] != stream[t - 1][0] and stream[t][0] in {e for e, _ in stream[:t]}
                for t in range(1, len(stream))
            ),
        ),
        en="an entity comes back after another one",
        zh="一个实体在另一个实体之后再次出现",
    ),
    Branch(
        "falsy_entity_id",
        arg(1, lambda stream: any(not entity for entity, _ in stream)),
        en="an entity id that is falsy (0), in a run of several steps",
        zh="在布尔上下文中为假的实体id（0），连续出现好几步",
    ),
    nonzero_h0(2),
    unequal_widths(draw),
    Branch(
        "largest",
        lambda case, expected: len(case.args[1]) == 20 and size(case.args[0]) == (3, 3),
        en="the largest size drawn: 5 runs of 4 steps, D = d = 3",
        zh="抽取范围内最大的规模：5段，每段4步，D = d = 3",
    ),
)


def _entities_after(case: Case, t: int) -> Case:
    step, stream, h0 = case.args
    xs = replace_after([x for _, x in stream], t, 100 * t)
    return Case((step, [(entity, x) for (entity, _), x in zip(stream, xs)], h0))


def _entity_pieces(case: Case):
    step, stream, h0 = case.args
    for s in range(1, len(stream)):
        if stream[s][0] != stream[s - 1][0]:
            yield (
                f"the run of entity {stream[s][0]!r} that starts at step {s + 1}",
                Case((step, stream[s:], h0)),
                lambda out, s=s: probes.steps_view()(out)[s:],
                probes.steps_view(offset=s),
            )


PROBES = (
    probes.alone(
        _entity_pieces,
        message={
            "en": (
                "State-boundary rule broken at an entity change: {piece} gave different states than the same part of "
                "the stream run alone (first at {where}). A new entity must start as if nothing came before it."
            ),
            "zh": (
                "在实体切换处违反状态边界规则："
                "{piece}得到的状态，与把输入流的同一部分单独运行时不同（最早出现在{where}）。"
                "新实体必须像前面什么都没有一样开始。"
            ),
        },
    ),
    probes.causal(probes.steps_view(), lambda c: len(c.args[1]), _entities_after),
)


CHECK = Check(
    "run_entities",
    ref.run_entities,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=2,
)


_run_stream = solution.run_stream


@mistake(
    "run_entities",
    en=(
        "The state ran on from one entity into the next. Where do the entity boundaries fall in the stream, "
        "and what should a new entity start from? (second text: reset at entity boundaries)"
    ),
    zh=(
        "状态从一个实体一路延续到了下一个实体。输入流中的实体边界在哪里？新实体应当从什么状态开始？（第二份教材："
        "在实体边界重置状态）"
    ),
)
def no_reset_on_entity_change(step, stream, h0):
    return _run_stream(step, [np.array([x for _, x in stream], dtype=float)], h0)[0]


@mistake(
    "run_entities",
    en=(
        "When an entity comes back after another one, its old state was picked up again. "
        "The contract resets on every change of entity id, whatever came before: re-read when the state is reset."
    ),
    zh=(
        "一个实体在另一个实体之后再次出现时，又接上了它原来的状态。接口约定要求："
        "实体id每变化一次，状态就重置一次，不管之前出现过什么。重读接口约定中何时重置状态的说明。"
    ),
)
def entity_state_resumed(step, stream, h0):
    saved, states = {}, []
    for entity, x in stream:
        h = step(np.asarray(x, dtype=float), saved.get(entity, np.asarray(h0, dtype=float)))
        saved[entity] = h
        states.append(h)
    return np.array(states)
