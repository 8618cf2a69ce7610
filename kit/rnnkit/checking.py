"""Running one check: a student function called on cases, each result compared with its expected
value, and a report with reasons a student can act on.

The same code serves the self-check (the book's public cases, in the student's own notebook) and
grading (public plus hidden cases, the function called in the sandboxed runner); grading adds a
diagnosis from the misconception catalogue and the causal probes through the two hooks of
`run_cases`.
"""

from __future__ import annotations

import contextlib
import copy
import io
import linecache
import signal
import sys
import threading
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np

from . import codec, messages
from .compare import Verdict, compare, float32_values, show
from .helpers import CALLS, ContractBroken, unchanged_arguments

#: The misconception named whenever a value is right but a float where the contract is exact.
FLOAT_WHERE_EXACT = "float_where_exact"
#: The misconception named wherever a value is the right one computed in float32 (right or wrong at
#: the check's tolerance: see the README's float policy).
FLOAT32_PRECISION = "float32_precision"


@dataclass(frozen=True)
class Case:
    """Inputs for one call: positional `args`, keyword `kwargs`, and a label for messages (as a
    course writes a book case, in each language: {"en": ..., "zh": ...}; see `messages.said`)."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str | Mapping[str, str] = ""


@dataclass
class CaseResult:
    """One case's outcome: the verdict sentence, and the misconception id when one matched."""

    label: str
    public: bool
    ok: bool
    message: str = ""
    misconception: str = ""
    #: a hidden case's inputs by parameter name, and the sentence of its expected value (the one
    #: failing value of a structured result, with its relation to the student's), as a student reads
    #: them: the feedback shows the inputs, and the expected value only where the course allows it
    inputs: str = ""
    expected: str = ""


@dataclass
class Report:
    """All case results of one check, with the points they earn."""

    assignment: str
    name: str
    points: float
    results: list[CaseResult]
    #: True when the function is still the stub (it raised NotImplementedError): every case failed
    #: with that one message
    stub: bool = False

    @property
    def passed(self) -> int:
        return sum(result.ok for result in self.results)

    @property
    def hidden(self) -> list[CaseResult]:
        """The results of the hidden cases, the ones that earn points."""
        return [result for result in self.results if not result.public]

    @property
    def gated(self) -> bool:
        """True while a public case is wrong: the book's cases come first."""
        return any(not result.ok for result in self.results if result.public)

    @property
    def score(self) -> float:
        """Points earned: the check's points times the fraction of hidden cases right, once every
        public case is right (`gated`). The public (book) cases earn nothing of their own: the
        student could read their answers; they gate the hidden ones, because they hold the small
        cases made to catch what a draw may not (a gradient under the clipping norm, a
        non-symmetric matrix)."""
        hidden = self.hidden
        if not hidden or self.gated:
            return 0.0
        return round(self.points * sum(result.ok for result in hidden) / len(hidden), 4)

    @property
    def misconceptions(self) -> list[str]:
        """The catalogued mistakes named, most frequent first."""
        return [
            mistake for mistake, _ in Counter(r.misconception for r in self.results if r.misconception).most_common()
        ]

    @property
    def first_hidden_failure(self) -> CaseResult | None:
        """The first wrong hidden case whose message no wrong public case has already given (the one
        a report shows), or None."""
        shown = {result.message for result in self.results if result.public and not result.ok}
        return next((result for result in self.hidden if not result.ok and result.message not in shown), None)

    def lines(self, *, graded: bool, show_hidden: bool = False) -> list[str]:
        """What the student reads, wrapped at `messages.WIDTH`: the summary, each failing public
        case, the first failing hidden case (with its inputs when `show_hidden`; its expected value
        is the feedback's to add, see `autograder.grading.reveal`) and how many more failed, then each likely
        misconception once, with the number of wrong cases it explains."""
        if graded:
            hidden = self.hidden
            head = messages.text(
                "check.summary",
                name=self.name,
                passed=sum(r.ok for r in hidden),
                total=len(hidden),
                score=self.score,
                points=self.points,
            )
            if self.gated and any(r.ok for r in hidden):
                head += " " + messages.text("check.gated")
        else:
            head = messages.text("check.public_summary", name=self.name, passed=self.passed, total=len(self.results))
        failed = [result for result in self.results if not result.ok]
        hidden = [result for result in failed if not result.public]
        out, shown = [head], set()
        for result in failed:
            if result.public and result.message not in shown:
                shown.add(result.message)
                out.append("  - " + messages.text("check.case_line", label=result.label, message=result.message))
        first = self.first_hidden_failure
        if first:
            out.append("  - " + messages.text("check.case_line", label=first.label, message=first.message))
            if show_hidden and first.inputs:
                out.append("    " + messages.text("check.hidden_case_inputs", inputs=first.inputs))
        if len(hidden) > (first is not None):
            out.append("    " + messages.text("check.more_hidden", count=len(hidden) - (first is not None)))
        found = Counter(result.misconception for result in failed if result.misconception)
        for mistake_id, count in found.items():
            which = "check.misconception_all" if count == len(failed) else "check.misconception"
            out.append(
                "  "
                + messages.text(
                    which, id=mistake_id, text=messages.text(f"mistake.{mistake_id}"), count=count, failed=len(failed)
                )
            )
        if FLOAT32_PRECISION not in found and any(result.misconception == FLOAT32_PRECISION for result in self.results):
            out.append(
                "  "
                + messages.text(
                    "check.misconception_note", id=FLOAT32_PRECISION, text=messages.text(f"mistake.{FLOAT32_PRECISION}")
                )
            )
        return [wrapped for line in out for wrapped in messages.wrap(line)]


