"""What every worker of a Dask cluster does before its first submission of a run (`Prepared`): those
that join, or that a nanny starts again, while the run lasts included; and the local cluster's
scheduler and workers, which open no HTTP port (`HttplessScheduler`, `HttplessWorker`). Imported only
by a run on Dask (`autograder.grading.runners.OnDask`): importing Dask costs every other command its
start-up."""

from __future__ import annotations

from collections.abc import Callable

from distributed import Scheduler, Worker
from distributed.diagnostics.plugin import WorkerPlugin


class HttplessScheduler(Scheduler):
    """A Dask scheduler without its HTTP server: Dask starts one on every scheduler, dashboard or not
    (health, Prometheus metrics, the /info pages of workers, logs and call stacks), in plain HTTP on
    a port any account of the host reaches."""

    def start_http_server(self, *args, **kwargs) -> None:
        """Open nothing: with no dashboard, nothing of the scheduler uses the server."""


class HttplessWorker(Worker):
    """A Dask worker without its HTTP server (as `HttplessScheduler`: on a random plain-HTTP port)."""

    def start_http_server(self, *args, **kwargs) -> None:
        """Open nothing: with no dashboard, nothing of the worker uses the server."""


class Prepared(WorkerPlugin):
    """A worker plugin: each worker of the cluster, on joining it, stops its profiler (`unprofiled`)
    and runs `warm()` (`autograder.grading.worker.warm` with the run's course)."""

    def __init__(self, warm: Callable[[], None]):
        self.warm = warm

    def setup(self, worker) -> None:
        unprofiled(worker)
        self.warm()


def unprofiled(worker) -> None:
    """Stop Dask's statistical profiler in `worker`: on by default, it samples the worker's stack
    every 10 ms and keeps a second's profile for each of the last 1,000 seconds, so a worker grew
    about 1 MiB a second of grading (a mixed class of 450: 246 MiB with it, 197 MiB without)."""
    for name in ("profile", "profile-cycle"):
        callback = worker.periodic_callbacks.pop(name, None)
        if callback is not None:
            callback.stop()
