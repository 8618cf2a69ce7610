"""Instructor operations on a course root: release, autograde (parallel or on Dask: the runners are
`autograder.grading.runners`), feedback (the grade sheets are `autograder.reporting.exports`).

Every operation is plain nbgrader underneath, configured by the root's `nbgrader_config.py`
(which reads `course_config.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
import sys
import threading
from pathlib import Path

from tqdm import tqdm

from ..assignments import ALL, get
from ..authoring import build
from ..coursedir import config
from ..coursedir.graded import graded_by_another, grader_version, is_graded
from ..coursedir.layout import Course
from ..coursedir.ledger import Ledger
from ..grading import attempts, figures, runners, worker
from ..grading.worker import (
    BIN,  # noqa: F401 - the venv's bin, for the scripts that run nbgrader's own
    Outcome,
    autograde_one,
    nbgrader_api,
    nbgrader_env,
    prepare,
)
from ..intake import sanitize
from ..labels import label

#: nbgrader's command line (its `nbgrader` script), in a process that imports this package first and
#: so leaves jsonschema's unused "iri" format checker out (see `autograder/__init__.py`): 1.2-1.4 s
#: less per command.
NBGRADER_MAIN = (
    "import sys, autograder; sys.argv[0] = 'nbgrader'; from nbgrader.apps.nbgraderapp import main; sys.exit(main())"
)


def nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one nbgrader command in the course root; raise with its log when it fails."""
    result = subprocess.run(
        [sys.executable, "-c", NBGRADER_MAIN, *args], cwd=root, env=nbgrader_env(), capture_output=True, text=True
    )
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

    The build writes the notebook from autograder/assignments/<name>/notebook.md. An existing
    notebook equal to that, or equal to what release wrote last (recorded in
    source/.build-record.json: the template changed since), holds no hand edit."""
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
        raise HandEdited(
            "\n".join(
                f"{path} was edited by hand: it differs from what release builds from "
                f"autograder/assignments/{name}/notebook.md, and release would "
                f"overwrite it. Make the change in that file, "
                f"or pass --force to overwrite the source notebook."
                for name, path in edited.items()
            )
        )

    attempts.create_secret(course.root)  # the first release makes the secret that hidden cases are drawn from
    done = []
    for name in tqdm(names, desc="release", unit="assignment"):
        path = build.write_source(get(name), course.root)
        record = _build_record(course)
        record[name] = _sha256(path.read_text(encoding="utf-8"))
        (course.root / "source" / BUILD_RECORD).write_text(
            json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        result = nbgrader_api(str(course.root)).generate_assignment(
            name, force=True
        )  # in this process: one nbgrader start for all
        if not result["success"]:
            raise RuntimeError(
                f"nbgrader generate_assignment {name} failed:\n{result.get('error') or ''}\n{result.get('log') or ''}"
            )
        figures.record(course.root, get(name))
        done.append(course.release(name))
    due_dates(course.root, names)
    return done


def due_dates(root: Path, names: list[str]) -> None:
    """The due dates of course_config's TERM for the released assignments `names` into the gradebook,
    where nbgrader and formgrader read them."""
    from ..coursedir.gradebook import CourseGradebook
    from ..term import penalties, policy

    settings = config.load(root)
    with CourseGradebook(config.database_url(root, settings), settings.COURSE_ID) as gradebook:
        for name in names:
            due = policy.rules(settings, name).due
            if due is not None:
                gradebook.update_or_create_assignment(name, duedate=penalties.naive_utc(due))


def isolation(unsandboxed: bool = False) -> str:
    """The isolation student code gets on this machine, as printed at the start of every autograde."""
    from rnnkit import jail

    from ..grading.execute import isolation_in_force

    return isolation_in_force(jail.available(), unsandboxed, jail.refusal())


def preload() -> None:
    """What grading any of the package's assignments needs whatever the course (`worker.preload`,
    `sanitize.warm`), computed in this process: the warm process's (`autograder.commands.warm`)."""
    worker.preload(list(ALL.values()))
    sanitize.warm()


