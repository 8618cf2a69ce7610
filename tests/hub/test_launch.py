"""The LMS as the hub's door, end to end: a second hub beside the demo's, on its course, environments
and accounts, with the login `hub config` writes when `LTI_AUTHORIZE_URL` is set
(jupyterhub-ltiauthenticator 1.6.3 and `autograder.hub.launch`), and the test platform of
tests/lms as the LMS on 127.0.0.1. Each launch goes as a browser takes it: the LMS posts the login
initiation to the hub, the hub sends the browser to the LMS's authentication request, the LMS answers
with a form that posts its signed id token to the hub's callback.

* a learner lands in JupyterLab on her own server, in the students' group, and not in formgrader;
* a teaching assistant reaches formgrader (in the TAs' group);
* the same launch posted again, with the cookies it was started with, is refused (its nonce was used);
* a learner without an account here, and one whose name the roster gives another LMS user, are
  refused in one line;
* the tool's key set is served where `lti key` says; the platform's calls are counted and printed.

Marked `hub` (`make test-hub`)."""

from __future__ import annotations

import html
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
import requests
from traitlets.config import Config

from autograder.hub import config_file, demo, processes
from autograder.hub.plan import Hub, Launch, launch_urls
from autograder.lms import registration

from ..lms.platform import Platform
from .demo_hub import COURSE, GRADER, SERVICE, start_server, wait_ready

pytestmark = pytest.mark.hub

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LIS = "https://purl.imsglobal.org/spec/lti/claim/lis"
ROLES = "https://purl.imsglobal.org/spec/lti/claim/roles"
LEARNER = [f"{MEMBERSHIP}#Learner"]
#: login hint -> the claims of that person's launches (LTI_USERNAME_CLAIM is lis_person_sourcedid)
PEOPLE = {
    "hint-ada": {"sub": "lms-ada", ROLES: LEARNER, LIS: {"person_sourcedid": "ada"}},
    "hint-ta": {
        "sub": "lms-ta",
        ROLES: [f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}/Instructor#TeachingAssistant"],
        LIS: {"person_sourcedid": "ta"},
    },
    "hint-zoe": {"sub": "lms-zoe", ROLES: LEARNER, LIS: {"person_sourcedid": "zoe"}},
    "hint-mallory": {"sub": "lms-mallory", ROLES: LEARNER, LIS: {"person_sourcedid": "ben"}},
}


def the_demos_plan(folder: Path) -> tuple[Config, dict]:
    """The demo hub's jupyterhub_config.py as JupyterHub reads it, and the names it defines."""
    c = Config()
    names = {"get_config": lambda: c}
    path = folder / "hub" / "jupyterhub_config.py"
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), names)  # noqa: S102 - the demo's own file
    return c, names


@pytest.fixture(scope="module")
def lms_hub(running_hub, tmp_path_factory):
    """(the hub's address, the platform, the tool's key set) of a hub logging people in through the LMS."""
    folder = running_hub.folder
    c, names = the_demos_plan(folder)
    keys = registration.key_set(tmp_path_factory.mktemp("tool"))
    state = folder / "lms-hub"
    state.mkdir(mode=0o700, exist_ok=True)
    roster = state / "roster.csv"
    roster.write_text("student_id,lti_user_id\nada,lms-ada\nben,lms-ben\n", encoding="utf-8")
    port = processes.free_port()
    base = f"http://127.0.0.1:{port}/"
    with Platform(tool_jwks=keys) as lms:
        lms.people = PEOPLE
        lms.target_link_uri = launch_urls(base)["target_link_uri"]
        lms.redirect_uris = {launch_urls(base)["redirect"]}
        hub = Hub(
            course_id=COURSE,
            course_root=folder / "course",
            exchange=folder / "exchange",
            students=("ada", "ben"),
            tas=(),
            students_env=Path(c.Spawner.cmd[0]).parent.parent,
            staff_python=Path(names["STAFF_PYTHON"]),
            proxy=tuple(c.ConfigurableHTTPProxy.command),
            state=state,
            port=port,
            hub_port=processes.free_port(),
            proxy_api_port=processes.free_port(),
            service_port=processes.free_port(),
            launch=Launch(
                issuer=lms.issuer,
                client_id=lms.client_id,
                deployment_id=lms.deployment_id,
                authorize_url=lms.authorize_url,
                jwks_endpoint=lms.keyset_url,
                username_claim="lis_person_sourcedid",
                roster=str(roster),
                tool_jwks=keys,
            ),
        )
        configuration = state / "jupyterhub_config.py"
        configuration.write_text(config_file.render(hub), encoding="utf-8")
        environment = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(state)}
        log = state / "jupyterhub.log"
        process = processes.start(
            [sys.executable, "-m", "jupyterhub", "-f", str(configuration)], state, log, environment
        )
        started = processes.Started(process, set())
        try:
            deadline = time.monotonic() + demo.READY_TIMEOUT
            while not demo.answers(base + "hub/api/"):
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                started.note()
                time.sleep(0.3)
            yield base, lms, keys, started
        finally:
            left = started.stop()
            shutil.rmtree(state, ignore_errors=True)
            assert process.returncode is not None and not left, left