class StudentFailure(Exception):
    """The student's function could not produce a result (stub, crash, timeout, a value that
    cannot be graded)."""

    def __init__(self, message_id: str, **fields):
        super().__init__(message_id)
        self.message_id, self.fields = message_id, fields

    @property
    def message(self) -> str:
        return messages.text(self.message_id, **self.fields)


class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise inside the block after `seconds` (main thread only; elsewhere no limit)."""
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


def call_student(fn: Callable, case: Case, *, name: str, call: str = "plain", timeout: float = 10.0) -> Any:
    """Call the student's `fn` on a private copy of the case, the check's way (`CALLS[call]`), held
    to leaving the arguments it was given as they were (`unchanged_arguments`).

    Warnings and writes to stderr are swallowed; a stub, an exception or a timeout becomes a
    `StudentFailure` with a message id. `timeout` 0 sets no limit here (the sandbox keeps its own).
    A function that holds its calls itself (`holds_call`: the grader's, in the sandbox, which gets
    the arguments as data and copies and holds them there) is given the case's arguments as they are.
    """
    held = getattr(fn, "holds_call", False)
    args, kwargs = (case.args, case.kwargs) if held else (copy.deepcopy(case.args), copy.deepcopy(case.kwargs))
    try:
        with (
            warnings.catch_warnings(),
            np.errstate(all="ignore"),
            contextlib.redirect_stderr(io.StringIO()),
            time_limit(timeout),
        ):
            warnings.simplefilter("ignore")
            result = CALLS[call](fn, args, kwargs)
        if not held:
            unchanged_arguments(fn, (case.args, case.kwargs), (args, kwargs))
        return result
    except StudentFailure as failure:  # from a function in the sandbox: name the check and the case here
        failure.fields.update(name=name, case=case.label)
        raise
    except NotImplementedError:
        raise StudentFailure("check.not_implemented", name=name) from None
    except ContractBroken as broken:
        raise StudentFailure(
            "check.contract_broken",
            name=name,
            case=case.label,
            detail=messages.text(broken.message_id, **broken.fields),
        ) from None
    except _Timeout:
        raise timed_out(name, timeout, case) from None
    except Exception as error:  # the student's code may raise anything
        detail = str(error).splitlines()[0][:200] if str(error) else "(no message)"
        frame = _student_frame(error)
        if frame is None:
            raise StudentFailure(
                "check.crashed", name=name, error=type(error).__name__, case=case.label, detail=detail
            ) from None
        raise StudentFailure(
            "check.crashed_at",
            name=name,
            error=type(error).__name__,
            case=case.label,
            detail=detail,
            line=frame[1],
            function=frame[0],
            code=frame[2][:120],
        ) from None


def case_size(case: Case) -> int | None:
    """The size of a case as a student reads it: the length of its longest sequence argument (a list,
    or an array's longest axis); None when it has none (a model alone, numbers)."""
    sizes = [
        len(value) if isinstance(value, (list, tuple)) else max(value.shape)
        for value in (*case.args, *case.kwargs.values())
        if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim >= 1 and value.size)
    ]
    return max(sizes, default=None)


