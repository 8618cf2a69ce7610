"""What a TA reaches through formgrader, run as the grader account: formgrader's pages and their API,
and nothing else of the account's Jupyter server.

`FormgraderOnly` is the server's Authorizer: every handler of Jupyter Server that asks it (contents,
files, kernels, sessions, terminals, nbconvert, kernelspecs, config, events, lab) is refused but the
server's `api` status, and only to one the hub lets in (`access:services!service=<course>`). nbgrader's
formgrader handlers do not ask an Authorizer; of them only the submission files can name a path, and
`ConfinedSubmissionFiles` keeps those under `autograded/` (nbgrader's own resolves `..` within the
whole course root, where `course_secret` and `gradebook.db` lie)."""

from __future__ import annotations

import os

from jupyterhub.singleuser.extension import JupyterHubAuthorizer
from nbgrader.server_extensions.formgrader import handlers
from tornado import web

#: The Jupyter Server resources formgrader's pages use.
ALLOWED = frozenset({"api"})


class FormgraderOnly(JupyterHubAuthorizer):
    """Jupyter Server's own handlers for those the hub lets in, and of them the server status alone."""

    def is_authorized(self, handler, user, action, resource) -> bool:
        return resource in ALLOWED and super().is_authorized(handler, user, action, resource)


def within(folder: str, path: str) -> bool:
    """Whether `path`, links and `..` resolved, lies inside `folder`."""
    inside = os.path.realpath(folder)
    return os.path.realpath(path).startswith(inside.rstrip(os.sep) + os.sep)


class ConfinedSubmissionFiles(handlers.SubmissionFilesHandler):
    """nbgrader's files of a graded submission (its pictures), none outside `autograded/`."""

    def validate_absolute_path(self, root: str, absolute_path: str):
        graded = os.path.join(self.coursedir.root, self.coursedir.autograded_directory)
        if not within(graded, absolute_path):
            raise web.HTTPError(404)
        return super().validate_absolute_path(root, absolute_path)


def confine_submission_files() -> None:
    """Put `ConfinedSubmissionFiles` in place of nbgrader's handler, before formgrader registers its
    handlers; SystemExit where nbgrader no longer has the handler this replaces."""
    for index, rule in enumerate(handlers.default_handlers):
        if rule[1] is handlers.SubmissionFilesHandler:
            handlers.default_handlers[index] = (rule[0], ConfinedSubmissionFiles, *rule[2:])
            return
    raise SystemExit("formgrader service: nbgrader's SubmissionFilesHandler is not where 0.9.6 has it; not starting")
