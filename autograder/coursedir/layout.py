"""The course folder layout, in one object (as nbgrader's CourseDirectory keeps its own).

A course root holds `course_config.py` and `nbgrader_config.py`; nbgrader's folders sit below it:
`source/<a>/`, `release/<a>/`, `submitted/<student>/<a>/`, `autograded/<student>/<a>/`,
`feedback/<student>/<a>/`, and the course's own `exports/`, `reports/` and `exchange/`.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import config
from .settings import Settings


class CourseNotFound(FileNotFoundError):
    """No course root where one was looked for."""


def failed_attempt_record(graded: Path) -> Path:
    """Beside a graded folder `autograded/<student>/<assignment>`: why its last autograde failed (a
    `FailedAttempt`), written by `autograder.intake.admission` and removed when one succeeds; the graded
    folder left there is the earlier attempt's."""
    return graded.parent / f".{graded.name}.failed.json"


@dataclass(frozen=True)
class FailedAttempt:
    """Why a submission's last autograde failed: admission `refused` it, or the grader failed on it;
    `transient` where the failure was the gradebook database's (another process's write got in the
    way), so that another try may succeed."""

    reason: str
    refused: bool
    transient: bool = False

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({"reason": self.reason, "refused": self.refused, "transient": self.transient}) + "\n",
            encoding="utf-8",
        )

    @classmethod
    def read(cls, path: Path) -> "FailedAttempt | None":
        """The record at `path` (`failed_attempt_record`), None where there is none."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(data["reason"]), bool(data["refused"]), bool(data.get("transient", False)))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return cls("(an unreadable record of a failed attempt)", False)


@dataclass(frozen=True)
class Course:
    """The folders of one course root."""

    root: Path

    @classmethod
    def find(cls, start: str | os.PathLike | None = None) -> "Course":
        """The nearest folder at or above `start` (default: the working folder) with course_config.py."""
        here = Path(start or os.getcwd()).resolve()
        for folder in (here, *here.parents):
            if (folder / "course_config.py").is_file():
                return cls(folder)
        raise CourseNotFound(
            f"no course_config.py in {here} or any folder above it: run from a course root, or pass --root"
        )

    @classmethod
    def at(cls, root: str | os.PathLike) -> "Course":
        """The course root `root` itself; a clear error when it is not one."""
        path = Path(root).resolve()
        if not (path / "course_config.py").is_file():
            raise CourseNotFound(f"{path} is not a course root: it has no course_config.py")
        return cls(path)

    def start_course(self, folder: str | os.PathLike, assignments: list[str] | None = None) -> "Course":
        """A new course root at `folder` (made, or emptied of an earlier one) with this course's
        settings files, optionally limited to `assignments`."""
        folder = Path(folder).resolve()
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True, mode=0o700)
        shutil.copyfile(self.root / "nbgrader_config.py", folder / "nbgrader_config.py")  # as the umask makes it
        text = (self.root / "course_config.py").read_text(encoding="utf-8")
        if assignments is not None:
            unknown = [name for name in assignments if name not in self.assignments]
            if unknown:
                raise KeyError(f"not assignments of the course: {unknown}")
            text += f"\nASSIGNMENTS = {list(assignments)!r}\n"
        (folder / "course_config.py").write_text(text, encoding="utf-8")
        return Course(folder)

    @property
    def demo(self) -> Path:
        """Where `python -m autograder demo` builds its sample course, apart from the real one."""
        return self.root / "demo-course"

    @property
    def settings(self) -> Settings:
        return config.load(self.root)

    @property
    def language(self) -> str:
        """The language this command speaks: the environment's COURSE_LANG, else course_config's
        (`config.language`). Each entry point reads it once and speaks it (`rnnkit.messages.speaking`);
        nbgrader's exporters are told it (`autograder.pipeline`), a runner gets it in its spawn request."""
        return config.language(self.root)

    @property
    def assignments(self) -> list[str]:
        """The assignments of course_config.py, in release order."""
        return list(self.settings.ASSIGNMENTS)

    def source(self, assignment: str) -> Path:
        return self.root / "source" / assignment

    def release(self, assignment: str) -> Path:
        return self.root / "release" / assignment

    def submitted(self, student: str, assignment: str) -> Path:
        return self.root / "submitted" / student / assignment

    def autograded(self, student: str, assignment: str) -> Path:
        return self.root / "autograded" / student / assignment

    def failed_attempt(self, student: str, assignment: str) -> Path:
        """The record of a submission whose last autograde failed (`failed_attempt_record`)."""
        return failed_attempt_record(self.autograded(student, assignment))

    def notebook(self, folder: Path, assignment: str) -> Path:
        """The assignment's notebook in one of its folders (every assignment has one notebook)."""
        return folder / f"{assignment}.ipynb"

    @property
    def exports(self) -> Path:
        return self.root / "exports"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @property
    def exchange(self) -> Path:
        return self.root / "exchange"

    def students(self, assignment: str) -> list[str]:
        """Students with a submission of `assignment` under submitted/."""
        base = self.root / "submitted"
        return sorted(p.parent.name for p in base.glob(f"*/{assignment}") if p.is_dir()) if base.is_dir() else []
