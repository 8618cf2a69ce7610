"""The runners that autograde a list of submissions (`Job`: assignment, student), each submission an
independent `worker.autograde_one`: in this process (`InProcess`), on local worker processes forked
from it (`Pool`), or on a Dask cluster (`OnDask`). `choose` picks one.

Every runner has the same two steps: `start()` readies the sandbox zygote its graders will use,
before this process prepares (`worker.prepare`), and `run(jobs, root, unsandboxed, stop)` yields each
`Outcome` as it finishes, and no job started after `stop` is set (`interruptible`: Ctrl-C sets it). A
runner's graders forked from this process start with what it prepared.
"""

from __future__ import annotations

import functools
import gc
import logging
import multiprocessing
import os
import signal
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice

from .worker import Outcome, autograde_one, freeze, warm

#: One submission to autograde: (assignment, student).
Job = tuple[str, str]
#: Submissions handed out ahead per worker: enough that none waits, few enough that a runner's
#: memory does not grow with the class (the rest wait in the job list, two strings each).
AHEAD = 2


_HELD: list[logging.Handler] = []


def _hold_handlers() -> None:
    for ref in list(logging._handlerList):  # every handler made in this process (weak references)
        handler = ref()
        if handler is not None and handler.lock is not None:
            handler.acquire()
            _HELD.append(handler)


def _release_handlers() -> None:
    while _HELD:
        _HELD.pop().release()


def _forget_handlers() -> None:  # in the child, logging itself makes every handler's lock anew
    _HELD.clear()


@functools.cache
def _forks_between_log_writes() -> None:
    """From now on this process forks only while no thread is writing a log record: a thread forked
    from mid-write (a Dask scheduler logging beside a worker's start, to a file handler nbgrader
    added) leaves the child's copy of the file's buffer locked, and the child hangs at its first log
    line. Registered once per process."""
    os.register_at_fork(before=_hold_handlers, after_in_parent=_release_handlers, after_in_child=_forget_handlers)


@contextmanager
def frozen():
    """This process's heap out of the garbage collector's passes (`worker.freeze`) while workers
    fork from it and run; no fork from the middle of a log write (`_forks_between_log_writes`)."""
    _forks_between_log_writes()
    freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def interruptible():
    """An event that SIGINT (Ctrl-C) sets, in place of raising KeyboardInterrupt, while the block
    runs: the runners stop starting jobs and finish those in flight. A second Ctrl-C raises
    KeyboardInterrupt at once. Workers forked in the block inherit the handler, so a Ctrl-C at the
    terminal does not stop them mid-submission. Outside the main thread nothing is installed."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def interrupt(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


class Runner:
    """Autogrades jobs; `start` before this process prepares, then `run`."""

    def start(self) -> None:
        """Ready the sandbox for this runner's graders (none to ready here)."""

    def run(self, jobs: list[Job], root: str, unsandboxed: bool, stop: threading.Event) -> Iterator[Outcome]:
        raise NotImplementedError


class InProcess(Runner):
    """Each submission in this process, one after another: its nbgrader app and zygote stay warm for
    the next call."""

    def start(self) -> None:
        from ..sandbox.zygote import adopt, claim

        if claim():  # the zygote the command line started early, if any
            adopt(0)

    def run(self, jobs: list[Job], root: str, unsandboxed: bool, stop: threading.Event) -> Iterator[Outcome]:
        for name, student in jobs:
            if stop.is_set():
                return
            yield autograde_one(root, name, student, unsandboxed=unsandboxed)


@dataclass(frozen=True)
class Pool(Runner):
    """`workers` processes forked from this one, each warmed (`worker.warm`) on a zygote of its own
    channel."""

    workers: int

    def start(self) -> None:
        from ..sandbox.zygote import claim, prestart

        prestart(self.workers)  # one zygote for the workers, starting while this process prepares
        claim()

    def run(self, jobs: list[Job], root: str, unsandboxed: bool, stop: threading.Event) -> Iterator[Outcome]:
        context = multiprocessing.get_context("fork")
        counter = context.Value("i", 0)
        with (
            frozen(),
            ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=warm, initargs=(root, unsandboxed, counter)
            ) as pool,
        ):
            queued = iter(jobs)
            flight = {
                pool.submit(autograde_one, root, name, student, unsandboxed=unsandboxed)
                for name, student in islice(queued, AHEAD * self.workers)
            }
            while flight:
                done, flight = wait(flight, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done if not future.cancelled())
                if stop.is_set():  # the ones running finish; the rest never start
                    for waiting in flight:
                        waiting.cancel()
                else:
                    flight |= {
                        pool.submit(autograde_one, root, name, student, unsandboxed=unsandboxed)
                        for name, student in islice(queued, len(done))
                    }


#: The local cluster's settings: workers forked from this process (they start with what it prepared)
#: and without Dask's statistical profiler (`dask_setup.unprofiled` stops it in any cluster's workers).
LOCAL_DASK = {"distributed.worker.multiprocessing-method": "fork", "distributed.worker.profile.enabled": False}
#: The schemes of a Dask address whose every connection is TLS.
TLS_SCHEMES = ("tls", "wss")


class InsecureDask(ValueError):
    """A Dask scheduler address the course does not grade on; its message is the one line that says
    why and what to do."""


