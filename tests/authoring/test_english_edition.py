"""The English edition holds no CJK character: on a machine without a CJK font each one is a box
(tofu) in JupyterLab and on the feedback page. Checked: every block of each assignment's
`notebook.md` but its Chinese (`%% zh`), the English notebooks built from them (source/ and
release/), the kit's English messages and the course's English labels, and the English sentences
each assignment writes beside its code (case labels, mistakes, branches, probe messages), from
which the kit's assignment catalogues are built."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from autograder.assignments import ALL

from ..assignments.test_sentences import SPECS, _labels, _written

REPO = Path(__file__).resolve().parents[2]
#: CJK punctuation, Extension A, the Unified Ideographs, the compatibility ideographs, full-width and half-width forms.
CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
TEMPLATES = sorted((REPO / "autograder" / "assignments").glob("*/notebook.md"))
NOTEBOOKS = sorted(path for folder in ("source", "release") for path in (REPO / folder).glob("*/*.ipynb"))
CATALOGUES = [REPO / "kit" / "rnnkit" / "messages" / "core.en.json", REPO / "autograder" / "labels" / "en.json"]


def cjk_lines(text: str) -> list[str]:
    """The lines of `text` that hold a CJK character."""
    return [line for line in text.splitlines() if CJK.search(line)]


def test_the_check_sees_every_range():
    samples = "\u3000、。〈〉㐀隐藏状态鿿豈（），：Ａａ｡ﾝ￮"
    assert all(CJK.search(char) for char in samples)
    assert not any(CJK.search(char) for char in "ASCII é ü ñ – — “ ” ’ … ⊙ ≈ ∂ → ← ½ ² α β Σ €")


def english_blocks(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of every line of a notebook template outside its `%% zh` blocks."""
    found, kind = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("%% "):
            kind = line.split()[1]
        elif kind != "zh":
            found.append((number, line))
    return found


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: path.parent.name)
def test_a_notebook_templates_english_blocks_hold_no_cjk(path):
    assert [(number, line) for number, line in english_blocks(path) if CJK.search(line)] == []


def test_every_template_has_chinese_blocks_the_check_leaves_alone():
    assert len(TEMPLATES) == len(ALL)
    assert all(any(CJK.search(line) for line in path.read_text(encoding="utf-8").splitlines()) for path in TEMPLATES)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.relative_to(REPO).as_posix())
def test_a_built_english_notebook_holds_no_cjk(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in notebook["cells"]]
    if any('lang="zh"' in source for source in sources):
        pytest.skip(f"{path.parent.parent.name}/ holds the Chinese edition (COURSE_LANG=zh release)")
    assert any('lang="en"' in source for source in sources), "the notebook records its edition"
    outputs = [
        json.dumps(output, ensure_ascii=False) for cell in notebook["cells"] for output in cell.get("outputs", [])
    ]
    assert [line for text in sources + outputs for line in cjk_lines(text)] == []


def test_the_built_notebooks_are_there():
    assert {path.parent.name for path in NOTEBOOKS} == set(ALL)


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda path: path.relative_to(REPO).as_posix())
def test_an_english_catalogue_holds_no_cjk(path):
    assert {key: text for key, text in json.loads(path.read_text(encoding="utf-8")).items() if CJK.search(text)} == {}


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_an_assignments_english_sentences_hold_no_cjk(spec):
    labels = [label["en"] if isinstance(label, dict) else label for label in _labels(spec)]
    sentences = [(where, english) for where, english, _, _ in _written(spec)]
    assert [label for label in labels if CJK.search(label)] == []
    assert [(where, english) for where, english in sentences if CJK.search(english)] == []
