"""Answer similarity: which graded submissions of an assignment share code, and which return the value
of another student's hidden case.

Code. The solution cells and the student's own cells of a graded notebook (the autograded copy: the
attempt that was graded) are read as written; the released notebook's code (the stubs, the given
helpers, the visible tests) is boilerplate, and so is a passage that more than half of the class,
and at least 10 students, share (`COMMON`: MOSS ignores a passage in more than 10 files by default).
copydetect tokenises each student's code with Pygments (names, strings and comments do not count, so
renaming, re-commenting and reordering change nothing), winnows its k-grams (Schleimer, Wilkerson
and Aiken 2003) and compares every pair: a pair's score is the larger of the two shares of a
student's fingerprinted code that the other holds (a copy padded with code of its own still scores
high), in [0, 1].

Values. Every hidden case is drawn for one student (`autograder.grading.attempts`), so a function
that returns another student's expected value on its own case is a signal no text comparison gives:
`flags` names the wrong hidden values of a check that match (to `FLAG_RTOL`) the expected values of
cases of exactly one other student, at least `MIN_MATCHES` of them; never a value that several
students' cases share, nor one of the student's own cases, nor the answer of a public case (every
student has those: a function that returns one copies the book, not a classmate).

A high score or a flag is a reason to look, not a verdict.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..assignments import ALL
from ..grading.checks import public_cases
from ..grading.result import close, stored
from .classdata import ClassData

#: copydetect's defaults: a match must span at least `NOISE` characters of tokenised code, and every
#: match of `GUARANTEE` characters is found.
NOISE, GUARANTEE = 25, 30
#: A fingerprint in more than this share of the submissions, and in at least `COMMON_AT_LEAST` of
#: them, is common to the class, not shared by two.
COMMON, COMMON_AT_LEAST = 0.5, 10
#: Pairs scoring at least `FLOOR` are listed in the CSV; those scoring at least `SHOWN` are shown
#: side by side in the page (at most `SHOWN_PAIRS` of them, the highest first).
FLOOR, SHOWN, SHOWN_PAIRS = 0.25, 0.5, 20
#: How close a wrong value must be to another student's expected value to match it: a copied value
#: typed with 5 significant digits still matches.
FLAG_RTOL = 1e-4
#: A student is flagged on a check where at least this many of their wrong values are one other
#: student's (a single match may be a coincidence of small numbers).
MIN_MATCHES = 2
#: A notebook larger than this is not read (admission refuses far smaller ones).
NOTEBOOK_BYTES = 16 * 1024 * 1024
#: A student's code longer than this is not compared (listed as such): tokenising it would cost the
#: class's run far more than any answer needs.
CODE_CHARS = 200_000


@dataclass(frozen=True)
class Code:
    """One student's code: its text, and copydetect's fingerprint of it."""

    student: str
    text: str
    fingerprint: Any


@dataclass(frozen=True)
class Pair:
    """Two students' code: the score, each one's share held by the other, and the matching spans
    (character offsets into each text: starts, ends)."""

    student_a: str
    student_b: str
    score: float
    share_a: float
    share_b: float
    spans_a: tuple[tuple[int, int], ...]
    spans_b: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Flag:
    """A wrong hidden value of `student` on `case` of `check` that is the expected value of
    `other_case` of `matches_student`."""

    student: str
    check: str
    case: str
    matches_student: str
    other_case: str


def code_cells(notebook: Path, written: bool = False, released: frozenset[str] = frozenset()) -> str:
    """The code cells of a notebook as they stand, joined by blank lines; with `written`, only those a
    student writes in: the solution cells and cells of their own, not a locked or test cell (in an
    autograded notebook nbgrader has put the cells' metadata back from the gradebook, so a student
    cannot unmark one), and not a cell of the release as it was handed out (`released`,
    `released_cells`: a stub left as it was, its comments moved or not). "" for a notebook that cannot
    be read: it is logged, and the class goes on."""
    sources = _sources(notebook, written)
    return "\n\n".join(source for source in sources if not (released and _tokens(source) in released))


def released_cells(release: Path) -> frozenset[str]:
    """Each code cell of the released notebook `release` as `_tokens` reads it."""
    return frozenset(_tokens(source) for source in _sources(release, False))


def _sources(notebook: Path, written: bool) -> list[str]:
    """The code cells' sources of a notebook (with `written`, a student's: `code_cells`); none where
    it cannot be read (logged)."""
    try:
        if notebook.stat().st_size > NOTEBOOK_BYTES:
            raise ValueError(f"larger than {NOTEBOOK_BYTES} bytes")
        with open(notebook, encoding="utf-8") as handle:
            cells = json.load(handle).get("cells", [])
        return [
            "".join(s) if isinstance(s := cell.get("source", ""), list) else str(s)
            for cell in cells
            if isinstance(cell, dict) and cell.get("cell_type") == "code" and not (written and _given(cell))
        ]
    except (OSError, ValueError, AttributeError, TypeError, RecursionError) as error:
        logging.getLogger(__name__).warning("similarity: %s not read: %s", notebook, error)
        return []


def _tokens(source: str) -> str:
    """A cell's code as the comparison reads it: its Python tokens without comments or layout, so a
    stub whose comment lines were moved, or whose blank lines changed, is the same stub."""
    from pygments.lexers import PythonLexer
    from pygments.token import Comment, Text

    return " ".join(
        value
        for kind, value in PythonLexer().get_tokens(source)
        if kind not in Comment and kind not in Text and value.strip()
    )


def _given(cell: dict) -> bool:
    """A test (grade) cell or a locked one: the course's code, not the student's."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade") or meta.get("locked")) and not meta.get("solution")


