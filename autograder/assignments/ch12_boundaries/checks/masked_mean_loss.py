"""`masked_mean_loss`: the third text's masked mean loss, one sum over the valid positions divided by
their count N_valid; padded losses may hold anything, even NaN."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import draws, probes
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import random_lengths


def public():
    losses = np.array([[0.5, 0.25, 1.0, 0.75, 2.0], [1.5, 0.5, 0.25, 9.0, 9.0]])
    rng = random.Random(1206)
    return [
        Case(
            (losses, np.arange(5)[None, :] < np.array([5, 3])[:, None]),
            label={
                "en": "third text's masked loss: lengths 5 and 3, N_valid = 8",
                "zh": "第三份教材的掩码损失：长度为5和3，N_valid = 8",
            },
        ),
        Case(
            (np.array([losses[0], [9.0] * 5, losses[1]]), np.arange(5)[None, :] < np.array([5, 0, 3])[:, None]),
            label={
                "en": "third text's losses with an all-padding row between them: lengths 5, 0 and 3, N_valid = 8",
                "zh": "第三份教材的损失，中间夹着一行全是填充：长度为5、0和3，N_valid = 8",
            },
        ),
        Case(
            (losses, np.ones((2, 5), dtype=bool)),
            label={
                "en": "third text's losses without padding: lengths 5 and 5, N_valid = 10",
                "zh": "第三份教材的损失，没有填充：长度为5和5，N_valid = 10",
            },
        ),
        Case(
            (losses[1:], np.arange(5)[None, :] < np.array([3])[:, None]),
            label={
                "en": "a batch of one row (B = 1): the third text's second row, length 3, N_valid = 3",
                "zh": "只有一行的批量（B = 1）：第三份教材的第二行，长度为3，N_valid = 3",
            },
        ),
        # B = T: a mask read by step instead of by row selects other losses
        Case(
            (
                np.array([[0.5, 0.25, 1.0], [1.5, 0.5, 0.25], [2.0, 0.75, 3.0]]),
                np.arange(3)[None, :] < np.array([3, 1, 2])[:, None],
            ),
            label={
                "en": "a square batch: B = 3 rows of T = 3 steps, lengths 3, 1, 2, N_valid = 6",
                "zh": "方形的批量：B = 3 行，每行 T = 3 步，长度为3、1、2，N_valid = 6",
            },
        ),
        Case(
            (draws.uniform(rng, (4, 12), 0.05, 3.0), np.arange(12)[None, :] < np.array([12, 3, 7, 11])[:, None]),
            label={
                "en": "the largest size drawn: B = 4, T = 12, lengths 12, 3, 7, 11",
                "zh": "抽取范围内最大的规模：B = 4，T = 12，长度为12、3、7、11",
            },
        ),
    ]


def draw(rng: random.Random, mask=None) -> Case:
    B, T = rng.randint(2, 4), rng.randint(2, 12)
    valid = mask(rng, B, T) if mask else np.arange(T)[None, :] < random_lengths(rng, B, T)[:, None]
    return Case((draws.uniform(rng, (B, T), 0.05, 3.0), valid))


def _one_valid(rng: random.Random, B: int, T: int) -> np.ndarray:
    mask = np.zeros((B, T), dtype=bool)
    mask[rng.randrange(B), rng.randrange(T)] = True
    return mask


def _last_padded(rng: random.Random, B: int, T: int) -> np.ndarray:
    mask = np.ones((B, T), dtype=bool)
    mask[rng.randrange(B), T - 1] = False
    return mask


def _mask_of(case: Case) -> np.ndarray:
    return np.asarray(case.args[1], dtype=bool)


BRANCHES = (
    Branch(
        "all_padding_row",
        lambda case, expected: bool((~_mask_of(case)).all(axis=1).any()),
        en="a row that is all padding",
        zh="全是填充的一行",
    ),
    Branch("no_padding", lambda case, expected: bool(_mask_of(case).all()), en="no padding at all", zh="完全没有填充"),
    Branch(
        "one_valid_position",
        lambda case, expected: int(_mask_of(case).sum()) == 1 and _mask_of(case).shape[0] > 1,
        lambda rng: draw(rng, _one_valid),
        en="one valid position in the whole batch (N_valid = 1)",
        zh="整个批量只有一个有效位置（N_valid = 1）",
    ),
    Branch(
        "gap_only_at_end",
        lambda case, expected: (lambda mask: int((~mask).sum()) == 1 and not mask[:, -1].all())(_mask_of(case)),
        lambda rng: draw(rng, _last_padded),
        en="a mask whose only gap is one row's last step",
        zh="掩码中唯一的空缺是某一行的最后一步",
    ),
    Branch(
        "unequal_rows",
        lambda case, expected: len(set(_mask_of(case).sum(axis=1).tolist())) > 1,
        en="rows with different numbers of valid positions",
        zh="各行有效位置的个数不同",
    ),
    Branch(
        "batch_of_one",
        lambda case, expected: _mask_of(case).shape[0] == 1,
        en="a batch of one row (B = 1)",
        zh="只有一行的批量（B = 1）",
    ),
    Branch(
        "largest",
        lambda case, expected: _mask_of(case).shape == (4, 12),
        en="the largest size drawn: B = 4, T = 12",
        zh="抽取范围内最大的规模：B = 4，T = 12",
    ),
)


def _loss_junk(case: Case):
    losses, mask = case.args
    for name, kind in probes.JUNK:
        junked = np.array(losses, dtype=float)
        junked[~np.asarray(mask, dtype=bool)] = abs(kind)
        yield name, Case((junked, mask))


PROBES = (
    probes.same_result(
        probes.value_view("the loss"),
        _loss_junk,
        message={
            "en": (
                "Padding rule broken: {variant} in the padded positions of the losses changed {where}. "
                "Padded positions may hold anything and must not reach the loss - note that 0 * nan is nan."
            ),
            "zh": (
                "违反填充规则：损失的填充位置中的{variant}改变了{where}。"
                "填充位置可以是任意值，但不能进入损失——注意 0 * nan 的结果仍是nan。"
            ),
        },
    ),
)


CHECK = Check(
    "masked_mean_loss",
    ref.masked_mean_loss,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=1,
)


@mistake(
    "masked_mean_loss",
    en=(
        "The masked losses were averaged over all B*T positions. The third text divides by N_valid: "
        "what should the denominator count?"
    ),
    zh="掩码后的损失在全部B*T个位置上取了平均。第三份教材除以的是N_valid：分母应当数什么？",
)
def loss_averaged_over_padding(losses, mask):
    return float(np.mean(np.asarray(losses, dtype=float) * np.asarray(mask, dtype=float)))


@mistake(
    "masked_mean_loss",
    en=(
        "The losses at padded positions were added in. Which positions does the mask say carry real data, "
        "and which may hold anything?"
    ),
    zh="填充位置上的损失也被加了进来。掩码说明哪些位置是真实数据，哪些位置可以是任意值？",
)
def padded_losses_included(losses, mask):
    return float(np.mean(losses))


@mistake(
    "masked_mean_loss",
    en=(
        "Each row was averaged first and then the rows. The third text's loss divides one sum over all valid "
        "positions by N_valid: compare the two when rows have different lengths."
    ),
    zh=(
        "先对每一行取平均，再对各行取平均。第三份教材的损失是把所有有效位置上的一个总和除以N_valid："
        "各行长度不同时，比较一下这两种算法。"
    ),
)
def mean_of_row_means(losses, mask):
    losses, mask = np.asarray(losses, dtype=float), np.asarray(mask, dtype=bool)
    return float(np.mean([np.sum(row[m]) / np.count_nonzero(m) for row, m in zip(losses, mask)]))
