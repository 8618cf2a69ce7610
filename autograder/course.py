"""Instructor operations on a course root: release, autograde (parallel or on Dask), feedback (the
grade sheets are `autograder.exports`).

Every operation is plain nbgrader underneath, configured by the root's `nbgrader_config.py`
(which reads `course_config.py`).
"""
from __future__ import annotations

import gc
import hashlib
import json
import multiprocessing
import os
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from . import attempts, build, config, figures
from .assignments import get
from .labels import label
from .layout import Course, FailedAttempt

BIN = Path(sys.executable).parent


def nbgrader_env() -> dict:
    """The environment for nbgrader: the venv's bin first on PATH (nbgrader runs `alembic`)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


#: nbgrader's command line (its `nbgrader` script), in a process that imports this package first and
#: so leaves jsonschema's unused "iri" format checker out (see `autograder/__init__.py`): 1.2-1.4 s
#: less per command.
NBGRADER_MAIN = "import sys, autograder; sys.argv[0] = 'nbgrader'; from nbgrader.apps.nbgraderapp import main; sys.exit(main())"


def nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one nbgrader command in the course root; raise with its log when it fails."""
    result = subprocess.run([sys.executable, "-c", NBGRADER_MAIN, *args], cwd=root, env=nbgrader_env(), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def assignments(root: Path) -> list[str]:
    """The assignments of course_config.py, in release order."""
    return Course(Path(root)).assignments


#: Where `release` records what it last wrote into source/ (assignment -> sha256 of the notebook).
BUILD_RECORD = ".build-record.json"


class HandEdited(RuntimeError):
    """A source notebook was changed after `release` built it; rebuilding would lose the change."""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _build_record(course: Course) -> dict[str, str]:
    path = course.root / "source" / BUILD_RECORD
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError, TypeError):
        return {}


def hand_edited(root: Path, name: str) -> Path | None:
    """The source notebook of `name` when it holds edits that the build would overwrite, else None.

    The build writes the notebook from autograder/assignments/<name>/notebook.md and
    solutions/<name>.py. An existing notebook equal to that, or equal to what release wrote last
    (recorded in source/.build-record.json: the template changed since), holds no hand edit."""
    course = Course(Path(root))
    path = course.notebook(course.source(name), name)
    if not path.is_file():
        return None
    existing = path.read_text(encoding="utf-8")
    if existing == build.notebook_text(build.build_notebook(get(name), course.root)):
        return None
    return None if _build_record(course).get(name) == _sha256(existing) else path


