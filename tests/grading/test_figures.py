"""A figure drawn once per distinct content at grading (`rnnkit.figures`, `autograder.grading.figures`):
the runner sends a marker for a figure the grader holds, the grader puts back the PNG of the
reference run, which is byte for byte what the runner would have drawn; a runner cannot bring back
anything else that way."""

from __future__ import annotations

import json

import pytest

from autograder.grading import figures
from autograder.sandbox.session import Session
from rnnkit.figures import KEY_METADATA, MARKER
from rnnkit.jail.limits import Limits

LIMITS = Limits(CELL_TIMEOUT=30)

PLOT = """
import matplotlib.pyplot as plt
plt.semilogy(range(17), [0.5 ** d for d in range(17)], marker="o", label="factor {factor}")
plt.title("Table 12.2")
plt.legend()
plt.show()
"""


def run(tmp_path, *cells: str, known: dict | None = None) -> tuple[list, dict]:
    """The outputs of the last cell, and the PNGs the runner drew in all of them by key."""
    drawn: dict[str, str] = {}
    with Session(tmp_path, LIMITS, "en", known) as session:
        for source in cells:
            outputs = session.run_cell(source, drawn)
    return outputs, drawn


def pngs(outputs: list) -> list[str]:
    return [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]


def test_the_kept_png_is_byte_for_byte_what_the_runner_draws(tmp_path):
    outputs, drawn = run(tmp_path, PLOT.format(factor=0.5))
    ((key, png),) = drawn.items()
    assert pngs(outputs) == [png] and not png.startswith(MARKER)
    again, drawn_again = run(tmp_path, "x = 1", PLOT.format(factor=0.5))  # another runner, another figure number
    assert drawn_again == {key: png} and pngs(again) == [png]
    kept, none_drawn = run(tmp_path, PLOT.format(factor=0.5), known={key: png})
    assert pngs(kept) == [png] and none_drawn == {}


def test_a_known_figure_is_not_drawn(tmp_path):
    """The grader's copy comes back, not a drawing (here the copy is a stand-in string)."""
    _, drawn = run(tmp_path, PLOT.format(factor=0.5))
    outputs, none_drawn = run(tmp_path, PLOT.format(factor=0.5), known={key: "KEPT" for key in drawn})
    assert pngs(outputs) == ["KEPT"] and none_drawn == {}


@pytest.mark.parametrize(
    "change",
    [
        "plt.rcParams['lines.linewidth'] = 3",
        "plt.rcParams['font.size'] = 11",
        "from matplotlib_inline.config import InlineBackend; InlineBackend.instance().print_figure_kwargs = {'dpi': 50}",
    ],
)
def test_what_the_drawing_depends_on_changes_the_key(tmp_path, change):
    _, plain = run(tmp_path, PLOT.format(factor=0.5))
    _, other_data = run(tmp_path, PLOT.format(factor=1.5))
    _, changed = run(tmp_path, "import matplotlib.pyplot as plt\n" + change, PLOT.format(factor=0.5))
    assert plain and other_data and plain.keys() != other_data.keys()
    assert not changed.keys() & plain.keys()  # another key, or (InlineBackend's formatter put back) none
    assert changed or "InlineBackend" in change


def test_a_figure_that_cannot_be_keyed_is_drawn(tmp_path):
    unpicklable = PLOT.format(factor=0.5).replace("plt.show()", "plt.gcf().hook = (lambda: 0)\nplt.show()")
    outputs, drawn = run(tmp_path, unpicklable, known={"0" * 64: "KEPT"})
    assert drawn == {} and len(pngs(outputs)) == 1 and pngs(outputs)[0].startswith("iVBOR")


