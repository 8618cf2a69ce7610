"""The notebook's closing summary (`summary_lines`, in the student's notebook and at grading), a
calm Run All (a stub's check says "not started" on stdout, on stderr only under `nbgrader
validate`), and message widths: every line the self-check prints fits `messages.WIDTH`, which
fits `nbgrader validate` (its indent, its cut), and `wrap` keeps Chinese words whole where it can.

All in-process, on the public cases only (no kernel, no nbgrader run)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from nbgrader.validator import Validator

from autograder.assignments import get
from rnnkit import checker, messages
from rnnkit.messages import _CLOSING, _OPENING, display_width, wrap
from rnnkit.selfcheck import SummaryItem, public_checks, public_half, selfcheck, summary_lines

from ..conftest import ASSIGNMENTS

NOTE = "check.public_note"


def _stub(*args, **kwargs):
    raise NotImplementedError()


def _run(assignment: str, lang: str, functions: dict, names=None):
    """`check(name, functions[name])` for each check (all of them by default), then the summary:
    (stdout, stderr) of each check, and the summary's text."""
    check = checker(assignment, lang=lang)
    printed = {}
    for name in names or public_checks(assignment):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            check(name, functions.get(name, _stub))
        printed[name] = out.getvalue(), err.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check.summary()
    return printed, out.getvalue()


def _too_wide(text: str) -> list[str]:
    """Lines wider than `messages.WIDTH` columns, or that nbgrader validate would cut."""
    validator = Validator()
    return [
        line
        for line in text.splitlines()
        if display_width(line) > messages.WIDTH or len(validator.indent + line) > validator.width - 3
    ]


def _wrapped(*lines: str) -> str:
    """`lines` as the summary prints them, wrapped."""
    return "\n".join(part for line in lines for part in wrap(line))


def test_the_width_fits_nbgrader_validate_by_default():
    """nbgrader validate indents a failing cell's output by `Validator.indent` and cuts any line
    longer than `Validator.width` - 3 characters; a message line is at most WIDTH columns, and a
    column is never fewer than a character."""
    validator = Validator()
    assert len(validator.indent) + messages.WIDTH <= validator.width - 3


def test_english_breaks_only_at_spaces():
    line = "  - " + " ".join(["word"] * 40)
    lines = wrap(line)
    assert all(display_width(part) <= messages.WIDTH for part in lines) and lines[0].startswith("  - word")
    assert all(part.startswith("    word") for part in lines[1:])
    assert " ".join(part.strip() for part in lines) == line.strip()
    long = "-1672555889887566661095325808336303706705928/22300745198530623141535718272648361505980416"
    assert wrap(f"  - you returned {long}.") == [
        "  - you returned",
        f"    {long[:45]}",
        f"    {long[45:]}.",
    ]  # after the "/"
    assert wrap("x" * 120) == ["x" * messages.WIDTH, "  " + "x" * (120 - messages.WIDTH)]  # nbgrader would cut it


def test_chinese_breaks_after_punctuation_where_it_can():
    clause = "这是一个用来检查换行的中文短句"  # 15 characters, 30 columns
    line = "，".join([clause] * 6) + "。"
    lines = wrap(line)
    assert "".join(part.strip() for part in lines) == line
    assert all(display_width(part) <= messages.WIDTH for part in lines)
    assert all(part.rstrip().endswith(("，", "。")) for part in lines)  # never in the middle of a clause


