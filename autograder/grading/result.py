"""The structured result the grader stores with each grade cell: one owner of its shape.

`autograder.grading.execute` writes it into the grade cell's `execute_result` output (metadata key
`RESULT_KEY`); the report, the exports and the feedback (`autograder.grading.reveal`) read it back from the
autograded notebook. Printed feedback is never parsed.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from rnnkit.checking import Report
from rnnkit.compare import Real

#: The metadata key of the result in a grade cell's `execute_result` output.
RESULT_KEY = "rnn_course"

#: The longest value (as JSON text) a result keeps of a hidden case: a larger one is not kept.
VALUE_CHARS = 2000


def stored(value: Any) -> Any:
    """A value as the result keeps it: numbers (Fractions, numpy scalars, `Real`s) as floats, a
    non-finite one as its name ("nan", "inf", "-inf"), arrays, tuples and sets as lists, dict keys as
    strings; None where the JSON text would pass `VALUE_CHARS` or the value holds something else."""

    def plain(value: Any) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float, Fraction, np.number, Real)) and not isinstance(value, np.bool_):
            number = float(value)
            return number if math.isfinite(number) else repr(number)
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.ndarray):
            return [plain(item) for item in (value.tolist() if value.dtype.kind != "O" else list(value))]
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        if isinstance(value, (set, frozenset)):
            return sorted((plain(item) for item in value), key=repr)
        if isinstance(value, Mapping):
            return {str(key): plain(item) for key, item in sorted(value.items(), key=lambda kv: repr(kv[0]))}
        raise TypeError(type(value).__name__)

    try:
        found = plain(value)
        return found if len(json.dumps(found)) <= VALUE_CHARS else None
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None


def close(a: Any, b: Any, rtol: float) -> bool:
    """Whether two stored values (`stored`) agree: the same shape, equal strings and flags, numbers
    within `rtol` of each other (or both within 1e-12 of zero)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[key], b[key], rtol) for key in a)
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=1e-12)
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class CaseOutcome:
    """One case of a check: its label, whether it was a public (book) case, right or not, and the
    misconception named on it ("" for none).

    A hidden case also keeps what was drawn (`drawn`: parameter -> a number or a word, as
    `autograder.grading.checks.drawn` describes the case), its expected value, and the student's value
    where it was a wrong one (both `stored`; None where not kept), for the class's item analysis and
    `autograder.reporting.similarity`."""

    label: str
    public: bool
    ok: bool
    misconception: str = ""
    drawn: dict[str, float | str] = field(default_factory=dict)
    expected: Any = None
    got: Any = None


@dataclass(frozen=True)
class Trace:
    """What grading keeps of one hidden case besides its verdict: what was drawn (`drawn`), the
    expected value and the student's value (both `stored`; `got` None where the student's was not
    kept). `autograder.grading.checks.grade_traced` returns them by case label."""

    drawn: dict[str, float | str]
    expected: Any
    got: Any = None


@dataclass(frozen=True)
class HiddenFailure:
    """The first wrong hidden case the cell shows: its label, its inputs as the cell shows them, and
    the sentence of its expected value (the feedback adds it below the inputs where the course
    allows: `autograder.grading.reveal`)."""

    label: str
    inputs: str
    expected: str


@dataclass(frozen=True)
class GradeResult:
    """One grade cell's result: the check, its score of `points`, the misconceptions named (most
    frequent first), each case's outcome, whether the function was still the stub, and the hidden
    case the feedback may complete."""

    check: str
    score: float
    points: float
    misconceptions: tuple[str, ...] = ()
    cases: tuple[CaseOutcome, ...] = ()
    not_started: bool = False
    hidden_failure: HiddenFailure | None = None

    @classmethod
    def of(cls, report: Report, points: float, traces: Mapping[str, Trace] | None = None) -> GradeResult:
        """The result of one graded check; `traces` holds each hidden case's `Trace` by its label (the
        student's value is kept only where it was wrong)."""
        first = report.first_hidden_failure
        traces = traces or {}

        def outcome(r) -> CaseOutcome:
            trace = traces.get(r.label) if not r.public and not report.stub else None
            kept = (trace.drawn, trace.expected, None if r.ok else trace.got) if trace else ({}, None, None)
            return CaseOutcome(r.label, r.public, r.ok, r.misconception, *kept)

        return cls(
            report.name,
            report.score,
            points,
            tuple(report.misconceptions),
            tuple(map(outcome, report.results)),
            report.stub,
            HiddenFailure(first.label, first.inputs, first.expected) if first and first.expected else None,
        )

    @property
    def passed(self) -> int:
        """The number of cases right."""
        return sum(case.ok for case in self.cases)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.hidden_failure is None:
            del data["hidden_failure"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GradeResult:
        """A result as `to_json` wrote it (a key missing takes its default)."""
        failure = data.get("hidden_failure")
        return cls(
            str(data.get("check", "")),
            float(data.get("score", 0.0)),
            float(data.get("points", 0.0)),
            tuple(str(m) for m in data.get("misconceptions", ())),
            tuple(
                CaseOutcome(
                    str(c.get("label", "")),
                    bool(c.get("public")),
                    bool(c.get("ok")),
                    str(c.get("misconception", "")),
                    _drawn(c.get("drawn")),
                    c.get("expected"),
                    c.get("got"),
                )
                for c in data.get("cases", ())
                if isinstance(c, dict)
            ),
            data.get("not_started") is True,
            HiddenFailure(
                str(failure.get("label", "")), str(failure.get("inputs", "")), str(failure.get("expected", ""))
            )
            if isinstance(failure, dict)
            else None,
        )

    @classmethod
    def in_outputs(cls, outputs: list[dict]) -> GradeResult | None:
        """The result among a grade cell's outputs, or None."""
        for output in outputs:
            if output.get("output_type") == "execute_result" and RESULT_KEY in output.get("metadata", {}):
                return cls.from_json(output["metadata"][RESULT_KEY])
        return None


def _drawn(data: Any) -> dict[str, float | str]:
    """A case's `drawn` as stored: parameter -> a number or a word (anything else left out)."""
    if not isinstance(data, dict):
        return {}
    return {
        str(key): value if isinstance(value, str) else float(value)
        for key, value in data.items()
        if isinstance(value, (str, int, float)) and not isinstance(value, bool)
    }
