"""The comparison ladder: a student's value against an exact reference, with a reason.

References are exact rationals (`Fraction`/`int`) or `Real`s (a transcendental value as a
30-digit decimal string), nested in dicts, lists, tuples, sets and object arrays; the grader turns
its SymPy references into these (`autograder.vocabulary.symbolic.public_value`). A leaf is judged as follows:

* rational reference, exact student type (`int`, `Fraction`, SymPy `Rational`): `==`;
* rational reference, float: accepted within `RATIONAL_RTOL * max(1, |r|)`, except when
  the function was given exact inputs (`exact=True`), where a float is "not exact";
* a `Real` reference (through `tanh`, `exp`, ...): its 30 digits, accepted within
  `TRANSCENDENTAL_RTOL * max(1, |r|)`;
* a check may set its own `rtol` (a central difference, say), used in place of all three: an exact
  value is then accepted within `rtol * max(1, |r|)` too;
* a value that misses the tolerance but equals the reference rounded to some number of decimal
  places is called rounded, not merely wrong.

Distances are taken in floats where both sides are floats of ordinary size, exactly (in Fractions)
otherwise, so huge integers and Fractions compare without overflow. `compare` never raises: a
value that cannot be compared is wrong, with its type named.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cached_property, partial
from typing import Any

import numpy as np

from . import messages

#: Floats against rational references: the float64 result of a short exact computation.
RATIONAL_RTOL = 1e-12
#: Floats against transcendental references (30-digit SymPy values). A float64 chain of a few
#: dozen tanh/exp/softmax operations stays far inside 1e-9; a value printed to 6 places does not.
TRANSCENDENTAL_RTOL = 1e-9
DIGITS = 30


@dataclass(frozen=True)
class Verdict:
    """The outcome of one comparison: `ok`, else a message id and its fields."""

    ok: bool
    reason: str = ""
    fields: dict | None = None

    def message(self, reveal: bool) -> str:
        """The sentence for the student; `reveal` shows the expected value (public cases only), and
        how the student's value relates to it where a simple relation holds (`relation`)."""
        if self.reason == "compare.wrong_value" and reveal:
            return " ".join(filter(None, [messages.text("compare.wrong_value_public", **self.fields), self.relation()]))
        return messages.text(self.reason, **(self.fields or {}))

    def relation_found(self) -> tuple[str, int] | None:
        """A wrong value's relation to the expected one (`relation`: a message id and its factor), or None."""
        found = (self.fields or {}).get("relation")
        return found() if callable(found) else found  # worked out only when a message needs it

    def relation(self) -> str:
        """The sentence of a wrong value's relation to the expected one ("exactly twice", "sign
        flipped", ...), or ""."""
        found = self.relation_found()
        return messages.text(found[0], factor=found[1]) if found else ""


OK = Verdict(True)


class Real:
    """A reference that is not rational (through tanh, exp, ...), as a decimal string of DIGITS digits."""

    def __init__(self, digits: str):
        self.digits = digits

    def __float__(self) -> float:
        return float(self.digits)

    def __str__(self) -> str:
        return format(Decimal(self.digits), ".12g")

    def __repr__(self) -> str:
        return f"Real({self.digits!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Real) and self.digits == other.digits

    def __hash__(self) -> int:
        return hash(self.digits)

    @cached_property
    def exact(self) -> Fraction | None:
        """The digits as an exact Fraction (None for NaN or an infinity)."""
        try:
            return Fraction(self.digits)
        except (ValueError, OverflowError):
            return None


def _sympy(value: Any) -> bool:
    return type(value).__module__.startswith("sympy.")


