"""The grader's side of the trust boundary: a warm zygote per grader process, and a sandboxed
runner per submission that runs the student's cells and calls their functions.

The zygote (`python -I -m rnnkit.runner`) imports only the kit; each runner it forks enters the
jail (`rnnkit.jail`): no network, no view of the course root, read-only Python environment, a
scratch copy of the submission as its only writable folder, limits on memory, processes and
output. Its spawn request carries the submission's `rnnkit.jail.Limits` whole and the language the
runner speaks. Values come back through the safe codec (`rnnkit.codec`); nothing is unpickled or
evaluated here.
"""
from __future__ import annotations

import atexit
import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import socket
import subprocess
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import nbformat
import rnnkit
from rnnkit import codec, figures, messages, wire
from rnnkit.checking import StudentFailure
from rnnkit.jail.limits import Limits

#: Seconds the grader waits beyond a call's or a cell's own time limit before it kills the runner.
GRACE = 2.0
#: Failures a runner may report; anything else is read as a crash.
FAILURES = {"check.not_implemented", "check.crashed", "check.crashed_at", "check.timeout", "check.not_defined",
            "check.unreadable_result", "check.contract_broken"}
#: At most this many kept figures are named to a runner (the others are drawn): the spawn request
#: stays far below the zygote's 64 KiB message.
MAX_KNOWN_FIGURES = 256
#: Bytes a cell's outputs may take past OUTPUT_LIMIT_KB: what the runner itself keeps past the limit
#: (an error raised after it, cut to 4 KB, and its note).
RUNNER_ALLOWANCE = 8 * 1024
#: Bytes counted for each output besides its text: the notebook's own JSON around it.
OUTPUT_OVERHEAD = 100
_MIMES = {"text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg", "image/svg+xml", "application/json"}


class RunnerDied(RuntimeError):
    """The runner stopped answering: killed, crashed, out of memory or past its time."""


class BudgetSpent(RunnerDied):
    """The submission has used up its runner time or its restarts; `fields` fill the message that says so."""

    def __init__(self, limits: Limits):
        self.fields = {"seconds": f"{limits.SUBMISSION_TIMEOUT:g}", "restarts": limits.RUNNER_RESTARTS}
        super().__init__(f"{self.fields['seconds']} s and {self.fields['restarts']} restarts")


def _readonly_paths() -> list[str]:
    """What the runner sees of this machine besides the system: the Python installation, the
    virtual environment and the installed kit. The instructor package must not be among them."""
    paths = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    kit = os.path.realpath(Path(rnnkit.__file__).parent)
    if not any(kit.startswith(p + os.sep) for p in paths):
        paths.add(kit)
    private = os.path.realpath(Path(__file__).parent.parent)
    if any(private.startswith(p + os.sep) for p in paths):
        raise RuntimeError(f"the instructor package is installed at {private}, inside what the sandbox shows student code; "
                           "install it editable (pip install -e .) from the course repository instead")
    return sorted(paths)


def _font_lists() -> Path:
    """Where the zygotes' matplotlib font list is kept between runs, so that it is built once per
    user, Python environment and matplotlib version rather than at every zygote start (each
    zygote's matplotlib folder is otherwise a fresh one in its scratch folder)."""
    environment = hashlib.sha256(os.path.realpath(sys.prefix).encode()).hexdigest()[:16]
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rnnkit" / "matplotlib" / environment


def _seed_font_list(folder: Path) -> None:
    """Copy the kept font lists (`fontlist-v<version>.json`, nothing else) into a zygote's fresh
    matplotlib folder; matplotlib rebuilds a list whose version does not match its own."""
    try:
        for kept in _font_lists().glob("fontlist-v*.json"):
            shutil.copyfile(kept, folder / kept.name)
    except (OSError, RuntimeError):  # no home folder, or nothing readable there
        pass


