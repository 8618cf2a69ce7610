"""Submissions in, tried as a student who hands in as someone else or smuggles a link: nbgrader's
exchange `collect` and LMS `zip_collect`, through real nbgrader with the course's configuration."""

import os
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.commands.course import nbgrader, release
from autograder.coursedir.config import database_url, load
from autograder.coursedir.ledger import Ledger
from autograder.intake import collect

from ..accounts import account, needs_accounts
from ..conftest import REPO, make_course

pytestmark = pytest.mark.nbgrader
A = "ch12_bptt"
MALLORY = "rnnmallory"  # an account that is none of the students


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    root = make_course(tmp_path_factory.mktemp("in") / "course", [A])
    release(root, [A])
    return root


def _course(released: Path, tmp_path: Path) -> Path:
    """A fresh course with the released assignment and its gradebook."""
    root = make_course(tmp_path / "course", [A])
    for folder in ("source", "release"):
        shutil.copytree(released / folder, root / folder)
    (root / "gradebook.db").write_bytes((released / "gradebook.db").read_bytes())
    return root


def _notebook(released: Path, who: str) -> nbformat.NotebookNode:
    notebook = nbformat.read(released / "release" / A / f"{A}.ipynb", as_version=4)
    notebook.metadata["handed_in_by"] = who
    return notebook


def _single_user(root: Path) -> Path:
    """The course of a host with one user (`SHARED_HOST = False`): its instructor, this process,
    places the inbound folders by hand."""
    with (root / "course_config.py").open("a", encoding="utf-8") as handle:
        handle.write("\nSHARED_HOST = False\n")
    return root


def _gradebook(root: Path) -> Gradebook:
    settings = load(root)
    return Gradebook(database_url(root, settings), settings.COURSE_ID)


def _inbound(root: Path, student: str, when: str, notebook=None) -> Path:
    """A folder as `nbgrader submit` writes it into the exchange."""
    folder = root / "exchange" / load(root).COURSE_ID / "inbound" / f"{student}+{A}+{when}+{abs(hash(when)) % 10**6}"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text(when)
    if notebook is not None:
        nbformat.write(notebook, folder / f"{A}.ipynb")
    return folder


def test_collect_keeps_the_students_own_folder_and_refuses_one_written_in_their_name(released, tmp_path):
    needs_accounts()
    mallory = account(MALLORY)
    root = _single_user(_course(released, tmp_path))
    _inbound(root, "victim", "2025-03-14 09:00:00.000000 UTC", _notebook(released, "victim"))
    forged = _inbound(root, "victim", "2025-03-14 10:00:00.000000 UTC", _notebook(released, "mallory"))  # newer
    for path in (forged, *forged.iterdir()):
        os.chown(path, mallory.pw_uid, mallory.pw_gid)
    result = nbgrader(root, "collect", A)
    collected = nbformat.read(root / "submitted" / "victim" / A / f"{A}.ipynb", as_version=4)
    assert collected.metadata["handed_in_by"] == "victim"
    assert "claims to be handed in by victim but is owned by" in result.stderr + result.stdout


def test_collect_refuses_links_and_hard_links_and_flags_them_without_copying(released, tmp_path):
    root = _single_user(_course(released, tmp_path))
    source = root / "source" / A / f"{A}.ipynb"
    linked = _inbound(root, "linker", "2025-03-14 09:00:00.000000 UTC")
    (linked / f"{A}.ipynb").symlink_to(os.path.relpath(source, linked))
    hard = _inbound(root, "hardlinker", "2025-03-14 09:00:00.000000 UTC")
    os.link(source, hard / f"{A}.ipynb")
    beside = _inbound(root, "honest", "2025-03-14 09:00:00.000000 UTC", _notebook(released, "honest"))
    (beside / "notes.txt").write_text("mine")
    result = nbgrader(root, "collect", A)
    log = result.stderr + result.stdout
    assert "`'ch12_bptt.ipynb'` is a symbolic link" in log and "`'ch12_bptt.ipynb'` is a hard link" in log
    assert sorted(p.name for p in (root / "submitted").iterdir()) == ["honest"]
    assert sorted(p.name for p in (root / "submitted" / "honest" / A).iterdir()) == [f"{A}.ipynb", "timestamp.txt"]
    with _gradebook(root) as gb:
        for student in ("linker", "hardlinker"):
            notebook = gb.find_submission(A, student).notebooks[0]
            assert notebook.flagged and any("admission refused" in (c.auto_comment or "") for c in notebook.comments)


def _zip_names(root: Path, names: dict[str, str], released: Path) -> None:
    archive = root / "downloaded" / A / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
        for name, who in names.items():
            bundle.writestr(name, nbformat.writes(_notebook(released, who)))


