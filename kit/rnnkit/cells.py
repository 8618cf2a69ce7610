"""Run notebook code cells in-process with IPython semantics and collect nbformat v4 outputs.

``CellRunner().run(source)`` executes one cell the way a Jupyter kernel would (magics, display of
the last expression, ``display()``, rich reprs, inline matplotlib figures as PNG) but without a
kernel, ZMQ or a Jupyter client: everything happens in the calling process and the outputs are
returned as plain nbformat v4 output dicts, bounded in size and number (`rnnkit.output_limits`).

The cells run in the process's one IPython shell (`rnnkit.shell_hooks`).  Creating a second
``CellRunner`` in a process that has already run cells resets the shared shell (fresh namespace,
execution count back to 1).
"""

from __future__ import annotations

import builtins
import getpass
import io
import sys

from . import figures
from .output_limits import DEFAULT_OUTPUT_LIMIT, _Outputs, _state
from .shell_hooks import _STDERR, _STDOUT, _escaped_error, _get_shell, _no_input, _singleton

# isort: split
# After rnnkit.shell_hooks, which names the inline backend in MPLBACKEND before matplotlib is imported.
import matplotlib.pyplot as plt
from IPython.core.interactiveshell import InteractiveShell
from matplotlib._pylab_helpers import Gcf
from matplotlib_inline.config import InlineBackend

__all__ = ["CellRunner"]


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
