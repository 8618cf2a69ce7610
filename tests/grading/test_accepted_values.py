"""One notion of a value the course accepts (`rnnkit.codec`), shared by the self-check and the grader.

The self-check judges the student's value in the student's own process; the grader judges what the
runner encoded (`codec.to_plain`), sent as JSON, and the grader decoded (`codec.from_plain`). Both
go through `rnnkit.checking.run_cases`, which reads every result as the grader does, so the two
verdicts agree on every value: namedtuples, mappings, numpy scalars and arrays, and hostile
subclasses, which are read by their base type's data only.
"""

import json
import re
import typing
from collections import OrderedDict, defaultdict, namedtuple
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.assignments import get
from autograder.grading import checks
from rnnkit import codec
from rnnkit.checking import Case, Rules, StudentFailure, run_cases
from rnnkit.compare import Real
from rnnkit.selfcheck import selfcheck

from ..attempts import attempt

ch11_rnn_state, ch12_bptt, ch12_gates = (get(name).solution() for name in ("ch11_rnn_state", "ch12_bptt", "ch12_gates"))


def through_codec(fn):
    """`fn` as the grader calls it: the runner encodes the result, JSON carries it, the grader decodes it."""

    def remote(*args, **kwargs):
        value = fn(*args, **kwargs)
        try:  # an unreadable value is a failure on either side (rnnkit.runner._call, autograder.sandbox.session.RemoteFunction)
            return codec.from_plain(json.loads(json.dumps(codec.to_plain(value), allow_nan=False)))
        except codec.CodecError as error:
            raise StudentFailure("check.unreadable_result", detail=str(error)) from None

    return remote


def verdicts(value, expected, rules=Rules()):
    """(the self-check's, the grader's) outcome for a function returning `value` where `expected` is right."""

    def returns():
        return value

    def outcome(fn):
        (result,) = run_cases("test", "answer", fn, [(Case(label="case"), True, expected)], rules, timeout=0).results
        return result.ok, result.message

    return outcome(returns), outcome(through_codec(returns))


def agree(value, expected, rules=Rules()) -> bool:
    """The verdict both give (asserting that they are the same)."""
    own, graded = verdicts(value, expected, rules)
    assert own == graded, (value, expected, own, graded)
    return own[0]


# --------------------------------------------------------------------------- the course's functions


def both_reports(assignment, name, fn):
    """The notebook's self-check of `fn` (public cases, in process) and the grader's report (public and
    hidden cases, the result through the codec)."""
    check = get(assignment).check(name)
    return selfcheck(assignment, name, fn), checks.grade(
        get(assignment), check, through_codec(fn), attempt=attempt("s1"), hidden=3, timeout=0, points=1
    )


def assert_full_marks(assignment, name, fn):
    own, graded = both_reports(assignment, name, fn)
    assert own.passed == len(own.results), own.lines(graded=False)
    assert graded.score == 1, graded.lines(graded=True)


def test_a_namedtuple_from_lstm_cell_update_earns_its_points():
    LSTMOut = namedtuple("LSTMOut", "c h")
    assert_full_marks(
        "ch12_gates", "lstm_cell_update", lambda *args, **kwargs: LSTMOut(*ch12_gates.lstm_cell_update(*args, **kwargs))
    )


def test_a_typing_namedtuple_from_lstm_step_earns_its_points():
    class Step(typing.NamedTuple):
        h: np.ndarray
        c: np.ndarray
        gates: dict

    assert_full_marks("ch12_gates", "lstm_step", lambda *args, **kwargs: Step(*ch12_gates.lstm_step(*args, **kwargs)))


def test_a_defaultdict_from_bptt_scalar_earns_its_points():
    assert_full_marks(
        "ch12_bptt", "bptt_scalar", lambda *args, **kwargs: defaultdict(list, ch12_bptt.bptt_scalar(*args, **kwargs))
    )


def test_an_ordered_dict_per_step_from_run_rnn_earns_its_points():
    def run_rnn(token_ids, model):
        return [OrderedDict(step) for step in ch11_rnn_state.run_rnn(token_ids, model)]

    assert_full_marks("ch11_rnn_state", "run_rnn", run_rnn)


def test_a_numpy_string_from_choose_earns_its_points():
    def choose(probs, candidates):
        return np.array(candidates)[np.argmax(probs)]

    assert_full_marks("ch11_rnn_state", "choose", choose)


