"""rnn_param_count: the parameters of a simple RNN cell (W_x, W_h, one bias), Table 12.3's baseline
(the third text's 24 for D = 4, H = 3)."""

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Check
from .. import reference as ref
from ..models import COUNT_BRANCHES, count_draw, count_public

CHECK = Check(
    "rnn_param_count", ref.rnn_param_count, count_public(), draw=count_draw, points=1, branches=COUNT_BRANCHES
)


@mistake(
    "rnn_param_count",
    en="The bias vector was left out of the count: the simple RNN cell has W_x, W_h and one bias b_h of width H.",
    zh="计数时漏掉了偏置向量：简单RNN单元有W_x、W_h和一个宽度为H的偏置b_h。",
)
def rnn_count_without_bias(D, H):
    return D * H + H * H


@mistake(
    "rnn_param_count",
    en=(
        "Two bias vectors were counted where the cell has one. Count one bias of width H (the third text's single-bias "
        "convention)."
    ),
    zh="单元只有一个偏置向量，你却数了两个。只数一个宽度为H的偏置（第三份教材的单偏置约定）。",
)
def rnn_count_two_biases(D, H):
    return D * H + H * H + 2 * H