def timed_out(name: str, seconds: float, case: Case) -> StudentFailure:
    """The failure of a call stopped after `seconds`: too slow on a case of its size (`case_size`),
    not "endless"; the self-check has a public case of the largest size, so it says so first."""
    size = case_size(case)
    if size is None:
        return StudentFailure("check.timeout", name=name, seconds=seconds, case=case.label)
    return StudentFailure("check.timeout_size", name=name, seconds=seconds, case=case.label, size=size)


_LIBRARIES = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix, str(messages.HERE.parent)})


def _student_frame(error: BaseException) -> tuple[str, int, str] | None:
    """Where in the student's own code (not Python's, a library's or the kit's) the error was raised,
    innermost first: the function's name, the line's number counted in the function (its `def` line
    is 1: a notebook shows no cell line numbers) and the line's code; None where no such line is
    known."""
    for frame, lineno in reversed(list(traceback.walk_tb(error.__traceback__))):
        code = frame.f_code
        if code.co_filename.startswith(_LIBRARIES) or code.co_filename.startswith("<frozen"):
            continue
        line = linecache.getline(code.co_filename, lineno, frame.f_globals).strip()
        return (code.co_name, lineno - code.co_firstlineno + 1, line) if line else None
    return None


@dataclass(frozen=True)
class Rules:
    """How one check compares: exact types demanded for exact inputs, a float tolerance of its
    own, whether a public case may show its expected value, and how the function is called.
    `kept` names the catalogued mistake of state kept between calls: a wrong value that a second
    call on the same case does not give again is named so, however the state is kept (a global, a
    default, a closure, an attribute of the function)."""

    exact: bool = False
    rtol: float | None = None
    reveal: bool = True
    call: str = "plain"
    kept: str = ""


Diagnose = Callable[[Any, Case, Any], "tuple[str, ...]"]
Probe = Callable[["Probing", Case], "str | None"]


class Probing:
    """What a probe calls on a graded case: `probing(case)` the student's function, safely (`run`), on
    the graded case itself a copy of the value graded; `many(cases)` the same on each case in turn as
    it is read, where a function that takes many calls at once (`many`: the grader's, in the sandbox)
    is sent them together when the first is read: the values come in the same order, and the first
    call that fails, or case that cannot be built, raises where a probe calling one by one would have
    met it (the runner makes no call after a failure)."""

    def __init__(self, run: Callable[[Case, Callable], Any], fn: Callable, case: Case, got: Any, name: str):
        self.run, self.fn, self.case, self.got, self.name = run, fn, case, got, name

    def __call__(self, case: Case) -> Any:
        return copy.deepcopy(self.got) if case is self.case else self.run(case, self.fn)

    def many(self, cases: Iterable[Case]) -> Iterator[Any]:
        listed: list[Case] = []
        unbuilt: Exception | None = None  # a case the probe could not build: raised where it comes
        try:
            for case in cases:
                listed.append(case)
        except Exception as error:  # noqa: BLE001 - a probe reading a value graded, which may be anything
            unbuilt = error
        together = getattr(self.fn, "many", None)
        sent = [case for case in listed if case is not self.case]
        outcomes = iter(together([(case.args, case.kwargs) for case in sent]) if together and sent else ())
        for case in listed:
            if case is self.case or together is None:
                yield self(case)
                continue
            outcome = next(outcomes, None)
            if outcome is None:  # fewer replies than calls, and no failure among them
                outcome = StudentFailure("check.runner_died", name=self.name)
            if isinstance(outcome, StudentFailure):
                outcome.fields.update(name=self.name, case=case.label)
                raise outcome
            yield accepted(outcome, name=self.name, case=case)
        if unbuilt is not None:
            raise unbuilt


