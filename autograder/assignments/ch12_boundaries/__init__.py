"""Chapter 12, part 3: state boundaries, truncation, padding and causality."""
from pathlib import Path

from ...grading.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment("ch12_boundaries", tuple(checks.CHECKS), checks, reference, Path(__file__).resolve().parent,
                  written=(Written("ex_12_7_3_written"), Written("ex_12_7_6_written")))
