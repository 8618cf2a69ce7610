"""`python -m autograder hub demo`: a real JupyterHub for a course of its own, in `demo-hub/`.

As root it makes the Linux accounts of the sample class, a TA and the grader account (passwords in
`demo-hub/accounts.csv`, 0600), builds a course in `demo-hub/course/` owned by the grader account
(0700) and, as that account, releases every assignment through nbgrader's exchange
(`demo-hub/exchange/`, 1777); then it starts JupyterHub with the configuration `hub config` writes
(`demo-hub/hub/jupyterhub_config.py`), says `hub ready at http://127.0.0.1:PORT/` once the hub answers,
and stays in the foreground until Ctrl-C or SIGTERM. Then it stops the hub, and with it every server,
the formgrader service and the proxy; whatever of them is left is found by session and account and
stopped too (the room's `processes` module). The accounts stay, and it says how to remove them.

The proxy and the students' and the staff's environments are kept in `demo-hub/` between runs and made
again only when what they hold changed; the course, the exchange, the accounts' homes and the hub's
state are new on every run. Anyone but root gets one line saying why, and so does every missing piece."""

from __future__ import annotations

import datetime as dt
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from ..authoring import kit
from ..coursedir import config
from ..coursedir.layout import Course
from . import accounts, config_file, environments, processes, proxy
from .plan import JUPYTERHUB, Hub, grader_account

#: The demo's folder in the course root.
FOLDER = "demo-hub"
#: The assignment the demo's term makes late (`demo_term`).
LATE_ASSIGNMENT = "ch11_rnn_state"
#: Seconds the hub may take to answer.
READY_TIMEOUT = 180.0
NBGRADER_MAIN = (
    "import sys, autograder; sys.argv[0] = 'nbgrader'; from nbgrader.apps.nbgraderapp import main; sys.exit(main())"
)


def say_line(line: str) -> None:
    """A line of the demo's progress, out at once (a test or a pipe reads it as it comes)."""
    print(line, flush=True)


def _check_reachable(folder: Path) -> None:
    """Other accounts must reach the demo's folder: their homes, the exchange and their Python are in it."""
    closed = [str(p) for p in reversed(folder.parents) if not os.stat(p).st_mode & 0o001]
    if closed:
        raise environments.Unavailable(
            f"other accounts cannot enter {closed[0]} (mode {oct(os.stat(closed[0]).st_mode & 0o777)}), which holds "
            f"{folder}: run the hub demo from a checkout in a folder every account may enter"
        )


def _as(account: str, home: Path, python: Path) -> list[str]:
    """The start of a command run as `account` with a clean environment and the staff's Python first."""
    variables = {
        "HOME": str(home),
        "USER": account,
        "LOGNAME": account,
        "LANG": "C.UTF-8",
        "PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin",
        "AUTOGRADER_WARM": "0",
    }
    return ["runuser", "-u", account, "--", "env", "-i", *(f"{k}={v}" for k, v in variables.items())]


def _grader_runs(prefix: list[str], course: Path, *command: str) -> None:
    result = subprocess.run([*prefix, *command], cwd=course, capture_output=True, text=True)
    if result.returncode != 0:
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        raise environments.Unavailable(f"as the grader account, {' '.join(command[:4])} failed: {' | '.join(tail)}")


def demo_term(today: dt.date) -> str:
    """The demo course's term, added to its course_config.py: the first assignment was due at the start
    of `today` (UTC), 10% a day late, so that a hand-in in the demo shows the term's rules."""
    due = dt.datetime.combine(today, dt.time(0, 0), dt.timezone.utc).isoformat()
    return (
        f"\n# the hub demo's term: {LATE_ASSIGNMENT} was due at midnight (UTC) today, so a hand-in is late\n"
        f'TERM = {{**TERM, {LATE_ASSIGNMENT!r}: {{"due": {due!r}, "late": {{"per_day": 0.1, "cap": 0.5}}}}}}\n'
    )


def make_course(root: Path, folder: Path, exchange: Path, grader: str, python: Path) -> Path:
    """The demo's course in `folder`, owned by `grader` (0700), with the demo's term (`demo_term`), every
    assignment released through `exchange` by that account and the sample class on its roster."""
    course = Course(root).start_course(folder).root
    with (course / "nbgrader_config.py").open("a", encoding="utf-8") as handle:
        handle.write(f"\n# the hub demo's exchange, outside the course root\nc.Exchange.root = {str(exchange)!r}\n")
    with (course / "course_config.py").open("a", encoding="utf-8") as handle:
        handle.write(demo_term(dt.datetime.now(dt.timezone.utc).date()))
    roster = course / "students.csv"
    roster.write_text("id\n" + "".join(f"{name}\n" for name in accounts.STUDENTS), encoding="utf-8")
    entry = pwd.getpwnam(grader)
    for path in [course, *course.rglob("*")]:
        os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
    settings = Path(entry.pw_dir) / ".jupyter" / "nbgrader_config.py"  # where the grader's own server finds it
    settings.parent.mkdir(mode=0o700, exist_ok=True)
    settings.write_text(f"c = get_config()  # noqa: F821\nc.CourseDirectory.root = {str(course)!r}\n", encoding="utf-8")
    for path in (settings.parent, settings):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    prefix = _as(grader, Path(entry.pw_dir), python)
    _grader_runs(prefix, course, str(python), "-m", "autograder", "--root", str(course), "release")
    for name in Course(course).assignments:
        _grader_runs(prefix, course, str(python), "-c", NBGRADER_MAIN, "release_assignment", name)
    _grader_runs(prefix, course, str(python), "-c", NBGRADER_MAIN, "db", "student", "import", roster.name)
    return course


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def run(root: Path, port: int = 8000, say=say_line) -> int:
    """The demo, in the foreground; 0 once stopped by Ctrl-C or SIGTERM, 1 where the hub died."""
    if os.geteuid() != 0:
        raise SystemExit(
            "hub demo needs root: it makes Linux accounts (useradd, chpasswd) and runs JupyterHub, which starts "
            "each person's server as that person"
        )
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        raise SystemExit(f"JupyterHub {JUPYTERHUB} is not installed in {sys.prefix}: run `make venv`") from None
    try:
        return _run(root, port, say)
    except environments.Unavailable as error:
        raise SystemExit(f"hub demo: {error}") from None


