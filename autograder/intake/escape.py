"""Student text made inert for terminals and logs: the names of a student's files reach the
instructor's terminal, the logs and the gradebook's comments, and a name may hold terminal escape
sequences (a title change, a carriage return that erases a line) or bidi controls that reorder
what is shown.

`shown` escapes those characters in any text, `quoted` writes a name into a sentence, `code_span`
puts a student's text in markdown that shows it as written (a gradebook comment is markdown), and
`ShownRecord` (installed by `autograder.intake.admission.install`) makes every log record come out shown.
"""

from __future__ import annotations

import logging
import re

#: C0 controls but newline and tab, DEL, C1 controls, the Arabic letter mark, zero-width and bidi
#: marks, line and paragraph separators, bidi embeddings and isolates, invisible operators, the BOM,
#: lone surrogates (undecodable bytes of a file name) and tag characters. Python's repr escapes
#: every one of them (none is printable), so `shown` writes each as repr does.
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f]"
)
#: How many characters of a name `quoted` keeps.
NAME_CHARS = 100


def shown(text: str) -> str:
    """`text` with each control character (but newline and tab) and bidi or zero-width format
    character written as its escape (`\\x1b`, `\\u202e`); already shown text stays as it is."""
    return _CONTROLS.sub(lambda match: repr(match[0])[1:-1], text)


def quoted(name: str) -> str:
    """`name` quoted for a sentence, as repr writes it (every control and invisible character
    escaped, newlines and tabs too), its middle cut to an ellipsis beyond `NAME_CHARS` characters."""
    if len(name) > NAME_CHARS:
        name = name[: NAME_CHARS // 2] + "…" + name[-(NAME_CHARS // 2 - 1) :]
    return repr(name)


def code_span(text: str) -> str:
    """`text` as a markdown code span, which shows it as written (no markup, no link, no entity): a
    fence of one backtick more than its longest run of them, and a space inside the fence where
    `text` starts or ends with a backtick or a space (CommonMark strips that one space)."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


class ShownRecord(logging.LogRecord):
    """A log record whose message, and the traceback or stack a formatter adds to it, come out
    through `shown` (for `logging.setLogRecordFactory`)."""

    def getMessage(self) -> str:
        return shown(super().getMessage())

    def __setattr__(self, name: str, value) -> None:
        super().__setattr__(name, shown(value) if name in ("exc_text", "stack_info") and value else value)
