"""Chapter 12, part 2: LSTM and GRU gates (Examples 12.3-12.4, exercises 12.7.4-5)."""
from pathlib import Path

from ...grading.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment("ch12_gates", tuple(checks.CHECKS), checks, reference, Path(__file__).resolve().parent,
                  written=(Written("ex_12_7_5_written"),))
