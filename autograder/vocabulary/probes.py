"""Causal and leakage probes: perturbation tests that run a student's function several times.

A probe is `probe(run, case) -> str | None` (see `Check.probes`): `run(case)` calls the student's
function safely on a `Case` (on the graded case itself it returns a copy of the value just graded),
and `run.many(cases)` on each in turn (`rnnkit.checking.Probing`: the grader sends them at once);
the probe runs it on the graded case and on perturbed copies, and returns None when the rule holds,
else the sentence naming the rule that broke and where: the kit's `probe.*` by default, or the
assignment's own, written beside its check in each language. Probes never compare with a reference:
they check that the student's own outputs obey a rule, such as "changing inputs after step t leaves
every output at or before t unchanged". Results are compared for identity (`identical`), never with
a tolerance: a correct implementation recomputes the same float64 operations on the same values, so
its outputs are bit-for-bit the same (NaN counts as equal to NaN, and -0.0 as equal to 0.0).

Every factory is built from small accessors so that any assignment can reuse it:

* a *view* `view(output) -> list[Point]` lists an output as labelled points in time order
  (`steps_view`, `sequences_view`, `segments_view`, `batch_view`, `columns_view` cover arrays of
  states; write your own for dicts);
* a perturbation builds a new `Case` from the graded one (`replacement_values` gives replacement values that
  depend only on a seed, so a probe is deterministic);
* `message` is the id of the sentence; its fields are listed at each factory.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, TypeVar

import numpy as np

from rnnkit import messages
from rnnkit.checking import Case, Probing, StudentFailure

#: What a probe calls: a `Probing` at grading, or any function of a case (its calls made one by one).
Run = Probing | Callable[[Case], Any]
Probe = Callable[[Run, Case], "str | None"]
Item = TypeVar("Item")
#: A probe's sentence: a message id of the kit, or the sentence in each language ({"en": ..., "zh": ...}).
Sentence = "str | Mapping[str, str]"


@dataclass(frozen=True)
class Point:
    """One item of an output: its 1-based time step, batch row (or sequence), label and value."""

    step: int
    label: str
    value: Any
    row: int | None = None


View = Callable[[Any], list[Point]]


# ----------------------------------------------------------------------------- identity


def identical(a: Any, b: Any) -> bool:
    """True when two results are the same value for value (nested dicts, lists, arrays, numbers).

    Floats must be equal (NaN equals NaN); exact numbers (Fraction, SymPy) compare with `==`.
    """
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(identical(a[k], b[k]) for k in a)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(identical, a, b))
    if (
        isinstance(a, np.ndarray)
        or isinstance(b, np.ndarray)
        or isinstance(a, (list, tuple))
        or isinstance(b, (list, tuple))
    ):
        try:
            left, right = np.asarray(a), np.asarray(b)
        except Exception:
            return False
        if left.shape != right.shape:
            return False
        if left.dtype.kind in "fiub" and right.dtype.kind in "fiub":
            return bool(np.array_equal(left.astype(float), right.astype(float), equal_nan=True))
        return all(identical(x, y) for x, y in zip(left.flat, right.flat))
    if isinstance(a, float) or isinstance(b, float) or isinstance(a, np.floating) or isinstance(b, np.floating):
        try:
            x, y = float(a), float(b)
        except (TypeError, ValueError):
            return False
        return x == y or (math.isnan(x) and math.isnan(y))
    try:
        return bool(a == b)
    except Exception:
        return False


def first_change(
    before: list[Point], after: list[Point], keep: Callable[[Point], bool] = lambda point: True
) -> Point | None:
    """The first kept point of `before` whose value differs in `after` (matched by position)."""
    for index, point in enumerate(before):
        if not keep(point):
            continue
        if index >= len(after) or not identical(point.value, after[index].value):
            return point
    return None


# ----------------------------------------------------------------------------- views


def _rows(array: Any) -> np.ndarray:
    value = np.asarray(array)
    return value.reshape(len(value), -1) if value.ndim >= 1 else value.reshape(1, 1)


def steps_view(offset: int = 0, prefix: str = "") -> View:
    """A (T, d) array of states: one point per row, labelled "step t" (t shifted by `offset`)."""

    def view(output: Any) -> list[Point]:
        return [Point(offset + t + 1, f"{prefix}step {offset + t + 1}", row) for t, row in enumerate(_rows(output))]

    return view


def sequences_view(output: Any) -> list[Point]:
    """A list of (T_i, d) arrays, one per independent sequence: "sequence i, step t"."""
    return [
        Point(t + 1, f"sequence {i + 1}, step {t + 1}", row, i)
        for i, states in enumerate(output)
        for t, row in enumerate(_rows(states))
    ]


def segments_view(output: Any) -> list[Point]:
    """A list of (T_k, d) arrays, consecutive segments of one stream: steps are counted along the stream."""
    points, step = [], 0
    for k, states in enumerate(output):
        for t, row in enumerate(_rows(states)):
            step += 1
            points.append(Point(step, f"segment {k + 1}, step {t + 1} (step {step} of the stream)", row))
    return points


def batch_view(final: bool = False) -> View:
    """A (B, T, d) array of states, or with `final` a pair (H, final) whose final states come last."""

    def view(output: Any) -> list[Point]:
        states = np.asarray(output[0] if final else output)
        points = [
            Point(t + 1, f"row {b + 1}, step {t + 1}", states[b, t], b)
            for b in range(states.shape[0])
            for t in range(states.shape[1])
        ]
        if final:
            last = np.asarray(output[1])
            points += [
                Point(states.shape[1] + 1, f"the final state of row {b + 1}", last[b], b) for b in range(len(last))
            ]
        return points

    return view


def columns_view(part: int, parts: int, name: str) -> View:
    """Rows of a (T, parts * d) feature array, keeping only column block `part` (0-based), named `name`."""

    def view(output: Any) -> list[Point]:
        rows = _rows(output)
        width = rows.shape[1] // parts
        return [
            Point(t + 1, f"{name} at step {t + 1}", row[part * width : (part + 1) * width])
            for t, row in enumerate(rows)
        ]

    return view


def value_view(label: str) -> View:
    """A single result (a loss, say) as one point."""
    return lambda output: [Point(0, label, output)]


def replacement_values(shape: tuple[int, ...], seed: int, low: float = -1.5, high: float = 1.5) -> np.ndarray:
    """Replacement inputs that depend only on `seed` (probes are deterministic)."""
    return np.random.default_rng(seed).uniform(low, high, size=shape)


#: Junk for padded positions: large finite values, NaN and infinities.
JUNK = (("large values", 1e6), ("NaN", float("nan")), ("infinities", float("inf")))


def junk(shape: tuple[int, ...], kind: float, seed: int = 0) -> np.ndarray:
    """Junk of one `JUNK` kind with mixed signs (NaN stays NaN)."""
    signs = np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0)
    return signs * kind


# ----------------------------------------------------------------------------- probes


def guarded(probe: Probe) -> Probe:
    """A probe that reports an unreadable result on perturbed inputs (a dict without its keys, a
    ragged list) as a broken rule instead of crashing the check; `StudentFailure` (a crash or timeout
    of the student's function) passes through to the check runner."""

    @functools.wraps(probe)
    def safe(run: Run, case: Case) -> str | None:
        try:
            return probe(run, case)
        except StudentFailure:
            raise
        except Exception as error:  # the student's result on changed inputs may be anything
            return messages.text("probe.unreadable", error=type(error).__name__)

    return safe


def outputs(run: Run, items: Iterable[Item], case_of: Callable[[Item], Case]) -> Iterator[tuple[Item, Any]]:
    """(item, the function's output on `case_of(item)`) for each item in turn, the calls sent together
    where `run` takes many (`Probing.many`); an item whose case cannot be built raises where a probe
    calling one by one would have met it."""
    listed: list[Item] = []

    def cases() -> Iterator[Case]:
        for item in items:
            listed.append(item)
            yield case_of(item)

    many = getattr(run, "many", None)
    for index, output in enumerate(many(cases()) if many is not None else map(run, cases())):
        yield listed[index], output


def positions(first: int, last: int, at_most: int = 6) -> list[int]:
    """Up to `at_most` steps spread evenly over first..last (both included when there is room)."""
    if last < first:
        return []
    if last - first + 1 <= at_most:
        return list(range(first, last + 1))
    return sorted({round(first + i * (last - first) / (at_most - 1)) for i in range(at_most)})


def causal(
    view: View,
    steps: Callable[[Case], int],
    change_after: Callable[[Case, int], Case],
    message: Sentence = "probe.causal",
) -> Probe:
    """Changing the inputs after step t leaves every output at or before t identical, for t = 1..T-1.

    `steps(case)` is T; `change_after(case, t)` replaces the inputs of steps t+1.. with other values.
    Up to six values of t are tried, spread over 1..T-1 (t = 1 always: the first step sees most future).
    Message fields: `after` (t) and `where` (the first output that changed).
    """

    def probe(run: Run, case: Case) -> str | None:
        base = view(run(case))
        for t, output in outputs(run, positions(1, steps(case) - 1), lambda t: change_after(case, t)):
            broken = first_change(base, view(output), lambda point: point.step <= t)
            if broken:
                return messages.text(message, after=t, where=broken.label)
        return None

    return guarded(probe)


def anticausal(
    view: View,
    steps: Callable[[Case], int],
    change_before: Callable[[Case, int], Case],
    message: Sentence = "probe.anticausal",
) -> Probe:
    """For a right-to-left reader: changing the inputs before step t leaves every output at or after t identical.

    `change_before(case, t)` replaces the inputs of steps 1..t-1 (up to six values of t over 2..T,
    t = T always). Fields: `before` (t), `where`.
    """

    def probe(run: Run, case: Case) -> str | None:
        base = view(run(case))
        for t, output in outputs(run, positions(2, steps(case)), lambda t: change_before(case, t)):
            broken = first_change(base, view(output), lambda point: point.step >= t)
            if broken:
                return messages.text(message, before=t, where=broken.label)
        return None

    return guarded(probe)


def alone(pieces: Callable[[Case], Iterable[tuple[str, Case, View, View]]], message: Sentence = "probe.alone") -> Probe:
    """Running B after A equals running B alone.

    `pieces(case)` yields `(name, alone_case, whole_view, alone_view)`: `alone_case` runs B by itself,
    `whole_view(output)` lists B's share of the whole case's output and `alone_view(output)` the
    output of the run alone, labelled alike (they are matched point for point).
    Fields: `piece` (the name) and `where` (the first point that differs).
    """

    def probe(run: Run, case: Case) -> str | None:
        whole = run(case)
        for (name, _, whole_view, alone_view), output in outputs(run, pieces(case), lambda piece: piece[1]):
            broken = first_change(whole_view(whole), alone_view(output))
            if broken:
                return messages.text(message, piece=name, where=broken.label)
        return None

    return guarded(probe)


def same_result(view: View, variants: Callable[[Case], Iterable[tuple[str, Case]]], message: Sentence) -> Probe:
    """Each variant of the case (the same computation written differently, or junk where the contract
    says inputs are ignored) gives an identical output. Fields: `variant` (its name), `where`."""

    def probe(run: Run, case: Case) -> str | None:
        base = view(run(case))
        for (name, _), output in outputs(run, variants(case), lambda variant: variant[1]):
            broken = first_change(base, view(output))
            if broken:
                return messages.text(message, variant=name, where=broken.label)
        return None

    return guarded(probe)


def rows_independent(
    view: View,
    rows: Callable[[Case], int],
    change_row: Callable[[Case, int], Case],
    message: Sentence = "probe.rows_independent",
) -> Probe:
    """Batch rows are independent: changing row r's inputs leaves every other row's outputs identical.

    `view` must set `Point.row`. Fields: `row` (1-based, the row changed) and `where`.
    """

    def probe(run: Run, case: Case) -> str | None:
        base = view(run(case))
        for r, output in outputs(run, range(rows(case)), lambda r: change_row(case, r)):
            broken = first_change(base, view(output), lambda point: point.row is not None and point.row != r)
            if broken:
                return messages.text(message, row=r + 1, where=broken.label)
        return None

    return guarded(probe)


# ----------------------------------------------------------------------------- truncated BPTT


def _unpack(case: Case) -> tuple:
    """(xs, w, targets, k, h0) of a call truncated_bptt_scalar(xs, w, targets, k, h0=0)."""
    xs, w, targets, k, *rest = case.args
    return list(xs), w, dict(targets), k, rest[0] if rest else case.kwargs.get("h0", 0)


def _pack(xs: list, w: Any, targets: dict, k: int, h0: Any) -> Case:
    return Case((xs, w, targets, k), {"h0": h0})


def _split(targets: dict, boundary: int) -> tuple[dict, dict]:
    """Targets of steps 1..boundary, and those after it renumbered from 1."""
    return {t: y for t, y in targets.items() if t <= boundary}, {
        t - boundary: y for t, y in targets.items() if t > boundary
    }


def _boundaries(xs: list, k: int) -> range:
    return range(k, len(xs), k) if k and k > 0 else range(0)


def truncation_value(message: Sentence = "probe.truncation_value", unpack=_unpack, pack=_pack) -> Probe:
    """The state value carries across each truncation boundary: the states after boundary b equal those
    of the rest of the sequence run alone from the carried value h_b. Fields: `boundary` (b), `where`."""

    def probe(run: Run, case: Case) -> str | None:
        xs, w, targets, k, h0 = unpack(case)
        states = list(run(case)["states"])
        view = steps_view()
        tails = outputs(run, _boundaries(xs, k), lambda b: pack(xs[b:], w, _split(targets, b)[1], k, states[b - 1]))
        for b, tail in tails:
            broken = first_change(view(states)[b:], steps_view(offset=b)(list(tail["states"])))
            if broken:
                return messages.text(message, boundary=b, where=broken.label)
        return None

    return guarded(probe)


def _held_constant(run: Run, pack, xs, w, targets, k, h0, states) -> Iterator[tuple[int, Any]]:
    """(b, the gradient with the state at boundary b held constant: the head up to b plus the tail
    from h_b) for each boundary b in turn, the calls of all of them sent together. A part without
    targets contributes 0 and is not run."""
    splits = {b: _split(targets, b) for b in _boundaries(xs, k)}

    def part(item: tuple[int, bool]) -> Case:
        b, tail = item
        earlier, later = splits[b]
        return pack(xs[b:], w, later, k, states[b - 1]) if tail else pack(xs[:b], w, earlier, k, h0)

    wanted = [
        (b, tail) for b, (earlier, later) in splits.items() for tail in (False, True) if (later if tail else earlier)
    ]
    grads = outputs(run, wanted, part)
    for b, (earlier, later) in splits.items():
        head = next(grads)[1]["grad"] if earlier else 0
        tail = next(grads)[1]["grad"] if later else 0
        yield b, head + tail


def truncation_detached(message: Sentence = "probe.truncation_detach", unpack=_unpack, pack=_pack) -> Probe:
    """The truncated gradient equals the gradient with the carried state held constant: at every
    boundary b, grad = grad(steps 1..b) + grad(steps b+1.. started from the constant h_b).
    Fields: `boundary` (b)."""

    def probe(run: Run, case: Case) -> str | None:
        xs, w, targets, k, h0 = unpack(case)
        whole = run(case)
        for b, held in _held_constant(run, pack, xs, w, targets, k, h0, list(whole["states"])):
            if not identical(whole["grad"], held):
                return messages.text(message, boundary=b)
        return None

    return guarded(probe)


def truncation_not_full(message: Sentence = "probe.truncation_full", unpack=_unpack, pack=_pack) -> Probe:
    """Truncation changes the gradient when the targets reach across a boundary: if the gradient with
    segments of k equals the gradient of full BPTT (k = T) but not the held-constant gradient at some
    boundary b, the gradient crossed b. Fields: `k`, `boundary` (b)."""

    def probe(run: Run, case: Case) -> str | None:
        xs, w, targets, k, h0 = unpack(case)
        if not list(_boundaries(xs, k)):
            return None
        whole = run(case)
        full = run(pack(xs, w, targets, len(xs), h0))["grad"]
        if not identical(whole["grad"], full):
            return None
        for b, held in _held_constant(run, pack, xs, w, targets, k, h0, list(whole["states"])):
            if not identical(full, held):
                return messages.text(message, k=k, boundary=b)
        return None

    return guarded(probe)
