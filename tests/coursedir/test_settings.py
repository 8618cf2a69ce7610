"""course_config.py read once into one typed object (`autograder.coursedir.settings.Settings`): defaults in one
place, a value the course cannot use stopped with a message that names it; course_config.py's comments
are the descriptions declared there, and the limits of student code their defaults in the kit's `Limits`."""

import ast
import itertools
from dataclasses import fields

import pytest

from autograder.coursedir import config
from autograder.coursedir.settings import Settings, SettingsError
from rnnkit.jail.limits import Limits

from ..conftest import REPO


def test_the_committed_settings_are_read_as_written():
    settings = Settings.read(REPO / "course_config.py")
    assert settings.ASSIGNMENTS == ["ch11_rnn_state", "ch12_bptt", "ch12_gates", "ch12_boundaries"]
    assert (settings.MEMORY_LIMIT_MB, settings.HIDDEN_CASES, settings.FEEDBACK_SHOWS_EXPECTED) == (2048, 6, "after_due")
    assert config.load(REPO) == settings


def test_a_setting_left_out_takes_its_default(tmp_path):
    (tmp_path / "course_config.py").write_text('COURSE_ID = "c"\nASSIGNMENTS = ["ch12_bptt"]\n')
    settings = Settings.read(tmp_path / "course_config.py")
    assert settings.COURSE_ID == "c" and settings.WORKERS == Settings.WORKERS == 2 and settings.POINTS == {}


@pytest.mark.parametrize(
    "line, named",
    [
        ('MEMORY_LIMIT_MB = "2G"', "MEMORY_LIMIT_MB must be int, not '2G'"),
        ("HIDDEN_CASES = True", "HIDDEN_CASES must be int, not True"),
        ("CALL_TIMEOUT = None", "CALL_TIMEOUT must be int or float, not None"),
        ('COURSE_LANG = "fr"', "COURSE_LANG is 'fr'; it must be one of: en, zh"),
        ('FEEDBACK_SHOWS_EXPECTED = "later"', "it must be one of: public, never, after_due, always"),
    ],
)
def test_a_value_the_course_cannot_use_is_named(tmp_path, line, named):
    (tmp_path / "course_config.py").write_text(line + "\n")
    with pytest.raises(SettingsError, match=named.replace("(", r"\(").replace(")", r"\)")):
        Settings.read(tmp_path / "course_config.py")


def _comments(path) -> dict[str, str]:
    """course_config.py's settings -> the `#:` comment right above each, its lines joined."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = {}
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            above = list(itertools.takewhile(lambda line: line.startswith("#: "), reversed(lines[: node.lineno - 1])))
            found[target.id] = " ".join(line[3:] for line in reversed(above))
    return found


def test_course_config_lists_every_setting_under_its_description():
    """The committed course_config.py holds every setting, each under the description `Settings` declares."""
    comments = _comments(REPO / "course_config.py")
    assert list(comments) == [setting.name for setting in fields(Settings)]
    assert {name: text for name, text in comments.items() if text != Settings.help(name)} == {}


def test_a_limit_of_student_code_is_a_setting_of_its_name_with_its_default():
    """Each limit a course sets is a field of the kit's `Limits` under the setting's own name, whose
    default is the setting's; `Settings.limits` carries the course's values, the jail's own backstops
    at theirs."""
    settable = [limit for limit in fields(Limits) if limit.name.isupper()]
    assert settable and all(getattr(Settings, limit.name) == limit.default for limit in settable)
    read = Settings(MEMORY_LIMIT_MB=512, SUBMISSION_TIMEOUT=30, CELL_TIMEOUT=5)
    assert read.limits == Limits(MEMORY_LIMIT_MB=512, SUBMISSION_TIMEOUT=30, CELL_TIMEOUT=5)
    assert Settings().limits == Limits()
