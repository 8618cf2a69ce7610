"""gru_step: one GRU step in Cho's convention (section 12.4.2; Example 12.4 and the third text's GRU
written as steps, then full matrices with a U_g that mixes coordinates, where the reset's placement
matters)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from ....vocabulary import draws, template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import STEP_D, STEP_M, full_matrix, gate_bias, logit, near, pattern, saturate


def _scalar_gru_params(setup: dict) -> dict:
    return {
        "A_r": np.zeros((2, 1)),
        "A_z": np.zeros((2, 1)),
        "W_g": np.array([[float(setup["W_g"])]]),
        "U_g": np.array([[float(setup["U_g"])]]),
        "b_r": np.array([logit(setup["r"])]),
        "b_z": np.array([logit(setup["z"])]),
        "b_g": np.array([float(setup["b_g"])]),
    }


def public():
    e4, t3 = ref.EXAMPLE_12_4, ref.TEXT3_GRU
    two = {
        "A_r": np.array([[0.5, -0.5], [1.0, 0.25], [-0.75, 0.5]]),
        "A_z": np.array([[-0.25, 0.5], [0.5, -1.0], [0.25, 0.75]]),
        "W_g": np.array([[0.5, -0.25]]),
        "U_g": np.array([[0.25, 1.0], [-1.0, 0.5]]),
        "b_r": np.array([-1.0, 0.5]),
        "b_z": np.array([0.5, -0.25]),
        "b_g": np.array([0.0, 0.125]),
    }
    wide = {
        "A_r": pattern(STEP_M + STEP_D, STEP_D, 4),
        "A_z": pattern(STEP_M + STEP_D, STEP_D, 5),
        "W_g": pattern(STEP_M, STEP_D, 6),
        "U_g": 1.5 * pattern(STEP_D, STEP_D, 7),
        "b_r": np.array([0.5, 30.0, -0.25, 0.0, 1.0]),
        "b_z": np.array([-30.0, 0.25, 0.5, -1.0, 0.0]),
        "b_g": np.array([0.125, -0.5, 0.25, 0.0, -0.25]),
    }
    return [
        Case(
            (np.array([float(e4["x"])]), np.array([float(e4["h_prev"])]), _scalar_gru_params(e4)),
            label={
                "en": (
                    "Example 12.4 as a step: h_prev 0.8, biases logit(0.25), logit(0.9), no input contribution, U_g = 1"
                ),
                "zh": "例12.4写成完整的一步：h_prev 0.8，偏置为 logit(0.25), logit(0.9)，当前输入不作贡献，U_g = 1",
            },
        ),
        Case(
            (np.array([float(t3["x"])]), np.array([float(t3["h_prev"])]), _scalar_gru_params(t3)),
            label={
                "en": "third text's GRU as a step: x 1, h_prev 0.8, r 0.25, z 0.75, W_g 0.5, U_g 1",
                "zh": "第三份教材的GRU写成完整的一步：x 1，h_prev 0.8，r 0.25，z 0.75，W_g 0.5，U_g 1",
            },
        ),
        Case(
            (np.array([1.0]), np.array([0.5, -0.75]), two),
            label={
                "en": "two coordinates, U_g mixes them (where the reset acts matters)",
                "zh": "两个坐标，U_g会混合它们（重置作用在哪里会影响结果）",
            },
        ),
        Case(
            (np.array([0.5, -1.0, 0.25, 0.75]), np.array([-0.5, 0.25, 1.0, -0.75, 0.5]), wide),
            label={
                "en": (
                    "the widest step drawn (4 inputs, 5 coordinates); in coordinate 1 z near 0, in coordinate 2 r near "
                    "1"
                ),
                "zh": "抽取的最宽的一步（4个输入，5个坐标）；坐标1的z接近0，坐标2的r接近1",
            },
        ),
    ]


def draw(rng: random.Random, m: int | None = None, d: int | None = None) -> Case:
    """d starts at 2: with one coordinate U_g is a number, and resetting before or after it is the same."""
    m, d = rng.randint(1, STEP_M) if m is None else m, rng.randint(2, STEP_D) if d is None else d
    params = {
        "A_r": full_matrix(rng, m + d, d),
        "A_z": full_matrix(rng, m + d, d),
        "W_g": draws.matrix(rng, m, d),
        "U_g": full_matrix(rng, d, d) * 1.5,
        "b_r": gate_bias(rng, d),
        "b_z": gate_bias(rng, d),
        "b_g": draws.matrix(rng, 0, d, scale=0.5),
    }
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,), -1.5, 1.5), params))


def _logistic(a: np.ndarray) -> np.ndarray:
    """A float sigmoid, to tell which gates of a drawn step are at a limit (never a reference)."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(a, dtype=float)))


