"""gru_param_count: the parameters of the GRU cell of section 12.4.2, three blocks with one bias
each (Table 12.3; the third text's 72 for D = 4, H = 3)."""

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Check
from .. import reference as ref
from ..models import COUNT_BRANCHES, count_draw, count_public

CHECK = Check(
    "gru_param_count", ref.gru_param_count, count_public(), draw=count_draw, points=1, branches=COUNT_BRANCHES
)


@mistake(
    "gru_param_count",
    en=(
        "This counts two bias vectors per block. The GRU of section 12.4.2 has one bias for each gate and one for the "
        "candidate."
    ),
    zh="这里每个块数了两个偏置向量。12.4.2节的GRU每个门各有一个偏置，候选状态也有一个。",
)
def gru_count_two_biases(D, H):
    return 3 * (D * H + H * H + 2 * H)


@mistake(
    "gru_param_count",
    en=(
        "The biases were left out: each of the GRU's three blocks (reset gate, update gate, candidate) has a bias of "
        "width H."
    ),
    zh="漏掉了偏置：GRU的三个块（重置门、更新门、候选状态）各有一个宽度为H的偏置。",
)
def gru_count_without_bias(D, H):
    return 3 * (D * H + H * H)


@mistake(
    "gru_param_count",
    en=(
        "This counts four blocks, the LSTM's (three gates and a candidate). Count the GRU's own blocks in section "
        "12.4.2: it keeps no separate cell and has no output gate."
    ),
    zh=(
        "这里数了四个块，那是LSTM的（三个门加一个候选值）。"
        "按12.4.2节数GRU自己的块：它不单独保存单元状态，也没有输出门。"
    ),
)
def gru_count_four_blocks(D, H):
    return 4 * (D * H + H * H + H)
