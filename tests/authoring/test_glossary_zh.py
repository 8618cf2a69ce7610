"""The Chinese edition speaks with one voice: every Chinese file of the course (the kit's messages and
case labels, the report and export labels, the notebooks' teaching text) against the glossary
docs/glossary.zh.md - no rejected variant, 分数 only about a Fraction or an exact fraction, the one
exact marker, full-width punctuation in Chinese prose, no space between Chinese and a placeholder in
a message.

Pure file reading. `GLOSSARY_ZH_REV=<git revision>` checks the Chinese files as that revision has
them (read with `git show`) against today's glossary: `GLOSSARY_ZH_REV=HEAD~1` shows what an older
text breaks."""

from __future__ import annotations

import json
import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GLOSSARY = REPO / "docs" / "glossary.zh.md"

MESSAGE_FILES = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "kit" / "rnnkit" / "messages").glob("*.zh.json"))
LABEL_FILES = ["autograder/labels/zh.json"]
NOTEBOOK_FILES = sorted(
    p.relative_to(REPO).as_posix() for p in (REPO / "autograder" / "assignments").glob("*/notebook.md")
)
FILES = MESSAGE_FILES + LABEL_FILES + NOTEBOOK_FILES

_CJK = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_PLACEHOLDER = re.compile(r"\{\w+(?:!r)?\}")
_BACKTICKED = re.compile(r"`[^`\n]*`")
_DISPLAY = re.compile(r"\$\$.*?\$\$", re.S)
_INLINE = re.compile(r"\$[^$\n]*\$")
_HALF_WIDTH_BY_CJK = re.compile(rf"{_CJK}[,:;()?!]|[,:;()?!]{_CJK}")
_SPACE_BY_PLACEHOLDER = re.compile(rf"{_CJK} +\{{\w+(?:!r)?\}}|\{{\w+(?:!r)?\}} +{_CJK}")
_FRACTION = re.compile(r"\d+/\d+")
_SENTENCE_END = re.compile(r"(?<=[。！？])|\n")
#: The glossary's row that names the exact marker.
MARKER_ROW = "exact marker"


# ---------------------------------------------------------------------------------------------
# Reading


def _read(path: str) -> str:
    revision = os.environ.get("GLOSSARY_ZH_REV")
    if not revision:
        return (REPO / path).read_text(encoding="utf-8")
    shown = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=REPO, capture_output=True, text=True)
    if shown.returncode != 0:
        pytest.skip(f"{path} is not in {revision}")
    return shown.stdout


@lru_cache(maxsize=None)
def glossary() -> list[dict[str, list[str] | str]]:
    """The rows of the glossary's table: English, zh (its words), never (words), with (words)."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 4 or cells[0] in ("English", "") or set(cells[0]) <= set("-"):
            continue
        words = [re.findall(r"`([^`]+)`", cell) for cell in cells[1:4]]
        rows.append({"english": cells[0], "zh": words[0], "never": words[1], "with": words[2]})
    return rows


def _texts(path: str, text: str) -> list[tuple[str, str]]:
    """(where, text) for each message of a json file, each Chinese cell (`%% zh`) of a notebook template."""
    if path.endswith(".json"):
        return [(f"{path} {key}", value) for key, value in json.loads(text).items() if isinstance(value, str)]
    return [(f"{path} cell {n}", cell) for n, (kind, cell) in enumerate(_cells(text)) if kind == "zh" and cell.strip()]


def _cells(text: str) -> list[tuple[str, str]]:
    """(kind, body) of each cell of a notebook template."""
    parts = re.split(r"^%% (\w+).*$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def _prose(text: str) -> str:
    """`text` without code, formulas and placeholders (each replaced by a space)."""
    for pattern in (_DISPLAY, _INLINE, _BACKTICKED, _PLACEHOLDER):
        text = pattern.sub(" ", text)
    return text


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


# ---------------------------------------------------------------------------------------------
# The checks, each a function from one text to what it finds wrong (so the tests below can show
# that they catch the faults they look for)


def rejected_variants(text: str) -> list[str]:
    return [variant for row in glossary() for variant in row["never"] if variant in text]


def restricted_terms(text: str) -> list[str]:
    """The sentences that use a term of a row with a "同句须有" column without any of its words."""
    found = []
    for row in glossary():
        if not row["with"]:
            continue
        term = row["zh"][0]
        # 区分数值, 部分数值: the characters of the term, not the word
        use = re.compile(rf"(?<![区部]){re.escape(term)}")
        for sentence in _sentences(text):
            if use.search(sentence) and not any(w in sentence for w in row["with"]) and not _FRACTION.search(sentence):
                found.append(sentence.strip())
    return found


def foreign_markers(text: str) -> list[str]:
    """Markers like *(exact)* or *（精确：…）* that are not the glossary's exact marker."""
    marker = next(row["zh"][0] for row in glossary() if row["english"] == MARKER_ROW)
    candidates = re.findall(r"\*[(（][^*\n]*[)）]\*", text)
    return [c for c in candidates if ("精确" in c or "exact" in c.lower()) and c != marker]


