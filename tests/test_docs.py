"""The documents (README.md and docs/*.md) say only what the test suite runs, fit one sitting, and link
to files that are there.

Every command in a fenced shell block (```sh, ```bash, ```shell; a line starting with `#` is a comment)
is either cheap enough to run here (RUN_HERE) or matched by RUN_BY to the test that runs it: a named
test (`tests/test_x.py::test_name`) whose source, or the source of a fixture it takes, names the
command's subcommand; or `.ci/run` for `make test`, a make target that `make test` builds first, and
pytest itself. A command that matches neither fails with the document and the command. And the table
of settings in docs/instructor.md is `Settings`, setting for setting and default for default.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: The longest a document may be, in lines: one sitting's reading (the README, a front page, less).
MAX_LINES = 200
README_MAX_LINES = 120
#: Fenced blocks whose lines are commands.
SHELL = {"sh", "bash", "shell"}
#: The CI's entry point, which runs `make test`.
CI = ".ci/run"

#: Commands this file runs itself (pattern of the normalised command, see `_normalised`).
RUN_HERE = [r"^autograder( [a-z]+)? --help$"]

#: Commands the suite runs: pattern of the normalised command -> the test that runs it (or `CI`).
RUN_BY = {
    r"^autograder release\b": "tests/commands/test_cli.py::test_release_keeps_a_hand_edited_source_notebook_unless_forced",
    r"^autograder autograde\b": "tests/commands/test_fail_closed.py::"
    "test_an_unreadable_regrade_keeps_the_earlier_graded_copy_and_its_grades_and_the_report_says_so",
    r"^autograder feedback --release\b": "tests/term/test_term.py::"
    "test_an_extension_moves_exactly_the_submission_it_covers_and_its_revocation_moves_it_back",
    r"^autograder feedback\b": "tests/commands/test_cli.py::test_feedback_for_some_students_leaves_the_others_alone",
    r"^autograder export\b": "tests/reporting/test_exports.py::test_export_takes_students_on_the_command_line",
    r"^autograder report\b": "tests/reporting/test_report_html.py::test_the_report_command_writes_the_page",
    r"^autograder similarity\b": "tests/reporting/test_similarity.py::test_the_command_writes_the_ranked_pairs_the_flags_and_the_page",
    r"^autograder kit\b": "tests/authoring/test_kit.py::test_the_notebooks_and_the_students_readme_name_the_wheel_that_is_built",
    r"^autograder tables\b": "tests/authoring/test_book.py::test_the_runner_prints_the_tables_and_writes_run_json",
    r"^(autograder|make) demo\b": "tests/commands/test_cli.py::test_the_demo_grades_its_sample_class_in_a_course_of_its_own",
    r"^make (test|test-scale|test-hub|venv)$": CI,
    r"^pytest\b": CI,
    r"^ruff (format|check)\b": CI,
    r"^pip install .*rnn_course_kit-.*\.whl": "tests/authoring/test_kit.py::test_alone_the_kit_self_checks_the_released_notebook",
    r"^nbgrader autograde\b": "tests/commands/test_nbgrader_autograde.py::test_plain_nbgrader_autograde_gives_the_same_grades",
    r"^nbgrader collect\b": "tests/intake/test_submissions_in.py::test_collect_refuses_links_and_hard_links_and_flags_them_without_copying",
    r"^nbgrader release_feedback\b": "tests/intake/test_hostile.py::test_feedback_and_release_feedback_carry_the_page_only",
    r"^nbgrader zip_collect .*_attempt_": "tests/intake/test_lms.py::test_zip_collect_puts_an_lms_download_into_submitted",
    r"^nbgrader zip_collect .*LATE_": "tests/intake/test_submissions_in.py::"
    "test_zip_collect_takes_the_newest_canvas_resubmission_and_records_late",
    r"^autograder (extend|history)\b": "tests/term/test_term.py::"
    "test_an_extension_moves_exactly_the_submission_it_covers_and_its_revocation_moves_it_back",
    r"^autograder lti push\b": "tests/lms/test_push.py::test_pushes_send_each_score_once_and_then_only_what_changed",
    r"^autograder lti roster\b": "tests/lms/test_roster.py::"
    "test_the_roster_takes_the_class_from_the_lms_lists_who_left_and_staff_apart",
    r"^autograder lti key\b": "tests/lms/test_push.py::test_the_tools_key_is_made_once_private_and_its_key_set_is_what_the_platform_checks",
    r"^autograder hub config\b": "tests/hub/test_config.py::test_the_printed_config_is_the_courses_hub",
    r"^autograder hub demo\b": "tests/hub/test_hub.py::test_a_real_hub_keeps_each_role_to_its_own",
    r"^autograder regrade\b": "tests/term/test_term.py::test_a_regrade_previews_what_it_applies_keeps_the_ta_and_reverts_exactly",
    r"^nbgrader validate\b": "tests/kit/test_student_path.py::test_nbgrader_validate_names_each_failing_check_with_its_reason",
    r"^nbgrader (release_assignment|fetch_assignment|submit|fetch_feedback)\b": (
        "tests/intake/test_exchange_users.py::test_a_student_account_fetches_submits_and_gets_feedback_through_the_exchange"
    ),
}


@dataclass(frozen=True)
class Command:
    doc: str  # the document, relative to the repository
    line: int  # its line there
    text: str  # the command as written (one of a line's `&&`-joined commands)
    words: tuple  # normalised: program names without their folder, `python -m m` as `m`
    env: tuple  # the names of the variables set before it

    @property
    def normalised(self) -> str:
        return " ".join(self.words)

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.text}"


def _blocks(path: Path):
    """(info string, first line number, lines) of each fenced block of a markdown file."""
    info, start, lines = None, 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = re.match(r"\s*```(\S*)", line)
        if fence and info is None:
            info, start, lines = fence.group(1).lower(), number + 1, []
        elif fence:
            yield info, start, lines
            info = None
        elif info is not None:
            lines.append(line)


def _normalised(words: list[str]) -> tuple:
    program = os.path.basename(words[0])
    if re.fullmatch(r"python(3(\.\d+)?)?", program):
        if words[1:2] == ["-m"]:
            return _normalised(words[2:])
        return ("python", *words[1:])
    return (re.sub(r"^pip3$", "pip", program), *words[1:])


def commands(path: Path) -> list[Command]:
    """Every command in the fenced shell blocks of one document."""
    found = []
    doc = path.relative_to(REPO).as_posix()
    for info, start, lines in _blocks(path):
        if info not in SHELL:
            continue
        for offset, line in enumerate(lines):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            words = shlex.split(line, comments=True)
            parts, part = [], []
            for word in words:
                if word in ("&&", "||", ";", "|"):
                    parts.append(part)
                    part = []
                else:
                    part.append(word)
            parts.append(part)
            for part in filter(None, parts):
                env = []
                while part and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", part[0]):
                    env.append(part.pop(0).split("=", 1)[0])
                text = " ".join(shlex.quote(w) if re.search(r"[\s'\"$]", w) else w for w in part)
                found.append(Command(doc, start + offset, text, _normalised(part), tuple(env)))
    return found


ALL = [command for path in DOCS for command in commands(path)]


def subcommand(command: Command) -> str:
    """What a test must name to run this command: the subcommand of `autograder`, `nbgrader`, `make`
    or `pip`, the function a `python -c` calls, else the program."""
    words = list(command.words)
    if words[0] in ("autograder", "nbgrader", "make", "pip"):
        rest = words[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] == "--root" else rest[1:]
        return rest[0] if rest else words[0]
    if words[:2] == ["python", "-c"]:
        return re.findall(r"(\w+)\(", words[2])[-1]
    return words[0]


def _target(command: Command) -> str | None:
    return next((test for pattern, test in RUN_BY.items() if re.search(pattern, command.normalised)), None)


@lru_cache(maxsize=None)
def _functions(path: Path) -> dict[str, ast.FunctionDef]:
    """The module-level functions of a Python file, by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _is_fixture(node: ast.FunctionDef) -> bool:
    return any("fixture" in ast.unparse(decorator) for decorator in node.decorator_list)


