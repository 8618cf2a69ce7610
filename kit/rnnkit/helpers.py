"""What the course gives students: `load_model()`, the callables that checks hand to their functions
(`TanhStep`, `ScalarLoss`), and the ways a check calls a function (`CALLS`).

Callables cross the grading boundary by name and state (`codec_name`, `codec_state`, `rebuild`),
so the runner builds them itself from this module.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import random
import types
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import messages

DATA = Path(__file__).resolve().parent / "data"


def load_model(path="sequence-v1.json"):
    """The Chapter 11 model of `sequence-v1.json` (Table 11.1 and section 11.2) as numpy float64 arrays.

    Returns a dict: `embeddings` (V, 2), `W_x` (2, 2), `W_h` (2, 2), `b_h` (2,), `W_y` (2, 2),
    `b_y` (2,), `candidates` (["red", "blue"], the order of the logits), `vocabulary`
    (token -> id), `inputs` (name -> list of token ids: short_red, short_blue, long_red, long_blue)
    and `window_baseline` ({"W": (4, 2), "b": (2,)}: the two-token window of section 11.3).
    """
    path = Path(path)
    if not path.is_file():  # outside the notebook's folder: the copy that comes with the kit
        from rnnkit.helpers import DATA

        path = DATA / path.name
    raw = json.loads(path.read_text(encoding="utf-8"))

    def array(values):
        return np.array(
            [
                [float(Fraction(str(v))) for v in row] if isinstance(row, list) else float(Fraction(str(row)))
                for row in values
            ],
            dtype=np.float64,
        )

    vocabulary = {entry["token"]: entry["id"] for entry in raw["vocabulary"]}
    model = {key: array(raw[key]) for key in ("embeddings", "W_x", "W_h", "b_h", "W_y", "b_y")}
    model["candidates"] = list(raw["candidates"])
    model["vocabulary"] = vocabulary
    model["inputs"] = {name: [vocabulary[token] for token in tokens] for name, tokens in raw["inputs"].items()}
    model["window_baseline"] = {"W": array(raw["window_baseline"]["W"]), "b": array(raw["window_baseline"]["b"])}
    return model


# ----------------------------------------------------------------------------- given callables


def uniform(rng: random.Random, shape: tuple[int, ...], low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """A float64 array of uniform draws."""
    return np.array([rng.uniform(low, high) for _ in range(int(np.prod(shape)))], dtype=float).reshape(shape)


_tanh = np.vectorize(math.tanh, otypes=[float])


class TanhStep:
    """h_new = tanh(x @ W_x + h @ W_h + b), on a row x (D,), h (d,) or on batches (B, D), (B, d).

    A step computes every row with the same elementwise float operations in the same order whether
    it is called on one row or on a batch, so a correct implementation gives bit-identical states
    however it batches its calls.
    """

    codec_name = "TanhStep"

    def __init__(self, W_x, W_h, b, name: str = ""):
        self.W_x = np.array(W_x, dtype=float).reshape(-1, np.size(b))
        self.W_h = np.array(W_h, dtype=float).reshape(np.size(b), np.size(b))
        self.b = np.array(b, dtype=float).reshape(-1)
        self.name = name or f"D={self.W_x.shape[0]}, d={self.b.size}"
        self._rows = [self.b.tolist(), *self.W_x.tolist(), *self.W_h.tolist()]  # b, then the rows of [W_x; W_h]

    @classmethod
    def seeded(cls, seed: int, D: int, d: int) -> "TanhStep":
        """A step with weights drawn from `seed`: W_x in [-1, 1], W_h in [-0.9, 0.9] (never symmetric), b in [-0.5, 0.5]."""
        rng = random.Random(seed)
        W_x, W_h, b = uniform(rng, (D, d)), uniform(rng, (d, d), -0.9, 0.9), uniform(rng, (d,), -0.5, 0.5)
        if d > 1:
            W_h[0, 1] = W_h[1, 0] + (0.5 if W_h[1, 0] < 0 else -0.5)
        return cls(W_x, W_h, b, name=f"D={D}, d={d}, seed={seed}")

    def __call__(self, x, h):
        x, h = np.asarray(x, dtype=float), np.asarray(h, dtype=float)
        D, d = self.W_x.shape
        if x.shape[-1:] != (D,) or h.shape[-1:] != (d,):
            raise ValueError(f"this step takes x of width {D} and h of width {d}; got shapes {x.shape} and {h.shape}")
        if x.ndim == 1 and h.ndim == 1:  # one row: the same float operations, in plain Python (faster)
            rows, u = self._rows, [*x.tolist(), *h.tolist()]
            out = []
            for j in range(d):
                a = rows[0][j]
                for i, value in enumerate(u):
                    a += value * rows[i + 1][j]
                out.append(math.tanh(a))
            return np.array(out)
        a = np.broadcast_to(self.b, np.broadcast_shapes(x.shape[:-1], h.shape[:-1]) + (d,)).copy()
        with np.errstate(all="ignore"):  # junk (inf, nan) in padding must not print warnings
            for i in range(D):
                a += x[..., i, None] * self.W_x[i]
            for i in range(d):
                a += h[..., i, None] * self.W_h[i]
        return _tanh(a)

    def codec_state(self) -> dict:
        return {"W_x": self.W_x, "W_h": self.W_h, "b": self.b, "name": self.name}

    def __repr__(self) -> str:
        return f"TanhStep({self.name})"


class ScalarLoss:
    """L(w) = 1/2 (h_T(w) - target)^2 for h_t = x_t + w h_{t-1}, h_0 = 0; works on floats and exact numbers."""

    codec_name = "ScalarLoss"

    def __init__(self, xs, target):
        self.xs, self.target = tuple(xs), target

    def __call__(self, w):
        h = 0
        for x in self.xs:
            h = x + w * h
        return (h - self.target) ** 2 / 2

    def codec_state(self) -> dict:
        return {"xs": tuple(self.xs), "target": self.target}

    def __eq__(self, other) -> bool:
        return type(other) is ScalarLoss and (self.xs, self.target) == (other.xs, other.target)

    def __hash__(self) -> int:
        return hash((self.xs, self.target))

    def __repr__(self) -> str:
        return f"L(w) for xs={list(map(str, self.xs))}, target={self.target}"


_GIVEN = {
    "TanhStep": lambda s: TanhStep(s["W_x"], s["W_h"], s["b"], s["name"]),
    "ScalarLoss": lambda s: ScalarLoss(s["xs"], s["target"]),
}


def rebuild(name: str, state: dict) -> Callable:
    """A given callable from its codec name and state."""
    if name not in _GIVEN or not isinstance(state, dict):
        raise ValueError(f"no given helper {name!r}")
    return _GIVEN[name](state)


# ----------------------------------------------------------------------------- how checks call functions


def _pristine(value):
    """A default value as it was before any call: mutable containers come back empty (a memory kept in
    `memory={}` or `cache=[]` starts over), anything else is deep-copied."""
    if isinstance(value, (dict, list, set)):
        empty = copy.copy(value)
        empty.clear()
        return empty
    return copy.deepcopy(value)


def pristine(fn):
    """A copy of a plain function with pristine default values, so that memory kept in a mutable
    default starts empty for every case, whatever ran before (a regrade gives the same result)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    defaults = tuple(_pristine(v) for v in fn.__defaults__) if fn.__defaults__ else fn.__defaults__
    clone = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, defaults, fn.__closure__)
    clone.__kwdefaults__ = (
        {k: _pristine(v) for k, v in fn.__kwdefaults__.items()} if fn.__kwdefaults__ else fn.__kwdefaults__
    )
    return clone


