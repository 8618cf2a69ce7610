"""The command line says clearly what is wrong and changes nothing when the input is bad."""
import subprocess
import sys

from .conftest import make_course


def _cli(root, *args):
    return subprocess.run([sys.executable, "-m", "autograder", "--root", str(root), *args], capture_output=True, text=True)


def test_an_unknown_assignment_is_named_with_the_known_ones(tmp_path):
    result = _cli(make_course(tmp_path / "course"), "release", "ch99")
    assert result.returncode != 0 and "unknown assignment(s) ['ch99']" in result.stderr and "ch12_bptt" in result.stderr


def test_a_missing_submission_is_reported_without_touching_the_gradebook(tmp_path):
    root = make_course(tmp_path / "course")
    result = _cli(root, "autograde", "ch12_bptt", "--student", "nobody")
    assert result.returncode != 0 and "no submission at submitted/nobody/ch12_bptt" in result.stderr
    assert not (root / "gradebook.db").exists() and not (root / "autograded").exists()