def is_exact(value: Any) -> bool:
    """True for int, Fraction and SymPy Rational (not bool, not float)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, Fraction, np.integer)) or (
        _sympy(value) and bool(getattr(value, "is_Rational", False))
    )


def as_fraction(value: Any) -> Fraction:
    """An exact number (see `is_exact`) as a Fraction."""
    if _sympy(value):
        return Fraction(int(value.p), int(value.q))
    return Fraction(int(value)) if isinstance(value, (int, np.integer)) else Fraction(value)


def show(value: Any, limit: int = 80) -> str:
    """A short rendering of a value for a message: fractions as 1/2, containers as Python writes
    them, at most `limit` characters."""
    text = _render(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(value: Any, items: int = 12) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value)
    if isinstance(value, Fraction):
        if (
            value.denominator > 1 << 20
            and value.denominator & (value.denominator - 1) == 0
            and Fraction(float(value)) == value
        ):
            return repr(float(value))  # the exact value of a float (0.3 is 5404319552844595/2**54): shown as that float
        if (
            len(str(value.denominator)) + len(str(abs(value.numerator))) > LONG_FRACTION
        ):  # an exact value of a float computation
            return _decimal(value)
        return _integer(value.numerator) + ("" if value.denominator == 1 else "/" + _integer(value.denominator))
    if isinstance(value, np.ndarray):
        return np.array2string(
            np.asarray(value, dtype=object), separator=", ", threshold=items, formatter={"all": _render}
        )
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        value = value.item()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        if isinstance(value, (set, frozenset)):
            parts = sorted(_render(item) for item in value)
        else:  # only the items shown are rendered
            parts = [_render(item) for item in itertools.islice(value, items + 1)]
        parts = parts if len(parts) <= items else [*parts[:items], "..."]
        if isinstance(value, (set, frozenset)):
            return "{" + ", ".join(parts) + "}" if parts else "set()"
        return ("[{}]" if isinstance(value, list) else "({},)" if len(parts) == 1 else "({})").format(", ".join(parts))
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{_render(k) if not isinstance(k, str) else repr(k)}: {_render(v)}" for k, v in value.items())
            + "}"
        )
    return str(value)


#: Digits (numerator and denominator together) beyond which a Fraction is shown as a decimal: the
#: exact value of a float computation (a central difference of floats, say) has dozens.
LONG_FRACTION = 24


def _decimal(value: Fraction) -> str:
    """A long Fraction as a decimal to the precision a float64 answer has: the nearest float as Python
    writes it (beyond the float range, 15 significant digits)."""
    number = _float(value)
    return repr(number) if number is not None else format(Decimal(value.numerator) / Decimal(value.denominator), ".15g")


def _integer(value: int) -> str:
    """An int as Python writes it; one of more than 3000 bits (Python will not print it) as 1.234568e+1000."""
    return str(value) if value.bit_length() <= 3000 else format(Decimal(value), ".6e")


def _keys(keys) -> str:
    """Dict keys as Python writes a list of them."""
    return "[" + ", ".join(repr(key) if isinstance(key, str) else _render(key) for key in keys) + "]"


def _kind(ref: Any) -> str:
    """What the contract asks for, as the words of the message `kind.<kind>`."""
    if isinstance(ref, dict):
        return messages.text("kind.dict")
    if isinstance(ref, np.ndarray):
        return messages.text("kind.array")
    if isinstance(ref, (list, tuple)):
        return messages.text("kind.list")
    if isinstance(ref, (bool, np.bool_)):
        return messages.text("kind.bool")
    if isinstance(ref, str):
        return messages.text("kind.string")
    return messages.text("kind.number")


def _number(value: Any) -> Fraction | None:
    """A reference as an exact Fraction: an exact number, a Real's digits or a float; None for NaN, an
    infinity or anything that is not a number."""
    if is_exact(value):
        return as_fraction(value)
    if isinstance(value, Real):
        return value.exact
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        return Fraction(float(value))
    return None


def _float(value: Fraction) -> float | None:
    """`value` as an ordinary float (None beyond 1e300, where float distances may overflow)."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if abs(number) < 1e300 else None


def _close(value: Fraction | float, target: Fraction, relative: float) -> bool:
    """|value - target| <= relative * max(1, |target|): in floats where both are floats of ordinary
    size, exactly otherwise."""
    ref = _float(target) if isinstance(value, float) else None
    if ref is not None:
        return abs(value - ref) <= relative * max(1.0, abs(ref))
    return abs(Fraction(value) - target) <= Fraction(relative) * max(1, abs(target))


def _rounded(got: float, target: Fraction) -> bool:
    """True when `got` is close to `target` and equals it rounded to between 1 and 15 decimal places."""
    ref = _float(target)
    if ref is None or abs(got - ref) > 1e-2 * max(1.0, abs(ref)):
        return False
    return any(math.isclose(got, round(ref, places), rel_tol=1e-15, abs_tol=1e-300) for places in range(1, 16))


