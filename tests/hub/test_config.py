"""`python -m autograder hub config`: the file it prints is a jupyterhub_config.py that JupyterHub's own
loader reads, with the roles, the groups, the scopes of formgrader's service and the students' own
environment the demo runs on; and `hub demo` tells anyone but root why not, in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.commands.course import nbgrader_env
from autograder.hub import demo


def test_the_printed_config_is_the_courses_hub(course, tmp_path):
    printed = subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(course), "hub", "config", "--student", "ada"]
        + ["--student", "ben", "--ta", "ta", "--port", "8123"],
        capture_output=True,
        text=True,
        env=nbgrader_env(),
    )
    assert printed.returncode == 0, printed.stderr
    (tmp_path / "jupyterhub_config.py").write_text(printed.stdout, encoding="utf-8")
    c = PyFileConfigLoader("jupyterhub_config.py", path=str(tmp_path)).load_config()  # as JupyterHub loads it

    assert (c.JupyterHub.ip, c.JupyterHub.port) == ("127.0.0.1", 8123)
    assert c.JupyterHub.authenticator_class == "pam" and c.JupyterHub.spawner_class == "localprocess"
    assert c.Authenticator.allowed_users == {"ada", "ben", "ta", "grader-rnn-chapters"}
    assert c.Authenticator.admin_users == set(), "no hub admins: admin opens every student's server"
    assert c.JupyterHub.load_groups == {
        "nbgrader-rnn-chapters": {"users": ["ada", "ben"]},
        "formgrade-rnn-chapters": {"users": ["grader-rnn-chapters", "ta"]},
    }
    roles = {role["name"]: role for role in c.JupyterHub.load_roles}
    assert roles["formgrade-rnn-chapters"]["groups"] == ["formgrade-rnn-chapters"]
    assert roles["formgrade-rnn-chapters"]["scopes"] == [
        "access:services!service=rnn-chapters",
        "list:services!service=rnn-chapters",
        "read:services!service=rnn-chapters",
    ]
    assert roles["rnn-chapters-service"] == {
        "name": "rnn-chapters-service",
        "services": ["rnn-chapters"],
        "scopes": ["read:users:groups!user=grader-rnn-chapters", "groups!group=nbgrader-rnn-chapters"],
    }
    (service,) = c.JupyterHub.services
    assert service["name"] == "rnn-chapters" and service["user"] == "grader-rnn-chapters"
    assert service["cwd"] == str(course) and service["command"][1:] == ["-m", "autograder.hub.service"]
    assert service["environment"]["JUPYTERHUB_DEFAULT_URL"] == "/formgrader"
    assert "api_token" not in service, "the hub makes the service's token at each start: none on disk"
    # the students run their own environment, never the instructor's venv (it holds the references)
    assert c.Spawner.cmd == ["/opt/rnn-chapters/students-env/bin/jupyterhub-singleuser"]
    assert sys.prefix not in c.Spawner.environment["PATH"]
    # the course's exchange lies in its root: the file says where to put it instead
    assert "c.Exchange.root = '/srv/nbgrader/exchange'" in printed.stdout
    assert "configurable-http-proxy@5.3" in printed.stdout and 'jupyterhub==5.5.4"' in printed.stdout


def test_the_demo_needs_root_and_says_so_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(demo.os, "geteuid", lambda: 1000)
    with pytest.raises(SystemExit) as stopped:
        demo.run(tmp_path)
    assert str(stopped.value).startswith("hub demo needs root: it makes Linux accounts")
    assert "\n" not in str(stopped.value)
    assert not (tmp_path / demo.FOLDER).exists()