def warm_up(model: dict) -> list[int]:
    """The sequence run before each case: every token once, in id order."""
    return list(range(len(model["embeddings"])))


class ContractBroken(Exception):
    """A call that broke its contract in a way the result alone cannot show; `message_id` says how,
    with its `fields`."""

    def __init__(self, message_id: str, **fields):
        super().__init__(message_id)
        self.message_id, self.fields = message_id, fields


def _arrays(value: Any) -> list[np.ndarray]:
    """The numpy arrays in a value (nested in lists, tuples and dict values)."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [array for item in value for array in _arrays(item)]
    return []


def _show(value: Any) -> str:
    text = np.array2string(value, threshold=8, separator=", ") if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _how(kind: str, **fields) -> str:
    return messages.text(f"contract.how_{kind}", **fields)


def _same_number(a: Any, b: Any) -> bool:
    try:
        return a == b or (a != a and b != b)  # NaN is NaN
    except Exception:
        return False


def difference(before: Any, after: Any, where: str) -> str | None:
    """How `after` differs from `before` (a value as it was given, and as the call left it), as
    `where` followed by the first change (`model['W_h'][0, 1] was 0.5, now 1.0`); None when it is
    the same. Objects are compared by their state (`codec_state`, or their attributes); anything
    else that cannot be compared counts as unchanged."""
    if isinstance(before, np.ndarray):
        if not isinstance(after, np.ndarray) or after.shape != before.shape:
            return _how("reshaped", where=where, before=f"shape {before.shape}", after=_show(after))
        if before.dtype != after.dtype:
            return _how("value", where=where, before=str(before.dtype), after=str(after.dtype))
        if before.dtype.kind in "fciub":
            if np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"):
                return None
            index = tuple(
                int(i) for i in np.argwhere(~((before == after) | ((before != before) & (after != after))))[0]
            )
            at = f"{where}[{', '.join(map(str, index))}]"
            return _how("value", where=at, before=repr(before[index].item()), after=repr(after[index].item()))
        return next(
            (
                found
                for index in np.ndindex(before.shape)
                if (found := difference(before[index], after[index], f"{where}[{', '.join(map(str, index))}]"))
            ),
            None,
        )
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return _how("value", where=where, before="dict", after=_show(after))
        added, removed = [k for k in after if k not in before], [k for k in before if k not in after]
        if removed:
            return _how("key_lost", where=where, key=repr(removed[0]))
        if added:
            return _how("key_added", where=where, key=repr(added[0]))
        return next(
            (found for key in before if (found := difference(before[key], after[key], f"{where}[{key!r}]"))), None
        )
    if isinstance(before, (list, tuple)):
        if type(after) is not type(before):
            return _how("value", where=where, before=type(before).__name__, after=_show(after))
        if len(after) != len(before):
            return _how("length", where=where, before=len(before), after=len(after))
        return next(
            (
                found
                for index, (a, b) in enumerate(zip(before, after))
                if (found := difference(a, b, f"{where}[{index}]"))
            ),
            None,
        )
    if (
        isinstance(before, (set, frozenset, str, bytes, bool, int, float, complex, Fraction, np.generic))
        or before is None
    ):
        return (
            None
            if type(after) is type(before) and _same_number(before, after)
            else _how("value", where=where, before=_show(before), after=_show(after))
        )
    if callable(getattr(before, "codec_state", None)) and callable(getattr(after, "codec_state", None)):
        return difference(before.codec_state(), after.codec_state(), where)
    if (
        hasattr(before, "__dict__")
        and hasattr(after, "__dict__")
        and not isinstance(before, (types.FunctionType, type))
    ):
        return difference(vars(before), vars(after), where)
    return None


def unchanged_arguments(fn, given: tuple[tuple, dict], passed: tuple[tuple, dict]) -> None:
    """Hold a call to leaving its arguments as they were: `given` is the case's arguments (untouched),
    `passed` the copies the function received. Raises ContractBroken naming the first argument it
    changed (by its parameter name where the signature gives one) and how."""
    (args, kwargs), (got_args, got_kwargs) = given, passed
    pairs = [(index, a, b) for index, (a, b) in enumerate(zip(args, got_args))]
    pairs += [(key, kwargs[key], got_kwargs.get(key)) for key in kwargs]
    for key, before, after in pairs:
        try:
            if difference(before, after, "") is None:
                continue
        except RecursionError:
            continue
        name = key if isinstance(key, str) else _parameter(fn, key)  # named only where one changed
        raise ContractBroken("contract.changed_argument", argument=name, how=difference(before, after, name))


def _parameter(fn, index: int) -> str:
    """The name of positional argument `index` of `fn`, where its signature gives one."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return names[index] if index < len(names) else f"argument {index + 1}"


