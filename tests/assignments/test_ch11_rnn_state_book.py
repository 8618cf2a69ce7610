"""ch11_rnn_state: the engine reproduces every book value of expected.json under the assignment's
prefixes (rationals exactly, printed decimals after rounding the 30-digit value), and the book
runner's log prints Tables 11.2-11.4 as the book does."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import pytest
import sympy as sp

from autograder.assignments.ch11_rnn_state import reference as ref
from autograder.coursedir.data import BookValue, expected

PREFIXES = (
    "table-11.1/",
    "table-11.2/",
    "table-11.3/",
    "table-11.4/",
    "example-11.1/",
    "example-11.2/",
    "section-11.3/",
    "exercise-11.7.1/",
    "exercise-11.7.2/",
    "exercise-11.7.3/",
)
BOOK = {key: value for key, value in expected().items() if key.startswith(PREFIXES)}
VALUES = ref.book_values()


def _matches(got, book: BookValue) -> bool:
    if book.is_exact:
        return sp.nsimplify(got) == book.value if isinstance(got, int) else sp.Rational(got) == book.value
    rounded = Decimal(str(sp.N(got, 30))).quantize(Decimal(1).scaleb(-book.places), rounding=ROUND_HALF_EVEN)
    return rounded == book.value


def test_every_key_of_the_prefixes_is_produced_and_nothing_else():
    assert len(BOOK) >= 60
    assert set(VALUES) == set(BOOK)


@pytest.mark.parametrize("key", sorted(BOOK))
def test_book_value(key):
    book, got = BOOK[key], VALUES[key]
    if isinstance(book, list):
        assert isinstance(got, list) and len(got) == len(book), key
        for item, want in zip(got, book):
            assert _matches(item, want), (key, item, want)
    else:
        if key.endswith(("/id", "/choice", "/min-fillers")):
            assert isinstance(got, int), key
        assert _matches(got, book), (key, got, book)


def test_rationals_are_exact_types():
    for key, value in VALUES.items():
        book = BOOK[key]
        for item, want in zip(
            value if isinstance(value, list) else [value], book if isinstance(book, list) else [book]
        ):
            if want.is_exact:
                assert isinstance(item, int) or (isinstance(item, sp.Basic) and item.is_Rational), (key, item)


def test_book_log_prints_tables_11_2_to_11_4():
    lines = ref.book_log()
    text = "\n".join(lines)
    assert [line for line in lines if line.startswith("Table")] == [
        line for line in lines if line.startswith("Table 11.")
    ]
    assert all(title in text for title in ("Table 11.2", "Table 11.3", "Table 11.4"))
    for row in ("[0.754915, 0.245085]", "[0.651355, 0.348645]", "[0.592667, 0.407333]", "[1.125, 0]", "[0.25, 0]"):
        assert row in text, row
    red = next(line for line in lines if line.startswith("red "))
    blue = next(line for line in lines if line.startswith("blue "))
    assert "[1/256, 0]" in red and "[0.12890625, 0]" in red and "0.532182" in red and "(right)" in red
    assert "[0, 1/256]" in blue and "[0.125, 0.00390625]" in blue and "0.530236" in blue and "(wrong)" in blue
    table_11_2 = lines[lines.index(next(line for line in lines if line.startswith("Table 11.2"))) + 2 :][:3]
    assert [row.split()[0] for row in table_11_2] == ["1:", "2:", "3:"]
    assert "[0.5, 0]   [0.25, 0]" in table_11_2[2]


def test_the_engine_is_independent_of_the_solution_module():
    source = open(ref.__file__, encoding="utf-8").read()
    assert "solutions" not in source