def release(root: Path, names: list[str] | None = None, *, force: bool = False) -> list[Path]:
    """Build each source notebook and run `nbgrader generate_assignment` on it.

    source/ is generated: a source notebook edited by hand (in formgrader, say) is not overwritten
    unless `force`; HandEdited names it and says where the edit belongs."""
    course = Course(Path(root))
    names = names or assignments(root)
    edited = {name: path for name in names if (path := hand_edited(course.root, name))}
    if edited and not force:
        raise HandEdited("\n".join(
            f"{path} was edited by hand: it differs from what release builds from "
            f"autograder/assignments/{name}/notebook.md and solutions/{name}.py, and release would "
            f"overwrite it. Make the change in one of those two files, "
            f"or pass --force to overwrite the source notebook." for name, path in edited.items()))
    from . import execute  # (nbgrader's import: a second)

    attempts.create_secret(course.root)  # the first release makes the secret that hidden cases are drawn from
    done = []
    for name in tqdm(names, desc="release", unit="assignment"):
        path = build.write_source(get(name), course.root)
        record = _build_record(course)
        record[name] = _sha256(path.read_text(encoding="utf-8"))
        (course.root / "source" / BUILD_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        result = _api(str(course.root)).generate_assignment(name, force=True)  # in this process: one nbgrader start for all
        if not result["success"]:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{result.get('error') or ''}\n{result.get('log') or ''}")
        execute.record_figures(course.root, name)
        done.append(course.release(name))
    return done


@dataclass(frozen=True)
class Outcome:
    """One autograded submission: did nbgrader succeed, how long it took, its log on failure, and
    admission's reasons where it refused the submission (`layout.FailedAttempt`)."""

    student: str
    assignment: str
    ok: bool
    seconds: float
    log: str = ""
    refused: str = ""


_API = {}


def _api(root: str, unsandboxed: bool = False):
    """One nbgrader API per worker process and course root (its config read once)."""
    key = (root, unsandboxed, os.getpid())  # a forked worker makes its own (no shared database connection)
    if key not in _API:
        from nbgrader.apps import NbGraderAPI
        from traitlets.config.loader import PyFileConfigLoader

        os.environ["PATH"] = nbgrader_env()["PATH"]
        warnings.filterwarnings("ignore")  # SQLAlchemy chatter from nbgrader's gradebook, per worker
        settings = PyFileConfigLoader("nbgrader_config.py", path=root).load_config()
        settings.TrustedExecute.unsandboxed = unsandboxed
        _API[key] = NbGraderAPI(config=settings)
    return _API[key]


def warm(root: str, unsandboxed: bool = False, counter=None) -> None:
    """Start this worker's nbgrader API and sandbox zygote before its first submission (a forked
    worker adopts one of the zygotes its parent started, numbered by `counter`)."""
    from .sandbox import adopt, zygote_channel

    if counter is not None:
        with counter.get_lock():
            index, counter.value = counter.value, counter.value + 1
        adopt(index)
    zygote_channel()
    _api(root, unsandboxed)
    _freeze()


def _freeze() -> None:
    """Keep what this process has built so far (imports, warm caches, the nbgrader app) out of the
    garbage collector's full passes: they last as long as the process, and a forked worker then
    does not touch (and copy) the parent's pages by scanning them."""
    gc.collect()
    gc.freeze()


def prepare(names: list[str]) -> None:
    """What every grader would otherwise compute on its first submission of each assignment:
    nbgrader's import, its gradebook's ORM mappers and the notebook validators it compiles, the
    book cases' references, the mistakes' namespaces and the checks each mistake changes."""
    import nbformat
    import nbgrader.api  # noqa: F401
    import nbgrader.apps  # noqa: F401
    import sqlalchemy.orm

    from . import execute
    from .checks import public_cases

    sqlalchemy.orm.configure_mappers()
    blank = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
    for relax in (False, True):
        nbformat.validate(blank, relax_add_props=relax)
    execute._metadata_validator()
    for spec in map(get, names):
        for check in spec.checks:
            public_cases(check)
            spec.for_check(check.name)
        for entry in spec.mistakes():
            entry.namespace()


def autograde_one(root: str, assignment: str, student: str, retries: int = 3, unsandboxed: bool = False) -> Outcome:
    """`nbgrader autograde` of one submission in this process, retried when another worker's
    write to the shared SQLite gradebook got in the way."""
    start = time.perf_counter()
    for attempt in range(retries):
        result = _api(root, unsandboxed).autograde(assignment, student, force=True, create=True)
        log = (result.get("log") or "") + (result.get("error") or "")
        if result["success"] or not any(word in log for word in ("sqlite3", "sqlalchemy", "database is locked")):
            break
        time.sleep(0.5 * (attempt + 1))
    if result["success"]:
        return Outcome(student, assignment, True, time.perf_counter() - start)
    failure = FailedAttempt.read(Course(Path(root)).failed_attempt(student, assignment))
    return Outcome(student, assignment, False, time.perf_counter() - start, f"{result.get('error') or ''}\n{result.get('log') or ''}",
                   failure.reason if failure and failure.refused else "")


def isolation(unsandboxed: bool = False) -> str:
    """The isolation student code gets on this machine, as printed at the start of every autograde."""
    from rnnkit import jail

    from .execute import isolation_in_force

    return isolation_in_force(jail.available(), unsandboxed)


def autograde(root: Path, names: list[str] | None = None, *, students: list[str] | None = None,
              workers: int | None = None, dask: str | None = None, unsandboxed: bool = False) -> list[Outcome]:
    """Autograde every submission of the given assignments.

    Runs on `workers` local processes (course_config.WORKERS by default), or on a Dask cluster
    when `dask` is "local" (a LocalCluster) or a scheduler address. Each submission is an
    independent `nbgrader autograde`, so a crash costs only that submission; a failed one is tried
    once more in this process after the parallel pass. Student code runs sandboxed (see
    `autograder.execute`); `unsandboxed` allows grading where the machine gives no sandbox.
    """
    course = Course(Path(root).resolve())
    root = str(course.root)
    jobs = [(name, student) for name in (names or course.assignments) for student in (students or course.students(name))]
    workers = workers or config.load(root).WORKERS
    missing = [f"submitted/{student}/{name}" for name, student in jobs if not course.submitted(student, name).is_dir()]
    if missing:
        raise FileNotFoundError(f"no submission at {', '.join(missing)} (under {root})")
    if not jobs:
        raise FileNotFoundError(f"no submission of {', '.join(names or course.assignments)} under {course.root / 'submitted'}: "
                                "nothing to autograde (collect them first: see the README's 'Submissions in')")
    attempts.read_secret(root)  # NoSecret: stop once, before any submission is read
    pool = not dask and workers != 1 and len(jobs) > 1
    if not dask:
        from .sandbox import adopt, claim, prestart

        if pool:
            prestart(workers)  # one zygote for the workers, starting while this process imports and prepares
            claim()
        elif claim():  # graded in this process: the zygote the command line started early, if any
            adopt(0)
    print(label("cli.sandbox", isolation=isolation(unsandboxed)), flush=True)
    from . import execute

    graded = sorted({name for name, _ in jobs})
    for name in graded:  # released before figures were kept, or its source changed since
        if figures.load(root, name) is None and figures.source_notebook(root, name).is_file():
            execute.record_figures(course.root, name)
    outcomes: list[Outcome] = []
    with tqdm(total=len(jobs), desc="autograde", unit="submission") as bar:
        if dask:
            import dask as dask_config
            from dask.distributed import Client, LocalCluster
            from dask.distributed import as_completed as dask_completed

            cluster = None
            if dask == "local":  # its workers forked from this process once it is prepared, as the local pool's are
                prepare(graded)
                _freeze()
                with dask_config.config.set({"distributed.worker.multiprocessing-method": "fork"}):
                    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)
            with Client(cluster or dask) as client:
                client.run(warm, root, unsandboxed)  # every worker's zygote and nbgrader app, before its first submission
                futures = [client.submit(autograde_one, root, name, student, unsandboxed=unsandboxed, pure=False) for name, student in jobs]
                for future in dask_completed(futures):
                    outcomes.append(future.result())
                    bar.update()
            if cluster:
                cluster.close()
                gc.unfreeze()
        elif workers == 1 or len(jobs) == 1:  # in this process: its nbgrader app and zygote stay warm for the next call
            for name, student in jobs:
                outcomes.append(autograde_one(root, name, student, unsandboxed=unsandboxed))
                bar.update()
        else:
            context = multiprocessing.get_context("fork")
            prepare(graded)
            _freeze()  # the workers forked below start with it frozen
            counter = context.Value("i", 0)
            try:
                with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm, initargs=(root, unsandboxed, counter)) as pool:
                    futures = [pool.submit(autograde_one, root, name, student, unsandboxed=unsandboxed) for name, student in jobs]
                    for future in as_completed(futures):
                        outcomes.append(future.result())
                        bar.update()
            finally:
                gc.unfreeze()
    # a submission that failed beside other workers gets one more, unshared, try
    retried = [autograde_one(root, o.assignment, o.student, unsandboxed=unsandboxed) if not (o.ok or o.refused) else o
               for o in outcomes]
    return sorted(retried, key=lambda o: (o.assignment, o.student))


