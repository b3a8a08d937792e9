"""Source files and spans: where every node and diagnostic points."""

from __future__ import annotations

import bisect
import re
from typing import Any, Callable, Optional

#: a UTF-8 byte order mark: an encoding marker, not text. The lexer skips it at the start of a
#: document, and positions on its first line count from what follows it (as editors show it).
BOM = "\ufeff"

#: a line break: `\n`, `\r\n`, or a lone `\r` (classic Mac), as LSP counts lines. The lexer
#: (where a `//` comment or a string ends), spans, the renderer, SARIF and the language server
#: all count lines so: a lone `\r` was whitespace to the lexer and a line break to an editor,
#: so a `//` comment ran on over the next lines and every position disagreed.
LINE_BREAK = re.compile(r"\r\n?|\n")


def line_start(text: str, pos: int) -> int:
    """The offset at which the line holding `pos` begins."""
    return max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1


def line_end(text: str, pos: int) -> int:
    """The offset of the line break that ends the line holding `pos` (the text's length on
    the last line)."""
    found = LINE_BREAK.search(text, pos)
    return len(text) if found is None else found.start()


def count_breaks(text: str) -> int:
    """How many line breaks `text` holds (`\r\n` is one)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class Source:
    """The text of one input (a file, a string, or a frontend's model) and its line table.

    A source may also be one piece of a larger document (the language server parses each
    definition on its own): `base` is the offset of its first character in the document and
    `line_base` the number of lines before it, so positions and spans read as the document's.
    A piece that moves (an edit above it) only changes these two numbers.

    `data` is a frontend's payload for what the source locates (its own node, through
    `gradual.builder.Loc`): diagnostics located here hand it back (`Diagnostic.data`)."""

    __slots__ = ("path", "text", "_line_starts", "base", "line_base", "data")

    def __init__(
        self, text: str, path: str = "<input>", base: int = 0, line_base: int = 0, data: object = None
    ) -> None:
        self.text = text
        self.path = path
        self._line_starts: list[int] | None = None
        self.base = base
        self.line_base = line_base
        self.data = data

    def line_starts(self) -> list[int]:
        """Offsets at which each line begins."""
        if self._line_starts is None:
            if "\r" in self.text:
                starts = [0]
                starts.extend(m.end() for m in LINE_BREAK.finditer(self.text))
            else:  # the common case, found faster
                starts = [0]
                find = self.text.find
                pos = find("\n")
                while pos != -1:
                    starts.append(pos + 1)
                    pos = find("\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        column = offset - starts[line] + 1
        if line == 0 and offset > 0 and self._marked():
            column -= 1
        return line + 1 + self.line_base, column

    def _marked(self) -> bool:
        """Whether the text starts its document with a byte order mark."""
        return self.base == 0 and self.text.startswith(BOM)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        start, end = self._line_bounds(line)
        return self.text[start:end]

    def line_length(self, line: int) -> int:
        """The length of `line_text(line)`, without copying the line."""
        start, end = self._line_bounds(line)
        return end - start

    def line_slice(self, line: int, lo: int, hi: int) -> str:
        """`line_text(line)[lo:hi]`, copying only that part (a diagnostic shows a window of a
        long line: copying the whole line for each one was quadratic in its length)."""
        start, end = self._line_bounds(line)
        return self.text[min(start + lo, end) : min(start + hi, end)]

    def _line_bounds(self, line: int) -> tuple[int, int]:
        """Offsets of a 1-based line's text, without its newline (and `\\r`); (0, 0) past the end."""
        line -= self.line_base
        starts = self.line_starts()
        if not 1 <= line <= len(starts):
            return 0, 0
        start = starts[line - 1] + (1 if line == 1 and self._marked() else 0)
        if line == len(starts):
            return start, len(self.text)
        end = starts[line] - 1  # its line break (the `\n` of a `\r\n`)
        if end > start and self.text[end - 1] == "\r" and self.text[end] == "\n":
            end -= 1
        return start, end

    def __repr__(self) -> str:
        return f"Source({self.path!r})"


