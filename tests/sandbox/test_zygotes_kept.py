"""The zygotes a warm command process keeps ready (`autograder.sandbox.zygote.prestart` with `kept`):
the command it forks takes the first and holds no line to the others; the one handed away leaves the
second first, ready at once for the next command, and ends with the command; keeping them topped up
starts only what is missing."""

from __future__ import annotations

import os

import pytest

from autograder.sandbox import zygote
from rnnkit import jail

pytestmark = pytest.mark.skipif(jail.available() is None, reason=f"no namespace sandbox here: {jail.refusal()}")


def _open(channel: zygote.Channel) -> bool:
    return channel.control.fileno() != -1


@pytest.fixture
def kept():
    """Two zygotes of two channels each, kept as the warm process keeps them; all closed after."""
    saved = list(zygote._SHARED)
    zygote._SHARED.clear()
    zygote.prestart(2, kept=2)
    yield zygote._SHARED
    for started in list(zygote._SHARED):
        started.close()
    zygote._SHARED[:] = saved


def test_a_command_takes_the_first_zygote_and_the_next_finds_the_second_up(kept):
    first, second = kept
    zygote.ready()
    assert first.channels[0]._hello is not None  # greeted before the command is forked
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the command: the first zygote is its own, it holds no line to the second
        try:
            zygote.forget(keep_first=True)
            held = zygote._SHARED == [first] and all(map(_open, first.channels))
            alone = not any(map(_open, second.channels))
            os.write(write, b"ok" if held and alone and zygote.claim() else b"no")
        finally:
            os._exit(0)
    os.close(write)
    assert os.read(read, 2) == b"ok"
    os.waitpid(pid, 0)
    os.close(read)
    given = zygote.hand_off()
    assert given is first and not any(map(_open, first.channels))
    assert zygote._SHARED == [second] and second.running()
    zygote.ready()  # the next command's zygote was started with the first: up already
    assert all(channel._hello is not None for channel in second.channels)
    zygote.prestart(2, kept=2)  # topped up between commands: one more, the second still first
    assert len(zygote._SHARED) == 2 and zygote._SHARED[0] is second
    given.process.wait(timeout=30)  # every line to it closed: it ended with the command
    assert zygote.cleared(given) and not given.scratch.exists()


def test_a_claimed_zygote_or_one_of_too_few_channels_is_replaced_not_kept(kept):
    first, second = kept
    first.claimed = True
    zygote.prestart(3, kept=1)
    assert len(zygote._SHARED) == 1 and zygote._SHARED[0] not in (first, second)
    assert len(zygote._SHARED[0].channels) == 3
    assert not first.running() and not second.running()
