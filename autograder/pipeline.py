"""The course's nbgrader pipeline, defined once: `configure` fills nbgrader's traitlets config from
`course_config.py` (through `autograder.coursedir.settings.Settings`) and the course language
(`autograder.coursedir.layout.Course.language`, read once here), which the exporters speak.

The root's `nbgrader_config.py` calls it, so plain `nbgrader` commands, formgrader and
`python -m autograder` (which loads that file) run the same preprocessors with the same settings;
whatever it raises stops the command there (see `nbgrader_config.py`).
"""

from __future__ import annotations

import functools
from pathlib import Path

import nbgrader
from nbconvert.exporters import Exporter, HTMLExporter, NotebookExporter
from nbgrader.converters.autograde import Autograde
from nbgrader.converters.generate_feedback import GenerateFeedback
from nbgrader.preprocessors import CheckCellMetadata, Execute
from traitlets import Enum

from rnnkit import messages
from rnnkit.messages import LANGUAGES

from .assignments import ALL
from .authoring.written import ShowRubric
from .coursedir import privacy
from .coursedir.config import TEMPLATES, checked, database_url
from .coursedir.layout import Course
from .coursedir.settings import Settings
from .grading import attempts, execute
from .grading.reveal import RevealExpected
from .intake import admission, bookkeeping
from .intake.sanitize import RestoreCellMetadata, SanitizeStudentHTML
from .reporting.feedback_page import AwaitingTA
from .term.notes import TermNotes

#: nbgrader's formgrader templates: its submission view (`formgrade`) and its feedback page (`feedback`), which the course's extends.
FORMGRADER_TEMPLATES = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"


class CourseExporter(Exporter):
    """An exporter that speaks the course language (`rnnkit.messages.speaking`) while it converts a
    notebook: its preprocessors' messages, the runner's (`execute.TrustedExecute`) and its template's
    labels."""

    language = Enum(LANGUAGES, Settings.COURSE_LANG, help=Settings.help("COURSE_LANG")).tag(config=True)

    def from_notebook_node(self, nb, resources=None, **kw):
        with messages.speaking(self.language):
            return super().from_notebook_node(nb, resources, **kw)


class GradingExporter(CourseExporter, NotebookExporter):
    """nbgrader's autograde exporter, speaking the course language."""


class FeedbackExporter(CourseExporter, HTMLExporter):
    """nbgrader's feedback HTMLExporter with the course's template, speaking the course language."""


def configure(c, root: str) -> None:
    """Fill an nbgrader traitlets config `c` from the settings of course root `root`; raises (and so
    stops the command) when the course cannot use them (`autograder.coursedir.config.checked`) or other
    accounts could read what it keeps (`autograder.coursedir.privacy.enter`)."""
    settings = checked(root, ALL)
    privacy.enter(root, settings)
    nbgrader_settings(c, root, settings)


