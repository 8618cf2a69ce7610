"""The outputs of the cell being run, bounded in size and number, as nbformat v4 output dicts.

At most the runner's `output_limit_bytes` (`DEFAULT_OUTPUT_LIMIT`) of text - stream text plus the
strings of display data - and at most `MAX_OUTPUTS` outputs are kept; anything beyond is dropped as
it is produced, and a note saying so ends the cell's outputs (an error that arrives once the budget
is spent is still reported, cut to `ERROR_ALLOWANCE`).

`_state.active` is the `_Outputs` of the cell running (None between cells): the shell's hooks
(`rnnkit.shell_hooks`) write into it. Its `finish()` gives the outputs in the order they happened:
`{"output_type": "stream", "name", "text"}`, `{"output_type": "display_data", "data": {mime: str or
JSON}, "metadata"}` (an `execute_result` adds its `execution_count`) and `{"output_type": "error",
"ename", "evalue", "traceback": [str]}`.
"""

from __future__ import annotations

import base64
import json
import re
import threading

from . import messages

__all__ = ["MAX_OUTPUTS", "DEFAULT_OUTPUT_LIMIT"]

#: Default bound on the text kept from one cell's outputs.
DEFAULT_OUTPUT_LIMIT = 256 * 1024
#: At most this many outputs are kept from one cell.
MAX_OUTPUTS = 1000
#: An error that arrives when the cell's budget is spent is still reported, cut to this size.
ERROR_ALLOWANCE = 4096

_JSON_MIME = re.compile(r"^application/(.+\+)?json$")
_TEXT_MIMES = ("image/svg+xml", "application/javascript", "application/xml", "application/x-latex")


# --------------------------------------------------------------------------- text helpers


def _nbytes(text: str) -> int:
    """UTF-8 size of `text` (lone surrogates count as 3 bytes, as they would be replaced)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _head(text: str, limit: int) -> str:
    """The longest prefix of `text` whose UTF-8 size is at most `limit`."""
    if limit <= 0:
        return ""
    text = text[:limit]
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass")[:limit].decode("utf-8", "ignore")


def _tail(text: str, limit: int) -> str:
    """The longest suffix of `text` whose UTF-8 size is at most `limit`."""
    if limit <= 0:
        return ""
    text = text[-limit:]
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass")[-limit:].decode("utf-8", "ignore")


def _clean_text(text: str) -> str:
    """`text` without lone surrogates (which cannot be written to a UTF-8 notebook file)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _safe_str(value: object) -> str:
    try:
        return str(value)
    except BaseException:  # noqa: BLE001 - a student's __str__ may raise anything
        return f"<unprintable {type(value).__name__} object>"


def _is_json_mime(mime: str) -> bool:
    return bool(_JSON_MIME.match(mime))


def _is_binary_mime(mime: str) -> bool:
    if mime in _TEXT_MIMES or mime.endswith("+xml") or mime.startswith("text/"):
        return False
    return mime.startswith(("image/", "audio/", "video/", "font/")) or mime in (
        "application/pdf",
        "application/octet-stream",
        "application/zip",
    )


