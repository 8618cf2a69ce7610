"""The runner side of grading: student cells and calls, in a sandboxed process.

`python -I -m rnnkit.runner CONTROL_FD...` starts the warm zygote: it imports numpy, matplotlib,
IPython and the kit once, reports the isolation this machine gives, then waits on its control
sockets (one per grader process). For every submission a grader sends a `spawn` request with one
end of a fresh socket: `{"op": "spawn", "workdir", "readonly", "limits", "language", "figures"}`, where
`limits` is the submission's `rnnkit.jail.Limits` whole and `language` the course language. The
zygote forks, the child enters the jail (`rnnkit.jail`: a cgroup of its own where the machine offers
one), checks that it sees the Python environment where the interpreter looks for it, and says
`{"started": true}` on that socket, or `{"broken": "<what failed>"}` and ends: whatever stops a
runner before it has run anything of the student's is the machine's fault, never the student's.
Then, speaking that language (`rnnkit.messages.speaking`), it serves the grader on that socket:

* `{"op": "run_cell", "source"}` -> `{"outputs": [nbformat outputs]}`: a cell, as Jupyter runs it (a
  figure whose key the spawn request listed in `figures` comes as a marker: `rnnkit.figures`);
* `{"op": "calls", "name", "calls": [{"args", "kwargs"}, ...], "timeout", "call"}` -> for each call in
  turn, up to and including the first that fails (no call is made after it), `{"value"}` or
  `{"failure", "fields"}`: a function the student's cells defined, called the check's way (`call`, a
  name of `rnnkit.helpers.CALLS`: twice from pristine defaults, after a warm-up run, held to "returns
  copies", or plainly) within `timeout` seconds each, as the self-check calls it; arguments and
  results in `codec` data (a graded call is one call; a probe's changed inputs are sent together);
* `{"op": "apart"}` -> `{"apart": true}`: the runner forks, and the fork answers the requests that
  follow until `{"op": "end"}`; then (or when the fork dies, in place of the reply it owed) the runner
  answers `{"ended": true}`. What those requests did to the student's state is gone with the fork.
  Where the fork fails, the answer is `{"ended": true}` at once.

The zygote never runs student code, and the grader never runs any: it only reads plain values back.
When a runner ends or is killed, the zygote reaps it and removes its cgroup (`jail.release`). The
zygote's greeting is `{"ready": true, "isolation", "budgets", "refusal", "pid"}` (`rnnkit.jail`'s
`available()`, `budgets()` and `refusal()`); what it writes to stderr before that is all it writes
there (its runners write to /dev/null). It ends when every control channel is closed, whoever
held the last one.
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy: a fork into new namespaces hangs otherwise
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"

import contextlib  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
from typing import Iterator  # noqa: E402

import matplotlib.pyplot  # noqa: E402,F401
import numpy  # noqa: E402,F401  (warm: imported once, before any fork)
import numpy.random  # noqa: E402,F401  (what course cells import: numpy's generators)

from . import codec, figures, jail, messages, plots, selfcheck, wire  # noqa: E402,F401  (plots: warm)
from .cells import CellRunner  # noqa: E402
from .checking import Case, StudentFailure, call_student  # noqa: E402
from .helpers import CALLS  # noqa: E402
from .jail.syscalls import _why  # noqa: E402
from .shell_hooks import preload  # noqa: E402


def _failure(message_id: str, **fields) -> dict:
    return {
        "failure": message_id,
        "fields": {k: v if isinstance(v, (int, float)) else str(v) for k, v in fields.items()},
    }


def _call(cells: CellRunner, message: dict) -> dict:
    name, way = wire.field(message, "name", str, ""), wire.field(message, "call", str, "plain")
    target = cells.namespace.get(name)
    if way not in CALLS:
        return _failure("check.crashed", error="ValueError", detail=f"no way of calling named {way!r}")
    if not callable(target):
        return _failure("check.not_defined", name=name)
    try:
        args = codec.from_plain(message.get("args", []), trusted=True)
        kwargs = codec.from_plain(message.get("kwargs", {"$dict": []}), trusted=True)
    except codec.CodecError as error:
        return _failure("check.crashed", error="CodecError", detail=str(error))
    try:
        value = call_student(
            target,
            Case(tuple(args), kwargs),
            name=name,
            timeout=wire.field(message, "timeout", (int, float), 10),
            call=way,
        )
    except StudentFailure as failure:
        return _failure(failure.message_id, **failure.fields)
    try:
        return {"value": codec.to_plain(value)}
    except codec.CodecError as error:
        return _failure("check.unreadable_result", detail=str(error))
    except RecursionError:
        return _failure("check.unreadable_result", detail="the value is nested too deeply")


def _calls(cells: CellRunner, message: dict) -> Iterator[dict]:
    """`_call`'s reply to each of the message's calls in turn, the first that fails the last."""
    for call in wire.field(message, "calls", list, []):
        call = call if isinstance(call, dict) else {}
        reply = _call(cells, {**message, "args": call.get("args", []), "kwargs": call.get("kwargs", {"$dict": []})})
        yield reply
        if "failure" in reply:
            return


def serve(sock: socket.socket, cells: CellRunner, fork: bool = False) -> None:
    """Answer the grader until it says `exit` (in a fork of `apart`: `end`) or closes the socket."""
    while True:
        try:
            message = wire.receive(sock)
        except wire.WireError:
            return
        op = message.get("op")
        if op == "run_cell":
            replies = iter([{"outputs": cells.run(wire.field(message, "source", str, ""))}])
        elif op == "calls":
            replies = _calls(cells, message)
        elif op == "apart" and not fork:
            replies = iter([_apart(sock, cells)])
        elif op == "exit" or (op == "end" and fork):
            return
        else:
            replies = iter([{"error": f"unknown op {op!r}"}])
        for reply in replies:
            try:
                wire.send(sock, reply)
            except (ValueError, TypeError) as error:  # outputs that are not JSON (should not happen)
                wire.send(sock, {"error": str(error)})
            except OSError:
                return


def _apart(sock: socket.socket, cells: CellRunner) -> dict:
    """Fork; the fork serves the grader until `end`; then the reply that the fork ended."""
    try:
        pid = os.fork()
    except OSError:
        return {"ended": True}
    if pid == 0:
        try:
            wire.send(sock, {"apart": True})
            serve(sock, cells, fork=True)
        finally:
            os._exit(0)
    with contextlib.suppress(ChildProcessError):  # reaped already, where the cells ignore SIGCHLD
        os.waitpid(pid, 0)
    return {"ended": True}


#: What the interpreter reads its modules from (every folder of sys.path) and itself, as the zygote
#: sees them: a runner that cannot see one of them in its sandbox cannot import what cells need.
_ENVIRONMENT = [path for path in sys.path if os.path.isdir(path)] + [sys.executable]


def _child(connection: socket.socket, request: dict) -> None:
    """In the forked child: enter the jail, say it started (or what stopped it), then serve. Never returns."""
    status = 0
    try:
        with contextlib.ExitStack() as started:
            try:
                limits = jail.Limits(**request["limits"])
                workdir = request["workdir"]
                jail.enter(
                    workdir, request["readonly"], limits, keep_fds=(connection.fileno(),)
                )  # only rlimits where no namespaces
                os.chdir(workdir)
                missing = [path for path in _ENVIRONMENT if not os.path.exists(path)]
                if missing:
                    raise FileNotFoundError(f"{missing[0]} (of the Python environment) is not there in the sandbox")
                signal.signal(signal.SIGINT, signal.default_int_handler)
                known = frozenset(key for key in request.get("figures", []) if figures.is_key(key))
                started.enter_context(messages.speaking(request["language"]))
                cells = CellRunner(output_limit_bytes=limits.OUTPUT_LIMIT_KB * 1024, known_figures=known)
            except BaseException as error:  # noqa: BLE001 - nothing of the student's has run: the machine's fault
                wire.send(connection, {"broken": _why(error)[:2000]})
                raise
            wire.send(connection, {"started": True})
            serve(connection, cells)
    except BaseException:  # noqa: BLE001 - a child must never return into the zygote's loop
        status = 1
    finally:
        os._exit(status)


def zygote(controls: list[socket.socket]) -> None:
    """The warm parent: on each control channel (one per grader process), fork a sandboxed child
    per `spawn` and kill one on request; stop when every channel is closed (the jail then removes
    the cgroups left)."""
    children: set[int] = set()
    _warm()
    hello = {
        "ready": True,
        "isolation": jail.available(),
        "budgets": jail.budgets(),
        "refusal": jail.refusal(),
        "pid": os.getpid(),
    }
    selector = selectors.DefaultSelector()
    for control in controls:
        control.send(json.dumps(hello).encode())
        selector.register(control, selectors.EVENT_READ)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # the runners' stderr, never the zygote's start-up log
    while selector.get_map():
        for key, _ in selector.select():
            control = key.fileobj
            try:
                raw, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
            except OSError:
                raw, fds = b"", []
            if not raw:
                selector.unregister(control)
                control.close()
                continue
            _reap(children)
            request = json.loads(raw)
            if request.get("op") == "spawn":
                connection = socket.socket(fileno=fds[0])
                pid = os.fork()
                if pid == 0:
                    for other in controls:
                        other.close()
                    _child(connection, request)
                connection.close()
                children.add(pid)
                control.send(json.dumps({"pid": pid}).encode())
            elif request.get("op") == "kill":
                for fd in fds:
                    os.close(fd)
                pid = request.get("pid")
                if pid in children:
                    try:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                    except (ProcessLookupError, ChildProcessError):
                        pass
                    children.discard(pid)
                    jail.release(pid)
                control.send(b'{"killed": true}')


def _warm() -> None:
    """What every runner would otherwise do first, done once before the zygote forks: the shell built
    and a figure drawn (`preload`), every assignment's public cases decoded (`selfcheck.public_half`,
    read by a notebook's `checker`), and all of it kept out of the garbage collector's passes, so that a
    runner neither scans nor copies (a page written is a page copied) what it shares with the zygote."""
    preload()
    for path in sorted(selfcheck.PUBLIC.glob("*.json")):
        selfcheck.public_half(path.stem)
    gc.collect()
    gc.freeze()


def _reap(children: set[int]) -> None:
    """Collect the children that have finished, and remove their cgroups."""
    while children:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            children.clear()
            return
        if not pid:
            return
        children.discard(pid)
        jail.release(pid)


if __name__ == "__main__":
    zygote([socket.socket(fileno=int(fd)) for fd in sys.argv[1:]])
    jail.shut_down()
    os._exit(0)  # its grader waits for this exit: the warm heap is not torn down first
