"""Submissions in from an LMS download (nbgrader zip_collect, with the patterns the README gives)
and the exchange folder that formgrader and `nbgrader release_assignment` expect."""

import re
import stat
import zipfile

import nbformat
import pytest
from traitlets.config import Config

from autograder import pipeline
from autograder.commands.course import nbgrader
from autograder.coursedir import config

from ..conftest import REPO, make_course


def _readme_patterns() -> list[str]:
    """The zip_collect file-name patterns of the README, in order: nbgrader's documented naming, Canvas."""
    return re.findall(
        r"--FileNameCollectorPlugin\.named_regexp='([^']+)'",
        (REPO / "docs" / "instructor.md").read_text(encoding="utf-8"),
    )


def test_the_nbgrader_settings_create_the_exchange_formgrader_looks_for(tmp_path):
    from nbgrader.apps import NbGraderAPI

    root = make_course(tmp_path / "course")
    settings = Config()
    pipeline.nbgrader_settings(settings, str(root), config.load(root))
    exchange = root / "exchange"
    assert settings.Exchange.root == str(exchange)
    assert exchange.is_dir() and stat.S_IMODE(exchange.stat().st_mode) == 0o777  # what release_assignment wants
    assert NbGraderAPI(config=settings).exchange_missing is False


def test_the_canvas_pattern_reads_canvas_download_names(tmp_path):
    from nbgrader.plugins import FileNameCollectorPlugin

    _, canvas = _readme_patterns()
    collector = FileNameCollectorPlugin(named_regexp=canvas)
    folder = tmp_path / "downloaded" / "ch12_bptt" / "extracted"
    for name, student in (
        ("doejane_123456_7891011_ch12_bptt.ipynb", "123456"),
        ("smithbob_LATE_234567_8910111_ch12_bptt-1.ipynb", "234567"),
    ):
        found = collector.collect(str(folder / name))
        assert (found["student_id"], found["file_id"]) == (student, "ch12_bptt"), name


@pytest.mark.nbgrader
def test_zip_collect_puts_an_lms_download_into_submitted(tmp_path):
    documented, _ = _readme_patterns()
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    released = nbformat.read(REPO / "release" / "ch12_bptt" / "ch12_bptt.ipynb", as_version=4)
    (root / "release" / "ch12_bptt").mkdir(parents=True)
    nbformat.write(released, root / "release" / "ch12_bptt" / "ch12_bptt.ipynb")  # zip_collect checks names against it
    archive = root / "downloaded" / "ch12_bptt" / "archive"
    archive.mkdir(parents=True)
    times = {"alice": "2025-03-14-09-26-53", "bob": "2025-03-15-23-59-01"}
    with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
        for student, when in times.items():
            released.metadata["handed_in_by"] = student
            bundle.writestr(f"ch12_bptt_{student}_attempt_{when}_ch12_bptt.ipynb", nbformat.writes(released))
    nbgrader(root, "zip_collect", "ch12_bptt", f"--FileNameCollectorPlugin.named_regexp={documented}")
    for student, when in times.items():
        folder = root / "submitted" / student / "ch12_bptt"
        assert nbformat.read(folder / "ch12_bptt.ipynb", as_version=4).metadata["handed_in_by"] == student
    assert sorted(p.name for p in (root / "submitted").iterdir()) == ["alice", "bob"]