def test_chinese_breaks_between_characters_only_when_needed():
    line = "中" * 100  # no punctuation to break at
    lines = wrap(line)
    assert "".join(part.strip() for part in lines) == line
    assert (
        all(display_width(part) <= messages.WIDTH for part in lines) and display_width(lines[0]) >= messages.WIDTH - 1
    )
    short = "短句，" + "长" * 60  # a break after the comma would leave the line nearly empty
    assert display_width(wrap(short)[0]) >= messages.WIDTH - 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_line_starts_with_closing_or_ends_with_opening_punctuation(lang):
    with messages.speaking(lang):
        for message_id in messages.catalogue(lang):
            for width in (40, 60, messages.WIDTH):
                lines = wrap("  - " + messages.text(message_id), width)
                assert not any(part.strip()[:1] in _CLOSING for part in lines[1:]), (message_id, lines)
                assert not any(part.rstrip()[-1:] in _OPENING for part in lines[:-1]), (message_id, lines)
                assert "".join(lines).replace(" ", "") == ("  - " + messages.text(message_id)).replace(" ", "")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_line_the_self_check_prints_fits(assignment, lang, monkeypatch):
    """The stub, the reference and each catalogued mistake, checked and summarised: every line fits.
    A call may take a second here (not 10: a mistake of min_fillers_to_flip searches for seconds),
    so that a timeout's message is measured too."""
    monkeypatch.setattr(selfcheck, "__defaults__", (1.0,))
    reference = get(assignment).reference
    runs = [{}, {name: getattr(reference, name) for name in public_checks(assignment)}]
    for mistake in get(assignment).mistakes():
        namespace = dict(vars(reference))
        exec(compile(mistake.source(), f"<mistake {mistake.id}>", "exec"), namespace)
        runs.append({mistake.function: namespace[mistake.function]})
    for functions in runs:
        printed, summary = _run(assignment, lang, functions, names=list(functions) or None)
        for name, (out, err) in printed.items():
            assert not _too_wide(out + err), (name, out + err)
        assert not _too_wide(summary), summary


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_stub_is_not_started_quietly_on_stdout(lang):
    printed, summary = _run("ch12_bptt", lang, {})
    with messages.speaking(lang):
        for name, (out, err) in printed.items():
            assert out == "\n".join(wrap(messages.text("check.not_started", name=name))) + "\n" and not err, (
                name,
                out,
                err,
            )
            assert messages.text(NOTE) not in out
        assert summary.count(_wrapped(messages.text(NOTE))) == 1
        assert (
            _wrapped(
                messages.text(
                    "notebook.summary_stub", names=(", " if lang == "en" else "、").join(public_checks("ch12_bptt"))
                )
            )
            in summary
        )


