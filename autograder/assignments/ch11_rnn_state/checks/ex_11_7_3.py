"""`ex_11_7_3`: exercise 11.7.3 (diagnosing the log), a self-check of the correct statements' letters; its
points are those of the written answer `ex_11_7_3_written`, graded by hand."""

from __future__ import annotations

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Case, Check
from .. import reference as ref

# a self-check: the points are its written answer's
CHECK = Check(
    "ex_11_7_3",
    ref.ex_11_7_3,
    lambda: [Case(label={"en": "exercise 11.7.3", "zh": "习题11.7.3"})],
    reveal=False,
    points=0,
)


@mistake(
    "ex_11_7_3",
    en="A hidden state that changes from read to read is no evidence that parameters changed: with fixed weights the "
    "activations change at every read. Rethink what would prove an update (exercise 11.7.3).",
    zh="隐藏状态随每次读取而变化，并不能证明参数变了：权重固定时，激活值本来就会在每次读取时变化。重新想一想，"
    "什么证据才能证明参数确实更新过（习题11.7.3）。",
)
def changing_state_taken_as_learning():
    return {"A", "C", "E"}


@mistake(
    "ex_11_7_3",
    en="Rethink what a reset before every read removes: the old state's contribution. Follow Table 11.2 with the "
    "state set to [0, 0] before each read and see what the last read gives.",
    zh="重新想一想，每次读取前都重置状态会移除什么：旧状态的贡献。按表11.2再算一遍，但每次读取前把状态设为 [0, 0]，"
    "看看最后一次读取得到什么。",
)
def reset_thought_harmless():
    return {"B", "C", "D"}