def nbgrader_settings(c, root: str, settings: Settings) -> None:
    """Fill an nbgrader traitlets config `c` from course settings."""
    course = Course(Path(root))
    c.CourseExporter.language = course.language  # read once for the whole nbgrader command
    c.CourseDirectory.root = root
    c.CourseDirectory.course_id = settings.COURSE_ID
    c.CourseDirectory.db_url = database_url(root, settings)
    for section in (c.Execute, c.ExecutePreprocessor):
        section.timeout = settings.CELL_TIMEOUT
        section.interrupt_on_timeout = True
    # nbgrader's default kernel arguments, plus a quiet kernel log (no transport warning per notebook)
    c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]
    c.Validator.width = 110  # messages are wrapped at 83 columns (messages.WIDTH); nbgrader validate indents them by 4
    c.Exchange.root = str(ensure_exchange(course.exchange))
    # nbgrader's modes for what it writes in the course (read as octal digits): the instructor's, or
    # readable by the TAs' group (its own defaults, 444 and 644, let every account read them)
    c.Autograde.permissions = 440 if settings.TA_GROUP else 400
    c.GenerateAssignment.permissions = c.GenerateFeedback.permissions = 640 if settings.TA_GROUP else 600
    c.ExchangeFactory.release_feedback = "autograder.coursedir.exchange_modes.ReleaseFeedback"  # 0644 in the exchange
    # the notebook validated once after each pass's preprocessors, not after every one of them
    c.Exporter.optimistic_validation = True
    c.Autograde.exporter_class = f"{__name__}.GradingExporter"
    c.Autograde.autograde_preprocessors = _autograde_preprocessors()
    # plain `nbgrader generate_assignment` makes the course secret too, as `python -m autograder release` does
    c.GenerateAssignment.pre_convert_hook = functools.partial(_make_secret, root)
    c.Autograde.sanitize_preprocessors = _sanitize_preprocessors()
    # submissions in: links, foreign owners and misleading LMS names refused before any copy
    admission.install()
    c.ExchangeFactory.collect = "autograder.intake.collect.SafeCollect"
    c.ZipCollectApp.collector_plugin = "autograder.intake.collect.RosterCollector"
    c.TrustedExecute.course_root = c.SanitizeStudentHTML.course_root = c.ShowRubric.course_root = root
    c.TrustedExecute.settings = settings
    c.RevealExpected.shows_expected = settings.FEEDBACK_SHOWS_EXPECTED
    c.RevealExpected.settings = c.SaveAutoGrades.settings = c.AssignLatePenalties.settings = c.TermNotes.settings = (
        settings
    )
    # after nbgrader's GetGrades: a grade that waits for a TA is shown as waiting, not as a score of 0
    c.GenerateFeedback.preprocessors = [
        *GenerateFeedback.class_traits()["preprocessors"].default(),
        AwaitingTA,
        RevealExpected,
        TermNotes,
    ]
    # The course's feedback template for `nbgrader generate_feedback` only (its own exporter class), so
    # every other HTMLExporter (formgrader's submission view) keeps nbgrader's template.
    c.GenerateFeedback.exporter_class = f"{__name__}.FeedbackExporter"
    c.FeedbackExporter.template_name = "course_feedback"
    c.FeedbackExporter.template_file = "course_feedback.html.j2"
    # words in the course language, clean comments, tables in scroll regions and Chinese marked in the English edition,
    # MathJax inlined where the page has math
    c.FeedbackExporter.filters = {
        "label": "autograder.labels.label",
        "clean_markdown": "autograder.intake.sanitize.clean_markdown",
        "accessible_html": "autograder.reporting.feedback_page.accessible_html",
        "has_math": "autograder.reporting.feedback_page.has_math",
    }
    c.FeedbackExporter.extra_template_basedirs = [str(FORMGRADER_TEMPLATES), str(TEMPLATES)]
    # formgrader's submission view (its own HTMLExporter, nbgrader's formgrade template): MathJax from the course's
    # Jupyter server, not a CDN (templates/formgrade/mathjax.html.j2, found before nbconvert's macro of that name;
    # formgrader's own setting of this list, its templates only, is replaced by this one, read after it)
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(FORMGRADER_TEMPLATES)]


def _make_secret(root: str, **_hook) -> None:
    """nbgrader's pre-convert hook of generate_assignment (called with the assignment, the student
    and the notebooks): the course secret, made unless there is one."""
    attempts.create_secret(root)


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


def _lean(pipeline: list) -> list:
    """`execute.CheckCellMetadata` in place of nbgrader's (the same checks, the schema compiled once)
    and `autograder.intake.bookkeeping`'s gradebook steps in place of nbgrader's (the same steps, on the
    process's gradebook engine)."""
    return [
        execute.CheckCellMetadata if cls is CheckCellMetadata else bookkeeping.REPLACES.get(cls, cls)
        for cls in pipeline
    ]


def _sanitize_preprocessors() -> list:
    """nbgrader's sanitize pass with the nbgrader metadata of the instructor's cells put back from
    the gradebook first (`sanitize.RestoreCellMetadata`), so that a grade cell is known by the
    spec, never by what the submission says of itself."""
    return _lean([RestoreCellMetadata, *Autograde.class_traits()["sanitize_preprocessors"].default()])


def _autograde_preprocessors() -> list:
    """nbgrader's autograde pipeline with Execute replaced by the trusted one (student cells in a
    sandboxed runner, grade cells scored by the grader), what the student wrote sanitised right
    after it, and the rubric shown below each written answer."""
    pipeline = [
        execute.TrustedExecute if cls is Execute else cls
        for cls in Autograde.class_traits()["autograde_preprocessors"].default()
    ]
    return _lean([*pipeline[:1], SanitizeStudentHTML, ShowRubric, *pipeline[1:]])
