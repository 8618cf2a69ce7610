"""The safe codec for values that cross between the grader and the sandboxed runner.

Plain JSON with tagged objects; nothing is pickled or evaluated. Allowed values: None, bool, int,
float (NaN and infinities included), str, `Fraction` (as two ints), list, tuple, dict (any allowed
keys), set, numpy arrays of bool, int or float dtype, and object arrays whose items are allowed
values (Fractions, for exact element-wise results). numpy scalars travel as the plain Python
number they hold; a SymPy rational travels as a `Fraction` and a SymPy float as a float. The given
helpers of `rnnkit.helpers` (the `step` and loss callables that checks hand to a student function)
travel by name and state, and so do `Real` references; both are read only where `trusted=True`
(data the grader wrote), never when the grader reads a student's result. Anything else, subclasses included, raises `CodecError` naming
the type.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .compare import Real

#: At most this many bytes in one encoded message, and this many leaves in one value.
MAX_BYTES = 32 * 1024 * 1024
MAX_ITEMS = 2_000_000
MAX_DEPTH = 64

_ARRAY_KINDS = {"b": "bool", "i": "int64", "u": "int64", "f": "float64"}


class CodecError(ValueError):
    """A value that may not cross the boundary; `type_name` names the offending type."""

    def __init__(self, type_name: str, detail: str = ""):
        super().__init__(detail or f"a value of type {type_name} cannot be graded")
        self.type_name = type_name


def _float(value: float) -> Any:
    return value if math.isfinite(value) else {"$float": repr(value)}


def _sympy_number(value: Any) -> Any:
    """A SymPy Rational as a Fraction, a SymPy Float as a float, else None (duck-typed: no import)."""
    if not type(value).__module__.startswith("sympy."):
        return None
    if getattr(value, "is_Rational", False):
        return Fraction(int(value.p), int(value.q))
    if getattr(value, "is_Float", False):
        return float(value)
    return None


def to_plain(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-ready data; raises CodecError for anything not allowed."""
    if depth > MAX_DEPTH:
        raise CodecError("nested value", "the value is nested too deeply to be graded")
    kind = type(value)
    if value is None or kind in (bool, str):
        return value
    if kind is int:
        return value
    if kind is float:
        return _float(value)
    if kind is Fraction:
        return {"$fraction": [value.numerator, value.denominator]}
    if kind in (list, tuple, set, frozenset):
        items = [to_plain(item, depth + 1) for item in (sorted(value, key=repr) if kind in (set, frozenset) else value)]
        return items if kind is list else {"$tuple" if kind is tuple else "$set": items}
    if kind is dict:
        return {"$dict": [[to_plain(k, depth + 1), to_plain(v, depth + 1)] for k, v in value.items()]}
    if kind is np.ndarray and value.dtype.kind == "O":
        if value.size > MAX_ITEMS:
            raise CodecError("numpy array", f"an array of {value.size} items is too large to be graded")
        return {"$objects": [list(value.shape), [to_plain(item, depth + 1) for item in value.ravel().tolist()]]}
    if kind is np.ndarray:
        if value.dtype.kind not in _ARRAY_KINDS:
            raise CodecError(f"numpy array of dtype {value.dtype}", f"an array of dtype {value.dtype} cannot be graded; use float, int or bool")
        if value.size > MAX_ITEMS:
            raise CodecError("numpy array", f"an array of {value.size} items is too large to be graded")
        flat = value.astype(_ARRAY_KINDS[value.dtype.kind]).ravel().tolist()
        if value.dtype.kind == "f":
            flat = [_float(x) for x in flat]
        return {"$array": {"dtype": _ARRAY_KINDS[value.dtype.kind], "shape": list(value.shape), "data": flat}}
    if isinstance(value, np.generic) and kind.__module__ == "numpy" and value.dtype.kind in _ARRAY_KINDS:
        return to_plain(value.item(), depth)
    sympy = _sympy_number(value)
    if sympy is not None:
        return to_plain(sympy, depth)
    if isinstance(value, Real):  # a reference, written by the grader only (read only where trusted)
        return {"$real": str(value.digits)}
    codec_name = getattr(kind, "codec_name", None)
    if isinstance(codec_name, str) and kind.__module__ == "rnnkit.helpers":
        return {"$helper": [codec_name, to_plain(value.codec_state(), depth + 1)]}
    raise CodecError(f"{kind.__module__}.{kind.__qualname__}" if kind.__module__ not in ("builtins", "__main__") else kind.__qualname__)


