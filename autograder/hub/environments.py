"""The two Pythons a hub runs besides its own: the students' environment and the staff's.

The students' environment is a venv of its own, readable by all and never the instructor's: the
pinned jupyterlab, jupyterhub (for `jupyterhub-singleuser`), nbgrader (for the Assignments panel;
its formgrader, course list and create-assignment turned off there) and the course kit's wheel, with
`etc/jupyter/nbgrader_config.py` naming the course id and the exchange. It is made from a Python every
account can run, and made again only when what it holds changed (`STAMP`).

The staff's Python, run by the grader account, is the instructor's own where that account can run it,
else a venv of its own made for a system Python (a venv's `python` links to the Python it was made
from, and one in a 0700 home such as pyenv's under /root can be run by root alone) with the course
package linked to the checkout, open to the grader's group alone. Both are made again only when what
they hold changed (`STAMP`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

from ..coursedir import config
from .plan import JUPYTERHUB

#: What the students' environment is installed from, besides the kit.
PACKAGES = ("jupyterlab", f"jupyterhub=={JUPYTERHUB}", "nbgrader")
#: The pins of requirements.lock the students' environment keeps (the rest follows its Python).
PINNED = (
    "jupyterlab",
    "jupyter_server",
    "notebook",
    "nbgrader",
    "nbconvert",
    "nbformat",
    "nbclient",
    "ipykernel",
    "jupyter_client",
    "jupyter_core",
    "traitlets",
    "tornado",
    "numpy",
    "matplotlib",
    "SQLAlchemy",
    "alembic",
)
#: nbgrader's staff extensions, off in the students' environment.
STAFF_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
STAFF_LAB_EXTENSIONS = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:course-list",
    "@jupyter/nbgrader:create-assignment",
)
#: JupyterLab's plugins that reach the internet (its news), off in the students' environment.
ONLINE_LAB_PLUGINS = ("@jupyterlab/apputils-extension:announcements",)
#: What an environment was made from, beside it.
STAMP = ".students-env.json"

STUDENT_CONFIG = """\
# nbgrader's settings for the students of this environment (written by autograder.hub.environments)
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
"""


class Unavailable(RuntimeError):
    """What a hub needs cannot be made here; the message says why in one line."""


def open_to_all(path: Path) -> bool:
    """Whether every account can reach `path` (links resolved): each folder above it `o+x`, it `o+r`."""
    real = Path(os.path.realpath(path))
    if not real.exists() or not os.stat(real).st_mode & stat.S_IROTH:
        return False
    return all(os.stat(folder).st_mode & stat.S_IXOTH for folder in real.parents)


def system_python() -> Path:
    """A Python every account can run, of this one's version where there is one."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}", "/usr/bin/python3"):
        if Path(candidate).is_file() and open_to_all(Path(candidate)):
            return Path(candidate)
    raise Unavailable(
        f"no Python that every account can run: {os.path.realpath(sys.executable)} is in a folder others cannot "
        f"enter, and there is no /usr/bin/{version} (apt-get install {version}-venv)"
    )


def pins(lock: Path = config.REPO_ROOT / "requirements.lock") -> list[str]:
    """The lock's pins of `PINNED` (none where the lock is not there: an installed package)."""
    if not lock.is_file():
        return []
    wanted = {name.lower().replace("_", "-") for name in PINNED}
    found = []
    for line in lock.read_text(encoding="utf-8").splitlines():
        name = line.split("==")[0].strip()
        if "==" in line and name.lower().replace("_", "-") in wanted:
            found.append(line.strip())
    return found


