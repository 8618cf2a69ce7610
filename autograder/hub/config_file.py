"""The course's `jupyterhub_config.py`, written from a `Hub` (`autograder.hub.plan`) with a comment on
every choice: PAM logins, the LocalProcessSpawner (SystemdSpawner for production), the students'
environment, the groups and roles, and formgrader as a hub service run by the grader account with
the scopes it uses and no more (nbgrader #1900 asks which those are)."""

from __future__ import annotations

from .plan import JUPYTERHUB, LTI_AUTHENTICATOR, PROXY, Hub


def scopes_of_the_service(hub: Hub) -> list[str]:
    """What formgrader's token may do on the hub: nbgrader's JupyterHubAuthPlugin reads the groups of
    the grader account (ExchangeList: which courses it serves) and adds or removes students of the
    course's group when formgrader adds or removes them. Nothing else: not `admin:users`, not
    `admin:groups`, not `list:users` (the answers to nbgrader #1900 give it all of those)."""
    return [f"read:users:groups!user={hub.grader}", f"groups!group={hub.students_group}"]


def scopes_of_the_tas(hub: Hub) -> list[str]:
    """What the TAs' group may do beyond a user's own server: open formgrader, and see the service in
    the hub's menu with its URL (without `read:services` nbgrader's course list fails for non-admin
    staff, #1831)."""
    return [
        f"access:services!service={hub.service}",
        f"list:services!service={hub.service}",
        f"read:services!service={hub.service}",
    ]


def _set(names) -> str:
    """A set literal of `names`, sorted (the printed file is the same on every run)."""
    return "{" + ", ".join(map(repr, sorted(names))) + "}" if names else "set()"


def who_logs_in(hub: Hub) -> str:
    """The login section: PAM and the listed accounts, or the LMS's launch (`autograder.hub.launch`)."""
    if hub.launch is None:
        return f"""\
# --- Who logs in: PAM, one Linux account each ------------------------------------------------------------
# The Littlest JupyterHub would log `alice` in as the Linux account `jupyter-alice`: nbgrader then knows
# her as `jupyter-alice` (nbgrader #1936). Here the hub name is the login name is the student id.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {_set({*hub.students, *hub.tas, hub.grader})}
"""
    launch = hub.launch
    return f"""\
# --- Who logs in: the LMS, by an LTI 1.3 launch ---------------------------------------------------------
# jupyterhub-ltiauthenticator {LTI_AUTHENTICATOR} checks the platform's signed id token; the course's
# authenticator names the user by the course's rule ({launch.username_claim} -> autograder.lms.names.login_name, as
# `lti roster` does), puts learners in {hub.students_group} and instructors and teaching assistants in
# {hub.tas_group}, and refuses a replayed launch, another deployment, a user without a course role, a name
# LTI_ROSTER gives another LMS user and a name without a Linux account here (`lti roster` lists the names:
# make their accounts first). Who may come in is decided at each launch, hence allow_all. The grader account
# has no hub login here: the instructor runs the course's commands as it over ssh. The hub's Python needs
# the course package and jupyterhub-ltiauthenticator=={LTI_AUTHENTICATOR}.
c.JupyterHub.authenticator_class = "autograder.hub.launch.CourseLaunch"
c.Authenticator.allow_all = True
c.CourseLaunch.issuer = {launch.issuer!r}
c.CourseLaunch.client_id = {{{launch.client_id!r}}}
c.CourseLaunch.deployment_id = {launch.deployment_id!r}
c.CourseLaunch.authorize_url = {launch.authorize_url!r}
c.CourseLaunch.jwks_endpoint = {launch.jwks_endpoint!r}
c.CourseLaunch.username_claim = {launch.username_claim!r}
c.CourseLaunch.students_group = {hub.students_group!r}
c.CourseLaunch.tas_group = {hub.tas_group!r}
c.CourseLaunch.roster = {launch.roster!r}
c.CourseLaunch.tool_jwks = {launch.tool_jwks!r}
c.CourseLaunch.tool_name = {hub.course_id!r}
"""


