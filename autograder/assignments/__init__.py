"""One subpackage per assignment: `reference` (SymPy engine), `checks`, `mistakes`, `notebook.md`,
`messages.<lang>.json`. `CHECKS` in `checks.py` is the assignment's list of `Check`s."""
from __future__ import annotations

import importlib
from functools import lru_cache

from ..checks import Check


@lru_cache(maxsize=None)
def checks_of(assignment: str) -> dict[str, Check]:
    """The checks of one assignment by name, in notebook order."""
    module = importlib.import_module(f"{__name__}.{assignment}.checks")
    return {check.name: check for check in module.CHECKS}
