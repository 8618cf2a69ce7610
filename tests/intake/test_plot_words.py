"""A plot's words on their way to the feedback page: the grader keeps a PNG's text alternative (its
metadata's `alt`, a bounded string, nothing else of the runner's metadata), also where the PNG is the
kept figure of the reference run; the sanitiser lets the table of the values drawn through as it is
(details, summary, table, caption, th with its scope) and no other new attribute; and an alt that a
student's code forged renders on the feedback page as text, never as markup."""

from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path

import bleach
import nbformat
import pytest
from matplotlib.figure import Figure
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

from autograder.intake.sanitize import ATTRIBUTES, SanitizeStudentHTML
from autograder.sandbox.replies import ALT_CHARS, notebook_output, output_size
from autograder.sandbox.session import Session
from rnnkit import messages
from rnnkit.figures import KEY_METADATA, MARKER
from rnnkit.jail.limits import Limits
from rnnkit.plots import table_html, views, words_of

from ..conftest import make_course
from .test_hostile import _LiveMarkup

KEY = "f" * 64
PNG = base64.b64encode(b"\x89PNG kept").decode()
HOSTILE_ALTS = [
    '"><script>alert(1)</script>',
    '" onerror="alert(2)',
    "' onerror='alert(3)' x='",
    "</div><img src=x onerror=alert(4)>",
    "&quot; onerror=&quot;alert(5)",
]


def raw_figure(metadata: dict) -> dict:
    """A figure's output as a runner sends it for a figure the grader keeps: the marker of its key."""
    return {
        "output_type": "display_data",
        "data": {"image/png": MARKER + KEY, "text/plain": "<Figure size 640x480 with 1 Axes>"},
        "metadata": metadata,
    }


def plot_table(lang: str) -> str:
    """The table of a notebook plot (ch11's blue clue) in `lang`."""
    figure = Figure()
    axes = figure.subplots()
    axes.plot([1, 2, 3, 4, 5], [1, 0.5, 0.25, 0.125, 0.0625], gid="blue")
    axes.axhline(0.125, gid="bias")
    axes.set_xticks([1, 2, 3, 4, 5], ["1\nblue", "2\nfiller", "3\nfiller", "4\nkey", "5\nis"])
    with messages.speaking(lang):
        found = views(figure)
        return table_html(words_of("blue_clue", found), found)


# --------------------------------------------------------------------------- what the grader keeps


def test_the_grader_keeps_a_pngs_alt_and_no_other_metadata():
    node = notebook_output(
        raw_figure(
            {
                "image/png": {"alt": "a plot", "width": "1 onerror=alert(1)", KEY_METADATA: KEY, "unconfined": True},
                "filenames": {"image/png": "../x.png"},
                "alt": "top level",
            }
        ),
        {KEY: PNG},
    )
    assert node.data["image/png"] == PNG and node.metadata == {"image/png": {"alt": "a plot"}}


@pytest.mark.parametrize(
    "metadata",
    [
        {"image/png": {"alt": ["a", "list"]}},
        {"image/png": {"alt": 7}},
        {"image/png": "alt"},
        ["alt"],
        None,
        {"text/plain": {"alt": "not a png's"}},
    ],
)
def test_an_alt_that_is_not_a_pngs_string_is_dropped(metadata):
    assert notebook_output(raw_figure(metadata), {KEY: PNG}).metadata == {}


def test_an_alt_goes_with_its_png():
    """A marker of a key the grader does not keep brings back no image, and no alt either."""
    node = notebook_output(raw_figure({"image/png": {"alt": "a plot"}}), {})
    assert node.data == {"text/plain": "<Figure size 640x480 with 1 Axes>"} and node.metadata == {}


def test_an_alt_is_cut_and_counted_in_the_outputs_size():
    long = notebook_output(raw_figure({"image/png": {"alt": "x" * (3 * ALT_CHARS)}}), {KEY: PNG})
    bare = notebook_output(raw_figure({}), {KEY: PNG})
    assert long.metadata["image/png"]["alt"] == "x" * ALT_CHARS
    assert output_size(long) - output_size(bare) == ALT_CHARS + 2  # its characters and the JSON quotes around them


# --------------------------------------------------------------------------- the sanitiser


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sanitiser_keeps_a_plots_table_as_it_is(lang):
    table = plot_table(lang)
    assert "<details><summary>" in table and '<th scope="row">1 blue</th>' in table and "<caption>" in table
    assert SanitizeStudentHTML().sanitize_html_tags(table) == table


def test_the_sanitiser_lets_no_other_attribute_of_those_elements_through():
    assert {tag: ATTRIBUTES.get(tag) for tag in ("details", "summary", "caption", "th")} == {
        "details": None,
        "summary": None,
        "caption": None,
        "th": ["align", "scope"],
    }
    hostile = (
        '<details open ontoggle="alert(1)" style="x"><summary onclick="alert(2)" id="s">s</summary>'
        '<table onclick="alert(3)"><caption onmouseover="alert(4)" class="c">c</caption><tr>'
        '<th scope="col" onclick="alert(5)" abbr="a" style="x">h</th><td onclick="alert(6)">d</td></tr></table></details>'
    )
    assert _LiveMarkup(hostile).found  # the test can fail
    cleaned = SanitizeStudentHTML().sanitize_html_tags(hostile)
    assert cleaned == (
        '<details><summary>s</summary><table><caption>c</caption><tbody><tr><th scope="col">h</th><td>d</td></tr></tbody>'
        "</table></details>"
    )


