"""Chapter 12, part 1: backpropagation through time (Example 12.1, Tables 12.1-12.2)."""

from pathlib import Path

from ...vocabulary.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment.found(
    "ch12_bptt", Path(__file__).resolve().parent, checks, reference, written=(Written("ex_12_7_1_written"),)
)
