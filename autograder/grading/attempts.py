"""Whose hidden cases are drawn: the course secret, the student and the attempt.

A hidden case is drawn from a seed that is an HMAC, under the course secret, of the assignment, the
check, the student and the attempt. The attempt is the ledger's (`autograder.coursedir.ledger`): its
number and the digest of every byte handed in, so a regrade of one submission draws the same cases,
and any change to what is handed in (a cell, the notebook's metadata, a carried file) draws new ones;
nothing the student writes names the attempt. Nobody without the secret can compute a student's
cases, not even from the instructor package.

The secret is `course_secret` in the course root: created by the first release, never committed
(`.gitignore`), never in the kit, never in a runner's view.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..coursedir import config, privacy

#: The file of the course secret, in the course root.
SECRET_FILE = "course_secret"


class NoSecret(RuntimeError):
    """The course root holds no course secret (no release has made one), or none it may use."""


def create_secret(root: str | os.PathLike) -> Path:
    """Make the course secret (32 random bytes, hex, mode 0600) unless the course root has one."""
    path = Path(root) / SECRET_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return path
    with os.fdopen(descriptor, "w") as file:
        file.write(secrets.token_hex(32) + "\n")
    return path


def read_secret(root: str | os.PathLike) -> bytes:
    """The course secret of a course root; NoSecret names what to do when there is none, or when
    other accounts could read it (checked on the descriptor read, `privacy.is_open`) on a shared host."""
    path = Path(root) / SECRET_FILE
    try:
        with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NOFOLLOW)) as file:
            info = os.fstat(file.fileno())
            if privacy.is_open(info, None) and _shared(config.load(root), info):
                raise NoSecret(
                    f"{path} can be read by other users, who could compute every hidden case from it: "
                    f"`chmod 600 {shlex.quote(str(path))}` (or set SHARED_HOST = False in course_config.py where this host has "
                    "no other users)"
                )
            value = file.read().strip()
    except FileNotFoundError:
        raise NoSecret(
            f"no course secret at {path}: `python -m autograder release` (or `nbgrader generate_assignment`) makes one "
            "(hidden cases are drawn from it, so keep it out of git and the kit)"
        ) from None
    if len(value) < 32:
        raise NoSecret(f"{path} is too short to be a course secret ({len(value)} bytes, at least 32)")
    return value


def _shared(settings, info: os.stat_result) -> bool:
    """Whether a secret of `info` (stat) is open to others on a course's shared host."""
    return settings.SHARED_HOST and privacy.is_open(info, privacy.ta_gid(settings))


@dataclass(frozen=True)
class Attempt:
    """One graded attempt: the course secret, the student, and the ledger's attempt `number` and
    `digest` of the whole hand-in (`autograder.coursedir.ledger.Receipt`)."""

    secret: bytes = field(repr=False)
    student: str
    number: int = 1
    digest: str = ""

    def seed(self, assignment: str, check: str) -> int:
        """The 64-bit seed of this attempt's hidden cases of one check."""
        message = "\x1f".join((assignment, check, self.student, str(self.number), self.digest)).encode(
            "utf-8", "surrogatepass"
        )
        return int.from_bytes(hmac.new(self.secret, message, hashlib.sha256).digest()[:8], "big")
