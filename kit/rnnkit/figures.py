"""A figure drawn once per distinct content at grading: its key, and the runner's PNG formatter.

Every honest submission draws the notebook's plots from the same values, and drawing one (its text
and tick layout) is most of a plot cell's time. So the grader keeps the PNGs of the reference run
(the instructor's notebook, `autograder.grading.figures`) by key, and tells each runner those keys. The
runner's PNG formatter computes a figure's key; when the grader holds that key it sends
`MARKER + key` in place of the PNG, which the grader replaces by its own copy, else it draws.

The key is a SHA-256 of everything the drawing depends on: the figure's content (pickled, without
the identity-keyed parent links of its transforms), all of matplotlib's rcParams, its version, the
fonts it knows and the inline backend's settings. A runner is untrusted, so a marker it sends can
only ever bring back a PNG of the reference run; an unknown key brings back nothing.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import re
from typing import Callable

# matplotlib is imported where a figure is keyed (in the runner, which has it already), so that the
# grader can read markers without importing it.

__all__ = ["MARKER", "KEY_METADATA", "figure_key", "is_key", "use_known"]

#: What a runner sends as a figure's PNG when the grader holds the PNG of that key.
MARKER = "rnnkit-figure:"
#: The output metadata that names a drawn figure's key (read from the reference run only).
KEY_METADATA = "rnnkit/figure"
#: A figure whose pickled content is larger than this is drawn, never keyed.
MAX_PICKLE_BYTES = 8 << 20

_KEY = re.compile(r"[0-9a-f]{64}")


def is_key(text: object) -> bool:
    return isinstance(text, str) and _KEY.fullmatch(text) is not None


class _TooLarge(Exception):
    pass


class _Bounded(io.RawIOBase):
    """A sink that hashes what is written and gives up past MAX_PICKLE_BYTES."""

    def __init__(self, digest) -> None:
        self.digest, self.size = digest, 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.size += len(data)
        if self.size > MAX_PICKLE_BYTES:
            raise _TooLarge
        self.digest.update(data)
        return len(data)


class _ContentPickler(pickle.Pickler):
    """Pickles a figure's content: a transform's `_parents` (weak links keyed by id(), different in
    every process) are left out; the parents themselves are pickled where the figure holds them."""

    def __init__(self, sink, transform: type) -> None:
        super().__init__(sink, protocol=5)
        self.transform = transform

    def reducer_override(self, obj):
        if isinstance(obj, self.transform):
            state = dict(obj.__dict__)
            state.pop("_parents", None)
            return (object.__new__, (type(obj),), state)
        return NotImplemented


_ENVIRONMENT: list[bytes] = []


def _environment() -> bytes:
    """matplotlib's version and the fonts it knows (fixed for the life of a runner)."""
    if not _ENVIRONMENT:
        import matplotlib
        from matplotlib.font_manager import fontManager

        fonts = sorted(f"{font.fname}|{font.name}|{font.style}|{font.weight}" for font in fontManager.ttflist)
        _ENVIRONMENT.append(repr((matplotlib.__version__, fonts)).encode())
    return _ENVIRONMENT[0]


def figure_key(figure) -> str | None:
    """The key of what the matplotlib `figure` would draw now, or None when it cannot be keyed
    (content that does not pickle, or too large)."""
    import matplotlib
    from matplotlib.transforms import TransformNode
    from matplotlib_inline.config import InlineBackend

    digest = hashlib.sha256(_environment())
    backend = InlineBackend.instance()
    digest.update(
        repr((sorted(map(str, backend.figure_formats)), sorted(backend.print_figure_kwargs.items(), key=str))).encode()
    )
    digest.update(repr(sorted(matplotlib.rcParams.items(), key=lambda item: item[0])).encode())
    try:
        _ContentPickler(_Bounded(digest), TransformNode).dump(figure)
    except Exception:  # noqa: BLE001 - a student's figure may hold anything: it is then drawn
        return None
    return digest.hexdigest()


def use_known(shell, known: frozenset[str]) -> None:
    """Make `shell`'s PNG formatter send MARKER + key for a figure whose key is in `known`, and name
    the key of every figure it draws in the output's metadata. `%matplotlib` and `%config
    InlineBackend` put IPython's own formatter back: figures are then drawn, unkeyed."""
    from matplotlib.figure import Figure

    formatter = shell.display_formatter.formatters["image/png"]
    draw = formatter.lookup_by_type(Figure)
    if isinstance(draw, _KnownFigures):
        draw = draw.draw
    formatter.for_type(Figure, _KnownFigures(draw, known))


class _KnownFigures:
    def __init__(self, draw: Callable, known: frozenset[str]) -> None:
        self.draw, self.known = draw, known

    def __call__(self, figure):
        key = figure_key(figure)
        if key is None:
            return self.draw(figure)
        if key in self.known:
            return MARKER + key
        drawn = self.draw(figure)
        return drawn if drawn is None else (drawn, {KEY_METADATA: key})
