"""The command line says clearly what is wrong and changes nothing when the input is bad."""

import argparse
import re
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.assignments import get
from autograder.authoring import build
from autograder.commands import cli, course
from autograder.coursedir import config

from ..conftest import ASSIGNMENTS, make_course


def _cli(root, *args):
    return subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), *args], capture_output=True, text=True
    )


def test_an_unknown_assignment_is_named_with_the_known_ones(tmp_path):
    result = _cli(make_course(tmp_path / "course"), "release", "ch99")
    assert result.returncode != 0 and "unknown assignment(s) ['ch99']" in result.stderr and "ch12_bptt" in result.stderr


@pytest.mark.parametrize("command", ["release", "autograde", "report"])
def test_an_assignment_the_course_lists_without_a_folder_stops_every_command(tmp_path, command):
    root = make_course(tmp_path / "course")
    with (root / "course_config.py").open("a") as handle:
        handle.write('\nASSIGNMENTS = ["ch12_bptt", "ch13_attention"]\n')
    result = _cli(root, command)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "['ch13_attention'], which have no folder" in result.stderr and "'ch12_bptt'" in result.stderr
    assert not (root / "source" / "ch12_bptt").exists()  # nothing was built before the refusal


def test_a_misspelt_assignment_gets_a_guess(tmp_path):
    result = _cli(make_course(tmp_path / "course"), "autograde", "ch12_bpt")
    assert result.returncode != 0 and "(did you mean ch12_bptt?)" in result.stderr


def test_a_missing_submission_is_reported_without_touching_the_gradebook(tmp_path):
    root = make_course(tmp_path / "course")
    result = _cli(root, "autograde", "ch12_bptt", "--student", "nobody")
    assert result.returncode != 0 and "no submission at submitted/nobody/ch12_bptt" in result.stderr
    assert "sandbox:" not in result.stdout  # the submission is looked for before anything starts
    assert not (root / "gradebook.db").exists() and not (root / "autograded").exists()


def test_release_keeps_a_hand_edited_source_notebook_unless_forced(tmp_path, monkeypatch):
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    monkeypatch.setattr(course, "nbgrader", lambda root, *args: None)  # generate_assignment is tested elsewhere
    assert cli.main(["--root", str(root), "release"]) == 0
    source = root / "source" / "ch12_bptt" / "ch12_bptt.ipynb"
    built = source.read_text(encoding="utf-8")
    notebook = nbformat.reads(built, as_version=4)
    notebook.cells[0].source += "\n\nA note added in formgrader."
    nbformat.write(notebook, source)
    edited = source.read_text(encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        cli.main(["--root", str(root), "release", "ch12_bptt"])
    for part in (str(source), "autograder/assignments/ch12_bptt/notebook.md", "--force"):
        assert part in str(refused.value)
    assert source.read_text(encoding="utf-8") == edited
    assert cli.main(["--root", str(root), "release", "ch12_bptt", "--force"]) == 0
    assert source.read_text(encoding="utf-8") == built
    # a notebook that release itself wrote is rebuilt after the template changes, without --force
    template_changed = build.build_notebook(get("ch12_bptt"), root)
    template_changed.cells[0].source += "\n\nA sentence added to notebook.md."
    monkeypatch.setattr(build, "build_notebook", lambda name, root=None: template_changed)
    assert cli.main(["--root", str(root), "release", "ch12_bptt"]) == 0
    assert source.read_text(encoding="utf-8") == build.notebook_text(template_changed)


def test_feedback_for_a_student_with_nothing_autograded_says_so(tmp_path):
    with pytest.raises(SystemExit, match="no autograded submission at autograded/nobody/ch12_bptt"):
        cli.main(["--root", str(make_course(tmp_path / "course")), "feedback", "ch12_bptt", "--student", "nobody"])


def test_feedback_for_some_students_leaves_the_others_alone(graded_class):
    assignment, chosen = ASSIGNMENTS[0], ["reference", "stub"]
    folder = graded_class.root / "feedback"

    def stamps(student):
        return {p.name: p.stat().st_mtime_ns for p in (folder / student / assignment).glob("*.html")}

    others = {s: stamps(s) for (a, s) in graded_class.table if a == assignment and s not in chosen}
    before = {s: stamps(s) for s in chosen}
    assert (
        cli.main(
            ["--root", str(graded_class.root), "feedback", assignment, "--student", chosen[0], "--student", chosen[1]]
        )
        == 0
    )
    for student in chosen:
        after = stamps(student)
        assert f"{assignment}.html" in after and after != before[student], student
    assert {s: stamps(s) for s in others} == others
    with pytest.raises(SystemExit, match=f"autograded/nobody/{assignment}"):
        cli.main(["--root", str(graded_class.root), "feedback", assignment, "--student", "nobody"])


@pytest.mark.nbgrader
def test_the_demo_grades_its_sample_class_in_a_course_of_its_own(tmp_path):
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    course.release(root, ["ch12_bptt"])
    from autograder.authoring.submissions import write_submission

    real = write_submission(root, "real-student", "ch12_bptt", None)
    before = {p: p.read_bytes() for p in real.iterdir()}
    for _ in range(2):  # a second demo leaves the real course as it was too
        result = _cli(root, "demo", "--workers", "2")
        assert result.returncode == 0, result.stderr[-3000:]
    demo = root / "demo-course"
    assert f"demo course: {demo}" in result.stdout
    spec, points = get("ch12_bptt"), config.load(root).POINTS
    autograded = sum(spec.points(check.name, points) for check in spec.graded)
    written = sum(spec.points(answer.name, points) for answer in spec.written)
    # autograde prints the scores it gave: full marks, the written answer awaiting a TA
    assert re.search(rf"\nada +ch12_bptt +{autograded:.2f}/{autograded:.1f} +- +{written:.1f} ", result.stdout), (
        result.stdout
    )
    assert {p: p.read_bytes() for p in real.iterdir()} == before
    assert not any((root / name).exists() for name in ("autograded", "feedback", "exports", "reports"))
    settings = config.load(root)
    with Gradebook(config.database_url(root, settings), settings.COURSE_ID) as gradebook:
        assert not gradebook.students  # the real course's gradebook holds the release only
    assert sorted(p.name for p in (demo / "submitted").iterdir()) == ["ada", "ben", "chen", "dana", "eli"]
    assert (demo / "reports" / "class-report.html").is_file() and (demo / "exports" / "grades.csv").is_file()
    course.nbgrader(demo, "release_feedback", "ch12_bptt")  # nbgrader's own steps work on the demo's submissions
    assert list((demo / "exchange").rglob("*.html"))


#: The commands in the order a term uses them; the rest after.
COURSE_ORDER = ["release", "kit", "autograde", "feedback", "export", "report"]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_help_lists_the_commands_in_the_order_of_a_course():
    names = list(_subcommands())
    assert names[: len(COURSE_ORDER)] == COURSE_ORDER and set(names) > set(COURSE_ORDER)
    shown = cli._parser().format_help()
    at = [re.search(rf"\n    {name}\s", shown).start() for name in names]  # a long name has its help on the next line
    assert at == sorted(at)


def test_every_argument_of_every_command_is_explained():
    parsers = list(_subcommands().items())
    for name, sub in parsers:
        assert sub.description, name
        for action in sub._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
            if isinstance(action, argparse._SubParsersAction):  # a command's own actions (lti key, lti push)
                parsers += [(f"{name} {inner}", parser) for inner, parser in action.choices.items()]
    assert "lti push" in dict(parsers)
