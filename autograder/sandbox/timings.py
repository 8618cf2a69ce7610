"""Where a grading process's time goes, for the benchmark (`benchmarks/autograde.py`): the phases of
grading (`autograder.grading`), counted where they run (here in the sandbox's session, and there).

With `AUTOGRADER_TIMINGS` naming a file, a grading process adds up the wall seconds of each phase of
a submission, every phase counted once (a phase inside another is taken out of the outer one):

* `screening`: the hidden cases drawn, their exact references, and each screened against every
  catalogued mistake (`checks.hidden_draws`);
* `checks`: the checks' own work in the grader (comparing, diagnosing, the probes' logic);
* `cells`, `calls`: the submission's cells and the graded calls in its runner (the runner's time,
  as the grader waits for it);
* `probe cells`, `probe calls`: the same in the runner the probes call;
* `runner start`: runners forked from the zygote;
* `nbgrader`: the rest of the submission (nbgrader's converter, the notebook read and written, the
  gradebook).

Each submission appends one JSON line `{phase: seconds}` to the file (forked workers end without
exit functions). Without the variable nothing is counted.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from typing import Iterator

ENV = "AUTOGRADER_TIMINGS"
#: What is left of a submission when its phases are taken out.
REST = "nbgrader"

_spent: Counter = Counter()
_stack: list[list] = []  # [phase, start, seconds of the phases inside it]


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Count the block's wall seconds as `name`'s, less those of the phases inside it."""
    if not _stack:  # outside a submission (or not counting): nothing to add to
        yield
        return
    _stack.append([name, time.perf_counter(), 0.0])
    try:
        yield
    finally:
        _, start, inner = _stack.pop()
        seconds = time.perf_counter() - start
        _spent[name] += seconds - inner
        _stack[-1][2] += seconds


@contextlib.contextmanager
def submission() -> Iterator[None]:
    """One submission: its phases counted and, where `AUTOGRADER_TIMINGS` names a file, appended to it."""
    path = os.environ.get(ENV)
    if not path:
        yield
        return
    _spent.clear()
    _stack[:] = [[REST, time.perf_counter(), 0.0]]
    try:
        yield
    finally:
        _, start, inner = _stack.pop()
        _spent[REST] += time.perf_counter() - start - inner
        line = json.dumps(dict(_spent)) + "\n"
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.write(descriptor, line.encode())
        finally:
            os.close(descriptor)
