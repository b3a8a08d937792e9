"""The base protocol of LSP (header lines, then a body of `Content-Length` bytes), read from a
stream that may be broken, and JSON-RPC 2.0's rules for what a message must be. Pure: bytes
in, events out; `transport.py` does the reading and answering.

What a careless or hostile client sends, and what it gets (JSON-RPC 2.0, section 5.1; each
error with `"id": null` unless a valid id could be read):

* a header block without a `Content-Length`, one that is not a number, a header line that is
  no `Name: value`, or one longer than MAX_HEADER_LINE: -32700 (Parse error); then the bytes
  up to the next `Content-Length:` header are skipped (the body's end is unknown);
* a `Content-Length` over MAX_BODY: -32700, and the same skipping: the body is never held,
  so memory stays bounded whatever the header says;
* a body cut short by the next message (its `Content-Length` said more than was sent, and a
  header follows: raw line breaks cannot stand inside a JSON text): -32700 for it, and the
  next message is read;
* a body that is not UTF-8, or not JSON: -32700;
* JSON that is no request, notification or response: -32600 (Invalid Request).

Parameters of the wrong shape for their method are the protocol's to find (-32602).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

#: the largest body read (a 1,000,000-line program is about 60 MB)
MAX_BODY = 64 * 1024 * 1024
#: the longest header line (LSP's are under 100 bytes)
MAX_HEADER_LINE = 8 * 1024

_HEADER = re.compile(rb"([A-Za-z0-9!#$%&'*+.^_`|~-]+)[ \t]*:[ \t]*(.*?)[ \t]*")
_RESYNC = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
#: a complete header line inside a body: the body was shorter than its Content-Length said
_HEADER_IN_BODY = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]+\r?\n", re.IGNORECASE)
_KEEP = 32  # bytes kept while skipping, for a header split between two reads


@dataclass(frozen=True)
class Message:
    """A body read whole (its bytes, not yet decoded)."""

    body: bytes


@dataclass(frozen=True)
class Broken:
    """A framing error: answered with -32700 and a null id."""

    reason: str


class Deframer:
    """Reads messages from bytes fed in pieces (`feed` returns what the new bytes complete)."""

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self.max_body = max_body
        self.buffer = bytearray()
        self.length: Optional[int] = None  # the Content-Length read
        self.in_body = False  # the headers are read: the body is being read
        self.problem = ""  # what was wrong with the headers read so far
        self.skipping = False
        self.scanned = 0  # how far the body in progress was searched for a header

    def feed(self, data: bytes) -> list:
        """Take bytes; the Messages and Broken events they complete, in order."""
        self.buffer += data
        out: list = []
        while True:
            if self.skipping:
                if not self._resync():
                    return out
            elif not self.in_body:
                if not self._headers(out):
                    return out
            elif not self._body(out):
                return out

    def pending(self) -> int:
        """How many bytes are held (bounded by MAX_BODY and MAX_HEADER_LINE)."""
        return len(self.buffer)

    def _resync(self) -> bool:
        """Skip to the next `Content-Length:` header; whether one was found."""
        found = _RESYNC.search(self.buffer)
        if found is None:
            del self.buffer[: max(0, len(self.buffer) - _KEEP)]
            return False
        del self.buffer[: found.start()]
        self.skipping = False
        return True

    def _skip(self, out: list, reason: str, past: int) -> None:
        """A framing error: report it, then skip from `past` to the next header."""
        out.append(Broken(reason))
        del self.buffer[:past]
        self.length, self.problem, self.skipping, self.in_body = None, "", True, False

    def _headers(self, out: list) -> bool:
        """Read header lines; whether there may be more to do with what is buffered."""
        while True:
            end = self.buffer.find(b"\n")
            if end == -1:
                if len(self.buffer) > MAX_HEADER_LINE:
                    self._skip(out, f"a header line is longer than {MAX_HEADER_LINE} bytes", 1)
                    return True
                return False
            line = bytes(self.buffer[:end]).rstrip(b"\r")
            if end > MAX_HEADER_LINE:
                self._skip(out, f"a header line is longer than {MAX_HEADER_LINE} bytes", 1)
                return True
            if not line:
                del self.buffer[: end + 1]
                if self.length is None and not self.problem:
                    continue  # a blank line between messages
                return self._end_of_headers(out)
            parsed = _HEADER.fullmatch(line)
            if parsed is None:
                self._skip(out, "the message's headers are not `Name: value` lines (LSP's base protocol)", 1)
                return True
            del self.buffer[: end + 1]
            if parsed.group(1).lower() == b"content-length":
                value = parsed.group(2)
                if not value.isdigit() or len(value) > 20:
                    self.problem = f"its Content-Length is not a number of bytes: {_shown(value)}"
                else:
                    self.length = int(value)

    def _end_of_headers(self, out: list) -> bool:
        if self.problem or self.length is None:
            self._skip(out, self.problem or "the message has no Content-Length header", 0)
            return True
        if self.length > self.max_body:
            self._skip(out, f"its Content-Length is {self.length:,} bytes, more than the {self.max_body:,} taken", 0)
            return True
        self.scanned = 0
        self.in_body = True
        return True

    def _body(self, out: list) -> bool:
        assert self.length is not None
        if len(self.buffer) >= self.length:
            body = bytes(self.buffer[: self.length])
            cut = _HEADER_IN_BODY.search(self.buffer, max(0, self.scanned - _KEEP), self.length)
            if cut is None:
                del self.buffer[: self.length]
                self.length, self.in_body = None, False
                out.append(Message(body))
                return True
        else:
            cut = _HEADER_IN_BODY.search(self.buffer, max(0, self.scanned - _KEEP))
            self.scanned = len(self.buffer)
            if cut is None:
                return False
        # a header where the body should still go on: the body ended there
        self.length, self.in_body = None, False
        out.append(Broken("the message is shorter than its Content-Length: another message's header follows it"))
        del self.buffer[: cut.start()]
        return True


def _shown(value: bytes) -> str:
    text = value[:40].decode("utf-8", "replace")
    return f"`{text}`" + ("..." if len(value) > 40 else "")


# JSON-RPC 2.0 message objects ------------------------------------------------------------------
def valid_id(value: Any) -> bool:
    """An id LSP takes: an integer or a string (JSON-RPC allows null and fractions, and
    discourages both; LSP's RequestMessage says `integer | string`)."""
    return isinstance(value, str) or isinstance(value, int) and not isinstance(value, bool)


def invalid(data: Any) -> Optional[tuple]:
    """Why a parsed JSON value is no JSON-RPC 2.0 message: (the id to answer with, or None;
    the reason), or None when it is one."""
    if not isinstance(data, dict):
        return None, "a message is one JSON-RPC object"  # a batch (`[...]`) too: LSP sends none
    has_id = "id" in data
    identity = data.get("id") if has_id and valid_id(data.get("id")) else None
    if data.get("jsonrpc") != "2.0":
        return identity, 'a message says "jsonrpc": "2.0"'
    if has_id and not valid_id(data["id"]):
        return None, "a request's id is an integer or a string"
    if "method" in data:
        if not isinstance(data["method"], str):
            return identity, "a request's method is a string"
        return None
    if not has_id or ("result" in data) == ("error" in data):
        return identity, "a message is a request (with a method) or a response (with an id and a result or an error)"
    return None


def strict_converter() -> Any:
    """pygls' converter, but a string, an integer, a boolean or a number in the parameters
    must be one (cattrs' defaults made `"query": 0` the string "0" and `"includeDeclaration":
    "no"` true): a value of another JSON type is Invalid Params."""
    from pygls.protocol import default_converter

    converter = default_converter()

    def exactly(kind: type, name: str) -> Any:
        def structure(value: Any, _: Any) -> Any:
            if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
                raise TypeError(f"expected {name}, got {type(value).__name__}")
            return value

        return structure

    converter.register_structure_hook(str, exactly(str, "a string"))
    converter.register_structure_hook(int, exactly(int, "an integer"))
    converter.register_structure_hook(bool, exactly(bool, "a boolean"))
    converter.register_structure_hook(float, exactly((int, float), "a number"))  # type: ignore[arg-type]
    return converter
