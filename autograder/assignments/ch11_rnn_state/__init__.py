"""Chapter 11: the RNN state (Tables 11.1-11.5, exercises 11.7)."""
from pathlib import Path

from ...grading.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment("ch11_rnn_state", tuple(checks.CHECKS), checks, reference, Path(__file__).resolve().parent,
                  written=tuple(Written(f"ex_11_7_{n}_written") for n in (2, 3, 4, 5)))
