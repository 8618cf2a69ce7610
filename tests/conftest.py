"""Shared fixtures: a throw-away course root with the committed course files."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from autograder.coursedir import config
from autograder.coursedir.layout import Course

# the browser tests' fixtures, defined once for the whole run (one Playwright, one chromium)
from .browser import browser, browser_ready, context, instructor, served_class, served_class_zh  # noqa: F401

REPO = config.REPO_ROOT

# The tests' commands answered by a warm process, as an instructor's are (autograder.commands.warm),
# which ends two minutes after the run; tests/commands/test_warm.py holds it to a process of its own.
os.environ.setdefault("AUTOGRADER_WARM", "120")


def make_course(folder: Path, assignments: list[str] | None = None) -> Path:
    """A course root in `folder` with the committed course files (course_config.py optionally
    limited to `assignments`, a list of names as course_config.ASSIGNMENTS is), and the tests' own
    course secret (`tests.attempts.SECRET`), which its release keeps: every run of the tests grades
    on the same hidden cases."""
    from autograder.grading.attempts import SECRET_FILE

    from .attempts import SECRET

    root = Course(REPO).start_course(folder, assignments).root
    secret = root / SECRET_FILE
    secret.write_bytes(SECRET + b"\n")
    secret.chmod(0o600)
    return root


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return make_course(tmp_path / "course")


#: The assignments under test; `TEST_ASSIGNMENTS=a,b` narrows a run to some of them.
ASSIGNMENTS = [
    name for name in config.load().ASSIGNMENTS if name in os.environ.get("TEST_ASSIGNMENTS", name).split(",")
]


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory):
    """The one class released and autograded through real nbgrader for the whole run
    (see tests/classroom.py): reference, stub and mutants of every assignment, and the hostile
    submissions of ch12_bptt with two honest students."""
    from .classroom import grade_class

    return grade_class(make_course(tmp_path_factory.mktemp("class") / "course", ASSIGNMENTS), ASSIGNMENTS, workers=4)


@pytest.fixture(scope="session")
def graded_class_zh(tmp_path_factory):
    """The Chinese edition's class (see tests/classroom.py `grade_class_zh`): reference, stub and
    the first mistake of each check, graded in a course whose language is zh."""
    from .classroom import grade_class_zh

    return grade_class_zh(make_course(tmp_path_factory.mktemp("class-zh") / "course", ASSIGNMENTS), ASSIGNMENTS)


@pytest.fixture
def repository_messages():
    """`rnnkit.messages` loaded from the repository's kit/ folder (its catalogue reads the json
    files beside it, the installed kit may be older), under a name of its own so the installed
    package stays untouched."""
    spec = importlib.util.spec_from_file_location(
        "_repository_rnnkit_messages", REPO / "kit" / "rnnkit" / "messages" / "__init__.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The costliest session fixtures: a test that needs one of them (directly or through another
#: fixture) goes to its group, whatever else it uses.
GRADED = ("graded_class", "graded_class_zh")
#: Where the workers of pytest-xdist leave each test's group for the scheduler (set by the controller).
GROUPS = "RNN_COURSE_TEST_GROUPS"


def _group(item) -> str:
    """The test's group: a session fixture's name (the graded classes first), else the module of a
    module fixture, else the test alone."""
    shared = [
        definition
        for definitions in item._fixtureinfo.name2fixturedefs.values()
        for definition in definitions
        if definition.scope in ("session", "module") and definition.baseid.startswith("tests")
    ]
    session = [
        *(name for name in GRADED if name in item.fixturenames),
        *sorted(d.argname for d in shared if d.scope == "session"),
    ]
    return session[0] if session else item.module.__name__ if shared else item.nodeid


def pytest_configure(config):
    if not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist"):
        os.environ[GROUPS] = str(Path(tempfile.mkdtemp(prefix="rnn-course-test-groups-")))


def pytest_collection_modifyitems(config, items):
    if hasattr(config, "workerinput") and os.environ.get(GROUPS):
        path = Path(os.environ[GROUPS]) / f"{config.workerinput['workerid']}.json"
        path.write_text(json.dumps({item.nodeid: _group(item) for item in items}), encoding="utf-8")


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and os.environ.get(GROUPS):
        shutil.rmtree(os.environ.pop(GROUPS), ignore_errors=True)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's
def pytest_xdist_make_scheduler(config, log):
    """`make test` runs `-n 2 --dist loadscope`: the tests that share a costly fixture of this suite
    go to one worker, so that it is built once (the graded classes, the served class, a module's
    clean virtual environment); every other test is scheduled alone."""
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if not hasattr(self, "_groups"):
                self._groups = {
                    k: v
                    for path in Path(os.environ[GROUPS]).glob("*.json")
                    for k, v in json.loads(path.read_text(encoding="utf-8")).items()
                }
            return self._groups.get(nodeid, nodeid)

    return SharedFixtureScheduling(config, log)
