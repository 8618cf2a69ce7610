"""The instructor's labels: every word of the class report, the score table and the grade sheets'
headers, by id, one JSON file per language (`en.json`, `zh.json`).

The language is the one the command speaks (`rnnkit.messages.language()`: the course language,
which each entry point reads once and speaks); a label missing from a language falls back to
English, an unknown id is a KeyError. Placeholders are filled as in the kit's messages (`{name}`;
other braces stay).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from rnnkit.messages import _FIELD, _fill, language

HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def catalogue(lang: str = "en") -> dict[str, str]:
    """All labels of one language."""
    return json.loads((HERE / f"{lang}.json").read_text(encoding="utf-8"))


def template(label_id: str) -> str:
    """The label `label_id` in the course language, placeholders unfilled."""
    found = catalogue(language()).get(label_id) or catalogue("en").get(label_id)
    if found is None:
        raise KeyError(f"no label {label_id!r} in the catalogue")
    return found


def label(label_id: str, **fields) -> str:
    """The label `label_id` in the course language, with `fields` filled in."""
    return fill(template(label_id), **fields)


def fill(text: str, **fields) -> str:
    """`text` with `{name}` placeholders from `fields` (one pass: filled values are not read again)."""
    return _FIELD.sub(lambda match: _fill(match, fields), text)