def run_cases(
    assignment: str,
    name: str,
    fn: Callable,
    cases: list[tuple[Case, bool, Any]],
    rules: Rules,
    *,
    points: float = 1.0,
    timeout: float = 10.0,
    diagnose: Diagnose | None = None,
    probes: tuple[Probe, ...] = (),
    params: tuple[str, ...] = (),
) -> Report:
    """Run `fn` on each (case, public, expected) and judge its result, read as the grader reads it
    (`accepted`).

    `diagnose(got, case, expected)` lists the catalogued mistakes that reproduce a wrong value (see `named` for
    the ones the report names); each probe gets a safe `run(case)` of the function (on the case itself,
    a copy of the value just graded) and a hidden case the function got right (the cases that earn
    the points: a public case's rule broken would move no point), and returns None or the sentence of
    the broken rule. The probes call `fn.probe_calls` where `fn` has one (the grader's: the same function in a
    process that never ran the graded calls), else `fn`. A stub fails every case with one message.
    `params` names the function's parameters, to show a hidden case's inputs by name. A value of
    float32 arithmetic (`rnnkit.compare.float32_values`) is named `FLOAT32_PRECISION` on its case,
    right or wrong; a wrong value a student reads gets the sentence of a probe's rule it breaks too
    (`_read_first`); a wrong value's relation to the expected one is told only where it is no
    coincidence (`relations`).
    """
    results: list[CaseResult] = []
    found: list[
        tuple[str, ...] | None
    ] = []  # the mistakes that reproduce each case's wrong value (None: no wrong value)
    wrong_values: dict[
        int, tuple[Verdict, Case, bool, Any]
    ] = {}  # result index -> a wrong value's verdict, to word at the end
    float32: set[int] = set()
    passed: dict[int, tuple[Case, Any]] = {}  # result index -> the case and its value, of each right value
    wrong_got: dict[int, tuple[Case, Any]] = {}  # the same, of each wrong value
    shows: dict[int, Callable[[], tuple]] = {}  # result index -> what a broken rule shows of the case

    def run(case: Case, fn: Callable = fn) -> Any:
        return accepted(call_student(fn, case, name=name, call=rules.call, timeout=timeout), name=name, case=case)

    for case, public, expected in cases:
        shown = lambda verdict=None, case=case, public=public, expected=expected: (  # noqa: E731
            () if public else _shown(case, expected, params, verdict)
        )
        try:
            got = run(case)
        except StudentFailure as failure:
            if failure.message_id == "check.not_implemented":
                return Report(
                    assignment,
                    name,
                    points,
                    [CaseResult(c.label, p, False, failure.message) for c, p, _ in cases],
                    stub=True,
                )
            results.append(CaseResult(case.label, public, False, failure.message, "", *shown()))
            found.append(None)
            continue
        verdict = compare(got, expected, exact=rules.exact, rtol=rules.rtol)
        if verdict.reason != "compare.not_exact" and float32_values(got, expected):
            float32.add(len(results))
            if not verdict.ok:
                fields = verdict.fields or {}
                verdict = Verdict(
                    False,
                    "compare.float32",
                    dict(
                        where=fields.get("where", messages.text("compare.the_result")), got=fields.get("got", show(got))
                    ),
                )
        if not verdict.ok:
            if verdict.reason == "compare.not_exact":
                found.append((FLOAT_WHERE_EXACT,))
                if not case.args and not case.kwargs:  # an answer, not a computation from inputs
                    verdict = Verdict(False, "compare.not_exact_answer", verdict.fields)
            elif verdict.reason == "compare.float32":
                found.append(None)
            else:
                found.append(_kept(rules, run, case, got) or (tuple(diagnose(got, case, expected)) if diagnose else ()))
            if verdict.reason == "compare.wrong_value":  # worded at the end, with its relation if it is no coincidence
                wrong_values[len(results)] = (verdict, case, public, expected)
                wrong_got[len(results)] = (case, got)
                results.append(CaseResult(case.label, public, False))
            else:
                results.append(
                    CaseResult(
                        case.label, public, False, verdict.message(reveal=public and rules.reveal), "", *shown(verdict)
                    )
                )
            continue
        passed[len(results)], shows[len(results)] = (case, got), shown
        results.append(CaseResult(case.label, public, True))
        found.append(None)
    scored = {index: item for index, item in passed.items() if not results[index].public}
    for index, message in _broken_rules(
        probes, scored, getattr(fn, "probe_calls", fn) if probes and scored else fn, run, name
    ).items():
        results[index] = CaseResult(results[index].label, results[index].public, False, message, "", *shows[index]())
    read = _read_first(wrong_got, {index: item[2] for index, item in wrong_values.items()})
    broken = _broken_rules(probes, read, getattr(fn, "probe_calls", fn), run, name) if probes and read else {}
    for index, verdict in relations({index: item[0] for index, item in wrong_values.items()}).items():
        _, case, public, expected = wrong_values[index]
        results[index].message = " ".join(
            part for part in (verdict.message(reveal=public and rules.reveal), broken.get(index)) if part
        )
        if not public:
            results[index].inputs, results[index].expected = _shown(case, expected, params, verdict)
    for result, mistake in zip(results, named(found, sum(not result.ok for result in results))):
        result.misconception = mistake
    for index in float32:
        results[index].misconception = FLOAT32_PRECISION
    return Report(assignment, name, points, results)


