"""What a submission can make the grader keep or spend: output per cell and per submission, enforced
by the grader whatever the runner was told (`autograder.sandbox.replies`), and results whose decoding or
comparison a student could make slow (`rnnkit.codec`, `rnnkit.compare`), refused quickly and on the
submission's budget, with the self-check judging them as the grader does."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from autograder.sandbox.replies import OUTPUT_OVERHEAD, RUNNER_ALLOWANCE, output_size
from autograder.sandbox.session import Session
from rnnkit import codec
from rnnkit.checking import Case, Rules, StudentFailure, run_cases
from rnnkit.compare import compare, show
from rnnkit.figures import MARKER
from rnnkit.jail.limits import Limits

LIMITS = Limits(CELL_TIMEOUT=60)
CELL = LIMITS.OUTPUT_LIMIT_KB * 1024
TOTAL = LIMITS.OUTPUT_TOTAL_KB * 1024
#: At most this many bytes (`output_size`) of a note a cell gets in place of outputs.
NOTE = 400
P = 2**61 - 1  # ints that differ by a multiple of it share a hash value
#: Ints of one hash value: as many as a student can send (built into a set, they take seconds), and
#: as many as the tests build in a set themselves (a few milliseconds).
SENT, BUILT = [k * P for k in range(1, 20_000)], {k * P for k in range(1, 2_000)}
#: Functions whose results reach the grader as set and dict data of 20000 ints of one hash value:
#: the runner's encoding replaced (student code in the runner can), so it sends what they return.
SENDING_CELL = f"""
import rnnkit.codec
rnnkit.codec.to_plain = lambda value, depth=0: value
def colliding_set():
    return {{"$set": [k * {P} for k in range(1, 20_000)]}}
def colliding_dict():
    return {{"$dict": [[k * {P}, 0] for k in range(1, 20_000)]}}
"""


#: A figure the grader holds, of 100 KB.
KEY = "ab" * 32
KNOWN = {KEY: "K" * 100_000}


@pytest.fixture
def session(tmp_path):
    with Session(tmp_path, LIMITS, "en", KNOWN) as opened:
        yield opened


def kept(outputs: list) -> int:
    return sum(map(output_size, outputs))


def text(outputs: list) -> str:
    return "".join(output.get("text", "") for output in outputs)


# ----------------------------------------------------------------------------- output


def test_a_cell_that_raises_the_runners_limit_is_cut_by_the_grader(session):
    outputs = session.run_cell(
        "import rnnkit.output_limits\nrnnkit.output_limits._state.active.limit = 1 << 30\nprint('x' * (8 << 20))"
    )
    assert kept(outputs) <= CELL + RUNNER_ALLOWANCE + NOTE
    assert text(outputs).count("x") > CELL - 1024
    assert outputs[-1].text == f"[output truncated: this cell printed more than {LIMITS.OUTPUT_LIMIT_KB} KB]\n"


def test_images_count_and_a_flood_of_outputs_is_cut(session):
    outputs = session.run_cell(
        "import rnnkit.output_limits\nrnnkit.output_limits._state.active.limit = 1 << 30\n"
        "from IPython.display import Image, display\n"
        "for _ in range(40):\n    display(Image(data=b'\\x89PNG' + b'0' * 100_000, format='png'))"
    )
    assert kept(outputs) <= CELL + RUNNER_ALLOWANCE + NOTE and "[output truncated" in outputs[-1].text
    assert 0 < sum("image/png" in output.get("data", {}) for output in outputs) < 40


def test_a_figure_the_grader_puts_back_counts_at_its_size(session):
    outputs = session.run_cell(
        f"for _ in range(40):\n    display({{'image/png': '{MARKER}{KEY}', 'text/plain': 'figure'}}, raw=True)"
    )
    assert kept(outputs) <= CELL + RUNNER_ALLOWANCE + NOTE and "[output truncated" in outputs[-1].text
    assert sum(output.get("data", {}).get("image/png") == KNOWN[KEY] for output in outputs) == 2


def test_many_cells_just_under_the_limit_stay_within_the_total(session):
    outputs = [session.run_cell(f"print('x' * {CELL - 1024})") for _ in range(100)]
    assert kept([o for cell in outputs for o in cell]) <= TOTAL + 100 * NOTE
    whole = [cell for cell in outputs if "[output dropped" not in text(cell)]
    assert len(whole) == TOTAL // (CELL - 1024 + 1 + OUTPUT_OVERHEAD) and all(len(cell) == 1 for cell in outputs)
    assert outputs[-1][0].text.startswith("[output dropped:") and f"{LIMITS.OUTPUT_TOTAL_KB} KB" in outputs[-1][0].text
    assert session.run_cell("x = 1") == []  # a cell without outputs loses nothing


def test_replayed_cells_are_counted_once(session):
    first = session.run_cell("print('a' * 100_000)")
    assert session.run_cell("import os\nos._exit(1)")[0].ename == "KernelDied"
    again = session.run_cell("print('b' * 100_000)")  # on a new runner, after the first cell's replay
    assert session.output_left == TOTAL - kept(first) - kept(again)


# ----------------------------------------------------------------------------- values


class _Clock:
    """The session's clock (`Session._ask` times each request with it), which the test can move on."""

    def __init__(self):
        self.offset = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.offset