def from_plain(data: Any, *, trusted: bool = False, depth: int = 0) -> Any:
    """The value that `to_plain` encoded. `trusted` (data the grader wrote) also allows given
    helpers to be rebuilt and `Real` references to be read."""
    if depth > MAX_DEPTH:
        raise CodecError("nested value", "the value is nested too deeply to be graded")
    if data is None or isinstance(data, (bool, str, int)):
        return data
    if isinstance(data, float):
        return data
    if isinstance(data, list):
        return [from_plain(item, trusted=trusted, depth=depth + 1) for item in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise CodecError(type(data).__name__, "malformed message")
    (tag, body), = data.items()
    if tag == "$float":
        if body not in ("nan", "inf", "-inf"):
            raise CodecError("float", "malformed float")
        return float(body)
    if tag == "$fraction":
        numerator, denominator = body
        if type(numerator) is not int or type(denominator) is not int or denominator == 0:
            raise CodecError("Fraction", "malformed fraction")
        return Fraction(numerator, denominator)
    if tag in ("$tuple", "$set"):
        items = [from_plain(item, trusted=trusted, depth=depth + 1) for item in body]
        return tuple(items) if tag == "$tuple" else set(items)
    if tag == "$dict":
        return {_key(from_plain(k, trusted=trusted, depth=depth + 1)): from_plain(v, trusted=trusted, depth=depth + 1) for k, v in body}
    if tag == "$array":
        dtype, shape, flat = body["dtype"], body["shape"], body["data"]
        if dtype not in _ARRAY_KINDS.values() or not all(type(n) is int and n >= 0 for n in shape):
            raise CodecError("numpy array", "malformed array")
        if math.prod(shape) != len(flat) or len(flat) > MAX_ITEMS:
            raise CodecError("numpy array", "malformed array")
        values = [float(x["$float"]) if isinstance(x, dict) else x for x in flat] if dtype == "float64" else flat
        return np.array(values, dtype=dtype).reshape(shape)
    if tag == "$objects":
        shape, items = body
        if not all(type(n) is int and n >= 0 for n in shape) or math.prod(shape) != len(items) or len(items) > MAX_ITEMS:
            raise CodecError("numpy array", "malformed array")
        array = np.empty(len(items), dtype=object)
        array[:] = [from_plain(item, trusted=trusted, depth=depth + 1) for item in items] if items else []
        return array.reshape(shape)
    if tag == "$real" and trusted and isinstance(body, str):
        return Real(body)
    if tag == "$helper" and trusted:
        from . import helpers as given

        name, state = body
        return given.rebuild(name, from_plain(state, depth=depth + 1))
    raise CodecError(tag, f"a value tagged {tag} cannot be read here")


def _key(value: Any) -> Any:
    if isinstance(value, (list, set)):
        raise CodecError("dict key", "malformed dict key")
    return value


def dumps(value: Any) -> bytes:
    """`value` encoded as UTF-8 JSON bytes."""
    text = json.dumps(to_plain(value), separators=(",", ":"), allow_nan=False)
    if len(text) > MAX_BYTES:
        raise CodecError(type(value).__name__, f"the value is larger than {MAX_BYTES // 2**20} MB")
    return text.encode("utf-8")


def loads(raw: bytes, *, trusted: bool = False) -> Any:
    """Decode `dumps` output; raises CodecError on anything malformed or not allowed."""
    if len(raw) > MAX_BYTES:
        raise CodecError("message", "the message is too large")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise CodecError("message", f"malformed message: {error}") from None
    try:
        return from_plain(data, trusted=trusted)
    except CodecError:
        raise
    except (TypeError, ValueError, KeyError, RecursionError, OverflowError) as error:
        raise CodecError("message", f"malformed message: {type(error).__name__}") from None
