"""The Chinese labels of the public cases: `labels.zh.json` has an entry `label.<English label>` for
every public case of every assignment and none for a label that no longer exists; each translation
keeps the numbers of its English label, in order, and is written in Chinese; `COURSE_LANG=zh` makes
`case_label` return it.

The file has no English twin: the English labels, as the checks write them, are its keys. It is read
from the repository (kit/rnnkit/messages), not from the installed package, which only holds it once
the environment is rebuilt."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from autograder.assignments import ALL

REPO = Path(__file__).resolve().parents[1]
MESSAGES = REPO / "kit" / "rnnkit" / "messages"
LABELS = MESSAGES / "labels.zh.json"
PREFIX = "label."

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _public_labels() -> list[str]:
    return sorted({case.label for spec in ALL.values() for check in spec.checks for case in check.public()})


PUBLIC = _public_labels()


def _chinese() -> dict[str, str]:
    return json.loads(LABELS.read_text(encoding="utf-8"))


def test_there_are_public_labels_and_a_chinese_file():
    assert PUBLIC, "no public case has a label"
    assert LABELS.is_file(), f"{LABELS.name} is missing"


def test_the_file_is_formatted_as_the_other_catalogues_with_sorted_ids():
    text = LABELS.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert list(_chinese()) == sorted(_chinese())


def test_every_public_label_has_a_chinese_entry():
    zh = _chinese()
    missing = [label for label in PUBLIC if PREFIX + label not in zh]
    assert not missing, f"{LABELS.name} lacks the labels {missing}"


def test_no_chinese_entry_is_stale():
    public = set(PUBLIC)
    stale = [key for key in _chinese() if not key.startswith(PREFIX) or key[len(PREFIX):] not in public]
    assert not stale, f"{LABELS.name} has entries for labels that no public case has: {stale}"


def test_each_translation_keeps_the_numbers_in_order():
    wrong = {key: (_NUMBER.findall(key[len(PREFIX):]), _NUMBER.findall(value)) for key, value in _chinese().items()
             if _NUMBER.findall(key[len(PREFIX):]) != _NUMBER.findall(value)}
    assert not wrong, f"numbers differ (English, Chinese): {wrong}"


def test_each_translation_is_written_in_chinese():
    not_chinese = [key for key, value in _chinese().items() if not isinstance(value, str) or not _CJK.search(value)]
    assert not not_chinese, f"{LABELS.name}: no Chinese in {not_chinese}"
    assert not any(_CJK.search(label) for label in PUBLIC), "an English label already contains Chinese"


def test_course_lang_zh_gives_the_chinese_label(monkeypatch, repository_messages):
    zh = _chinese()
    monkeypatch.setenv("COURSE_LANG", "zh")
    shown = {label: repository_messages.case_label(label) for label in PUBLIC}
    assert shown == {label: zh[PREFIX + label] for label in PUBLIC}
    assert repository_messages.case_label("no such label") == "no such label"
    monkeypatch.setenv("COURSE_LANG", "en")
    assert all(repository_messages.case_label(label) == label for label in PUBLIC)
