"""The `Assignment` spec: everything about one assignment, in one object.

Build, release, self-check data, grading, the catalogue, the report, the exports and the kit are
all driven from the specs in `autograder.assignments.ALL`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .checks import Check, public_cases
from .config import REPO_ROOT


@dataclass(frozen=True)
class Assignment:
    """One assignment: its checks (with points, references, drawers, rules and probes), the module
    that registers its catalogued mistakes (`autograder.catalogue.mistake`), its SymPy engine
    (`reference`: `book_values()` and `book_log()` for `autograder.book`), its notebook template
    and its reference solution module."""

    name: str
    checks: tuple[Check, ...]
    mistakes: ModuleType = field(repr=False)
    reference: ModuleType = field(repr=False)
    folder: Path = field(repr=False)
    solutions_file: Path | None = field(default=None, repr=False)

    @property
    def template(self) -> Path:
        """notebook.md: the teaching text and cell layout (see `autograder.build`)."""
        return self.folder / "notebook.md"

    @property
    def solutions(self) -> Path:
        """The reference solution module (default `solutions/<name>.py`); its solution regions are
        the notebook's."""
        return self.solutions_file or REPO_ROOT / "solutions" / f"{self.name}.py"

    def check(self, name: str) -> Check:
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(f"{self.name} has no check {name!r}; it has {[c.name for c in self.checks]}")

    def points(self, grade_id: str, overrides: dict | None = None) -> float:
        """The points of one check: course_config.POINTS[assignment][grade_id] if set, else the check's."""
        return float((overrides or {}).get(self.name, {}).get(grade_id, self.check(grade_id).points))

    def public_half(self, overrides: dict | None = None) -> dict[str, Any]:
        """What the student kit stores: per check its points, rules and book cases, each with the
        expected value and the catalogued mistakes' outputs on it (those that differ), and the
        function each mistake of a function the check calls replaces (`callees`)."""
        from .catalogue import for_check
        from .checks import mistaken_output
        from rnnkit.compare import compare

        checks = {}
        for check in self.checks:
            cases = []
            for case, _, expected in public_cases(check, labelled=False):
                outputs = []
                for entry in for_check(self.name, check.name):
                    output = mistaken_output(entry, check, case)
                    if output is not None and not compare(output, expected, exact=check.exact, rtol=check.rtol).ok:
                        outputs.append((entry.id, output))
                cases.append({"label": case.label, "args": case.args, "kwargs": case.kwargs, "expected": expected, "mistakes": outputs})
            rules = check.rules
            checks[check.name] = {"points": self.points(check.name, overrides), "cases": cases,
                                  "rules": {"exact": rules.exact, "rtol": rules.rtol, "reveal": rules.reveal, "call": rules.call},
                                  "callees": {entry.id: entry.function for entry in for_check(self.name, check.name) if entry.function != check.name}}
        return {"assignment": self.name, "checks": checks}

