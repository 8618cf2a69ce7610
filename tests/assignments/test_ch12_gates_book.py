"""ch12_gates: the engine reproduces every book value of its expected.json prefixes, from the book's inputs."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import pytest
import sympy as sp

from autograder.assignments.ch12_gates import reference as ref
from autograder.coursedir.data import expected

PREFIXES = (
    "example-12.3/",
    "example-12.4/",
    "exercise-12.7.4/",
    "exercise-12.7.5/",
    "section-12.4/",
    "param-count/",
    "text2-example-3/",
    "text2-example-4/",
    "text3-lstm/",
    "text3-gru/",
)
BOOK = {key: value for key, value in expected().items() if key.startswith(PREFIXES)}
VALUES = ref.book_values()


def _agrees(value, book) -> bool:
    if isinstance(book, list):
        return isinstance(value, (list, tuple)) and len(value) == len(book) and all(map(_agrees, value, book))
    number = sp.sympify(value)
    if book.is_exact:
        return bool(number.is_Rational) and number == book.value
    places = Decimal(1).scaleb(-book.places)
    return Decimal(str(sp.N(number, 30))).quantize(places, rounding=ROUND_HALF_EVEN) == book.value


def test_every_prefix_has_book_values():
    for prefix in PREFIXES:
        assert any(key.startswith(prefix) for key in BOOK), prefix


@pytest.mark.parametrize("key", sorted(BOOK))
def test_the_engine_reproduces_the_book(key):
    assert key in VALUES, f"no engine value for {key}"
    assert _agrees(VALUES[key], BOOK[key]), (key, VALUES[key], BOOK[key])


def test_the_engine_computes_only_book_keys_of_its_prefixes():
    assert set(VALUES) == set(BOOK)


def test_counts_and_choices_are_ints_and_exact_values_are_exact():
    for key, value in VALUES.items():
        if key.startswith("param-count/"):
            assert type(value) is int, key
        elif BOOK[key].is_exact:
            assert sp.sympify(value).is_Rational, key
        else:  # through tanh, or an exact power the book prints rounded (0.99^100)
            assert sp.sympify(value).is_Rational == key.startswith("section-12.4/"), key


def test_example_12_4_rounding_tie_is_read_at_full_precision():
    # from the rounded candidate 0.197375 the mix would be 0.7397375 (a tie); at full precision it is 0.73973753...
    assert sp.N(VALUES["example-12.4/h"], 12) > sp.Rational(7397375, 10**7)


def test_the_second_texts_gru_example_is_computed_in_its_own_complementary_convention():
    t4 = ref.TEXT2_EXAMPLE_4
    cho = [ref.gru_from_gates(0, t4["h_prev"], 1, z, 0, 0, 0)["kept"] + (1 - z) * t4["g"] for z in t4["z"]]
    assert [VALUES["text2-example-4/h-z-0.2"], VALUES["text2-example-4/h-z-0.9"]] != cho
    assert VALUES["text2-example-4/h-z-0.2"] == (1 - t4["z"][0]) * t4["h_prev"] + t4["z"][0] * t4["g"]


def test_the_book_inputs_are_inputs_and_the_checks_use_them():
    from autograder.assignments import get

    spec = get("ch12_gates")
    labels = {
        case.label["en"]
        for name in ("lstm_cell_update", "lstm_step", "gru_step", "retention")
        for case in spec.check(name).public()
    }
    for cited in (
        "Example 12.3",
        "Example 12.4",
        "exercise 12.7.4",
        "section 12.4",
        "second text, example 3",
        "third text",
    ):
        assert any(cited in label for label in labels), cited
    for value in (ref.EXAMPLE_12_3, ref.EXERCISE_12_7_4, ref.EXAMPLE_12_4, ref.TEXT3_LSTM, ref.TEXT3_GRU):
        assert "h" not in value and "c" not in value  # given gate values and old states only


def test_the_state_log_walks_through_the_gate_examples():
    log = "\n".join(ref.book_log())
    for line in (
        "Example 12.3 LSTM",
        "kept f*c_prev = 18/25 (0.72)",
        "c = 41/50 (0.82)",
        "h = o*tanh(c) = 0.506302",
        "exercise 12.7.4 LSTM, o = 0",
        "Example 12.4 GRU (Cho)",
        "candidate g = 0.197375",
        "h = 0.739738",
        "third text GRU (Cho)",
        "h = 0.751092",
        "COMPLEMENTARY convention",
        "-7/20 (-0.35)",
        "43046721/100000000 (0.43046721)",
        "0.366032",
        "LSTM two biases 108",
    ):
        assert line in log, line