def _jobs(course: Course, names: list[str], students: list[str] | None) -> list[runners.Job]:
    """(assignment, student) of each submission of `names` (by `students`, else by everyone who
    submitted); FileNotFoundError where one of them has no submission, or there is none at all."""
    jobs = [(name, student) for name in names for student in (students or course.students(name))]
    missing = [f"submitted/{student}/{name}" for name, student in jobs if not course.submitted(student, name).is_dir()]
    if missing:
        raise FileNotFoundError(f"no submission at {', '.join(missing)} (under {course.root})")
    if not jobs:
        raise FileNotFoundError(
            f"no submission of {', '.join(names)} under {course.root / 'submitted'}: "
            "nothing to autograde (collect them first: see docs/instructor.md, 'Submissions in')"
        )
    return jobs


def autograde(
    root: Path,
    names: list[str] | None = None,
    *,
    students: list[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    unsandboxed: bool = False,
    redo: bool = False,
    regrading: bool = False,
    stop: threading.Event | None = None,
) -> list[Outcome]:
    """Autograde the submissions of the given assignments that are not graded yet as they stand
    (`coursedir.graded.is_graded`: the same bytes, by the same grader), or every one with `redo`; a
    line says how many were skipped. A submission graded by another version of the grader is left as
    it is, with a line saying how many and how to regrade them (only a recorded regrade moves a grade:
    `autograder.commands.regrade`, which passes `regrading`).

    Runs on `workers` local processes (course_config.WORKERS by default), or on a Dask cluster
    when `dask` is "local" (a LocalCluster) or a scheduler address: a tcp:// one is refused on a shared
    host unless the course accepts it (`runners.check_dask`, InsecureDask). Each submission is an
    independent `nbgrader autograde`, so a crash costs only that submission; a failed one is tried
    once more in this process after the parallel pass. What every grader needs (figures, references:
    `worker.prepare`) is computed once, before the runner (`autograder.grading.runners`) starts. Student
    code runs sandboxed (see `autograder.grading.execute`); `unsandboxed` allows grading where the
    machine gives no sandbox. Ctrl-C (SIGINT) stops it once the submissions in flight are graded
    (`Interrupted`, with the outcomes so far); a caller that catches Ctrl-C itself passes the event
    it sets as `stop` (`runners.interruptible`). A run stopped any other way, SIGKILL included, leaves
    each submission graded whole or as it was, and the next run grades what is left.
    """
    course = Course(Path(root).resolve())
    root = str(course.root)
    jobs = _jobs(course, names or course.assignments, students)
    attempts.read_secret(root)  # NoSecret: stop once, before any submission is read
    settings = config.load(root)
    runners.check_dask(
        dask, shared_host=settings.SHARED_HOST, plain_tcp=settings.DASK_PLAIN_TCP
    )  # InsecureDask: before anything is graded
    Ledger(
        config.database_url(root, settings), settings.COURSE_ID
    )  # its tables made here, not raced for by the workers
    versions = {name: grader_version(settings, [name]) for name in {name for name, _ in jobs}}
    if not regrading:
        stale = [(name, student) for name, student in jobs if graded_by_another(course, name, student, versions[name])]
        if stale:
            names_ = sorted({name for name, _ in stale})
            print(label("cli.stale", count=len(stale), assignments=", ".join(names_), first=names_[0]), flush=True)
            jobs = [job for job in jobs if job not in stale]
            if not jobs:
                return []
    if not redo:
        left = [(name, student) for name, student in jobs if not is_graded(course, name, student, versions[name])]
        if len(left) < len(jobs):
            print(label("cli.skipped", skipped=len(jobs) - len(left), total=len(jobs)), flush=True)
        jobs = left
        if not jobs:
            return []
    runner = runners.choose(len(jobs), workers or settings.WORKERS, dask)
    runner.start()
    line = isolation(unsandboxed)
    from ..grading.execute import runner_ready

    runner_ready(settings.limits)  # SandboxUnavailable: a broken runner stops the class before its first submission
    print(label("cli.sandbox", isolation=line), flush=True)
    prepare(root, [get(name) for name in sorted({name for name, _ in jobs})])
    outcomes: list[Outcome] = []
    with contextlib.nullcontext(stop) if stop is not None else runners.interruptible() as stop:
        if not stop.is_set():
            for outcome in tqdm(
                runner.run(jobs, root, unsandboxed, stop), total=len(jobs), desc="autograde", unit="submission"
            ):
                outcomes.append(outcome)
        for index, outcome in enumerate(outcomes):  # one that failed beside other workers gets one more, unshared, try
            if not (outcome.ok or outcome.refused or stop.is_set()):
                outcomes[index] = autograde_one(root, outcome.assignment, outcome.student, unsandboxed=unsandboxed)
    outcomes.sort(key=lambda o: (o.assignment, o.student))
    if stop.is_set():
        print(label("cli.interrupted", graded=len(outcomes), left=len(jobs) - len(outcomes)), flush=True)
        raise Interrupted(outcomes)
    return outcomes


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped an autograde after the submissions in flight: `outcomes` are those graded."""

    def __init__(self, outcomes: list[Outcome]):
        super().__init__(f"{len(outcomes)} submission(s) graded before the stop")
        self.outcomes = outcomes


def feedback(
    root: Path,
    names: list[str] | None = None,
    *,
    students: list[str] | None = None,
    every: bool = False,
    release: bool = False,
) -> list[tuple[str, str]]:
    """`nbgrader generate_feedback` for the autograded submissions of the given assignments whose
    page is stale (`autograder.reporting.feedback_record`: never made, or its grade, comments, term
    lines or expected values moved since), or for all of them with `every` (in one nbgrader run where
    that is every assignment graded: one start-up, not one each); with `release`, then `nbgrader
    release_feedback` for the assignments of the pages made. The (assignment, student) pages made.

    `students` limits it to those students; a student with no autograded submission of an
    assignment named in `names` (or of any assignment, when `names` is empty) is an error."""
    from ..reporting.feedback_record import Record, inputs

    course = Course(Path(root))
    explicit = bool(names)
    names = names or assignments(root)
    graded = {
        name: {p.parent.name for p in (course.root / "autograded").glob(f"*/{name}") if p.is_dir()} for name in names
    }
    if students:
        missing = [f"autograded/{s}/{name}" for name in names for s in students if s not in graded[name]]
        if (explicit and missing) or not any(set(students) & graded[name] for name in names):
            raise FileNotFoundError(
                f"no autograded submission at {', '.join(missing)} (under {course.root}): autograde it first"
            )
    else:
        missing = [name for name in names if not graded[name]]
        if (explicit and missing) or not any(graded.values()):
            raise FileNotFoundError(
                f"no autograded submission of {', '.join(missing)} under {course.root / 'autograded'}: "
                "autograde first (python -m autograder autograde)"
            )
    keys = [(name, s) for name in names for s in sorted(graded[name]) if not students or s in students]
    record = Record.read(course.root)
    digests = inputs(course.root, keys)
    stale = keys if every else record.stale(course.root, digests, keys)
    todo = {name: {s for a, s in stale if a == name} for name in names}
    todo = {name: wanted for name, wanted in todo.items() if wanted}
    present = {p.name for p in (course.root / "autograded").glob("*/*") if p.is_dir()}
    if len(todo) > 1 and present <= set(todo) and all(todo[name] == graded[name] for name in todo):
        todo = {"*": set().union(*todo.values())}  # every page of every assignment graded: one nbgrader, one start-up
    everyone = set().union(*graded.values())
    for name, wanted in tqdm(
        todo.items(), desc="feedback", unit="run" if "*" in todo else "assignment", disable=not todo
    ):
        nbgrader(
            course.root,
            "generate_feedback",
            name,
            "--force",
            *_excluding((everyone if name == "*" else graded[name]) - wanted),
        )
    record.write({key: digests[key] for key in stale if key in digests})
    if release:  # the pages made, and no other: one release_feedback per assignment
        for name in sorted({a for a, _ in stale}):
            nbgrader(
                course.root, "release_feedback", name, *_excluding(graded[name] - {s for a, s in stale if a == name})
            )
    return stale


def _excluding(students: set[str]) -> list[str]:
    """nbgrader's option that leaves `students` out of one command (none where there are none)."""
    return [f"--CourseDirectory.student_id_exclude={','.join(sorted(students))}"] if students else []
