"""Autograding as a user waits for it: whole commands timed, stock nbgrader against the project.

    .venv/bin/python benchmarks/autograde.py [--sizes 2 16 64] [--assignment NAME] [--workers W]
    .venv/bin/python benchmarks/autograde.py --assignment all [--sizes 2 64]

For each size N, two fresh course roots get the same N honest submissions (the reference
solution). In one, stock `nbgrader autograde` runs nbgrader's default pipeline (a Jupyter kernel
per notebook, test cells in the student's process); in the other, `python -m autograder autograde`
runs the project's (sandboxed runners forked from a warm zygote, W workers). Each is timed as a
user waits for it: the whole command, interpreter start-up included, from a shell in the course
root. Printed, all from this one run:

- each size's wall time of both, their ratio, and whether the grades are equal;
- a least-squares fit of wall time on N for each side: its start-up (the intercept) and its cost
  per submission (the slope);
- a one-student regrade (`--student`) of each, and where the project's start-up goes (interpreter,
  imports, the sandbox's zygote, the references, nbgrader's app and gradebook, grading);
- the same class on a local Dask cluster of 1 and of 2 workers;
- the peak memory of a grading process.

`--assignment all` compares the four assignments (sizes 2 and 64 by default), one table: for each,
stock and project wall time at each size (the project warm, as an instructor's second command runs),
their ratio, the grades equal or not, the project's CPU-seconds per submission (the machine's busy
time during its cold run, the runners included: run it on a quiet machine), a one-student regrade on a warm command, and where
a submission's grading time goes (`autograder.sandbox.timings`: screening, checks, cells, calls,
probes, runner start, nbgrader's steps) besides the command's start-up.

`--scale 64 1000` instead grades a mixed class of each size (honest, stub and mistaken submissions,
and for ch12_bptt the hostile ones of `tests/hostile.py` besides) with the project alone, on the
local pool and on a local Dask cluster, and prints for each its wall time, submissions per second and
the peak resident memory of any one process of the command, and how they grow from the smallest size
to the largest.

Speed is measured here, never in the tests: they check only that every path grades the same.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.assignments import get  # noqa: E402
from autograder.authoring.submissions import filled, write_submission  # noqa: E402
from autograder.commands.course import BIN, nbgrader_env, release  # noqa: E402
from autograder.reporting import classdata  # noqa: E402
from tests import hostile  # noqa: E402
from tests.conftest import make_course  # noqa: E402
from tests.mixed import mixed_class  # noqa: E402

PYTHON = str(BIN / "python")

#: Appended to the stock root's nbgrader_config.py: nbgrader's own autograde pipeline.
STOCK = """
from nbgrader.converters.autograde import Autograde
c.Autograde.autograde_preprocessors = Autograde.class_traits()["autograde_preprocessors"].default()
"""

#: The project's start-up, phase by phase: each a fresh process doing everything the one before
#: did, and one thing more, one after the other (the command itself starts the zygote first, so that
#: it comes up while the rest imports, and forks its workers after the references).
_IMPORTS = (
    "import autograder.commands.cli, autograder.commands.course, autograder.grading.execute, autograder.assignments, "
    "autograder.reporting.classdata, autograder.reporting.report"
)
_ZYGOTE = "from autograder.sandbox import zygote as sandbox; from autograder.grading import worker; sandbox.zygote_channel().isolation"
_PREPARE = "from autograder.assignments import get; worker.prepare({root!r}, [get({a!r})])"
_GRADEBOOK = "worker.nbgrader_api({root!r}, False).gradebook.__enter__().students"
_WORKERS = (
    "import multiprocessing, concurrent.futures as futures; sandbox.prestart({w}); sandbox.claim(); "
    "context = multiprocessing.get_context('fork'); pool = futures.ProcessPoolExecutor({w}, mp_context=context, "
    "initializer=worker.warm, initargs=({root!r}, False, context.Value('i', 0))); list(pool.map(abs, range({w}))); pool.shutdown()"
)
PHASES = {
    "interpreter": "pass",
    "imports (nbgrader, SymPy, the assignments)": _IMPORTS,
    "sandbox zygote up": f"{_IMPORTS}; {_ZYGOTE}",
    "references and catalogue": f"{_IMPORTS}; {_ZYGOTE}; {_PREPARE}",
    "nbgrader app and gradebook": f"{_IMPORTS}; {_ZYGOTE}; {_PREPARE}; {_GRADEBOOK}",
    "workers forked and warm": f"{_IMPORTS}; {_ZYGOTE}; {_PREPARE}; {_GRADEBOOK}; {_WORKERS}",
}


def course_root(folder: Path, name: str, assignment: str, students: int, stock: bool) -> Path:
    """A fresh course with `students` honest submissions of `assignment`, released."""
    root = make_course(folder / name, [assignment])
    if stock:
        with (root / "nbgrader_config.py").open("a") as handle:
            handle.write(STOCK)
    release(root, [assignment])
    notebook = root / "release" / assignment / f"{assignment}.ipynb"
    for index in range(students):
        write_submission(root, f"student{index:03d}", assignment, filled(notebook, get(assignment)))
    return root


#: The project's commands answered by a warm process (up before the timing: `warm_up`), or each in a
#: process of its own (the first command of a session, or AUTOGRADER_WARM=0).
WARM, COLD = {"AUTOGRADER_WARM": "600"}, {"AUTOGRADER_WARM": "0"}


def timed(command: list[str], root: Path, env: dict | None = None) -> float:
    """Seconds of wall time of one whole command run in the course root (its output discarded)."""
    start = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=root,
        env={**nbgrader_env(), **(env or COLD)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed in {root}:\n{done.stderr[-3000:]}")
    return seconds


def stock_command(assignment: str, *extra: str) -> list[str]:
    return [str(BIN / "nbgrader"), "autograde", assignment, "--force", *extra]


def project_command(assignment: str, *extra: str) -> list[str]:
    return [PYTHON, "-m", "autograder", "autograde", assignment, *extra]


def warm_up(root: Path) -> None:
    """Start the warm process of `WARM` (a first command starts it) and wait until it answers."""
    from autograder.commands import warm

    subprocess.run(
        [PYTHON, "-m", "autograder", "--help"],
        cwd=root,
        env={**nbgrader_env(), **WARM},
        stdout=subprocess.DEVNULL,
        check=True,
    )
    name = warm.address(warm.key({**nbgrader_env(), **WARM}))
    for _ in range(600):
        if warm._reachable(name):
            return
        time.sleep(0.1)
    raise SystemExit("the warm process did not come up")


def grades(root: Path) -> dict:
    return {(row.student, row.grade_id): row.score for row in classdata.load(root).rows}


def fit(sizes: list[int], seconds: list[float]) -> tuple[float, float]:
    """Start-up (s) and cost per submission (s) of a least-squares line through the runs."""
    slope, intercept = statistics.linear_regression(sizes, seconds)
    return intercept, slope


#: How a phase's process ends: as `python -m autograder` does (its exit functions, then no teardown).
_END = "; import atexit, os; atexit._run_exitfuncs(); os._exit(0)"


def startup_profile(root: Path, assignment: str, workers: int) -> list[tuple[str, float]]:
    """Seconds of a fresh process that goes up to each start-up phase, one after the other (the
    median of 3)."""
    return [
        (
            phase,
            statistics.median(
                timed([PYTHON, "-c", code.format(a=assignment, root=str(root), w=workers) + _END], root)
                for _ in range(3)
            ),
        )
        for phase, code in PHASES.items()
    ]


def busy() -> float:
    """CPU seconds this machine has been busy since it started, every core (/proc/stat)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpu_timed(command: list[str], root: Path, env: dict | None = None) -> tuple[float, float]:
    """Wall seconds of one whole command in the course root, in a process of its own, and the CPU
    seconds the machine was busy meanwhile: every process of the command, the sandboxed runners
    included (the zygote kills them, so no `wait4` counts them); the benchmark wants a quiet machine."""
    with tempfile.TemporaryFile() as errors:
        before = busy()
        start = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=root, env={**nbgrader_env(), **COLD, **(env or {})}, stdout=subprocess.DEVNULL, stderr=errors
        )
        status = process.wait()
        seconds, spent = time.perf_counter() - start, busy() - before
        if status:
            errors.seek(0)
            raise SystemExit(f"{' '.join(command)} failed in {root}:\n{errors.read().decode()[-3000:]}")
    return seconds, spent


