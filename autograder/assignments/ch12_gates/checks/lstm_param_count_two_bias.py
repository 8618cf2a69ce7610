"""lstm_param_count_two_bias: the parameters of an LSTM cell that stores two bias vectors per block
(an input and a recurrent bias, as some libraries do; the third text's 108 for D = 4, H = 3)."""

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Check
from .. import reference as ref
from ..models import COUNT_BRANCHES, count_draw, count_public

CHECK = Check(
    "lstm_param_count_two_bias",
    ref.lstm_param_count_two_bias,
    count_public(),
    draw=count_draw,
    points=1,
    branches=COUNT_BRANCHES,
)


@mistake(
    "lstm_param_count_two_bias",
    en=(
        "This count has only one bias vector per block. Here every block stores two (an input bias and a recurrent "
        "bias): count both."
    ),
    zh="这个计数每个块只有一个偏置向量。这里每个块都存两个偏置（一个输入偏置和一个递归偏置）：两个都要数。",
)
def lstm_two_bias_count_one_bias(D, H):
    return 4 * (D * H + H * H + H)
