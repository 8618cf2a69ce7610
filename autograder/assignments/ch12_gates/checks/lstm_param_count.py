"""lstm_param_count: the parameters of the LSTM cell of section 12.4.1, four blocks with one bias
each (Table 12.3; the third text's 96 for D = 4, H = 3)."""

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Check
from .. import reference as ref
from ..models import COUNT_BRANCHES, count_draw, count_public

CHECK = Check(
    "lstm_param_count", ref.lstm_param_count, count_public(), draw=count_draw, points=1, branches=COUNT_BRANCHES
)


@mistake(
    "lstm_param_count",
    en=(
        "This counts two bias vectors per block (the layout of some libraries). The LSTM of section 12.4.1 has one "
        "bias per gate and per candidate."
    ),
    zh="这里每个块数了两个偏置向量（某些库的布局）。12.4.1节的LSTM每个门各有一个偏置，候选值也有一个。",
)
def lstm_count_two_biases(D, H):
    return 4 * (D * H + H * H + 2 * H)


@mistake(
    "lstm_param_count",
    en=(
        "The biases were left out: each of the four blocks (three gates and the candidate) has its own bias of width H "
        "besides its matrix A."
    ),
    zh="漏掉了偏置：四个块（三个门和候选值）除了各自的矩阵A，还各有一个宽度为H的偏置。",
)
def lstm_count_without_bias(D, H):
    return 4 * (D * H + H * H)
