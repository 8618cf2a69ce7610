"""Checks: a student function run on the book's public cases and on seeded hidden cases.

A check is named like the function (or exercise) it grades; that name is also the nbgrader
grade id, the key of its points in `course_config.py`, and the `function` of its mistakes.
"""
from __future__ import annotations

import contextlib
from collections import Counter
import copy
import hashlib
import io
import os
import random
import signal
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import catalogue, messages
from .compare import compare


@dataclass(frozen=True)
class Case:
    """Inputs for one call: positional `args`, keyword `kwargs`, and a label for messages."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""


def call_function(fn: Callable, case: Case) -> Any:
    """The default way a check calls the student's function."""
    return fn(*case.args, **case.kwargs)


@dataclass(frozen=True)
class Check:
    """One graded function.

    `reference(*args, **kwargs)` is the exact SymPy engine with the student function's signature;
    `public()` lists the book's cases; `draw(rng)` makes one hidden case; `exact` demands exact
    types back for exact inputs; `rtol` overrides the transcendental tolerance; `reveal` shows the
    expected value on public cases (False for exercise answers); `call` calls the student function.
    `probes` are causal/leakage probes (see `autograder.probes`): each gets `run(case) -> output`,
    which calls the student's function safely, and the case; it returns None or a failure sentence.
    """

    name: str
    reference: Callable[..., Any]
    public: Callable[[], list[Case]]
    draw: Callable[[random.Random], Case] | None = None
    exact: bool = False
    rtol: float | None = None
    reveal: bool = True
    call: Callable[[Callable, Case], Any] = call_function
    probes: tuple[Callable[[Callable[[Case], Any], Case], str | None], ...] = ()

    def expected(self, case: Case) -> Any:
        """The exact reference for one case."""
        return self.reference(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))


@dataclass
class CaseResult:
    """One case's outcome: the verdict sentence, and the misconception id when one matched."""

    label: str
    public: bool
    ok: bool
    message: str = ""
    misconception: str = ""


@dataclass
class Report:
    """All case results of one check, with the points they earn."""

    assignment: str
    name: str
    points: float
    results: list[CaseResult]

    @property
    def passed(self) -> int:
        return sum(result.ok for result in self.results)

    @property
    def score(self) -> float:
        """Points earned: the check's points times the fraction of cases right."""
        return round(self.points * self.passed / len(self.results), 4) if self.results else 0.0

    def lines(self, *, graded: bool) -> list[str]:
        """What the student reads: the summary, each failing public case, the first failing hidden
        case (and how many more), then each likely misconception once with its number of cases."""
        if graded:
            head = messages.text("check.summary", name=self.name, passed=self.passed, total=len(self.results), score=self.score, points=self.points)
        else:
            head = messages.text("check.public_summary", name=self.name, passed=self.passed, total=len(self.results))
        failed = [result for result in self.results if not result.ok]
        hidden = [result for result in failed if not result.public]
        out, shown = [head], set()
        for result in failed:
            if result.public and result.message not in shown:
                shown.add(result.message)
                out.append(f"  - {result.label}: {result.message}")
        fresh = [result for result in hidden if result.message not in shown]
        if fresh:
            out.append(f"  - {fresh[0].label}: {fresh[0].message}")
        if len(hidden) > len(fresh[:1]):
            out.append("    " + messages.text("check.more_hidden", count=len(hidden) - len(fresh[:1])))
        found = Counter(result.misconception for result in failed if result.misconception)
        entries = {entry.id: entry for entry in catalogue.mistakes(self.assignment)}
        for mistake_id, count in found.items():
            out.append("  " + messages.text("check.misconception", id=mistake_id, text=entries[mistake_id].text, count=count))
        return out


class StudentFailure(Exception):
    """The student's function could not produce a result (stub, crash, timeout)."""

    def __init__(self, message_id: str, **fields):
        super().__init__(message_id)
        self.message_id, self.fields = message_id, fields


class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    if seconds <= 0 or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_student(check: Check, obj: Any, case: Case, *, timeout: float, label: str) -> Any:
    """Call the student's function on a private copy of the inputs.

    Warnings and writes to stderr are swallowed (nbgrader zeroes a test cell that writes to stderr);
    a stub, an exception or a timeout becomes a `StudentFailure` with a message id.
    """
    private = Case(copy.deepcopy(case.args), copy.deepcopy(case.kwargs), case.label)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stderr(io.StringIO()), _time_limit(timeout):
            warnings.simplefilter("ignore")
            return check.call(obj, private)
    except NotImplementedError:
        raise StudentFailure("check.not_implemented", name=check.name) from None
    except _Timeout:
        raise StudentFailure("check.timeout", name=check.name, seconds=timeout, case=label) from None
    except Exception as error:  # the student's code may raise anything
        detail = str(error).splitlines()[0][:200] if str(error) else "(no message)"
        raise StudentFailure("check.crashed", name=check.name, error=type(error).__name__, case=label, detail=detail) from None


