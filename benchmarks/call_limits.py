"""The per-call limit against the reference's cost: for every graded check, the reference solution
(the notebook's own functions) is timed on each public case and on many hidden draws, and the
costliest case is printed with the factor the course's CALL_TIMEOUT leaves above it.

    .venv/bin/python benchmarks/call_limits.py [--draws 40] [--assignment NAME]

The limit is the same in the self-check and at grading; a public case of the largest drawable size
(tests/grading/test_branches.py) makes the self-check warn first. A factor below 100 is flagged:
a student's correct but plainer code (loops, exact Fractions) should fit many times over.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.assignments import ALL  # noqa: E402
from autograder.coursedir.config import load  # noqa: E402
from autograder.grading.attempts import Attempt  # noqa: E402
from autograder.grading.checks import _public_cases, hidden_cases  # noqa: E402
from rnnkit.checking import case_size  # noqa: E402
from rnnkit.helpers import CALLS  # noqa: E402

FLAG = 100


def cost(fn, call: str, case) -> float:
    """Seconds of one call, the best of three."""
    best = float("inf")
    for _ in range(3):
        args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
        start = time.perf_counter()
        CALLS[call](fn, args, kwargs)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=40, help="students whose hidden cases are timed")
    parser.add_argument("--assignment", action="append")
    args = parser.parse_args()
    limit = load().CALL_TIMEOUT
    print(f"CALL_TIMEOUT = {limit} s; factor = CALL_TIMEOUT / the reference's costliest call")
    for name in args.assignment or list(ALL):
        spec = ALL[name]
        solution = spec.solution()
        for check in spec.graded:
            cases = [case for case, _, _ in _public_cases(check)]
            cases += [
                case
                for n in range(args.draws)
                for case, _, _ in hidden_cases(spec, check, Attempt(b"benchmark", f"b{n}", 1, ""), 6)
            ]
            timed = [(cost(getattr(solution, check.name), check.call, case), case) for case in cases]
            seconds, case = max(timed, key=lambda item: item[0])
            factor = limit / seconds
            print(
                f"{name + '.' + check.name:46s} costliest {seconds * 1e3:8.2f} ms (n = {case_size(case)}) over {len(cases)} cases; "
                f"factor {factor:10.0f}{'  << below ' + str(FLAG) if factor < FLAG else ''}"
            )


if __name__ == "__main__":
    main()