def _kgram_hashes(string: str, k: int) -> np.ndarray:
    """copydetect's hashes of every k-gram of `string`, from a hash that is the same in every process
    (copydetect takes Python's `hash`, seeded anew in each process: the winnowed fingerprints, and so
    the scores, would change from one run to the next)."""
    return np.array(
        [
            int.from_bytes(
                hashlib.blake2b(string[offset : offset + k].encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                "big",
                signed=True,
            )
            for offset in range(len(string) - k + 1)
        ],
        dtype=np.int64,
    )


def _fingerprint(text: str, window: int, boilerplate: np.ndarray | None = None):
    import copydetect.utils
    from copydetect import CodeFingerprint

    hashed_kgrams, copydetect.utils.hashed_kgrams = copydetect.utils.hashed_kgrams, _kgram_hashes
    try:
        return CodeFingerprint(
            "code.py", NOISE, window, boilerplate=boilerplate, fp=io.StringIO(text), language="python"
        )
    finally:
        copydetect.utils.hashed_kgrams = hashed_kgrams


def fingerprints(codes: dict[str, str], given: str) -> list[Code]:
    """Each student's fingerprint, the `given` code (the release) and the class's common passages
    (`COMMON`) taken out as boilerplate."""
    window = GUARANTEE - NOISE + 1
    boilerplate = np.array(sorted(_fingerprint(given, 1).hashes), dtype=np.int64)
    first = {student: _fingerprint(text, window, boilerplate) for student, text in codes.items()}
    counts = Counter(h for fp in first.values() for h in fp.hashes)
    common = [h for h, n in counts.items() if n > COMMON * len(codes) and n >= COMMON_AT_LEAST]
    if common:
        boilerplate = np.union1d(boilerplate, np.array(common, dtype=np.int64))
        first = {student: _fingerprint(text, window, boilerplate) for student, text in codes.items()}
    return [Code(student, codes[student], fp) for student, fp in sorted(first.items())]


def _spans(slices: np.ndarray) -> tuple[tuple[int, int], ...]:
    return (
        tuple((int(start), int(end)) for start, end in zip(slices[0], slices[1])) if len(slices) and slices.size else ()
    )


def pairs(codes: list[Code], floor: float = FLOOR) -> list[Pair]:
    """Every pair of students whose score is at least `floor`, the highest first (then by ids)."""
    from copydetect import compare_files

    found = []
    for i, a in enumerate(codes):
        for b in codes[i + 1 :]:
            if (
                not a.fingerprint.hashes
                or not b.fingerprint.hashes
                or a.fingerprint.hashes.isdisjoint(b.fingerprint.hashes)
            ):
                continue
            _, (share_a, share_b), (slices_a, slices_b) = compare_files(a.fingerprint, b.fingerprint)
            score = min(1.0, max(float(share_a), float(share_b)))
            if score >= floor and math.isfinite(score):
                found.append(
                    Pair(
                        a.student, b.student, score, float(share_a), float(share_b), _spans(slices_a), _spans(slices_b)
                    )
                )
    return sorted(found, key=lambda p: (-p.score, p.student_a, p.student_b))


def _key(value: Any) -> str:
    """A coarse key of a stored value (numbers to 3 significant digits), under which values that
    `close` may match are looked for."""

    def coarse(value):
        if isinstance(value, list):
            return [coarse(item) for item in value]
        if isinstance(value, dict):
            return {key: coarse(item) for key, item in value.items()}
        return float(f"{value:.3g}") if isinstance(value, float) else value

    return json.dumps(coarse(value), sort_keys=True)


@lru_cache(maxsize=None)
def public_answers(assignment: str, check: str) -> tuple[Any, ...]:
    """The expected values of `check`'s public cases (`stored`), as the kit hands them to every
    student; none for a check or an assignment the course no longer has."""
    spec = ALL.get(assignment)
    if spec is None or check not in {c.name for c in spec.graded}:
        return ()
    return tuple(stored(expected) for _, _, expected in public_cases(spec.check(check), labelled=False))


def flags(data: ClassData, assignment: str) -> list[Flag]:
    """The wrong hidden values of `assignment`'s graded submissions that are another student's expected
    values: on one check, at least `MIN_MATCHES` of a student's wrong values each match (`FLAG_RTOL`)
    a case of one and the same other student, and of nobody else, none of the student's own cases
    and no public case's answer; by student, check and case."""
    expected: dict[tuple[str, str], list[tuple[str, str, Any]]] = defaultdict(
        list
    )  # (check, key) -> (student, case, value)
    wrong: dict[tuple[str, str], list[tuple[str, Any]]] = defaultdict(list)  # (student, check) -> (case, value)
    for row in data.graded_rows_of(assignment):
        if row.needs_manual or row.not_started:
            continue
        for case in row.cases:
            if case.public:
                continue
            if case.expected is not None:
                expected[(row.grade_id, _key(case.expected))].append((row.student, case.label, case.expected))
            if not case.ok and case.got is not None:
                wrong[(row.student, row.grade_id)].append((case.label, case.got))
    found = []
    for (student, check), values in wrong.items():
        matched: dict[str, list[tuple[str, str]]] = defaultdict(list)  # other student -> (case, their case)
        given = public_answers(assignment, check)
        for label, got in values:
            if any(close(got, answer, FLAG_RTOL) for answer in given):
                continue
            matches = [
                (other, other_case)
                for other, other_case, value in expected.get((check, _key(got)), ())
                if close(got, value, FLAG_RTOL)
            ]
            if len({other for other, _ in matches}) == 1 and matches[0][0] != student:
                matched[matches[0][0]].append((label, matches[0][1]))
        for other, cases in matched.items():
            if len(cases) >= MIN_MATCHES:
                found += [Flag(student, check, label, other, other_case) for label, other_case in cases]
    order = {g: i for i, (g, _) in enumerate(data.questions.get(assignment, []))}
    return sorted(found, key=lambda f: (f.student, order.get(f.check, len(order)), f.check, f.case))


@dataclass(frozen=True)
class Similarity:
    """An assignment's similarity: the pairs above `FLOOR`, the value flags, the students compared,
    those with no code of their own (every line given or common), and those whose code is longer
    than `CODE_CHARS` (not compared)."""

    assignment: str
    pairs: list[Pair]
    flags: list[Flag]
    codes: dict[str, str]
    students: int
    no_code: tuple[str, ...]
    too_long: tuple[str, ...] = ()


def analyse(data: ClassData, assignment: str, codes: dict[str, str], given: str) -> Similarity:
    """The similarity of `codes` (student -> code as written) against the `given` release code, and
    the value flags of the graded class `data`; a code longer than `CODE_CHARS` is left out."""
    too_long = tuple(sorted(student for student, text in codes.items() if len(text) > CODE_CHARS))
    kept = {student: text for student, text in codes.items() if student not in too_long}
    prints = fingerprints(kept, given)
    return Similarity(
        assignment,
        pairs(prints),
        flags(data, assignment),
        kept,
        len(codes),
        tuple(code.student for code in prints if not code.fingerprint.hashes),
        too_long,
    )
