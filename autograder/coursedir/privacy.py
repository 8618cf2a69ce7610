"""The course's files are the instructor's: a private umask for whatever the course makes, and a
refusal, as ssh refuses a key others can read, where other accounts could read or enter what the
course keeps.

Importing the package sets the umask to 077 (`autograder/__init__.py`), so every file and folder a
command makes is 0600/0700; `enter` (called by every command on its course: the command line, and
plain nbgrader through `autograder.pipeline.configure`) sets it to 027 where `TA_GROUP` names the
TAs' group, and stops with one line (`Exposed`) when the course root or one of `KEPT` (or the
instructor package, where it is installed rather than a checkout) has a permission bit for other
users, or for a group other than `TA_GROUP`. `SHARED_HOST = False` says the host has one user and
turns the refusal off (the umask stays). The exchange is not checked: it keeps nbgrader's modes.
The student kit is the public half: it is installed readable by all (`autograder.authoring.kit`).

`python -m autograder.coursedir.privacy` prints, once per install (the Makefile runs it), what to do
about a checkout that other users can read: its solutions and the instructor package are in it.
"""

from __future__ import annotations

import grp
import os
import shlex
import stat
import sys
from pathlib import Path

from . import config
from .settings import Settings

#: The umask of every command: the instructor's alone, or readable (never writable) by the TAs' group.
PRIVATE, TEAM = 0o077, 0o027
#: What the course keeps below its root, each checked on its own mode (as ssh checks a key's).
KEPT = ("course_secret", "source", "solutions", "submitted", "autograded", "feedback", "exports", "reports")


class Exposed(ValueError):
    """Other accounts could read or enter what the course keeps; the message is one line naming the
    paths and the exact command that makes them private."""


def ta_gid(settings: Settings) -> int | None:
    """The gid of `TA_GROUP`, None where none is named; Exposed where the group does not exist."""
    if not settings.TA_GROUP:
        return None
    try:
        return grp.getgrnam(settings.TA_GROUP).gr_gid
    except KeyError:
        raise Exposed(
            f"course_config.py: TA_GROUP is {settings.TA_GROUP!r}, which is no group of this host "
            "(getent group lists them); empty: the instructor's account alone"
        ) from None


def is_open(info: os.stat_result, gid: int | None) -> bool:
    """Whether a file of `info` (stat) gives any permission to other users, or to a group other
    than the TAs' (`gid`; None: to any group)."""
    return bool(info.st_mode & 0o007 or (info.st_mode & 0o070 and info.st_gid != gid))


def kept(root: Path, settings: Settings) -> list[Path]:
    """The course root, its gradebook (an SQLite file), `KEPT`, and the instructor package where it
    is installed (a checkout is said once by `checkout_note`): the paths that must be private."""
    paths = [root, *(root / name for name in KEPT)]
    url = config.database_url(root, settings)
    if url.startswith("sqlite:///"):
        paths.append(Path(url[len("sqlite:///") :]))
    if not (config.REPO_ROOT / ".git").exists():
        paths.append(config.PACKAGE)
    return paths


def exposed(root: Path, settings: Settings) -> list[tuple[Path, int]]:
    """(path, mode) of each of `kept` that `is_open`, followed to what a link names."""
    gid, found = ta_gid(settings), []
    for path in kept(root, settings):
        try:
            info = os.stat(path)
        except FileNotFoundError:
            continue
        if is_open(info, gid):
            found.append((path, info.st_mode))
    return found


def remedy(paths: list[Path], root: Path, settings: Settings) -> str:
    """The command that makes `paths` private: the whole root where it is among them."""
    targets = [root, *(p for p in paths if p != root and root not in p.parents)] if root in paths else paths
    named = " ".join(shlex.quote(str(p)) for p in targets)
    if settings.TA_GROUP:
        return f"chgrp -R {settings.TA_GROUP} {named} && chmod -R g-w,o-rwx {named}"
    return f"chmod -R go-rwx {named}"


def enter(root: str | os.PathLike, settings: Settings) -> None:
    """Set this process's umask for the course at `root` and refuse (Exposed) where other accounts
    could read or enter what it keeps, unless `SHARED_HOST` is False."""
    os.umask(TEAM if settings.TA_GROUP else PRIVATE)
    if not settings.SHARED_HOST:
        return
    root = Path(root).resolve()
    found = exposed(root, settings)
    if found:
        shown = ", ".join(f"{path} ({stat.filemode(mode)})" for path, mode in found)
        raise Exposed(
            f"other users can read or enter what the course keeps: {shown}; make it private with "
            f"`{remedy([path for path, _ in found], root, settings)}` (or set SHARED_HOST = False in "
            f"course_config.py where this host has no other users)"
        )


def checkout_note(checkout: Path = config.REPO_ROOT) -> str | None:
    """What to do about a checkout of the course that other users can enter, or None."""
    if not (checkout / ".git").exists() or not is_open(os.stat(checkout), None):
        return None
    return (
        f"note: {checkout} is open to other users ({stat.filemode(os.stat(checkout).st_mode)}): it holds the "
        f"solutions and the instructor package. On a host with other users run `chmod -R go-rwx {shlex.quote(str(checkout))}` "
        f"before grading there (the demo's and the tests' courses are private already)."
    )


if __name__ == "__main__":
    note = checkout_note()
    if note:
        print(note, file=sys.stderr)
