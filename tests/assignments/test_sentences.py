"""An exercise's sentences, written beside its code in both languages: each public case's label
(`Case(label={"en": ..., "zh": ...})`), each mistake's note (`@mistake(..., en=..., zh=...)`), each
branch of a contract (`Branch(..., en=..., zh=...)`) and each probe's message. Every one has both languages; the Chinese is
written in Chinese, with the English one's placeholders, and a label's Chinese keeps its numbers in order; `COURSE_LANG=zh`
shows the Chinese. The kit's copies are built from them (tests/authoring/test_kit.py)."""

from __future__ import annotations

import ast
import re

import pytest

from autograder.assignments import ALL
from autograder.grading.checks import public_cases
from rnnkit import messages

from ..kit.test_messages_zh import _BACKTICKED, _CJK, _FIELD, _HALF_WIDTH_BY_CJK, _mostly_chinese, _placeholders, _prose

SPECS = list(ALL.values())
by_name = pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _labels(spec) -> list:
    return [case.label for check in spec.checks for case, _, _ in public_cases(check, labelled=False)]


def _written(spec) -> list[tuple[str, str, str, bool]]:
    """(where, English, Chinese, a sentence rather than a label) of every sentence written in the
    assignment's modules: the {"en": ..., "zh": ...} literals (labels; probe messages, given as
    `message=`; an f-string by its fixed text and the names of its fields) and the `en=`/`zh=` of
    each `@mistake` (a sentence) and each other call, a `Branch` (a label)."""

    def text(node: ast.AST) -> str:
        if isinstance(node, ast.JoinedStr):
            return "".join(
                part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
                for part in node.values
            )
        return ast.literal_eval(node)

    found = []
    for path in sorted(spec.folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        messages_given = {
            id(node.value) for node in ast.walk(tree) if isinstance(node, ast.keyword) and node.arg == "message"
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and {getattr(key, "value", None) for key in node.keys} == {"en", "zh"}:
                pair = dict(zip((key.value for key in node.keys), node.values))
                found.append(
                    (f"{path.name}:{node.lineno}", text(pair["en"]), text(pair["zh"]), id(node) in messages_given)
                )
            elif isinstance(node, ast.Call) and {"en", "zh"} <= {keyword.arg for keyword in node.keywords}:
                pair = {keyword.arg: keyword.value for keyword in node.keywords}
                if all(
                    isinstance(pair[lang], (ast.Constant, ast.JoinedStr)) for lang in ("en", "zh")
                ):  # not a helper passing them on
                    found.append(
                        (
                            f"{path.name}:{node.lineno}",
                            text(pair["en"]),
                            text(pair["zh"]),
                            getattr(node.func, "id", "") == "mistake",
                        )
                    )
    return found


def test_there_are_sentences_everywhere():
    assert all(_labels(spec) and _written(spec) and spec.mistakes() for spec in SPECS)


@by_name
def test_every_label_and_every_mistake_speaks_both_languages(spec):
    plain = [label for label in _labels(spec) if not (isinstance(label, dict) and set(label) == {"en", "zh"})]
    assert not plain, f"{spec.name}: public cases labelled in one language: {plain}"
    silent = [
        entry.id
        for entry in spec.mistakes()
        if entry.says is None and f"mistake.{entry.id}" not in messages.catalogue("en")
    ]
    assert not silent, f"{spec.name}: mistakes with nothing to say (give @mistake en= and zh=): {silent}"
    assert all(entry.says is None or set(entry.says) == {"en", "zh"} for entry in spec.mistakes())


@by_name
def test_each_chinese_sentence_is_written_in_chinese_with_the_same_fields(spec):
    written = _written(spec)
    not_chinese = [
        where
        for where, en, zh, sentence in written
        if not (_mostly_chinese(zh) if sentence else _CJK.search(zh)) and any(c.isalpha() for c in _prose(en))
    ]
    assert not not_chinese, f"{spec.name}: not written in Chinese: {not_chinese}"
    assert not [where for where, en, _, _ in written if _mostly_chinese(en)], "an English sentence is Chinese"
    fields = [where for where, en, zh, _ in written if _placeholders(en) != _placeholders(zh)]
    assert not fields, f"{spec.name}: placeholders differ: {fields}"
    half = [
        where for where, _, zh, _ in written if _HALF_WIDTH_BY_CJK.search(_BACKTICKED.sub(" ", _FIELD.sub(" ", zh)))
    ]
    assert not half, f"{spec.name}: half-width punctuation beside Chinese: {half}"


@by_name
def test_each_label_keeps_its_numbers_in_order(spec):
    wrong = [label for label in _labels(spec) if _NUMBER.findall(label["en"]) != _NUMBER.findall(label["zh"])]
    assert not wrong, f"numbers differ: {wrong}"


def test_course_lang_zh_shows_the_chinese(monkeypatch):
    spec = ALL["ch12_bptt"]
    label = _labels(spec)[0]
    entry = next(entry for entry in spec.mistakes() if entry.says)
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert messages.case_label(label) == label["zh"] and entry.text == entry.says["zh"]
    monkeypatch.setenv("COURSE_LANG", "en")
    assert messages.case_label(label) == label["en"] and entry.text == entry.says["en"]


def test_the_written_sentences_are_found():
    """The scan has teeth: a label literal, an f-string label and a mistake's sentences."""
    written = _written(ALL["ch12_bptt"])
    assert sum(sentence for *_, sentence in written) == sum(
        entry.says is not None for entry in ALL["ch12_bptt"].mistakes()
    )
    assert [en for _, en, _, _ in written if "{f}" in en] == ["Table 12.2, factor {f}, distance {d}"]
    assert any(sentence and "{" in en for _, en, _, sentence in _written(ALL["ch12_boundaries"])), "a probe's message"
