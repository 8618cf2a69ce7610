"""Whether every variant was equally hard (`autograder.reporting.variants`): a synthetic class whose
hidden cases record what was drawn, with one planted harder parameter value, or none."""

import random

from hypothesis import given
from hypothesis import strategies as st

from autograder.grading.result import CaseOutcome
from autograder.reporting.classdata import ClassData, Row
from autograder.reporting.variants import LEVEL, range_stats, ranges

HIDDEN = 6


def synthetic_class(seed: int, students: int = 60, harder_from: int | None = None, drop: float = 0.45) -> ClassData:
    """A class of `students` on one check "q" of 6 hidden cases: each draws a sequence length 1-12, a
    weight and a branch; a student is right on a case with their own chance (0.35 to 0.95), less
    `drop` where the length is at least `harder_from`."""
    rng = random.Random(seed)
    rows = []
    for index in range(students):
        skill = rng.uniform(0.35, 0.95)
        cases = []
        for case in range(HIDDEN):
            drawn = {
                "branch": rng.choice(["ordinary", "ordinary", "ordinary", "longest"]),
                "len:xs": float(rng.randint(1, 12)),
                "w": rng.randint(-16, 16) / 8,
            }
            chance = skill - (drop if harder_from is not None and drawn["len:xs"] >= harder_from else 0.0)
            cases.append(CaseOutcome(f"hidden case {case + 1}", False, rng.random() < chance, drawn=drawn))
        score = 2 * sum(case.ok for case in cases) / HIDDEN
        rows.append(Row(f"s{index:03d}", "a1", "q", score, 2.0, cases=[CaseOutcome("book", True, True), *cases]))
    return ClassData.from_rows(rows)


def test_a_planted_harder_length_is_flagged_and_nothing_else():
    found = range_stats(synthetic_class(seed=7, harder_from=9), "a1")
    harder = [(r.parameter, r.range) for r in found if r.harder]
    assert harder == [("len:xs", "[9, 12]")]
    planted = next(r for r in found if r.harder)
    assert planted.facility < planted.rest_facility and planted.p_adjusted < LEVEL
    assert planted.cases + planted.rest_cases == 60 * HIDDEN


def test_with_nothing_planted_nearly_every_simulated_class_flags_nothing():
    flagged = [seed for seed in range(100) if any(r.harder for r in range_stats(synthetic_class(seed), "a1"))]
    assert len(flagged) <= 5, flagged  # the level is 0.05 over all ranges together (Benjamini-Hochberg)


def test_the_planted_value_is_found_in_nearly_every_simulated_class():
    found = [
        any(r.harder and r.parameter == "len:xs" for r in range_stats(synthetic_class(seed, harder_from=9), "a1"))
        for seed in range(20)
    ]
    assert sum(found) >= 18


def test_facility_per_range_counts_the_cases_and_leaves_the_stub_and_public_cases_out():
    data = synthetic_class(seed=3)
    stub = Row(
        "stub",
        "a1",
        "q",
        0.0,
        2.0,
        cases=[CaseOutcome("hidden case 1", False, False, drawn={"branch": "ordinary", "len:xs": 1.0})],
        not_started=True,
    )
    data = ClassData.from_rows(data.rows + [stub])
    found = range_stats(data, "a1")
    by_range = {(r.parameter, r.range): r for r in found}
    longest = by_range[("branch", "longest")]
    cases = [
        (case.drawn["branch"], case.ok)
        for row in data.rows
        if not row.not_started
        for case in row.cases
        if not case.public
    ]
    mine = [ok for branch, ok in cases if branch == "longest"]
    assert (longest.cases, longest.facility) == (len(mine), sum(mine) / len(mine))
    assert longest.rest_cases == len(cases) - len(mine)


@given(st.lists(st.integers(-50, 50) | st.sampled_from([0.5, 2.5]), min_size=1, max_size=80))
def test_equal_values_always_share_a_range_and_ranges_keep_their_order(values):
    labels = ranges(values)
    by_value = {}
    for value, label in zip(values, labels):
        assert by_value.setdefault(value, label) == label
    distinct = sorted(by_value)
    order = list(dict.fromkeys(by_value[value] for value in distinct))
    assert len(order) == len(set(order))  # a range holds consecutive values only
    assert len(order) <= max(6, 4)
