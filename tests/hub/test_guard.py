"""What a TA reaches through formgrader (`autograder.hub.guard`): submission files stay under
`autograded/` however the path is spelled, and Jupyter Server's own handlers are refused but its status."""

from __future__ import annotations

import os

from nbgrader.server_extensions.formgrader import handlers

from autograder.hub import guard


def test_a_submission_file_outside_autograded_is_not_served(tmp_path):
    graded = tmp_path / "autograded" / "ada" / "ch12_bptt"
    graded.mkdir(parents=True)
    (tmp_path / "course_secret").write_text("key")
    (graded / "plot.png").write_bytes(b"png")
    os.symlink(tmp_path / "course_secret", graded / "link.png")
    assert guard.within(str(tmp_path / "autograded"), str(graded / "plot.png"))
    assert not guard.within(str(tmp_path / "autograded"), str(graded / ".." / ".." / ".." / "course_secret"))
    assert not guard.within(str(tmp_path / "autograded"), str(graded / "link.png"))
    assert not guard.within(str(tmp_path / "autograded"), str(tmp_path / "autograded-not"))


def test_formgrader_registers_the_confined_handler(monkeypatch):
    monkeypatch.setattr(handlers, "default_handlers", list(handlers.default_handlers))
    guard.confine_submission_files()
    classes = [rule[1] for rule in handlers.default_handlers]
    assert guard.ConfinedSubmissionFiles in classes and handlers.SubmissionFilesHandler not in classes


def test_the_authorizer_refuses_every_resource_but_the_status(monkeypatch):
    monkeypatch.setattr(guard.JupyterHubAuthorizer, "is_authorized", lambda *args: True)  # the hub lets them in
    authorizer = guard.FormgraderOnly.__new__(guard.FormgraderOnly)
    allowed = {
        resource: authorizer.is_authorized(None, None, "read", resource)
        for resource in ("api", "contents", "kernels", "terminals", "sessions", "nbconvert", "kernelspecs", "lab")
    }
    assert allowed == {resource: resource == "api" for resource in allowed}