def phases(path: Path) -> dict[str, float]:
    """Seconds a submission of each phase, the mean over the lines of an `AUTOGRADER_TIMINGS` file."""
    from autograder.sandbox import timings

    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    total = {name: sum(line.get(name, 0.0) for line in lines) / max(1, len(lines)) for name in PHASE_ORDER}
    assert set().union(*lines) <= set(PHASE_ORDER), "a phase the table does not show"
    assert timings.REST in total
    return total


#: The phases of `autograder.sandbox.timings`, in the table's order.
PHASE_ORDER = ("screening", "checks", "cells", "calls", "probe cells", "probe calls", "runner start", "nbgrader")


def one_assignment(folder: Path, a: str, sizes: list[int], workers: str) -> dict:
    """Stock and project, whole commands, on `a` at each size; CPU, regrade and phases at the largest."""
    found: dict = {"rows": []}
    for size in sizes:
        stock_root = course_root(folder, f"{a}-stock-{size}", a, size, stock=True)
        project_root = course_root(folder, f"{a}-project-{size}", a, size, stock=False)
        cold_root = course_root(folder, f"{a}-cold-{size}", a, size, stock=False)
        stock = timed(stock_command(a), stock_root)
        trace = folder / f"{a}-{size}.timings"
        cold, cpu = cpu_timed(project_command(a, "--workers", workers), cold_root, {timings_env(): str(trace)})
        warm_up(project_root)
        project = timed(project_command(a, "--workers", workers), project_root, WARM)
        equal = grades(stock_root) == grades(project_root) == grades(cold_root)
        found["rows"].append((size, stock, cold, project, equal, cpu / size))
        found["phases"] = phases(trace)
        found["regrade"] = statistics.median(
            timed(project_command(a, "--student", "student000", "--redo"), project_root, WARM) for _ in range(3)
        )
        for root in (stock_root, project_root, cold_root):
            shutil.rmtree(root)
    return found


