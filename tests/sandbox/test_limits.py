"""One `Limits` from the settings to the runner: the kit's `rnnkit.jail.limits.Limits`, made from
`Settings` (`Settings.limits`), handed whole to `TrustedExecute`, sent whole in a runner's spawn
request and rebuilt there; each limit has one name (course_config.py's) and one default."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

from traitlets.config import Config

from autograder import pipeline
from autograder.coursedir import config
from autograder.grading.execute import TrustedExecute
from autograder.sandbox.session import Session
from rnnkit.jail.limits import Limits

from ..conftest import REPO, make_course

#: What the limits were called on their way from course_config.py to the jail, before they had one name.
OLD_NAMES = re.compile(
    r"\b(memory_mb|memory_limit_mb|output_kb|output_limit_kb|output_total_kb|process_limit|work_mb|work_limit_mb|"
    r"cell_timeout|call_timeout|submission_timeout|runner_restarts|hidden_cases =|Budget)\b|"
    r"\.(processes|budget)\b|\bbudget=|\"output_limit\""
)


def _sources() -> list[Path]:
    return [
        *(REPO / "autograder").rglob("*.py"),
        *(REPO / "kit" / "rnnkit").rglob("*.py"),
        REPO / "course_config.py",
        REPO / "nbgrader_config.py",
    ]


def test_each_limit_has_one_name_and_one_default():
    """No module calls a limit by another name than course_config.py's, and the memory limit's default
    is written once, in the kit's `Limits`."""
    found = {
        f"{path.relative_to(REPO)}:{n}": line.strip()
        for path in _sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OLD_NAMES.search(line)
    }
    assert found == {}
    defaults = [
        f"{path.relative_to(REPO)}:{line.strip()}"
        for path in _sources()
        if path.name != "course_config.py"
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\b2048\b", line)
    ]
    assert defaults == [
        "kit/rnnkit/jail/limits.py:MEMORY_LIMIT_MB: int = 2048  # RLIMIT_AS, and the runner's cgroup memory"
    ]


def test_the_grader_is_given_the_settings_whole(tmp_path):
    """nbgrader's config holds the course's `Settings` for `TrustedExecute`, whose only other traits
    are where the course is and whether grading unsandboxed is allowed: no limit is declared again."""
    root = make_course(tmp_path / "course", ["ch12_bptt"])
    with (root / "course_config.py").open("a") as handle:
        handle.write("\nMEMORY_LIMIT_MB = 1536\nSUBMISSION_TIMEOUT = 42\n")
    given = Config()
    pipeline.configure(given, str(root))
    assert set(given.TrustedExecute) == {"settings", "course_root"}
    assert given.TrustedExecute.settings == config.load(root)
    assert given.TrustedExecute.settings.limits == Limits(MEMORY_LIMIT_MB=1536, SUBMISSION_TIMEOUT=42)
    assert set(TrustedExecute.class_own_traits()) == {"settings", "course_root", "unsandboxed"}


def test_the_spawn_request_carries_the_whole_limits_and_the_language(tmp_path, monkeypatch):
    """The runner is sent every limit and the language, rebuilds the limits it was sent (its memory
    limit is the one given) and speaks that language, whatever the grader's environment says."""
    sent = []
    send_fds = socket.send_fds
    monkeypatch.setattr(
        socket,
        "send_fds",
        lambda sock, buffers, fds: sent.append(json.loads(buffers[0])) or send_fds(sock, buffers, fds),
    )
    monkeypatch.setenv("COURSE_LANG", "en")
    limits = Limits(MEMORY_LIMIT_MB=1536, OUTPUT_LIMIT_KB=64, CELL_TIMEOUT=30, SUBMISSION_TIMEOUT=99, RUNNER_RESTARTS=3)
    with Session(tmp_path, limits, "zh") as session:
        outputs = session.run_cell(
            "import os, resource\nfrom rnnkit import messages\n"
            "print(messages.language(), os.environ.get('COURSE_LANG'), resource.getrlimit(resource.RLIMIT_AS)[0] >> 20)"
        )
    (request,) = [message for message in sent if message.get("op") == "spawn"]
    assert Limits(**request["limits"]) == limits and request["language"] == "zh"
    assert outputs[0].text.split() == ["zh", "None", "1536"]
