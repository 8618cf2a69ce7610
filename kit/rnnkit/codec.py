"""The safe codec for values that cross between the grader and the sandboxed runner.

Plain JSON with tagged objects; nothing is pickled or evaluated, and no method of a student's
class is called: every value is read through its base type's own data (`tuple.__iter__`,
`dict.items`, `float.__float__`, ...). The given helpers of `rnnkit.helpers` (the `step` and loss
callables that checks hand to a student function) travel by name and state, and so do `Real`
references; both are read only where `trusted=True` (data the grader wrote), never when the grader
reads a student's result.

The values the course accepts (the contract; the self-check reads a result the same way before
comparing it, so it gives the grader's verdict): None, bool, int, float (NaN and infinities
included), str and `Fraction`; lists, tuples, dicts and sets of accepted values, nested at most 64
deep; numpy arrays of bool, integer, float or str dtype, and object arrays of accepted values. A
set or dict holds at most 100000 items, and only few of them may share a hash value. A
subclass of a built-in type is read as that type, from its data alone: a namedtuple or NamedTuple
is a plain tuple, an OrderedDict or defaultdict a plain dict, a str, int or float subclass a plain
str, int or float; whatever methods it overrides are never called. numpy scalars are the plain
value they hold (`str_` a str, `bool_` a bool, integer kinds an int, floating kinds a float), a
SymPy Rational is a Fraction and a SymPy Float a float. Anything else (complex numbers, Fraction
subclasses, bytes, objects of your own classes, integers of more than 10000 bits) fails its case,
with its type named.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .compare import Real

#: At most this many bytes in one encoded message, this many leaves in one array, this depth of
#: nesting, and this many bits in one integer (JSON carries at most 4300 digits).
MAX_BYTES = 32 * 1024 * 1024
MAX_ITEMS = 2_000_000
MAX_DEPTH = 64
MAX_INT_BITS = 10_000
#: At most this many items in one set or dict, and at most this many of them sharing a hash value
#: with another: items built to share one (ints that differ by multiples of 2**61 - 1, say) make
#: building the set take time that grows with the square of its size.
MAX_KEYS = 100_000
MAX_SHARED_HASHES = 16

_ARRAY_KINDS = {"b": "bool", "i": "int64", "u": "int64", "f": "float64"}
_INT64_MAX = np.iinfo(np.int64).max


class CodecError(ValueError):
    """A value that may not cross the boundary; `type_name` names the offending type."""

    def __init__(self, type_name: str, detail: str = ""):
        super().__init__(detail or f"a value of type {type_name} cannot be graded")
        self.type_name = type_name


def _type_name(kind: type) -> str:
    return (
        kind.__qualname__ if kind.__module__ in ("builtins", "__main__") else f"{kind.__module__}.{kind.__qualname__}"
    )


def _float(value: float) -> Any:
    return value if math.isfinite(value) else {"$float": repr(value)}


def _int(value: int) -> int:
    if value.bit_length() > MAX_INT_BITS:
        raise CodecError("int", f"an integer of more than {MAX_INT_BITS} bits cannot be graded")
    return value


def _items(values, depth: int) -> list:
    return [to_plain(item, depth + 1) for item in values]


def _spread(keys: list, kind: str) -> list:
    """The keys of one set or dict, as the grader reads them; refused when there are more than
    MAX_KEYS, or more than MAX_SHARED_HASHES share a hash value with another (each hashed once,
    before any set or dict is built of them)."""
    if len(keys) > MAX_KEYS:
        raise CodecError(kind, f"a {kind} of {len(keys)} items is too large to be graded (at most {MAX_KEYS})")
    if len(keys) - len({hash(key) for key in keys}) > MAX_SHARED_HASHES:
        raise CodecError(
            kind, f"a {kind} whose {'keys' if kind == 'dict' else 'items'} share too few hash values cannot be graded"
        )
    return keys


def _read_keys(keys: list, kind: str) -> None:
    """Refuse the encoded keys of a set or dict that the grader would refuse (`_spread`); a plain
    scalar reads back as itself."""
    _spread([key if type(key) in _SCALARS else from_plain(key, trusted=True) for key in keys], kind)


#: Types whose encoded value is the value itself.
_SCALARS = (str, int, float, bool, type(None))


def _set(values, depth: int) -> dict:
    items = _items(values, depth)
    _read_keys(items, "set")
    return {"$set": sorted(items, key=repr)}


def _dict(value: dict, depth: int) -> dict:
    pairs = [[to_plain(k, depth + 1), to_plain(v, depth + 1)] for k, v in dict.items(value)]
    _read_keys([key for key, _ in pairs], "dict")
    return {"$dict": pairs}


def _array(value: np.ndarray, depth: int) -> Any:
    array = np.ndarray.view(value, np.ndarray)  # a subclass, read as the plain array it holds
    kind = array.dtype.kind
    if array.size > MAX_ITEMS:
        raise CodecError("numpy array", f"an array of {array.size} items is too large to be graded")
    if kind in "OU" or (kind == "u" and array.size and int(array.max()) > _INT64_MAX):
        return {"$objects": [list(array.shape), _items(array.ravel().tolist(), depth)]}
    if kind not in _ARRAY_KINDS:
        raise CodecError(
            f"numpy array of dtype {array.dtype}",
            f"an array of dtype {array.dtype} cannot be graded; use float, int or bool",
        )
    flat = array.astype(_ARRAY_KINDS[kind]).ravel().tolist()
    if kind == "f":
        flat = [_float(x) for x in flat]
    return {"$array": {"dtype": _ARRAY_KINDS[kind], "shape": list(array.shape), "data": flat}}


def _sympy(value: Any, depth: int) -> Any:
    """A SymPy Rational as a Fraction, a SymPy Float as a float (duck-typed: no import)."""
    if getattr(value, "is_Rational", False) and type(value.p) is int and type(value.q) is int:
        return to_plain(Fraction(value.p, value.q), depth)
    if getattr(value, "is_Float", False):
        return to_plain(float(value), depth)
    raise CodecError(_type_name(type(value)))


def _helper(value: Any, depth: int) -> Any:
    return {"$helper": [type(value).codec_name, to_plain(value.codec_state(), depth + 1)]}


Encoder = Callable[[Any, int], Any]

#: Built-in types and how their data is read, for the type itself and for any subclass (the first
#: of these it derives from): through the base type's own methods, never the subclass's. (A `Real`
#: is read through its digits, and only where trusted.)
_BASES: dict[type, Encoder] = {
    type(None): lambda value, depth: None,
    bool: lambda value, depth: value,  # bool cannot be subclassed
    int: lambda value, depth: _int(int.__int__(value)),
    float: lambda value, depth: _float(float.__float__(value)),
    str: lambda value, depth: str.__str__(value),
    list: lambda value, depth: _items(list.__iter__(value), depth),
    tuple: lambda value, depth: {"$tuple": _items(tuple.__iter__(value), depth)},
    set: lambda value, depth: _set(set.__iter__(value), depth),
    frozenset: lambda value, depth: _set(frozenset.__iter__(value), depth),
    dict: _dict,
    np.ndarray: _array,
    Real: lambda value, depth: {"$real": str(value.digits)},  # the grader's references (read only where trusted)
}


def _numpy_scalar(convert: type) -> Encoder:
    return lambda value, depth: to_plain(convert(value), depth)


_NUMPY_SCALARS = {"b": bool, "i": int, "u": int, "f": float, "U": str}

#: Types read only as themselves (a subclass of one of these is refused): Fractions, and numpy's
#: own scalar types as the plain value they hold.
_EXACT: dict[type, Encoder] = {
    Fraction: lambda value, depth: {"$fraction": [_int(value.numerator), _int(value.denominator)]},
    **{
        np.dtype(code).type: _numpy_scalar(_NUMPY_SCALARS[np.dtype(code).kind])
        for code in np.typecodes["All"]
        if np.dtype(code).kind in _NUMPY_SCALARS
    },
}


def _encoder(kind: type) -> Encoder | None:
    found = (
        _EXACT.get(kind)
        or _BASES.get(kind)
        or next((encode for base, encode in _BASES.items() if issubclass(kind, base)), None)
    )
    if found is not None:
        return found
    if kind.__module__.startswith("sympy."):
        return _sympy
    if kind.__module__ == "rnnkit.helpers" and isinstance(getattr(kind, "codec_name", None), str):
        return _helper
    return None


def to_plain(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-ready data; raises CodecError for anything the course does not accept."""
    if depth > MAX_DEPTH:
        raise CodecError("nested value", "the value is nested too deeply to be graded")
    kind = type(value)
    try:
        encode = _encoder(kind)
        if encode is not None:
            return encode(value, depth)
    except CodecError:
        raise
    except Exception:  # a value whose own data cannot be read (a broken SymPy look-alike, say)
        pass
    raise CodecError(_type_name(kind))


