"""Run notebook code cells in-process with IPython semantics and collect nbformat v4 outputs.

``CellRunner().run(source)`` executes one cell the way a Jupyter kernel would (magics, display of
the last expression, ``display()``, rich reprs, inline matplotlib figures as PNG) but without a
kernel, ZMQ or a Jupyter client: everything happens in the calling process and the outputs are
returned as plain nbformat v4 output dicts.

There is one IPython shell per process (IPython's ``display()`` and ``get_ipython()`` look up a
process-wide singleton).  Building it takes a few tens of milliseconds after the imports of this
module; a parent process that forks workers can call :func:`preload` once so that the children
start with the shell already built and matplotlib's first rendering already paid for.  Creating
a second ``CellRunner`` in a process that has already run cells resets the shared shell (fresh
namespace, execution count back to 1).

Every cell's output is bounded: at most ``output_limit_bytes`` of text (stream text plus the
strings of display data) and at most :data:`MAX_OUTPUTS` outputs are kept; anything beyond is
dropped as it is produced, and a note saying so ends the cell's outputs.
"""
from __future__ import annotations

import base64
import builtins
import getpass
import io
import json
import os
import re
import sys
import threading
import traceback
from contextlib import contextmanager

_INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
# Before matplotlib is imported, so that it (and any subprocess) starts with the inline backend.
os.environ["MPLBACKEND"] = _INLINE_BACKEND

import matplotlib  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib_inline.backend_inline  # noqa: E402,F401  (imported here so that forks share it)
from IPython.core import completer as _completer  # noqa: E402,F401  (imported by the shell; load it once)
from IPython.core.display_trap import DisplayTrap  # noqa: E402
from IPython.core.displayhook import DisplayHook  # noqa: E402
from IPython.core.displaypub import DisplayPublisher  # noqa: E402
from IPython.core.error import StdinNotImplementedError, UsageError  # noqa: E402
from IPython.core.history import HistoryManager  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.core.profiledir import ProfileDir  # noqa: E402
from matplotlib._pylab_helpers import Gcf  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib_inline.config import InlineBackend  # noqa: E402

from . import figures, messages  # noqa: E402

__all__ = ["CellRunner", "MAX_OUTPUTS", "DEFAULT_OUTPUT_LIMIT", "preload"]

#: Default bound on the text kept from one cell's outputs.
DEFAULT_OUTPUT_LIMIT = 256 * 1024
#: At most this many outputs are kept from one cell.
MAX_OUTPUTS = 1000
#: Tracebacks deeper than this (runaway recursion) lose their middle frames.
MAX_TRACEBACK_FRAMES = 120
#: An error that arrives when the cell's budget is spent is still reported, cut to this size.
ERROR_ALLOWANCE = 4096

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_JSON_MIME = re.compile(r"^application/(.+\+)?json$")
_TEXT_MIMES = ("image/svg+xml", "application/javascript", "application/xml", "application/x-latex")


# --------------------------------------------------------------------------- text helpers

def _nbytes(text: str) -> int:
    """UTF-8 size of `text` (lone surrogates count as 3 bytes, as they would be replaced)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _head(text: str, limit: int) -> str:
    """The longest prefix of `text` whose UTF-8 size is at most `limit`."""
    if limit <= 0:
        return ""
    text = text[:limit]
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass")[:limit].decode("utf-8", "ignore")


def _tail(text: str, limit: int) -> str:
    """The longest suffix of `text` whose UTF-8 size is at most `limit`."""
    if limit <= 0:
        return ""
    text = text[-limit:]
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass")[-limit:].decode("utf-8", "ignore")


def _clean_text(text: str) -> str:
    """`text` without lone surrogates (which cannot be written to a UTF-8 notebook file)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def _safe_str(value: object) -> str:
    try:
        return str(value)
    except BaseException:  # noqa: BLE001 - a student's __str__ may raise anything
        return f"<unprintable {type(value).__name__} object>"


def _is_json_mime(mime: str) -> bool:
    return bool(_JSON_MIME.match(mime))


def _is_binary_mime(mime: str) -> bool:
    if mime in _TEXT_MIMES or mime.endswith("+xml") or mime.startswith("text/"):
        return False
    return mime.startswith(("image/", "audio/", "video/", "font/")) or mime in (
        "application/pdf",
        "application/octet-stream",
        "application/zip",
    )


