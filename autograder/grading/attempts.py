"""Whose hidden cases are drawn: the course secret, the student and the attempt.

A hidden case is drawn from a seed that is an HMAC, under the course secret, of the assignment, the
check, the student and the attempt. The attempt is nbgrader's submission timestamp together with a
digest of the cells the student handed in, so a regrade of one submission draws the same cases, a
new submission draws new ones (a forged timestamp included: the cells differ, or the answer does),
and nobody without the secret can compute a student's cases, not even from the instructor package.

The secret is `course_secret` in the course root: created by the first release, never committed
(`.gitignore`), never in the kit, never in a runner's view.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

#: The file of the course secret, in the course root.
SECRET_FILE = "course_secret"


class NoSecret(RuntimeError):
    """The course root holds no course secret (no release has made one)."""


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
    """The course secret of a course root; NoSecret names what to do when there is none."""
    path = Path(root) / SECRET_FILE
    try:
        with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NOFOLLOW)) as file:
            value = file.read().strip()
    except FileNotFoundError:
        raise NoSecret(f"no course secret at {path}: `python -m autograder release` (or `nbgrader generate_assignment`) makes one "
                       "(hidden cases are drawn from it, so keep it out of git and the kit)") from None
    if len(value) < 32:
        raise NoSecret(f"{path} is too short to be a course secret ({len(value)} bytes, at least 32)")
    return value


def cells_digest(nb: nbformat.NotebookNode) -> str:
    """A digest of what the student wrote: the type and source of every cell, in order (outputs,
    metadata and execution counts left out, so running the notebook again changes nothing)."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        digest.update(f"{cell.cell_type}\x1e{source}\x1d".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@dataclass(frozen=True)
class Attempt:
    """One graded attempt: the course secret, the student, and what marks the attempt (nbgrader's
    submission timestamp as ISO text, "" when none, and `cells_digest` of the submission)."""

    secret: bytes = field(repr=False)
    student: str
    submitted: str = ""
    digest: str = ""

    def seed(self, assignment: str, check: str) -> int:
        """The 64-bit seed of this attempt's hidden cases of one check."""
        message = "\x1f".join((assignment, check, self.student, self.submitted, self.digest)).encode("utf-8", "surrogatepass")
        return int.from_bytes(hmac.new(self.secret, message, hashlib.sha256).digest()[:8], "big")
