"""The two Pythons a hub runs besides its own: the students' environment and the staff's.

The students' environment is a venv of its own, readable by all and never the instructor's: the
pinned jupyterlab, jupyterhub (for `jupyterhub-singleuser`), nbgrader (for the Assignments panel;
its formgrader, course list and create-assignment turned off there) and the course kit's wheel, with
`etc/jupyter/nbgrader_config.py` naming the course id and the exchange. It is made from a Python every
account can run, and made again only when what it holds changed (`STAMP`).

The staff's Python is the instructor's environment, run by the grader account: the instructor's own
interpreter where that account can run it, else a venv made from a system Python of the same version
over the instructor's site-packages (a venv's `python` links to the Python it was made from, and one in
a 0700 home such as pyenv's under /root can be run by root alone), open to the grader's group alone."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
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
#: What the students' environment was made from, beside it.
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


def students_env(folder: Path, wheel: Path, course_id: str, exchange: Path, say=print) -> Path:
    """The students' environment in `folder` with the kit `wheel`, made (saying so) unless the one
    there holds the same; its bin folder."""
    python = system_python()
    record = {
        "python": str(python),
        "packages": list(PACKAGES),
        "pins": pins(),
        "kit": _digest(wheel),
        "course_id": course_id,
        "exchange": str(exchange),
    }
    stamp = folder / STAMP
    if stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == record:
        return folder / "bin"
    say(
        f"hub: making the students' environment in {folder} from {python}: jupyterlab, jupyterhub {JUPYTERHUB} "
        f"(singleuser), nbgrader and the kit {wheel.name} (pip; a minute or two the first time) ..."
    )
    shutil.rmtree(folder, ignore_errors=True)
    _run([str(python), "-m", "venv", str(folder)], "making the students' venv")
    bin_ = folder / "bin"
    constraints = folder / "constraints.txt"
    constraints.write_text("".join(f"{pin}\n" for pin in record["pins"]), encoding="utf-8")
    constraints.chmod(0o644)
    quiet = ["--quiet", "--disable-pip-version-check", "--no-input"]
    _run([str(bin_ / "python"), "-m", "pip", "install", *quiet, "--upgrade", "pip"], "upgrading pip there")
    _run(
        [str(bin_ / "python"), "-m", "pip", "install", *quiet, "-c", str(constraints), *PACKAGES, str(wheel)],
        "installing jupyterlab, jupyterhub, nbgrader and the kit there",
    )
    for extension in STAFF_SERVER_EXTENSIONS:
        _run(
            [str(bin_ / "jupyter"), "server", "extension", "disable", "--sys-prefix", extension],
            f"turning {extension} off",
        )
    for extension in STAFF_LAB_EXTENSIONS:
        _run(
            [str(bin_ / "jupyter"), "labextension", "disable", "--level=sys_prefix", extension],
            f"turning {extension} off",
        )
    settings = folder / "etc" / "jupyter" / "nbgrader_config.py"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(STUDENT_CONFIG.format(course_id=course_id, exchange=str(exchange)), encoding="utf-8")
    settings.chmod(0o644)
    stamp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    stamp.chmod(0o644)
    return bin_


def runs_as(account: str, python: Path, code: str) -> bool:
    """Whether `account` can run `code` with `python` (as root, through runuser)."""
    command = ["runuser", "-u", account, "--", "env", "-i", "HOME=/", "PATH=/usr/bin:/bin", str(python), "-c", code]
    return subprocess.run(command, capture_output=True, cwd="/").returncode == 0


#: What the staff's Python must import.
STAFF_IMPORTS = "import autograder, nbgrader, jupyterhub, rnnkit"


def staff_python(folder: Path, account: str) -> tuple[Path, dict[str, str]]:
    """The instructor's Python as `account` runs it, and the environment its Jupyter needs to find
    JupyterLab and the extensions of the instructor's environment where it is a venv in `folder`."""
    own = Path(sys.prefix) / "bin" / "python"
    if runs_as(account, own, STAFF_IMPORTS):
        return own, {}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = next((Path(p) for p in (f"/usr/bin/{version}", f"/usr/local/bin/{version}") if open_to_all(Path(p))), None)
    if system is None:
        raise Unavailable(
            f"{account} cannot run {os.path.realpath(own)} (a folder above it is closed to others) and there is no "
            f"system {version} to make a staff venv from: make the course venv from a Python outside a 0700 home"
        )
    shutil.rmtree(folder, ignore_errors=True)
    _run([str(system), "-m", "venv", "--without-pip", str(folder)], "making the staff venv")
    site = Path(sysconfig.get_paths()["purelib"])
    link = folder / "lib" / version / "site-packages" / "instructor-venv.pth"
    link.write_text(f"import site; site.addsitedir({str(site)!r})\n", encoding="utf-8")
    link.chmod(0o644)
    _scripts(Path(sys.prefix) / "bin", folder / "bin")
    gid = _gid(account)
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, 0, gid, follow_symlinks=False)
    folder.chmod(0o750)  # the grader's group alone: it reaches the instructor package
    python = folder / "bin" / "python"
    if not runs_as(account, python, STAFF_IMPORTS):
        raise Unavailable(
            f"{account} cannot import the course package through {python}: the instructor's venv "
            f"{sys.prefix} must be readable by it"
        )
    prefix = Path(sys.prefix)
    return python, {
        "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
        "JUPYTER_CONFIG_PATH": str(prefix / "etc" / "jupyter"),
        "JUPYTERLAB_DIR": str(prefix / "share" / "jupyter" / "lab"),
    }


def _scripts(source: Path, target: Path) -> None:
    """The console scripts of the venv `source` (nbgrader, jupyter, alembic, which nbgrader runs for
    a new gradebook...) in the venv `target`, each starting its own Python instead."""
    python = target / "python"
    for script in sorted(source.iterdir()):
        if (target / script.name).exists() or not script.is_file() or script.is_symlink():
            continue
        with script.open("rb") as handle:
            first = handle.readline()
        if not first.startswith(f"#!{source}/python".encode()):
            continue
        (target / script.name).write_bytes(f"#!{python}\n".encode() + script.read_bytes()[len(first) :])
        (target / script.name).chmod(0o755)


def _gid(account: str) -> int:
    import pwd

    return pwd.getpwnam(account).pw_gid
