"""The course's files are the instructor's (`autograder.coursedir.privacy`): what a command makes is
private at any umask, a command stops with one line naming the `chmod` where other accounts could
read or enter what the course keeps, a secret restored 0644 is refused, and `SHARED_HOST = False` or
`TA_GROUP` say who else may read. The real-account test reads the course as another user would."""

from __future__ import annotations

import grp
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.commands.course import BIN, nbgrader_env, release
from autograder.coursedir import config, privacy
from autograder.coursedir.settings import Settings
from autograder.grading.attempts import NoSecret, read_secret

from ..accounts import User, needs_accounts, shared_area
from ..conftest import make_course

A = "ch12_bptt"


def _cli(root: Path, *args: str, umask: int = 0o022) -> subprocess.CompletedProcess:
    """`python -m autograder` as an instructor types it, from a shell whose umask is `umask`."""
    return subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), *args], capture_output=True, text=True, umask=umask
    )


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "nbgrader"), *args], cwd=root, env=nbgrader_env(), capture_output=True, text=True, umask=0o022
    )


def _open(path: Path) -> list[tuple[str, str]]:
    """(path below `path`, mode) of every file and folder there that others or any group may use (a
    link's own mode means nothing: the hostile students' links are there, pointing into the course)."""
    return [
        (str(p.relative_to(path)), stat.filemode(p.lstat().st_mode))
        for p in [path, *path.rglob("*")]
        if "exchange" not in p.relative_to(path).parts and not p.is_symlink() and privacy.is_open(p.lstat(), None)
    ]


def _setting(root: Path, line: str) -> None:
    with (root / "course_config.py").open("a") as handle:
        handle.write(f"\n{line}\n")
    config.load.cache_clear()  # this process read the course's settings at its release


def test_what_the_commands_make_is_private(graded_class):
    """The shared graded class (released, autograded, feedback, sheets and report, made by the
    commands): no file or folder of it but the exchange grants anything to a group or other users."""
    assert _open(graded_class.root) == []
    assert stat.S_IMODE(graded_class.root.stat().st_mode) == 0o700


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    root = make_course(tmp_path_factory.mktemp("privacy") / "course", [A])
    release(root, [A])
    return root


@pytest.fixture
def course(released: Path, tmp_path: Path) -> Path:
    """A copy of the released course, modes kept."""
    return Path(shutil.copytree(released, tmp_path / "course", symlinks=True))


def _opened(course: Path, kept: str) -> Path:
    """`kept` of `course` (the root itself for "") opened to other users as a careless restore would."""
    path = course / kept
    if kept in privacy.KEPT and kept != "course_secret":
        path.mkdir(exist_ok=True)  # (a folder the commands make later)
    path.chmod(stat.S_IMODE(path.stat().st_mode) | (0o055 if path.is_dir() else 0o044))
    return path


@pytest.mark.parametrize(
    "kept",
    [
        "",
        "gradebook.db",
        "course_secret",
        "source",
        "solutions",
        "submitted",
        "autograded",
        "feedback",
        "exports",
        "reports",
    ],
)
def test_each_of_what_the_course_keeps_opened_to_others_is_named_with_the_chmod(course, kept):
    """Each of what the course keeps, opened to other users, is named with its mode and the exact
    command that closes it, and that command makes the course usable again."""
    path = _opened(course, kept)
    with pytest.raises(privacy.Exposed) as refused:
        privacy.enter(course, config.load(course))
    line = str(refused.value)
    assert (
        "\n" not in line and f"{path} ({stat.filemode(path.stat().st_mode)})" in line and "chmod -R go-rwx" in line
    ), line
    subprocess.run(line.split("`")[1], shell=True, check=True)
    privacy.enter(course, config.load(course))
    assert _open(course) == []


def test_the_command_line_and_plain_nbgrader_stop_with_that_one_line(course):
    """`python -m autograder` and plain nbgrader, run from the course, stop before they do anything,
    printing that line alone."""
    path = _opened(course, "gradebook.db")
    for result in (_cli(course, "report"), _nbgrader(course, "db", "student", "list")):
        lines = (result.stdout + result.stderr).strip().splitlines()
        assert result.returncode != 0 and len(lines) == 1, result.stdout + result.stderr
        assert f"{path} (-rw-r--r--)" in lines[0] and "chmod -R go-rwx" in lines[0], lines[0]
    assert not (course / "reports").exists()


