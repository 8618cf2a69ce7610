"""One class, released and autograded once through real nbgrader, shared by the end-to-end tests.

It holds, for every assignment, the reference solution, the untouched stub, every catalogued
mistake and the corpus of correct variants and plausible mistakes (`tests/corpus/`), both a few
to a submission where they cannot touch each other's checks (`mutants`), and for ch12_bptt every
hostile submission of `tests/hostile.py` beside honest students, and the independent students and
planted copies of `tests/similar.py`. The course's files are fingerprinted before grading and
right after it, so tests can show that grading changed none of them.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import Outcome, autograde, release
from autograder.reporting import classdata
from autograder.vocabulary import catalogue
from rnnkit import messages

from . import corpus, hostile, similar

#: Short limits, so that loops and hangs cost seconds, and two
#: hidden cases per check besides the drawn branches, which lead every attempt
#: (`autograder.grading.checks.hidden_cases`): the course's six are drawn by the in-process tests
#: (tests/grading/test_catalogue.py, test_hidden_seeds.py, test_branches.py), so that the class of
#: some 300 submissions stays within the suite's time.
LIMITS = "\nCELL_TIMEOUT = 5\nCALL_TIMEOUT = 1\nSUBMISSION_TIMEOUT = 20\nHIDDEN_CASES = 2\n"
#: What grading may write in the course root; everything else must stay byte-identical.
GRADING_WRITES = ("gradebook.db", "autograded")


def reveals(text: str) -> bool:
    """Whether a feedback page's text shows a hidden case's expected value (either of the sentences
    `autograder.grading.reveal` adds: one failing value, or the whole value)."""
    flat = " ".join(text.split())
    for message_id in ("check.hidden_case_expected_at", "check.hidden_case_expected"):
        parts = messages.text(message_id, where="\x00", expected="\x00").split("\x00")
        if re.search(".+?".join(map(re.escape, parts)), flat):
            return True
    return False


def fingerprint(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under `root`, except what grading writes (links are
    not followed: a hostile submission's link to the gradebook is not a course file)."""
    files = {}
    for path in sorted(Path(root).rglob("*")):
        relative = path.relative_to(root)
        if (
            path.is_file()
            and not path.is_symlink()
            and relative.parts[0] not in GRADING_WRITES
            and "__pycache__" not in relative.parts
        ):
            files[str(relative)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


@dataclass
class GradedClass:
    root: Path
    outcomes: list[Outcome]
    kinds: dict[str, str]
    before: dict[str, str]
    after: dict[str, str]
    seconds: float
    table: dict = field(default_factory=dict)
    #: whether the class holds the sample of the mistakes only (`one_mistake_per_check`)
    sample: bool = False

    def rows(self, assignment: str, student: str) -> dict:
        """grade id -> classdata.Row of one submission."""
        return self.table[(assignment, student)]

    def holder(self, assignment: str, mistake: str) -> Mutants:
        """The submission of `assignment` in this class that holds `mistake` (an id)."""
        return holder(assignment, mistake, self.sample)


def one_mistake_per_check(assignment: str) -> list[str]:
    """The first catalogued mistake of each check of `assignment` (ids): the Chinese class's sample.
    Every mistake is graded through the sandbox in the English class, and every message the grader
    can say has its Chinese sentence (tests/kit/test_messages_zh.py); the sample shows that each
    check speaks Chinese in a Chinese course."""
    first: dict[str, str] = {}
    for entry in get(assignment).mistakes():
        first.setdefault(entry.function, entry.id)
    return list(first.values())


@dataclass(frozen=True)
class Mutants:
    """Catalogued mistakes of one assignment handed in together by student `mistakes-<number>`, each
    in place of its own function; no check is fed by two of them (`Mistake.checks`)."""

    assignment: str
    number: int
    mistakes: tuple[catalogue.Mistake, ...]

    @property
    def student(self) -> str:
        return f"mistakes-{self.number}"

    def others(self, mistake: str) -> set[str]:
        """The checks fed by the submission's mistakes other than `mistake` (an id): theirs to lose."""
        return {check for other in self.mistakes if other.id != mistake for check in other.checks}


def mutants(assignment: str, sample: bool = False) -> list[Mutants]:
    """The mutant submissions of `assignment`: each catalogued mistake (with `sample`, those of
    `one_mistake_per_check`), in catalogue order, joins the first submission none of whose checks it
    feeds, else starts one."""
    chosen = set(one_mistake_per_check(assignment)) if sample else None
    entries = [entry for entry in get(assignment).mistakes() if chosen is None or entry.id in chosen]
    packs = corpus.first_fit(entries, lambda a, b: not set(a.checks) & set(b.checks))
    return [Mutants(assignment, number, tuple(members)) for number, members in enumerate(packs, 1)]


def holder(assignment: str, mistake: str, sample: bool = False) -> Mutants:
    """The mutant submission of `assignment` that holds `mistake` (an id)."""
    return next(pack for pack in mutants(assignment, sample) if any(entry.id == mistake for entry in pack.mistakes))


def write_contract_submissions(root: Path, assignments: list[str], sample: bool = False) -> None:
    """Per released assignment: the reference solution, the untouched stub and its `mutants`."""
    for assignment in assignments:
        notebook = root / "release" / assignment / f"{assignment}.ipynb"
        write_submission(root, "reference", assignment, filled(notebook, get(assignment)))
        write_submission(root, "stub", assignment, None)
        for pack in mutants(assignment, sample):
            write_submission(root, pack.student, assignment, filled(notebook, get(assignment), *pack.mistakes))


def grade_class(root: Path, assignments: list[str], workers: int = 2) -> GradedClass:
    with (root / "course_config.py").open("a") as handle:
        handle.write(LIMITS)
    release(root, assignments)
    write_contract_submissions(root, assignments)
    corpus.write_all(root, assignments)
    kinds = hostile.write_all(root) if hostile.ASSIGNMENT in assignments else {}
    if similar.ASSIGNMENT in assignments:
        similar.write_all(root)
    before = fingerprint(root)
    start = time.perf_counter()
    outcomes = autograde(root, assignments, workers=workers)
    graded = GradedClass(root, outcomes, kinds, before, fingerprint(root), time.perf_counter() - start)
    table = defaultdict(dict)
    for row in classdata.collect(root):
        table[(row.assignment, row.student)][row.grade_id] = row
    graded.table = table
    return graded


def grade_class_zh(root: Path, assignments: list[str], workers: int = 2) -> GradedClass:
    """The Chinese edition's contract class: reference, stub and the first mistake of each check
    (`one_mistake_per_check`), released and autograded by the course's command line in a course whose COURSE_LANG is "zh"
    (a process of its own, as an instructor runs it). One hidden case per check: the public cases
    catch every catalogued mistake (tests/grading/test_public_cases.py), and the hidden cases' grading is
    the same in both languages (the English class draws six)."""
    with (root / "course_config.py").open("a") as handle:
        handle.write(LIMITS + '\nCOURSE_LANG = "zh"\nHIDDEN_CASES = 1\n')
    env = {**os.environ, "COURSE_LANG": ""}  # the course's own setting decides
    command = [sys.executable, "-m", "autograder", "--root", str(root)]

    def run(*args: str) -> None:
        result = subprocess.run([*command, *args], env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")

    run("release")
    write_contract_submissions(root, assignments, sample=True)
    start = time.perf_counter()
    run("autograde", "--workers", str(workers))
    graded = GradedClass(root, [], {}, {}, {}, time.perf_counter() - start, sample=True)
    for row in classdata.collect(root):
        graded.table.setdefault((row.assignment, row.student), {})[row.grade_id] = row
    return graded


def copy_class(root: Path, to: Path) -> Path:
    """A copy of the course root `root` at `to`, links kept as links; special files (the FIFO a hostile
    submission holds) are left out, since copying one fails or blocks."""

    def special(folder: str, names: list[str]) -> list[str]:
        return [
            name
            for name in names
            if not (os.path.islink(path := os.path.join(folder, name)) or os.path.isdir(path) or os.path.isfile(path))
        ]

    shutil.copytree(root, to, symlinks=True, ignore=special)
    return to
