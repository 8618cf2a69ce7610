"""Chapter 12, part 1: backpropagation through time (Example 12.1, Tables 12.1-12.2)."""
from pathlib import Path

from ...grading.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment("ch12_bptt", tuple(checks.CHECKS), checks, reference, Path(__file__).resolve().parent,
                  written=(Written("ex_12_7_1_written"),))