def test_a_course_secret_restored_readable_is_refused_on_its_descriptor(course):
    """A secret restored 0644 (from a backup, say) is not used: read_secret says how to close it,
    and the command stops before anything is graded."""
    secret = course / "course_secret"
    secret.chmod(0o644)
    with pytest.raises(NoSecret, match=f"chmod 600 {secret}"):
        read_secret(course)
    result = _cli(course, "autograde", A)
    assert result.returncode != 0 and str(secret) in result.stderr and not (course / "autograded").exists()


def test_a_host_with_one_user_says_so_and_is_not_refused(course):
    """SHARED_HOST = False: an open course is used as it is (the umask stays private)."""
    course.chmod(0o755)
    (course / "course_secret").chmod(0o644)
    _setting(course, "SHARED_HOST = False")
    assert _cli(course, "report").returncode == 0
    assert read_secret(course)


def test_the_tas_group_may_read_and_no_other(course):
    """TA_GROUP names the group that may read; a folder of another group, or a group the host does
    not have, stops the command with its line."""
    group = grp.getgrgid(os.getgid()).gr_name
    source = course / "source"
    source.chmod(0o750)
    _setting(course, f"TA_GROUP = {group!r}")
    assert _cli(course, "report").returncode == 0
    other = next((g for g in grp.getgrall() if g.gr_gid != os.getgid()), None)
    if other is not None and os.geteuid() == 0:
        os.chown(source, -1, other.gr_gid)
        result = _cli(course, "report")
        assert result.returncode != 0 and f"chgrp -R {group} {source}" in result.stderr, result.stderr
        os.chown(source, -1, os.getgid())
    _setting(course, 'TA_GROUP = "no-such-group-here"')
    result = _cli(course, "report")
    assert result.returncode != 0 and "TA_GROUP is 'no-such-group-here'" in result.stderr


def test_an_open_checkout_is_named_once_with_its_chmod(tmp_path):
    """The Makefile's note: a checkout others can enter is named with the command that closes it;
    a private one, and a folder that is no checkout, say nothing."""
    (tmp_path / ".git").mkdir()
    tmp_path.chmod(0o755)
    note = privacy.checkout_note(tmp_path)
    assert note and f"chmod -R go-rwx {tmp_path}" in note
    tmp_path.chmod(0o700)
    assert privacy.checkout_note(tmp_path) is None


def test_the_remedy_closes_the_root_and_whatever_lies_outside_it(tmp_path):
    """Where the root is open, one recursive chmod of it, and of what lies outside it (a gradebook
    elsewhere), is the remedy."""
    root, outside = tmp_path / "course", tmp_path / "elsewhere.db"
    assert (
        privacy.remedy([root, root / "source", outside], root, Settings())
        == f"chmod -R go-rwx {shlex.quote(str(root))} {shlex.quote(str(outside))}"
    )


def test_another_account_reads_nothing_of_a_course_made_at_the_default_umask():
    """A course made in a folder other accounts may enter, by commands run from a shell at umask
    022 (release, export, report): another account can neither list its root nor read
    its gradebook, secret, source notebook or solutions."""
    needs_accounts()
    with shared_area("rnn-privacy-") as area:
        root = make_course(area / "course", [A])
        for command in (("release", A), ("export",), ("report",)):
            result = _cli(root, *command)
            assert result.returncode == 0, result.stdout + result.stderr
        other = User("rnnneighbour", area)
        assert other.run("ls", str(root)).returncode != 0
        for kept in (
            "gradebook.db",
            "course_secret",
            f"source/{A}/{A}.ipynb",
            f"solutions/{A}.py",
            "exports/grades.csv",
            "reports/class-report.html",
        ):
            assert (root / kept).is_file(), kept
            assert not other.can_read(root / kept), kept
