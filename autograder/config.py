"""Course settings: loading `course_config.py` (`autograder.settings.Settings`) and applying it to nbgrader."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from rnnkit.messages import LANGUAGES

from .settings import Settings

#: The repository root, where the committed `course_config.py` lives.
REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "data" / "part-iii"


@lru_cache(maxsize=None)
def load(root: str | os.PathLike = REPO_ROOT) -> Settings:
    """The settings of the course root `root` (its `course_config.py`, read once per process)."""
    path = Path(root) / "course_config.py"
    if not path.is_file():
        raise FileNotFoundError(f"no course_config.py in {root}: run from the course root")
    return Settings.read(path)


def database_url(root: str | os.PathLike, settings: Settings) -> str:
    """The gradebook URL with a relative SQLite path resolved against the course root."""
    url = settings.DATABASE_URL
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url[len(prefix):].startswith("/"):
        return prefix + str(Path(root).resolve() / url[len(prefix):])
    return url


def points(assignment: str, grade_id: str, root: str | os.PathLike = REPO_ROOT) -> float:
    """Points of one graded cell: the check's own, unless course_config.POINTS overrides them."""
    from .assignments import get

    return get(assignment).points(grade_id, load(root).POINTS)


#: nbgrader's own templates, and the course's feedback template that names each test cell.
TEMPLATES = Path(__file__).resolve().parent / "templates"


def language(root: str | os.PathLike = REPO_ROOT) -> str:
    """The course language: the environment's `COURSE_LANG`, else course_config's, else `en`."""
    lang = os.environ.get("COURSE_LANG") or load(root).COURSE_LANG
    if lang not in LANGUAGES:
        raise ValueError(f"COURSE_LANG is {lang!r}; it must be one of: {', '.join(LANGUAGES)}")
    return lang


def use_language(root: str | os.PathLike) -> str:
    """Make the course language the one every message of this process (and its runners) uses."""
    os.environ["COURSE_LANG"] = lang = language(root)
    return lang


def nbgrader_settings(c, root: str, settings: Settings) -> None:
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

    c.Validator.width = 110  # messages are wrapped at 83 columns (messages.WIDTH); nbgrader validate indents them by 4
    c.Exchange.root = str(ensure_exchange(Course(Path(root)).exchange))
    c.Autograde.autograde_preprocessors = _autograde_preprocessors()
    c.Autograde.sanitize_preprocessors = _sanitize_preprocessors()
    # submissions in: links, foreign owners and misleading LMS names refused before any copy
    from . import admission

    admission.install()
    c.ExchangeFactory.collect = "autograder.collect.SafeCollect"
    c.ZipCollectApp.collector_plugin = "autograder.collect.RosterCollector"
    c.TrustedExecute.course_root = c.SanitizeStudentHTML.course_root = c.ShowRubric.course_root = root
    c.TrustedExecute.submission_timeout = float(settings.SUBMISSION_TIMEOUT)
    c.TrustedExecute.runner_restarts = settings.RUNNER_RESTARTS
    c.TrustedExecute.work_limit_mb = settings.WORK_LIMIT_MB
    c.TrustedExecute.hidden_cases = settings.HIDDEN_CASES
    c.TrustedExecute.call_timeout = float(settings.CALL_TIMEOUT)
    c.TrustedExecute.cell_timeout = float(settings.CELL_TIMEOUT)
    c.TrustedExecute.memory_limit_mb = settings.MEMORY_LIMIT_MB
    c.TrustedExecute.output_limit_kb = settings.OUTPUT_LIMIT_KB
    c.TrustedExecute.process_limit = settings.PROCESS_LIMIT
    c.TrustedExecute.course_id = settings.COURSE_ID
    c.RevealExpected.shows_expected = settings.FEEDBACK_SHOWS_EXPECTED
    c.RevealExpected.course_id = settings.COURSE_ID
    from nbgrader.converters.generate_feedback import GenerateFeedback

    from .reveal import RevealExpected

    c.GenerateFeedback.preprocessors = [*GenerateFeedback.class_traits()["preprocessors"].default(), RevealExpected]
    import nbgrader

    # The course's feedback template for `nbgrader generate_feedback` only (its own exporter class), so
    # every other HTMLExporter (formgrader's submission view) keeps nbgrader's template.
    c.GenerateFeedback.exporter_class = f"{__name__}.FeedbackExporter"
    c.FeedbackExporter.template_name = "course_feedback"
    c.FeedbackExporter.template_file = "course_feedback.html.j2"
    c.FeedbackExporter.filters = {"label": "autograder.labels.label"}  # the page's words in the course language
    c.FeedbackExporter.extra_template_basedirs = [str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),
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


def _sanitize_preprocessors() -> list:
    """nbgrader's sanitize pass with the nbgrader metadata of the instructor's cells put back from
    the gradebook first (`sanitize.RestoreCellMetadata`), so that a grade cell is known by the
    spec, never by what the submission says of itself."""
    from nbgrader.converters.autograde import Autograde

    from .sanitize import RestoreCellMetadata

    return [RestoreCellMetadata, *Autograde.class_traits()["sanitize_preprocessors"].default()]


def _autograde_preprocessors() -> list:
    """nbgrader's autograde pipeline with Execute replaced by the trusted one (student cells in a
    sandboxed runner, grade cells scored by the grader), what the student wrote sanitised right
    after it, and the rubric shown below each written answer."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute

    from .execute import TrustedExecute
    from .sanitize import SanitizeStudentHTML
    from .written import ShowRubric

    pipeline = [TrustedExecute if cls is Execute else cls for cls in Autograde.class_traits()["autograde_preprocessors"].default()]
    return [*pipeline[:1], SanitizeStudentHTML, ShowRubric, *pipeline[1:]]


def __getattr__(name: str):
    """`FeedbackExporter`, the HTMLExporter of `nbgrader generate_feedback` (configured as
    `c.FeedbackExporter`), made on first use so that importing this module needs no nbconvert."""
    if name != "FeedbackExporter":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nbconvert.exporters import HTMLExporter

    global FeedbackExporter
    FeedbackExporter = type("FeedbackExporter", (HTMLExporter,), {"__module__": __name__, "__doc__": "nbgrader's feedback HTMLExporter with the course's template."})
    return FeedbackExporter
