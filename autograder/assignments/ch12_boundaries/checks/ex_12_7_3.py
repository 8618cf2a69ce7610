"""`ex_12_7_3`: exercise 12.7.3, what still crosses a truncation boundary and which learning path it
cuts; a self-check against the reference answer 12.8, whose points are its written answer's."""

from __future__ import annotations

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Check
from .. import reference as ref
from ..models import exercise

CHECK = Check(
    "ex_12_7_3",
    ref.ex_12_7_3,
    exercise({"en": "exercise 12.7.3 (reference answer 12.8)", "zh": "习题12.7.3（参考解答12.8）"}),
    reveal=False,
    points=0,
)  # a self-check: the points are its written answer's


@mistake(
    "ex_12_7_3",
    en=(
        "Truncation cuts something at the boundary. Re-read the last paragraph of section 12.3: "
        "what does the program still pass on, and what does it stop?"
    ),
    zh="截断会在边界处切断某样东西。重读12.3节最后一段：程序仍然传递什么，又停止了什么？",
)
def gradient_crosses_truncation():
    return {"passes": {"A", "B", "C"}, "cut": set()}


@mistake(
    "ex_12_7_3",
    en=(
        "The state's value is not lost at a truncation boundary. Re-read section 12.3: "
        "what is still there, and what stops?"
    ),
    zh="状态的数值不会在截断边界处丢失。重读12.3节：什么仍然在，什么停止了？",
)
def value_cut_at_truncation():
    return {"passes": set(), "cut": {"A", "B", "C"}}


@mistake(
    "ex_12_7_3",
    en=(
        "A nonzero carried state does not show what training did (12.8). Which items are things that actually cross "
        "or are cut at the boundary?"
    ),
    zh="传过去的状态非零，并不能说明训练做了什么（12.8节）。哪些选项才是真正穿过边界、或在边界处被切断的东西？",
)
def carried_state_proves_tracking():
    return {"passes": {"A", "E"}, "cut": {"B", "C"}}