def _digest(wheel: Path) -> str:
    """What the wheel holds, by name and bytes (a wheel built again from the same files has new times)."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as archive:
        for name in sorted(archive.namelist()):
            digest.update(name.encode() + b"\0" + hashlib.sha256(archive.read(name)).digest())
    return digest.hexdigest()


def _run(command: list[str], doing: str, **kwargs) -> None:
    """Run `command` with the umask of a public install; Unavailable with its last lines on failure."""
    result = subprocess.run(command, capture_output=True, text=True, umask=0o022, **kwargs)
    if result.returncode != 0:
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-1:] or ["(no output)"]
        raise Unavailable(f"{doing} failed: {tail[0]}")


def _current(folder: Path, record: dict) -> bool:
    """Whether the venv in `folder` was made from `record` (its `STAMP`)."""
    stamp = folder / STAMP
    return stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == record


def _made(folder: Path, record: dict, install: list[str], say, what: str) -> Path:
    """A new venv in `folder` of `record["python"]` with `install` (pip arguments, the lock's `pins` as
    constraints), saying `what` it makes; its bin folder. The caller finishes it and then writes its
    `STAMP` (`_stamp`)."""
    say(f"hub: making {what} in {folder} from {record['python']} (pip; a minute or two the first time) ...")
    shutil.rmtree(folder, ignore_errors=True)
    _run([record["python"], "-m", "venv", str(folder)], f"making {what}")
    bin_ = folder / "bin"
    constraints = folder / "constraints.txt"
    constraints.write_text("".join(f"{pin}\n" for pin in record["pins"]), encoding="utf-8")
    constraints.chmod(0o644)
    quiet = ["--quiet", "--disable-pip-version-check", "--no-input"]
    _run([str(bin_ / "python"), "-m", "pip", "install", *quiet, "--upgrade", "pip"], "upgrading pip there")
    _run([str(bin_ / "python"), "-m", "pip", "install", *quiet, "-c", str(constraints), *install], f"installing {what}")
    return bin_


def _stamp(folder: Path, record: dict) -> None:
    """Say what the venv in `folder` was made from, once it is whole."""
    stamp = folder / STAMP
    stamp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    stamp.chmod(0o644)


def students_env(folder: Path, wheel: Path, course_id: str, exchange: Path, say=print) -> Path:
    """The students' environment in `folder` with the kit `wheel`, made (saying so) unless the one
    there holds the same; its bin folder."""
    record = {
        "python": str(system_python()),
        "packages": list(PACKAGES),
        "off": [*STAFF_SERVER_EXTENSIONS, *STAFF_LAB_EXTENSIONS, *ONLINE_LAB_PLUGINS],
        "pins": pins(),
        "kit": _digest(wheel),
        "course_id": course_id,
        "exchange": str(exchange),
    }
    if _current(folder, record):
        return folder / "bin"
    what = f"the students' environment (jupyterlab, jupyterhub {JUPYTERHUB} singleuser, nbgrader, the kit {wheel.name})"
    bin_ = _made(folder, record, [*PACKAGES, str(wheel)], say, what)
    for extension in STAFF_SERVER_EXTENSIONS:
        _run(
            [str(bin_ / "jupyter"), "server", "extension", "disable", "--sys-prefix", extension],
            f"turning {extension} off",
        )
    for extension in (*STAFF_LAB_EXTENSIONS, *ONLINE_LAB_PLUGINS):
        _run(
            [str(bin_ / "jupyter"), "labextension", "disable", "--level=sys_prefix", extension],
            f"turning {extension} off",
        )
    settings = folder / "etc" / "jupyter" / "nbgrader_config.py"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(STUDENT_CONFIG.format(course_id=course_id, exchange=str(exchange)), encoding="utf-8")
    settings.chmod(0o644)
    _stamp(folder, record)
    return bin_


def runs_as(account: str, python: Path, code: str) -> bool:
    """Whether `account` can run `code` with `python` (as root, through runuser)."""
    command = ["runuser", "-u", account, "--", "env", "-i", "HOME=/", "PATH=/usr/bin:/bin", str(python), "-c", code]
    return subprocess.run(command, capture_output=True, cwd="/").returncode == 0


#: What the staff's Python must import.
STAFF_IMPORTS = "import autograder, nbgrader, jupyterhub, jupyter_server_mathjax, rnnkit"
#: What the staff's environment is installed from, besides the course package (linked) and the kit.
STAFF_PACKAGES = (f"jupyterhub=={JUPYTERHUB}", "jupyter_server_mathjax")


def staff_python(folder: Path, account: str, wheel: Path, say=print) -> Path:
    """The Python the grader `account` runs: the instructor's own where that account can run it, else
    a venv in `folder` of a system Python every account can run, made for that Python by pip (the
    instructor's packages are built for the instructor's interpreter: a site-packages lent to another
    patch release can hold packages that refuse it) with the course package linked to this checkout
    (never copied: the sandbox must not show it), the kit `wheel`, JupyterHub and the lock's pins,
    open to the grader's group alone."""
    own = Path(sys.prefix) / "bin" / "python"
    if runs_as(account, own, STAFF_IMPORTS):
        return own
    record = {
        "python": str(system_python()),
        "packages": list(STAFF_PACKAGES),
        "pins": pins(),
        "kit": _digest(wheel),
        "course_package": str(config.REPO_ROOT),
    }
    made = not _current(folder, record)
    if made:
        _made(
            folder, record, ["-e", str(config.REPO_ROOT), *STAFF_PACKAGES, str(wheel)], say, "the staff's environment"
        )
    os.chown(folder, 0, _gid(account))  # the grader's group alone (of this run: the accounts are made anew)
    folder.chmod(0o750)
    python = folder / "bin" / "python"
    if not runs_as(account, python, STAFF_IMPORTS):
        raise Unavailable(
            f"{account} cannot import the course package through {python}: {config.REPO_ROOT} must be readable by it"
        )
    if made:
        _stamp(folder, record)
    return python


def _gid(account: str) -> int:
    import pwd

    return pwd.getpwnam(account).pw_gid
