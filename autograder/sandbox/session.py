"""One submission's sandbox session: its runner (started again after a death, earlier cells replayed),
its budget of runner time and restarts, its cells' outputs within their bounds, the student's
functions called in it (`RemoteFunction`), and the second runner the probes call them in
(`Session.for_probes`, each probe `Session.apart`); and the check of a class's runners before its
first submission (`preflight`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import nbformat

from rnnkit import codec, messages, wire
from rnnkit.checking import StudentFailure
from rnnkit.jail.limits import Limits

from . import timings
from .replies import RUNNER_ALLOWANCE, bounded, call_result, figures_drawn, note_output, notebook_output, output_size
from .zygote import Channel, Runner, RunnerBroken, RunnerDied, at_hand, zygote_channel

#: Seconds the grader waits beyond a call's or a cell's own time limit before it kills the runner.
GRACE = 2.0
#: At most this many bytes of cells are sent ahead of their replies (`Session.follow`): far below a
#: socket's buffer, so that sending them never waits on a runner that waits on its own reply.
AHEAD = 64 * 1024
#: At most this many kept figures are named to a runner (the others are drawn): the spawn request
#: stays far below the zygote's 64 KiB message.
MAX_KNOWN_FIGURES = 256


class BudgetSpent(RunnerDied):
    """The submission has used up its runner time or its restarts; `fields` fill the message that says so."""

    def __init__(self, limits: Limits):
        self.fields = {"seconds": f"{limits.SUBMISSION_TIMEOUT:g}", "restarts": limits.RUNNER_RESTARTS}
        super().__init__(f"{self.fields['seconds']} s and {self.fields['restarts']} restarts")


class Session:
    """One submission's runner under its `limits`, speaking `language`, started again (earlier cells
    replayed) after it dies. It keeps the submission's tally against its limits: `spent` seconds of
    waiting on its runners (the reading of their replies included) of SUBMISSION_TIMEOUT, runners
    `started` (the first and RUNNER_RESTARTS restarts), and `output_left` bytes of OUTPUT_TOTAL_KB
    (a replay's outputs not kept again). `known` holds the PNGs of the figures of the reference run
    by key (`autograder.grading.figures`): a runner sends those as markers, undrawn (at most
    MAX_KNOWN_FIGURES of them are named to it; the others it draws). The runner's work folder is a copy
    of `folder`'s data files (its notebooks and hidden files left out): the cells come over the channel."""

    def __init__(self, folder: Path, limits: Limits, language: str, known: Mapping[str, str] | None = None):
        self.zygote = zygote_channel()
        self.zygote.verified()  # RunnerBroken: its runners would not get what this machine gives
        self.folder, self.limits, self.language = folder, limits, language
        self.known = dict(sorted((known or {}).items())[:MAX_KNOWN_FIGURES])
        self.workdir = Path(tempfile.mkdtemp(prefix="submission-", dir=self.zygote.scratch))
        shutil.copytree(
            folder, self.workdir, dirs_exist_ok=True, symlinks=True, ignore=shutil.ignore_patterns("*.ipynb", ".*")
        )
        self.replay: list[str] = []  # the cells that ran, in order
        self.runner: Runner | None = None
        self.ran = 0  # how many cells of `replay` the runner has run
        self.spent, self.started = 0.0, 0
        self.output_left = limits.OUTPUT_TOTAL_KB * 1024  # bytes (`output_size`) the cells may still keep
        self.charged = self  # the session whose budget this one's runner time counts against
        self.probes: Session | None = None
        self.forking = self.forked = False  # calls go to a fork of the runner (`apart`); one is open
        # the requests sent ahead whose replies are still to read (`follow`, `apart`): a cell's size, 0 for "end"
        self.owed: list[int] = []

    def left(self) -> float:
        """Seconds of runner time the submission has left."""
        return self.limits.SUBMISSION_TIMEOUT - self.charged.spent

    def for_probes(self) -> "Session":
        """The submission's second runner, where the probes call its functions: a work folder of its
        own, the same cells (run there as they come, before its next call) and never a graded call,
        each probe's calls in a fork of its own (`apart`). A function that keeps what it was called
        with cannot answer a probe's changed inputs with a value it gave for other inputs there. Its
        runner time counts against this session's budget."""
        if self.probes is None:
            self.probes = Session(self.folder, self.limits, self.language, self.known)
            self.probes.replay, self.probes.charged = self.replay, self
        return self.probes

    def follow(self) -> None:
        """The probes' runner (`for_probes`) sent the cells this session has run that it has not, its
        replies read before its next request: it replays them while the submission's runner runs on
        (started here where it is not). At most AHEAD bytes of cells wait unread (past them, the replies
        owed are read first), so that neither side blocks on a full socket. What fails here is met
        again at the next request, where it counts."""
        with contextlib.suppress(RunnerDied):
            if self.runner is None or not self.runner.alive:
                self.owed = []
                self.runner, self.ran, self.forked = self._spawn(), 0, False
            while self.ran + self._cells_owed() < len(self.replay):
                source = self.replay[self.ran + self._cells_owed()]
                size = len(source.encode()) or 1
                if self.owed and sum(self.owed) + size > AHEAD:
                    self._settle()
                self.runner.send({"op": "run_cell", "source": source})
                self.owed.append(size)

    def _cells_owed(self) -> int:
        return sum(1 for size in self.owed if size)

    @contextlib.contextmanager
    def apart(self) -> Iterator[None]:
        """Within the block, calls run in a fork of the runner (`rnnkit.runner`'s `apart`), taken at
        the first of them and ended with the block: they leave the runner as it was."""
        self.forking = True
        try:
            yield
        finally:
            self.forking = False
            if self.forked and self.runner is not None and self.runner.alive:
                with contextlib.suppress(RunnerDied):
                    self.runner.send({"op": "end"})  # its reply ("ended") read before the next request
                    self.owed.append(0)
            self.forked = False

    def _check(self) -> None:
        if self.left() <= 0 or self.started > self.limits.RUNNER_RESTARTS + 1:
            raise BudgetSpent(self.limits)

    def _limit(self, seconds: float) -> float:
        """A call's or a cell's own time limit, cut to what is left."""
        return max(0.1, min(seconds, self.left()))

    def _ask(self, runner: Runner, message: dict | None, timeout: float, read: Callable[[dict], Any] = dict) -> Any:
        """One request (None: the reply owed to one sent ahead, `owed`), answered by `read(reply)`:
        the wait for the reply (cut to what is left, and GRACE) and its reading both counted as spent."""
        if message is not None:
            self._settle()
        self._check()
        start = time.monotonic()
        try:
            timeout, limit = (
                min(timeout, self.left() + GRACE),
                self.limits.OUTPUT_LIMIT_KB * 1024 * 8 + codec.MAX_BYTES // 4,
            )
            reply = runner.reply(timeout, limit) if message is None else runner.request(message, timeout, limit)
            return read(reply)
        finally:
            self.charged.spent += time.monotonic() - start

    def _settle(self) -> None:
        """The replies owed to the requests sent ahead (`follow`, `apart`) read, in order: a cell's
        counts it run (its outputs are not kept: the submission's runner gave them); RunnerDied
        where one does not come."""
        try:
            while self.owed and self.runner is not None and self.runner.alive:
                if self.owed[0]:
                    with timings.phase("probe cells"):
                        limit = self._limit(self.limits.CELL_TIMEOUT) + GRACE
                        self._ask(self.runner, None, limit, lambda reply: self._outputs(reply, None))
                    self.ran += 1
                else:
                    self._ask(self.runner, None, GRACE)
                self.owed.pop(0)
        except BaseException:  # a reply not read: the runner's later ones cannot be matched to requests
            if self.runner is not None:
                self.runner.close()
            raise
        finally:
            if self.runner is None or not self.runner.alive:
                self.owed = []

    def _spawn(self) -> Runner:
        self.started += 1
        self._check()
        with timings.phase("runner start"):
            return self.zygote.spawn(self.workdir, self.limits, self.language, self.known)

    def _runner(self) -> Runner:
        """The live runner, started (again) where needed, having run every cell of `replay`."""
        with contextlib.suppress(RunnerDied):  # a runner that died there is started again below
            self._settle()
        if self.runner is None or not self.runner.alive:
            self.runner, self.ran, self.forked = self._spawn(), 0, False
        while self.ran < len(self.replay):
            self.ran += 1
            try:
                self._cell(self.runner, self.replay[self.ran - 1])
            except BudgetSpent:
                raise
            except RunnerDied:
                self.runner = self._spawn()
        return self.runner

    def _cell(self, runner: Runner, source: str, drawn: dict[str, str] | None = None) -> list:
        """The cell's outputs as nbformat nodes (only known output kinds and MIME types are kept, a
        figure's marker replaced by the PNG of its key), cut to OUTPUT_LIMIT_KB (`bounded`);
        `drawn` gets the PNG of each figure the runner drew, by key."""
        timeout = self._limit(self.limits.CELL_TIMEOUT)
        with timings.phase("cells" if self.charged is self else "probe cells"):
            return self._ask(
                runner, {"op": "run_cell", "source": source}, timeout + GRACE, lambda reply: self._outputs(reply, drawn)
            )

    def _outputs(self, reply: dict, drawn: dict[str, str] | None) -> list:
        outputs = wire.field(reply, "outputs", list, [])
        if drawn is not None:
            drawn.update(figures_drawn(outputs))
        nodes = [node for node in (notebook_output(raw, self.known) for raw in outputs) if node is not None]
        note = messages.text("cell.output_truncated", kb=f"{self.limits.OUTPUT_LIMIT_KB:g}")
        return bounded(nodes, self.limits.OUTPUT_LIMIT_KB * 1024 + RUNNER_ALLOWANCE, note)

    def run_cell(self, source: str, drawn: dict[str, str] | None = None) -> list:
        """A student cell; a cell that kills or outlives its runner, or comes after the budget is
        spent, gets an error output instead, and one whose outputs find no room left of the output
        kept in all (and every cell with outputs after it) one note. `drawn`: see `_cell`."""
        try:
            outputs = self._cell(self._runner(), source, drawn)
        except BudgetSpent as spent:
            return [
                nbformat.v4.new_output(
                    "error",
                    ename="BudgetSpent",
                    traceback=[],
                    evalue=messages.text("cell.budget_spent", **spent.fields),
                )
            ]
        except RunnerDied:
            return [
                nbformat.v4.new_output(
                    "error",
                    ename="KernelDied",
                    traceback=[],
                    evalue=messages.text("cell.runner_died", seconds=f"{self.limits.CELL_TIMEOUT:g}"),
                )
            ]
        self.replay.append(source)
        self.ran = len(self.replay)
        if self.probes is not None:
            self.probes.follow()
        size = sum(map(output_size, outputs))
        if size > self.output_left:
            self.output_left = 0
            return [note_output(messages.text("cell.output_budget_spent", kb=self.limits.OUTPUT_TOTAL_KB))]
        self.output_left -= size
        return outputs

    def call(self, name: str, args: tuple, kwargs: dict, timeout: float, way: str = "plain") -> codec.Decoded:
        """The student's function `name` called the check's way (`way`, a name of `rnnkit.helpers.CALLS`),
        in the runner: its result, decoded once; raises StudentFailure, BudgetSpent or RunnerDied. A
        check's arguments that the codec cannot carry are a bug of the check: CodecError."""
        (outcome,) = self.calls(name, [(args, kwargs)], timeout, way)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def calls(self, name: str, cases: list[tuple[tuple, dict]], timeout: float, way: str = "plain") -> list:
        """`call` on each (args, kwargs) in one request (a probe's changed inputs): the outcomes in order,
        each a value (`codec.Decoded`) up to the first call that fails, whose StudentFailure, RunnerDied
        or BudgetSpent comes last (the runner makes no call after a failure). Each call has `timeout`
        seconds (cut to what is left); a reply not read in turn closes the runner, which is then out of
        step with its requests."""
        if not cases:
            return []
        outcomes: list = []
        try:
            runner = self._runner()
            if self.forking and not self.forked:
                self.forked = self._ask(runner, {"op": "apart"}, GRACE, lambda reply: reply.get("apart") is True)
                if not self.forked:
                    raise StudentFailure("check.runner_died", name=name)
            timeout = self._limit(timeout)
            message = {
                "op": "calls",
                "name": name,
                "calls": [
                    {"args": codec.to_plain(list(args)), "kwargs": codec.to_plain(dict(kwargs))}
                    for args, kwargs in cases
                ],
                "timeout": timeout,
                "call": way,
            }

            def read(reply: dict) -> tuple[Any, bool]:
                """(the value or its StudentFailure, whether the runner makes no call after it)."""
                last = "failure" in reply or (self.forked and reply.get("ended") is True)
                try:
                    return self._call_reply(reply, name, timeout), last
                except StudentFailure as failure:
                    return failure, last

            with timings.phase("calls" if self.charged is self else "probe calls"):
                self._settle()
                self._check()
                runner.send(message)
                try:
                    for _ in cases:
                        outcome, last = self._ask(runner, None, timeout + GRACE, read)
                        outcomes.append(outcome)
                        if isinstance(outcome, StudentFailure):
                            if not last and len(outcomes) < len(cases):  # a value the grader cannot read:
                                runner.close()  # the runner goes on with the others
                            break
                except BaseException:
                    runner.close()
                    raise
        except (StudentFailure, RunnerDied) as failure:
            outcomes.append(failure)
        return outcomes

    def _call_reply(self, reply: dict, name: str, timeout: float) -> codec.Decoded:
        if self.forked and reply.get("ended") is True:  # the fork died in the call: the runner's word
            self.forked = False
            raise StudentFailure("check.runner_died", name=name)
        return call_result(reply, timeout)

    def function(self, name: str, timeout: float | None = None, call: str = "plain") -> "RemoteFunction":
        """The student's function `name`, called in the runner the check's way (`call`, a name of
        `rnnkit.helpers.CALLS`: the runner makes the calls a way takes, within `timeout` seconds in
        all, default CALL_TIMEOUT, as the self-check does)."""
        return RemoteFunction(self, name, self.limits.CALL_TIMEOUT if timeout is None else timeout, call)

    def close(self) -> None:
        if self.probes is not None:
            self.probes.close()
        if self.runner is not None:
            self.runner.close()
        remove_tree(self.workdir)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def preflight(limits: Limits, language: str, channel: Channel | None = None) -> None:
    """Before a class is graded: a runner of the zygote its graders will use (`channel`, else `at_hand`) starts under
    `limits` in the isolation this machine gives and runs a cell, or RunnerBroken says what stops
    it (the zygote did not start or lacks the sandbox or budgets, a runner cannot start, or a cell
    cannot run: a package the cells need that the runner cannot import). A runner of the same zygote
    runs its cell once (`Channel.ran_cell`)."""
    channel = channel or at_hand()
    channel.verified()
    if (repr(limits), language) in channel.ran_cell:
        return
    workdir = Path(tempfile.mkdtemp(prefix="preflight-", dir=channel.scratch))
    runner = None
    try:
        runner = channel.spawn(workdir, limits, language, {})
        reply = runner.request(
            {"op": "run_cell", "source": "pass"}, limits.CELL_TIMEOUT + GRACE, limits.OUTPUT_LIMIT_KB * 1024 * 8
        )
    except RunnerDied as died:
        raise RunnerBroken(f"a sandboxed runner ended before it ran a cell ({died})") from None
    finally:
        if runner is not None:
            runner.close()
        remove_tree(workdir)
    errors = [
        output
        for output in wire.field(reply, "outputs", list, [])
        if isinstance(output, dict) and output.get("output_type") == "error"
    ]
    if errors:
        raise RunnerBroken(f"a sandboxed runner cannot run a cell: {errors[0].get('ename')}: {errors[0].get('evalue')}")
    channel.ran_cell.add((repr(limits), language))


def remove_tree(path: Path) -> None:
    """Delete a folder of any depth without recursion and without following links, through folder
    descriptors (so paths longer than PATH_MAX are no obstacle). Whatever cannot be deleted is
    left in place: this never raises and never loops."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        stack = [(os.open(path, flags), "")]  # (open folder, its name in the folder below it on the stack)
    except OSError:
        return
    stuck: set[tuple[int, int]] = set()  # folders already emptied as far as they go
    while stack:
        fd, name = stack[-1]
        child = None
        try:
            with os.scandir(fd) as listing:
                for entry in listing:
                    info = entry.stat(follow_symlinks=False)
                    if not stat.S_ISDIR(info.st_mode):
                        with contextlib.suppress(OSError):
                            os.unlink(entry.name, dir_fd=fd)
                    elif (info.st_dev, info.st_ino) not in stuck:
                        child = (os.open(entry.name, flags, dir_fd=fd), entry.name)
                        break
        except OSError:
            pass
        if child is not None:
            stack.append(child)
            continue
        stuck.add((os.fstat(fd).st_dev, os.fstat(fd).st_ino))
        os.close(fd)
        stack.pop()
        with contextlib.suppress(OSError):
            if stack:
                os.rmdir(name, dir_fd=stack[-1][0])
            else:
                os.rmdir(path)


class RemoteFunction:
    """A student's function as the grader sees it: each call goes to the runner, which calls it the
    check's way (`way`: `holds_call`), and its value comes back decoded once (`codec.Decoded`, which
    `codec.plain` takes as it is).

    Once a call has killed the runner (or outlived its time limit by GRACE), every later call of the
    same check fails at once with the same message, so a function that ignores its time limit costs
    one limit per check, not one per case.
    """

    #: The runner calls it the check's way (twice, after a warm-up, ...): the grader calls it plainly.
    holds_call = True

    def __init__(self, session: Session, name: str, timeout: float, way: str = "plain"):
        self.session, self.name, self.timeout, self.way = session, name, timeout, way
        self.died = False
        self._probed: RemoteFunction | None = None

    @property
    def probe_calls(self) -> "RemoteFunction":
        """The same function in the submission's second runner (`Session.for_probes`), for the probes'
        changed inputs (`rnnkit.checking.run_cases`, which runs each probe `apart`)."""
        if self._probed is None:
            self._probed = RemoteFunction(self.session.for_probes(), self.name, self.timeout, self.way)
        return self._probed

    def apart(self) -> contextlib.AbstractContextManager:
        """A block whose calls leave the runner as it was (`Session.apart`)."""
        return self.session.apart()

    def many(self, cases: list[tuple[tuple, dict]]) -> list:
        """The function called on each (args, kwargs) in one request (`Session.calls`): each value in
        order, up to the first call that fails, whose StudentFailure comes last."""
        if self.died:
            return [StudentFailure("check.runner_died", name=self.name)]
        outcomes = self.session.calls(self.name, cases, self.timeout, self.way)
        if outcomes and isinstance(outcomes[-1], BudgetSpent):
            outcomes[-1] = StudentFailure("check.budget_spent", name=self.name, **outcomes[-1].fields)
        elif outcomes and isinstance(outcomes[-1], RunnerDied):
            self.died = True
            outcomes[-1] = StudentFailure("check.runner_died", name=self.name)
        return outcomes

    def __call__(self, *args, **kwargs) -> Any:
        if self.died:
            raise StudentFailure("check.runner_died", name=self.name)
        try:
            return self.session.call(self.name, args, kwargs, self.timeout, self.way)
        except BudgetSpent as spent:
            raise StudentFailure("check.budget_spent", name=self.name, **spent.fields) from None
        except RunnerDied:
            self.died = True
            raise StudentFailure("check.runner_died", name=self.name) from None
