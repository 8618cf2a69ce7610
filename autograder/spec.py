"""The `Assignment` spec: everything about one assignment, in one object.

Build, release, self-check data, grading, the catalogue, the report, the exports and the kit are
all driven from the specs in `autograder.assignments.ALL`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from rnnkit.compare import compare

from . import catalogue
from .checks import Check, mistaken_output, public_cases
from .config import REPO_ROOT
from .solution_source import function_sources


@dataclass(frozen=True)
class Written:
    """A written answer, graded by hand: its grade id (`<exercise>_written`) and points. Its question
    and rubric (the book's reference answer) are the `%% written` cell of the notebook template."""

    name: str
    points: float = 1


@dataclass(frozen=True, eq=False)
class Assignment:
    """One assignment: its checks (with points, references, drawers, rules and probes), the module
    that registers its catalogued mistakes (`autograder.catalogue.mistake`), its SymPy engine
    (`reference`: `book_values()` and `book_log()` for `autograder.book`), its notebook template
    and its reference solution module. It is what the grader, the build and the report are handed
    (one object per assignment, compared by identity)."""

    name: str
    checks: tuple[Check, ...]
    mistakes_module: ModuleType = field(repr=False)
    reference: ModuleType = field(repr=False)
    folder: Path = field(repr=False)
    solutions_file: Path | None = field(default=None, repr=False)
    written: tuple[Written, ...] = ()

    @property
    def template(self) -> Path:
        """notebook.md: the teaching text and cell layout (see `autograder.build`)."""
        return self.folder / "notebook.md"

    @property
    def solutions(self) -> Path:
        """The reference solution module (default `solutions/<name>.py`, the course's hidden solutions); its solution regions are
        the notebook's."""
        return self.solutions_file or REPO_ROOT / "solutions" / f"{self.name}.py"

    def function_sources(self) -> dict[str, str]:
        """The reference solution's functions: name -> exact source text (markers included)."""
        return function_sources(self.solutions)

    def mistakes(self) -> tuple[catalogue.Mistake, ...]:
        """Every catalogued mistake of this assignment, in definition order."""
        return catalogue.mistakes(self)

    def for_check(self, name: str) -> list[catalogue.Mistake]:
        """The mistakes that change the result of check `name`, its own function's first."""
        return catalogue.for_check(self, name)

    def check(self, name: str) -> Check:
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(f"{self.name} has no check {name!r}; it has {[c.name for c in self.checks]}")

    @property
    def graded(self) -> tuple[Check, ...]:
        """The checks that earn points (`Check.graded`), in notebook order."""
        return tuple(check for check in self.checks if check.graded)

    def points(self, grade_id: str, overrides: dict | None = None) -> float:
        """The points of one check or written answer: course_config.POINTS[assignment][grade_id] if
        set, else its own; a self-check (`Check.graded` False) earns none."""
        own = next((answer.points for answer in self.written if answer.name == grade_id), None)
        if own is None:
            check = self.check(grade_id)
            if not check.graded:
                return 0.0
            own = check.points
        return float((overrides or {}).get(self.name, {}).get(grade_id, own))

    def public_half(self, overrides: dict | None = None) -> dict[str, Any]:
        """What the student kit stores: per check its points (0 for a self-check), rules and book
        cases, each with the expected value and the catalogued mistakes' outputs on it (those that
        differ), and the function each mistake of a function the check calls replaces (`callees`);
        and the points of each written answer (graded by hand; no rubric)."""
        checks = {}
        for check in self.checks:
            cases = []
            for case, _, expected in public_cases(check, labelled=False):
                outputs = []
                for entry in self.for_check(check.name):
                    output = mistaken_output(entry, check, case)
                    if output is not None and not compare(output, expected, exact=check.exact, rtol=check.rtol).ok:
                        outputs.append((entry.id, output))
                cases.append({"label": case.label, "args": case.args, "kwargs": case.kwargs, "expected": expected, "mistakes": outputs})
            rules = check.rules
            checks[check.name] = {"points": self.points(check.name, overrides), "cases": cases,
                                  "rules": {"exact": rules.exact, "rtol": rules.rtol, "reveal": rules.reveal, "call": rules.call},
                                  "callees": {entry.id: entry.function for entry in self.for_check(check.name) if entry.function != check.name}}
        return {"assignment": self.name, "checks": checks,
                "written": {answer.name: self.points(answer.name, overrides) for answer in self.written}}