#: Seconds the session's clock moves on while the grader reads a result's keys: counted as spent
#: only where that reading is charged to the submission's budget.
READING = 1000.0


def _hashes_counted(monkeypatch) -> list:
    """Calls of `hash` made by the codec, one item each (the keys it hashed)."""
    hashed = []

    def counted(key):
        hashed.append(None)
        return hash(key)

    monkeypatch.setattr(codec, "hash", counted, raising=False)  # shadows the builtin for `rnnkit.codec` only
    return hashed


def _spread_watched(monkeypatch, hashed: list, during=lambda: None) -> list:
    """Each call of `codec._spread` (the check of a set's or dict's keys, before one is built of
    them): (number of keys, hashes it computed, whether it refused them). `during` runs inside it."""
    calls = []
    spread = codec._spread

    def watched(keys, kind):
        during()
        before = len(hashed)
        try:
            kept = spread(keys, kind)
        except codec.CodecError:
            calls.append((len(keys), len(hashed) - before, "refused"))
            raise
        calls.append((len(keys), len(hashed) - before, "kept"))
        return kept

    monkeypatch.setattr(codec, "_spread", watched)
    return calls


def _refused_on_the_budget(fn, session: Session, match: str, monkeypatch) -> None:
    """Calling `fn` fails as an unreadable result: the grader hashes each of the reply's keys once
    and refuses them before any set or dict is built of them (the set or dict is built of what
    `_spread` returns), and that reading is charged to the submission's budget (the session's clock,
    moved on during the reading, counts it as spent)."""
    from autograder.sandbox import session as session_module

    clock = _Clock()
    monkeypatch.setattr(session_module, "time", clock)
    hashed = _hashes_counted(monkeypatch)
    spread = _spread_watched(monkeypatch, hashed, during=lambda: setattr(clock, "offset", clock.offset + READING))
    spent = session.spent
    with pytest.raises(StudentFailure) as failure:
        fn()
    assert failure.value.message_id == "check.unreadable_result" and match in failure.value.fields["detail"]
    assert [call for call in spread if call[0]] == [(len(SENT), len(SENT), "refused")]  # (the call's own empty kwargs)
    assert session.spent - spent >= READING


@pytest.mark.parametrize(
    "name, match",
    [
        ("colliding_set", "a set whose items share too few hash values"),
        ("colliding_dict", "a dict whose keys share too few hash values"),
    ],
)
def test_a_colliding_result_is_refused_quickly_on_the_budget(session, name, match, monkeypatch):
    assert session.run_cell(SENDING_CELL) == []
    _refused_on_the_budget(session.function(name, timeout=10), session, match, monkeypatch)


def test_decoding_a_result_is_counted_against_the_budget(session, monkeypatch):
    session.run_cell("def answer():\n    return [1, 2]")
    decode = codec.from_plain

    def slow(data, **kwargs):
        time.sleep(0.5)
        return decode(data, **kwargs)

    monkeypatch.setattr(codec, "from_plain", slow)
    spent = session.spent
    assert codec.plain(session.function("answer", timeout=10)()) == [1, 2]
    assert session.spent - spent >= 0.5


def test_a_result_from_the_runner_is_decoded_once(session, monkeypatch):
    session.run_cell("def answer():\n    return {'h': [Fraction(1, 2)]}\nfrom fractions import Fraction")
    decoded = []
    decode = codec.from_plain
    monkeypatch.setattr(codec, "from_plain", lambda data, **kwargs: decoded.append(data) or decode(data, **kwargs))
    report = run_cases(
        "test",
        "answer",
        session.function("answer", timeout=10),
        [(Case(label="case"), True, {"h": [Fraction(1, 2)]})],
        Rules(),
        timeout=0,
    )
    assert report.passed == 1 and len(decoded) == 1


def test_the_self_check_and_the_grader_agree_on_colliding_values(session):
    session.run_cell(
        f"def colliding_set():\n    return {BUILT}\ndef colliding_dict():\n    return dict.fromkeys({BUILT}, 0)"
    )
    for name, value in (("colliding_set", BUILT), ("colliding_dict", dict.fromkeys(BUILT, 0))):
        own = run_cases("test", name, lambda value=value: value, [(Case(label="case"), True, 1)], Rules(), timeout=0)
        graded = run_cases(
            "test", name, session.function(name, timeout=10), [(Case(label="case"), True, 1)], Rules(), timeout=0
        )
        assert [r.message for r in own.results] == [r.message for r in graded.results]
        assert "share too few hash values" in own.results[0].message


