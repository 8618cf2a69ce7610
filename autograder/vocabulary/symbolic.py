"""The exact-number helpers: inputs as SymPy numbers, SymPy rationals as Fractions and as the book's
decimals, and references as the kit compares them."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from rnnkit.compare import DIGITS, Real


def to_sympy(value: Any) -> sp.Expr:
    """An input leaf as a SymPy number (floats become SymPy Floats of DIGITS digits)."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    if isinstance(value, (float, np.floating)):
        return sp.Float(float(value), DIGITS)
    raise TypeError(f"not a numeric value: {value!r}")


def exact_double(value: Any) -> sp.Expr:
    """A float as the exact Rational of the double; Fractions, ints and SymPy numbers as `to_sympy`."""
    if isinstance(value, (float, np.floating)):
        return sp.Rational(float(value))
    return to_sympy(value)


def to_fraction(value: Any) -> Fraction:
    """A SymPy Rational (or what `sp.Rational` takes: an int, a Fraction, "3/4") as a Fraction."""
    value = sp.Rational(value)
    return Fraction(int(value.p), int(value.q))


def decimal_text(value: Any) -> str:
    """A rational with a finite decimal expansion (a denominator of 2^a 5^b) as the book prints it:
    1.125, 0.00390625."""
    value = sp.Rational(value)
    with localcontext() as context:
        context.prec = 60
        text = format(Decimal(int(value.p)) / Decimal(int(value.q)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def public_value(ref: Any) -> Any:
    """A SymPy reference as the kit compares it: rationals as Fraction, anything else as a `Real`
    of DIGITS digits; containers and object arrays element by element."""
    if isinstance(ref, dict):
        return {key: public_value(value) for key, value in ref.items()}
    if isinstance(ref, (list, tuple)):
        return type(ref)(public_value(value) for value in ref)
    if isinstance(ref, np.ndarray):
        if ref.dtype.kind != "O":
            return ref
        out = np.empty(ref.shape, dtype=object)
        for index in np.ndindex(ref.shape):
            out[index] = public_value(ref[index])
        return out
    if isinstance(ref, (bool, str, set, frozenset, Fraction)) or ref is None:
        return ref
    if isinstance(ref, (int, np.integer)):
        return int(ref)
    if isinstance(ref, sp.Basic) and ref.is_Rational:
        return to_fraction(ref)
    if isinstance(ref, (float, np.floating)):
        return Real(str(sp.Float(ref, DIGITS)))
    if isinstance(ref, sp.Basic):
        return LazyReal(ref)
    raise TypeError(f"not a reference value: {ref!r}")


class LazyReal(Real):
    """A `Real` whose DIGITS digits are evaluated from its SymPy expression when first read: a
    comparison stops at the first wrong leaf, so most leaves of a mistaken output are never evaluated."""

    def __init__(self, expr: sp.Basic):
        self.expr = expr
        self._digits: str | None = None

    @property
    def digits(self) -> str:
        if self._digits is None:
            self._digits = str(sp.N(self.expr, DIGITS))
        return self._digits
