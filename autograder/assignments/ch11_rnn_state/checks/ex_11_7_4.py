"""`ex_11_7_4`: exercise 11.7.4 (choosing evidence), a self-check of the correct statements' letters; its
points are those of the written answer `ex_11_7_4_written`, graded by hand."""

from __future__ import annotations

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Case, Check
from .. import reference as ref

# a self-check: the points are its written answer's
CHECK = Check(
    "ex_11_7_4",
    ref.ex_11_7_4,
    lambda: [Case(label={"en": "exercise 11.7.4", "zh": "习题11.7.4"})],
    reveal=False,
    points=0,
)


@mistake(
    "ex_11_7_4",
    en="Two right answers do not tell you how they were produced. Rethink which controlled observation would show the "
    "mechanism, a parameter change, or the document that was supplied (exercise 11.7.4).",
    zh="两个正确答案不能告诉你它们是怎样得出的。重新想一想，怎样的受控观察才能揭示其中的机制、参数的变化，"
    "或实际提供了哪份文档（习题11.7.4）。",
)
def right_answers_taken_as_proof():
    return {"A", "D", "E"}
