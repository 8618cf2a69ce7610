"""`ex_12_7_6`: exercise 12.7.6, why backward states of the reference translation leak the target in
an evaluation of generation, and which tasks may use the full input; a self-check against the
reference answer 12.8, whose points are its written answer's."""

from __future__ import annotations

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Check
from .. import reference as ref
from ..models import exercise

CHECK = Check(
    "ex_12_7_6",
    ref.ex_12_7_6,
    exercise({"en": "exercise 12.7.6 (reference answer 12.8)", "zh": "习题12.7.6（参考解答12.8）"}),
    reveal=False,
    points=0,
)  # a self-check: the points are its written answer's


@mistake(
    "ex_12_7_6",
    en=(
        "The problem is not the model's size or how the language models were pretrained. "
        "Ask what the backward state at position t has read, and whether the generator has it at that moment."
    ),
    zh=(
        "问题不在于模型的大小，也不在于语言模型是怎样预训练的。想一想："
        "位置t的反向状态读过什么，生成器在那一刻是否拥有这些内容。"
    ),
)
def leak_blamed_on_model_size():
    return {"leak": {"C"}, "full_context_ok": {"P", "S"}}


@mistake(
    "ex_12_7_6",
    en=(
        "Full context is fine only when the whole input is really available at prediction time. For each task ask: "
        "does the model already have the later words when it predicts?"
    ),
    zh=(
        "只有在预测时确实能拿到完整输入，使用完整上下文才没有问题。对每个任务都问一问："
        "模型在预测时是否已经拥有后面的词？"
    ),
)
def full_context_for_generation():
    return {"leak": {"A", "B"}, "full_context_ok": {"P", "Q", "R", "S"}}


@mistake(
    "ex_12_7_6",
    en=(
        "12.8 names sentiment classification as one example, not as the only task: "
        "another listed task also sees the whole input before it predicts. "
        "For each option ask whether the complete sentence is already given when the model answers."
    ),
    zh=(
        "12.8只是举情感分类为例，并没有说它是唯一的任务：列出的任务中还有一个在预测之前也能看到完整的输入。"
        "对每个选项都问一问：模型作答时，完整的句子是否已经给定？"
    ),
)
def only_the_example_of_12_8():
    return {"leak": {"A", "B"}, "full_context_ok": {"P"}}
