"""Chapter 11: the RNN state (Tables 11.1-11.5, exercises 11.7)."""

from pathlib import Path

from ...vocabulary.spec import Assignment, Written
from . import checks, reference

SPEC = Assignment.found(
    "ch11_rnn_state",
    Path(__file__).resolve().parent,
    checks,
    reference,
    written=tuple(Written(f"ex_11_7_{n}_written") for n in (2, 3, 4, 5)),
)
