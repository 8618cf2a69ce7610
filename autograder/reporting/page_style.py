"""What every page the course renders (the feedback page, the class report) shares: the font stacks
of its language, so that no edition shows boxes where a font is missing.

The English edition names Latin fonts first and CJK fonts after them (a Chinese word that must
appear, a student's name, finds a font where one is installed); the Chinese edition names CJK
fonts first, so that its punctuation and digits come from the same font as its characters.
"""
from __future__ import annotations

from rnnkit.messages import language

#: Latin sans-serif fonts common on Linux, macOS and Windows.
LATIN = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial'
#: Simplified-Chinese fonts common on the same systems.
CJK = ('"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
       '"Microsoft YaHei", "WenQuanYi Micro Hei"')
#: Monospaced fonts (code, ids); CJK after them for a Chinese comment in code.
MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace'


def font_stack(lang: str | None = None) -> str:
    """The CSS font-family of body text in `lang` (default: the language the command speaks)."""
    lang = lang or language()
    return f"{CJK}, {LATIN}, sans-serif" if lang == "zh" else f"{LATIN}, {CJK}, sans-serif"


def mono_stack() -> str:
    """The CSS font-family of code: monospaced first in both editions, then CJK."""
    return f"{MONO.removesuffix(', monospace')}, {CJK}, monospace"
