"""ch12_boundaries against expected.json: every truncated-bptt/ value is produced by the engine."""

from decimal import ROUND_HALF_EVEN, Decimal

import sympy as sp

from autograder.assignments.ch12_boundaries import reference
from autograder.coursedir.data import expected

PREFIXES = ("truncated-bptt/",)


def _flat(book, value):
    if isinstance(book, list):
        assert isinstance(value, (list, tuple)) and len(value) == len(book)
        for b, v in zip(book, value):
            yield from _flat(b, v)
    else:
        yield book, value


def test_every_key_of_the_prefixes_is_produced_and_nothing_else():
    keys = {key for key in expected() if key.startswith(PREFIXES)}
    values = reference.book_values()
    assert keys, "expected.json has no truncated-bptt/ keys"
    assert keys == set(values)


def test_book_values_agree_exactly_or_to_the_printed_places():
    values = reference.book_values()
    for key, book in expected().items():
        if not key.startswith(PREFIXES):
            continue
        for entry, value in _flat(book, values[key]):
            number = sp.sympify(value)
            if entry.is_exact:
                assert number.is_Rational and number == entry.value, key
            else:
                rounded = Decimal(str(sp.N(number, 30))).quantize(
                    Decimal(1).scaleb(-entry.places), rounding=ROUND_HALF_EVEN
                )
                assert rounded == entry.value, key


def test_the_spec_numbers_truncated_against_full():
    values = reference.book_values()
    assert values["truncated-bptt/k-2/grad"] == sp.Rational(-7, 16)
    assert values["truncated-bptt/full/grad"] == sp.Rational(-21, 32)
    assert sum(values["truncated-bptt/k-2/contributions"]) == values["truncated-bptt/k-2/grad"]
    assert sum(values["truncated-bptt/full/contributions"]) == values["truncated-bptt/full/grad"]


def test_book_log_walks_through_the_comparison_step_by_step():
    lines = reference.book_log()
    text = "\n".join(lines)
    assert sum(line.lstrip().startswith(("1 ", "2 ", "3 ", "4 ")) for line in lines) == 4
    assert "-21/32" in text and "-7/16" in text and "boundary" in text
