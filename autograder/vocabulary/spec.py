"""The `Assignment` spec: everything about one assignment, in one object.

Build, release, self-check data, grading, the catalogue, the report, the exports and the kit are
all driven from the specs in `autograder.assignments.ALL`.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pkgutil
import random
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from rnnkit.checking import Case, Rules

from . import catalogue, template
from .symbolic import public_value

__all__ = ["SUMMARY", "Assignment", "Branch", "Case", "Check", "Written"]

#: The grade id of every notebook's closing summary cell (its count of the checks right so far).
SUMMARY = "summary"


@dataclass(frozen=True)
class Branch:
    """One branch or extreme of a function's contract (an answer of 0 or of the bound, None, a tie,
    far-apart values, an empty or length-one sequence, an all-padding batch).

    `holds(case, expected)` says whether a case (its inputs, and the value the reference gives on them)
    is in this branch. `draw(rng)` makes a case in it: every attempt's hidden cases include one
    (`autograder.grading.checks.hidden_cases`) unless a public case is in it already; a branch without
    `draw` must be shown by a public case. `en`/`zh` say what the branch is, for the spec's list."""

    name: str
    holds: Callable[[Case, Any], bool]
    draw: Callable[[random.Random], Case] | None = None
    en: str = ""
    zh: str = ""


@dataclass(frozen=True)
class Check:
    """One graded function.

    `reference(*args, **kwargs)` is the exact SymPy engine with the student function's signature;
    `public()` lists the book's cases; `draw(rng)` makes one hidden case; `points` are the check's
    points (course_config.POINTS may override them); `exact`, `rtol`, `reveal` and `call` are the
    comparison rules (`rnnkit.checking.Rules`; `kept` names the check's mistake of state kept between
    calls, told by a second call that answers otherwise). `probes` are causal/leakage probes (see
    `autograder.vocabulary.probes`): each gets `run(case) -> output`, which calls the student's function
    safely, and the case; it returns None or a failure sentence. `branches` are the contract's
    branches and extremes (`Branch`): each is shown by a public case or drawn in every attempt.
    """

    name: str
    reference: Callable[..., Any]
    public: Callable[[], list[Case]]
    points: float = 1
    draw: Callable[[random.Random], Case] | None = None
    exact: bool = False
    rtol: float | None = None
    reveal: bool = True
    call: str = "plain"
    probes: tuple[Callable, ...] = ()
    branches: tuple[Branch, ...] = ()
    kept: str = ""

    @property
    def graded(self) -> bool:
        """Whether the check earns points. Only a check with hidden draws does: a point is earned only
        on a case the student could not read. One without is a self-check (a judgement the book
        answers in 11.8/12.8), whose points belong to a written answer graded by hand."""
        return self.draw is not None

    @cached_property
    def params(self) -> tuple[str, ...]:
        """The names of the function's parameters (the reference has its signature), to show a
        hidden case's inputs by name."""
        return tuple(inspect.signature(self.reference).parameters)

    @property
    def rules(self) -> Rules:
        return Rules(self.exact, self.rtol, self.reveal, self.call, self.kept)

    def expected(self, case: Case) -> Any:
        """The exact reference for one case, as the kit compares it."""
        return public_value(self.reference(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs)))


@dataclass(frozen=True)
class Written:
    """A written answer, graded by hand: its grade id (`<exercise>_written`) and points. Its question
    and rubric (the book's reference answer) are the `%% written` cell of the notebook template."""

    name: str
    points: float = 1


@dataclass(frozen=True, eq=False)
class Assignment:
    """One assignment: its checks (with points, references, drawers, rules and probes), the modules
    that register its catalogued mistakes (`autograder.vocabulary.catalogue.mistake`), its SymPy engine
    (`reference`: `book_values()` and `book_log()` for `autograder.authoring.book`) and its notebook
    template, which holds the reference solution. It is what the grader, the build and the report are handed
    (one object per assignment, compared by identity). `Assignment.found` makes one from its folder."""

    name: str
    checks: tuple[Check, ...]
    mistakes_modules: tuple[ModuleType, ...] = field(repr=False)
    reference: ModuleType = field(repr=False)
    folder: Path = field(repr=False)
    written: tuple[Written, ...] = ()

    @classmethod
    def found(
        cls, name: str, folder: Path, checks: ModuleType, reference: ModuleType, written: tuple[Written, ...] = ()
    ) -> Assignment:
        """The assignment of `folder`, whose `checks` package holds one module an exercise: named like
        its check (the solution function it grades), defining it as `CHECK` beside its catalogued
        mistakes. The modules are found rather than listed, and put in the notebook's order."""
        order = list(template.function_sources(folder / "notebook.md"))
        modules = {}
        for info in pkgutil.iter_modules(checks.__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{checks.__name__}.{info.name}")
            check = getattr(module, "CHECK", None)
            if not isinstance(check, Check) or check.name != info.name or info.name not in order:
                raise ValueError(
                    f"{folder.name}/checks/{info.name}.py must define CHECK = Check({info.name!r}, ...) "
                    f"for the solution function {info.name} of notebook.md (it has {order})"
                )
            modules[info.name] = module
        if missing := [function for function in order if function not in modules]:
            raise ValueError(
                f"{folder.name}/notebook.md has solution functions without a check: add checks/{missing[0]}.py"
            )
        ordered = tuple(modules[function] for function in order)
        return cls(name, tuple(module.CHECK for module in ordered), ordered, reference, folder, written)

    @property
    def template(self) -> Path:
        """notebook.md: the teaching text, the cell layout and the reference solution
        (`autograder.vocabulary.template`)."""
        return self.folder / "notebook.md"

    def function_sources(self) -> dict[str, str]:
        """The reference solution's functions: name -> exact source text (markers included)."""
        return template.function_sources(self.template)

    def solution(self) -> ModuleType:
        """The reference solution, run as a module."""
        return template.module(self.template)

    def mistakes(self) -> tuple[catalogue.Mistake, ...]:
        """Every catalogued mistake of this assignment, in definition order."""
        return catalogue.mistakes(self.name, self.mistakes_modules, self.template)

    def for_check(self, name: str) -> list[catalogue.Mistake]:
        """The mistakes that change the result of check `name`, its own function's first."""
        return catalogue.for_check(self.mistakes(), name)

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
