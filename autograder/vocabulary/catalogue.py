"""The misconception catalogue: each entry is a mistaken version of one solution function.

An assignment's exercise modules (`Assignment.mistakes_modules`, one a check) define the mistakes as
functions named by the mistake id, with the signature of the solution function they replace::

    @mistake("bptt_scalar",
             en="Only the last use of w was counted. ...",
             zh="只计入了w的最后一次使用。...")
    def last_use_only(xs, w, target, h0=0):
        ...

The sentence for the student (what to rethink, never the answer) is written there in each language;
a mistake the kit names by itself (`rnnkit.checking.FLOAT_WHERE_EXACT`) leaves it out and keeps the
kit's sentence `mistake.<id>`. The mistaken output
for any check is computed, never stored: the reference solution module is loaded afresh with the
function replaced (so callers of it are affected too), and the check's function is run there.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping

from rnnkit import messages
from rnnkit.helpers import pristine

from .template import compiled, function_sources, strip_markers


@dataclass(frozen=True)
class Mistake:
    """A catalogued mistake of assignment `assignment`: `fn` stands in for the function `function`
    of the reference solution that the notebook template `template` holds."""

    id: str
    function: str
    fn: Callable = field(repr=False, compare=False)
    assignment: str = ""
    template: Path = field(default=Path(), repr=False, compare=False)
    #: what the student should rethink, {language: sentence}; None for a mistake the kit names itself
    says: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    #: `recognise(got, case, expected)`: the mistake told by what it does to a value, in any way of
    #: writing it (a tie given to another tied candidate), where its own output may not be reproduced
    recognise: Callable[[Any, Any, Any], bool] | None = field(default=None, repr=False, compare=False)

    @property
    def checks(self) -> tuple[str, ...]:
        """The checks this mistake can change: its function's and those of every (indirect) caller."""
        return (self.function, *sorted(callers(self.template, self.function)))

    @property
    def text(self) -> str:
        """What the student should rethink (never the answer), in the course language."""
        return messages.text(self.says or f"mistake.{self.id}")

    def source(self) -> str:
        """The code a student with this mistake would have in the solution cell.

        It holds the mistaken function renamed to the solution function it replaces, preceded by
        what it uses: private helpers of the mistakes module, and `_<f>` for a correct solution
        function `f` (the correct `f` renamed).
        """
        solution = function_sources(self.template)
        module = inspect.getmodule(self.fn)
        parts, seen = [], set()

        def add(fn_name: str, node: ast.FunctionDef) -> None:
            for used in sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - seen):
                seen.add(used)
                if used.startswith("_") and used[1:] in solution:
                    parts.append(_renamed(strip_markers(solution[used[1:]]), used))
                elif used.startswith("_") and inspect.isfunction(getattr(module, used, None)):
                    helper = ast.parse(inspect.getsource(getattr(module, used))).body[0]
                    add(used, helper)
                    parts.append(ast.unparse(helper))

        node = ast.parse(inspect.getsource(self.fn)).body[0]
        add(self.id, node)
        parts.append(_renamed(ast.unparse(node), self.function))
        return "\n\n\n".join(parts)

    def namespace(self) -> dict:
        """The reference solution module with this mistake's cell run in it (built once). Functions
        that keep memory in mutable defaults are put back pristine on every call of this method,
        so a mistake's output never depends on what ran before (a regrade draws the same cases)."""
        namespace, remembering = _namespace(self)
        for name, fn in remembering:
            namespace[name] = pristine(fn)
        return namespace


def mistake(
    function: str, *, en: str | None = None, zh: str | None = None, recognise: Callable | None = None
) -> Callable[[Callable], Callable]:
    """Mark the decorated function as the mistake named after it, replacing `function`, with what
    the student should rethink in English and Chinese (both, or neither for a mistake the kit names
    itself); the assignment's spec lists its mistakes module, where `mistakes` finds the marked
    functions. `recognise(got, case, expected)` tells the mistake by what it does to a wrong value
    where it is written another way (see `Mistake.recognise`)."""
    if (en is None) != (zh is None):
        raise ValueError(f"a mistake of {function} says what to rethink in both languages (en and zh) or in neither")

    def mark(fn: Callable) -> Callable:
        fn.replaces, fn.says = function, {"en": en, "zh": zh} if en is not None else None
        fn.recognise = recognise
        return fn

    return mark


@lru_cache(maxsize=None)
def mistakes(assignment: str, modules: tuple[ModuleType, ...], template: Path) -> tuple[Mistake, ...]:
    """Every catalogued mistake of one assignment (the marked functions of its exercise `modules`,
    standing in for functions of the solution in `template`), module by module in definition order.
    A mistake's id is its name in the catalogue and the kit: two of the same id are refused."""
    found = []
    for module in modules:
        own = [
            value
            for value in vars(module).values()
            if inspect.isfunction(value) and hasattr(value, "replaces") and value.__module__ == module.__name__
        ]
        found += sorted(own, key=lambda fn: fn.__code__.co_firstlineno)
    ids = [fn.__name__ for fn in found]
    if twice := [name for name in dict.fromkeys(ids) if ids.count(name) > 1]:
        raise ValueError(
            f"{assignment}: the mistake id {twice[0]!r} is defined twice; each mistake's id is new in the assignment"
        )
    return tuple(Mistake(fn.__name__, fn.replaces, fn, assignment, template, fn.says, fn.recognise) for fn in found)


def for_check(entries: tuple[Mistake, ...], check: str) -> list[Mistake]:
    """Of `entries`, the mistakes that change the result of `check`: those of its own function
    first, then those of the functions it calls (so a diagnosis prefers the closest cause)."""
    found = [entry for entry in entries if check in entry.checks]
    return sorted(found, key=lambda entry: entry.function != check)


def _renamed(source: str, name: str) -> str:
    node = ast.parse(source).body[0]
    node.decorator_list = []
    node.name = name
    return ast.unparse(node)


def submission(template: Path, source: str, name: str = "submission") -> dict:
    """The reference solution of `template` with `source` run in it: a notebook with some of its
    solution cells written differently (a mistake's cell, or any other student code)."""
    namespace: dict = {"__name__": name}
    exec(compiled(template), namespace)
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace


@lru_cache(maxsize=None)
def _namespace(entry: Mistake) -> tuple[dict, tuple[tuple[str, Callable], ...]]:
    """The mistake's namespace, and its functions that keep memory in mutable defaults (as built)."""
    namespace = submission(entry.template, entry.source(), f"mutant_{entry.assignment}_{entry.id}")
    return namespace, tuple(
        (name, fn)
        for name, fn in namespace.items()
        if inspect.isfunction(fn) and any(isinstance(v, (dict, list, set)) for v in (fn.__defaults__ or ()))
    )


@lru_cache(maxsize=None)
def callers(template: Path, function: str) -> frozenset[str]:
    """Functions of the reference solution in `template` that call `function`, directly or through
    other solution functions."""
    sources = function_sources(template)
    calls = {
        name: {node.id for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Name)} & set(sources) - {name}
        for name, text in sources.items()
    }
    found: set[str] = set()
    frontier = {function}
    while frontier:
        frontier = {name for name, used in calls.items() if used & frontier} - found - {function}
        found |= frontier
    return frozenset(found)