def _gru_with(**gates):
    def saturated(rng: random.Random) -> Case:
        case = draw(rng)
        saturate(case.args[2], rng, rng.randrange(len(case.args[1])), **gates)
        return case

    return saturated


def _gru_gates(case: Case) -> tuple[np.ndarray, np.ndarray]:
    x, h_prev, params = case.args
    u = np.concatenate([np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)])
    return _logistic(u @ params["A_r"] + params["b_r"]), _logistic(u @ params["A_z"] + params["b_z"])


def _gru_gate(**limits):
    def holds(case: Case, expected) -> bool:
        r, z = _gru_gates(case)
        found = np.ones(len(r), dtype=bool)
        for name, limit in limits.items():
            found &= near({"r": r, "z": z}[name], limit)
        return bool(found.any())

    return holds


BRANCHES = (
    Branch(
        "width_one",
        lambda case, expected: len(case.args[1]) == 1,
        en="one coordinate (d = 1)",
        zh="只有一个坐标（d = 1）",
    ),
    Branch(
        "one_input",
        lambda case, expected: len(case.args[0]) == 1,
        lambda rng: draw(rng, m=1),
        en="one input (m = 1)",
        zh="只有一个输入（m = 1）",
    ),
    Branch(
        "widest",
        lambda case, expected: len(case.args[0]) >= STEP_M and len(case.args[1]) >= STEP_D,
        lambda rng: draw(rng, STEP_M, STEP_D),
        en="the widest step drawn (m = 4, d = 5)",
        zh="抽取的最宽的一步（m = 4，d = 5）",
    ),
    Branch(
        "update_keeps",
        _gru_gate(z=1),
        _gru_with(z=1),
        en="an update gate at 1: the old state kept",
        zh="更新门为1：旧状态被保留",
    ),
    Branch(
        "update_replaces",
        _gru_gate(z=0),
        _gru_with(z=0),
        en="an update gate at 0: the candidate taken",
        zh="更新门为0：采用候选值",
    ),
    Branch(
        "reset_closed",
        _gru_gate(r=0),
        _gru_with(r=0),
        en="a reset gate at 0: the candidate sees no old state",
        zh="重置门为0：候选值看不到旧状态",
    ),
    Branch(
        "reset_open",
        _gru_gate(r=1),
        _gru_with(r=1),
        en="a reset gate at 1: the candidate sees the whole old state",
        zh="重置门为1：候选值看到完整的旧状态",
    ),
    Branch(
        "exercise_12_7_5",
        _gru_gate(z=1, r=0),
        _gru_with(z=1, r=0),
        en="z = 1 and r = 0 in one coordinate (exercise 12.7.5): the state kept there",
        zh="同一坐标上 z = 1 且 r = 0（习题12.7.5）：该坐标的状态被保留",
    ),
)


CHECK = Check("gru_step", ref.gru_step, public, draw=draw, points=3, branches=BRANCHES)


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).resolve().parents[1] / "notebook.md")
sigmoid = _solution.sigmoid


def _gru_variant(
    x,
    h_prev,
    params,
    *,
    h_first=False,
    candidate=np.tanh,
    update_gate=sigmoid,
    reset_after=False,
    reset_kept=False,
    complementary=False,
):
    """A GRU step with one convention changed; the defaults give Cho's convention of the chapter."""
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([h_prev, x] if h_first else [x, h_prev])
    r = sigmoid(u @ params["A_r"] + params["b_r"])
    z = update_gate(u @ params["A_z"] + params["b_z"])
    recurrent = r * (h_prev @ params["U_g"]) if reset_after else (r * h_prev) @ params["U_g"]
    g = candidate(x @ params["W_g"] + recurrent + params["b_g"])
    kept = r * h_prev if reset_kept else h_prev
    return (1 - z) * kept + z * g if complementary else z * kept + (1 - z) * g


