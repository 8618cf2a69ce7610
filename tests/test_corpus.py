"""Correct work earns its points: the corpus of tests/corpus (correct variants and plausible
mistakes, written apart from the catalogue) through the kit's self-check and through real grading.

* in process, no nbgrader: every variant passes every public case of its notebook's self-check, run
  as the student runs the notebook top to bottom; every mistake fails a public case of its own check
  (or is marked `hidden_only`), and neither names a misconception other than the one expected, in
  English and in Chinese alike; a mistake of a catalogued kind is named as expected at grading on
  every attempt (three students' fresh hidden cases), whatever the draw;
* in the shared graded class (`graded_class`, tests/classroom.py, which writes the corpus with
  `corpus.write_all(root)`, entries that cannot touch each other's checks packed into one
  submission): every variant earns full marks on every check; every mistake loses points on its own
  check, is named there rightly (its expected id) or not at all, and costs no point on a check its
  function does not feed.

`python -m tests.corpus` grades the corpus in a class of its own and prints the same verdict counts.
"""

from __future__ import annotations

import functools

import pytest

from . import corpus
from .conftest import ASSIGNMENTS

ENTRIES = corpus.entries(ASSIGNMENTS)
VARIANTS = [entry for entry in ENTRIES if entry.kind == "variant"]
MISTAKES = [entry for entry in ENTRIES if entry.kind == "mistake"]


def _ids(entry: corpus.Entry) -> str:
    return entry.name


def test_the_corpus_spans_every_assignment_with_variants_and_mistakes():
    sizes = corpus.per_assignment()
    assert set(sizes) == set(corpus.SHORT), sizes
    assert all(variants >= 10 and mistakes >= 5 for variants, mistakes in sizes.values()), sizes
    assert sum(v for v, _ in sizes.values()) >= 55 and sum(m for _, m in sizes.values()) >= 30, sizes


def test_write_all_replaces_exactly_one_definition(tmp_path):
    """The entry's source stands where the function stood; every other cell is the reference's."""
    from autograder.assignments import get
    from autograder.authoring.submissions import filled
    from autograder.coursedir.config import REPO_ROOT

    entry = next(e for e in corpus.ENTRIES if e.function == "lstm_param_count")  # a cell of four functions
    release = REPO_ROOT / "release" / entry.assignment / f"{entry.assignment}.ipynb"
    ours, reference = corpus.notebook(release, entry), filled(release, get(entry.assignment))
    changed = [(a.source, b.source) for a, b in zip(ours.cells, reference.cells) if a.source != b.source]
    assert len(changed) == 1
    mine, theirs = changed[0]
    assert entry.source.strip() in mine and "def rnn_param_count" in mine and "def gru_param_count" in mine
    assert corpus._defined(mine) == corpus._defined(theirs)


def test_a_pack_replaces_exactly_its_entries_definitions_and_no_check_is_fed_by_two_of_them():
    """A pack's notebook differs from the reference's by its entries' sources alone, and each check
    is fed by one entry at most, so a lost point belongs to one entry."""
    from autograder.assignments import get
    from autograder.authoring.submissions import filled
    from autograder.coursedir.config import REPO_ROOT

    packs = corpus.packs(ASSIGNMENTS)
    assert sorted(entry.name for pack in packs for entry in pack.entries) == sorted(entry.name for entry in ENTRIES)
    assert len(packs) < len(ENTRIES) / 2
    for pack in packs:
        release = REPO_ROOT / "release" / pack.assignment / f"{pack.assignment}.ipynb"
        ours, reference = corpus.notebook(release, *pack.entries), filled(release, get(pack.assignment))
        changed = "\n".join(a.source for a, b in zip(ours.cells, reference.cells) if a.source != b.source)
        assert all(entry.source.strip() in changed for entry in pack.entries), pack.student
        fed = [check for entry in pack.entries for check in corpus.fed_checks(entry)]
        assert len(fed) == len(set(fed)), pack.student


# ----------------------------------------------------------------------------- in process (the kit)


@pytest.mark.parametrize("entry", VARIANTS, ids=_ids)
def test_a_variant_passes_every_public_case_of_the_self_check(entry):
    reports = corpus.selfchecks(entry)
    wrong = {
        name: report.lines(graded=False) for name, report in reports.items() if report.passed < len(report.results)
    }
    assert not wrong, f"{entry.label} ({entry.why}):\n" + "\n".join(line for lines in wrong.values() for line in lines)