def test_a_400_digit_int_fails_its_cases_only():
    own, graded = both_reports("ch12_bptt", "sgd_update", lambda w, grad, lr: 10**400)
    assert own.passed == 0 and graded.score == 0
    assert all("1000000000" in result.message for result in graded.results)
    assert_full_marks("ch12_bptt", "sgd_update", ch12_bptt.sgd_update)  # the next check is graded as usual


# --------------------------------------------------------------------------- examples


def test_what_the_codec_makes_of_each_accepted_kind():
    Point = namedtuple("Point", "x y")
    assert type(codec.plain(Point(1, 2))) is tuple and codec.plain(Point(1, 2)) == (1, 2)
    assert type(codec.plain(OrderedDict(a=1))) is dict and type(codec.plain(defaultdict(int, a=1))) is dict
    for value, kind in [
        (np.str_("red"), str),
        (np.bool_(True), bool),
        (np.int8(-3), int),
        (np.uint64(2**64 - 1), int),
        (np.float32(0.5), float),
        (np.float16(0.5), float),
        (np.longdouble(0.5), float),
    ]:
        assert type(codec.plain(value)) is kind and codec.plain(value) == value
    assert codec.plain(sp.Rational(1, 3)) == Fraction(1, 3) and type(codec.plain(sp.Float(0.5))) is float
    assert codec.plain(np.array(["red", "blue"])).tolist() == ["red", "blue"]
    assert codec.plain(np.array([2**64 - 1], dtype=np.uint64)).tolist() == [2**64 - 1]


@pytest.mark.parametrize(
    "value, named",
    [
        (1j, "complex"),
        (np.complex128(1), "complex128"),
        (b"red", "bytes"),
        (object(), "object"),
        (np.datetime64("2020-01-01"), "datetime64"),
        (2**20_000, "10000 bits"),
        (Fraction(1, 2**20_000), "10000 bits"),
        (np.array([1j]), "complex128"),
        (Real("0.5"), "$real"),
    ],
    ids=lambda value: type(value).__name__,
)
def test_anything_else_fails_its_case_with_its_type_named(value, named):
    own, graded = verdicts(value, Fraction(1, 2))
    assert own == graded and not own[0] and named in own[1]


def test_nesting_deeper_than_the_limit_fails_its_case():
    value = 0
    for _ in range(codec.MAX_DEPTH + 1):
        value = [value]
    assert not agree(value, 0)


def test_an_exact_value_follows_the_checks_rtol():
    near = Fraction(3, 4) + Fraction(1, 10**8)
    assert not agree(near, Fraction(3, 4))
    assert agree(near, Fraction(3, 4), Rules(rtol=1e-6))
    assert not agree(Fraction(3, 4) + Fraction(1, 10**5), Fraction(3, 4), Rules(rtol=1e-6))


# --------------------------------------------------------------------------- hostile subclasses


class LyingTuple(tuple):
    def __iter__(self):
        return iter((Fraction(1, 2), Fraction(1, 4)))

    def __getitem__(self, index):
        return (Fraction(1, 2), Fraction(1, 4))[index]

    def __eq__(self, other):
        return True

    __hash__ = tuple.__hash__


class LyingList(list):
    def __iter__(self):
        return iter([Fraction(1, 2), Fraction(1, 4)])

    def __len__(self):
        return 2


class LyingDict(dict):
    def items(self):
        return {"grad": Fraction(1, 2)}.items()

    def keys(self):
        return {"grad": 0}.keys()

    def __getitem__(self, key):
        return Fraction(1, 2)

    def __contains__(self, key):
        return True

    def __eq__(self, other):
        return True

    __hash__ = None


class WeirdStr(str):
    def __str__(self):
        return "red"

    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class LyingFloat(float):
    def __float__(self):
        return 0.5

    def __eq__(self, other):
        return True

    def __sub__(self, other):
        return 0.0

    __hash__ = float.__hash__


class LyingInt(int):
    def __eq__(self, other):
        return True

    def __int__(self):
        return 3

    def __index__(self):
        return 3

    __hash__ = int.__hash__


class LyingFloat64(np.float64):
    def __float__(self):
        return 0.5


class LyingArray(np.ndarray):
    def tolist(self):
        return [0.5, 0.25]

    def __getitem__(self, index):
        return np.array([0.5, 0.25])[index]


class Everything(Fraction):
    def __eq__(self, other):
        return True

    __hash__ = Fraction.__hash__