@mistake(
    "gru_step",
    en=(
        "This is the complementary convention (the second text's), where z weights the candidate. In the Cho "
        "convention of Chapter 12 the update gate weights the OLD state: a larger z keeps more of h_prev (Example "
        "12.4)."
    ),
    zh=(
        "这是互补约定（第二份教材采用的约定），其中z给候选状态加权。"
        "第12章采用Cho约定，更新门给旧状态加权：z越大，保留的h_prev越多（例12.4）。"
    ),
)
def gru_complementary_update(x, h_prev, params):
    return _gru_variant(x, h_prev, params, complementary=True)


@mistake(
    "gru_step",
    en=(
        "The reset gate also scaled the directly kept branch. In Example 12.4 the reset gate only changes how much of "
        "the old state the candidate sees; the branch z * h_prev is kept untouched (exercise 12.7.5)."
    ),
    zh=(
        "重置门也缩放了直接保留的分支。在例12.4中，重置门只改变候选状态能看到多少旧状态；"
        "分支 z * h_prev 原样保留（习题12.7.5）。"
    ),
)
def gru_reset_on_kept_branch(x, h_prev, params):
    return _gru_variant(x, h_prev, params, reset_kept=True)


@mistake(
    "gru_step",
    en=(
        "The reset gate was applied after the matrix product U_g (the PyTorch placement). The chapter's formula resets "
        "the old state first, (r * h_prev) U_g; when U_g mixes coordinates the two orders differ."
    ),
    zh=(
        "重置门被放在了与U_g的矩阵乘法之后（PyTorch的放置方式）。本章的公式先重置旧状态，即 (r * h_prev) U_g；"
        "当U_g混合各个坐标时，两种顺序的结果不同。"
    ),
)
def gru_reset_after_matmul(x, h_prev, params):
    return _gru_variant(x, h_prev, params, reset_after=True)


@mistake(
    "gru_step",
    en=(
        "Check the order of the concatenation for the gates: u_t = [x_t, h_{t-1}], input first, so the first m rows of "
        "A_r and A_z read the input."
    ),
    zh="检查门的拼接顺序：u_t = [x_t, h_{t-1}]，输入在前，所以A_r和A_z的前m行读取输入。",
)
def gru_concat_h_first(x, h_prev, params):
    return _gru_variant(x, h_prev, params, h_first=True)


@mistake(
    "gru_step",
    en=(
        "The GRU candidate uses the wrong squashing function: it is a value that can be negative, not a proportion. "
        "Look again at the activation of the candidate in section 12.4.2."
    ),
    zh="GRU的候选状态用错了压缩函数：它是可以为负的数值，不是比例。再看一看12.4.2节中候选状态的激活函数。",
)
def gru_candidate_sigmoid(x, h_prev, params):
    return _gru_variant(x, h_prev, params, candidate=sigmoid)


@mistake(
    "gru_step",
    en=(
        "The update gate went through tanh, so it can be negative: a gate is a proportion between 0 and 1, made by "
        "the sigmoid (section 12.4.2), and only the candidate, a value, goes through tanh."
    ),
    zh="更新门经过了tanh，于是它可能为负：门是0到1之间的比例，由sigmoid给出（12.4.2节），只有候选状态这个数值才经过tanh。",
)
def gru_update_gate_tanh(x, h_prev, params):
    return _gru_variant(x, h_prev, params, update_gate=np.tanh)


@mistake(
    "gru_step",
    en=(
        "The old state was added whole and the candidate's share added on top (a residual update, h_prev + new). The "
        "GRU of section 12.4.2 mixes instead: the update gate weights the old state and its complement weights the "
        "candidate, so the two shares add up to one (Example 12.4: 90 % of the old value, 10 % of the candidate)."
    ),
    zh=(
        "旧状态被完整加上，再在上面加上候选值的份额（残差式更新，h_prev + 新值）。12.4.2节的GRU做的是混合："
        "更新门给旧状态加权，它的补数给候选值加权，两份权重之和为一（例12.4：旧值的90%，候选值的10%）。"
    ),
)
def gru_residual_update(x, h_prev, params):
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([x, h_prev])
    r = sigmoid(u @ params["A_r"] + params["b_r"])
    z = sigmoid(u @ params["A_z"] + params["b_z"])
    g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
    return h_prev + (1 - z) * g
