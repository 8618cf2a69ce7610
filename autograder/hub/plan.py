"""What a course's hub is made of, in one value (`Hub`): the course and its grader account, who is a
student and who a TA, the students' and the staff's environments, the proxy, the ports and where the
hub keeps its state. `hub config` fills it with a production host's paths (`for_course`), `hub demo`
with its own folder's; `autograder.hub.config_file` writes either as a `jupyterhub_config.py`."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from traitlets.config.loader import PyFileConfigLoader

from ..coursedir import config
from ..lms import names, registration

#: The hub: JupyterHub 5.5, as Zero to JupyterHub 4.4 ships it and The Littlest JupyterHub 2.0 pins it.
JUPYTERHUB = "5.5.4"
#: The LTI 1.3 login, where the LMS is the hub's door (`autograder.hub.launch`).
LTI_AUTHENTICATOR = "1.6.3"
#: The proxy in front of it, from npm.
PROXY = "5.3"
#: Where a production host keeps the hub's own files (the database, the cookie secret).
STATE = Path("/srv/jupyterhub")
#: Where a production host puts the students' environment (`autograder.hub.environments`).
STUDENTS_ENV = Path("/opt/{course}/students-env")
#: nbgrader's exchange on a host of many users (docs/students.md).
EXCHANGE = Path("/srv/nbgrader/exchange")


def grader_account(course_id: str) -> str:
    """The Linux account that owns the course and runs its formgrader: nbgrader's `grader-<course>`."""
    return f"grader-{course_id}"


def students_group(course_id: str) -> str:
    """The hub group of the course's students (nbgrader's name for it)."""
    return f"nbgrader-{course_id}"


def tas_group(course_id: str) -> str:
    """The hub group of those who grade in formgrader (nbgrader's name for it)."""
    return f"formgrade-{course_id}"


@dataclass(frozen=True)
class Launch:
    """The LMS as the hub's door (`autograder.hub.launch`): the platform's registration, the
    user-name rule, the roster and the tool's public key set."""

    issuer: str
    client_id: str
    deployment_id: str
    authorize_url: str
    jwks_endpoint: str
    username_claim: str
    roster: str  # LTI_ROSTER's path, "" where the course has none
    tool_jwks: dict


def launch_urls(hub_url: str) -> dict[str, str]:
    """What the LMS asks for on registering the launch (`autograder.hub.launch`), under the hub's
    address `hub_url`: jupyterhub-ltiauthenticator's login initiation and callback, and the tool's key set."""
    base = hub_url.rstrip("/") + "/hub/"
    return {
        "target_link_uri": base,
        "login_initiation": base + "lti13/oauth_login",
        "redirect": base + "lti13/oauth_callback",
        "jwks": base + "lti13/jwks",
    }


def launch_of(root: Path, settings, made: list[Path] | None = None) -> Launch | None:
    """The course's `Launch` where `LTI_AUTHORIZE_URL` is set (every other setting it needs named at
    once when missing: RegistrationError; the tool's key made where there is none, its path appended
    to `made`), else None: the hub logs people in with PAM."""
    if not settings.LTI_AUTHORIZE_URL.strip():
        return None
    registration.check(settings, registration.LAUNCH)
    registration.private_key(root, made)
    return Launch(
        issuer=settings.LTI_ISSUER,
        client_id=settings.LTI_CLIENT_ID,
        deployment_id=settings.LTI_DEPLOYMENT_ID,
        authorize_url=settings.LTI_AUTHORIZE_URL,
        jwks_endpoint=settings.LTI_KEYSET_URL,
        username_claim=names.check_claim(settings.LTI_USERNAME_CLAIM),
        roster=str(root / settings.LTI_ROSTER) if settings.LTI_ROSTER.strip() else "",
        tool_jwks=registration.key_set(root),
    )


@dataclass(frozen=True)
class Hub:
    """Everything a course's `jupyterhub_config.py` names."""

    course_id: str
    course_root: Path
    exchange: Path
    students: tuple[str, ...]
    tas: tuple[str, ...]
    #: the students' environment: jupyterlab, jupyterhub (singleuser), nbgrader and the kit
    students_env: Path
    #: the Python of the instructor's environment (the course package), run by the grader account
    staff_python: Path
    proxy: tuple[str, ...] = ("configurable-http-proxy",)
    state: Path = STATE
    ip: str = "127.0.0.1"
    port: int = 8000
    hub_port: int = 8081
    proxy_api_port: int = 8001
    service_port: int = 10101
    #: the course's exchange lies inside its root and must be moved (`for_course`)
    exchange_moved: bool = False
    #: the LMS as the door (an LTI 1.3 launch) instead of PAM's login page
    launch: Launch | None = None

    @property
    def grader(self) -> str:
        return grader_account(self.course_id)

    @property
    def students_group(self) -> str:
        return students_group(self.course_id)

    @property
    def tas_group(self) -> str:
        return tas_group(self.course_id)

    @property
    def service(self) -> str:
        """The formgrader service's name: nbgrader wants it to be the course id."""
        return self.course_id

    @property
    def url(self) -> str:
        return f"http://{self.ip}:{self.port}/"


def course_exchange(root: Path) -> Path:
    """The exchange the course's `nbgrader_config.py` gives nbgrader (`c.Exchange.root`)."""
    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    return Path(loaded.Exchange.root) if "root" in loaded.Exchange else root / "exchange"


def for_course(
    root: Path,
    students: list[str] | None = None,
    tas: list[str] | None = None,
    port: int = 8000,
    made: list[Path] | None = None,
) -> Hub:
    """The hub of the course at `root` on a production host: the state in /srv/jupyterhub, the
    students' environment in /opt/<course>/students-env, the staff's Python this one, and the
    course's exchange where it lies outside the course root (else /srv/nbgrader/exchange, flagged)."""
    settings = config.load(root)
    exchange = course_exchange(root).resolve()
    inside = exchange == root or root in exchange.parents
    return Hub(
        course_id=settings.COURSE_ID,
        course_root=root,
        exchange=EXCHANGE if inside else exchange,
        students=tuple(students or ()),
        tas=tuple(tas or ()),
        students_env=Path(str(STUDENTS_ENV).format(course=settings.COURSE_ID)),
        staff_python=Path(sys.prefix) / "bin" / "python",
        port=port,
        exchange_moved=inside,
        launch=launch_of(root, settings, made),
    )
