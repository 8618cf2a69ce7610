"""Chapter 12, part 2: LSTM and GRU gates (Examples 12.3-12.4, exercises 12.7.4-5)."""

from pathlib import Path

from ...vocabulary.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment.found(
    "ch12_gates", Path(__file__).resolve().parent, checks, reference, written=(Written("ex_12_7_5_written"),)
)
