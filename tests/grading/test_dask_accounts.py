"""No other account of the host can use the instructor's Dask cluster, and no run grades on one that
any account could reach.

The local cluster (`runners.OnDask("local", n)._cluster()`) opens only TLS ports, and a real other
Linux account (`rnnmallory`, tests/accounts.py) that reaches its scheduler, nannies and workers
during a run, over plain tcp or over TLS with a certificate of its own or none, runs no function
there; the same attempts on a plain tcp cluster do run, so the attempts would work where nothing
stops them. A tcp:// scheduler is refused with one line, before anything is graded, on a shared
host (course settings `SHARED_HOST`, `DASK_PLAIN_TCP`) and graded on where the course accepts it; a
tls:// one is reached with the credentials of the Dask configuration (distributed.comm.tls.*).
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from autograder.coursedir import config
from autograder.grading import runners, worker

from ..accounts import User, needs_accounts, shared_area, student_python
from ..conftest import make_course

MALLORY = "rnnmallory"
ASSIGNMENT = "ch12_bptt"

#: Run by mallory with `sys.argv[1]` the JSON {target: [address, handler]} (handler "run_function"
#: for a scheduler, "run" for a nanny or a worker): each target is asked to run a function that
#: returns the uid it runs as, over tcp:// and over tls:// with a certificate of mallory's own and
#: with none (trusting whatever answers, so that only the cluster can refuse), and the scheduler
#: through a Client over tcp://; prints the JSON {attempt: "ran as uid N" or "refused: Error"}.
ATTEMPTS = r"""
import asyncio, json, os, ssl, sys

import dask
from distributed import Client, Security
from distributed.core import rpc
from distributed.protocol.pickle import dumps


def whoami():
    return os.getuid()


def contexts():
    own = Security.temporary().get_connection_args("client")["ssl_context"]
    bare = ssl.create_default_context()
    for context in (own, bare):
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    return {"its own certificate": own, "no certificate": bare}


async def attempt(address, handler, connection_args):
    try:
        async with rpc(address, connection_args=connection_args) as remote:
            reply = await getattr(remote, handler)(function=dumps(whoami))
        return f"ran as uid {reply['result']}"
    except Exception as error:
        return f"refused: {type(error).__name__}"


async def attempts(targets):
    tried = {}
    for target, (address, handler) in targets.items():
        where = address.split("://", 1)[1]
        tried[f"{target} over tcp"] = attempt(f"tcp://{where}", handler, {})
        for how, context in contexts().items():
            tried[f"{target} over tls with {how}"] = attempt(f"tls://{where}", handler, {"ssl_context": context})
    return dict(zip(tried, await asyncio.gather(*tried.values())))


def with_a_client(address):
    try:
        with Client("tcp://" + address.split("://", 1)[1], timeout=10) as client:
            return f"ran as uid {client.run_on_scheduler(whoami)}"
    except Exception as error:
        return f"refused: {type(error).__name__}"


with dask.config.set({"distributed.comm.timeouts.connect": "10s"}):
    targets = json.loads(sys.argv[1])
    found = asyncio.run(attempts(targets))
    found["scheduler through a Client over tcp"] = with_a_client(targets["scheduler"][0])
print(json.dumps(found))
"""


@pytest.fixture
def mallory():
    """The other account, with the course venv's Python (or one it can run over its packages)."""
    needs_accounts()
    with shared_area("rnn-dask-accounts-") as area:
        yield User(MALLORY, area, python_bin=student_python(area, MALLORY))


def _targets(cluster) -> dict[str, list[str]]:
    """{target: [address, handler]} of `cluster`'s scheduler, and of its first nanny and worker."""
    nanny = next(iter(cluster.workers.values()))
    return {
        "scheduler": [cluster.scheduler_address, "run_function"],
        "nanny": [nanny.address, "run"],
        "worker": [nanny.worker_address, "run"],
    }


