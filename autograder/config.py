"""Course settings: loading `course_config.py` and applying it to nbgrader."""
from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from types import ModuleType

#: The repository root, where the committed `course_config.py` lives.
REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "data" / "part-iii"


@lru_cache(maxsize=None)
def load(root: str | os.PathLike = REPO_ROOT) -> ModuleType:
    """Import `course_config.py` from the course root `root`."""
    path = Path(root) / "course_config.py"
    if not path.is_file():
        raise FileNotFoundError(f"no course_config.py in {root}: run from the course root")
    spec = importlib.util.spec_from_file_location(f"course_config_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def database_url(root: str | os.PathLike, settings: ModuleType) -> str:
    """The gradebook URL with a relative SQLite path resolved against the course root."""
    url = settings.DATABASE_URL
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url[len(prefix):].startswith("/"):
        return prefix + str(Path(root).resolve() / url[len(prefix):])
    return url


def points(assignment: str, grade_id: str, root: str | os.PathLike = REPO_ROOT) -> float:
    """Points of one graded cell: the check's own, unless course_config.POINTS overrides them."""
    from .assignments import get

    return get(assignment).points(grade_id, getattr(load(root), "POINTS", {}))


LANGUAGES = ("en", "zh")
#: nbgrader's own templates, and the course's feedback template that names each test cell.
TEMPLATES = Path(__file__).resolve().parent / "templates"


def language(root: str | os.PathLike = REPO_ROOT) -> str:
    """The course language: the environment's `COURSE_LANG`, else course_config's, else `en`."""
    lang = os.environ.get("COURSE_LANG") or getattr(load(root), "COURSE_LANG", "en")
    if lang not in LANGUAGES:
        raise ValueError(f"COURSE_LANG is {lang!r}; it must be one of: {', '.join(LANGUAGES)}")
    return lang


def use_language(root: str | os.PathLike) -> str:
    """Make the course language the one every message of this process (and its runners) uses."""
    os.environ["COURSE_LANG"] = lang = language(root)
    return lang


def nbgrader_settings(c, root: str, settings: ModuleType) -> None:
    """Fill an nbgrader traitlets config `c` from course settings."""
    use_language(root)
    c.CourseDirectory.root = root
    c.CourseDirectory.course_id = settings.COURSE_ID
    c.CourseDirectory.db_url = database_url(root, settings)
    for section in (c.Execute, c.ExecutePreprocessor):
        section.timeout = settings.CELL_TIMEOUT
        section.interrupt_on_timeout = True
    # nbgrader's default kernel arguments, plus a quiet kernel log (no transport warning per notebook)
    c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]
    from .layout import Course

    c.Validator.width = 110  # messages are wrapped at about 100 columns; nbgrader validate indents them by 4
    c.Exchange.root = str(ensure_exchange(Course(Path(root)).exchange))
    c.Autograde.autograde_preprocessors = _autograde_preprocessors()
    c.TrustedExecute.hidden_cases = settings.HIDDEN_CASES
    c.TrustedExecute.call_timeout = float(settings.CALL_TIMEOUT)
    c.TrustedExecute.cell_timeout = float(settings.CELL_TIMEOUT)
    c.TrustedExecute.memory_limit_mb = int(getattr(settings, "MEMORY_LIMIT_MB", 2048))
    c.TrustedExecute.output_limit_kb = int(getattr(settings, "OUTPUT_LIMIT_KB", 256))
    c.TrustedExecute.process_limit = int(getattr(settings, "PROCESS_LIMIT", 64))
    c.TrustedExecute.feedback_shows_hidden_case = bool(getattr(settings, "FEEDBACK_SHOWS_HIDDEN_CASE", True))
    import nbgrader

    c.HTMLExporter.template_name = "course_feedback"
    c.HTMLExporter.template_file = "course_feedback.html.j2"
    c.HTMLExporter.extra_template_basedirs = [str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),
                                              str(TEMPLATES)]


def ensure_exchange(path: Path) -> Path:
    """nbgrader's exchange folder: created when missing with mode 0o777, as `nbgrader release_assignment`
    makes it (every student writes submissions into it), so formgrader finds it from the start."""
    if not path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
            path.chmod(0o777)
        except OSError:
            pass  # a read-only course root: nbgrader names the missing exchange when it is used
    return path


def _autograde_preprocessors() -> list:
    """nbgrader's autograde pipeline with Execute replaced by the trusted one (student cells in a
    sandboxed runner, grade cells scored by the grader)."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute

    from .execute import TrustedExecute

    return [TrustedExecute if cls is Execute else cls for cls in Autograde.class_traits()["autograde_preprocessors"].default()]
