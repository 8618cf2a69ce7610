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


def nbgrader_settings(c, root: str, settings: ModuleType) -> None:
    """Fill an nbgrader traitlets config `c` from course settings."""
    c.CourseDirectory.root = root
    c.CourseDirectory.course_id = settings.COURSE_ID
    c.CourseDirectory.db_url = database_url(root, settings)
    for section in (c.Execute, c.ExecutePreprocessor):
        section.timeout = settings.CELL_TIMEOUT
        section.interrupt_on_timeout = True
    # nbgrader's default kernel arguments, plus a quiet kernel log (no transport warning per notebook)
    c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]
    from .layout import Course

    c.Exchange.root = str(ensure_exchange(Course(Path(root)).exchange))
    c.Autograde.autograde_preprocessors = _autograde_preprocessors()
    c.TrustedExecute.hidden_cases = settings.HIDDEN_CASES
    c.TrustedExecute.call_timeout = float(settings.CALL_TIMEOUT)
    c.TrustedExecute.cell_timeout = float(settings.CELL_TIMEOUT)
    c.TrustedExecute.memory_limit_mb = int(getattr(settings, "MEMORY_LIMIT_MB", 2048))
    c.TrustedExecute.output_limit_kb = int(getattr(settings, "OUTPUT_LIMIT_KB", 256))
    c.TrustedExecute.process_limit = int(getattr(settings, "PROCESS_LIMIT", 64))


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
