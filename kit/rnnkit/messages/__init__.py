"""The message catalogue: every sentence a student reads, by id, one JSON file per language.

`core.<lang>.json` holds the comparison, check and probe sentences; `<assignment>.<lang>.json`,
written when the kit is built from the sentences each assignment keeps beside its code, holds its
misconception sentences (ids `mistake.<id>`). A public case's label comes with the case, in each
language (`said`).
The language is `language()`'s; a missing translation falls back to English.
A message `<id>.one`, where it exists, is used instead of `<id>` when the field `count` is 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import unicodedata
from collections.abc import Mapping
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
#: Where messages are wrapped, in columns (a CJK character takes two). `nbgrader validate` prints a
#: failing cell's output with an indent of 4 and cuts every line longer than its width less 3
#: (`Validator.width`, 90 by default: 87 characters, then "..."), so a line of WIDTH columns with
#: that indent is never cut, in a student's own nbgrader as in the course's.
WIDTH = 83


#: The languages chosen by the `speaking` blocks now open, innermost last.
_chosen: list[str] = []


@contextlib.contextmanager
def speaking(lang: str | None):
    """Within the block, speak `lang` (None: as outside it). The one way a language is chosen: a
    grader's command speaks the course language its entry point resolved, a runner the language of
    its spawn request, and a notebook's self-checks the language of its edition wherever the
    notebook is opened."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}; it must be one of {', '.join(LANGUAGES)}")
    _chosen.append(lang or language())
    try:
        yield
    finally:
        _chosen.pop()


def language() -> str:
    """The language of the messages, `en` or `zh`: that of the innermost `speaking` block, else (in a
    student's own Python, where no block is open) the environment's `COURSE_LANG`, else `en`."""
    if _chosen:
        return _chosen[-1]
    lang = os.environ.get("COURSE_LANG", "en") or "en"
    if lang not in LANGUAGES:
        raise ValueError(f"COURSE_LANG is {lang!r}; it must be one of {', '.join(LANGUAGES)}")
    return lang


def text(message_id: str | Mapping[str, str], /, **fields) -> str:
    """The sentence for `message_id` in the course language, with `fields` filled in: an id of the
    catalogue, or the sentence itself in each language ({"en": ..., "zh": ...}, as an assignment
    writes its own beside its code)."""
    lang = language()
    if isinstance(message_id, Mapping):
        template = said(message_id, lang)
    else:
        if fields.get("count") == 1 and _lookup(lang, f"{message_id}.one"):
            message_id = f"{message_id}.one"
        template = _lookup(lang, message_id)
        if template is None:
            raise KeyError(f"no message {message_id!r} in the catalogue")
    return _FIELD.sub(lambda m: _fill(m, fields), template)


def said(sentence: str | Mapping[str, str], lang: str | None = None) -> str:
    """A sentence written in each language ({"en": ..., "zh": ...}) in `lang` (default: the course
    language), English where it has no such translation; a plain string as it is."""
    if not isinstance(sentence, Mapping):
        return sentence
    return sentence.get(lang or language()) or sentence["en"]


def case_label(label: str | Mapping[str, str]) -> str:
    """A public case's label in the course language (`said`)."""
    return said(label)


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
    """The columns `char` takes: two for a wide (CJK) character, and for one of ambiguous width
    (such as the dashes and ellipsis of Chinese text, wide in a CJK font), else one."""
    return 2 if unicodedata.east_asian_width(char) in "WFA" else 1


def display_width(text: str) -> int:
    """The columns `text` takes in a terminal (`_columns` of each character)."""
    return sum(map(_columns, text))


#: No line may start with one of these (full-width closing punctuation) ...
_CLOSING = set("，。、；：？！）］｝」』】〕》〉”’％…")
#: ... nor end with one of these (full-width opening punctuation).
_OPENING = set("（［｛「『【〔《〈“‘")


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WFA"


def _pieces(text: str) -> list[tuple[bool, str]]:
    """`text` cut where a line may break well: at spaces, after full-width closing punctuation
    (such as ，。：）) and before full-width opening punctuation (such as （); each piece with whether
    a space came before it. Inside a piece a line breaks only between two CJK characters."""
    pieces: list[tuple[bool, str]] = []
    current, space = "", False
    for char in text:
        if char.isspace():
            if current:
                pieces.append((space, current))
                current = ""
            space = bool(pieces)
            continue
        if char in _CLOSING and not current and pieces and not space:  # "）：" stays together
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + char)
            continue
        if char in _OPENING and current and current[-1] not in _OPENING:
            pieces.append((space, current))
            current, space = "", False
        current += char
        if char in _CLOSING:
            pieces.append((space, current))
            current, space = "", False
    if current:
        pieces.append((space, current))
    return pieces


def _split(piece: str, room: int) -> int:
    """Where to break `piece` so that its head fits in `room` columns: the last place between two
    CJK characters that is neither before closing nor after opening punctuation (nor inside a
    "——" or "……"), or 0 where there is none."""
    best, used = 0, 0
    for k in range(1, len(piece)):
        used += _columns(piece[k - 1])
        if used > room:
            break
        before, after = piece[k - 1], piece[k]
        if (
            _wide(before)
            and _wide(after)
            and after not in _CLOSING
            and before not in _OPENING
            and not (before == after and before in "—…")
        ):
            best = k
    return best


def _cut(word: str, room: int) -> int:
    """Where to cut a `word` longer than a line (a long number, say) so that its head fits in
    `room` columns: after a "/", "," or ")" in the second half of the room, else at the room's end
    (at least one character)."""
    fits = 0
    while fits < len(word) and display_width(word[: fits + 1]) <= room:
        fits += 1
    after = max((k for k in range(max(1, room // 2), fits + 1) if word[k - 1] in "/,)]}"), default=0)
    return after or max(fits, 1)


def wrap(line: str, width: int = WIDTH) -> list[str]:
    """`line` in lines of at most `width` columns; continuation lines keep the line's indent plus
    two spaces. A line breaks at a space, or after Chinese punctuation (，。：） and the like); in
    the middle of a run of CJK characters only where no such place fills at least half the line,
    or the run is longer than a line. A word longer than a whole line (a long number) is cut, after
    a "/" or "," where it can: nbgrader validate would cut it anyway, and drop the rest."""
    indent = line[: len(line) - len(line.lstrip())]
    rest = indent + "  "
    out: list[str] = []
    current, used = indent, len(indent)
    for space, piece in _pieces(line[len(indent) :]):
        while piece:
            sep = " " if space and current.strip() else ""
            size = display_width(piece)
            if used + len(sep) + size <= width:
                current, used = current + sep + piece, used + len(sep) + size
                break
            base = len(rest if out else indent)
            if current.strip() and size <= width - len(rest) and used - base >= (width - base) // 2:
                out.append(current)  # a good place to break, and the line is half full
                current, used, space = rest, len(rest), False
                continue
            cut = _split(piece, width - used - len(sep))
            if cut:
                out.append(current + sep + piece[:cut])
                current, used, space, piece = rest, len(rest), False, piece[cut:]
                continue
            if current.strip():
                out.append(current)
                current, used, space = rest, len(rest), False
                continue
            cut = _cut(piece, width - used - len(sep))  # longer than a whole line: cut
            out.append(current + sep + piece[:cut])
            current, used, space, piece = rest, len(rest), False, piece[cut:]
    out.append(current.rstrip())
    return out