def timings_env() -> str:
    from autograder.sandbox import timings

    return timings.ENV


def every_assignment(sizes: list[int], workers: str) -> None:
    """`--assignment all`: one table of the four assignments (see the module's docstring)."""
    from autograder.assignments import ALL

    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for a in ALL:
            results[a] = one_assignment(Path(folder), a, sizes, workers)
            print(f"  {a}: done", file=sys.stderr, flush=True)
    print(f"\nhonest submissions, whole commands (start-up included), one run, {workers} project workers; project warm")
    print(
        f"{'assignment':<16} {'N':>3}  {'stock':>7}  {'project':>7}  {'ratio':>6}  {'cold':>7}  {'CPU-s/sub':>9}  grades equal"
    )
    for a, found in results.items():
        for size, stock, cold, project, equal, cpu in found["rows"]:
            print(
                f"{a:<16} {size:>3}  {stock:>5.1f} s  {project:>5.1f} s  {stock / project:>5.2f}x  {cold:>5.1f} s  "
                f"{cpu:>9.3f}  {equal}"
            )
    print(
        f"\none-student regrade on a warm command (median of 3), and where a submission's grading goes at N={sizes[-1]}"
    )
    print(f"{'assignment':<16} {'regrade':>8}  " + "  ".join(f"{name:>12}" for name in PHASE_ORDER))
    for a, found in results.items():
        print(
            f"{a:<16} {found['regrade']:>6.2f} s  "
            + "  ".join(f"{found['phases'][name]:>10.3f} s" for name in PHASE_ORDER)
        )


