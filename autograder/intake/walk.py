"""The walk of a submission folder: what it may hold, read before nbgrader copies or reads any of it.

Everything under `submitted/<student>/<assignment>/` is the student's, so nothing here follows a
link: the folder is opened once (`open_folder`, `O_NOFOLLOW`) and walked with `lstat` through
directory descriptors from that one, without recursion, so a folder chain of any depth is read in
bounded memory (`inspect`); its notebooks are read (`unreadable`) and its carried files copied
(`copy_at`) relative to the same descriptor, and a file that changes while it is copied is refused
(`Changed`). A folder that holds anything but regular files and folders (symbolic links, hard
links, devices, FIFOs, sockets), misses its notebook, or is larger than the limits below gets the
reasons in its `Verdict`. The reasons name files through `autograder.intake.escape.quoted`, so no
control character of a name reaches a terminal or a comment.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import nbformat
from nbformat.reader import NotJSONError
from nbgrader.converters import NbGraderException
from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError, ValidationError

from ..coursedir.ledger import CARRIED
from ..labels import label
from .escape import code_span, quoted, shown

#: Entries (files and folders) a submission folder may hold, and how deep its folders may go.
MAX_ENTRIES = 2000
MAX_DEPTH = 32
#: Cells a notebook may have (the released ones have about forty): each costs the grader a round
#: trip to the runner and may add a note to the graded notebook.
MAX_CELLS = 1000
#: Bytes a timestamp.txt may have (nbgrader writes about thirty).
MAX_TIMESTAMP_BYTES = 100
#: Bytes one carried file may have (the notebook included).
MAX_FILE_BYTES = 64 * 1024 * 1024

#: The label of each kind of file admission refuses (`admission.kind.*`).
_KINDS = {
    stat.S_IFLNK: "link",
    stat.S_IFCHR: "character_device",
    stat.S_IFBLK: "block_device",
    stat.S_IFIFO: "fifo",
    stat.S_IFSOCK: "socket",
}
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: A file opened to be read: never through a link, never waiting for the writer of a FIFO.
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Refused(NbGraderException):
    """A submission that admission refused, for its `reasons` (a list of phrases)."""

    def __init__(self, reasons: list[str]):
        super().__init__(reasons)
        self.reasons = reasons

    def __str__(self) -> str:
        return label("admission.join").join(self.reasons)


class Changed(Exception):
    """A file or folder changed while it was read: what was read is not one state of it."""


@dataclass
class Verdict:
    """What admission found in one submission folder."""

    folder: Path
    reasons: list[str] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # top-level regular file -> size

    @property
    def admitted(self) -> bool:
        return not self.reasons


def _entries(fd: int):
    """(name, lstat) of each entry of the open folder `fd`, links not followed."""
    with os.scandir(fd) as listing:
        for entry in listing:
            yield entry.name, os.stat(entry.name, dir_fd=fd, follow_symlinks=False)


def _named(name: str) -> str:
    """A student's file name in a reason: quoted (`quoted`) in a markdown code span, so that the
    gradebook comment shows it as written."""
    return code_span(quoted(name))


def _not_regular(path: str, kind: int | None) -> str:
    """Why a file of `kind` (a stat S_IFMT value, None when unknown) at `path` is refused."""
    return label("admission.special_file", path=_named(path), kind=label(f"admission.kind.{_KINDS.get(kind, 'other')}"))


def open_folder(path: str | Path) -> int:
    """A descriptor of the submission folder `path`, its last component never followed as a link;
    Refused where it cannot be opened as a plain folder."""
    try:
        return os.open(path, _OPEN_DIR)
    except OSError as error:
        raise Refused([label("admission.folder_unopenable", error=error.strerror)]) from None


def _close_all(stack: list[tuple[int, str]]) -> None:
    """Close the folders still to be walked and forget them (a walk that stops early)."""
    for current, _ in stack:
        os.close(current)
    stack.clear()


def inspect(folder: Path, notebook: str, fd: int | None = None) -> Verdict:
    """Walk the submission folder `folder` from a descriptor of it, `fd` where given (`open_folder`;
    left open), without following links, and say whether it may be graded; `notebook` is the
    assignment's notebook file name, which must be a top-level regular file."""
    verdict = Verdict(Path(folder))
    try:
        top = os.dup(fd) if fd is not None else open_folder(folder)
    except Refused as refusal:
        verdict.reasons += refusal.reasons
        return verdict
    seen = 0
    stack = [(top, "")]
    try:
        while stack and len(verdict.reasons) < 10:
            current, prefix = stack.pop()
            try:
                for name, info in _entries(current):
                    seen += 1
                    path = prefix + name
                    kind = stat.S_IFMT(info.st_mode)
                    if seen > MAX_ENTRIES:
                        verdict.reasons.append(label("admission.too_many_entries", count=str(MAX_ENTRIES)))
                        _close_all(stack)
                        break
                    if kind == stat.S_IFDIR:
                        if path.count("/") + 1 >= MAX_DEPTH:
                            verdict.reasons.append(label("admission.too_deep", depth=str(MAX_DEPTH), path=_named(path)))
                            _close_all(stack)
                            break
                        stack.append((os.open(name, _OPEN_DIR, dir_fd=current), path + "/"))
                    elif kind != stat.S_IFREG:
                        verdict.reasons.append(_not_regular(path, kind))
                    elif info.st_nlink > 1:
                        verdict.reasons.append(
                            label("admission.hard_link", path=_named(path), links=str(info.st_nlink))
                        )
                    elif not prefix:
                        verdict.files[name] = info.st_size
            finally:
                os.close(current)
    except OSError as error:
        verdict.reasons.append(label("admission.unreadable", error=error.strerror))
    finally:
        _close_all(stack)
    if not verdict.reasons:
        if notebook not in verdict.files:
            verdict.reasons.append(label("admission.no_notebook", notebook=_named(notebook)))
        for name in (notebook, *CARRIED):
            if verdict.files.get(name, 0) > MAX_FILE_BYTES:
                verdict.reasons.append(
                    label("admission.too_large", name=_named(name), megabytes=str(MAX_FILE_BYTES // 2**20))
                )
    return verdict


def open_plain(name: str | Path, dir_fd: int | None = None) -> int | None:
    """A descriptor of the file `name` (relative to `dir_fd` where given), opened without following
    a link at its last component, where fstat says it is a regular file of one name; None where it
    is a link or anything else."""
    try:
        fd = os.open(name, _OPEN_FILE, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
        raise
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
        return fd
    os.close(fd)
    return None


def _state(info: os.stat_result) -> tuple:
    """What a write or a replacement changes of a file: its inode, size, mtime and ctime."""
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def copy_at(dir_fd: int | None, name: str | Path, target: Path) -> os.stat_result:
    """Copy the file `name` of the open folder `dir_fd` (a path where `dir_fd` is None) to `target`,
    through one descriptor (`open_plain`); its fstat after the last byte was read. Changed where it is
    gone, or no longer a regular file of one name, or was written while it was read (its fstat before
    and after differ)."""
    try:
        fd = open_plain(name, dir_fd)
    except FileNotFoundError:
        fd = None
    if fd is None:
        raise Changed(f"{name} is no longer a regular file of one name")
    with os.fdopen(fd, "rb") as source:
        before = os.fstat(fd)
        with open(target, "wb") as copy:
            shutil.copyfileobj(source, copy)
        after = os.fstat(fd)
    if _state(before) != _state(after):
        raise Changed(f"{name} was written while it was copied")
    return after


#: What reading a notebook, or its nbgrader metadata, raises where the notebook is at fault.
UNREADABLE = (
    NotJSONError,
    nbformat.ValidationError,
    jsonschema.ValidationError,
    ValidationError,
    SchemaTooOldError,
    SchemaTooNewError,
)


def unreadable(folder_fd: int, name: str) -> str | None:
    """Why the notebook `name` of the open folder `folder_fd` (an admitted regular file) cannot be
    graded, or None."""
    try:
        with open(name, "rb", opener=lambda path, flags: os.open(path, flags | _OPEN_FILE, dir_fd=folder_fd)) as file:
            notebook = nbformat.reads(file.read().decode("utf-8"), as_version=4)
    except (*UNREADABLE, UnicodeDecodeError, RecursionError, ValueError, KeyError, TypeError, AttributeError) as error:
        return label("admission.not_a_notebook", name=_named(name), cause=code_span(cause(error)))
    if len(notebook.cells) > MAX_CELLS:
        return label("admission.too_many_cells", name=_named(name), cells=str(len(notebook.cells)), most=str(MAX_CELLS))
    return None


def cause(error: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    lines = str(error).strip().splitlines()
    return shown(f"{type(error).__name__}: {lines[0] if lines else ''}"[:300])