#: Simple relations of a wrong value to the expected one, tried in this order: a message id and
#: the factor the expected value is multiplied by.
RELATIONS = (
    ("relation.negated", -1),
    ("relation.twice", 2),
    ("relation.half", Fraction(1, 2)),
    *(("relation.times", k) for k in range(3, 11)),
    *(("relation.part", Fraction(1, k)) for k in range(3, 11)),
)


def relation(value: Fraction | float, target: Fraction, relative: float) -> tuple[str, int] | None:
    """How a wrong `value` relates to `target`, within the comparison's `relative` tolerance: a
    multiple (`RELATIONS`: the message id and the factor shown), or 1 minus it (a gate's complement,
    for a target strictly between 0 and 1), or near it (`NEAR`: another computation, not a
    rounding); None when no such relation holds, and on values where
    one would be a coincidence (either side 0, 1 or -1: any 1 is "1 minus" a 0, any 2 "twice" a 1).
    `run_cases` names a relation only where it holds on more than one case or on such values."""
    if trivial(value) or trivial(target):
        return None
    for message_id, factor in RELATIONS:
        if _close(value, factor * target, relative):
            return message_id, factor.denominator if isinstance(factor, Fraction) else factor
    if 0 < target < 1 and _close(value, 1 - target, relative):
        return "relation.complement", 1
    if _near(value, target):
        return "relation.near", 1
    return None


#: A wrong value within this relative distance of a non-zero reference agrees with it in its first
#: three significant digits and no further: no float64 rounding is that far off (float32 is read
#: before, `FLOAT32_REACH`, and a decimal rounding too, `_rounded`), so it is another computation.
NEAR = 1e-3


def _distribution(ref: np.ndarray) -> bool:
    """True when the reference is a probability distribution: one axis of numbers in [0, 1] that sum to 1."""
    try:
        values = [float(value) for value in ref]
    except (TypeError, ValueError, OverflowError):
        return False
    return ref.ndim == 1 and len(values) > 1 and all(0 <= v <= 1 for v in values) and abs(sum(values) - 1) <= 1e-12


def _sums_to_one(array: np.ndarray) -> bool:
    """True when the student's entries are numbers that sum to 1 (within float rounding)."""
    try:
        return abs(sum(float(value) for value in array) - 1) <= 1e-9
    except (TypeError, ValueError, OverflowError):
        return False


def _near(value: Fraction | float, target: Fraction) -> bool:
    """True when `value` is within `NEAR` of `target`, relatively (`relation.near`)."""
    ref, got = _float(target), _float(value)
    return ref is not None and got is not None and ref != 0 and abs(got - ref) <= NEAR * abs(ref)


def trivial(value: Fraction | float) -> bool:
    """0, 1 or -1: a value that stands in a simple relation to almost anything by chance."""
    return value in (0, 1, -1)


#: Floats within this relative distance of the reference, and float32 values (see `float32_values`),
#: are read as float32 arithmetic of the right computation.
FLOAT32_REACH = 1e-3


def _is_float32(value: float) -> bool:
    with np.errstate(all="ignore"):
        return float(np.float32(value)) == value


def float32_values(got: Any, ref: Any) -> bool:
    """True when `got` looks like the right value computed in float32: every float in it is a float32
    value, at least one reference value is not (so float64 would have given more digits), and each
    is within `FLOAT32_REACH` of its reference. Nested values are matched as `compare` matches them."""
    pairs: list[tuple[float, Fraction]] = []

    def walk(g: Any, r: Any) -> bool:
        if isinstance(r, dict):
            return isinstance(g, dict) and all(key in g and walk(g[key], sub) for key, sub in r.items())
        if isinstance(r, (np.ndarray, list, tuple)):
            try:
                items = np.asarray(g, dtype=object).ravel().tolist() if isinstance(r, np.ndarray) else list(g)
                subs = np.asarray(r, dtype=object).ravel().tolist() if isinstance(r, np.ndarray) else list(r)
            except Exception:
                return False
            return len(items) == len(subs) and all(walk(a, b) for a, b in zip(items, subs))
        target = _number(r) if not isinstance(r, (bool, str, set, frozenset)) and r is not None else None
        if target is None:
            return True
        if isinstance(g, np.ndarray) and g.shape == ():
            g = g[()]
        if isinstance(g, (float, np.floating)) and math.isfinite(g):
            pairs.append((float(g), target))
            return True
        return is_exact(g) and as_fraction(g) == target

    if not walk(got, ref) or not pairs:
        return False
    return (
        all(_is_float32(value) for value, _ in pairs)
        and any(not _is_float32(float(target)) for _, target in pairs if _float(target) is not None)
        and all(_close(value, target, FLOAT32_REACH) for value, target in pairs)
    )


