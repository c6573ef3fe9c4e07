"""Read a top-level JSON array one element at a time, so a large export is parsed once and
never held whole in memory."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import IO, Any

CHUNK = 1 << 20


class JSONStreamError(ValueError):
    """Malformed JSON; ``position`` is the character offset, ``index`` the element number."""

    def __init__(self, message: str, position: int, index: int) -> None:
        super().__init__(message)
        self.position = position
        self.index = index


class _Reader:
    """A sliding text buffer over ``stream`` with the offset of its first character."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.buf, self.pos, self.offset = stream, "", 0, 0

    def more(self) -> bool:
        chunk = self.stream.read(CHUNK)
        if chunk:
            self.offset += self.pos
            self.buf, self.pos = self.buf[self.pos :] + chunk, 0
        return bool(chunk)

    def peek(self) -> str:
        """The next non-blank character ('' at the end), positioned on it."""
        while True:
            self.pos = _skip_ws(self.buf, self.pos)
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos : self.pos + 1]


def iter_array(stream: IO[str], key: str | None = None) -> Iterator[Any]:
    """Yield the elements of the JSON array in ``stream`` (text mode).

    ``key``: also accept an object whose ``key`` member is the array (read whole in that case).
    """
    decoder = json.JSONDecoder()
    r = _Reader(stream)
    if r.peek() != "[":
        text = r.buf[r.pos :] + stream.read()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise JSONStreamError(
                f"not valid JSON: {exc.msg}", r.offset + r.pos + exc.pos, 0
            ) from None
        if key is not None and isinstance(doc, dict) and isinstance(doc.get(key), list):
            yield from doc[key]
            return
        raise JSONStreamError("expected a JSON list of tasks at the top level", r.offset, 0)
    r.pos += 1
    index = 0
    while True:
        c = r.peek()
        if c == "]":
            r.pos += 1
            if r.peek():
                raise JSONStreamError("unexpected data after the list", r.offset + r.pos, index)
            return
        if not c:
            raise JSONStreamError(
                "the file ends inside the list (truncated?)", r.offset + r.pos, index
            )
        if index:
            if c != ",":
                raise JSONStreamError("expected ',' between tasks", r.offset + r.pos, index)
            r.pos += 1
            r.peek()
        while True:
            try:
                item, r.pos = decoder.raw_decode(r.buf, r.pos)
                break
            except json.JSONDecodeError as exc:
                at = r.offset + exc.pos
                if not r.more():
                    raise JSONStreamError(f"invalid JSON: {exc.msg}", at, index) from None
        yield item
        index += 1


def _skip_ws(buf: str, pos: int) -> int:
    n = len(buf)
    while pos < n and buf[pos] in " \t\r\n":
        pos += 1
    return pos


def line_of(path: str, position: int) -> int:
    """1-based line number of character ``position`` in the file at ``path``."""
    line, seen = 1, 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for chunk in iter(lambda: f.read(CHUNK), ""):
            if seen + len(chunk) >= position:
                return line + chunk.count("\n", 0, position - seen)
            line += chunk.count("\n")
            seen += len(chunk)
    return line


def check_utf8(data: bytes | bytearray, block: int = 1 << 24) -> None:
    """Raise UnicodeDecodeError unless ``data`` is UTF-8 (checked in blocks: no whole copy)."""
    if data.isascii():
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for i in range(0, len(data), block):
        decoder.decode(view[i : i + block])
    decoder.decode(b"", final=True)