def test_a_cleaned_text_remembered_is_cleaned_again_as_bleach_cleans_it_and_settings_are_not_shared():
    hostile = '<table onclick="alert(1)"><tr><td><script>alert(2)</script>x</td></tr></table>'
    sanitiser = SanitizeStudentHTML()
    first, again = sanitiser.sanitize_html_tags(hostile), SanitizeStudentHTML().sanitize_html_tags(hostile)
    assert first == again == bleach.clean(hostile, tags=sanitiser.tags, attributes=sanitiser.attributes, strip=False)
    assert "onclick" not in again and "<script>" not in again
    stripping = SanitizeStudentHTML()
    stripping.strip = True  # other settings: cleaned afresh, not the text remembered for the first
    assert stripping.sanitize_html_tags(hostile) == bleach.clean(
        hostile, tags=sanitiser.tags, attributes=sanitiser.attributes, strip=True
    )
    assert stripping.sanitize_html_tags(hostile) != first


# --------------------------------------------------------------------------- the feedback page


class Images(HTMLParser):
    """The alt of each PNG image of a page, as a browser reads the attribute."""

    def __init__(self, text: str):
        super().__init__()
        self.alts: list[str | None] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img" and (attrs.get("src") or "").startswith("data:image/png"):
            self.alts.append(attrs.get("alt"))


def feedback_page(root: Path, outputs: list) -> str:
    """The page the course's `nbgrader generate_feedback` makes (its configuration, exporter and
    template) of a notebook with one code cell whose outputs are `outputs`, sanitised as autograde
    leaves them."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    feedback = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = feedback.exporter_class(parent=feedback, config=feedback.config)
    cell = nbformat.v4.new_code_cell("show_plot('blue_clue')", outputs=outputs)
    SanitizeStudentHTML().sanitize_code_outputs(cell.outputs)
    notebook = nbformat.v4.new_notebook(cells=[cell])
    page, _ = exporter.from_notebook_node(
        notebook, resources={"nbgrader": {"notebook": "nb", "score": 0, "max_score": 0, "late_penalty": 0}}
    )
    return page


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return make_course(tmp_path_factory.mktemp("plot-words") / "course", [])


def test_a_forged_alt_renders_as_text_on_the_feedback_page(course):
    def page(alts: list[str]) -> str:
        return feedback_page(
            course,
            [
                notebook_output(raw_figure({"image/png": {"alt": alt, "width": '1 onerror="alert(6)"'}}), {KEY: PNG})
                for alt in alts
            ],
        )

    # written into the page as they are, each would be markup (the last one, escaped once, reads back as written only if escaped again)
    assert all(
        any(_LiveMarkup(f"<img src=x alt={quote}{alt}{quote}>").found for quote in ('"', "'", ""))
        for alt in HOSTILE_ALTS[:4]
    )
    hostile, plain = page(HOSTILE_ALTS), page([f"plot {index}" for index in range(len(HOSTILE_ALTS))])
    assert Images(hostile).alts == HOSTILE_ALTS  # each alt is one attribute's value, as the student wrote it
    assert _LiveMarkup(hostile).found == _LiveMarkup(plain).found  # the template's own scripts, nothing more
    assert "alert(" not in plain and "<script>alert(1)" not in hostile


def test_a_plots_words_reach_the_feedback_page(course):
    table = plot_table("en")
    outputs = [
        notebook_output(raw_figure({"image/png": {"alt": "Table 11.4 as a plot: ..."}}), {KEY: PNG}),
        notebook_output({"output_type": "display_data", "data": {"text/html": table, "text/plain": "the table"}}, {}),
    ]
    page = feedback_page(course, outputs)
    assert Images(page).alts == ["Table 11.4 as a plot: ..."]
    assert "<details><summary>The values drawn, as a table</summary>" in page and '<th scope="row">1 blue</th>' in page


# --------------------------------------------------------------------------- through the sandbox, with the kept figure

PLOT_CELL = """
import matplotlib.pyplot as plt
from rnnkit.plots import show_plot
plt.plot([1, 2, 3, 4, 5], [1, 0.5, 0.25, 0.125, 0.0625], gid="blue")
plt.axhline(0.125, gid="bias")
show_plot("blue_clue")
"""


def run(folder: Path, source: str, known: dict | None = None) -> tuple[list, dict]:
    drawn: dict[str, str] = {}
    with Session(folder, Limits(CELL_TIMEOUT=30), "en", known) as session:
        return session.run_cell(source, drawn), drawn


def test_a_plot_cells_alt_and_table_survive_grading_with_the_kept_figure(tmp_path):
    first, drawn = run(tmp_path, PLOT_CELL)
    ((key, png),) = drawn.items()
    kept, none_drawn = run(tmp_path, PLOT_CELL, known={key: "KEPT"})
    assert none_drawn == {} and [o.data.get("image/png") for o in kept] == ["KEPT", None]
    alt = kept[0].metadata["image/png"]["alt"]
    assert (
        alt == first[0].metadata["image/png"]["alt"]
        and alt.startswith("Table 11.4 as a plot:")
        and "from x = 5 on" in alt
    )
    assert kept[1].data["text/html"].startswith("<details><summary>") and kept[1].metadata == {}


def test_a_students_forged_metadata_keeps_only_its_alt_through_the_sandbox(tmp_path):
    cell = (
        "import matplotlib.pyplot as plt\nfrom IPython.display import display\nfigure = plt.figure()\nplt.plot([1, 2])\n"
        f"display(figure, metadata={{'image/png': {{'alt': {HOSTILE_ALTS[0]!r}, 'width': '1 onerror=alert(1)'}}, 'filenames': {{}}}})\n"
        "plt.close(figure)"
    )
    outputs, _ = run(tmp_path, cell)
    assert [o.metadata for o in outputs] == [{"image/png": {"alt": HOSTILE_ALTS[0]}}]
