"""Real Linux accounts for the tests of a shared host: students, a TA, another user trying its luck.

`account(name)` makes an unprivileged account (no home, no login shell) once and leaves it;
`User` gives it a home folder under a test's own area and runs its commands through `runuser`
with a clean environment; `student_python` finds a Python that such an account can run and that
imports nbgrader and the kit; `area` is a folder under /tmp that other users may enter (pytest's
tmp_path is 0700). Everything needs root, `useradd` and `runuser`: `needs_accounts()` skips
otherwise, with the reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest

from autograder.commands.course import BIN

#: Seconds any one command may take before its process group is killed.
TIMEOUT = 300

STUDENT_CONFIG = """\
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
"""


def needs_accounts() -> None:
    """Skip the calling test, with the reason, where accounts cannot be made and acted as."""
    if os.geteuid() != 0:
        pytest.skip("needs root: it creates accounts and runs commands as them")
    missing = [tool for tool in ("useradd", "runuser") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {' and '.join(missing)} to make and act as another account")


def run(
    command: list[str], cwd: Path, env: dict | None = None, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess:
    """Run one command in a process group of its own, killed (the group) when it outlasts `timeout`."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"{' '.join(command)} took more than {timeout} s:\n{stdout[-3000:]}\n{stderr[-3000:]}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, (
        f"{' '.join(result.args)} failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    return result


def account(name: str) -> pwd.struct_passwd:
    """The unprivileged account `name`, created (no home, no login shell) when it is missing."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    made = subprocess.run(
        [
            "useradd",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            name,
        ],
        capture_output=True,
        text=True,
    )
    try:
        return pwd.getpwnam(name)  # made now, or by a concurrent run
    except KeyError:
        pytest.skip(f"could not create the user {name} with useradd: {made.stderr.strip()}")


class User:
    """One account, with a home folder of its own under `area`; its commands run through
    `runuser -u <name>` with a clean environment (HOME, USER, PATH: `python_bin` first). Given an
    `exchange`, its `~/.jupyter/nbgrader_config.py` names only the course id and the exchange (the
    README's student set-up)."""

    def __init__(
        self,
        name: str,
        area: Path,
        python_bin: Path = BIN,
        exchange: Path | None = None,
        course_id: str = "rnn-chapters",
    ):
        self.account = account(name)
        self.name = name
        self.home = area / "home" / name
        (area / "home").mkdir(exist_ok=True)
        (area / "home").chmod(0o755)  # every account reaches its own home (this process's umask is the course's, 077)
        self.home.mkdir()
        if exchange is not None:
            (self.home / ".jupyter").mkdir()  # where the README tells students to put it
            (self.home / ".jupyter" / "nbgrader_config.py").write_text(
                STUDENT_CONFIG.format(course_id=course_id, exchange=str(exchange))
            )
        self.give(self.home)
        self.home.chmod(0o700)
        self.python_bin = python_bin

    @property
    def uid(self) -> int:
        return self.account.pw_uid

    def give(self, path: Path) -> None:
        """Make `path` (and everything under it) the account's, as if it had written it."""
        for item in [path, *(path.rglob("*") if path.is_dir() else [])]:
            os.chown(item, self.account.pw_uid, self.account.pw_gid, follow_symlinks=False)

    def command(self, *command: str) -> list[str]:
        """`command` as this account runs it (for a process the test starts and watches itself)."""
        env = [
            "env",
            "-i",
            f"HOME={self.home}",
            f"USER={self.name}",
            f"LOGNAME={self.name}",
            "LANG=C.UTF-8",
            f"PATH={self.python_bin}:/usr/local/bin:/usr/bin:/bin",
        ]
        return ["runuser", "-u", self.name, "--", *env, *command]

    def run(self, *command: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
        return run(self.command(*command), cwd=self.home, timeout=timeout)

    def python(self, code: str, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
        """Python `code` run by this account with `python_bin`'s interpreter."""
        return self.run(str(self.python_bin / "python"), "-c", code, *args, timeout=timeout)

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        """`nbgrader ...` as the student types it in their home folder (`python -m nbgrader`: the
        student's Python is on PATH, whatever the script's first line says)."""
        return self.run(str(self.python_bin / "python"), "-m", "nbgrader", *args)

    def can_read(self, path: Path) -> bool:
        return self.run("cat", str(path)).returncode == 0


def student_python(area: Path, probe: str) -> Path:
    """A bin folder whose `python` another user can run and that imports nbgrader and the kit.

    The course venv's own when `probe` (an unprivileged account) can run it. A venv's `python` is a
    link to the interpreter it was made from, so a venv made from a Python in root's home (pyenv's
    under /root, mode 0700) cannot be run by anyone else, however open the venv's folder is: then a
    venv is made here from a system Python of the same version, holding only a `.pth` that adds the
    course venv's site-packages (the venv folder itself is readable). Skips when neither works."""
    check = ["-c", "import nbgrader, ipykernel, rnnkit"]
    env = ["env", "-i", "HOME=/tmp", "PATH=/usr/bin:/bin"]

    def runs(python: Path) -> subprocess.CompletedProcess:
        return run(["runuser", "-u", probe, "--", *env, str(python), *check], cwd=Path("/"))

    own = runs(BIN / "python")
    if own.returncode == 0:
        return BIN
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    real = Path(os.path.realpath(BIN / "python"))
    where = (
        f"the course venv {sys.prefix} cannot be run by {probe}: its python is {real}, and every folder above "
        f"the venv and above that interpreter must be readable (r-x) by all users, so the venv must be made from "
        f"a Python outside a 0700 home such as /root (e.g. /usr/bin/{version}, or one in /opt) and live outside "
        f"one too ({own.stderr.strip()[-300:]})"
    )
    system = next((Path(p) for p in (f"/usr/bin/{version}", f"/usr/local/bin/{version}") if Path(p).is_file()), None)
    if system is None:
        pytest.skip(where + f"; and there is no system {version} to make a student venv from")
    venv = area / "student-venv"
    made = subprocess.run(
        [str(system), "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True, umask=0o022
    )
    if made.returncode != 0:
        pytest.skip(where + f"; and {system} -m venv failed: {made.stderr.strip()[-300:]}")
    site = Path(sysconfig.get_paths()["purelib"])  # the course venv's site-packages
    link = venv / "lib" / version / "site-packages" / "course-venv.pth"
    link.write_text(f"import site; site.addsitedir({str(site)!r})\n")
    link.chmod(0o644)
    found = runs(venv / "bin" / "python")
    if found.returncode != 0:
        pytest.skip(
            where
            + f"; and a {system} venv over its site-packages does not import nbgrader: {found.stderr.strip()[-300:]}"
        )
    warnings.warn(f"{where}; the students use a venv made from {system} over the course venv's site-packages instead")
    return venv / "bin"


@contextmanager
def shared_area(prefix: str):
    """A folder of the test's own under /tmp that other users may enter, removed after."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