def _test_source(test: str) -> str:
    """The source of a test `tests/test_x.py::name` and of the fixtures it takes (from its module and
    tests/conftest.py, and theirs in turn)."""
    file, name = test.split("::")
    module, conftest = _functions(REPO / file), _functions(REPO / "tests" / "conftest.py")
    assert name in module, f"{test}: no such test"
    parts, seen, todo = [], set(), [module[name]]
    while todo:
        node = todo.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        parts.append(ast.unparse(node))
        for argument in node.args.args:
            for functions in (module, conftest):
                if argument.arg in functions and _is_fixture(functions[argument.arg]):
                    todo.append(functions[argument.arg])
                    break
    return "\n".join(parts)


def _makefile_target(name: str) -> tuple[list[str], list[str]]:
    """The prerequisites and the recipe lines of one target of the Makefile."""
    lines = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        match = re.match(rf"{re.escape(name)}:(?!=)(.*)", line)
        if match:
            recipe = []
            for following in lines[index + 1 :]:
                if not following.startswith("\t"):
                    break
                recipe.append(following.strip())
            return match.group(1).split(), recipe
    raise AssertionError(f"the Makefile has no target {name!r}")


def _check_ci(command: Command) -> None:
    assert re.search(r"^\s*make test\b", (REPO / CI).read_text(encoding="utf-8"), re.M), (
        f"{CI} no longer runs make test"
    )
    test_needs, test_recipe = _makefile_target("test")
    words = command.words
    if words[0] == "make":
        needs, _ = _makefile_target(words[1])
        assert words[1] == "test" or set(needs) <= set(test_needs), (
            f"{command}: `make test` does not build what `make {words[1]}` builds ({needs} vs {test_needs})"
        )
    else:
        runs = r"-m pytest\b" if words[0] == "pytest" else rf"/{words[0]} {words[1]}\b"
        assert words[0] in ("pytest", "ruff") and any(re.search(runs, line) for line in test_recipe), (
            f"{command}: `make test` does not run {words[0]} {words[1] if words[0] == 'ruff' else ''}"
        )