class Decoded:
    """A value the grader has already read from a runner's reply (`from_plain`), which `plain`
    returns as it is: a result is decoded once."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


def plain(value: Any) -> Any:
    """A student's result as the grader reads it, `from_plain(to_plain(value))`: what the
    self-check compares (a `Decoded` value is that already). Raises CodecError for a value the
    course does not accept."""
    if type(value) is Decoded:
        return value.value
    return from_plain(to_plain(value))


def from_plain(data: Any, *, trusted: bool = False) -> Any:
    """The value that `to_plain` encoded. `trusted` (data the grader wrote) also allows given
    helpers to be rebuilt and `Real` references to be read. Anything malformed raises CodecError."""
    try:
        return _decode(data, trusted, 0)
    except CodecError:
        raise
    except (TypeError, ValueError, LookupError, AttributeError, RecursionError, ArithmeticError) as error:
        raise CodecError("message", f"malformed message: {type(error).__name__}") from None


def _decode(data: Any, trusted: bool, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CodecError("nested value", "the value is nested too deeply to be graded")
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return [_decode(item, trusted, depth + 1) for item in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise CodecError(type(data).__name__, "malformed message")
    ((tag, body),) = data.items()
    decoder = _DECODERS.get(tag)
    if decoder is None or (tag in _TRUSTED_ONLY and not trusted):
        raise CodecError(tag, f"a value tagged {tag} cannot be read here")
    return decoder(body, trusted, depth)


def _special_float(body, trusted: bool, depth: int) -> float:
    if body not in ("nan", "inf", "-inf"):
        raise CodecError("float", "malformed float")
    return float(body)


def _fraction(body, trusted: bool, depth: int) -> Fraction:
    numerator, denominator = body
    if type(numerator) is not int or type(denominator) is not int or denominator == 0:
        raise CodecError("Fraction", "malformed fraction")
    return Fraction(numerator, denominator)


def _shape(shape, count: int) -> tuple[int, ...]:
    """An array's shape, checked against its number of items."""
    if not all(type(n) is int and n >= 0 for n in shape) or math.prod(shape) != count or count > MAX_ITEMS:
        raise CodecError("numpy array", "malformed array")
    return tuple(shape)