def begin(base: str, lms: Platform, hint: str) -> tuple[requests.Session, str, dict]:
    """The launch of `hint` up to the LMS's form: (the browser, the form's action, its fields)."""
    browser = requests.Session()
    started = browser.post(base + "hub/lti13/oauth_login", data=lms.login_initiation(hint), allow_redirects=False)
    assert started.status_code == 302 and started.headers["location"].startswith(lms.authorize_url), started.text
    form = browser.get(started.headers["location"])
    assert form.status_code == 200, form.text
    action = html.unescape(re.search(r'action="([^"]+)"', form.text).group(1))
    fields = {name: html.unescape(value) for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', form.text)}
    return browser, action, fields


def launch(base: str, lms: Platform, hint: str) -> tuple[requests.Session, requests.Response]:
    browser, action, fields = begin(base, lms, hint)
    return browser, browser.post(action, data=fields, allow_redirects=False)


def test_the_lms_launches_each_role_to_its_own(lms_hub, running_hub, capsys):
    base, lms, keys, started = lms_hub
    step = time.perf_counter()

    # a learner: launched, in the students' group, her server up, JupyterLab answers; formgrader does not
    ada, landed = launch(base, lms, "hint-ada")
    assert landed.status_code == 302 and landed.headers["location"] == "/hub/", landed.text
    assert ada.get(base + "hub/home").status_code == 200  # the page sets the hub's _xsrf cookie
    model = ada.get(base + "hub/api/user", headers={"X-XSRFToken": ada.cookies.get("_xsrf", path="/hub/")}).json()
    assert (model["name"], model["groups"]) == ("ada", [f"nbgrader-{COURSE}"])
    start_server(base, ada, "ada")
    wait_ready(base, ada, "ada")
    started.note()
    lab = ada.get(base + "user/ada/lab")
    assert lab.status_code == 200 and "JupyterLab" in lab.text
    assert ada.get(base + f"{SERVICE}/formgrader").status_code == 403

    # the same launch again, with the cookies it began with: its nonce was used
    browser, action, fields = begin(base, lms, "hint-ada")
    cookies = browser.cookies.copy()
    assert browser.post(action, data=fields, allow_redirects=False).status_code == 302
    replay = requests.Session()
    replay.cookies.update(cookies)
    replayed = replay.post(action, data=fields, allow_redirects=False)
    assert replayed.status_code == 403 and "was used before" in replayed.text

    # a teaching assistant: formgrader
    ta, landed = launch(base, lms, "hint-ta")
    assert landed.status_code == 302
    assert ta.get(base + f"{SERVICE}/formgrader").status_code == 200
    assert ta.get(base + f"user/{GRADER}/lab").status_code in (403, 404)  # 404: no server of its own runs here

    # refused, each in one line: no account here; a name the roster gives another LMS user
    _, zoe = launch(base, lms, "hint-zoe")
    _, mallory = launch(base, lms, "hint-mallory")
    assert zoe.status_code == 403 and "zoe has no account on this host yet" in zoe.text
    assert mallory.status_code == 403 and "ben is another LMS user" in mallory.text

    # the tool's key set, where lti key says
    assert requests.get(launch_urls(base)["jwks"]).json() == keys
    running_hub.times["LMS launches"] = time.perf_counter() - step

    calls = {
        "authentication requests": lms.count("GET", "/authorize"),
        "key set reads": lms.count("GET", "/jwks"),
        "all": len(lms.calls),
    }
    with capsys.disabled():
        print(f"\n  the platform's calls in 5 launches: {calls}")
    assert calls["authentication requests"] == 5
    assert calls["all"] == calls["authentication requests"] + calls["key set reads"]
