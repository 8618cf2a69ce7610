"""What a submission says of itself, made harmless before any page renders it.

* `RestoreCellMetadata` (first in nbgrader's sanitize pass): every cell whose grade id the
  gradebook knows gets the nbgrader metadata the instructor's notebook gave it, so a test cell
  edited to `grade: false` (or a solution cell made locked) is graded as released.
* `SanitizeStudentHTML` (after the trusted execute step): markdown and raw cells a student wrote or
  changed, and the `text/html`/`text/markdown` outputs of student code, are cleaned with bleach
  (nbconvert's `SanitizeHTML`); script, event handlers and `javascript:` links do not survive, and
  any other rich output (SVG, JavaScript, widgets) is dropped. Plain text, PNG and JPEG stay. The
  result is written into the autograded notebook itself, so the feedback page and formgrader's
  submission view, which builds an exporter of its own, both show the cleaned notebook.
* `clean_markdown`, the feedback page's filter for gradebook comments (a TA's markdown, admission's
  reasons naming a student's files): rendered and cleaned as a student's markdown cell is.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import bleach
import nbformat
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbgrader.api import GradeCell, MissingEntry, SolutionCell, SourceCell, TaskCell
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Unicode

from ..coursedir.gradebook import CourseGradebook
from ..labels import label

#: Tags a student's markdown or HTML output may keep (attributes: bleach's defaults plus these).
TAGS = sorted(
    set(bleach.ALLOWED_TAGS)
    | {
        "p",
        "div",
        "span",
        "br",
        "hr",
        "pre",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "caption",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "img",
        "del",
        "sup",
        "sub",
        "details",
        "summary",
    }
)
ATTRIBUTES = {**bleach.ALLOWED_ATTRIBUTES, "img": ["src", "alt", "title"], "th": ["align", "scope"], "td": ["align"]}


class RestoreCellMetadata(NbGraderPreprocessor):
    """Put back the instructor's nbgrader metadata on every cell whose grade id is in the gradebook,
    and take it off every other cell. Copying a cell in Jupyter copies its metadata: of the cells
    that share a grade id the last keeps it (as nbgrader's DeduplicateIds keeps it), the others run
    as ordinary cells, each followed by a note that says so."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with CourseGradebook(info["db_url"]) as gb:
            try:
                gb.find_notebook(info["notebook"], info["assignment"])
            except MissingEntry:
                return nb, resources
            sources, grades, solutions, tasks = (
                gb.cells(kind, info["notebook"], info["assignment"])
                for kind in (SourceCell, GradeCell, SolutionCell, TaskCell)
            )
            grades = {name: cell.max_score for name, cell in grades.items()}
            restored, copies = set(), []
            for cell in reversed(nb.cells):
                name = (
                    cell.metadata.get("nbgrader", {}).get("grade_id")
                    if isinstance(cell.metadata.get("nbgrader"), dict)
                    else None
                )
                if name in sources and name not in restored:
                    cell.metadata["nbgrader"] = _released_metadata(
                        sources[name], grades.get(name), name in solutions, name in tasks
                    )
                    restored.add(name)
                elif "nbgrader" in cell.metadata:
                    del cell.metadata["nbgrader"]
                    if name in sources:
                        copies.append((cell, name))
            for cell, name in copies:
                self.log.warning(
                    "%s of %s: the cell %s appears more than once; its earlier copies run as ordinary cells",
                    info["assignment"],
                    info["student"],
                    name,
                )
                nb.cells.insert(
                    nb.cells.index(cell) + 1, nbformat.v4.new_markdown_cell(label("grader.copied_cell", grade_id=name))
                )
        return nb, resources


def _released_metadata(source, points: float | None, solution: bool, task: bool) -> dict:
    """The nbgrader metadata (schema 3) of one released cell, from its gradebook records."""
    metadata = {
        "grade": points is not None,
        "grade_id": source.name,
        "locked": bool(source.locked),
        "schema_version": 3,
        "solution": solution,
        "task": task,
    }
    if points is not None:
        metadata["points"] = points
    if source.checksum:
        metadata["checksum"] = source.checksum
    return metadata


#: How many cleaned texts a process remembers (the most recently used), and the longest it remembers.
CLEANED_KEPT, CLEANED_TEXT_LIMIT = 256, 256 * 1024
_CLEANED: OrderedDict[tuple[str, str], str] = OrderedDict()


class SanitizeStudentHTML(SanitizeHTML):
    """nbconvert's HTML sanitiser for what the student wrote; the instructor's own markdown cells
    (the same text as in the source notebook) are left as they are."""

    enabled = Bool(True)  # nbgrader registers its preprocessors without enabling them (nbconvert's default is off)
    course_root = Unicode("", help="The course root, whose source/ notebooks hold the instructor's markdown.").tag(
        config=True
    )

    def __init__(self, **kwargs):
        super().__init__(tags=TAGS, attributes=ATTRIBUTES, strip=False, **kwargs)
        self._trusted: set[str] = set()

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        path = Path(self.course_root) / "source" / info["assignment"] / f"{info['notebook']}.ipynb"
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            self._trusted = {_text(cell["source"]) for cell in cells if cell.get("cell_type") == "markdown"}
        except (OSError, ValueError, KeyError, TypeError):
            self._trusted = set()
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "markdown":
            if cell.source not in self._trusted:
                cell.source = self.clean_markdown(cell.source)
                cell.pop("attachments", None)
            return cell, resources
        return super().preprocess_cell(cell, resources, index)

    def sanitize_html_tags(self, html_str):
        """bleach's cleaning of `html_str` (nbconvert's), remembered by the text and the settings it was
        cleaned with: every honest submission shows the same tables, and cleaning one costs tens of
        milliseconds. A function of its inputs alone, so a remembered result is the one bleach gives."""
        if not isinstance(html_str, str) or len(html_str) > CLEANED_TEXT_LIMIT:
            return super().sanitize_html_tags(html_str)
        key = (html_str, repr((self.tags, self.attributes, self.strip, self.strip_comments, self.styles)))
        if key in _CLEANED:
            _CLEANED.move_to_end(key)
            return _CLEANED[key]
        cleaned = _CLEANED[key] = super().sanitize_html_tags(html_str)
        while len(_CLEANED) > CLEANED_KEPT:
            _CLEANED.popitem(last=False)
        return cleaned

    def clean_markdown(self, text: str) -> str:
        """`text` rendered from markdown to HTML, then cleaned (so that markdown links and images are
        cleaned as the HTML they become)."""
        return self.sanitize_html_tags(markdown2html_mistune(text))


def clean_markdown(text: str) -> str:
    """`SanitizeStudentHTML.clean_markdown` with the course's tags and attributes (a jinja filter)."""
    return SanitizeStudentHTML().clean_markdown(text)


def warm() -> None:
    """Import and compile what a process's first cleaning would (mistune's plugins, bleach's HTML
    parser and its patterns), in a process that forks the commands that clean (`autograder.commands.warm`)."""
    clean_markdown(
        "A *note*, a [link](https://example.org) and `code`:\n\n- [ ] a\n\n| a | b |\n|---|---|\n| 1 | <b>2</b> |\n"
    )


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source)
