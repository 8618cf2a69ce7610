"""The Chinese message catalogue: every English message file has a Chinese twin with the same ids
and the same placeholders, each Chinese message is written in Chinese, and `COURSE_LANG=zh` selects it.

The files are read from the repository (kit/rnnkit/messages), not from the installed package, which
only holds them once the environment is rebuilt."""

from __future__ import annotations

import builtins
import json
import keyword
import re
from pathlib import Path

import pytest

from rnnkit.messages import _FIELD

REPO = Path(__file__).resolve().parents[2]
MESSAGES = REPO / "kit" / "rnnkit" / "messages"
ENGLISH = sorted(MESSAGES.glob("*.en.json"))

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BACKTICKED = re.compile(r"`[^`]*`")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: A word-like token, with what may hang on it in code: dots, stars, a call's parentheses.
_WORD = re.compile(r"[A-Za-z_][\w.*]*(?:\([^()\s]*\))?")
#: Python's own names (True, None, float, dict, ...), code wherever they stand.
_PYTHON_NAMES = set(keyword.kwlist) | set(dir(builtins))


def _load(path: Path) -> dict[str, str]:
    """The messages of one file; a Chinese file's translations of the public cases' labels
    (`label.<English label>`, which have no English twin) are tests/test_case_labels_zh.py's."""
    return {
        key: value
        for key, value in json.loads(path.read_text(encoding="utf-8")).items()
        if not key.startswith("label.")
    }


def _chinese(path: Path) -> Path:
    return path.with_name(path.name[: -len(".en.json")] + ".zh.json")


def _placeholders(message: str) -> set[str]:
    return {match.group(0) for match in _FIELD.finditer(message)}


def _is_identifier(word: str) -> bool:
    """Code rather than prose: W_h, h_prev, math.*, float(), NotImplementedError, x_1, h0, True."""
    return word in _PYTHON_NAMES or bool(re.search(r"[_.(*\d]", word) or re.search(r"[a-z][A-Z]", word))


def _prose(message: str) -> str:
    """`message` without placeholders, backticked code, identifiers and numbers."""
    rest = _BACKTICKED.sub(" ", _FIELD.sub(" ", message))
    rest = _WORD.sub(lambda m: " " if _is_identifier(m.group(0)) else m.group(0), rest)
    return _NUMBER.sub(" ", rest)


def _mostly_chinese(message: str) -> bool:
    prose = _prose(message)
    cjk = len(_CJK.findall(prose))
    ascii_letters = sum(char.isascii() and char.isalpha() for char in prose)
    return cjk >= 1 and cjk > ascii_letters


def test_there_are_message_files():
    assert ENGLISH, f"no *.en.json in {MESSAGES}"
    assert any(path.name == "core.en.json" for path in ENGLISH)


@pytest.mark.parametrize("english", ENGLISH, ids=lambda path: path.name)
def test_chinese_file_has_the_same_ids_in_the_same_order(english: Path):
    chinese = _chinese(english)
    assert chinese.is_file(), f"{chinese.name} is missing"
    en, zh = _load(english), _load(chinese)
    assert set(zh) - set(en) == set(), f"{chinese.name} has ids that {english.name} does not have"
    assert set(en) - set(zh) == set(), f"{chinese.name} lacks ids of {english.name}"
    assert list(zh) == list(en), f"{chinese.name} lists the ids in another order than {english.name}"


@pytest.mark.parametrize("english", ENGLISH, ids=lambda path: path.name)
def test_chinese_file_is_formatted_as_the_english_one(english: Path):
    text = _chinese(english).read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("english", ENGLISH, ids=lambda path: path.name)
def test_each_chinese_message_has_the_same_placeholders(english: Path):
    en, zh = _load(english), _load(_chinese(english))
    wrong = {
        key: (sorted(_placeholders(en[key])), sorted(_placeholders(zh[key])))
        for key in en.keys() & zh.keys()
        if _placeholders(en[key]) != _placeholders(zh[key])
    }
    assert not wrong, f"placeholders differ (English, Chinese): {wrong}"


@pytest.mark.parametrize("english", ENGLISH, ids=lambda path: path.name)
def test_each_chinese_message_is_written_in_chinese(english: Path):
    """Each message with words is written in Chinese (a layout of placeholders, such as
    "{label}: {message}", has no words to translate: only its punctuation is Chinese)."""
    en, zh = _load(english), _load(_chinese(english))
    not_chinese = [
        key
        for key, message in zh.items()
        if not isinstance(message, str)
        or (not _mostly_chinese(message) and any(char.isalpha() for char in _prose(en[key])))
    ]
    assert not not_chinese, f"{_chinese(english).name}: not mostly Chinese: {not_chinese}"


@pytest.mark.parametrize("english", ENGLISH, ids=lambda path: path.name)
def test_the_chinese_check_rejects_english(english: Path):
    """The check above has teeth: no English message passes it."""
    passing = [key for key, message in _load(english).items() if _mostly_chinese(message)]
    assert not passing


def test_no_id_is_defined_twice_across_the_chinese_files():
    seen: dict[str, str] = {}
    for path in sorted(MESSAGES.glob("*.zh.json")):
        for key in _load(path):
            assert key not in seen, f"{key!r} is in {seen.get(key)} and in {path.name}"
            seen[key] = path.name


def test_course_lang_zh_gives_the_chinese_sentence(monkeypatch, repository_messages):
    template = _load(MESSAGES / "core.zh.json")["check.not_implemented"]
    monkeypatch.setenv("COURSE_LANG", "zh")
    sentence = repository_messages.text("check.not_implemented", name="f")
    assert sentence == template.replace("{name}", "f")
    assert sentence.startswith("f") and "占位代码" in sentence and "{" not in sentence
    monkeypatch.setenv("COURSE_LANG", "en")
    assert repository_messages.text("check.not_implemented", name="f") != sentence


_HALF_WIDTH_BY_CJK = re.compile(r"[\u3400-\u9fff][,:;()?!]|[,:;()?!][\u3400-\u9fff]")


@pytest.mark.parametrize("english", ENGLISH, ids=lambda path: path.name)
def test_chinese_prose_uses_full_width_punctuation(english: Path):
    """Beside a Chinese character a comma, colon, semicolon, bracket, question or exclamation mark
    is full-width (，：；（）？！); code (backticked) and placeholders aside."""
    zh = _load(_chinese(english))
    half = {
        key: _HALF_WIDTH_BY_CJK.findall(_BACKTICKED.sub(" ", _FIELD.sub(" ", message))) for key, message in zh.items()
    }
    assert not {key: found for key, found in half.items() if found}