def compare_number(got: Any, ref: Any, *, exact: bool = False, rtol: float | None = None, where: str = "") -> Verdict:
    """Judge one numeric leaf `got` against the reference `ref` (a Fraction, an int or a Real)."""
    where = where or messages.text("compare.the_value")
    if isinstance(got, np.ndarray) and got.shape == ():
        got = got[()]
    if _sympy(got) and not getattr(got, "is_number", False):
        return Verdict(
            False,
            "compare.wrong_type",
            dict(where=where, kind=messages.text("kind.number"), got_type=messages.text("kind.sympy_symbols")),
        )
    if isinstance(got, bool) or not isinstance(got, numbers.Number):
        return Verdict(
            False,
            "compare.wrong_type",
            dict(where=where, kind=messages.text("kind.number"), got_type=type(got).__name__),
        )
    rational, target = is_exact(ref), _number(ref)
    if target is None:
        return Verdict(False, "compare.wrong_value", dict(where=where, got=show(got), expected=show(ref)))
    relative = rtol if rtol is not None else (RATIONAL_RTOL if rational else TRANSCENDENTAL_RTOL)

    def wrong() -> Verdict:
        return Verdict(
            False,
            "compare.wrong_value",
            dict(where=where, got=show(got), expected=show(ref), relation=partial(relation, value, target, relative)),
        )

    if is_exact(got):
        value = as_fraction(got)
        if rational and rtol is None:
            return OK if value == target else wrong()
    else:
        try:
            value = float(got) if not isinstance(got, complex) else math.nan
        except (TypeError, ValueError, OverflowError):
            return Verdict(
                False,
                "compare.wrong_type",
                dict(where=where, kind=messages.text("kind.real"), got_type=type(got).__name__),
            )
        if not math.isfinite(value):
            return Verdict(False, "compare.nan", dict(where=where, got=show(got)))
    if _close(value, target, relative):
        if exact and rational and isinstance(value, float):
            return Verdict(False, "compare.not_exact", dict(where=where, got=show(got)))
        return OK
    if isinstance(value, float) and _rounded(value, target):
        return Verdict(False, "compare.rounded", dict(where=where, got=show(got)))
    return wrong()


def explains(got: Any, mistaken: Any, expected: Any, *, rtol: float | None = None) -> bool:
    """Whether a catalogued mistake's output `mistaken` explains the student's wrong value `got`:
    equal to it, or, for a record (a tuple, or a dict of the same keys), every part of `got` equal
    to the expected part or to the mistake's, and some wrong part the mistake's that is a number or
    an array (a label, a choice or a count, is too easily the same by chance): the mistake made in
    one part beside parts written right (the final state of a masked run taken after the padding
    while its outputs are masked)."""
    if compare(got, mistaken, rtol=rtol).ok:
        return True
    parts = _record_parts(got, mistaken, expected)
    mine = False
    for part, wrong_part, right_part in parts:
        if compare(part, right_part, rtol=rtol).ok:
            continue
        if not compare(part, wrong_part, rtol=rtol).ok:
            return False
        mine = mine or not isinstance(part, (str, bool, int, np.integer, np.bool_))
    return mine


def _record_parts(got: Any, mistaken: Any, expected: Any) -> list[tuple[Any, Any, Any]]:
    """(got, mistaken, expected) part by part where all three are tuples of one length or dicts of
    the same keys (a sequence of steps is not a record: none of it is matched part by part)."""
    if all(isinstance(value, tuple) for value in (got, mistaken, expected)):
        return list(zip(got, mistaken, expected)) if len(got) == len(mistaken) == len(expected) else []
    if all(isinstance(value, dict) for value in (got, mistaken, expected)):
        keys = set(expected)
        return (
            [(got[key], mistaken[key], expected[key]) for key in expected] if set(got) == set(mistaken) == keys else []
        )
    return []


