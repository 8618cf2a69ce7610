"""The message catalogue: every sentence a student reads, by id, one JSON file per language.

`core.<lang>.json` holds the comparison, check and probe sentences; `<assignment>.<lang>.json`
holds an assignment's misconception sentences (ids `mistake.<id>`) and its own probe sentences.
The language is `COURSE_LANG` (default `en`); a missing translation falls back to English.
"""
from __future__ import annotations

import json
import os
import re
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


def text(message_id: str, **fields) -> str:
    """The sentence for `message_id` in the course language, with `fields` filled in."""
    lang = os.environ.get("COURSE_LANG", "en")
    template = catalogue(lang).get(message_id) or catalogue("en").get(message_id)
    if template is None:
        raise KeyError(f"no message {message_id!r} in the catalogue")
    return _FIELD.sub(lambda m: _fill(m, fields), template)


_FIELD = re.compile(r"\{(\w+)(!r)?\}")


def _fill(match: re.Match, fields: dict) -> str:
    """`{name}` or `{name!r}` from `fields`; other braces (such as h_{t-1}) stay as written."""
    name, as_repr = match.group(1), match.group(2)
    if name not in fields:
        return match.group(0)
    return repr(fields[name]) if as_repr else str(fields[name])
