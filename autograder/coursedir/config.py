"""Course settings: loading `course_config.py` (`autograder.coursedir.settings.Settings`), the course's paths
and its language. `autograder.pipeline` hands them to nbgrader."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from rnnkit.messages import LANGUAGES

from .settings import Settings, SettingsError

#: The instructor package, and the repository root where the committed `course_config.py` lives.
PACKAGE = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE.parent
DATA_DIR = REPO_ROOT / "data" / "part-iii"


@lru_cache(maxsize=None)
def load(root: str | os.PathLike = REPO_ROOT) -> Settings:
    """The settings of the course root `root` (its `course_config.py`, read once per process)."""
    path = Path(root) / "course_config.py"
    if not path.is_file():
        raise FileNotFoundError(f"no course_config.py in {root}: run from the course root")
    return Settings.read(path)


#: Where each assignment's folder is (docs/adding-an-assignment.md).
ASSIGNMENT_FOLDERS = PACKAGE / "assignments"


def checked(root: str | os.PathLike, known: Iterable[str] | None = None) -> Settings:
    """The settings of course root `root`, refused (SettingsError, FileNotFoundError) when the course
    cannot use them: a value of the wrong type, an unknown language, or an assignment that is not
    among the `known` ones (default: those with a folder, so that a command need not import every
    assignment to say so)."""
    settings = load(root)
    from ..term import policy  # (its zone database is read only here)

    there = sorted(
        known if known is not None else (path.parent.name for path in ASSIGNMENT_FOLDERS.glob("*/__init__.py"))
    )
    unknown = [name for name in settings.ASSIGNMENTS if name not in there]
    if unknown:
        raise SettingsError(
            f"course_config.py lists the assignment(s) {unknown}, which have no folder in {ASSIGNMENT_FOLDERS}; "
            f"the assignments there are {there} (docs/adding-an-assignment.md)"
        )
    policy.check(settings)
    return settings


def database_url(root: str | os.PathLike, settings: Settings) -> str:
    """The gradebook URL with a relative SQLite path resolved against the course root."""
    url = settings.DATABASE_URL
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url[len(prefix) :].startswith("/"):
        return prefix + str(Path(root).resolve() / url[len(prefix) :])
    return url


#: nbgrader's own templates, and the course's feedback template that names each test cell.
TEMPLATES = PACKAGE / "templates"


def language(root: str | os.PathLike = REPO_ROOT) -> str:
    """The course language, as an entry point resolves it (`layout.Course.language`): the environment's
    `COURSE_LANG` (for one command), else course_config's; ValueError when it is neither `en` nor `zh`."""
    lang = os.environ.get("COURSE_LANG") or load(root).COURSE_LANG
    if lang not in LANGUAGES:
        raise ValueError(f"COURSE_LANG is {lang!r}; it must be one of: {', '.join(LANGUAGES)}")
    return lang
