"""nbgrader's Execute preprocessor, made to survive a kernel that dies in one cell.

With plain nbgrader a killed kernel (os._exit, a segfault, memory exhaustion) aborts the whole
submission. Here the cell that killed it gets an error output (so it earns nothing), the kernel is
restarted, the cells before it that are not test cells are run again, and grading goes on.
"""
from __future__ import annotations

import nbformat
from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from nbgrader.preprocessors import Execute


class IsolatingExecute(Execute):
    """Execute each cell; a dead kernel costs only the cell that killed it."""

    def preprocess(self, nb, resources=None, km=None):
        self._deadly: set[int] = set()
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._deadly.add(index)
            cell.outputs = [nbformat.v4.new_output(
                "error", ename="KernelDied",
                evalue="the Python kernel stopped while running this cell (os._exit, a crash or too much memory); "
                       "this cell earns no points, the rest of the notebook is graded on a fresh kernel",
                traceback=[])]
            self._revive(index)
            return cell, self.resources

    def _revive(self, upto: int) -> None:
        """Restart the kernel and re-run the earlier non-test cells on copies (outputs untouched)."""
        run_sync(self.km.restart_kernel)(now=True)
        run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
        for index, cell in enumerate(self.nb.cells[:upto]):
            if cell.cell_type != "code" or index in self._deadly or cell.metadata.get("nbgrader", {}).get("grade"):
                continue
            try:
                self.execute_cell(nbformat.from_dict(cell), index, store_history=False)
            except DeadKernelError:
                self._deadly.add(index)
                run_sync(self.km.restart_kernel)(now=True)
                run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)