def _json_copy(value: object) -> tuple[object, int] | None:
    """A copy of `value` as stored in a notebook and its size, or None when it is not JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError, OverflowError):
        return None
    return json.loads(text), _nbytes(text)


def _clean_bundle(data: object) -> tuple[dict, int]:
    """A mime bundle nbformat accepts ({mime: str}, JSON mimes as JSON), and its size in bytes."""
    bundle: dict = {}
    size = 0
    if not isinstance(data, dict):
        return bundle, size
    for mime, value in data.items():
        if not isinstance(mime, str):
            continue
        if _is_json_mime(mime) and not isinstance(value, (bytes, bytearray, memoryview, str)):
            copied = _json_copy(value)
            if copied is None:
                continue
            bundle[mime], n = copied
            size += n
            continue
        if isinstance(value, (bytes, bytearray, memoryview)):
            raw = bytes(value)
            if _is_binary_mime(mime):
                value = base64.b64encode(raw).decode("ascii")
            else:
                value = raw.decode("utf-8", "replace")
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            value = "".join(value)
        elif not isinstance(value, str):
            value = _safe_str(value)
        bundle[mime] = value
        size += _nbytes(value)
    return bundle, size


def _clean_metadata(metadata: object) -> tuple[dict, int]:
    if not isinstance(metadata, dict) or not metadata:
        return {}, 0
    copied = _json_copy(metadata)
    return copied if copied is not None else ({}, 0)


def _error_size(ename: str, evalue: str, tb: list[str]) -> int:
    return _nbytes(ename) + _nbytes(evalue) + sum(_nbytes(line) for line in tb)


def _shrink_error(ename: str, evalue: str, tb: list[str], limit: int) -> tuple[str, list[str]]:
    """evalue and traceback cut so that the error takes about `limit` bytes (the end is kept)."""
    if _nbytes(evalue) > limit // 4:
        evalue = _head(evalue, limit // 4) + " [...]"
    room = max(limit - _nbytes(ename) - _nbytes(evalue), 256)
    kept: list[str] = []
    whole = True
    for line in reversed(tb):
        n = _nbytes(line)
        if n > room:
            if not kept:
                kept.append(_tail(line, room))
            whole = False
            break
        kept.append(line)
        room -= n
    kept.reverse()
    return evalue, kept if whole else ["[traceback truncated]"] + kept


# --------------------------------------------------------------------------- one cell's outputs


class _Outputs:
    """The outputs of the cell being run, bounded in size and number."""

    def __init__(self, limit: int, max_outputs: int = MAX_OUTPUTS):
        self.limit = limit
        self.max_outputs = max_outputs
        self.lock = threading.RLock()
        self.items: list[dict] = []
        self.used = 0
        self.full = False  # set once something had to be dropped: then everything is dropped
        self.reason = ""
        self.late_error: tuple[str, str, list[str]] | None = None
        self.display_ids: dict[str, list[dict]] = {}
        self.clear_pending = False
        self.closed = False

    # -- bookkeeping
    def _drop_rest(self, reason: str) -> None:
        if not self.full:
            self.full = True
            self.reason = reason

    def _clear(self) -> None:
        self.items = []
        self.used = 0
        self.full = False
        self.reason = ""
        self.late_error = None
        self.display_ids = {}
        self.clear_pending = False

    def _has_slot(self) -> bool:
        if len(self.items) >= self.max_outputs:
            self._drop_rest("count")
            return False
        return True

    # -- producers
    def stream(self, name: str, text: str) -> None:
        with self.lock:
            if self.full or self.closed or not text:
                return
            if self.clear_pending:
                self._clear()
            n = _nbytes(text)
            room = self.limit - self.used
            if n > room:
                text = _head(text, room)
                n = _nbytes(text)
                self._drop_rest("size")
                if not text:
                    return
            last = self.items[-1] if self.items else None
            if last is not None and last["output_type"] == "stream" and last["name"] == name:
                last["text"].append(text)
            else:
                if not self._has_slot():
                    return
                self.items.append({"output_type": "stream", "name": name, "text": [text]})
            self.used += n

    def display(self, data: object, metadata: object, transient: object, update: bool) -> None:
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        with self.lock:
            if self.closed:
                return
            if update:
                self._update(display_id, data, metadata)
                return
            if self.full:
                return
            bundle, size = _clean_bundle(data)
            metadata, msize = _clean_metadata(metadata)
            output = {"output_type": "display_data", "data": bundle, "metadata": metadata}
            if self._add_bundle(output, size + msize) and isinstance(display_id, str):
                self.display_ids.setdefault(display_id, []).append(output)

    def execute_result(self, data: object, metadata: object, execution_count: int) -> None:
        with self.lock:
            if self.closed or self.full:
                return
            bundle, size = _clean_bundle(data)
            metadata, msize = _clean_metadata(metadata)
            output = {
                "output_type": "execute_result",
                "data": bundle,
                "metadata": metadata,
                "execution_count": execution_count,
            }
            self._add_bundle(output, size + msize)

    def _add_bundle(self, output: dict, size: int) -> bool:
        if self.clear_pending:
            self._clear()
        if not output["data"]:
            return False
        if not self._has_slot():
            return False
        room = self.limit - self.used
        if size > room:
            self._drop_rest("size")
            plain = output["data"].get("text/plain")
            if not isinstance(plain, str) or _nbytes(plain) > room:
                return False
            # Too big as a whole: keep the plain-text representation, which fits.
            output["data"] = {"text/plain": plain}
            output["metadata"] = {}
            size = _nbytes(plain)
        self.items.append(output)
        self.used += size
        return True

    def _update(self, display_id: object, data: object, metadata: object) -> None:
        targets = self.display_ids.get(display_id) if isinstance(display_id, str) else None
        if not targets:
            return
        bundle, size = _clean_bundle(data)
        metadata, msize = _clean_metadata(metadata)
        for output in targets:
            old = _clean_bundle(output["data"])[1] + _clean_metadata(output["metadata"])[1]
            if self.used - old + size + msize > self.limit:
                self._drop_rest("size")
                return
            output["data"] = dict(bundle)
            output["metadata"] = dict(metadata)
            self.used += size + msize - old

    def error(self, ename: str, evalue: str, tb: list[str]) -> None:
        with self.lock:
            if self.closed:
                return
            if self.clear_pending:
                self._clear()
            if self.full:
                self.late_error = (ename, evalue, tb)
                return
            size = _error_size(ename, evalue, tb)
            room = self.limit - self.used
            if size > room or len(self.items) >= self.max_outputs:
                self._drop_rest("size" if size > room else "count")
                self.late_error = (ename, evalue, tb)
                return
            self.items.append({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb})
            self.used += size

    def clear(self, wait: bool) -> None:
        with self.lock:
            if self.closed:
                return
            if wait and not self.full:
                self.clear_pending = True
            else:
                self._clear()

    # -- result
    def finish(self) -> list[dict]:
        with self.lock:
            self.closed = True
            items = self.items
            if self.late_error is not None:
                ename, evalue, tb = self.late_error
                evalue, tb = _shrink_error(ename, evalue, tb, ERROR_ALLOWANCE)
                items.append({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb})
            if self.full:
                if self.reason == "count":
                    note = messages.text("cell.too_many_outputs", count=self.max_outputs) + "\n"
                else:
                    note = messages.text("cell.output_truncated", kb=f"{self.limit / 1024:g}") + "\n"
                last = items[-1] if items else None
                if last is not None and last["output_type"] == "stream" and last["name"] == "stdout":
                    if not last["text"][-1].endswith("\n"):
                        last["text"].append("\n")
                    last["text"].append(note)
                else:
                    items.append({"output_type": "stream", "name": "stdout", "text": [note]})
            result = []
            for item in items:
                if item["output_type"] == "stream":
                    item = {"output_type": "stream", "name": item["name"], "text": _clean_text("".join(item["text"]))}
                elif item["output_type"] == "error":
                    item = {
                        "output_type": "error",
                        "ename": _clean_text(item["ename"]),
                        "evalue": _clean_text(item["evalue"]),
                        "traceback": [_clean_text(line) for line in item["traceback"]],
                    }
                else:
                    item = dict(item)
                    item["data"] = {
                        mime: _clean_text(value) if isinstance(value, str) else value
                        for mime, value in item["data"].items()
                    }
                result.append(item)
            return result


class _State:
    """The outputs currently being collected (None between cells)."""

    active: _Outputs | None = None


_state = _State()