def test_zip_collect_files_a_misleading_upload_under_its_uploader_and_checks_the_roster(released, tmp_path):
    documented, _ = re.findall(
        r"--FileNameCollectorPlugin\.named_regexp='([^']+)'",
        (REPO / "docs" / "instructor.md").read_text(encoding="utf-8"),
    )
    assert documented == collect.DOCUMENTED_PATTERN
    root = _course(released, tmp_path)
    with _gradebook(root) as gb:
        for student in ("alice", "bob", "carol", "mallory"):
            gb.add_student(student)
    _zip_names(
        root,
        {
            f"{A}_alice_attempt_2025-03-14-09-26-53_{A}.ipynb": "alice",
            f"{A}_bob_attempt_2025-03-14-08-00-00_{A}.ipynb": "bob",
            # mallory uploads a file named to look like bob's, later than bob's own
            f"{A}_mallory_attempt_2025-03-15-10-00-00_bob_attempt_2025-03-16-00-00-00_{A}.ipynb": "mallory",
            f"{A}_carol_attempt_2025-03-14-10-00-00_{A}.ipynb": "carol-first",
            f"{A}_carol_attempt_2025-03-14-11-00-00_{A}.ipynb": "carol-second",
            f"{A}_zed_attempt_2025-03-14-10-00-00_{A}.ipynb": "zed",  # not on the roster
        },
        released,
    )
    result = nbgrader(root, "zip_collect", A, f"--FileNameCollectorPlugin.named_regexp={documented}")
    handed = {
        p.name: nbformat.read(p / A / f"{A}.ipynb", as_version=4).metadata["handed_in_by"]
        for p in (root / "submitted").iterdir()
    }
    assert handed == {"alice": "alice", "bob": "bob", "carol": "carol-second"}
    assert (root / "submitted" / "alice" / A / "timestamp.txt").read_text().startswith("2025-03-14 09:26:53")
    assert "'zed' is not on the gradebook's roster" in result.stderr + result.stdout


def test_zip_collect_takes_the_newest_canvas_resubmission_and_records_late(released, tmp_path):
    """Canvas's `-1`, `-2` resubmissions: the newest is filed (`-10` after `-2`); `LATE_` goes into the
    ledger; without a roster every id is collected; a name whose time is no time is skipped alone."""
    documented, canvas = re.findall(
        r"--FileNameCollectorPlugin\.named_regexp='([^']+)'",
        (REPO / "docs" / "instructor.md").read_text(encoding="utf-8"),
    )
    root = _course(released, tmp_path)
    with _gradebook(root) as gb:  # an exchange student that autograde added: no roster imported yet
        gb.add_student("ann")
    Ledger(database_url(root, load(root)), load(root).COURSE_ID).created_by_grading("ann")
    _zip_names(
        root,
        {
            f"doejane_123456_1_{A}.ipynb": "jane",
            f"doejane_123456_2_{A}-2.ipynb": "jane-2",
            f"doejane_123456_3_{A}-10.ipynb": "jane-10",
            f"doejane_123456_4_{A}-1.ipynb": "jane-1",
            f"smithbob_LATE_234567_3_{A}.ipynb": "bob",
            f"mallory_345678_4_234567_5_{A}.ipynb": "mallory",
        },
        released,
    )  # names bob's id after her own
    nbgrader(root, "zip_collect", A, f"--FileNameCollectorPlugin.named_regexp={canvas}")

    def handed(student):
        return [
            nbformat.read(p, as_version=4).metadata["handed_in_by"]
            for p in (root / "submitted" / student / A).glob("*.ipynb")
        ]

    assert handed("234567") == ["bob"] and handed("345678") == ["mallory"] and handed("123456") == ["jane-10"]
    receipts = {r.student: r for r in Ledger(database_url(root, load(root)), load(root).COURSE_ID).receipts(A)}
    assert sorted(receipts) == ["123456", "234567", "345678"]
    assert receipts["234567"].late_flag and not receipts["123456"].late_flag
    assert all(r.source == "lms" and not r.timed for r in receipts.values())
    nbgrader(
        root, "zip_collect", A, "--force", f"--FileNameCollectorPlugin.named_regexp={canvas}"
    )  # the same download again
    assert (
        len(Ledger(database_url(root, load(root)), load(root).COURSE_ID).receipts(A)) == 3
    )  # the same bytes: no new attempt

    root = _course(released, tmp_path / "timed")
    _zip_names(
        root,
        {
            f"{A}_ann_attempt_2025-03-14-09-26-53_{A}.ipynb": "ann",
            f"{A}_bea_attempt_2025-13-45-99-99-99_{A}.ipynb": "bea",
        },
        released,
    )
    result = nbgrader(root, "zip_collect", A, f"--FileNameCollectorPlugin.named_regexp={documented}")
    assert sorted(p.name for p in (root / "submitted").iterdir()) == ["ann"]
    assert "'2025-13-45-99-99-99' is not a time" in result.stderr + result.stdout
    (ann,) = Ledger(database_url(root, load(root)), load(root).COURSE_ID).receipts(A)
    assert ann.timed and ann.received.isoformat().startswith("2025-03-14T09:26:53")


@pytest.mark.parametrize("shape", ["wide", "deep"])
def test_a_walk_stopped_early_leaves_no_folder_open(tmp_path, shape):
    """A folder with more entries (or deeper folders) than admission walks is refused, and every
    folder descriptor the walk had opened is closed (collect walks a whole class in one process)."""
    from autograder.intake import walk

    top = tmp_path / "hand-in"
    if shape == "wide":
        for i in range(walk.MAX_ENTRIES // 3):
            (top / f"d{i}" / "a" / "b").mkdir(parents=True)
    else:
        for i in range(20):
            (top / f"d{i}" / ("x/" * walk.MAX_DEPTH)).mkdir(parents=True)
    before = len(os.listdir("/proc/self/fd"))
    verdict = walk.inspect(top, "ch12_bptt.ipynb")
    assert not verdict.admitted
    assert len(os.listdir("/proc/self/fd")) == before