@pytest.mark.parametrize(
    "forged",
    [
        "rnnkit-figure:" + "0" * 64,  # a key the grader does not hold
        "rnnkit-figure:../../gradebook.db",  # not a key at all
        "rnnkit-figure:",
    ],
)
def test_a_forged_marker_brings_back_nothing(tmp_path, forged):
    """Hostile: a cell that displays a marker of its own gets no image from the grader."""
    cell = f"from IPython.display import display\ndisplay({{'image/png': {forged!r}, 'text/plain': 'x'}}, raw=True)"
    outputs, _ = run(tmp_path, cell, known={"f" * 64: "KEPT"})
    assert pngs(outputs) == [] and [o["data"] for o in outputs] == [{"text/plain": "x"}]


def test_a_forged_marker_of_a_kept_key_brings_back_only_the_reference_png(tmp_path):
    """Hostile: naming a key the grader holds gives the reference run's figure, which a student's own
    Jupyter draws for the notebook's read-only plot anyway; never a PNG the runner supplies."""
    cell = f"from IPython.display import display\ndisplay({{'image/png': {MARKER + 'f' * 64!r}}}, raw=True)"
    outputs, drawn = run(tmp_path, cell, known={"f" * 64: "KEPT"})
    assert pngs(outputs) == ["KEPT"] and drawn == {}


def test_a_drawn_figure_named_by_forged_metadata_is_not_kept_by_grading(tmp_path):
    """Hostile: metadata that names a key reaches only `drawn`, which only the reference run records;
    the graded outputs carry no metadata of the runner's."""
    cell = (
        "from IPython.display import display\n"
        f"display({{'image/png': 'iVBORbogus'}}, metadata={{'image/png': {{{KEY_METADATA!r}: {'f' * 64!r}}}}}, raw=True)"
    )
    outputs, drawn = run(tmp_path, cell)
    assert [o.get("metadata") for o in outputs] == [{}]
    assert drawn == {"f" * 64: "iVBORbogus"}  # why only the reference run's `drawn` is ever saved


def test_kept_figures_are_used_only_for_the_source_notebook_they_came_from(tmp_path):
    notebook = figures.source_notebook(tmp_path, "a1")
    notebook.parent.mkdir(parents=True)
    notebook.write_text("{}", encoding="utf-8")
    assert figures.load(tmp_path, "a1") is None
    figures.save(tmp_path, "a1", {"a" * 64: "PNG", "not a key": "PNG"})
    assert figures.load(tmp_path, "a1") == {"a" * 64: "PNG"}
    notebook.write_text('{"changed": 1}', encoding="utf-8")
    assert figures.load(tmp_path, "a1") is None
    figures.save(tmp_path, "a1", {"b" * 64: "PNG"})
    figures.path(tmp_path, "a1").write_text("[1, 2]", encoding="utf-8")
    assert figures.load(tmp_path, "a1") is None


def test_a_graded_class_shows_the_reference_runs_figure(graded_class):
    """Through real nbgrader: the reference submission's plot is the kept PNG of its release."""
    kept = figures.load(graded_class.root, "ch12_bptt")
    assert kept, "release keeps the figures of the reference run"
    notebook = json.loads(
        (graded_class.root / "autograded" / "reference" / "ch12_bptt" / "ch12_bptt.ipynb").read_text(encoding="utf-8")
    )
    shown = [png for cell in notebook["cells"] for png in pngs(cell.get("outputs", []))]
    assert shown and set(shown) <= set(kept.values())


def test_a_runner_is_told_a_bounded_number_of_kept_figures(tmp_path, monkeypatch):
    """However many figures are kept, the spawn request fits the zygote's message; a figure not
    named to the runner is drawn."""
    from autograder.sandbox import session as sandbox

    _, drawn = run(tmp_path, PLOT.format(factor=0.5))
    ((key, png),) = drawn.items()
    many = {f"{index:064x}": "KEPT" for index in range(5000)}
    outputs, _ = run(tmp_path, PLOT.format(factor=0.5), known={**many, key: png})
    assert pngs(outputs) == [png]
    monkeypatch.setattr(sandbox, "MAX_KNOWN_FIGURES", 0)
    outputs, drawn_again = run(tmp_path, PLOT.format(factor=0.5), known={key: png})
    assert pngs(outputs) == [png] and drawn_again == {key: png}
