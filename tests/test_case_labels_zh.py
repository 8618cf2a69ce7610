"""The Chinese labels of the public cases: each assignment's `messages.zh.json` (in its folder) has
an entry `label.<English label>` for every public case of the assignment and none for a label that
no longer exists; each translation keeps the numbers of its English label, in order, and is written
in Chinese; `COURSE_LANG=zh` makes `case_label` return it.

The entries have no English twin: the English labels, as the checks write them, are their keys. The
kit's copy of the file (kit/rnnkit/messages/<a>.zh.json) is kept in sync by tests/test_kit.py."""
from __future__ import annotations

import json
import re

import pytest

from autograder.assignments import ALL

PREFIX = "label."
SPECS = list(ALL.values())

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _public_labels(spec) -> list[str]:
    return sorted({case.label for check in spec.checks for case in check.public()})


def _chinese(spec) -> dict[str, str]:
    """The label entries of the assignment's Chinese messages."""
    messages = json.loads((spec.folder / "messages.zh.json").read_text(encoding="utf-8"))
    return {key: value for key, value in messages.items() if key.startswith(PREFIX)}


PUBLIC = sorted({label for spec in SPECS for label in _public_labels(spec)})
by_name = pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)


def test_there_are_public_labels():
    assert PUBLIC, "no public case has a label"
    assert all(_public_labels(spec) for spec in SPECS)


@by_name
def test_the_labels_come_last_with_sorted_ids(spec):
    messages = list(json.loads((spec.folder / "messages.zh.json").read_text(encoding="utf-8")))
    labels = [key for key in messages if key.startswith(PREFIX)]
    assert messages[len(messages) - len(labels):] == labels == sorted(labels)


@by_name
def test_every_public_label_has_a_chinese_entry(spec):
    zh = _chinese(spec)
    missing = [label for label in _public_labels(spec) if PREFIX + label not in zh]
    assert not missing, f"{spec.name}/messages.zh.json lacks the labels {missing}"


@by_name
def test_no_chinese_entry_is_stale(spec):
    public = set(_public_labels(spec))
    stale = [key for key in _chinese(spec) if key[len(PREFIX):] not in public]
    assert not stale, f"{spec.name}/messages.zh.json has entries for labels that no public case of it has: {stale}"


@by_name
def test_each_translation_keeps_the_numbers_in_order(spec):
    wrong = {key: (_NUMBER.findall(key[len(PREFIX):]), _NUMBER.findall(value)) for key, value in _chinese(spec).items()
             if _NUMBER.findall(key[len(PREFIX):]) != _NUMBER.findall(value)}
    assert not wrong, f"numbers differ (English, Chinese): {wrong}"


@by_name
def test_each_translation_is_written_in_chinese(spec):
    not_chinese = [key for key, value in _chinese(spec).items() if not isinstance(value, str) or not _CJK.search(value)]
    assert not not_chinese, f"{spec.name}/messages.zh.json: no Chinese in {not_chinese}"
    assert not any(_CJK.search(label) for label in _public_labels(spec)), "an English label already contains Chinese"


def test_course_lang_zh_gives_the_chinese_label(monkeypatch, repository_messages):
    zh = {key: value for spec in SPECS for key, value in _chinese(spec).items()}
    monkeypatch.setenv("COURSE_LANG", "zh")
    shown = {label: repository_messages.case_label(label) for label in PUBLIC}
    assert shown == {label: zh[PREFIX + label] for label in PUBLIC}
    assert repository_messages.case_label("no such label") == "no such label"
    monkeypatch.setenv("COURSE_LANG", "en")
    assert all(repository_messages.case_label(label) == label for label in PUBLIC)