def _tried(mallory: User, targets: dict[str, list[str]]) -> dict[str, str]:
    result = mallory.python(ATTEMPTS, json.dumps(targets))
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_another_account_runs_nothing_on_the_local_cluster_while_a_run_uses_it(mallory):
    """During a run, mallory reaches the local cluster's scheduler, a nanny and a worker over tcp://
    and over tls:// (its own certificate, none) and runs nothing; the same attempts on a plain tcp
    cluster with nannies run mallory's function as this process's uid."""
    import dask
    from dask.distributed import LocalCluster

    with (
        dask.config.set(runners.LOCAL_DASK),
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, protocol="tcp://", dashboard_address=None
        ) as plain,
    ):
        ran = _tried(mallory, _targets(plain))
    over_tcp = {attempt: outcome for attempt, outcome in ran.items() if attempt.endswith(" over tcp")}
    assert len(over_tcp) == 4 and set(over_tcp.values()) == {f"ran as uid {os.getuid()}"}, ran
    with runners.OnDask("local", 1)._cluster() as cluster:
        tried = _tried(mallory, _targets(cluster))
    assert len(tried) == 10 and all(outcome.startswith("refused: ") for outcome in tried.values()), tried


def _listening() -> set[tuple[str, int]]:
    """(address, port) of every listening inet socket of this process and its children."""
    processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
    return {
        (c.laddr.ip, c.laddr.port)
        for process in processes
        for c in process.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    }


