"""The course on a JupyterHub: its configuration, and a real hub to try it on (docs/hub.md).

* `plan`: what a course's hub is made of (`Hub`): the course, its grader account, the students' and
  TAs' groups, the environments, the proxy, the ports; the pinned versions.
* `config_file`: the commented `jupyterhub_config.py` of a `Hub` (`python -m autograder hub config`),
  with the roles and the scopes formgrader's service and the TAs get.
* `launch`: the LMS as the door (`LTI_AUTHORIZE_URL`): an LTI 1.3 launch, the course's user names,
  roles to groups, and the launches refused.
* `service`: the formgrader service's process, run by the grader account: jupyterhub-singleuser
  with formgrader alone.
* `guard`: what a TA reaches through that service: formgrader's pages, not the grader's files,
  kernels or terminal.
* `environments`: the students' environment (a venv of its own with the kit) and the staff's Python.
* `proxy`: configurable-http-proxy from npm, in a folder of the course's.
* `accounts`: the demo's Linux accounts and `accounts.csv`.
* `processes`: the hub started in a session of its own and stopped with nothing left running.
* `demo`: `python -m autograder hub demo`, all of the above on this host, in `demo-hub/`.
"""
