"""The structured result the grader stores with each grade cell: one owner of its shape.

`autograder.grading.execute` writes it into the grade cell's `execute_result` output (metadata key
`RESULT_KEY`); the report, the exports and the feedback (`autograder.grading.reveal`) read it back from the
autograded notebook. Printed feedback is never parsed.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rnnkit.checking import Report

#: The metadata key of the result in a grade cell's `execute_result` output.
RESULT_KEY = "rnn_course"


@dataclass(frozen=True)
class CaseOutcome:
    """One case of a check: its label, whether it was a public (book) case, right or not, and the
    misconception named on it ("" for none)."""

    label: str
    public: bool
    ok: bool
    misconception: str = ""


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
    def of(cls, report: Report, points: float) -> GradeResult:
        """The result of one graded check."""
        first = report.first_hidden_failure
        return cls(report.name, report.score, points, tuple(report.misconceptions),
                   tuple(CaseOutcome(r.label, r.public, r.ok, r.misconception) for r in report.results), report.stub,
                   HiddenFailure(first.label, first.inputs, first.expected) if first and first.expected else None)

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
        return cls(str(data.get("check", "")), float(data.get("score", 0.0)), float(data.get("points", 0.0)),
                   tuple(str(m) for m in data.get("misconceptions", ())),
                   tuple(CaseOutcome(str(c.get("label", "")), bool(c.get("public")), bool(c.get("ok")), str(c.get("misconception", "")))
                         for c in data.get("cases", ()) if isinstance(c, dict)),
                   data.get("not_started") is True,
                   HiddenFailure(str(failure.get("label", "")), str(failure.get("inputs", "")), str(failure.get("expected", "")))
                   if isinstance(failure, dict) else None)

    @classmethod
    def in_outputs(cls, outputs: list[dict]) -> GradeResult | None:
        """The result among a grade cell's outputs, or None."""
        for output in outputs:
            if output.get("output_type") == "execute_result" and RESULT_KEY in output.get("metadata", {}):
                return cls.from_json(output["metadata"][RESULT_KEY])
        return None