def _numbers(body, trusted: bool, depth: int) -> np.ndarray:
    dtype, flat = body["dtype"], body["data"]
    if dtype not in _ARRAY_KINDS.values():
        raise CodecError("numpy array", "malformed array")
    shape = _shape(body["shape"], len(flat))
    values = [float(x["$float"]) if isinstance(x, dict) else x for x in flat] if dtype == "float64" else flat
    return np.array(values, dtype=dtype).reshape(shape)


def _objects(body, trusted: bool, depth: int) -> np.ndarray:
    shape, items = body
    shape = _shape(shape, len(items))
    array = np.empty(len(items), dtype=object)
    for index, item in enumerate(items):  # one by one: an item that is a list stays one item
        array[index] = _decode(item, trusted, depth + 1)
    return array.reshape(shape)


def _real(body, trusted: bool, depth: int) -> Real:
    if not isinstance(body, str):
        raise CodecError("$real", "a value tagged $real cannot be read here")
    return Real(body)


def _given(body, trusted: bool, depth: int) -> Any:
    from . import helpers as given

    name, state = body
    return given.rebuild(name, _decode(state, False, depth + 1))


#: How each tag of `to_plain`'s output is read back: decoder(body, trusted, depth).
_DECODERS: dict[str, Callable[[Any, bool, int], Any]] = {
    "$float": _special_float,
    "$fraction": _fraction,
    "$tuple": lambda body, trusted, depth: tuple(_decode(item, trusted, depth + 1) for item in body),
    "$set": lambda body, trusted, depth: set(_spread([_decode(item, trusted, depth + 1) for item in body], "set")),
    "$dict": lambda body, trusted, depth: dict(
        zip(
            _spread([_decode(k, trusted, depth + 1) for k, _ in body], "dict"),
            [_decode(v, trusted, depth + 1) for _, v in body],
        )
    ),
    "$array": _numbers,
    "$objects": _objects,
    "$real": _real,
    "$helper": _given,
}
#: Tags read only from data the grader wrote (`trusted`): references and the given helpers.
_TRUSTED_ONLY = {"$real", "$helper"}


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
    return from_plain(data, trusted=trusted)