@pytest.mark.parametrize(
    "value",
    [
        BUILT,
        frozenset(BUILT),
        dict.fromkeys(BUILT),
        {(k,) for k in BUILT},
        {Fraction(1 + 3 * k, 3) for k in BUILT},
        [BUILT],
    ],
)
def test_the_encoder_and_the_self_check_refuse_keys_that_share_hash_values(value):
    with pytest.raises(codec.CodecError, match="share too few hash values") as encoded:
        codec.to_plain(value)
    with pytest.raises(codec.CodecError) as read:
        codec.plain(value)
    assert str(read.value) == str(encoded.value)


def _uncompared(kind: type) -> type:
    """`kind`, whose values fail the test when one is compared with another."""

    def compared(self, other):
        raise AssertionError(f"a decoded {kind.__name__} was compared with another: a set or dict of them was built")

    return type(kind.__name__, (kind,), {"__eq__": compared, "__hash__": kind.__hash__})


@pytest.mark.parametrize(
    "items",
    [
        [_uncompared(int)(k) for k in SENT],  # ints, as the decoder takes them: as they are
        [{"$tuple": [k]} for k in SENT],
        [{"$fraction": [1 + 3 * k, 3]} for k in SENT],
    ],
    ids=["ints", "tuples", "fractions"],
)
def test_the_decoder_refuses_keys_that_share_hash_values_quickly(items, monkeypatch):
    """Each key is hashed once and the keys are refused before a set or dict is built of them:
    building one of keys of one hash value compares every key with every other (the keys, and
    the tuples and Fractions the decoder builds, fail the test if one is compared with another)."""
    hashed = _hashes_counted(monkeypatch)
    spread = _spread_watched(monkeypatch, hashed)
    for name, kind in (("tuple", tuple), ("Fraction", Fraction)):
        monkeypatch.setattr(codec, name, _uncompared(kind), raising=False)  # what the decoder builds keys of
    with pytest.raises(codec.CodecError, match="a set whose items share too few hash values"):
        codec.from_plain({"$set": items})
    with pytest.raises(codec.CodecError, match="a dict whose keys share too few hash values"):
        codec.from_plain({"$dict": [[item, 0] for item in items]})
    assert spread == [(len(items), len(items), "refused")] * 2 and len(hashed) == 2 * len(items)


def test_the_codec_keeps_ordinary_sets_and_caps_their_size():
    assert codec.plain({-1, -2, 0, 1}) == {-1, -2, 0, 1}  # -1 and -2 share a hash value in CPython
    assert codec.plain({f"k{i}": i for i in range(1000)}) == {f"k{i}": i for i in range(1000)}
    with pytest.raises(codec.CodecError, match=f"at most {codec.MAX_KEYS}"):
        codec.to_plain(set(range(codec.MAX_KEYS + 1)))
    with pytest.raises(codec.CodecError, match=f"at most {codec.MAX_KEYS}"):
        codec.from_plain({"$set": list(range(codec.MAX_KEYS + 1))})


def test_a_decoded_value_is_read_as_it_is():
    value = {"h": [Fraction(1, 3)]}
    assert codec.plain(codec.Decoded(value)) is value


class _Drawn(list):
    """A list that records how many items each pass over it drew."""

    def __init__(self, items):
        super().__init__(items)
        self.passes: list[int] = []

    def __iter__(self):
        self.passes.append(0)
        index = len(self.passes) - 1
        for item in super().__iter__():
            self.passes[index] += 1
            yield item

    def __repr__(self) -> str:
        return f"<a list of {len(self)} items>"


def test_comparing_a_colliding_list_with_a_set_reference_is_quick():
    """No pass over the student's list goes past its first item that is not in the reference: a set
    of its items (whose hash values may all be one) is built only when every item is in it; and a
    message shows a long list from its first items alone."""
    colliding = _Drawn([k * P for k in range(1, 20_000)])
    assert not compare(colliding, {"A", "B"}).ok
    assert colliding.passes and max(colliding.passes) <= 13  # the first item; 13 items for the message
    after = _Drawn([0] * 20_000 + [k * P for k in range(1, 20_000)])
    assert not compare(after, {0}).ok
    assert after.passes and max(after.passes) == 20_001
    assert compare([0] * 20_000, {0}).ok and compare(["A", "B", "A"], {"A", "B"}).ok
    long = _Drawn(range(3_000_000))
    assert show(long) == show(list(range(13))) and long.passes == [13]