def _keep_font_list(folder: Path) -> None:
    """Keep the font list a zygote built, where none of its version is kept yet."""
    try:
        built = [path for path in folder.glob("fontlist-v*.json") if not (_font_lists() / path.name).exists()]
        if built:
            _font_lists().mkdir(parents=True, exist_ok=True, mode=0o700)
        for path in built:
            partial = _font_lists() / f".{path.name}.{os.getpid()}"
            shutil.copyfile(path, partial)
            os.replace(partial, _font_lists() / path.name)
    except (OSError, RuntimeError):  # no home folder, or not writable: the next zygote builds its own
        pass


class Zygote:
    """The warm parent of the runners: one process, with one control channel per grader process
    that uses it (`channels`), so that workers forked from one parent share a single warm zygote."""

    def __init__(self, channels: int = 1) -> None:
        self.owner = os.getpid()
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(channels)]
        self.scratch = Path(tempfile.mkdtemp(prefix="rnnkit-scratch-"))
        (self.scratch / "mpl").mkdir()
        _seed_font_list(self.scratch / "mpl")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
               "MPLCONFIGDIR": str(self.scratch / "mpl")}
        fds = [theirs.fileno() for _, theirs in pairs]
        self.process = subprocess.Popen([sys.executable, "-I", "-m", "rnnkit.runner", *map(str, fds)], pass_fds=fds,
                                        cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _, theirs in pairs:
            theirs.close()
        self.readonly = _readonly_paths()
        self.channels = [Channel(self, ours) for ours, _ in pairs]
        #: whether a pool of workers (or this process) has taken the channels (`claim`)
        self.claimed = False

    def running(self) -> bool:
        """Whether the zygote is up. Its starter waits for it; a worker forked from the starter
        cannot (the zygote is not its child: `Popen.poll` there would call it finished), so it
        reads the zygote's state instead."""
        if os.getpid() == self.owner:
            return self.process.poll() is None
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as handle:
                return handle.read().rsplit(b")", 1)[-1].split()[:1] not in ([b"Z"], [b"X"])
        except FileNotFoundError:
            return False
        except OSError:
            try:
                os.kill(self.process.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
            return True

    def close(self) -> None:
        if os.getpid() != self.owner:  # a forked copy of this object: the zygote is not ours
            return
        for channel in self.channels:
            channel.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _keep_font_list(self.scratch / "mpl")
        shutil.rmtree(self.scratch, ignore_errors=True)


class Channel:
    """One grader process's line to the zygote: spawn a runner, kill one."""

    def __init__(self, parent: Zygote, control: socket.socket):
        self.parent, self.control = parent, control
        self.control.settimeout(120)
        self._hello: dict | None = None

    @property
    def scratch(self) -> Path:
        return self.parent.scratch

    @property
    def alive(self) -> bool:
        return self.parent.running()

    @property
    def isolation(self) -> str | None:
        """The isolation in force, or None where this machine gives none (waits for the zygote to be up)."""
        if self._hello is None:
            self._hello = json.loads(self.control.recv(1 << 16) or b"{}")
            if not self._hello.get("ready"):
                raise RuntimeError("the sandbox runner did not start (is the student kit installed in this environment?)")
        return self._hello.get("isolation")

    def spawn(self, workdir: Path, limits: Limits, language: str, known: Mapping[str, str]) -> "Runner":
        """A fresh runner under `limits` whose only writable folder is `workdir` and which speaks
        `language`; `known` names the figures (`rnnkit.figures`) it sends as markers instead of drawing."""
        self.isolation  # noqa: B018 - the zygote is up
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        request = {"op": "spawn", "workdir": str(workdir), "readonly": self.parent.readonly, "limits": dataclasses.asdict(limits),
                   "language": language, "figures": list(known)}
        socket.send_fds(self.control, [json.dumps(request).encode()], [theirs.fileno()])
        theirs.close()
        return Runner(self, ours, json.loads(self.control.recv(1 << 16))["pid"])

    def kill(self, pid: int) -> None:
        """Kill one runner and everything it started (its namespace goes with it)."""
        try:
            self.control.send(json.dumps({"op": "kill", "pid": pid}).encode())
            self.control.recv(1 << 16)
        except OSError:
            pass


_ZYGOTES: dict[int, Channel] = {}
_SHARED: list[Zygote] = []


def zygote_channel() -> Channel:
    """This process's line to a zygote: started on first use, or adopted from the one its parent
    started for its workers with `prestart`."""
    found = _ZYGOTES.get(os.getpid())
    if found is None or not found.alive:
        own = Zygote()
        atexit.register(own.close)
        found = _ZYGOTES[os.getpid()] = own.channels[0]
    return found


def prestart(workers: int) -> None:
    """Start one zygote with a channel for each of the `workers` about to use it (forked from here,
    or this process itself: `adopt`), so that it comes up while this process imports and prepares.
    A worker reads its channel's greeting, so a channel serves one worker: each pool of workers gets
    a fresh zygote (the previous one is closed), unless the one started before is still unclaimed
    (`claim`) and has channels enough."""
    if _SHARED and not _SHARED[0].claimed and len(_SHARED[0].channels) >= workers and _SHARED[0].running():
        return
    for previous in _SHARED:
        previous.close()
    _SHARED[:] = [Zygote(channels=workers)]
    atexit.register(_SHARED[0].close)


def claim() -> bool:
    """Mark the zygote `prestart` started as taken by the workers about to adopt its channels; False
    when there is none waiting."""
    if not _SHARED or _SHARED[0].claimed or not _SHARED[0].running():
        return False
    _SHARED[0].claimed = True
    return True


def adopt(index: int) -> None:
    """In a forked worker: take channel `index` of the zygote the parent started."""
    if _SHARED and index < len(_SHARED[0].channels) and _SHARED[0].running():
        _ZYGOTES[os.getpid()] = _SHARED[0].channels[index]


class Runner:
    """One sandboxed process of one submission: requests and their replies, nothing counted."""

    def __init__(self, parent: Channel, sock: socket.socket, pid: int):
        self.parent, self.sock, self.pid = parent, sock, pid
        self.alive = True

    def request(self, message: dict, timeout: float, limit: int) -> dict:
        """The reply to `message`, within `timeout` seconds and `limit` bytes; RunnerDied (and the
        runner closed) when none comes."""
        try:
            wire.send(self.sock, message)
            return wire.receive(self.sock, timeout=timeout, limit=limit)
        except (wire.WireError, OSError) as error:
            self.close()
            raise RunnerDied(str(error)) from None

    def close(self) -> None:
        if self.alive:
            self.alive = False
            self.parent.kill(self.pid)
            self.sock.close()


def _result(reply: dict, timeout: float) -> codec.Decoded:
    """A call's result from the runner's reply, or the StudentFailure it reports."""
    if "value" in reply:
        try:
            return codec.Decoded(codec.from_plain(reply["value"]))
        except codec.CodecError as error:
            raise StudentFailure("check.unreadable_result", detail=str(error)) from None
    failure = wire.field(reply, "failure", str, "check.crashed")
    fields = {k: v for k, v in (wire.field(reply, "fields", dict, {}) or {}).items()
              if isinstance(k, str) and isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    fields = {k: (v[:300] if isinstance(v, str) else v) for k, v in fields.items()}
    if failure not in FAILURES:
        failure, fields = "check.crashed", {"error": "an unknown failure", "detail": ""}
    fields.setdefault("error", "an error")
    fields.setdefault("detail", "")
    fields.setdefault("seconds", timeout)
    raise StudentFailure(failure, **fields)


def _output(raw: Any, known: Mapping[str, str]) -> nbformat.NotebookNode | None:
    """One untrusted output dict as an nbformat output, or None. A figure's marker becomes the PNG
    that `known` holds for its key (a marker of any other key is dropped)."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("output_type")
    if kind == "stream" and raw.get("name") in ("stdout", "stderr") and isinstance(raw.get("text"), str):
        return nbformat.v4.new_output("stream", name=raw["name"], text=raw["text"])
    if kind in ("display_data", "execute_result") and isinstance(raw.get("data"), dict):
        data = {mime: value for mime, value in raw["data"].items() if mime in _MIMES and isinstance(value, str)}
        png = data.get("image/png", "")
        if png.startswith(figures.MARKER):
            found = known.get(png[len(figures.MARKER):])
            if found is None:
                del data["image/png"]
            else:
                data["image/png"] = found
        if not data:
            return None
        if kind == "display_data":
            return nbformat.v4.new_output("display_data", data=data)
        count = raw.get("execution_count")
        return nbformat.v4.new_output("execute_result", data=data, execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None)
    if kind == "error":
        trace = raw.get("traceback")
        return nbformat.v4.new_output("error", ename=str(raw.get("ename", "Error"))[:200], evalue=str(raw.get("evalue", ""))[:2000],
                                      traceback=[str(line)[:5000] for line in trace[:200]] if isinstance(trace, list) else [])
    return None


#: Bytes counted per line of an output's text besides its characters: the graded notebook keeps text
#: as a list of lines, each quoted and indented (a flood of empty lines costs that much each).
LINE_OVERHEAD = 8


def _nbytes(text: str) -> int:
    """What `text` takes in the graded notebook: its JSON string (escapes included, in UTF-8) and
    LINE_OVERHEAD per line."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) + LINE_OVERHEAD * text.count("\n")


def _size(node: nbformat.NotebookNode) -> int:
    """The bytes an output keeps: its text (a stream's, every MIME value, an error's name, value
    and traceback, in UTF-8) and OUTPUT_OVERHEAD."""
    if node.output_type == "stream":
        texts = [node.text]
    elif node.output_type == "error":
        texts = [node.ename, node.evalue, *node.traceback]
    else:
        texts = list(node.data.values())
    return OUTPUT_OVERHEAD + sum(map(_nbytes, texts))


def _note(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("stream", name="stdout", text=text + "\n")


def _cut(node: nbformat.NotebookNode, room: int) -> list:
    """What of one output fits in `room` bytes (`_size`): a stream's text cut to it, else its plain
    text alone where that fits, else nothing."""
    room -= OUTPUT_OVERHEAD
    if node.output_type == "stream":
        text = node.text.encode("utf-8", "surrogatepass")[:max(room, 0)].decode("utf-8", "ignore")
        while text and _nbytes(text) > room:  # escapes and lines cost more than their characters
            text = text[:len(text) * room // _nbytes(text)]
        node.text = text
        return [node] if node.text else []
    plain = node.get("data", {}).get("text/plain")
    if plain is None or _nbytes(plain) > room:
        return []
    node.data = {"text/plain": plain}
    return [node]


def _bounded(nodes: list, room: int, note: str) -> list:
    """The outputs that fit in `room` bytes (`_size`), in order; of the first that does not, what
    fits (`_cut`), then a stream holding `note` in place of the rest."""
    for index, node in enumerate(nodes):
        size = _size(node)
        if size > room:
            return [*nodes[:index], *_cut(node, room), _note(note)]
        room -= size
    return nodes


def _drawn(outputs: list) -> dict[str, str]:
    """The PNGs the runner drew in these raw outputs, by the key their metadata names."""
    found = {}
    for raw in outputs:
        if isinstance(raw, dict) and raw.get("output_type") in ("display_data", "execute_result"):
            data, metadata = raw.get("data"), raw.get("metadata")
            png = data.get("image/png") if isinstance(data, dict) else None
            about = metadata.get("image/png") if isinstance(metadata, dict) else None
            key = about.get(figures.KEY_METADATA) if isinstance(about, dict) else None
            if figures.is_key(key) and isinstance(png, str) and not png.startswith(figures.MARKER):
                found[key] = png
    return found


class Session:
    """One submission's runner under its `limits`, speaking `language`, started again (earlier cells
    replayed) after it dies. It keeps the submission's tally against its limits: `spent` seconds of
    waiting on its runners (the reading of their replies included) of SUBMISSION_TIMEOUT, runners
    `started` (the first and RUNNER_RESTARTS restarts), and `output_left` bytes of OUTPUT_TOTAL_KB
    (a replay's outputs not kept again). `known` holds the PNGs of the figures of the reference run
    by key (`autograder.grading.figures`): a runner sends those as markers, undrawn (at most
    MAX_KNOWN_FIGURES of them are named to it; the others it draws)."""

    def __init__(self, folder: Path, limits: Limits, language: str, known: Mapping[str, str] | None = None):
        self.zygote = zygote_channel()
        self.limits, self.language = limits, language
        self.known = dict(sorted((known or {}).items())[:MAX_KNOWN_FIGURES])
        self.workdir = Path(tempfile.mkdtemp(prefix="submission-", dir=self.zygote.scratch))
        shutil.copytree(folder, self.workdir, dirs_exist_ok=True, symlinks=True)
        self.replay: list[str] = []
        self.runner: Runner | None = None
        self.spent, self.started = 0.0, 0
        self.output_left = limits.OUTPUT_TOTAL_KB * 1024  # bytes (`_size`) the cells may still keep

    def left(self) -> float:
        """Seconds of runner time the submission has left."""
        return self.limits.SUBMISSION_TIMEOUT - self.spent

    def _check(self) -> None:
        if self.left() <= 0 or self.started > self.limits.RUNNER_RESTARTS + 1:
            raise BudgetSpent(self.limits)

    def _limit(self, seconds: float) -> float:
        """A call's or a cell's own time limit, cut to what is left."""
        return max(0.1, min(seconds, self.left()))

    def _ask(self, runner: Runner, message: dict, timeout: float, read: Callable[[dict], Any] = dict) -> Any:
        """One request, answered by `read(reply)`: the wait for the reply (cut to what is left, and
        GRACE) and its reading both counted as spent."""
        self._check()
        start = time.monotonic()
        try:
            reply = runner.request(message, min(timeout, self.left() + GRACE),
                                   self.limits.OUTPUT_LIMIT_KB * 1024 * 8 + codec.MAX_BYTES // 4)
            return read(reply)
        finally:
            self.spent += time.monotonic() - start

    def _spawn(self) -> Runner:
        self.started += 1
        self._check()
        return self.zygote.spawn(self.workdir, self.limits, self.language, self.known)

    def _runner(self) -> Runner:
        if self.runner is None or not self.runner.alive:
            self.runner = self._spawn()
            for source in self.replay:
                try:
                    self._cell(self.runner, source)
                except BudgetSpent:
                    raise
                except RunnerDied:
                    self.runner = self._spawn()
        return self.runner

    def _cell(self, runner: Runner, source: str, drawn: dict[str, str] | None = None) -> list:
        """The cell's outputs as nbformat nodes (only known output kinds and MIME types are kept, a
        figure's marker replaced by the PNG of its key), cut to OUTPUT_LIMIT_KB (`_bounded`);
        `drawn` gets the PNG of each figure the runner drew, by key."""
        timeout = self._limit(self.limits.CELL_TIMEOUT)
        return self._ask(runner, {"op": "run_cell", "source": source}, timeout + GRACE, lambda reply: self._outputs(reply, drawn))

    def _outputs(self, reply: dict, drawn: dict[str, str] | None) -> list:
        outputs = wire.field(reply, "outputs", list, [])
        if drawn is not None:
            drawn.update(_drawn(outputs))
        nodes = [node for node in (_output(raw, self.known) for raw in outputs) if node is not None]
        note = messages.text("cell.output_truncated", kb=f"{self.limits.OUTPUT_LIMIT_KB:g}")
        return _bounded(nodes, self.limits.OUTPUT_LIMIT_KB * 1024 + RUNNER_ALLOWANCE, note)

    def run_cell(self, source: str, drawn: dict[str, str] | None = None) -> list:
        """A student cell; a cell that kills or outlives its runner, or comes after the budget is
        spent, gets an error output instead, and one whose outputs find no room left of the output
        kept in all (and every cell with outputs after it) one note. `drawn`: see `_cell`."""
        try:
            outputs = self._cell(self._runner(), source, drawn)
        except BudgetSpent as spent:
            return [nbformat.v4.new_output("error", ename="BudgetSpent", traceback=[],
                                           evalue=messages.text("cell.budget_spent", **spent.fields))]
        except RunnerDied:
            return [nbformat.v4.new_output("error", ename="KernelDied", traceback=[], evalue=messages.text(
                "cell.runner_died", seconds=f"{self.limits.CELL_TIMEOUT:g}"))]
        self.replay.append(source)
        size = sum(map(_size, outputs))
        if size > self.output_left:
            self.output_left = 0
            return [_note(messages.text("cell.output_budget_spent", kb=self.limits.OUTPUT_TOTAL_KB))]
        self.output_left -= size
        return outputs

    def call(self, name: str, args: tuple, kwargs: dict, timeout: float, copies: bool = False) -> codec.Decoded:
        """One call of the student's function `name` (held to "returns copies" where `copies`): its
        result, decoded once; raises StudentFailure, BudgetSpent or RunnerDied. A check's arguments
        that the codec cannot carry are a bug of the check: CodecError."""
        runner = self._runner()
        timeout = self._limit(timeout)
        message = {"op": "call", "name": name, "args": codec.to_plain(list(args)), "kwargs": codec.to_plain(dict(kwargs)), "timeout": timeout,
                   "copies": copies}
        return self._ask(runner, message, timeout + GRACE, lambda reply: _result(reply, timeout))

    def pristine(self, name: str) -> str:
        """The handle of a copy of `name` with pristine default values, made in the runner."""
        handle = self._ask(self._runner(), {"op": "pristine", "name": name}, 10 + GRACE).get("handle")
        if not isinstance(handle, str):
            raise RunnerDied("no handle")
        return handle

    def function(self, name: str, timeout: float | None = None, call: str = "plain") -> "RemoteFunction":
        """The student's function `name`, called in the runner, each call within `timeout` seconds
        (default CALL_TIMEOUT); `call` is the check's way of calling it (`rnnkit.helpers.CALLS`), of
        which the runner itself holds a call to "returning copies" (only there are the arrays it was
        given, and its result's memory, to be seen)."""
        return RemoteFunction(self, name, self.limits.CALL_TIMEOUT if timeout is None else timeout, copies=call == "returning_copies")

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
        remove_tree(self.workdir)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
    """A student's function as the grader sees it: calls go to the runner, values come back decoded
    once (`codec.Decoded`, which `codec.plain` takes as it is).

    Once a call has killed the runner (or outlived its time limit by GRACE), every later call of the
    same check fails at once with the same message, so a function that ignores its time limit costs
    one limit per check, not one per case.
    """

    def __init__(self, session: Session, name: str, timeout: float, handle: str | None = None, origin: "RemoteFunction | None" = None,
                 copies: bool = False):
        self.session, self.name, self.timeout, self.handle, self.copies = session, name, timeout, handle, copies
        self.origin = origin or self
        self.died = False

    def _guard(self, request: Callable[[], Any]) -> Any:
        if self.origin.died:
            raise StudentFailure("check.runner_died", name=self.name)
        try:
            return request()
        except BudgetSpent as spent:
            raise StudentFailure("check.budget_spent", name=self.name, **spent.fields) from None
        except RunnerDied:
            self.origin.died = True
            raise StudentFailure("check.runner_died", name=self.name) from None

    def __call__(self, *args, **kwargs) -> Any:
        return self._guard(lambda: self.session.call(self.handle or self.name, args, kwargs, self.timeout, self.copies))

    def pristine(self) -> "RemoteFunction":
        """A copy with pristine default values, made in the runner (see `rnnkit.helpers.pristine`)."""
        handle = self._guard(lambda: self.session.pristine(self.handle or self.name))
        return RemoteFunction(self.session, self.name, self.timeout, handle, self.origin, self.copies)