def render(hub: Hub) -> str:
    """The complete `jupyterhub_config.py` of `hub`."""
    students = sorted(hub.students)
    tas = sorted(hub.tas)
    staff_environment = {"PATH": f"{hub.staff_python.parent}:/usr/local/bin:/usr/bin:/bin"}
    students_bin = str(hub.students_env / "bin")
    moved = (
        f"# The course's own exchange lies inside its root, where a student who can write into it can point\n"
        f"# links at the course's files: put `c.Exchange.root = {str(hub.exchange)!r}` in\n"
        f"# {hub.course_root / 'nbgrader_config.py'} and run `install -d -m 1777 {hub.exchange}` first.\n"
        if hub.exchange_moved
        else ""
    )
    return f'''\
# jupyterhub_config.py for the course {hub.course_id!r} on one host, written by
# `python -m autograder hub config` (docs/hub.md). Run it as root:  jupyterhub -f jupyterhub_config.py
#
# Components: JupyterHub {JUPYTERHUB} (pip install "jupyterhub=={JUPYTERHUB}", the version Zero to JupyterHub
# 4.4 ships and The Littlest JupyterHub 2.0 pins), configurable-http-proxy {PROXY}
# (npm install configurable-http-proxy@{PROXY}), nbgrader 0.9.6 with the course package for the staff, and
# a students' environment of its own. Every person is a Linux account of this host: nbgrader's student id
# is the login name, and collect trusts a hand-in only when its owner is the student it names.

c = get_config()  # noqa: F821

# --- Where the hub listens ---------------------------------------------------------------------------
# The proxy is the only port people reach; put a TLS-terminating web server (nginx, Caddy) in front of
# it on a real host. The hub's own API, the proxy's API and formgrader listen on 127.0.0.1 alone.
c.JupyterHub.ip = {hub.ip!r}
c.JupyterHub.port = {hub.port!r}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub.hub_port!r}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{hub.proxy_api_port}"
c.ConfigurableHTTPProxy.command = {list(hub.proxy)!r}
c.ConfigurableHTTPProxy.pid_file = {str(hub.state / "jupyterhub-proxy.pid")!r}
# The hub's database and cookie secret: root's alone (mode 0700 folder).
c.JupyterHub.db_url = {"sqlite:///" + str(hub.state / "jupyterhub.sqlite")!r}
c.JupyterHub.cookie_secret_file = {str(hub.state / "jupyterhub_cookie_secret")!r}
# Stopping the hub stops what it started: every server, the formgrader service and the proxy.
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

{who_logs_in(hub)}# No hub admins: the staff get the scopes below instead (admin would open every student's server).
c.Authenticator.admin_users = set()

# --- Each person's server: the LocalProcessSpawner ----------------------------------------------------
# Each server runs as its user, from the students' environment ({hub.students_env}): jupyterlab,
# jupyterhub {JUPYTERHUB} (jupyterhub-singleuser), nbgrader 0.9.6 (the Assignments panel; formgrader, the
# course list and create-assignment disabled in it) and the course kit's wheel; its
# etc/jupyter/nbgrader_config.py names the course id and nbgrader's exchange ({hub.exchange}). It is never
# the instructor's venv, which holds the references and the solutions. Every folder above it must be
# open to all (r-x).
# Production: the SystemdSpawner (pip install jupyterhub-systemdspawner) runs each server in a systemd
# unit of its own with limits, as the same Linux account:
#   c.JupyterHub.spawner_class = "systemdspawner"
#   c.SystemdSpawner.dynamic_users = False      # the real accounts: nbgrader's student id is the login name
#   c.SystemdSpawner.mem_limit = "2G"; c.SystemdSpawner.cpu_limit = 1.0
#   c.SystemdSpawner.isolate_tmp = True; c.SystemdSpawner.isolate_devices = True
#   c.SystemdSpawner.unit_name_template = "jupyter-{{USERNAME}}-singleuser"
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [{students_bin + "/jupyterhub-singleuser"!r}]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = {{"PATH": {students_bin + ":/usr/local/bin:/usr/bin:/bin"!r}}}

GRADER = {hub.grader!r}
STAFF_PYTHON = {str(hub.staff_python)!r}
STAFF_ENVIRONMENT = {staff_environment!r}


def staff_server(spawner):
    """The grader account's own server: the instructor's environment and the course folder, where the
    course's commands run (`python -m autograder ...`); nobody else can open it."""
    if spawner.user.name == GRADER:
        spawner.cmd = [STAFF_PYTHON, "-m", "jupyterhub.singleuser"]
        spawner.environment = {{**spawner.environment, **STAFF_ENVIRONMENT, "AUTOGRADER_WARM": "0"}}
        spawner.notebook_dir = {str(hub.course_root)!r}


c.Spawner.pre_spawn_hook = staff_server

# --- Groups and roles ------------------------------------------------------------------------------------
# nbgrader's names: the students in {hub.students_group}, those who grade in {hub.tas_group} (the grader
# account too: nbgrader lists the courses an account serves from its groups). A student holds the default
# `user` role (`self`: their own server) and nothing more: not formgrader, not another person's server.
c.JupyterHub.load_groups = {{
    {hub.students_group!r}: {{"users": {students!r}}},
    {hub.tas_group!r}: {{"users": {sorted({*tas, hub.grader})!r}}},
}}
c.JupyterHub.load_roles = [
    {{
        # TAs open formgrader (in a tab of its own: since JupyterHub 4.1 no page of the hub may be framed,
        # `frame-ancestors 'none'`, so formgrader inside JupyterLab is blank, nbgrader #1870), and nothing of
        # the grader account: not its server, its terminal or the course secret.
        "name": {hub.tas_group!r},
        "groups": [{hub.tas_group!r}],
        "scopes": {scopes_of_the_tas(hub)!r},
    }},
    {{
        # formgrader's own token (generated at each start, held in its process alone).
        "name": {hub.service + "-service"!r},
        "services": [{hub.service!r}],
        "scopes": {scopes_of_the_service(hub)!r},
    }},
]

# --- formgrader, a hub service run by the grader account -------------------------------------------------
# It serves /services/{hub.service}/formgrader as {hub.grader}, who owns the course folder
# ({hub.course_root}, mode 0700) and the course secret in it (0600). `autograder.hub.service` is
# jupyterhub-singleuser with formgrader alone: no terminal, no kernels, no contents or files API (a TA
# reaches formgrader's pages, not the grader's files), submission files confined to autograded/.
# nbgrader wants the service named as the course. A new course is a new service here and a hub restart
# (nbgrader #1354).
{moved}c.JupyterHub.services = [
    {{
        "name": {hub.service!r},
        "url": "http://127.0.0.1:{hub.service_port}",
        "command": [STAFF_PYTHON, "-m", "autograder.hub.service"],
        "user": GRADER,
        "cwd": {str(hub.course_root)!r},
        "environment": {{
            **STAFF_ENVIRONMENT,
            "JUPYTERHUB_DEFAULT_URL": "/formgrader",
            "JUPYTERHUB_DISABLE_USER_CONFIG": "1",
            "AUTOGRADER_WARM": "0",
        }},
        "oauth_no_confirm": True,
        "display": True,
    }},
]
'''