def mistaken_output(entry: catalogue.Mistake, check: Check, case: Case) -> Any:
    """What the check's function returns on `case` with the mistake in place (None if it crashes)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return check.call(entry.namespace()[check.name], Case(copy.deepcopy(case.args), copy.deepcopy(case.kwargs), case.label))
    except Exception:
        return None


def diagnose(assignment: str, check: Check, got: Any, case: Case) -> str:
    """The id of the first catalogued mistake whose output on `case` equals the student's."""
    for entry in catalogue.for_check(assignment, check.name):
        output = mistaken_output(entry, check, case)
        if output is not None and compare(got, output, rtol=check.rtol).ok:
            return entry.id
    return ""


def seed(student: str, assignment: str, check: str) -> int:
    """A stable 64-bit seed for one student's hidden cases of one check."""
    digest = hashlib.sha256(f"{student}\x1f{assignment}\x1f{check}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def hidden_cases(assignment: str, check: Check, student: str, count: int, max_tries: int = 200) -> list[tuple[Case, Any]]:
    """`count` seeded draws with their references; a draw on which any catalogued mistake is
    right is drawn again."""
    if check.draw is None:
        return []
    rng = random.Random(seed(student, assignment, check.name))
    entries = catalogue.for_check(assignment, check.name)
    cases: list[tuple[Case, Any]] = []
    for index in range(count):
        for _ in range(max_tries):
            case = check.draw(rng)
            expected = check.expected(case)
            if not any(
                (output := mistaken_output(entry, check, case)) is not None
                and compare(output, expected, exact=check.exact, rtol=check.rtol).ok
                for entry in entries
            ):
                break
        else:
            raise RuntimeError(f"{check.name}: no draw separates every mistake after {max_tries} tries")
        cases.append((Case(case.args, case.kwargs, messages.text("check.case_hidden", index=index + 1)), expected))
    return cases


def run(assignment: str, check: Check, obj: Any, *, student: str, hidden: int, timeout: float, points: float = 1.0) -> Report:
    """Run `check` on the student's `obj`: public cases, then `hidden` seeded cases."""
    labelled = [(Case(c.args, c.kwargs, messages.text("check.case_public", label=c.label)), True, check.expected(c)) for c in check.public()]
    labelled += [(case, False, expected) for case, expected in hidden_cases(assignment, check, student, hidden)]
    results: list[CaseResult] = []
    for case, public, expected in labelled:
        try:
            got = run_student(check, obj, case, timeout=timeout, label=case.label)
        except StudentFailure as failure:
            message = messages.text(failure.message_id, **failure.fields)
            if failure.message_id == "check.not_implemented":
                return Report(assignment, check.name, points, [CaseResult(c.label, p, False, message) for c, p, _ in labelled])
            results.append(CaseResult(case.label, public, False, message))
            continue
        verdict = compare(got, expected, exact=check.exact, rtol=check.rtol)
        if not verdict.ok:
            results.append(CaseResult(case.label, public, False, verdict.message(reveal=public and check.reveal), diagnose(assignment, check, got, case)))
            continue
        broken = next(filter(None, (_probe(probe, check, obj, case, timeout) for probe in check.probes)), None)
        results.append(CaseResult(case.label, public, not broken, broken or ""))
    return Report(assignment, check.name, points, results)


LOCAL = "local"  # the student id outside autograding


def _probe(probe: Callable, check: Check, obj: Any, case: Case, timeout: float) -> str | None:
    """One probe's verdict on the student's function: None, or the sentence of the broken rule."""
    try:
        return probe(lambda c: run_student(check, obj, c, timeout=timeout, label=case.label), case)
    except StudentFailure as failure:
        return messages.text(failure.message_id, **failure.fields)
    except Exception as error:  # a result the probe could not read
        return messages.text("probe.unreadable", error=type(error).__name__)


def student_from_path(path: str | os.PathLike | None = None) -> str:
    """The student id during `nbgrader autograde` (cwd `.../autograded/<student>/<assignment>`)."""
    here = Path(path or os.getcwd()).resolve()
    return here.parent.name if here.parent.parent.name == "autograded" else LOCAL
