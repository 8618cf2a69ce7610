"""A runner's replies, untrusted: a call's result or the failure it reports, and a cell's outputs as
the graded notebook may keep them (known MIME types, figures by key, a PNG's text alternative, bounded
in bytes). Values come back through the safe codec (`rnnkit.codec`); nothing is unpickled or
evaluated here.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import nbformat

from rnnkit import codec, figures, wire
from rnnkit.checking import StudentFailure

#: Failures a runner may report; anything else is read as a crash.
FAILURES = {
    "check.not_implemented",
    "check.crashed",
    "check.crashed_at",
    "check.timeout",
    "check.timeout_size",
    "check.not_defined",
    "check.unreadable_result",
    "check.contract_broken",
}
#: Bytes a cell's outputs may take past OUTPUT_LIMIT_KB: what the runner itself keeps past the limit
#: (an error raised after it, cut to 4 KB, and its note).
RUNNER_ALLOWANCE = 8 * 1024
#: Bytes counted for each output besides its text: the notebook's own JSON around it.
OUTPUT_OVERHEAD = 100
_MIMES = {
    "text/plain",
    "text/html",
    "text/markdown",
    "text/latex",
    "image/png",
    "image/jpeg",
    "image/svg+xml",
    "application/json",
}
#: Characters of a PNG's text alternative (its metadata's `alt`) that the graded notebook keeps.
ALT_CHARS = 4000


def call_result(reply: dict, timeout: float) -> codec.Decoded:
    """A call's result from the runner's reply, or the StudentFailure it reports."""
    if "value" in reply:
        try:
            return codec.Decoded(codec.from_plain(reply["value"]))
        except codec.CodecError as error:
            raise StudentFailure("check.unreadable_result", detail=str(error)) from None
    failure = wire.field(reply, "failure", str, "check.crashed")
    fields = {
        k: v
        for k, v in (wire.field(reply, "fields", dict, {}) or {}).items()
        if isinstance(k, str) and isinstance(v, (str, int, float)) and not isinstance(v, bool)
    }
    fields = {k: (v[:300] if isinstance(v, str) else v) for k, v in fields.items()}
    if failure not in FAILURES:
        failure, fields = "check.crashed", {"error": "an unknown failure", "detail": ""}
    fields.setdefault("error", "an error")
    fields.setdefault("detail", "")
    fields.setdefault("seconds", timeout)
    raise StudentFailure(failure, **fields)


def notebook_output(raw: Any, known: Mapping[str, str]) -> nbformat.NotebookNode | None:
    """One untrusted output dict as an nbformat output, or None. A figure's marker becomes the PNG
    that `known` holds for its key (a marker of any other key is dropped)."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("output_type")
    if kind == "stream" and raw.get("name") in ("stdout", "stderr") and isinstance(raw.get("text"), str):
        return nbformat.v4.new_output("stream", name=raw["name"], text=raw["text"])
    if kind in ("display_data", "execute_result") and isinstance(raw.get("data"), dict):
        data = {mime: value for mime, value in raw["data"].items() if mime in _MIMES and isinstance(value, str)}
        png = data.get("image/png", "")
        if png.startswith(figures.MARKER):
            found = known.get(png[len(figures.MARKER) :])
            if found is None:
                del data["image/png"]
            else:
                data["image/png"] = found
        if not data:
            return None
        metadata = _png_alt(raw.get("metadata"), data)
        if kind == "display_data":
            return nbformat.v4.new_output("display_data", data=data, metadata=metadata)
        count = raw.get("execution_count")
        return nbformat.v4.new_output(
            "execute_result",
            data=data,
            metadata=metadata,
            execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        )
    if kind == "error":
        trace = raw.get("traceback")
        return nbformat.v4.new_output(
            "error",
            ename=str(raw.get("ename", "Error"))[:200],
            evalue=str(raw.get("evalue", ""))[:2000],
            traceback=[str(line)[:5000] for line in trace[:200]] if isinstance(trace, list) else [],
        )
    return None


def _png_alt(metadata: Any, data: dict) -> dict:
    """The output metadata the graded notebook keeps of an output with a PNG: its text alternative, a
    string cut to ALT_CHARS (the feedback page escapes it), and nothing else (nbconvert writes some
    metadata, such as a width, into the page unquoted)."""
    about = metadata.get("image/png") if isinstance(metadata, dict) else None
    alt = about.get("alt") if isinstance(about, dict) else None
    if "image/png" not in data or not isinstance(alt, str):
        return {}
    return {"image/png": {"alt": alt[:ALT_CHARS].encode("utf-8", "replace").decode("utf-8")}}


#: Bytes counted per line of an output's text besides its characters: the graded notebook keeps text
#: as a list of lines, each quoted and indented (a flood of empty lines costs that much each).
LINE_OVERHEAD = 8


def _nbytes(text: str) -> int:
    """What `text` takes in the graded notebook: its JSON string (escapes included, in UTF-8) and
    LINE_OVERHEAD per line."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) + LINE_OVERHEAD * text.count("\n")


def output_size(node: nbformat.NotebookNode) -> int:
    """The bytes an output keeps: its text (a stream's, every MIME value and a PNG's text alternative,
    an error's name, value and traceback, in UTF-8) and OUTPUT_OVERHEAD."""
    if node.output_type == "stream":
        texts = [node.text]
    elif node.output_type == "error":
        texts = [node.ename, node.evalue, *node.traceback]
    else:
        texts = [*node.data.values(), *node.get("metadata", {}).get("image/png", {}).values()]
    return OUTPUT_OVERHEAD + sum(map(_nbytes, texts))


def note_output(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("stream", name="stdout", text=text + "\n")


def _cut(node: nbformat.NotebookNode, room: int) -> list:
    """What of one output fits in `room` bytes (`output_size`): a stream's text cut to it, else its plain
    text alone where that fits, else nothing."""
    room -= OUTPUT_OVERHEAD
    if node.output_type == "stream":
        text = node.text.encode("utf-8", "surrogatepass")[: max(room, 0)].decode("utf-8", "ignore")
        while text and _nbytes(text) > room:  # escapes and lines cost more than their characters
            text = text[: len(text) * room // _nbytes(text)]
        node.text = text
        return [node] if node.text else []
    plain = node.get("data", {}).get("text/plain")
    if plain is None or _nbytes(plain) > room:
        return []
    node.data, node.metadata = {"text/plain": plain}, {}
    return [node]


def bounded(nodes: list, room: int, note: str) -> list:
    """The outputs that fit in `room` bytes (`output_size`), in order; of the first that does not, what
    fits (`_cut`), then a stream holding `note` in place of the rest."""
    for index, node in enumerate(nodes):
        size = output_size(node)
        if size > room:
            return [*nodes[:index], *_cut(node, room), note_output(note)]
        room -= size
    return nodes


def figures_drawn(outputs: list) -> dict[str, str]:
    """The PNGs the runner drew in these raw outputs, by the key their metadata names."""
    found = {}
    for raw in outputs:
        if isinstance(raw, dict) and raw.get("output_type") in ("display_data", "execute_result"):
            data, metadata = raw.get("data"), raw.get("metadata")
            png = data.get("image/png") if isinstance(data, dict) else None
            about = metadata.get("image/png") if isinstance(metadata, dict) else None
            key = about.get(figures.KEY_METADATA) if isinstance(about, dict) else None
            if figures.is_key(key) and isinstance(png, str) and not png.startswith(figures.MARKER):
                found[key] = png
    return found
