"""Written answers: nbgrader's manually graded markdown cells, with the book's answer as the rubric.

Each written answer (`spec.Written`, a `%% written` cell of the template) is released as nbgrader's
answer stub; its rubric, the 11.8/12.8 reference answer, is in the source notebook only. At
autograde `ShowRubric` puts the rubric, as a markdown cell of the instructor's, right below the
student's answer in the autograded notebook: formgrader shows it to the TA beside the answer, and the
feedback shows it to the student with the TA's score and comment.
"""

from __future__ import annotations

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from ..assignments import get
from ..coursedir import config
from ..labels import label
from ..vocabulary.spec import Assignment
from .build import rubric


def rubric_cell(spec: Assignment, name: str, lang: str) -> nbformat.NotebookNode:
    """The markdown cell that shows one written answer's rubric."""
    text = "\n".join(f"> {line}" if line.strip() else ">" for line in rubric(spec, name, lang).splitlines())
    return nbformat.v4.new_markdown_cell(f"{label('written.rubric')}\n\n{text}")


class ShowRubric(NbGraderPreprocessor):
    """In autograde: the rubric below each written answer (the answer itself untouched)."""

    course_root = Unicode("", help="The course root (its language is the rubric's).").tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        spec = get(resources["nbgrader"]["assignment"])
        names = {answer.name for answer in spec.written}
        lang = config.language(self.course_root or config.REPO_ROOT)
        cells = []
        for cell in nb.cells:
            cells.append(cell)
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if cell.cell_type == "markdown" and grade_id in names:
                cells.append(rubric_cell(spec, grade_id, lang))
        nb.cells = cells
        return nb, resources
