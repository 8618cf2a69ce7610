"""Chapter 12, part 3: state boundaries, truncation, padding and causality."""
from pathlib import Path

from ...spec import Assignment
from . import checks, mistakes, reference

SPEC = Assignment("ch12_boundaries", tuple(checks.CHECKS), mistakes, reference, Path(__file__).resolve().parent)