def half_width_punctuation(text: str) -> list[str]:
    prose = _prose(text)
    return [prose[max(0, m.start() - 8) : m.end() + 8] for m in _HALF_WIDTH_BY_CJK.finditer(prose)]


def spaces_by_placeholders(text: str) -> list[str]:
    return _SPACE_BY_PLACEHOLDER.findall(_BACKTICKED.sub(" ", text))


# ---------------------------------------------------------------------------------------------
# The glossary itself


def test_the_glossary_names_the_terms_the_checks_rely_on():
    rows = {row["english"]: row for row in glossary()}
    assert len(rows) == len(glossary()) >= 20, "a concept is listed twice or the table was not read"
    assert all(row["zh"] for row in rows.values()), [e for e, row in rows.items() if not row["zh"]]
    assert (
        rows["Fraction, an exact fraction"]["zh"][0] == "分数"
        and "Fraction" in rows["Fraction, an exact fraction"]["with"]
    )
    assert rows["misconception"]["zh"][0] == "误区" and "误解" in rows["misconception"]["never"]
    assert rows[MARKER_ROW]["zh"][0] == "*（精确）*" and "*(exact)*" in rows[MARKER_ROW]["never"]
    for english, variant in (
        ("lost outside the catalogue", "目录外"),
        ("contract (what a function takes and returns)", "契约"),
        ("stub (the code a function starts as)", "桩"),
        ("docstring", "docstring"),
    ):
        assert variant in rows[english]["never"], english
    terms = [row["zh"][0] for row in glossary()]
    never = {variant for row in glossary() for variant in row["never"]}
    assert not [t for t in terms if any(v in t for v in never)], "a term contains a rejected variant"


def test_the_checks_catch_what_they_look_for():
    """Sentences of the kind the glossary rules out, each caught by its check."""
    assert set(rejected_variants("{name} 仍是桩函数：把桩函数替换成你的代码。")) == {"桩"}
    assert set(rejected_variants("“目录外失分”：没有认出任何已收录的误解")) == {"目录外", "误解"}
    assert set(rejected_variants("按 docstring 的说明返回一个 dict；契约要求的形状")) == {"契约", "docstring"}
    assert restricted_terms("所以很大的正分数应当打开门。分数 $a = \\ln 9$ 恰好给出 0.9。") == [
        "所以很大的正分数应当打开门。",
        "分数 $a = \\ln 9$ 恰好给出 0.9。",
    ]
    assert restricted_terms("{assignment}：分数分布") == ["{assignment}：分数分布"]
    assert (
        restricted_terms("用精确分数计算也是如此。普通运算能让分数保持精确。1/256 是一个分数。区分数值与训练贡献。")
        == []
    )
    assert foreign_markers("写出 `f(x)` *(exact)*；`g` *（精确：输入 Fraction）*；`h` *（精确）*。") == [
        "*(exact)*",
        "*（精确：输入 Fraction）*",
    ]
    assert half_width_punctuation("结果不对:你返回的是 (1, 2)。") and half_width_punctuation("返回一个字典(见说明)。")
    assert half_width_punctuation("结果不对：`f(x)` 与 $g(x)$ 不同，{name!r}。") == []
    assert len(spaces_by_placeholders("{name} 在 {case} 上抛出了 {error}")) == 3
    assert spaces_by_placeholders("{name}抛出了{error}：k为{k}时") == []


# ---------------------------------------------------------------------------------------------
# Every Chinese file


def _prose_keeping_formulas(text: str) -> str:
    """Backticked code out (`Fraction` stays as a word), formulas kept: 1/256 in $...$ is a fraction."""
    return _BACKTICKED.sub(lambda m: m.group(0).strip("`"), text)


#: Each rule of the glossary: what breaks it in one text, and the files it holds for.
RULES = {
    "no rejected variant": (rejected_variants, FILES),
    "分数 only about fractions": (lambda text: restricted_terms(_prose_keeping_formulas(text)), FILES),
    "the glossary's exact marker": (foreign_markers, FILES),
    "full-width punctuation in Chinese prose": (half_width_punctuation, FILES),
    "no space between Chinese and a placeholder": (spaces_by_placeholders, MESSAGE_FILES),
}


@pytest.mark.parametrize("rule, path", [(rule, path) for rule, (_, files) in RULES.items() for path in files])
def test_each_chinese_file_keeps_the_glossary(rule, path):
    breaks = RULES[rule][0]
    found = {where: breaks(text) for where, text in _texts(path, _read(path))}
    assert not {where: f for where, f in found.items() if f}, rule


def test_the_notebooks_that_mark_exact_functions_use_the_marker():
    marker = next(row["zh"][0] for row in glossary() if row["english"] == MARKER_ROW)
    for path in NOTEBOOK_FILES:
        cells = _cells(_read(path))
        marked = sum(len(re.findall(r"\*\(exact[):]", body)) for kind, body in cells if kind == "markdown")
        assert sum(body.count(marker) for kind, body in cells if kind == "zh") == marked, path