def check_dask(address: str | None, *, shared_host: bool, plain_tcp: bool) -> None:
    """Raise InsecureDask for a scheduler `address` (None or "local": nothing to check) that is not
    TLS on a host with other users (`shared_host`) unless the course accepts it (`plain_tcp`), or
    that is TLS while the Dask configuration holds no client credentials (distributed.comm.tls.*)."""
    if address in (None, "local"):
        return
    from distributed.comm.addressing import parse_address
    from distributed.security import Security

    scheme = parse_address(address)[0]
    if scheme not in TLS_SCHEMES:
        if shared_host and not plain_tcp:
            raise InsecureDask(
                f"refusing the Dask scheduler {address}: {scheme}:// is neither encrypted nor authenticated, "
                "so on a shared host (SHARED_HOST) any account that reaches it runs code as you; use a tls:// "
                "scheduler, or set DASK_PLAIN_TCP = True in course_config.py (docs/instructor.md, 'The commands')"
            )
        return
    security = Security()
    if not (security.tls_ca_file and security.tls_client_cert):
        raise InsecureDask(
            f"the Dask scheduler {address} is TLS, but the Dask configuration names no CA and client certificate "
            "(distributed.comm.tls.ca-file, .client.cert, .client.key: docs/instructor.md, 'The commands')"
        )


@dataclass(frozen=True)
class OnDask(Runner):
    """A Dask cluster: the scheduler at `address`, reached with the Security of the Dask configuration
    (distributed.comm.tls.*), or for "local" a cluster of `workers` processes forked from this one that
    this process alone can reach (`_cluster`); every worker, those that join or are started again
    during the run included, warmed and its profiler stopped before its first submission
    (`dask_setup.Prepared`, `registered` for the run alone)."""

    address: str
    workers: int

    def run(self, jobs: list[Job], root: str, unsandboxed: bool, stop: threading.Event) -> Iterator[Outcome]:
        from dask.distributed import Client, Security
        from dask.distributed import as_completed as completed

        from .dask_setup import Prepared

        prepared = Prepared(functools.partial(warm, root, unsandboxed))
        with self._cluster() as cluster:
            security = (
                Security() if isinstance(cluster, str) else cluster.security
            )  # the Dask configuration's, or the run's
            with Client(cluster, security=security) as client, registered(client, prepared):
                queued = iter(jobs)
                flight = completed(
                    [
                        client.submit(autograde_one, root, name, student, unsandboxed=unsandboxed, pure=False)
                        for name, student in islice(queued, AHEAD * max(1, len(client.scheduler_info()["workers"])))
                    ]
                )
                for future in flight:
                    if future.status != "cancelled":
                        yield future.result()
                    if stop.is_set():  # the ones running finish; the rest never start
                        client.cancel([waiting for waiting in list(flight.futures) if waiting.status == "pending"])
                    else:
                        for name, student in islice(queued, 1):
                            flight.add(
                                client.submit(autograde_one, root, name, student, unsandboxed=unsandboxed, pure=False)
                            )

    @contextmanager
    def _cluster(self):
        """The scheduler's address, or for "local" a cluster (closed after) on 127.0.0.1 of a scheduler
        and `workers` nannies, each with a worker of one thread, that speak mutual TLS alone, with the
        key and certificate (its `security`) made for this run and held in this process's memory (the
        workers, forked, inherit them), and that open no dashboard or other HTTP port
        (`dask_setup.HttplessScheduler`, `HttplessWorker`): an account that reaches their ports
        without the key runs nothing."""
        if self.address != "local":
            yield self.address
            return
        import dask
        from dask.distributed import Nanny, Security, SpecCluster
        from distributed.worker_memory import parse_memory_limit

        from .dask_setup import HttplessScheduler, HttplessWorker

        security = Security.temporary()  # require_encryption=True
        listen = {"host": "127.0.0.1", "protocol": "tls://", "security": security}
        memory = parse_memory_limit(
            "auto", 1, self.workers, logger=logging.getLogger(__name__)
        )  # the machine's, shared out
        worker = {
            "cls": Nanny,
            "options": {
                **listen,
                "worker_class": HttplessWorker,
                "nthreads": 1,
                "memory_limit": memory,
                "silence_logs": logging.WARN,
            },
        }
        scheduler = {"cls": HttplessScheduler, "options": {**listen, "dashboard": False, "dashboard_address": None}}
        with frozen():
            with dask.config.set(LOCAL_DASK):
                cluster = SpecCluster(
                    scheduler=scheduler,
                    workers=dict.fromkeys(range(self.workers), worker),
                    worker=worker,
                    security=security,
                    silence_logs=logging.WARN,
                )
            with cluster:
                yield cluster


@contextmanager
def registered(client, plugin):
    """A Dask worker `plugin` registered on `client`'s cluster while the block lasts (set up on every
    worker now and on every one that joins), under a name of its own, and removed after: a cluster
    several courses share keeps no course's setup."""
    name = f"autograder-prepared-{uuid.uuid4().hex}"
    client.register_plugin(plugin, name=name)
    try:
        yield
    finally:
        client.unregister_worker_plugin(name)


def choose(jobs: int, workers: int, dask: str | None = None) -> Runner:
    """The runner for `jobs` submissions: on Dask where `dask` names a cluster, else a Pool of
    `workers`, or this process alone for one worker or one job."""
    if dask:
        return OnDask(dask, workers)
    return InProcess() if workers == 1 or jobs == 1 else Pool(workers)
