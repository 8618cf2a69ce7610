"""The course data: the Chapter 11 model (`sequence-v1.json`) and the book values (`expected.json`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp

from .config import DATA_DIR


def _read(name: str) -> dict:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


def exact(text: str | int) -> sp.Rational:
    """A fraction string of the data files ("-3/4", "0") as a SymPy Rational."""
    value = Fraction(str(text))
    return sp.Rational(value.numerator, value.denominator)


@lru_cache(maxsize=None)
def sequence() -> dict:
    """`sequence-v1.json` as stored."""
    return _read("sequence-v1.json")


@dataclass(frozen=True)
class BookValue:
    """One entry of expected.json: an exact rational, or the decimal the book prints."""

    value: sp.Rational | Decimal
    places: int | None = None

    @property
    def is_exact(self) -> bool:
        return self.places is None


def _book_value(raw: Any) -> Any:
    if isinstance(raw, list):
        return [_book_value(item) for item in raw]
    if isinstance(raw, dict):
        return BookValue(Decimal(raw["decimal"]), int(raw["places"]))
    return BookValue(exact(raw))


@lru_cache(maxsize=None)
def expected() -> dict[str, Any]:
    """expected.json: key -> BookValue (or a list of them for vectors)."""
    return {key: _book_value(raw) for key, raw in _read("expected.json").items()}