@pytest.mark.parametrize("entry", MISTAKES, ids=_ids)
def test_a_mistake_fails_a_public_case_and_the_self_check_names_it_rightly_or_not_at_all_in_both_languages(entry):
    from rnnkit import messages

    reports = corpus.selfchecks(entry)
    own = reports[entry.function]
    failed = own.passed < len(own.results)
    if entry.hidden_only:
        assert not failed, f"{entry.label} fails a public case: drop hidden_only"
    else:
        assert failed, (
            f"{entry.label} ({entry.why}) passes every public case of {entry.function}: "
            "mark it hidden_only if only hidden cases or probes can catch it"
        )
    for name, report in reports.items():
        assert set(report.misconceptions) <= {entry.expected} - {None}, (name, report.lines(graded=False))
    with messages.speaking("zh"):  # the Chinese edition: the same verdicts, said in Chinese
        chinese = corpus.selfchecks(entry)
        lines = chinese[entry.function].lines(graded=False)
    assert {name: (r.passed, r.misconceptions) for name, r in chinese.items()} == {
        name: (r.passed, r.misconceptions) for name, r in reports.items()
    }
    assert any("\u4e00" <= char <= "\u9fff" for char in "".join(lines)), lines


# ----------------------------------------------------------------------------- graded (nbgrader)


def _rows(graded_class, pack: corpus.Pack) -> dict:
    return graded_class.table.get((pack.assignment, pack.student), {})


def _graded_rows(graded_class, entry: corpus.Entry) -> dict:
    if not any(map(functools.partial(_rows, graded_class), corpus.packs(ASSIGNMENTS))):
        pytest.skip("the shared class holds no corpus submission: tests/classroom.py must call corpus.write_all(root)")
    rows = _rows(graded_class, corpus.pack_of(entry))
    assert rows, f"{corpus.pack_of(entry).student} ({entry.name}) was not graded"
    return rows


@pytest.mark.parametrize("entry", VARIANTS, ids=_ids)
def test_a_variant_earns_full_marks_on_every_check(graded_class, entry):
    found = corpus.verdict(entry, _graded_rows(graded_class, entry))
    assert found.outcome == "right", f"{entry.label} ({entry.why}) refused: {found.detail}"


@pytest.mark.parametrize("entry", MISTAKES, ids=_ids)
def test_a_mistake_loses_points_and_is_named_rightly_or_not_at_all(graded_class, entry):
    found = corpus.verdict(entry, _graded_rows(graded_class, entry))
    assert found.outcome != "missed", (
        f"{entry.label} ({entry.why}) earned every point of {entry.function}: {found.detail}"
    )
    assert found.outcome in ("named rightly", "not named"), f"{entry.label} (expected {entry.expected}): {found.detail}"
    assert not found.collateral, (
        f"{entry.label} cost points on checks {entry.function} does not feed: {found.collateral}"
    )


def test_the_corpus_verdicts(graded_class):
    """All verdicts at once; the message is the summary to quote."""
    if not any(map(functools.partial(_rows, graded_class), corpus.packs(ASSIGNMENTS))):
        pytest.skip("the shared class holds no corpus submission: tests/classroom.py must call corpus.write_all(root)")
    found = corpus.verdicts(functools.partial(_rows, graded_class), ENTRIES)
    assert all(v.good for v in found), corpus.summary(found)


NAMED = [entry for entry in MISTAKES if entry.expected]


@pytest.mark.parametrize("entry", NAMED, ids=_ids)
def test_a_mistake_of_a_catalogued_kind_is_named_on_every_attempt(entry):
    """Whether the name is given never depends on the draw: graded in process on three students'
    attempts (fresh hidden cases each), the mistake is named as expected on its own check every time."""
    from autograder.assignments import get
    from autograder.coursedir.config import load
    from autograder.grading import checks
    from autograder.vocabulary import catalogue

    from .attempts import attempt

    spec = get(entry.assignment)
    for student in ("s1", "s2", "s3"):
        fn = catalogue.submission(spec.template, entry.source)[entry.function]  # afresh: no state from before
        report = checks.grade(
            spec,
            spec.check(entry.function),
            fn,
            attempt=attempt(student),
            hidden=load().HIDDEN_CASES,
            timeout=10,
            points=1,
        )
        assert report.misconceptions == [entry.expected], (student, report.lines(graded=True))
