"""Framing for the grader-runner socket: a 4-byte big-endian length, then a JSON object.

Envelope fields are plain JSON; values (arguments and results) inside them are `codec` data.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from typing import Any

from .codec import MAX_BYTES


class WireError(ConnectionError):
    """The other side closed, sent too much, sent something malformed, or did not answer in time."""


def send(sock: socket.socket, message: dict) -> None:
    body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
    sock.sendall(struct.pack(">I", len(body)) + body)


def _exactly(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    while left:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WireError("no answer in time")
            sock.settimeout(remaining)
        try:
            chunk = sock.recv(min(left, 1 << 20))
        except socket.timeout:
            raise WireError("no answer in time") from None
        except OSError as error:
            raise WireError(str(error)) from None
        if not chunk:
            raise WireError("the other side closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket, timeout: float | None = None, limit: int = MAX_BYTES) -> dict:
    """One message; WireError when it does not come within `timeout` seconds or is too large."""
    deadline = None if timeout is None else time.monotonic() + timeout
    (size,) = struct.unpack(">I", _exactly(sock, 4, deadline))
    if size > limit:
        raise WireError(f"a message of {size} bytes is larger than the limit of {limit}")
    try:
        message = json.loads(_exactly(sock, size, deadline))
    except (ValueError, RecursionError) as error:
        raise WireError(f"malformed message: {error}") from None
    if not isinstance(message, dict):
        raise WireError("malformed message")
    return message


def field(message: dict, name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    """A field of an untrusted message, of the given type, else `default`."""
    value = message.get(name, default)
    return value if isinstance(value, kind) and not (kind is int and isinstance(value, bool)) else default
