"""The course's assignments, one subpackage each: `reference` (SymPy engine), `checks` (the list
`CHECKS`), `mistakes` (the catalogue) and `notebook.md`; its `SPEC` ties them together.
`ALL` maps each assignment name to its spec, in release order."""
from __future__ import annotations

from ..spec import Assignment
from . import ch11_rnn_state, ch12_boundaries, ch12_bptt, ch12_gates

ALL: dict[str, Assignment] = {spec.name: spec for spec in (ch11_rnn_state.SPEC, ch12_bptt.SPEC, ch12_gates.SPEC, ch12_boundaries.SPEC)}


def get(name: str) -> Assignment:
    """The spec of one assignment; a clear error for an unknown name."""
    if name not in ALL:
        raise KeyError(f"unknown assignment {name!r}; the course has {list(ALL)}")
    return ALL[name]