def compare(got: Any, ref: Any, *, exact: bool = False, rtol: float | None = None, where: str = "") -> Verdict:
    """Judge a (nested) student value against a (nested) reference; the first difference wins.
    Never raises: a value that cannot be compared (an unhashable set item, say) is wrong, with its
    type named."""
    where = where or messages.text("compare.the_result")
    try:
        return _compare(got, ref, exact, rtol, where)
    except Exception:
        return Verdict(False, "compare.wrong_type", dict(where=where, kind=_kind(ref), got_type=type(got).__name__))


def _compare(got: Any, ref: Any, exact: bool, rtol: float | None, where: str) -> Verdict:
    if ref is None:  # "None when ..." branches of a contract: only None is right
        return (
            OK
            if got is None
            else Verdict(
                False,
                "compare.wrong_type",
                dict(where=where, kind=messages.text("kind.none"), got_type=type(got).__name__),
            )
        )
    if isinstance(ref, dict):
        if not isinstance(got, dict):
            return Verdict(False, "compare.wrong_type", dict(where=where, kind=_kind(ref), got_type=type(got).__name__))
        missing = [key for key in ref if key not in got]
        if missing:
            return Verdict(
                False, "compare.wrong_keys", dict(where=where, expected_keys=_keys(ref), missing=_keys(missing))
            )
        for key, sub in ref.items():
            verdict = _compare(got[key], sub, exact, rtol, f"{where}[{key!r}]")
            if not verdict.ok:
                return verdict
        return OK
    if isinstance(ref, np.ndarray):
        if got is None or isinstance(got, (dict, str, set, frozenset)):
            return Verdict(False, "compare.wrong_type", dict(where=where, kind=_kind(ref), got_type=type(got).__name__))
        array = np.asarray(got, dtype=object)
        if array.shape != ref.shape:
            return Verdict(
                False, "compare.wrong_shape", dict(where=where, got_shape=array.shape, expected_shape=ref.shape)
            )
        for index in np.ndindex(ref.shape):
            verdict = compare_number(
                array[index], ref[index], exact=exact, rtol=rtol, where=f"{where}[{', '.join(map(str, index))}]"
            )
            if not verdict.ok:
                if verdict.reason == "compare.wrong_value" and _distribution(ref) and not _sums_to_one(array):
                    return Verdict(
                        False, verdict.reason, {**verdict.fields, "relation": ("relation.not_a_distribution", 1)}
                    )
                return verdict
        return OK
    if isinstance(ref, (list, tuple)):
        if isinstance(got, (dict, str)) or not hasattr(got, "__len__"):
            return Verdict(False, "compare.wrong_type", dict(where=where, kind=_kind(ref), got_type=type(got).__name__))
        if len(got) != len(ref):
            return Verdict(False, "compare.wrong_length", dict(where=where, expected_len=len(ref), got_len=len(got)))
        for index, (item, sub) in enumerate(zip(got, ref)):
            verdict = _compare(item, sub, exact, rtol, f"{where}[{index}]")
            if not verdict.ok:
                return verdict
        return OK
    if isinstance(ref, (set, frozenset)):
        if not isinstance(got, (set, frozenset, list, tuple)):
            return Verdict(
                False,
                "compare.wrong_type",
                dict(where=where, kind=messages.text("kind.set"), got_type=type(got).__name__),
            )
        expected = set(
            ref
        )  # a set of got's items is built only when all are in it: its items' hash values cannot make that slow
        same = all(item in expected for item in got) and set(got) == expected
        return (
            OK
            if same
            else Verdict(False, "compare.wrong_value", dict(where=where, got=show(got), expected=show(expected)))
        )
    if isinstance(ref, (bool, np.bool_, str)):
        if type(got) in (np.bool_, np.str_):  # numpy's own scalars, as the codec reads them
            got = got.item()
        if type(got) is not (str if isinstance(ref, str) else bool):
            return Verdict(False, "compare.wrong_type", dict(where=where, kind=_kind(ref), got_type=type(got).__name__))
        return (
            OK
            if got == ref
            else Verdict(False, "compare.wrong_value", dict(where=where, got=show(got), expected=show(ref)))
        )
    return compare_number(got, ref, exact=exact, rtol=rtol, where=where)
