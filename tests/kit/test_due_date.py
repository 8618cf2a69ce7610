"""The due date in the student kit: a kit built for a course whose TERM gives an assignment a due
date holds it (ISO 8601 with the offset of the course's TIMEZONE, and the zone's name), and the
notebook's closing summary starts with it, in English and in Chinese; an assignment without one
has no due line. The kit never holds a student's extension, nor anything of the course secret."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import zipfile
from pathlib import Path

import pytest

from autograder.authoring import kit
from autograder.coursedir import config
from autograder.coursedir.ledger import Ledger
from autograder.grading.attempts import read_secret
from autograder.grading.worker import nbgrader_env
from rnnkit import checker, codec, messages, selfcheck
from rnnkit.selfcheck import SummaryItem, summary_lines

from ..attempts import SECRET
from ..conftest import make_course

TERM = """
TIMEZONE = "Europe/Berlin"
TERM = {"ch12_bptt": {"due": "2027-03-01 23:59", "grace_minutes": 15, "late": {"per_day": 0.1, "cap": 0.5},
                      "attempts": 3, "counts": "best"},
        "ch12_gates": {"due": "2027-06-01T10:00+00:00", "feedback": "public"},
        "ch12_boundaries": {"attempts": 2}}
"""
#: A student's extension, recorded in the course's ledger: never in the kit.
EXTENSION = (
    "ch12_bptt",
    "student-with-extension",
    dt.datetime(2027, 4, 15, 12, 34, tzinfo=dt.timezone.utc),
    "a private reason for the extension",
)
DUE = {"at": "2027-03-01T23:59:00+01:00", "zone": "Europe/Berlin"}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A course root whose course_config.py gives due dates in Europe/Berlin, with a course secret
    and an extension granted to one student."""
    root = make_course(tmp_path_factory.mktemp("due") / "course")
    with (root / "course_config.py").open("a", encoding="utf-8") as file:
        file.write(TERM)
    settings = config.load(root)
    assignment, student, until, reason = EXTENSION
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
        ledger = Ledger(config.database_url(root, settings), settings.COURSE_ID)
        ledger.extend(assignment, student, until, reason)
        assert ledger.extensions()[assignment, student].until == until
    return root


@pytest.fixture(scope="module")
def wheel_files(root, tmp_path_factory) -> dict[str, bytes]:
    """name -> bytes of every file of the kit's wheel built for `root`."""
    wheel = kit.build(tmp_path_factory.mktemp("dist"), root)
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture
def kit_of(monkeypatch, tmp_path):
    """Make the self-check read the public data of a built kit (name -> bytes, as in its wheel)."""

    def use(files: dict[str, bytes]) -> None:
        public = tmp_path / "public"
        public.mkdir()
        for name, data in files.items():
            if name.startswith("rnnkit/public/"):
                (public / name.removeprefix("rnnkit/public/")).write_bytes(data)
        monkeypatch.setattr(selfcheck, "PUBLIC", public)
        selfcheck.public_half.cache_clear()

    yield use
    selfcheck.public_half.cache_clear()


def _public(files: dict[str, bytes], assignment: str) -> dict:
    return codec.loads(files[f"rnnkit/public/{assignment}.json"], trusted=True)


def _summary(assignment: str, lang: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        checker(assignment, lang=lang).summary()
    return out.getvalue()


def test_the_kit_holds_the_due_date_in_the_courses_time_zone(wheel_files):
    bptt = _public(wheel_files, "ch12_bptt")
    assert bptt["due"] == DUE
    assert set(bptt) == {
        "assignment",
        "checks",
        "written",
        "CALL_TIMEOUT",
        "due",
    }  # nothing else of TERM: no grace, late policy, attempts
    # given with an offset of its own, shown in the course's time zone (summer time in Berlin)
    assert _public(wheel_files, "ch12_gates")["due"] == {"at": "2027-06-01T12:00:00+02:00", "zone": "Europe/Berlin"}
    for assignment in ("ch11_rnn_state", "ch12_boundaries"):  # no due date: nothing
        assert "due" not in _public(wheel_files, assignment)


def test_the_kit_holds_no_extension_and_nothing_of_the_course_secret(root, wheel_files):
    secret = read_secret(root)
    assert secret == SECRET
    assignment, student, until, reason = EXTENSION
    private = [
        secret,
        secret.hex().encode(),
        student.encode(),
        reason.encode(),
        b"2027-04-15",
        b"course_secret",
        b"extension",
    ]
    for name, data in wheel_files.items():
        leaked = [text for text in private if text in data]
        assert not leaked, (name, leaked)


def test_the_built_public_files_agree_with_the_wheel(root, wheel_files):
    for name, data in kit.public_files(root).items():
        if name.startswith("public/"):
            assert codec.loads(data, trusted=True).get("due") == _public(wheel_files, Path(name).stem).get("due")


@pytest.mark.parametrize(
    "lang, line",
    [("en", "Due: 2027-03-01 23:59 (Europe/Berlin)."), ("zh", "截止时间：2027-03-01 23:59（Europe/Berlin）。")],
)
def test_the_self_check_summary_starts_with_the_due_date(wheel_files, kit_of, lang, line):
    kit_of(wheel_files)
    summary = _summary("ch12_bptt", lang)
    assert summary.splitlines()[0] == line, summary
    assert summary.count(line) == 1
    points = {name: spec["points"] for name, spec in selfcheck.public_checks("ch12_bptt").items()}
    with messages.speaking(lang):  # then the summary as it was
        assert summary.splitlines()[1:] == summary_lines(points, {}, selfcheck.public_half("ch12_bptt")["written"])
    gates = _summary("ch12_gates", lang)
    assert gates.splitlines()[0] == line.replace("2027-03-01 23:59", "2027-06-01 12:00")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_a_due_date_the_summary_has_no_due_line(wheel_files, kit_of, lang):
    kit_of(wheel_files)
    summary = _summary("ch11_rnn_state", lang)
    with messages.speaking(lang):
        head = messages.text("notebook.summary_due", due="", zone="")
        assert summary.splitlines()[0] == messages.text("notebook.summary_none")
    assert head[:3] not in summary and "Europe/Berlin" not in summary and "2027" not in summary


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_due_line_and_the_rest_of_the_summary(lang):
    points = {"a": 1.0, "b": 1.0}
    outcomes = {"a": SummaryItem(True, 2, 2, 1.0)}
    with messages.speaking(lang):
        plain = summary_lines(points, outcomes, {"w": 1.0})
        dated = summary_lines(points, outcomes, {"w": 1.0}, due=DUE)
        assert dated == [messages.text("notebook.summary_due", due="2027-03-01 23:59", zone="Europe/Berlin"), *plain]
        assert summary_lines(points, outcomes, {"w": 1.0}, due=None) == plain
        # at grading the grader's summary gives no due date
        assert not any("2027" in line for line in summary_lines(points, outcomes, graded=True))


def test_the_due_line_speaks_both_languages_with_the_same_fields():
    english = json.loads((Path(selfcheck.__file__).parent / "messages" / "core.en.json").read_text(encoding="utf-8"))
    with messages.speaking("en"):
        en = selfcheck.due_line(DUE)
    with messages.speaking("zh"):
        zh = selfcheck.due_line(DUE)
    assert "notebook.summary_due" in english
    assert en == "Due: 2027-03-01 23:59 (Europe/Berlin)."
    assert zh == "截止时间：2027-03-01 23:59（Europe/Berlin）。"
