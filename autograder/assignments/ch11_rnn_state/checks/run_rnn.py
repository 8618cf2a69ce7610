"""`run_rnn`: the RNN unrolled in time from h_0 = 0, the state, logits and probabilities of every read
(Figure 11.1, Tables 11.3 and 11.4, Example 11.2)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from ....vocabulary import template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import LONGEST, _draw_tokens_of_length, _tokens, book_model, random_model


def public():
    m = book_model()
    labels = {
        "short_red": {"en": "Table 11.3: red key is", "zh": "表11.3：red key is"},
        "short_blue": {"en": "Example 11.2: blue key is", "zh": "例11.2：blue key is"},
        "long_red": {"en": "Table 11.4: red, six fillers, key is", "zh": "表11.4：red，六个filler，再接 key is"},
        "long_blue": {"en": "Table 11.4: blue, six fillers, key is", "zh": "表11.4：blue，六个filler，再接 key is"},
    }
    ids = m["vocabulary"]
    longest = [ids["red"], *[ids["filler"]] * (LONGEST - 3), ids["key"], ids["is"]]
    return [
        *(Case((m["inputs"][name], m), label=label) for name, label in labels.items()),
        Case(
            ([ids["red"]], m),
            label={
                "en": "Table 11.2, read 1 alone: the one-token input red",
                "zh": "表11.2，只有第1次读取：只含一个token的输入red",
            },
        ),
        Case(
            (longest, m),
            label={
                "en": f"Table 11.4 stretched: red, {LONGEST - 3} fillers, key is ({LONGEST} tokens, the longest input "
                "graded)",
                "zh": f"加长的表11.4：red，{LONGEST - 3}个filler，再接 key is（{LONGEST}个token，评分时最长的输入）",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    model = random_model(rng)
    return Case((_tokens(rng, model, 2), model))  # one read cannot tell a carried state from a refetched clue


def _cuts_on_the_way(tokens, model) -> bool:
    """True when some read of `tokens` has a negative pre-activation (ReLU cuts it)."""
    h = np.zeros(len(model["b_h"]))
    for token in tokens:
        pre = (
            np.asarray(model["embeddings"][token], dtype=float) @ model["W_x"]
            + h @ np.asarray(model["W_h"], dtype=float)
            + model["b_h"]
        )
        if pre.min() < 0:
            return True
        h = np.maximum(pre, 0)
    return False


def _zero_input(case) -> bool:
    tokens, model = case.args
    return any(not np.any(np.asarray(model["embeddings"][token], dtype=float)) for token in tokens)


def _draw_run_rnn_zero_input(rng: random.Random) -> Case:
    """A random model whose filler embedding is zero (as in the book), read among the tokens."""
    tokens, model = draw(rng).args
    filler = model["vocabulary"]["filler"]
    model["embeddings"][filler] = 0.0
    tokens[rng.randrange(1, len(tokens))] = filler
    return Case((tokens, model))


BRANCHES = (
    Branch(
        "length_one", lambda case, _: len(case.args[0]) == 1, None, en="a one-token input", zh="只含一个token的输入"
    ),
    Branch(
        "longest",
        lambda case, _: len(case.args[0]) == LONGEST,
        _draw_tokens_of_length(LONGEST),
        en=f"the longest input graded ({LONGEST} tokens)",
        zh=f"评分时最长的输入（{LONGEST}个token）",
    ),
    Branch(
        "zero_input",
        lambda case, _: _zero_input(case),
        _draw_run_rnn_zero_input,
        en="a read of a token whose embedding is zero (filler, key, is)",
        zh="读入嵌入为零的token（filler、key、is）",
    ),
    Branch(
        "relu_cuts",
        lambda case, _: _cuts_on_the_way(*case.args),
        draw,
        en="a read whose pre-activation is negative, cut by ReLU",
        zh="某次读取的预激活值为负，被ReLU截掉",
    ),
)


CHECK = Check(
    "run_rnn",
    ref.run_rnn,
    public,
    draw=draw,
    call="after_warm_up",
    points=3,
    branches=BRANCHES,
    kept="state_carried_between_calls",
)


#: The reference solution's functions (the notebook's solution cells) that the mistakes below call.
_solution = template.module(Path(__file__).parents[1] / "notebook.md")
output_logits, rnn_step, softmax = _solution.output_logits, _solution.rnn_step, _solution.softmax


@mistake(
    "run_rnn",
    en="The state of one call leaked into the next: this call did not start from h_0 = 0. Each independent test "
    "starts from a zero state (section 11.4); keep no memory between calls (look for a mutable default argument or a "
    "global).",
    zh="上一次调用的状态泄漏到了下一次：这次调用没有从 h_0 = 0 开始。每个独立测试都从零状态开始（11.4节）；"
    "不要在调用之间保留任何记忆（检查是否用了可变的默认参数或全局变量）。",
)
def state_carried_between_calls(token_ids, model, memory={}):  # noqa: B006  (the mistake itself)
    h = memory.get("h", np.zeros(len(model["b_h"])))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
    memory["h"] = h
    return steps


@mistake(
    "run_rnn",
    en="After the first read, the old state was replaced by the first token's embedding. Each read must combine the "
    "current input with the state the previous read produced (Table 11.2: read 3 halves [0.5, 0], it does not go back "
    "to red's embedding).",
    zh="第一次读取之后，旧状态被换成了第一个token的嵌入。"
    "每次读取都必须把当前输入与上一次读取产生的状态结合起来（表11.2：第3次读取把 [0.5, 0] 减半，"
    "并没有回头重新取出red的嵌入）。",
)
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


@mistake(
    "run_rnn",
    en="The probabilities were computed from the hidden state. Softmax belongs to the logits z_t = h_t W_y + b_y, one "
    "score per candidate; hidden coordinates are not candidate scores (section 11.2).",
    zh="概率是从隐藏状态算出来的。Softmax应当作用于 logits z_t = h_t W_y + b_y，每个候选一个得分；"
    "隐藏坐标不是候选的得分（11.2节）。",
)
def softmax_over_hidden_state(token_ids, model):
    h = np.zeros(len(model["b_h"]))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(h)})
    return steps


@mistake(
    "run_rnn",
    en="Each candidate was normalised across the reads. At every step the probabilities are shared among the "
    "candidates: softmax over that step's logits, so each step's probabilities sum to one.",
    zh="每个候选都跨各次读取做了归一化。每一步的概率是在各候选之间分配的：对该步的logits做softmax，"
    "使每一步的概率之和为一。",
)
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
