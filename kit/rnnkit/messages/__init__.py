"""The message catalogue: every sentence a student reads, by id, one JSON file per language.

`core.<lang>.json` holds the comparison, check and probe sentences; `<assignment>.<lang>.json`
holds an assignment's misconception sentences (ids `mistake.<id>`) and its own probe sentences;
`labels.<lang>.json` translates the labels of public cases (ids `label.<English label>`).
The language is `COURSE_LANG` (default `en`); a missing translation falls back to English.
A message `<id>.one`, where it exists, is used instead of `<id>` when the field `count` is 1.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def catalogue(lang: str = "en") -> dict[str, str]:
    """All messages of one language, merged from the core and assignment files."""
    merged: dict[str, str] = {}
    for path in sorted(HERE.glob(f"*.{lang}.json")):
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            if key in merged:
                raise ValueError(f"message id {key!r} defined twice (again in {path})")
            merged[key] = value
    return merged


LANGUAGES = ("en", "zh")
#: Where messages are wrapped, in columns (a CJK character takes two).
WIDTH = 100


#: The languages chosen by the `speaking` blocks now open, innermost last.
_chosen: list[str] = []


@contextlib.contextmanager
def speaking(lang: str | None):
    """Within the block, speak `lang` whatever `COURSE_LANG` says (None: as outside it): a
    notebook's self-checks speak the language of its edition wherever the notebook is opened."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}; it must be one of {', '.join(LANGUAGES)}")
    _chosen.append(lang or language())
    try:
        yield
    finally:
        _chosen.pop()


def language() -> str:
    """The language of the messages: that of the innermost `speaking` block, else `COURSE_LANG`,
    `en` or `zh` (default `en`)."""
    if _chosen:
        return _chosen[-1]
    lang = os.environ.get("COURSE_LANG", "en") or "en"
    if lang not in LANGUAGES:
        raise ValueError(f"COURSE_LANG is {lang!r}; it must be one of {', '.join(LANGUAGES)}")
    return lang


def text(message_id: str, **fields) -> str:
    """The sentence for `message_id` in the course language, with `fields` filled in."""
    lang = language()
    if fields.get("count") == 1 and _lookup(lang, f"{message_id}.one"):
        message_id = f"{message_id}.one"
    template = _lookup(lang, message_id)
    if template is None:
        raise KeyError(f"no message {message_id!r} in the catalogue")
    return _FIELD.sub(lambda m: _fill(m, fields), template)


def case_label(label: str) -> str:
    """A public case's label (English, as the checks write it) in the course language: the message
    `label.<label>` where the language has one (`labels.<lang>.json`), else the label as written."""
    return catalogue(language()).get(f"label.{label}", label)


def _lookup(lang: str, message_id: str) -> str | None:
    return catalogue(lang).get(message_id) or catalogue("en").get(message_id)


_FIELD = re.compile(r"\{(\w+)(!r)?\}")


def _fill(match: re.Match, fields: dict) -> str:
    """`{name}` or `{name!r}` from `fields`; other braces (such as h_{t-1}) stay as written."""
    name, as_repr = match.group(1), match.group(2)
    if name not in fields:
        return match.group(0)
    return repr(fields[name]) if as_repr else str(fields[name])


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


_TOKEN = re.compile(r"\s+|[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+")


def wrap(line: str, width: int = WIDTH) -> list[str]:
    """`line` broken at spaces, or between CJK characters, into lines of at most `width` columns;
    continuation lines keep the line's indent plus two spaces. A single longer word stays whole."""
    indent = line[:len(line) - len(line.lstrip())]
    rest = indent + "  "
    out, current, used = [], indent, len(indent)
    for token in _TOKEN.findall(line[len(indent):]):
        size = sum(map(_columns, token))
        if token.isspace():
            if used > len(out and rest or indent):
                current, used = current + " ", used + 1
            continue
        if used + size > width and current.strip():
            out.append(current.rstrip())
            current, used = rest, len(rest)
        current, used = current + token, used + size
    out.append(current.rstrip())
    return out