def _kept(rules: Rules, run: Callable[[Case], Any], case: Case, got: Any) -> tuple[str, ...]:
    """(`rules.kept`,) where the function, called again on the same case, answers otherwise than
    `got`: what it returns depends on the calls before it (an honest function pays no such call)."""
    if not rules.kept:
        return ()
    try:
        again = run(case)
    except StudentFailure:
        return ()
    return () if compare(again, got, rtol=rules.rtol).ok else (rules.kept,)


def _read_first(wrong: dict[int, tuple[Case, Any]], public: dict[int, bool]) -> dict[int, tuple[Case, Any]]:
    """Of the wrong values, those a student reads (every public one, and the first hidden one): a
    probe's rule they break is said beside them (a leak shows as the leak, not as a number alone)."""
    hidden = [index for index in wrong if not public[index]]
    return {index: item for index, item in wrong.items() if public[index] or index == min(hidden, default=None)}


def relations(verdicts: dict[int, Verdict]) -> dict[int, Verdict]:
    """The wrong values' verdicts with each relation ("exactly twice", "1 minus") kept only where it
    is no coincidence: where the same relation holds on two cases or more, or where only one value
    is wrong (`rnnkit.compare.relation` never finds one on 0, 1 or -1)."""
    found = {index: verdict.relation_found() for index, verdict in verdicts.items()}
    counts = Counter(relation for relation in found.values() if relation)
    return {
        index: Verdict(
            False,
            verdict.reason,
            {
                **verdict.fields,
                "relation": found[index]
                if found[index] and (counts[found[index]] >= 2 or len(verdicts) == 1)
                else None,
            },
        )
        for index, verdict in verdicts.items()
    }


