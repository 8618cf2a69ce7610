"""The hub's LTI 1.3 launch, rule by rule, on the checked id token as ltiauthenticator hands it over
(`autograder.hub.launch.CourseLaunch.authenticate`): one user-name rule, roles to groups, and a
refusal of one line for each launch the course does not let in. The whole launch through a real hub
and the test platform: test_launch.py; what `hub config` and `lti key` print for it: below."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.commands.course import nbgrader_env
from autograder.hub.launch import CourseLaunch, Refused, first_user_uid
from autograder.lms import names

from ..accounts import account, needs_accounts

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LEARNER = [f"{MEMBERSHIP}#Learner"]
TA = [f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}/Instructor#TeachingAssistant"]
PERSON = "rnnstudent"  # an account of the tests (tests/accounts.py)


@pytest.fixture
def door(tmp_path):
    needs_accounts()
    account(PERSON)
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,lti_user_id\nrnnstudent,lms-1\nben,lms-2\n", encoding="utf-8")
    return CourseLaunch(
        deployment_id="1",
        username_claim="lis_person_sourcedid",
        students_group="nbgrader-rnn",
        tas_group="formgrade-rnn",
        roster=str(roster),
    )


def token(name=PERSON, roles=LEARNER, sub="lms-1", nonce="n-1", **claims):
    return {
        "sub": sub,
        "nonce": nonce,
        "exp": 4102444800,
        LTI + "deployment_id": "1",
        LTI + "roles": roles,
        LTI + "lis": {"person_sourcedid": name},
        **claims,
    }


def launch(door, data):
    """`authenticate` run to its end in a thread of its own (its own event loop: a test before may
    have left one running in this thread)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, door.authenticate(None, data)).result()


def refusal(door, data) -> str:
    with pytest.raises(Refused) as refused:
        launch(door, data)
    assert refused.value.status_code == 403
    return refused.value.log_message % refused.value.args


def test_a_learner_and_a_teaching_assistant_land_in_their_groups(door):
    assert launch(door, token()) == {"name": PERSON, "groups": ["nbgrader-rnn"]}
    assert launch(door, token(roles=TA, nonce="n-2")) == {"name": PERSON, "groups": ["formgrade-rnn"]}
    assert launch(door, token(roles=["Learner", "Instructor"], nonce="n-3"))["groups"] == [
        "nbgrader-rnn",
        "formgrade-rnn",
    ], "LTI 1.1's short names of the course's roles count too"


def test_each_launch_the_course_does_not_let_in_is_refused_in_one_line(door, tmp_path):
    institution = ["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"]
    found = {
        "another deployment": refusal(door, token(nonce="a", **{LTI + "deployment_id": "2"})),
        "no course role": refusal(door, token(roles=institution, nonce="b")),
        "no claim": refusal(door, token(name="", nonce="c")),
        "another user's name": refusal(door, token(name="ben", sub="lms-9", nonce="d")),
        "no account": refusal(door, token(name="zz-nobody-here", sub="lms-7", nonce="e")),
        "a system account": refusal(door, token(name="root", sub="lms-8", nonce="f")),
    }
    assert "another deployment ('2')" in found["another deployment"]
    assert "no role of this course" in found["no course role"], "an institution role says nothing of this course"
    assert "sent no lis_person_sourcedid" in found["no claim"]
    assert "ben is another LMS user's name" in found["another user's name"]
    assert "zz-nobody-here has no account on this host" in found["no account"]
    assert "root is a system account" in found["a system account"] and first_user_uid() >= 1
    assert all("\n" not in line for line in found.values())

    launch(door, token(nonce="once"))
    assert "used before" in refusal(door, token(nonce="once")), "a replayed launch (its nonce) is refused"

    (tmp_path / "roster.csv").write_text("not a roster\n", encoding="utf-8")
    assert "roster cannot be read" in refusal(door, token(nonce="g")), "fails closed"


def test_the_launch_names_people_by_the_rosters_rule(door):
    door.username_claim = "email"
    door.roster = ""
    mail = "Ada.Lovelace@example.edu"
    assert "ada-lovelace-" in refusal(door, token(email=mail, nonce="h"))  # no such account: the name is made
    assert refusal(door, token(email=mail, nonce="i")).split()[0] == names.login_name(mail)
    door.username_claim = "sub"
    assert launch(door, token(sub=PERSON, nonce="j"))["name"] == PERSON


def test_hub_config_with_the_lms_logs_people_in_through_it(course, tmp_path):
    (course / "course_config.py").open("a").write(
        '\nLTI_ISSUER = "https://lms.example.edu"\nLTI_CLIENT_ID = "42"\nLTI_DEPLOYMENT_ID = "1"\n'
        'LTI_KEYSET_URL = "https://lms.example.edu/jwks"\nLTI_USERNAME_CLAIM = "sub"\n'
        'LTI_AUTHORIZE_URL = "https://lms.example.edu/authorize"\nHUB_URL = "https://hub.example.edu"\n'
    )

    def run(*args):
        command = [sys.executable, "-m", "autograder", "--root", str(course), *args]
        return subprocess.run(command, capture_output=True, text=True, env=nbgrader_env())

    printed = run("hub", "config", "--student", "ada")
    assert printed.returncode == 0, printed.stderr
    assert printed.stderr.startswith("made the tool's key: "), (
        "the key set the hub serves is the tool's: made, and said"
    )
    (tmp_path / "jupyterhub_config.py").write_text(printed.stdout, encoding="utf-8")
    c = PyFileConfigLoader("jupyterhub_config.py", path=str(tmp_path)).load_config()
    assert c.JupyterHub.authenticator_class == "autograder.hub.launch.CourseLaunch"
    assert (c.CourseLaunch.issuer, c.CourseLaunch.client_id, c.CourseLaunch.deployment_id) == (
        "https://lms.example.edu",
        {"42"},
        "1",
    )
    assert c.CourseLaunch.authorize_url == "https://lms.example.edu/authorize"
    assert c.CourseLaunch.jwks_endpoint == "https://lms.example.edu/jwks"
    assert (c.CourseLaunch.students_group, c.CourseLaunch.tas_group) == (
        "nbgrader-rnn-chapters",
        "formgrade-rnn-chapters",
    )
    assert c.CourseLaunch.tool_jwks["keys"][0]["kty"] == "RSA" and "d" not in c.CourseLaunch.tool_jwks["keys"][0]
    assert "allowed_users" not in c.Authenticator and c.Authenticator.allow_all is True

    key = run("lti", "key")
    assert key.returncode == 0, key.stderr
    assert (
        "login initiation URL https://hub.example.edu/hub/lti13/oauth_login, "
        "redirect URI https://hub.example.edu/hub/lti13/oauth_callback, "
        "public key set URL https://hub.example.edu/hub/lti13/jwks"
    ) in key.stderr

    (course / "course_config.py").open("a").write('\nLTI_CLIENT_ID = ""\nLTI_ISSUER = ""\n')
    refused = run("hub", "config")
    assert refused.returncode != 0 and refused.stdout == ""
    assert refused.stderr.strip() == (
        "hub config: LTI_ISSUER, LTI_CLIENT_ID are not set in course_config.py (docs/lms.md says where the LMS shows each)"
    )
