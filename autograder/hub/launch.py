"""The LMS as the hub's door: an LTI 1.3 launch logs a person in (`CourseLaunch`).

jupyterhub-ltiauthenticator 1.6.3 does the OpenID Connect login (the login initiation, the
platform's signed id token checked against its key set, the state and the nonce cookies). This
authenticator adds what a course needs of a launch:

* one user name: the course's rule (`LTI_USERNAME_CLAIM`, `autograder.lms.names.login_name`), the
  one `lti roster` and `lti push` use;
* the roles: a learner joins the students' group, an instructor or a teaching assistant the TAs'
  group (`autograder.lms.roles`); a launch with neither is refused;
* refusals, each one line: another deployment than the course's; a nonce seen before (a captured
  launch replayed with its cookies); a user without the claim; a name `LTI_ROSTER` gives another LMS
  user; a name with no Linux account on this host (the LocalProcessSpawner runs each server as one)
  or a system account's (root's among them);
* the tool's public key set served at `/hub/lti13/jwks`, for the LMS to check the course's grade
  pushes and roster reads.

`plan.launch_urls` are the addresses an LMS administrator registers (`python -m autograder lti key`).
"""

from __future__ import annotations

import json
import pwd
import threading
import time
from pathlib import Path

from jupyterhub.handlers import BaseHandler
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler
from tornado.web import HTTPError
from traitlets import Dict, Unicode

from ..lms import names, roles, roster

DEPLOYMENT = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
ROLES = "https://purl.imsglobal.org/spec/lti/claim/roles"
#: Where the host says which uids are people's (useradd's UID_MIN).
LOGIN_DEFS = Path("/etc/login.defs")
#: Seconds a nonce is kept beyond its token's expiry (the validator's leeway is 0).
NONCE_MARGIN = 60


def first_user_uid(defs: Path = LOGIN_DEFS) -> int:
    """The first uid of a person's account on this host (`UID_MIN` of login.defs, 1000 without it):
    below it lie root and the system's accounts, which no launch may become."""
    try:
        lines = defs.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 1000
    for line in lines:
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "UID_MIN" and parts[1].isdigit():
            return int(parts[1])
    return 1000


class Refused(HTTPError):
    """A launch the course does not let in: 403 with one line the person can act on."""

    def __init__(self, why: str):
        super().__init__(403, "%s", why)
        self.jupyterhub_message = why  # what the hub's error page shows


class Nonces:
    """The nonces of the launches let in, each kept until its token expires: a second use is a replay."""

    def __init__(self) -> None:
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def first_use(self, nonce: str, expires: float) -> bool:
        now = time.time()
        with self._lock:
            self._until = {n: t for n, t in self._until.items() if t > now}
            if nonce in self._until:
                return False
            self._until[nonce] = float(expires) + NONCE_MARGIN
            return True


class CourseCallback(LTI13CallbackHandler):
    """ltiauthenticator's callback, then the launch's groups put on the user (the hub's other groups,
    set by `load_groups` and formgrader, are left to them: the authenticator does not manage groups)."""

    async def auth_to_user(self, authenticated, user=None):
        user = await super().auth_to_user(authenticated, user)
        course = set(self.authenticator.course_groups)
        kept = {group.name for group in user.groups if group.name not in course}
        user.sync_groups(sorted(kept | set(authenticated["groups"])))
        return user


class KeySet(BaseHandler):
    """The tool's public key set (JWKS), as `lti key` prints it."""

    def check_xsrf_cookie(self):
        return

    async def get(self):
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(self.authenticator.tool_jwks))


class CourseLaunch(LTI13Authenticator):
    """jupyterhub-ltiauthenticator's LTI 1.3 login with the course's user names, roles and refusals."""

    callback_handler = CourseCallback

    deployment_id = Unicode(config=True, help="The deployment id the LMS gave the tool in this course.")
    username_claim = Unicode("email", config=True, help="LTI_USERNAME_CLAIM: the claim that names a user.")
    students_group = Unicode(config=True, help="The hub group of the course's learners.")
    tas_group = Unicode(config=True, help="The hub group of those who grade (instructors, teaching assistants).")
    roster = Unicode("", config=True, help="LTI_ROSTER's path: a name it gives another LMS user is refused.")
    tool_jwks = Dict(config=True, help="The tool's public key set, served at /hub/lti13/jwks.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.nonces = Nonces()

    @property
    def course_groups(self) -> tuple[str, str]:
        return (self.students_group, self.tas_group)

    def get_handlers(self, app):
        return [*super().get_handlers(app), ("/lti13/jwks", KeySet)]

    async def authenticate(self, handler, data=None):
        """The hub user of a checked id token `data`: {"name", "groups"}; Refused (403) otherwise."""
        token = data or {}
        if token.get(DEPLOYMENT) != self.deployment_id:
            raise Refused(f"this launch comes from another deployment ({token.get(DEPLOYMENT)!r}) than the course's")
        if not self.nonces.first_use(str(token.get("nonce")), token.get("exp", 0)):
            raise Refused("this launch was used before: start again from the LMS")
        groups = self.groups_of(token.get(ROLES))
        if not groups:
            raise Refused("the LMS gives you no role of this course (a learner, a teaching assistant or an instructor)")
        value = names.claim_of(token, self.username_claim)
        if not value:
            raise Refused(f"the LMS sent no {self.username_claim} for you: ask the course's staff")
        name = names.login_name(value)
        self.check_roster(name, str(token.get("sub", "")))
        try:
            uid = pwd.getpwnam(name).pw_uid
        except KeyError:
            raise Refused(
                f"{name} has no account on this host yet: the course's staff make one for each name `lti roster` lists"
            ) from None
        if uid < first_user_uid():
            raise Refused(f"{name} is a system account of this host, not a person's: tell the course's staff")
        return {"name": name, "groups": groups}

    def groups_of(self, launch_roles) -> list[str]:
        """The course's hub groups of a launch's roles: a learner the students', staff the TAs'."""
        return [
            group
            for group, holds in ((self.students_group, roles.is_learner), (self.tas_group, roles.is_staff))
            if holds(launch_roles if isinstance(launch_roles, list) else [])
        ]

    def check_roster(self, name: str, user_id: str) -> None:
        """Refused where `LTI_ROSTER` gives `name` to another LMS user (two users never share a name);
        a roster that cannot be read refuses every launch."""
        if not self.roster:
            return
        try:
            given = roster.read(Path(self.roster))
        except roster.RosterError as error:
            self.log.error("launch refused: %s", error)
            raise Refused("the course's roster cannot be read: tell the course's staff") from None
        if given.get(name, user_id) != user_id:
            raise Refused(f"{name} is another LMS user's name in this course: tell the course's staff")
