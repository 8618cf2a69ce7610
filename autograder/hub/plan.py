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

#: The hub: JupyterHub 5.5, as Zero to JupyterHub 4.4 ships it and The Littlest JupyterHub 2.0 pins it.
JUPYTERHUB = "5.5.4"
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


def for_course(root: Path, students: list[str] | None = None, tas: list[str] | None = None, port: int = 8000) -> Hub:
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
    )