def feedback(root: Path, names: list[str] | None = None, *, students: list[str] | None = None) -> None:
    """`nbgrader generate_feedback` for every autograded submission of the given assignments.

    `students` limits it to those students; a student with no autograded submission of an
    assignment named in `names` (or of any assignment, when `names` is empty) is an error."""
    course = Course(Path(root))
    explicit = bool(names)
    names = names or assignments(root)
    graded = {name: {p.parent.name for p in (course.root / "autograded").glob(f"*/{name}") if p.is_dir()} for name in names}
    if students:
        missing = [f"autograded/{s}/{name}" for name in names for s in students if s not in graded[name]]
        if (explicit and missing) or not any(set(students) & graded[name] for name in names):
            raise FileNotFoundError(f"no autograded submission at {', '.join(missing)} (under {course.root}): autograde it first")
    else:
        missing = [name for name in names if not graded[name]]
        if (explicit and missing) or not any(graded.values()):
            raise FileNotFoundError(f"no autograded submission of {', '.join(missing)} under {course.root / 'autograded'}: "
                                    "autograde first (python -m autograder autograde)")
    for name in tqdm(names, desc="feedback", unit="assignment"):
        if not set(students or graded[name]) & graded[name]:
            continue
        if not students:
            nbgrader(course.root, "generate_feedback", name, "--force")
            continue
        others = sorted(graded[name] - set(students))
        exclude = [f"--CourseDirectory.student_id_exclude={','.join(others)}"] if others else []
        nbgrader(course.root, "generate_feedback", name, "--force", *exclude)