@pytest.mark.parametrize("command", ALL, ids=str)
def test_every_command_in_the_documents_is_run_by_the_suite(command):
    if any(re.search(pattern, command.normalised) for pattern in RUN_HERE):
        result = subprocess.run(
            [sys.executable, "-m", *command.words], cwd=REPO, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0 and "usage:" in result.stdout, f"{command}:\n{result.stderr[-2000:]}"
        return
    target = _target(command)
    if target is None:
        pytest.fail(
            f"{command.doc}: `{command.text}` (line {command.line}) is run by no test: name the test that "
            f"runs it in RUN_BY of tests/test_docs.py, or write one",
            pytrace=False,
        )
    if target == CI:
        _check_ci(command)
        return
    word = subcommand(command)
    assert re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", _test_source(target)), (
        f"{command}: {target} does not name {word!r}"
    )
    if command.words[0] == "make":  # a make target that is one command of the command line
        _, recipe = _makefile_target(command.words[1])
        assert any(f"-m autograder {command.words[1]}" in line for line in recipe), (
            f"{command}: the Makefile's recipe changed"
        )


@pytest.mark.parametrize("command", ALL, ids=str)
def test_paths_and_variables_a_command_names_are_there(command):
    for word in command.words[1:]:
        if re.match(r"(tests|benchmarks|docs|autograder|kit|solutions|data)/", word) and "<" not in word:
            assert (REPO / word).exists(), f"{command}: no {word}"
    sources = [
        *REPO.glob("autograder/**/*.py"),
        *REPO.glob("kit/rnnkit/**/*.py"),
        REPO / "tests" / "conftest.py",
        REPO / "Makefile",
    ]
    for name in command.env:
        if name != "PATH":
            assert any(name in path.read_text(encoding="utf-8") for path in sources), f"{command}: nothing reads {name}"


@pytest.mark.parametrize("test", sorted(set(RUN_BY.values()) - {CI}))
def test_every_test_the_map_names_exists(test):
    file, name = test.split("::")
    assert (REPO / file).is_file(), f"{test}: no {file}"
    assert name.startswith("test_") and name in _functions(REPO / file), f"{test}: no such test in {file}"


def test_the_readme_says_the_two_commands():
    said = {c.normalised for c in commands(REPO / "README.md")}
    assert {"make demo", "make test"} <= said, said


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_each_document_is_read_in_one_sitting(path):
    limit = README_MAX_LINES if path.name == "README.md" else MAX_LINES
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= limit, f"{path.relative_to(REPO)} has {lines} lines, more than {limit}: split it by reader"


def test_the_instructors_table_of_settings_is_the_settings():
    """docs/instructor.md lists every setting of `Settings` once, with its default."""
    from dataclasses import MISSING, fields

    from autograder.coursedir.settings import Settings

    defaults = {f.name: f.default if f.default is not MISSING else f.default_factory() for f in fields(Settings)}
    listed = {}
    for line in (REPO / "docs" / "instructor.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`[A-Z_]+`(, `[A-Z_]+`)*", cells[0]):
            names, values = re.findall(r"`([A-Z_]+)`", cells[0]), re.findall(r"`([^`]+)`", cells[1])
            assert len(names) == len(values), line
            for name, value in zip(names, values):
                assert name not in listed, f"{name} listed twice"
                listed[name] = ast.literal_eval(value)
    assert listed == defaults


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def _outside_fences(path: Path) -> str:
    """The document without its fenced blocks."""
    kept, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"\s*```", line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def _anchors(path: Path) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", _outside_fences(path), re.M)}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_are_there(path):
    broken = []
    for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", re.sub(r"`[^`\n]*`", "", _outside_fences(path))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target} (no file {file})")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target} (no heading #{anchor} in {linked.relative_to(REPO)})")
    assert not broken, f"{path.relative_to(REPO)}: " + "; ".join(broken)