def _lock(state: Path) -> None:
    """Refuse a second demo of the same folder while the first runs."""
    record = state / "demo.pid"
    try:
        pid = int(record.read_text())
        os.kill(pid, 0)
        raise environments.Unavailable(f"a hub demo of this folder is running already (pid {pid})")
    except (OSError, ValueError):
        pass


def _run(root: Path, port: int, say) -> int:
    settings = config.load(root)
    folder = root / FOLDER
    _check_reachable(folder)
    if processes.listening(port):
        raise environments.Unavailable(f"something listens on 127.0.0.1:{port} already: pass --port")
    folder.mkdir(exist_ok=True)
    folder.chmod(0o755)  # the homes, the exchange and the students' environment are reached through it
    (folder / ".gitignore").write_text("*\n", encoding="utf-8")  # git leaves the demo's folder alone
    (folder / ".gitignore").chmod(0o644)
    state = folder / "hub"
    if state.is_dir():
        _lock(state)
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(mode=0o700)
    (state / "demo.pid").write_text(str(os.getpid()))

    grader = grader_account(settings.COURSE_ID)
    roles = {**{name: "student" for name in accounts.STUDENTS}, accounts.TA: "ta", grader: "grader"}
    made = accounts.make(roles, folder / "home")
    table = accounts.write_csv(made, folder / "accounts.csv")
    say(
        f"hub: accounts {', '.join(accounts.STUDENTS)} (students), {accounts.TA} (TA) and {grader} (grader); "
        f"their passwords in {table} (root's alone)"
    )
    proxy_command = proxy.install(folder / "proxy", say)
    exchange = folder / "exchange"
    shutil.rmtree(exchange, ignore_errors=True)
    exchange.mkdir()
    exchange.chmod(0o1777)  # as nbgrader wants it: each hands in, nobody renames another's folder
    staff = environments.staff_python(folder / "staff-env", grader, kit.build(state / "staff-kit", root), say)
    say(f"hub: releasing {', '.join(settings.ASSIGNMENTS)} as {grader} through the exchange {exchange} ...")
    course = make_course(root, folder / "course", exchange, grader, staff)
    wheel = kit.build(state / "kit", course)  # the demo course's kit: its due dates
    students_bin = environments.students_env(folder / "students-env", wheel, settings.COURSE_ID, exchange, say)

    hub = Hub(
        course_id=settings.COURSE_ID,
        course_root=course,
        exchange=exchange,
        students=accounts.STUDENTS,
        tas=(accounts.TA,),
        students_env=students_bin.parent,
        staff_python=staff,
        proxy=(str(proxy_command),),
        state=state,
        port=port,
        hub_port=processes.free_port(),
        proxy_api_port=processes.free_port(),
        service_port=processes.free_port(),
    )
    configuration = state / "jupyterhub_config.py"
    configuration.write_text(config_file.render(hub), encoding="utf-8")
    log = state / "jupyterhub.log"
    environment = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(state),
    }
    say(f"hub: starting JupyterHub {JUPYTERHUB} with {configuration} (its log: {log}) ...")

    stopping = []

    def stop(signum, frame):
        stopping.append(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    process = processes.start([sys.executable, "-m", "jupyterhub", "-f", str(configuration)], state, log, environment)
    started = processes.Started(process, {account.uid for account in made})
    died = False
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while not stopping and process.poll() is None and not answers(f"{hub.url}hub/api/"):
            started.note()
            if time.monotonic() > deadline:
                raise environments.Unavailable(f"the hub did not answer in {READY_TIMEOUT:.0f} s; its log: {log}")
            time.sleep(0.3)
        if not stopping and process.poll() is None:
            say(f"hub ready at {hub.url}")
            say(
                f"hub: log in with a name and password of {table}; formgrader (TA, grader) is {hub.url}services/"
                f"{hub.service}/formgrader; Ctrl-C stops the hub"
            )
        while not stopping and process.poll() is None:
            started.note()
            time.sleep(0.5)
        died = not stopping
    finally:
        leftover = started.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        (state / "demo.pid").unlink(missing_ok=True)
    if died:
        print(f"hub demo: JupyterHub stopped by itself ({process.returncode}); the end of {log}:", file=sys.stderr)
        print(_tail(log), file=sys.stderr)
    say(
        "hub: stopped; nothing it started is running"
        + (f" ({len(leftover)} process(es) outlived the hub and were stopped)" if leftover else "")
        + f". The accounts stay: remove them with `{accounts.removal([a.name for a in made])}`"
    )
    return 1 if died else 0
