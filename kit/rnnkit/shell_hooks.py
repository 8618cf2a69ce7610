"""The process's one IPython shell, and the hooks through which what a cell prints, displays and
raises becomes the outputs of the cell running (`rnnkit.output_limits._state.active`).

The hooks override IPython's private API - `_Shell` (an `InteractiveShell` with no profile, its
history in memory, inline figures only, tracebacks as error outputs with the middle frames of those
deeper than `MAX_TRACEBACK_FRAMES` cut), `_DisplayPublisher`, `_DisplayHook`, help text written to
stdout in place of a pager - and stand in for `sys.stdout`, `sys.stderr` and `input()` while a cell
runs (`_STDOUT`, `_STDERR`, `_no_input`).

There is one IPython shell per process (IPython's ``display()`` and ``get_ipython()`` look up a
process-wide singleton).  Building it takes a few tens of milliseconds after the imports of this
module; a parent process that forks workers can call :func:`preload` once so that the children
start with the shell already built and matplotlib's first rendering already paid for.
"""

from __future__ import annotations

import io
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
import matplotlib_inline.backend_inline  # noqa: E402,F401  (imported here so that forks share it)
from IPython.core import completer as _completer  # noqa: E402,F401  (imported by the shell; load it once)
from IPython.core.display_trap import DisplayTrap  # noqa: E402
from IPython.core.displayhook import DisplayHook  # noqa: E402
from IPython.core.displaypub import DisplayPublisher  # noqa: E402
from IPython.core.error import StdinNotImplementedError, UsageError  # noqa: E402
from IPython.core.history import HistoryManager  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.core.profiledir import ProfileDir  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib_inline.config import InlineBackend  # noqa: E402

from . import figures  # noqa: E402
from .output_limits import _safe_str, _state  # noqa: E402

__all__ = ["preload"]

#: Tracebacks deeper than this (runaway recursion) lose their middle frames.
MAX_TRACEBACK_FRAMES = 120

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def _strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


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
            tail = frames[len(frames) - (MAX_TRACEBACK_FRAMES - len(head)) :]
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

    def showtraceback(
        self, exc_tuple=None, filename=None, tb_offset=None, exception_only=False, running_compiled_code=False
    ):
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