def measured(command: list[str], root: Path) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MiB, the largest of the command's processes: `os.wait4`)
    of one whole command in the course root, in a process of its own (a warm process's memory is not
    the command's child)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=root, env={**nbgrader_env(), **COLD}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: some submissions refused (the hostile ones)
        raise SystemExit(f"{' '.join(command)} failed in {root}")
    return seconds, usage.ru_maxrss / 1024


def scale(sizes: list[int], assignment: str, workers: str) -> None:
    """The project alone on mixed classes of each size, on the pool and on a local Dask cluster."""
    rows, sheets = [], {}
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            for runner, extra in (("pool", ()), ("dask", ("--dask", "local"))):
                root = mixed_class(
                    Path(folder) / f"{runner}-{size}", assignment, size, hostile=assignment == hostile.ASSIGNMENT
                )
                count = len(list((root / "submitted").glob(f"*/{assignment}")))
                seconds, peak = measured(project_command(assignment, "--workers", workers, *extra), root)
                rows.append((size, count, runner, seconds, peak))
                if runner == "pool":
                    sheets[size] = {
                        name: measured([PYTHON, "-m", "autograder", name], root) for name in ("report", "export")
                    }
                shutil.rmtree(root)
    print(
        f"\nmixed classes of {assignment}, python -m autograder autograde, whole commands, one run, {workers} workers"
    )
    print(f"{'class':>6}  {'submissions':>11}  {'runner':<6}  {'wall':>8}  {'per second':>10}  {'peak memory':>11}")
    for size, count, runner, seconds, peak in rows:
        print(f"{size:>6}  {count:>11}  {runner:<6}  {seconds:>6.1f} s  {count / seconds:>10.2f}  {peak:>7.0f} MiB")
    for runner in ("pool", "dask"):
        mine = [row for row in rows if row[2] == runner]
        if len(mine) > 1:
            (_, small, _, t0, m0), (_, large, _, t1, m1) = mine[0], mine[-1]
            print(
                f"{runner}: {large / small:.1f}x the submissions took {t1 / t0:.1f}x the time and {m1 / m0:.2f}x the peak memory"
            )
    print(
        f"report and export of each graded class, whole commands (the bound: {SHEETS_MIB} MiB at any size up to 1,000 students)"
    )
    for size, found in sheets.items():
        print(
            "  "
            + ", ".join(
                f"{name} {seconds:.1f} s, {peak:.0f} MiB ({'within' if peak <= SHEETS_MIB else 'OVER'} the bound)"
                for name, (seconds, peak) in found.items()
            )
            + f"  [{size}]"
        )


#: The memory `report` and `export` stay within for a class of up to 1,000 (its rows are read whole).
SHEETS_MIB = 512


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--scale", type=int, nargs="+", default=None, help="mixed classes of these sizes, the project alone"
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 16, 64])
    parser.add_argument("--assignment", default="ch12_bptt")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dask-size", type=int, default=64, help="submissions graded on Dask with 1 and 2 workers")
    args = parser.parse_args()
    a, workers = args.assignment, str(args.workers)
    if args.scale:
        return scale(args.scale, a, workers)
    if a == "all":
        subprocess.run(
            [PYTHON, "-m", "compileall", "-q", str(REPO / "autograder")], check=True, stdout=subprocess.DEVNULL
        )
        return every_assignment(args.sizes if args.sizes != [2, 16, 64] else [2, 64], workers)
    # byte-compiled, as `make venv` leaves the package (a machine with PYTHONDONTWRITEBYTECODE set never writes the cache itself)
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(REPO / "autograder")], check=True, stdout=subprocess.DEVNULL)
    rows, stock_times, project_times = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        for size in args.sizes:
            stock_root = course_root(folder, f"stock-{size}", a, size, stock=True)
            project_root = course_root(folder, f"project-{size}", a, size, stock=False)
            cold_root = course_root(folder, f"cold-{size}", a, size, stock=False)
            stock = timed(stock_command(a), stock_root)
            cold = timed(project_command(a, "--workers", workers), cold_root, COLD)
            warm_up(project_root)
            project = timed(project_command(a, "--workers", workers), project_root, WARM)
            rows.append((size, stock, cold, project, grades(stock_root) == grades(project_root) == grades(cold_root)))
            stock_times.append(stock)
            project_times.append(project)
        redo = ("--student", "student000", "--redo")
        one = {
            "stock": timed(stock_command(a, "--student", "student000"), stock_root),
            "cold": timed(project_command(a, *redo), project_root, COLD),
            "warm": statistics.median(timed(project_command(a, *redo), project_root, WARM) for _ in range(3)),
        }
        profile = startup_profile(project_root, a, args.workers)
        dask_root = course_root(folder, "dask", a, args.dask_size, stock=False)
        dask = {
            n: timed(project_command(a, "--dask", "local", "--workers", str(n), "--redo"), dask_root, WARM)
            for n in (1, 2)
        }
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    print(f"\nhonest submissions of {a}, whole commands (start-up included), one run, {args.workers} project workers")
    print(
        "the project's first command of a session runs in a process of its own (cold); the next ones are answered by the warm process"
    )
    print(
        f"{'submissions':>11}  {'stock nbgrader':>14}  {'project, cold':>13}  "
        f"{'ratio':>6}  {'project, warm':>13}  {'ratio':>6}  grades equal"
    )
    for size, stock, cold, project, equal in rows:
        print(
            f"{size:>11}  {stock:>12.1f} s  {cold:>11.1f} s  {stock / cold:>5.2f}x  {project:>11.1f} s  {stock / project:>5.2f}x  {equal}"
        )
    if len(rows) > 1:
        for side, times in (("stock nbgrader", stock_times), ("project, warm", project_times)):
            start, each = fit(args.sizes, times)
            print(f"fit, {side:<15}: start-up {start:5.2f} s + {each:.3f} s per submission")
    print(
        f"one-student regrade (--student): stock {one['stock']:.2f} s, project cold {one['cold']:.2f} s, "
        f"warm {one['warm']:.2f} s (median of 3) wall"
    )
    print("project start-up, cold: a fresh process up to each phase, one after the other (median of 3)")
    for phase, seconds in profile:
        print(f"  up to {phase:<44} {seconds:5.2f} s")
    print(
        f"Dask LocalCluster, {args.dask_size} submissions: 1 worker {dask[1]:.1f} s, 2 workers {dask[2]:.1f} s "
        f"({dask[1] / dask[2]:.2f}x)"
    )
    print(f"peak memory of one grading process: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
