"""The formgrader service's process, which the hub starts as the grader account
(`python -m autograder.hub.service`, in the course root): jupyterhub-singleuser with formgrader as its
one extension (no JupyterLab, no terminals), `autograder.hub.guard` in force, and nbgrader's
JupyterHubAuthPlugin, so that students formgrader adds join the course's hub group. It checks what it
started before it serves, and stops with one line where anything is missing."""

from __future__ import annotations

import sys

#: Where formgrader's pages live below the service's URL (the hub opens it there).
FORMGRADER = "nbgrader.server_extensions.formgrader"
#: The MathJax formgrader's pages load from the service itself (static files, no request leaves the host).
MATHJAX = "jupyter_server_mathjax"


def arguments() -> list[str]:
    """The server's command line: it outranks every configuration file."""
    return [
        "--ServerApp.authorizer_class=autograder.hub.guard.FormgraderOnly",
        "--ServerApp.terminals_enabled=False",
        "--Authenticator.plugin_class=nbgrader.auth.JupyterHubAuthPlugin",
    ]


def main(argv: list[str] | None = None) -> None:
    from jupyterhub.singleuser.extension import JupyterHubSingleUser

    from . import guard

    guard.confine_submission_files()
    # formgrader and its MathJax alone: naming the extensions turns off the search for others (JupyterLab,
    # terminals, ...)
    JupyterHubSingleUser.serverapp_config = {"jpserver_extensions": {FORMGRADER: True, MATHJAX: True}}
    server = JupyterHubSingleUser.initialize_server(argv=[*arguments(), *(argv or [])])
    loaded = {name for name, extension in server.extension_manager.extensions.items() if extension.enabled}
    if not isinstance(server.authorizer, guard.FormgraderOnly):
        raise SystemExit(f"formgrader service: the authorizer is {type(server.authorizer).__name__}; not starting")
    if FORMGRADER not in loaded or loaded - {FORMGRADER, MATHJAX, "jupyterhub"}:
        raise SystemExit(f"formgrader service: extensions {sorted(loaded)} instead of formgrader alone; not starting")
    server.start()


if __name__ == "__main__":
    main(sys.argv[1:])