def call_plain(fn, args: tuple, kwargs: dict) -> Any:
    """Call the function on the case."""
    return fn(*args, **kwargs)


def call_after_warm_up(fn, args: tuple, kwargs: dict) -> Any:
    """Run the function on another sequence first, then on the case: state carried from one call to
    the next shows up (each of run_rnn's calls must start from h_0 = 0)."""
    fn = pristine(fn)
    token_ids, model = args
    fn(warm_up(model), copy.deepcopy(model))
    return fn(*args, **kwargs)


def call_twice(fn, args: tuple, kwargs: dict) -> Any:
    """Call the function on a copy of the case first, then on the case: a result that depends on an
    earlier call (a gradient accumulator never reset, memory kept in a default or a global) shows up
    as a wrong value, in the self-check as at grading."""
    fn = pristine(fn)
    fn(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    return fn(*args, **kwargs)


def call_returning_copies(fn, args: tuple, kwargs: dict) -> Any:
    """Call the function, then hold it to "returns copies": none of the arrays it was given (nor a
    view of one) comes back in the result (that it leaves them unchanged, every call is held to)."""
    result = fn(*args, **kwargs)
    given = _arrays((args, kwargs))
    if any(np.shares_memory(out, array) for out in _arrays(result) for array in given):
        raise ContractBroken("contract.returned_inputs")
    return result


#: The ways a check calls a student's function, by name.
CALLS = {
    "plain": call_plain,
    "after_warm_up": call_after_warm_up,
    "twice": call_twice,
    "returning_copies": call_returning_copies,
}
