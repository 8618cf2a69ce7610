"""The course's assignments, one folder each, found here rather than listed (see
docs/adding-an-assignment.md): `notebook.md` (the teaching text in both languages and the reference
solution), `reference.py` (the SymPy engine), `checks/` (one module an exercise, named like its
check: its public cases with their labels, its hidden-case drawer and branches, its `CHECK` and its
catalogued mistakes with their sentences) and `models.py` (what its exercises share); the folder's
`SPEC` (`Assignment.found`) ties them together. `ALL` maps each assignment name to its spec, by
name; a course releases those of its `course_config.ASSIGNMENTS`, in that order."""

from __future__ import annotations

import importlib
import pkgutil

from ..vocabulary.spec import Assignment


def _found() -> dict[str, Assignment]:
    specs = {}
    for folder in sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg):
        spec = importlib.import_module(f"{__name__}.{folder}").SPEC
        if spec.name != folder:
            raise ValueError(
                f"autograder/assignments/{folder}/__init__.py names its assignment {spec.name!r}; it must be {folder!r}"
            )
        specs[folder] = spec
    return specs


ALL: dict[str, Assignment] = _found()


def get(name: str) -> Assignment:
    """The spec of one assignment; a clear error for an unknown name."""
    if name not in ALL:
        raise KeyError(f"unknown assignment {name!r}; the course has {list(ALL)}")
    return ALL[name]
