"""`ex_11_7_5`: exercise 11.7.5 (tracing responsibility), a self-check of the correct statements' letters; its
points are those of the written answer `ex_11_7_5_written`, graded by hand."""

from __future__ import annotations

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Case, Check
from .. import reference as ref

# a self-check: the points are its written answer's
CHECK = Check(
    "ex_11_7_5",
    ref.ex_11_7_5,
    lambda: [Case(label={"en": "exercise 11.7.5", "zh": "习题11.7.5"})],
    reveal=False,
    points=0,
)


@mistake(
    "ex_11_7_5",
    en="A hidden vector is the result of a numerical computation, not an approval event. Rethink which record the "
    "application must consult before it acts (exercise 11.7.5).",
    zh="隐藏向量是数值计算的结果，不是审批事件。重新想一想，应用在执行操作之前必须查阅哪份记录（习题11.7.5）。",
)
def hidden_vector_as_authority():
    return {"A", "D"}