class Span:
    """A half-open range of offsets in a source. Immutable; equal when the offsets in the
    document are (the source is not compared, only where it starts in the document)."""

    __slots__ = ("source", "start", "end")

    def __init__(self, source: Source, start: int, end: int) -> None:
        self.source = source
        self.start = start
        self.end = end

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Span)
            and self.start == other.start
            and self.end == other.end
            and self.source.base == other.source.base
        )

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __repr__(self) -> str:
        return f"Span(start={self.start}, end={self.end})"

    @property
    def offset(self) -> int:
        """Where the span starts in the whole document (its source may be a piece of one)."""
        return self.source.base + self.start

    @property
    def start_position(self) -> tuple[int, int]:
        """1-based (line, column) of the first character."""
        return self.source.position(self.start)

    @property
    def end_position(self) -> tuple[int, int]:
        """1-based (line, column) just past the last character."""
        return self.source.position(self.end)

    @property
    def text(self) -> str:
        """The spanned source text."""
        return self.source.text[self.start : self.end]

    def to(self, other: "Span") -> "Span":
        """The span from the start of this one to the end of `other`."""
        return Span(self.source, self.start, self.end if self.end > other.end else other.end)

    def describe(self) -> str:
        """`path:line:column`, for messages and blame."""
        line, col = self.start_position
        return f"{self.source.path}:{line}:{col}"


class PlacedSource(Source):
    """Lines `line_base + 1`.. of a file that a frontend names by line and column (a model's
    Python file): its text is read from the file when first asked for (a diagnostic, not
    building, pays for it), or given; blank where the file cannot be read, the positions
    staying those given (diagnostics then name `path:line:column` without a line to show)."""

    __slots__ = ("_reader",)

    def __init__(
        self, path: str, line_base: int, reader: "str | Callable[[], str] | None", data: object = None
    ) -> None:
        """`reader`: the text (a str), or a function of no arguments giving it."""
        super().__init__("", path, 0, line_base, data)
        self._reader = reader

    @property
    def text(self) -> str:  # Source.text, read when first asked for
        reader = self._reader
        if reader is not None:
            self._reader = None
            _TEXT_SLOT.__set__(self, reader if isinstance(reader, str) else reader())
        text: str = _TEXT_SLOT.__get__(self)
        return text

    @text.setter
    def text(self, value: str) -> None:
        _TEXT_SLOT.__set__(self, value)


#: the slot that holds a Source's text: PlacedSource's property stores into it
_TEXT_SLOT: Any = Source.__dict__["text"]


def is_placed(source: Source) -> bool:
    """Whether a source's positions are a frontend's own lines and columns (shown even where
    its text cannot be)."""
    return isinstance(source, PlacedSource)


_NOWHERE_SOURCE = Source("", "<generated>")
NOWHERE = Span(_NOWHERE_SOURCE, 0, 0)

#: the source of every node the builder makes without a location: each such node has a span
#: of its own over it, which checking turns into the node's place in the printed program, or
#: its nearest located construct's (gradual/placement.py)
GENERATED = Source("", "<generated>")


def is_unplaced(span: Span) -> bool:
    """Whether a span locates nothing: a node made without a location (see GENERATED)."""
    source = span.source
    return source is GENERATED or source is _NOWHERE_SOURCE


def generated_span(label: str) -> Span:
    """A span for nodes that have no text (built through the API); its path is the label."""
    return Span(Source("", label), 0, 0)


def python_lines(text: str) -> list[str]:
    """A Python file's lines as Python numbers them (and torch's traces with them): a line
    ends at `\n`, `\r\n` or `\r` only. `str.splitlines` also ends one at a form feed (a page
    break PEP 8 allows), `\v`, `\x1c`..`\x1e`, `\x85` or U+2028, so every line after one was
    another line of the file: the trace's code no longer matched and its indentation was lost."""
    return LINE_BREAK.split(text)


def wide_encoding(data: bytes) -> Optional[str]:
    """UTF-16 or UTF-32, where the bytes start as such text does (a byte-order mark, or an
    ASCII character then NUL bytes, as Windows editors save "Unicode" text), else None."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    if len(data) >= 4 and (
        data[0] and not data[1] and data[2] and not data[3] or not data[0] and data[1] and not data[2] and data[3]
    ):
        return "UTF-16"
    return None