class FakeSympy:
    """Claims to be a SymPy Rational, and raises when read."""

    __module__ = "sympy.core.numbers"
    is_Rational = True

    @property
    def p(self):
        raise RuntimeError("no")


HOSTILE = {
    "tuple whose __iter__ and __eq__ lie": (LyingTuple((0, 0)), (Fraction(1, 2), Fraction(1, 4))),
    "list whose __iter__ lies": (LyingList([0, 0]), [Fraction(1, 2), Fraction(1, 4)]),
    "dict whose items, keys and lookups lie": (LyingDict(loss=0), {"grad": Fraction(1, 2)}),
    "str whose __str__ and __eq__ lie": (WeirdStr("blue"), "red"),
    "float whose __float__, __eq__ and __sub__ lie": (LyingFloat(0.1), Fraction(1, 2)),
    "int whose __eq__ and __int__ lie": (LyingInt(7), 3),
    "float64 whose __float__ lies": (LyingFloat64(0.1), Fraction(1, 2)),
    "array whose tolist and indexing lie": (
        np.zeros(2).view(LyingArray),
        np.array([Fraction(1, 2), Fraction(1, 4)], dtype=object),
    ),
    "Fraction equal to everything": (Everything(1), Fraction(1, 2)),
    "SymPy look-alike": (FakeSympy(), Fraction(1, 2)),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_subclass_earns_nothing_in_either_verdict(name):
    value, expected = HOSTILE[name]
    assert not agree(value, expected)


@pytest.mark.parametrize(
    "value, data",
    [
        (LyingTuple((0, 0)), (0, 0)),
        (LyingDict(loss=0), {"loss": 0}),
        (WeirdStr("blue"), "blue"),
        (LyingFloat(0.1), 0.1),
        (LyingInt(7), 7),
        (LyingFloat64(0.1), 0.1),
    ],
)
def test_a_subclass_is_read_by_its_base_type_data(value, data):
    read = codec.plain(value)
    assert type(read) is type(data) and read == data
    assert agree(value, data)


# --------------------------------------------------------------------------- property: the verdicts agree

small = st.fractions(min_value=-100, max_value=100, max_denominator=1000)
huge = st.integers(min_value=10**300, max_value=10**420) | st.integers(min_value=2**10_000, max_value=2**10_050)
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@st.composite
def number_pairs(draw):
    """(a student value, a reference, sound): `sound` when the value is a faithful form of the
    reference (right under the default rules)."""
    kind = draw(st.sampled_from(["fraction", "int", "real", "odd"]))
    if kind == "fraction":
        f = draw(small)
        forms = [
            (f, True),
            (sp.Rational(f.numerator, f.denominator), True),
            (float(f), True),
            (np.float64(f), True),
            (np.float32(f), False),
            (f + 1, False),
        ]
        value, sound = draw(st.sampled_from(forms))
        return value, f, sound
    if kind == "int":
        n = draw(st.integers(-100, 100))
        forms = [
            (n, True),
            (np.int64(n), True),
            (np.int16(n), True),
            (sp.Integer(n), True),
            (Fraction(n), True),
            (float(n), True),
            (np.float64(n), True),
            (n + 1, False),
        ]
        if n >= 0:
            forms.append((np.uint8(n), True))
        value, sound = draw(st.sampled_from(forms))
        return value, draw(st.sampled_from([n, Fraction(n)])), sound
    if kind == "real":
        x = draw(finite)
        value, sound = draw(
            st.sampled_from([(x, True), (np.float64(x), True), (sp.Float(x), True), (np.float32(x), False)])
        )
        return value, Real(repr(x)), sound
    odd = draw(
        st.sampled_from(
            [
                huge,
                st.fractions(min_value=-1, max_value=1, max_denominator=10**400),
                st.sampled_from([float("nan"), float("inf"), -float("inf")]),
                st.sampled_from(
                    [
                        1j,
                        b"x",
                        None,
                        np.complex64(1),
                        np.datetime64(1, "D"),
                        Everything(1),
                        LyingInt(1),
                        LyingFloat(0.5),
                    ]
                ),
            ]
        )
    )
    return odd, draw(small | st.just(Real("0.75"))), False


@st.composite
def leaf_pairs(draw):
    kind = draw(st.sampled_from(["number", "number", "str", "bool"]))
    if kind == "number":
        return draw(number_pairs())
    if kind == "str":
        s = draw(st.sampled_from(["red", "blue", ""]))
        value, sound = draw(st.sampled_from([(s, True), (np.str_(s), True), (WeirdStr(s), True), (s + "!", False)]))
        return value, s, sound
    b = draw(st.booleans())
    value, sound = draw(st.sampled_from([(b, True), (np.bool_(b), True), (int(b), False)]))
    return value, b, sound


def numbers_as_array(items):
    """A numpy array of the values when they are all plain numbers of the same exactness, else None."""
    if items and all(isinstance(v, float) for v in items):
        return np.array(items, dtype=float)
    if items and all(isinstance(v, Fraction) for v in items):
        return np.array(items, dtype=object)
    return None


@st.composite
def containers(draw, children):
    pairs = draw(st.lists(children, max_size=4))
    values, refs = [v for v, _, _ in pairs], [r for _, r, _ in pairs]
    sound = all(s for _, _, s in pairs)
    shape = draw(
        st.sampled_from(["list", "tuple", "namedtuple", "NamedTuple", "dict", "OrderedDict", "defaultdict", "array"])
    )
    if shape in ("list", "tuple", "array"):
        array = numbers_as_array(values) if shape == "array" else None
        if array is not None and all(isinstance(r, Fraction) for r in refs):
            return array, np.array(refs, dtype=object), sound
        return (values if shape == "list" else tuple(values)), (refs if draw(st.booleans()) else tuple(refs)), sound
    names = [f"f{i}" for i in range(len(pairs))]
    if shape == "namedtuple":
        return namedtuple("Out", names)(*values), tuple(refs), sound
    if shape == "NamedTuple":
        return typing.NamedTuple("Out", [(name, typing.Any) for name in names])(*values), tuple(refs), sound
    value = dict(zip(names, values))
    value = {"dict": dict, "OrderedDict": OrderedDict, "defaultdict": lambda v: defaultdict(list, v)}[shape](value)
    return value, dict(zip(names, refs)), sound


values_and_references = st.recursive(leaf_pairs(), containers, max_leaves=12)
rules = st.sampled_from([Rules(), Rules(exact=True), Rules(rtol=1e-6)])


@settings(max_examples=300, deadline=None)
@given(values_and_references, rules)
def test_the_self_check_and_the_grader_give_the_same_verdict(pair, rule):
    value, expected, sound = pair
    ok = agree(value, expected, rule)
    if sound and rule == Rules():
        assert ok, (value, expected)


choices = st.sampled_from(["a", "b"])
set_pairs = st.tuples(st.frozensets(choices), st.frozensets(choices)).flatmap(
    lambda sets: st.sampled_from([set(sets[0]), frozenset(sets[0]), sorted(sets[0])]).map(
        lambda value: (value, sets[1])
    )
)


@given(set_pairs)
def test_sets_of_choices_get_the_same_verdict(pair):
    value, expected = pair
    assert agree(value, expected) is (set(value) == expected)


# --------------------------------------------------------------------------- the grader's side of the wire

tags = st.sampled_from(
    ["$float", "$fraction", "$tuple", "$set", "$dict", "$array", "$objects", "$real", "$helper", "x"]
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
    | tags,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(tags | st.text(max_size=2), children, max_size=2)
        | st.dictionaries(st.sampled_from(["dtype", "shape", "data"]), children, max_size=3).map(
            lambda body: {"$array": body}
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(json_values, st.booleans())
def test_the_grader_reads_any_message_without_raising_anything_but_a_codec_error(data, trusted):
    try:
        codec.from_plain(data, trusted=trusted)
    except codec.CodecError:
        pass


@pytest.mark.parametrize(
    "forged",
    [
        {"$real": "0.5"},
        {"$helper": ["ScalarLoss", {"$dict": []}]},
        {"$tuple": [1, {"$real": "0.25"}]},
        {"$dict": [["w", {"$helper": ["ScalarLoss", None]}]]},
    ],
)
def test_a_runners_reply_cannot_forge_a_reference_or_a_given_helper(forged):
    """What a student's process sends is read untrusted: a `Real` (how references are stored) or a
    rebuilt helper, even nested, is refused by name, never read as one."""
    tag = "$real" if "$real" in json.dumps(forged) else "$helper"
    with pytest.raises(codec.CodecError, match=re.escape(f"a value tagged {tag} cannot be read here")):
        codec.from_plain(forged)
    assert codec.from_plain({"$real": "0.5"}, trusted=True) == Real("0.5")  # the grader's own data is read
