"""Chapter 12, part 3: state boundaries, truncation, padding and causality."""

from pathlib import Path

from ...vocabulary.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment.found(
    "ch12_boundaries",
    Path(__file__).resolve().parent,
    checks,
    reference,
    written=(Written("ex_12_7_3_written"), Written("ex_12_7_6_written")),
)
