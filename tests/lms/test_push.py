"""`python -m autograder lti push` against a real LTI 1.3 platform on 127.0.0.1 (tests/lms/platform.py:
it checks the tool's signed assertion against the key set the tool printed, grants only the AGS
scopes, pages its line items and keeps its own line items and scores), on a copy of the shared graded
class. The tests count the platform's HTTP calls: one line item per assignment however often it is
pushed, only changed scores posted again, a refused student reported and sent again, a token asked
for again once it expired, and a network failure that records nothing it did not send."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from nbgrader.api import Gradebook

from autograder.assignments import get
from autograder.commands import cli
from autograder.coursedir import config
from autograder.lms import push, registration, roster
from autograder.reporting import classdata

from .. import hostile
from ..classroom import copy_class, holder
from ..conftest import ASSIGNMENTS
from .platform import Platform

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(
        hostile.ASSIGNMENT not in ASSIGNMENTS, reason=f"TEST_ASSIGNMENTS leaves out {hostile.ASSIGNMENT}"
    ),
]

A = hostile.ASSIGNMENT
#: The students the course's roster maps to LMS users (the rest of the class is listed as unmapped).
MAPPED = {"reference": "lms-user-ref", "stub": "lms-user-stub", "html-injector": "lms-user-inj"}
#: The written answer of `A` that a TA grades between two pushes.
WRITTEN = "ex_12_7_1_written"


def _configure(root: Path, platform: Platform, roster_rows: dict[str, str] = MAPPED) -> None:
    with (root / "roster.csv").open("w", encoding="utf-8") as file:
        file.write("student_id,lti_user_id\n" + "".join(f"{s},{u}\n" for s, u in roster_rows.items()))
    with (root / "course_config.py").open("a", encoding="utf-8") as file:
        file.write(
            f"\nLTI_ISSUER = {platform.issuer!r}\nLTI_CLIENT_ID = {platform.client_id!r}\n"
            f"LTI_DEPLOYMENT_ID = {platform.deployment_id!r}\nLTI_TOKEN_URL = {platform.token_url!r}\n"
            f"LTI_KEYSET_URL = {platform.keyset_url!r}\nLTI_LINEITEMS_URL = {platform.lineitems_url!r}\n"
            "LTI_ROSTER = 'roster.csv'\n"
        )
    config.load.cache_clear()


def _cli(root: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["--root", str(root), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def course(graded_class, tmp_path):
    """A copy of the shared graded class (the tests change its grades and settings)."""
    return copy_class(graded_class.root, tmp_path / "course")


def test_the_tools_key_is_made_once_private_and_its_key_set_is_what_the_platform_checks(course, capsys):
    code, out, err = _cli(course, capsys, "lti", "key")
    path = course / registration.KEY_FILE
    assert code == 0 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"made the tool's key: {path}" in err  # said once, where it is
    keys = json.loads(out)["keys"]
    assert (
        len(keys) == 1
        and keys[0]["kty"] == "RSA"
        and keys[0]["alg"] == "RS256"
        and "d" not in keys[0]
        and keys[0]["kid"]
    )
    again = _cli(course, capsys, "lti", "key")
    assert again[1] == out and "made" not in again[2]  # made once
    path.chmod(0o644)
    code, _, err = _cli(course, capsys, "lti", "key")
    assert code == 2 and "chmod 600" in err and err.count("\n") == 1
    assert registration.KEY_FILE in (Path(__file__).parents[2] / ".gitignore").read_text().split()


def test_without_the_platforms_settings_nothing_is_sent_and_every_missing_one_is_named_at_once(course, capsys):
    for args in (("push",), ("push", "--dry-run")):
        code, out, err = _cli(course, capsys, "lti", *args)
        assert code == 2 and not out and err.count("\n") == 1
        assert ", ".join(registration.PUSH) + " are not set in course_config.py" in err


def test_a_line_item_follows_the_assignments_points(course, capsys):
    """A line item made when the assignment was worth 99 points is set to its points now, and said so."""
    with Platform() as platform:
        _configure(course, platform)
        platform.tool_jwks = json.loads(_cli(course, capsys, "lti", "key")[1])
        old = platform.add_lineitem(A, 99, resourceId=A)
        code, out, _ = _cli(course, capsys, "lti", "push", A)
        maximum = round(classdata.load(course).max_scores[A], 2)
        assert code == 0 and f"set the line item of {A} to its points: scoreMaximum 99 -> {maximum:g}" in out
        assert platform.count("PUT", old["id"].rsplit("/", 1)[-1]) == 1 and len(platform.lineitems) == 1
        assert platform.lineitems[old["id"]]["scoreMaximum"] == maximum
        assert all(s["scoreMaximum"] == maximum for s in platform.scores[old["id"]].values())
        calls = len(platform.calls)
        _cli(course, capsys, "lti", "push", A)  # nothing changed: no line item touched again
        assert not [c for c in platform.calls[calls:] if c.method == "PUT"]


def test_pushes_send_each_score_once_and_then_only_what_changed(course, capsys):
    with Platform(page_size=2) as platform:
        _configure(course, platform)
        platform.tool_jwks = json.loads(_cli(course, capsys, "lti", "key")[1])

        code, out, err = _cli(course, capsys, "lti", "push", A, "--dry-run")
        assert code == 0 and not platform.calls and out.count("would send") == len(MAPPED)
        assert (
            "no LMS user id" in err and holder(A, get(A).mistakes()[0].id).student in err
        )  # the unmapped students are listed

        platform.refuse["lms-user-inj"] = (
            422,
            "User is not enrolled in the course\x1b]0;pwned\x07",
        )  # the LMS's words, untrusted
        code, out, err = _cli(course, capsys, "lti", "push", A)
        assert (
            code == 1
            and "REFUSED ch12_bptt/html-injector: HTTP 422: User is not enrolled in the course\\x1b]0;pwned\\x07" in err
        )
        assert "\x1b" not in err + out
        assert platform.count("POST", "/token") == 1 and platform.count("POST", "/line_items") == 1
        [asked] = [parse_qs(c.body) for c in platform.calls if c.path == "/token"]  # a form, the AGS scopes alone
        assert sorted(asked["scope"][0].split()) == sorted(push.SCOPES) and asked["grant_type"] == [
            "client_credentials"
        ]
        assert platform.count("POST", "/scores") == len(MAPPED)
        [item] = platform.lineitems.values()
        assert item["resourceId"] == A and item["scoreMaximum"] == pytest.approx(classdata.load(course).max_scores[A])
        stored = platform.scores[item["id"]]
        assert set(stored) == {"lms-user-ref", "lms-user-stub"}
        data = classdata.load(course)
        reference = data.submissions[(A, "reference")]
        assert stored["lms-user-ref"]["scoreGiven"] == pytest.approx(round(reference.score, 2))
        assert stored["lms-user-ref"]["gradingProgress"] == "PendingManual"  # its written answer awaits a TA
        assert stored["lms-user-ref"]["activityProgress"] == "Completed"
        assert stored["lms-user-stub"]["scoreGiven"] == 0

        # The same grades again: only the refused score is posted again (accepted now), no new line item.
        platform.refuse.clear()
        calls = len(platform.calls)
        code, out, _ = _cli(course, capsys, "lti", "push", A)
        assert code == 0 and "1 score(s) sent, 2 unchanged" in out
        new = platform.calls[calls:]
        assert [c for c in new if c.path.endswith("/scores")] and sum(c.path.endswith("/scores") for c in new) == 1
        assert (
            not any(c.method == "POST" and c.path.endswith("/line_items") for c in new) and len(platform.lineitems) == 1
        )

        # A TA grades the reference's written answer: its score and progress move, and only it is posted.
        before = stored["lms-user-ref"]["scoreGiven"]
        _ta_grades(course, "reference", WRITTEN)
        calls = len(platform.calls)
        code, out, _ = _cli(course, capsys, "lti", "push", A)
        posted = [json.loads(c.body) for c in platform.calls[calls:] if c.path.endswith("/scores")]
        assert code == 0 and [p["userId"] for p in posted] == ["lms-user-ref"]
        written = next(
            row for row in classdata.load(course).rows_of(A) if row.student == "reference" and row.grade_id == WRITTEN
        )
        assert posted[0]["gradingProgress"] == "FullyGraded" and posted[0]["scoreGiven"] == pytest.approx(
            before + written.max_score
        )
        assert posted[0]["scoreGiven"] <= posted[0]["scoreMaximum"]

        # Nothing changed: no call at all.
        calls = len(platform.calls)
        assert _cli(course, capsys, "lti", "push", A)[0] == 0 and len(platform.calls) == calls


def test_a_token_that_expires_during_a_push_is_asked_for_again_once(course, capsys, monkeypatch):
    with Platform() as platform:
        _configure(course, platform, {"reference": "u1", "stub": "u2"})
        platform.tool_jwks = registration.key_set(course)
        post = push._post

        def expiring(*args):  # the platform ends every token after the first score
            post(*args)
            platform.expire_tokens()

        monkeypatch.setattr(push, "_post", expiring)
        code, out, err = _cli(course, capsys, "lti", "push", A)
        assert code == 0 and "2 score(s) sent" in out, err
        assert platform.count("POST", "/token") == 2
        assert [c.status for c in platform.calls if c.path.endswith("/scores")] == [200, 401, 200]


def test_a_platform_that_refuses_the_tools_key_or_goes_away_stops_the_push_and_records_nothing(
    course, capsys, tmp_path
):
    with Platform() as platform:
        _configure(course, platform, {"reference": "u1", "stub": "u2"})
        platform.tool_jwks = {"keys": []}  # the LMS holds no key of this tool
        registration.private_key(course)
        code, out, err = _cli(course, capsys, "lti", "push", A)
        assert code == 2 and "STOPPED" in err and "HTTP 400" in err and not platform.scores
    code, out, err = _cli(course, capsys, "lti", "push", A)  # the platform is gone
    assert code == 2 and "cannot be reached" in err and "0 score(s) sent" in out
    db = config.database_url(course, config.load(course))
    assert push.scores(classdata.load(course), {"reference": "u1"}, [A])  # there are scores to send ...
    with Gradebook(db) as gradebook:
        assert not gradebook.db.execute(push.SENT.select()).fetchall()  # ... and none is recorded as sent


def test_the_roster_file_is_read_strictly(tmp_path):
    settings = type("S", (), {"LTI_ROSTER": "roster.csv"})
    (tmp_path / "roster.csv").write_text("student_id,lti_user_id\nann,u1\nbob,\n", encoding="utf-8")
    ids = roster.user_ids(tmp_path, settings)
    assert ids == {"ann": "u1"} and roster.mapped(["ann", "bob"], ids) == ({"ann": "u1"}, ["bob"])
    for text, why in (
        ("id,user\nann,u1\n", "header"),
        ("student_id,lti_user_id\nann,u1\nann,u2\n", "twice"),
        ("student_id,lti_user_id\nann,u1\nbob,u1\n", "two students"),
    ):
        (tmp_path / "roster.csv").write_text(text, encoding="utf-8")
        with pytest.raises(roster.RosterError, match=why):
            roster.user_ids(tmp_path, settings)
    (tmp_path / "roster.csv").write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,ch12_bptt\n"
        '    Points Possible,,,,,19.00\n"Lee, Ann",4711,,ann,,\n"Kim, Bo",4712,,bo,,3\n',
        encoding="utf-8",
    )
    assert roster.user_ids(tmp_path, settings) == {"ann": "4711", "bo": "4712"}  # Canvas's gradebook export
    (tmp_path / "roster.csv").unlink()
    with pytest.raises(roster.RosterError, match="cannot read"):
        roster.user_ids(tmp_path, settings)


def _ta_grades(root: Path, student: str, grade_id: str) -> None:
    """A TA gives the written answer `grade_id` of `student` its full points, as formgrader saves it."""
    with Gradebook(config.database_url(root, config.load(root))) as gradebook:
        grade = gradebook.find_grade(grade_id, A, A, student)
        grade.manual_score = grade.max_score
        grade.needs_manual_grade = False
        gradebook.db.commit()
