"""The book runner: recompute every book value with the engine and compare with expected.json.

`python -m autograder tables` prints each assignment's state log, writes `data/part-iii/run.json`
and exits non-zero on any disagreement.
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import sympy as sp

from ..assignments import ALL
from ..coursedir import config
from ..coursedir.data import expected

DIGITS = 30


def engine_values() -> dict[str, Any]:
    """key -> engine value, over all assignments."""
    values: dict[str, Any] = {}
    for spec in ALL.values():
        for key, value in spec.reference.book_values().items():
            if key in values:
                raise ValueError(f"book value {key!r} computed by two assignments")
            values[key] = value
    return values


def agrees(value: Any, book: Any) -> bool:
    """An engine value against a book value: exact equality, or rounding to the printed places."""
    if isinstance(book, list):
        return isinstance(value, (list, tuple)) and len(value) == len(book) and all(map(agrees, value, book))
    number = sp.sympify(value)
    if book.is_exact:
        return bool(number.is_Rational) and number == book.value
    rounded = Decimal(str(sp.N(number, DIGITS))).quantize(Decimal(1).scaleb(-book.places), rounding=ROUND_HALF_EVEN)
    return rounded == book.value


def render(value: Any) -> Any:
    """A value for run.json: fraction strings for rationals, 30-digit decimals otherwise."""
    if isinstance(value, (list, tuple)):
        return [render(item) for item in value]
    number = sp.sympify(value)
    return str(number) if number.is_Rational else {"decimal": str(sp.N(number, DIGITS))}


def compare_all() -> tuple[dict[str, Any], list[str]]:
    """Engine values and the list of keys that disagree with (or are missing from) expected.json."""
    values, book = engine_values(), expected()
    problems = [f"{key}: no engine value" for key in book if key not in values]
    problems += [f"{key}: not in expected.json" for key in values if key not in book]
    problems += [
        f"{key}: engine {render(values[key])} != book {_show(book[key])}"
        for key in book
        if key in values and not agrees(values[key], book[key])
    ]
    return values, problems


def _show(book: Any) -> str:
    if isinstance(book, list):
        return "[" + ", ".join(map(_show, book)) + "]"
    return str(book.value)


def main(out=None) -> int:
    """Print the state logs, write run.json (or `out`), report disagreements; 0 when all agree."""
    for spec in ALL.values():
        print("\n".join(spec.reference.book_log()))
        print()
    values, problems = compare_all()
    path = Path(out) if out else config.DATA_DIR / "run.json"
    path.write_text(json.dumps({key: render(values[key]) for key in sorted(values)}, indent=1) + "\n", encoding="utf-8")
    for problem in problems:
        print("DISAGREES", problem)
    print(f"{len(values) - len(problems)} of {len(expected())} book values agree; wrote {path}")
    return 1 if problems else 0
