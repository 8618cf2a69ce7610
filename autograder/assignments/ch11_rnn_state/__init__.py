"""Chapter 11: the RNN state (Tables 11.1-11.5, exercises 11.7)."""
from pathlib import Path

from ...spec import Assignment
from . import checks, mistakes, reference

SPEC = Assignment("ch11_rnn_state", tuple(checks.CHECKS), mistakes, reference, Path(__file__).resolve().parent)
