"""course_config.py read once into one typed object (`autograder.settings.Settings`): defaults in one
place, a value the course cannot use stopped with a message that names it."""
import pytest

from autograder import config
from autograder.settings import Settings, SettingsError

from .conftest import REPO


def test_the_committed_settings_are_read_as_written():
    settings = Settings.read(REPO / "course_config.py")
    assert settings.ASSIGNMENTS == ["ch11_rnn_state", "ch12_bptt", "ch12_gates", "ch12_boundaries"]
    assert (settings.MEMORY_LIMIT_MB, settings.HIDDEN_CASES, settings.FEEDBACK_SHOWS_EXPECTED) == (2048, 6, "after_due")
    assert config.load(REPO) == settings


def test_a_setting_left_out_takes_its_default(tmp_path):
    (tmp_path / "course_config.py").write_text('COURSE_ID = "c"\nASSIGNMENTS = ["ch12_bptt"]\n')
    settings = Settings.read(tmp_path / "course_config.py")
    assert settings.COURSE_ID == "c" and settings.WORKERS == Settings.WORKERS == 2 and settings.POINTS == {}


@pytest.mark.parametrize("line, named", [
    ('MEMORY_LIMIT_MB = "2G"', "MEMORY_LIMIT_MB must be int, not '2G'"),
    ("HIDDEN_CASES = True", "HIDDEN_CASES must be int, not True"),
    ("CALL_TIMEOUT = None", "CALL_TIMEOUT must be int or float, not None"),
    ('COURSE_LANG = "fr"', "COURSE_LANG is 'fr'; it must be one of: en, zh"),
    ('FEEDBACK_SHOWS_EXPECTED = "later"', "it must be one of: never, after_due, always"),
])
def test_a_value_the_course_cannot_use_is_named(tmp_path, line, named):
    (tmp_path / "course_config.py").write_text(line + "\n")
    with pytest.raises(SettingsError, match=named.replace("(", r"\(").replace(")", r"\)")):
        Settings.read(tmp_path / "course_config.py")