def _speaks_tls(address: str, port: int) -> bool:
    """Whether the server at (address, port) completes a TLS handshake, giving its certificate."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with socket.create_connection((address, port), timeout=10) as raw, context.wrap_socket(raw) as tls:
            return tls.getpeercert(binary_form=True) is not None
    except (OSError, ssl.SSLError):
        return False


def test_every_port_the_local_cluster_opens_is_tls_on_the_loopback():
    """The ports the local cluster of two workers opens: a scheduler, two nannies and two workers,
    each on 127.0.0.1 and speaking TLS; no dashboard or other HTTP port."""
    before = _listening()
    with runners.OnDask("local", 2)._cluster() as cluster:
        opened = _listening() - before
        expected = {
            cluster.scheduler_address,
            *(n.address for n in cluster.workers.values()),
            *(n.worker_address for n in cluster.workers.values()),
        }
        assert {f"tls://{address}:{port}" for address, port in opened} == expected
        assert all(_speaks_tls(address, port) for address, port in opened)


def _course(folder: Path, settings: str) -> Path:
    """A course of ch12_bptt with `settings` appended to its course_config.py and one submission
    folder (ann's; nothing in it is read before a refusal, nor by `_graded`)."""
    root = make_course(folder, [ASSIGNMENT])
    with (root / "course_config.py").open("a") as handle:
        handle.write(f"\n{settings}\n")
    (root / "submitted" / "ann" / ASSIGNMENT).mkdir(parents=True)
    return root


def test_a_tcp_scheduler_is_refused_with_one_line_on_a_shared_host(tmp_path):
    """`autograde --dask tcp://...` where SHARED_HOST = True and DASK_PLAIN_TCP = False: one line on
    stderr, exit 1, and no gradebook or graded folder."""
    root = _course(tmp_path / "course", "SHARED_HOST = True\nDASK_PLAIN_TCP = False")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "--root",
            str(root),
            "autograde",
            ASSIGNMENT,
            "--dask",
            "tcp://127.0.0.1:8786",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and result.stderr.strip().splitlines() == [result.stderr.strip()], result.stderr[
        -3000:
    ]
    assert result.stderr.startswith("refusing the Dask scheduler tcp://127.0.0.1:8786: tcp:// is neither encrypted")
    assert "DASK_PLAIN_TCP = True" in result.stderr and "sandbox:" not in result.stdout
    assert not (root / "gradebook.db").exists() and not (root / "autograded").exists()


def _graded(root: str, assignment: str, student: str, unsandboxed: bool = False) -> worker.Outcome:
    """A stand-in for `worker.autograde_one`: graded, its log the address of the Dask worker it ran on."""
    from distributed import get_worker

    return worker.Outcome(student, assignment, True, 0.0, log=get_worker().address)


def _warm(root: str, unsandboxed: bool = False, counter=None) -> None:
    """A stand-in for `worker.warm`."""


@pytest.fixture
def graded_on(monkeypatch):
    """`course.autograde`'s way to a Dask scheduler with `_graded` and `_warm` in place of the
    runners' grader and warm-up: the address checked against the course's settings (InsecureDask),
    then ann's submission run on it; its Outcomes."""
    monkeypatch.setattr(runners, "autograde_one", _graded)
    monkeypatch.setattr(runners, "warm", _warm)

    def run(root: Path, address: str) -> list[worker.Outcome]:
        settings = config.load(root)
        runners.check_dask(address, shared_host=settings.SHARED_HOST, plain_tcp=settings.DASK_PLAIN_TCP)
        return list(runners.OnDask(address, 1).run([(ASSIGNMENT, "ann")], str(root), True, threading.Event()))

    return run


@pytest.mark.parametrize(
    "settings",
    ["SHARED_HOST = True\nDASK_PLAIN_TCP = True", "SHARED_HOST = False\nDASK_PLAIN_TCP = False"],
    ids=["plain-tcp-accepted", "one-user-host"],
)
def test_a_tcp_scheduler_is_graded_on_where_the_course_accepts_it(tmp_path, graded_on, settings):
    """A plain tcp cluster started here, accepted by DASK_PLAIN_TCP = True, or on a host of one user:
    ann's submission is graded on its worker."""
    from dask.distributed import LocalCluster

    root = _course(tmp_path / "course", settings)
    with LocalCluster(n_workers=1, processes=False, protocol="tcp://", dashboard_address=None) as plain:
        outcomes = graded_on(root, plain.scheduler_address)
        assert [(o.student, o.ok, o.log) for o in outcomes] == [
            ("ann", True, next(iter(plain.workers.values())).address)
        ]


def test_a_tls_scheduler_is_reached_with_the_credentials_of_the_dask_configuration(tmp_path, graded_on):
    """A TLS cluster started here from certificate files: refused with its line while the Dask
    configuration names no client certificate; graded on once distributed.comm.tls.ca-file and
    .client.cert/.key name them, on a shared host without DASK_PLAIN_TCP."""
    import dask
    from dask.distributed import LocalCluster, Security

    made = Security.temporary()  # a key and a certificate that is its own CA, written to files as a CA's would be
    files = {"ca": made.tls_ca_file, "cert": made.tls_client_cert, "key": made.tls_client_key}
    for name, pem in files.items():
        (tmp_path / f"{name}.pem").write_text(pem)
        files[name] = str(tmp_path / f"{name}.pem")
    security = Security(
        require_encryption=True,
        tls_ca_file=files["ca"],
        **{f"tls_{role}_{part}": files[part] for role in ("scheduler", "worker", "client") for part in ("cert", "key")},
    )
    root = _course(tmp_path / "course", "SHARED_HOST = True\nDASK_PLAIN_TCP = False")
    client_tls = {
        "distributed.comm.tls.ca-file": files["ca"],
        "distributed.comm.tls.client.cert": files["cert"],
        "distributed.comm.tls.client.key": files["key"],
    }
    with LocalCluster(
        n_workers=1, processes=False, protocol="tls://", host="127.0.0.1", security=security, dashboard_address=None
    ) as secured:
        with (
            dask.config.set(dict.fromkeys(client_tls)),
            pytest.raises(
                runners.InsecureDask,
                match=(
                    r"^the Dask scheduler tls://127\.0\.0\.1:\d+ is TLS, but the Dask configuration names no CA and client certificate"
                ),
            ),
        ):
            graded_on(root, secured.scheduler_address)
        with dask.config.set(client_tls):
            outcomes = graded_on(root, secured.scheduler_address)
        assert [(o.student, o.ok, o.log) for o in outcomes] == [
            ("ann", True, next(iter(secured.workers.values())).address)
        ]
