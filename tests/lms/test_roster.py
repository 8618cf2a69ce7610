"""`python -m autograder lti roster` against the LTI 1.3 platform on 127.0.0.1 (tests/lms/platform.py),
which serves the course's members through Names and Role Provisioning Services, two a page: a learner
the course knows, one who joins, one who left, a teaching assistant, and a learner the LMS gives no
email for. The tests count the platform's calls and read what the roster wrote."""

from __future__ import annotations

import csv
import json
import string
from urllib.parse import parse_qs

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbgrader.api import Gradebook

from autograder.commands import cli
from autograder.coursedir import config
from autograder.lms import names, registration
from autograder.lms.names import login_name

from ..conftest import make_course
from .platform import NRPS, Platform

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
MEMBERS = [
    {"user_id": "u-ada", "email": "ada.lovelace@uni.edu", "given_name": "Ada", "roles": [LEARNER], "status": "Active"},
    {
        "user_id": "u-bo",
        "email": "bo@uni.edu",
        "given_name": "Bo\x1b]0;pwned\x07",
        "family_name": "Li",
        "roles": [LEARNER],
    },
    {"user_id": "u-cy", "email": "cy@uni.edu", "roles": [LEARNER], "status": "Inactive"},
    {"user_id": "u-ta", "email": "tess@uni.edu", "roles": [TA], "status": "Active"},
    {"user_id": "u-dee", "roles": [LEARNER], "status": "Active"},  # privacy: no email shared
]
ADA, BO, CY = (login_name(m["email"]) for m in MEMBERS[:3])


@pytest.fixture
def course(tmp_path):
    return make_course(tmp_path / "course", ["ch12_bptt"])


def _cli(root, capsys, *args):
    code = cli.main(["--root", str(root), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _configure(root, platform) -> None:
    with (root / "course_config.py").open("a", encoding="utf-8") as file:
        file.write(
            f"\nLTI_ISSUER = {platform.issuer!r}\nLTI_CLIENT_ID = {platform.client_id!r}\n"
            f"LTI_DEPLOYMENT_ID = {platform.deployment_id!r}\nLTI_TOKEN_URL = {platform.token_url!r}\n"
            f"LTI_KEYSET_URL = {platform.keyset_url!r}\nLTI_NRPS_URL = {platform.members_url!r}\n"
            "LTI_ROSTER = 'roster.csv'\n"
        )
    config.load.cache_clear()


def test_the_roster_takes_the_class_from_the_lms_lists_who_left_and_staff_apart(course, capsys, monkeypatch):
    from autograder.grading.worker import nbgrader_env

    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
    settings = config.load(course)
    with Gradebook(config.database_url(course, settings), settings.COURSE_ID) as gb:
        for student in (ADA, CY):  # on the course before: Ada stays, Cy leaves
            gb.add_student(student)
    with Platform(page_size=2) as platform:
        platform.members = MEMBERS
        _configure(course, platform)
        platform.tool_jwks = json.loads(_cli(course, capsys, "lti", "key")[1])

        code, out, err = _cli(course, capsys, "lti", "roster", "--dry-run")
        assert code == 1 and "dry run: 2 learner(s) (1 would join), 1 left, 1 staff, 1 not mapped" in out
        assert "to be added to the gradebook" in out and "), added to the gradebook" not in out
        assert not (course / "roster.csv").exists() and platform.count("GET", "/names_and_roles") == 3  # every page

        code, out, err = _cli(course, capsys, "lti", "roster")
        assert code == 1  # a learner could not be mapped: said, and the rest taken
        assert f"joined: {BO} (LMS user u-bo; Bo\\x1b]0;pwned\\x07 Li), added to the gradebook" in out
        assert "\x1b" not in out + err  # the LMS's words are untrusted: shown, never run by the terminal
        assert f"left: {CY} (no longer an active learner in the LMS; the grades are kept)" in out
        assert "staff: LMS user u-ta" in out and "NOT MAPPED: LMS user u-dee: the LMS gives no email" in err
        with (course / "roster.csv").open(newline="", encoding="utf-8") as file:
            assert list(csv.reader(file)) == [["student_id", "lti_user_id"], [ADA, "u-ada"], [BO, "u-bo"]]
        settings = config.load(course)
        with Gradebook(config.database_url(course, settings), settings.COURSE_ID) as gb:
            assert sorted(s.id for s in gb.students) == sorted([ADA, BO, CY])  # Cy's grades are not deleted
            assert gb.find_student(BO).email == "bo@uni.edu"
        asked = {c.body for c in platform.calls if c.path == "/token"}
        assert asked and all(parse_qs(body)["scope"] == [NRPS] for body in asked)  # the NRPS scope alone

        platform.members = [MEMBERS[0]]  # Bo drops the course: listed as left, still mapped for his grades
        code, out, _ = _cli(course, capsys, "lti", "roster")
        assert code == 0 and f"left: {BO}" in out and f"left: {CY}" in out
        with (course / "roster.csv").open(newline="", encoding="utf-8") as file:
            assert [BO, "u-bo"] in list(csv.reader(file))


def test_without_its_settings_the_roster_names_every_missing_one_at_once(course, capsys):
    code, out, err = _cli(course, capsys, "lti", "roster", "--dry-run")
    assert code == 2 and not out and err.count("\n") == 1
    assert ", ".join(registration.ROSTER) + " are not set" in err


def test_a_claim_the_rule_cannot_use_is_refused_in_one_line(course, capsys):
    with Platform() as platform:
        _configure(course, platform)
        with (course / "course_config.py").open("a", encoding="utf-8") as file:
            file.write("LTI_USERNAME_CLAIM = 'name'\n")
        config.load.cache_clear()
        code, _, err = _cli(course, capsys, "lti", "roster")
        assert code == 2 and "LTI_USERNAME_CLAIM is 'name'" in err and not platform.calls


VALUES = st.text(alphabet=string.ascii_letters + string.digits + "._-@+ ", min_size=1, max_size=60).filter(str.strip)


@given(VALUES, VALUES)
def test_the_user_name_rule_is_a_valid_stable_login_and_tells_users_apart(first, second):
    name = login_name(first)
    assert names.LOGIN.fullmatch(name) and len(name) <= names.MAX_LENGTH and login_name(first) == name
    if first.strip() != second.strip():
        assert login_name(second) != name


def test_the_rule_keeps_a_login_and_makes_one_of_an_email_or_a_canvas_uuid():
    assert login_name("s1234567") == "s1234567"
    assert login_name("Ada.Lovelace@uni.edu").startswith("ada-lovelace-")
    uuid = login_name("1f0e2a3b-1111-2222-3333-444455556666")  # Canvas's sub may start with a digit
    assert uuid[0].isalpha() and len(uuid) <= 32
    made = login_name("ada@x.org")
    assert login_name(made) != made  # a value shaped like a made name is made again: never two users' name