def _json_copy(value: object) -> tuple[object, int] | None:
    """A copy of `value` as stored in a notebook and its size, or None when it is not JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError, OverflowError):
        return None
    return json.loads(text), _nbytes(text)


def _clean_bundle(data: object) -> tuple[dict, int]:
    """A mime bundle nbformat accepts ({mime: str}, JSON mimes as JSON), and its size in bytes."""
    bundle: dict = {}
    size = 0
    if not isinstance(data, dict):
        return bundle, size
    for mime, value in data.items():
        if not isinstance(mime, str):
            continue
        if _is_json_mime(mime) and not isinstance(value, (bytes, bytearray, memoryview, str)):
            copied = _json_copy(value)
            if copied is None:
                continue
            bundle[mime], n = copied
            size += n
            continue
        if isinstance(value, (bytes, bytearray, memoryview)):
            raw = bytes(value)
            if _is_binary_mime(mime):
                value = base64.b64encode(raw).decode("ascii")
            else:
                value = raw.decode("utf-8", "replace")
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            value = "".join(value)
        elif not isinstance(value, str):
            value = _safe_str(value)
        bundle[mime] = value
        size += _nbytes(value)
    return bundle, size


def _clean_metadata(metadata: object) -> tuple[dict, int]:
    if not isinstance(metadata, dict) or not metadata:
        return {}, 0
    copied = _json_copy(metadata)
    return copied if copied is not None else ({}, 0)


def _error_size(ename: str, evalue: str, tb: list[str]) -> int:
    return _nbytes(ename) + _nbytes(evalue) + sum(_nbytes(line) for line in tb)


def _shrink_error(ename: str, evalue: str, tb: list[str], limit: int) -> tuple[str, list[str]]:
    """evalue and traceback cut so that the error takes about `limit` bytes (the end is kept)."""
    if _nbytes(evalue) > limit // 4:
        evalue = _head(evalue, limit // 4) + " [...]"
    room = max(limit - _nbytes(ename) - _nbytes(evalue), 256)
    kept: list[str] = []
    whole = True
    for line in reversed(tb):
        n = _nbytes(line)
        if n > room:
            if not kept:
                kept.append(_tail(line, room))
            whole = False
            break
        kept.append(line)
        room -= n
    kept.reverse()
    return evalue, kept if whole else ["[traceback truncated]"] + kept


# --------------------------------------------------------------------------- one cell's outputs

class _Outputs:
    """The outputs of the cell being run, bounded in size and number."""

    def __init__(self, limit: int, max_outputs: int = MAX_OUTPUTS):
        self.limit = limit
        self.max_outputs = max_outputs
        self.lock = threading.RLock()
        self.items: list[dict] = []
        self.used = 0
        self.full = False  # set once something had to be dropped: then everything is dropped
        self.reason = ""
        self.late_error: tuple[str, str, list[str]] | None = None
        self.display_ids: dict[str, list[dict]] = {}
        self.clear_pending = False
        self.closed = False

    # -- bookkeeping
    def _drop_rest(self, reason: str) -> None:
        if not self.full:
            self.full = True
            self.reason = reason

    def _clear(self) -> None:
        self.items = []
        self.used = 0
        self.full = False
        self.reason = ""
        self.late_error = None
        self.display_ids = {}
        self.clear_pending = False

    def _has_slot(self) -> bool:
        if len(self.items) >= self.max_outputs:
            self._drop_rest("count")
            return False
        return True

    # -- producers
    def stream(self, name: str, text: str) -> None:
        with self.lock:
            if self.full or self.closed or not text:
                return
            if self.clear_pending:
                self._clear()
            n = _nbytes(text)
            room = self.limit - self.used
            if n > room:
                text = _head(text, room)
                n = _nbytes(text)
                self._drop_rest("size")
                if not text:
                    return
            last = self.items[-1] if self.items else None
            if last is not None and last["output_type"] == "stream" and last["name"] == name:
                last["text"].append(text)
            else:
                if not self._has_slot():
                    return
                self.items.append({"output_type": "stream", "name": name, "text": [text]})
            self.used += n

    def display(self, data: object, metadata: object, transient: object, update: bool) -> None:
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        with self.lock:
            if self.closed:
                return
            if update:
                self._update(display_id, data, metadata)
                return
            if self.full:
                return
            bundle, size = _clean_bundle(data)
            metadata, msize = _clean_metadata(metadata)
            output = {"output_type": "display_data", "data": bundle, "metadata": metadata}
            if self._add_bundle(output, size + msize) and isinstance(display_id, str):
                self.display_ids.setdefault(display_id, []).append(output)

    def execute_result(self, data: object, metadata: object, execution_count: int) -> None:
        with self.lock:
            if self.closed or self.full:
                return
            bundle, size = _clean_bundle(data)
            metadata, msize = _clean_metadata(metadata)
            output = {
                "output_type": "execute_result",
                "data": bundle,
                "metadata": metadata,
                "execution_count": execution_count,
            }
            self._add_bundle(output, size + msize)

    def _add_bundle(self, output: dict, size: int) -> bool:
        if self.clear_pending:
            self._clear()
        if not output["data"]:
            return False
        if not self._has_slot():
            return False
        room = self.limit - self.used
        if size > room:
            self._drop_rest("size")
            plain = output["data"].get("text/plain")
            if not isinstance(plain, str) or _nbytes(plain) > room:
                return False
            # Too big as a whole: keep the plain-text representation, which fits.
            output["data"] = {"text/plain": plain}
            output["metadata"] = {}
            size = _nbytes(plain)
        self.items.append(output)
        self.used += size
        return True

    def _update(self, display_id: object, data: object, metadata: object) -> None:
        targets = self.display_ids.get(display_id) if isinstance(display_id, str) else None
        if not targets:
            return
        bundle, size = _clean_bundle(data)
        metadata, msize = _clean_metadata(metadata)
        for output in targets:
            old = _clean_bundle(output["data"])[1] + _clean_metadata(output["metadata"])[1]
            if self.used - old + size + msize > self.limit:
                self._drop_rest("size")
                return
            output["data"] = dict(bundle)
            output["metadata"] = dict(metadata)
            self.used += size + msize - old

    def error(self, ename: str, evalue: str, tb: list[str]) -> None:
        with self.lock:
            if self.closed:
                return
            if self.clear_pending:
                self._clear()
            if self.full:
                self.late_error = (ename, evalue, tb)
                return
            size = _error_size(ename, evalue, tb)
            room = self.limit - self.used
            if size > room or len(self.items) >= self.max_outputs:
                self._drop_rest("size" if size > room else "count")
                self.late_error = (ename, evalue, tb)
                return
            self.items.append({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb})
            self.used += size

    def clear(self, wait: bool) -> None:
        with self.lock:
            if self.closed:
                return
            if wait and not self.full:
                self.clear_pending = True
            else:
                self._clear()

    # -- result
    def finish(self) -> list[dict]:
        with self.lock:
            self.closed = True
            items = self.items
            if self.late_error is not None:
                ename, evalue, tb = self.late_error
                evalue, tb = _shrink_error(ename, evalue, tb, ERROR_ALLOWANCE)
                items.append({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb})
            if self.full:
                if self.reason == "count":
                    note = messages.text("cell.too_many_outputs", count=self.max_outputs) + "\n"
                else:
                    note = messages.text("cell.output_truncated", kb=f"{self.limit / 1024:g}") + "\n"
                last = items[-1] if items else None
                if last is not None and last["output_type"] == "stream" and last["name"] == "stdout":
                    if not last["text"][-1].endswith("\n"):
                        last["text"].append("\n")
                    last["text"].append(note)
                else:
                    items.append({"output_type": "stream", "name": "stdout", "text": [note]})
            result = []
            for item in items:
                if item["output_type"] == "stream":
                    item = {"output_type": "stream", "name": item["name"], "text": _clean_text("".join(item["text"]))}
                elif item["output_type"] == "error":
                    item = {
                        "output_type": "error",
                        "ename": _clean_text(item["ename"]),
                        "evalue": _clean_text(item["evalue"]),
                        "traceback": [_clean_text(line) for line in item["traceback"]],
                    }
                else:
                    item = dict(item)
                    item["data"] = {
                        mime: _clean_text(value) if isinstance(value, str) else value
                        for mime, value in item["data"].items()
                    }
                result.append(item)
            return result


class _State:
    """The outputs currently being collected (None between cells)."""

    active: _Outputs | None = None


_state = _State()


# --------------------------------------------------------------------------- IPython plumbing

class _StreamWriter(io.TextIOBase):
    """sys.stdout / sys.stderr during a cell: text goes to the current cell's outputs.

    The writers outlive the cell, so a logging handler or a saved ``sys.stdout`` from an earlier
    cell keeps writing into the cell that is running (as in Jupyter); between cells, writes are
    dropped.
    """

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def write(self, text):  # hot path: keep it short
        if type(text) is not str:
            if not isinstance(text, str):
                raise TypeError(f"write() argument must be str, not {type(text).__name__}")
            text = str(text)
        out = _state.active
        if out is not None and not out.full:
            out.stream(self.name, text)
        return len(text)

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        pass

    def close(self) -> None:  # student code closing sys.stdout must not break later cells
        pass

    @property
    def closed(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<cell {self.name}>"


_STDOUT = _StreamWriter("stdout")
_STDERR = _StreamWriter("stderr")


class _DisplayPublisher(DisplayPublisher):
    """Appends display_data outputs (nothing is kept in the shell's history)."""

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
        out = _state.active
        if out is not None:
            out.display(data, metadata, transient, update)

    def clear_output(self, wait=False):
        out = _state.active
        if out is not None:
            out.clear(wait)


class _DisplayHook(DisplayHook):
    """Appends execute_result outputs; a trailing ';' silences it as in IPython."""

    def write_output_prompt(self):
        pass

    def write_format_data(self, format_dict, md_dict=None):
        out = _state.active
        if out is not None:
            out.execute_result(format_dict, md_dict, self.prompt_count)

    def log_output(self, format_dict):
        pass  # IPython would keep every result's mime bundle in memory for %history -o

    def finish_displayhook(self):
        self._is_active = False


def _trim_traceback(value: BaseException | None, tb) -> int:
    """Cut the middle out of very deep tracebacks (IPython formats each frame slowly).

    Applies to the exception and the ones chained to it; returns how many frames were cut.
    """
    cut = 0
    seen: set[int] = set()
    pending = [(value, tb)]
    while pending and len(seen) < 20:
        exc, node = pending.pop()
        if exc is not None:
            if id(exc) in seen:
                continue
            seen.add(id(exc))
            for chained in (exc.__cause__, exc.__context__):
                if chained is not None:
                    pending.append((chained, chained.__traceback__))
        frames = []
        while node is not None:
            frames.append(node)
            node = node.tb_next
        if len(frames) > MAX_TRACEBACK_FRAMES:
            head = frames[: MAX_TRACEBACK_FRAMES // 4]
            tail = frames[len(frames) - (MAX_TRACEBACK_FRAMES - len(head)):]
            try:
                head[-1].tb_next = tail[0]
            except (AttributeError, TypeError, ValueError):
                continue
            cut += len(frames) - len(head) - len(tail)
    return cut


def _quiet_profile_dir(location: str) -> ProfileDir:
    """A profile directory object that is not created on disk (the shell loads no profile)."""
    profile = ProfileDir()
    profile.unobserve_all()  # its observers would create the directories
    profile.location = location
    for name in ("security", "log", "startup", "pid", "static"):
        setattr(profile, f"{name}_dir", os.path.join(location, getattr(profile, f"{name}_dir_name")))
    return profile


def _show_in_pager(shell, data, start=0, screen_lines=0, pager_cmd=None):
    """Help text (``obj?``, ``%magic?``) is written to stdout instead of a pager."""
    text = data.get("text/plain", "") if isinstance(data, dict) else data
    text = _strip_ansi(_safe_str(text))
    if start:
        text = "\n".join(text.splitlines()[start:])
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


class _Shell(InteractiveShell):
    """An InteractiveShell whose displays, results and tracebacks become nbformat outputs."""

    def init_ipython_dir(self, ipython_dir):
        pass  # no profile is loaded: the IPython directory is neither looked up nor created

    def init_virtualenv(self):
        pass  # sys.path is the process's business

    def init_history(self):
        # Inputs are kept in memory (In, _i, %history); nothing is written to disk.
        self.history_manager = HistoryManager(shell=self, parent=self, enabled=False, hist_file=":memory:")
        self.configurables.append(self.history_manager)

    def init_display_pub(self):
        self.display_pub = _DisplayPublisher(parent=self, shell=self)
        self.configurables.append(self.display_pub)

    def init_displayhook(self):
        self.displayhook = _DisplayHook(parent=self, shell=self, cache_size=self.cache_size)
        self.configurables.append(self.displayhook)
        self.display_trap = DisplayTrap(hook=self.displayhook)

    @contextmanager
    def _tee(self, channel):
        yield  # IPython would keep a copy of every write in the history

    def showtraceback(self, exc_tuple=None, filename=None, tb_offset=None, exception_only=False,
                      running_compiled_code=False):
        self._rnnkit_frames_cut = 0
        try:
            etype, value, tb = self._get_exc_info(exc_tuple)
        except ValueError:
            pass
        else:
            if tb is not None and not exception_only:
                self._rnnkit_frames_cut = _trim_traceback(value, tb)
            exc_tuple = (etype, value, tb)
        try:
            return super().showtraceback(exc_tuple, filename, tb_offset, exception_only, running_compiled_code)
        finally:
            self._rnnkit_frames_cut = 0

    def _format_exception_for_storage(self, exception, filename=None, running_compiled_code=False):
        # IPython formats every error a second time for its history; nothing reads it here.
        return {"ename": type(exception).__name__, "evalue": _safe_str(exception), "traceback": []}

    def _showtraceback(self, etype, evalue, stb):
        out = _state.active
        if out is None:
            return super()._showtraceback(etype, evalue, stb)
        if isinstance(stb, str):
            stb = [stb]
        tb = [_strip_ansi(line if isinstance(line, str) else _safe_str(line)) for line in (stb or [])]
        cut = getattr(self, "_rnnkit_frames_cut", 0)
        if cut:
            tb.insert(0, f"[traceback shortened: {cut} frames in the middle are not shown]")
        ename = getattr(etype, "__name__", None) or _safe_str(etype)
        out.error(ename, _safe_str(evalue), tb)

    def ask_exit(self):
        self.exit_now = True  # `exit` / `quit` in a cell: there is no session to end

    def enable_gui(self, gui=None):
        if gui not in (None, "inline"):
            raise UsageError(f"GUI event loops ({gui}) are not available here; figures are shown inline.")

    def enable_matplotlib(self, gui=None):
        # Every `%matplotlib ...` selects the inline backend: there is no GUI to draw into.
        return super().enable_matplotlib("inline")


_SHELL: _Shell | None = None
_SHELL_LOCK = threading.Lock()


def _profile_location() -> str:
    base = os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(base, f"rnnkit-ipython-{os.getuid() if hasattr(os, 'getuid') else 0}")


def _build_shell() -> _Shell:
    profile = _quiet_profile_dir(os.path.join(_profile_location(), "profile_default"))
    kwargs = dict(profile_dir=profile, colors="nocolor", autoindent=False, automagic=True)
    if InteractiveShell.initialized():
        # Someone else's shell (e.g. this runs inside Jupyter): keep ours private and make it
        # the singleton only while a cell runs.
        shell = _Shell(**kwargs)
    else:
        shell = _Shell.instance(**kwargs)
    shell.set_hook("show_in_pager", _show_in_pager)
    shell._rnnkit_publisher = shell.display_pub
    os.environ["MPLBACKEND"] = _INLINE_BACKEND
    matplotlib.use(_INLINE_BACKEND)
    # A figure is drawn once, in its own layout: Jupyter's "tight" bounding box lays every figure
    # out twice (the course's log-scale plot took 0.2 s of each submission that way).
    InlineBackend.instance().print_figure_kwargs = {"bbox_inches": None}
    with _singleton(shell):
        shell.enable_matplotlib("inline")
    shell._rnnkit_used = False
    return shell


def _get_shell() -> _Shell:
    global _SHELL
    with _SHELL_LOCK:
        if _SHELL is None:
            _SHELL = _build_shell()
        return _SHELL


@contextmanager
def _singleton(shell: InteractiveShell):
    previous = InteractiveShell.__dict__.get("_instance")
    if previous is shell:
        yield
        return
    InteractiveShell._instance = shell
    try:
        yield
    finally:
        InteractiveShell._instance = previous


def _no_input(*args, **kwargs):
    __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
    raise StdinNotImplementedError("raw_input was called, but this frontend does not support input requests.")


def _escaped_error(exc: BaseException) -> tuple[str, str, list[str]]:
    tb = [_strip_ansi(line) for line in traceback.format_exception(type(exc), exc, exc.__traceback__)]
    return type(exc).__name__, _safe_str(exc), tb


def preload() -> None:
    """Build the shell and render one figure with what course plots use - a log axis (mathtext
    tick labels), a title and a legend - so that a forked runner finds matplotlib's parsers, fonts
    and caches ready (for a parent process that forks runners)."""
    shell = _get_shell()
    figure = Figure(figsize=(6, 4))
    axis = figure.add_subplot()
    axis.semilogy([0, 1, 2], [1, 0.5, 1e-4], marker="o", label="warm")
    axis.set(xlabel="x", ylabel="y", title="warm")
    axis.legend()
    figure.canvas.print_figure(io.BytesIO(), format="png")
    shell.display_formatter.format(figure)
    figures.figure_key(figure)
    try:
        raise ValueError("warm")
    except ValueError:
        shell.InteractiveTB.structured_traceback(*sys.exc_info())


# --------------------------------------------------------------------------- the runner

class CellRunner:
    """Runs notebook code cells in this process and returns their nbformat v4 outputs."""

    def __init__(self, output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT, known_figures: frozenset[str] | None = None):
        """`known_figures`: the keys of the figures whose PNGs the grader holds (`rnnkit.figures`);
        None leaves IPython's PNG formatter as it is."""
        self.output_limit_bytes = int(output_limit_bytes)
        shell = _get_shell()
        if shell._rnnkit_used:
            # The shell already ran someone's cells: start this runner from a clean slate.
            with _singleton(shell):
                plt.close("all")
                shell.reset(new_session=True)
            shell.execution_count = 1
            shell._rnnkit_used = False
        if known_figures is not None:
            figures.use_known(shell, known_figures)
        self._shell = shell

    @property
    def shell(self) -> InteractiveShell:
        return self._shell

    @property
    def namespace(self) -> dict:
        """The user namespace the cells run in."""
        return self._shell.user_ns

    @property
    def execution_count(self) -> int:
        """The execution count of the last cell run (0 before the first), as Jupyter numbers cells."""
        return self._shell.execution_count - 1

    def run(self, source: str) -> list[dict]:
        """Run one cell; return its outputs as nbformat v4 dicts in the order they happened."""
        shell = self._shell
        shell._rnnkit_used = True
        if not isinstance(source, str):
            source = "".join(source) if isinstance(source, (list, tuple)) else str(source)
        out = _Outputs(self.output_limit_bytes)
        previous_active = _state.active
        saved_streams = (sys.stdout, sys.stderr, sys.stdin)
        saved_input = builtins.input
        saved_getpass = getpass.getpass
        shell.display_pub = shell._rnnkit_publisher  # undoes a replacement made by an earlier cell
        try:
            _state.active = out
            sys.stdout, sys.stderr, sys.stdin = _STDOUT, _STDERR, io.StringIO("")
            builtins.input = _no_input
            getpass.getpass = _no_input
            with _singleton(shell):
                try:
                    shell.run_cell(source, store_history=True, silent=False)
                except BaseException as exc:  # noqa: BLE001 - SystemExit etc. must not end the process
                    out.error(*_escaped_error(exc))
                finally:
                    self._after_cell(out)
        finally:
            sys.stdout, sys.stderr, sys.stdin = saved_streams
            builtins.input = saved_input
            getpass.getpass = saved_getpass
            _state.active = previous_active
        return out.finish()

    def _after_cell(self, out: _Outputs) -> None:
        shell = self._shell
        shell.exit_now = False  # `exit` in a cell only asks the (absent) frontend to stop
        history = shell.history_manager
        if history is not None:
            history.outputs.clear()
            history.exceptions.clear()
        try:
            # Figures still open were never shown (plt.ioff(), another backend): Jupyter would keep
            # them; they are closed so that they cannot pile up across cells. Setting
            # InlineBackend.close_figures = False keeps figures open across cells, as in Jupyter.
            if InlineBackend.instance().close_figures and Gcf.get_all_fig_managers():
                plt.close("all")
        except BaseException as exc:  # noqa: BLE001
            out.error(*_escaped_error(exc))