def test_under_nbgrader_validate_a_stub_is_not_started_on_stderr(monkeypatch):
    """nbgrader validate fails a grade cell only for an error or a stderr output."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    printed, _ = _run("ch12_bptt", "en", {}, names=["rnn_backward"])
    assert printed["rnn_backward"] == ("", messages.text("check.not_started", name="rnn_backward") + "\n")


def test_an_exercise_stub_is_not_started_not_disagreeing():
    exercises = [name for name, spec in public_checks("ch11_rnn_state").items() if not spec["rules"]["reveal"]]
    printed, _ = _run("ch11_rnn_state", "en", {}, names=exercises)
    for name, (out, err) in printed.items():
        assert out.strip() == messages.text("check.not_started", name=name) and not err
        assert "does not agree" not in out


def test_a_wrong_answer_goes_to_stderr_without_the_note():
    printed, _ = _run("ch12_bptt", "en", {"sgd_update": lambda w, grad, lr: w + lr * grad}, names=["sgd_update"])
    out, err = printed["sgd_update"]
    right, total = map(int, re.match(r"sgd_update: (\d+)/(\d+) public cases right", err).groups())
    assert not out and right < total and messages.text(NOTE).split(":")[0] not in err


def _mixed(lang: str):
    """ch12_bptt with one check right, one wrong, one partly right and the rest stubs."""
    reference = get("ch12_bptt").reference
    calls = []

    def partly(*args, **kwargs):  # right on the first public case only
        calls.append(1)
        return reference.clip_by_global_norm(*args, **kwargs) if len(calls) == 1 else 0

    functions = {
        "scalar_forward": reference.scalar_forward,
        "bptt_scalar": lambda *a, **k: 0,
        "clip_by_global_norm": partly,
    }
    return _run("ch12_bptt", lang, functions)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_summary_of_a_notebook_half_done(lang):
    checks, written = public_checks("ch12_bptt"), public_half("ch12_bptt")["written"]
    printed, summary = _mixed(lang)
    sep = ", " if lang == "en" else "、"
    every = sum(spec["points"] for spec in checks.values()) + sum(written.values())
    with messages.speaking(lang):
        head = messages.text("notebook.summary", right=1, total=len(checks)) + messages.text(
            "notebook.summary_worth", points=f"{checks['scalar_forward']['points']:g}", all=f"{every:g}"
        )
        clip = len(checks["clip_by_global_norm"]["cases"])
        wrong = sep.join(
            [
                messages.text(
                    "notebook.summary_wrong_item",
                    name="bptt_scalar",
                    passed=0,
                    total=len(checks["bptt_scalar"]["cases"]),
                ),
                messages.text("notebook.summary_wrong_item", name="clip_by_global_norm", passed=1, total=clip),
            ]
        )
        stubs = [name for name in checks if name not in ("scalar_forward", "bptt_scalar", "clip_by_global_norm")]
        expected = [
            head,
            messages.text("notebook.summary_right", names="scalar_forward"),
            messages.text("notebook.summary_wrong", names=wrong),
            messages.text("notebook.summary_stub", names=sep.join(stubs)),
            messages.text(
                "notebook.summary_written",
                names=sep.join(messages.text("notebook.points_item", name=name, count=1) for name in written),
            ),
            messages.text(NOTE),
        ]
    assert summary == _wrapped(*expected) + "\n", summary
    assert not _too_wide(summary)


def test_the_summary_lists_in_the_order_the_checks_ran_then_those_not_run():
    points = {"a": 1.0, "b": 2.0, "c": 1.0, "d": 1.0}
    outcomes = {
        "c": SummaryItem(True, 2, 2, 1.0),
        "a": SummaryItem(False, 0, 1, 1.0, stub=True),
        "b": SummaryItem(False, 1, 3, 2.0),
    }
    with messages.speaking("en"):
        text = "\n".join(summary_lines(points, outcomes, {"w": 2.0}))
        assert text == _wrapped(
            messages.text("notebook.summary", right=1, total=4)
            + messages.text("notebook.summary_worth", points=1, all=7),
            messages.text("notebook.summary_right", names="c"),
            messages.text(
                "notebook.summary_wrong",
                names=messages.text("notebook.summary_wrong_item", name="b", passed=1, total=3),
            ),
            messages.text("notebook.summary_stub", names="a"),
            messages.text("notebook.summary_not_run", names="d"),
            messages.text("notebook.summary_written", names="w (2 points)"),
            messages.text(NOTE),
        )
        assert summary_lines(points, {}, {}) == wrap(messages.text("notebook.summary_none"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_at_grading_the_summary_gives_the_graders_points_and_no_public_note(lang):
    points = {"a": 1.0, "b": 2.0, "c": 3.0}
    outcomes = {
        "a": SummaryItem(True, 6, 6, 1.0, 1.0),
        "b": SummaryItem(False, 4, 6, 2.0, 1.3333),
        "c": SummaryItem(False, 0, 6, 3.0, 0.0, stub=True),
    }
    with messages.speaking(lang):
        text = "\n".join(summary_lines(points, outcomes, {"w": 1.0}, graded=True))
        assert text == _wrapped(
            messages.text("notebook.summary", right=1, total=3)
            + messages.text("notebook.summary_scored", points=2.33, all=7),
            messages.text("notebook.summary_right", names="a"),
            messages.text(
                "notebook.summary_wrong",
                names=messages.text("notebook.summary_wrong_item_graded", name="b", score=1.33, points=2),
            ),
            messages.text("notebook.summary_stub", names="c"),
            messages.text(
                "notebook.summary_written_graded", names=messages.text("notebook.points_item", name="w", count=1)
            ),
        )
        assert messages.text(NOTE)[:20] not in text


def test_the_summary_in_chinese_uses_chinese_list_punctuation():
    with messages.speaking("zh"):
        text = "\n".join(
            summary_lines(
                {"a": 1.0, "b": 1.0},
                {"a": SummaryItem(False, 0, 1, 1.0, stub=True), "b": SummaryItem(False, 0, 1, 1.0, stub=True)},
            )
        )
    assert "a、b" in text and ", " not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_exercise_right_on_the_books_case_and_wrong_on_another_says_which(lang):
    """The head of an exercise's self-check (it shows no expected value) says the book's answer agrees
    and names the case that does not, instead of "does not agree with the book's reference answer"."""
    spec = get("ch12_bptt")

    def book_only(xs, w, target, lr):  # right on the book's three reads, wrong on the longer case
        return spec.reference.ex_12_7_2(xs[:3], w, target, lr)

    def neither(xs, w, target, lr):
        return spec.reference.ex_12_7_2(xs, w, target, 0)

    other = messages.said(spec.check("ex_12_7_2").public()[1].label, lang)
    for function, head in ((book_only, "check.selfcheck_book_right"), (neither, "check.selfcheck_wrong")):
        printed, _ = _run("ch12_bptt", lang, {"ex_12_7_2": function}, names=["ex_12_7_2"])
        out, err = printed["ex_12_7_2"]
        first = re.sub(r"\n\s+", " " if lang == "en" else "", err.split("\n  - ")[0])
        with messages.speaking(lang):
            start = messages.text(head, name="ex_12_7_2", case="\0").split("\0")[0]
        assert not out and first.startswith(start), (function.__name__, first)
        assert (other in first) == (function is book_only), first
