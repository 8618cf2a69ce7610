"""The demo's Linux accounts: the sample class, one TA and the course's grader account, each with a
random password (`chpasswd`) and a home in the demo's folder; `accounts.csv` (`user,password,role`,
mode 0600) says who is who. An account of the host that the demo did not make is never touched: its
name stops the demo. The accounts outlive the demo, which says how to remove them."""

from __future__ import annotations

import csv
import io
import os
import pwd
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..authoring.sample import REFERENCE, STUB, WITH_MISTAKES
from .environments import Unavailable

#: The comment (GECOS) of every account the demo makes: how it knows its own.
MARK = "autograder hub demo"
STUDENTS = (REFERENCE, STUB, *WITH_MISTAKES)
TA = "ta"


@dataclass(frozen=True)
class Account:
    name: str
    password: str
    role: str  # student, ta or grader

    @property
    def uid(self) -> int:
        return pwd.getpwnam(self.name).pw_uid


def _ours(name: str) -> bool | None:
    """True where `name` is an account this demo made, False where another, None where none."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    return entry.pw_gecos == MARK


def make(roles: dict[str, str], homes: Path) -> list[Account]:
    """The accounts of `roles` (name -> role), made where missing, each with a new random password
    and a home `homes/<name>` (0700) of its own."""
    missing = [tool for tool in ("useradd", "chpasswd", "runuser") if shutil.which(tool) is None]
    if missing:
        raise Unavailable(f"the hub demo makes Linux accounts and needs {', '.join(missing)} (apt-get install passwd)")
    theirs = [name for name in roles if _ours(name) is False]
    if theirs:
        raise Unavailable(
            f"{', '.join(theirs)}: accounts of this host that the hub demo did not make; it changes no one's password"
        )
    homes.mkdir(parents=True, exist_ok=True)
    homes.chmod(0o755)
    made = []
    for name, role in roles.items():
        home = homes / name
        if _ours(name) is None:
            result = subprocess.run(
                ["useradd", "--user-group", "--no-create-home", "--home-dir", str(home), "--shell", "/bin/bash"]
                + ["--comment", MARK, name],
                capture_output=True,
                text=True,
            )
            if result.returncode != 0:
                raise Unavailable(f"useradd {name} failed: {result.stderr.strip()}")
        else:
            subprocess.run(["usermod", "--home", str(home), name], capture_output=True, check=True)
        entry = pwd.getpwnam(name)
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(mode=0o700)
        os.chown(home, entry.pw_uid, entry.pw_gid)
        made.append(Account(name, secrets.token_urlsafe(12), role))
    given = subprocess.run(
        ["chpasswd"], input="".join(f"{a.name}:{a.password}\n" for a in made), capture_output=True, text=True
    )
    if given.returncode != 0:
        raise Unavailable(f"chpasswd failed: {given.stderr.strip()}")
    return made


def write_csv(accounts: list[Account], path: Path) -> Path:
    """`user,password,role`, root's alone (0600)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["user", "password", "role"])
    writer.writerows([a.name, a.password, a.role] for a in accounts)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(text.getvalue())
    return path


def read_csv(path: Path) -> list[Account]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [Account(row["user"], row["password"], row["role"]) for row in csv.DictReader(handle)]


def removal(names: list[str]) -> str:
    """The command that removes the demo's accounts (their homes lie in the demo's folder)."""
    return " && ".join(f"userdel {name}" for name in names)