def named(found: list[tuple[str, ...] | None], wrong: int) -> list[str]:
    """The misconception named on each case, given the mistakes that reproduce each case's wrong
    value (None for a case without one: right, crashed or a broken rule) and the number of `wrong`
    cases: a mistake is named only where it explains the only wrong case, or at least two and at
    least half of the wrong values not yet named (a mistake that happens to agree on a few cases of
    another is not the one made). Greedily, the mistake that explains the most cases not yet named
    (the first listed on a tie) is named on all of them, while one explains enough."""
    names = [""] * len(found)
    while True:
        left = [mistakes for mistakes, name in zip(found, names) if not name and mistakes is not None]
        top = Counter(m for mistakes in left for m in dict.fromkeys(mistakes)).most_common(1)
        if not top or top[0][1] < (1 if wrong == 1 else max(2, -(-len(left) // 2))):
            return names
        names = [
            top[0][0] if not name and mistakes and top[0][0] in mistakes else name
            for mistakes, name in zip(found, names)
        ]


def accepted(value: Any, *, name: str, case: Case) -> Any:
    """A result as the grader reads it (`codec.plain`: see the accepted values in `rnnkit.codec`;
    one the grader decoded from a runner's reply is read once), in the self-check as in grading, so
    that both judge the same value; one the course does not accept fails its case."""
    try:
        return codec.plain(value)
    except codec.CodecError as error:
        raise StudentFailure("check.unreadable_result", name=name, case=case.label, detail=str(error)) from None


def _shown(case: Case, expected: Any, params: tuple[str, ...], verdict: Verdict | None) -> tuple[str, str]:
    """A hidden case's inputs, by parameter name where `params` names them (`xs=[1, 2], w=1/5`), and
    the sentence of its expected value: where the `verdict` is a wrong value, that one value (a key
    of a dict, an entry of an array) and its relation to the student's, else the whole value."""
    named = [
        f"{params[index]}={show(arg, 200)}" if index < len(params) else show(arg, 200)
        for index, arg in enumerate(case.args)
    ]
    inputs = ", ".join(named + [f"{key}={show(value, 200)}" for key, value in case.kwargs.items()])
    if verdict is not None and verdict.reason == "compare.wrong_value":
        at = messages.text(
            "check.hidden_case_expected_at", where=verdict.fields["where"], expected=verdict.fields["expected"]
        )
        return inputs, " ".join(filter(None, [at, verdict.relation()]))
    return inputs, messages.text("check.hidden_case_expected", expected=show(expected, 300))


def _broken_rules(
    probes: tuple[Probe, ...],
    passed: dict[int, tuple[Case, Any]],
    probed: Callable,
    run: Callable[[Case, Callable], Any],
    name: str,
) -> dict[int, str]:
    """result index -> the sentence of the first probe whose rule the case breaks. The probes call
    `probed` (the function `name`), each probe's calls in a block of `probed.apart()` where it has one
    (the grader's: a fork of its own), through a `Probing` of `run(case, probed)`, which calls it safely."""
    broken: dict[int, str] = {}
    apart = getattr(probed, "apart", contextlib.nullcontext)
    for probe in probes:
        with apart():
            for index, (case, got) in passed.items():
                if index not in broken:
                    if message := _probe(probe, Probing(run, probed, case, got, name), case):
                        broken[index] = message
    return broken


def _probe(probe: Probe, run: Probing, case: Case) -> str | None:
    """One probe's verdict on the student's function: None, or the sentence of the broken rule."""
    try:
        return probe(run, case)
    except StudentFailure as failure:
        return failure.message
    except Exception as error:  # a result the probe could not read
        return messages.text("probe.unreadable", error=type(error).__name__)
