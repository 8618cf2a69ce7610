"""What every page the course renders (the feedback page, the class report) shares: the font stacks
of its language, so that no edition shows boxes where a font is missing; and what the class pages
(the report, the similarity page) share: their CSS and their small HTML parts.

The English edition names Latin fonts first and CJK fonts after them (a Chinese word that must
appear, a student's name, finds a font where one is installed); the Chinese edition names CJK
fonts first, so that its punctuation and digits come from the same font as its characters.
"""

from __future__ import annotations

import html

from rnnkit.messages import language

from ..labels import fill, template

#: Latin sans-serif fonts common on Linux, macOS and Windows.
LATIN = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial'
#: Simplified-Chinese fonts common on the same systems.
CJK = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
    '"Microsoft YaHei", "WenQuanYi Micro Hei"'
)
#: Monospaced fonts (code, ids); CJK after them for a Chinese comment in code.
MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace'


def font_stack(lang: str | None = None) -> str:
    """The CSS font-family of body text in `lang` (default: the language the command speaks)."""
    lang = lang or language()
    return f"{CJK}, {LATIN}, sans-serif" if lang == "zh" else f"{LATIN}, {CJK}, sans-serif"


def mono_stack() -> str:
    """The CSS font-family of code: monospaced first in both editions, then CJK."""
    return f"{MONO.removesuffix(', monospace')}, {CJK}, monospace"


CLASS_STYLE = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #d9dee4; --band: #f5f7fa; --accent: #2f5d8a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 FONT; color: var(--ink); margin: 0; background: #fff; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 64px; overflow-wrap: break-word; }  /* a long name or path wraps */
@media (max-width: 480px) { main { padding: 16px 12px 48px; } }
header { border-bottom: 3px solid var(--accent); margin-bottom: 24px; padding-bottom: 12px; }
h1 { font-size: 28px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 22px; margin: 40px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); overflow-wrap: anywhere; }
h3 { font-size: 17px; margin: 24px 0 8px; color: var(--accent); }
a { color: var(--accent); text-decoration: underline; }
.meta { color: var(--muted); margin: 0; }
.facts { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; padding: 0; list-style: none; }
.facts li { background: var(--band); border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; }
.facts b { font-size: 18px; }
.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0 16px; position: relative; }  /* it clips the .sr text inside */
.scroll:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; vertical-align: top; text-align: left; }
th { background: var(--band); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
td.missing { color: var(--muted); text-align: center; background: #eef0f3 !important; }
td.received { color: var(--accent); text-align: center; background: #e8f0f8 !important; }
td.refused { color: #8a2f2f; text-align: center; background: #f8e8e8 !important; }
.late { color: #8a2f2f; }
td.who { font-size: 13px; max-width: 300px; }
table.wide { table-layout: fixed; width: 100%; min-width: 880px; }
table.wide td { overflow-wrap: anywhere; }
.id { font-family: MONO; font-size: 13px; }
.note { color: var(--muted); font-size: 13px; }
td .note { color: #4b5563; }  /* on a shaded score cell: AA contrast, muted grey is not */
.late.note { color: #6b1f1f; }
.sr { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0);
      white-space: nowrap; border: 0; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
figure.plot { margin: 0; max-width: 100%; }
figure.plot img { display: block; max-width: 100%; height: auto; margin: 8px 0; }
figure.plot figcaption { color: var(--muted); font-size: 13px; max-width: 500px; }
figure.plot details { color: var(--ink); font-size: 14px; }
details { margin: 4px 0 8px; }
details table { margin: 4px 0; }
details td { overflow-wrap: anywhere; }
summary { cursor: pointer; }
"""


def class_style() -> str:
    """The class pages' CSS, with the font stacks of the course language."""
    return CLASS_STYLE.replace("FONT", font_stack()).replace("MONO", mono_stack())


def label_html(label_id: str, **fields) -> str:
    """A label as HTML: its words escaped, `fields` (HTML already) in its placeholders."""
    return fill(html.escape(template(label_id)), **fields)


def scroll_region(name: str, table: str) -> str:
    """`table` (HTML) in a region of its own, named `name` (text), that scrolls sideways on a narrow
    screen and takes the keyboard's focus to do so."""
    return f'<div class="scroll" tabindex="0" role="region" aria-label="{html.escape(name)}">{table}</div>'


def student_ids(ids) -> str:
    """Student ids as HTML, each in the id font, comma-separated (a dash for none)."""
    return ", ".join(f'<span class="id">{html.escape(i)}</span>' for i in ids) or "&ndash;"


def header_cell(label_id: str, num: bool = False) -> str:
    """A table header cell of a label (right-aligned over a column of numbers with `num`)."""
    return f'<th class="num">{label_html(label_id)}</th>' if num else f"<th>{label_html(label_id)}</th>"
