"""A document's text as the Language Server Protocol sees it (LSP 3.17, "Text Documents"):

* lines end at `\\n`, `\\r\\n` or `\\r`, and at nothing else (Python's `splitlines`, which
  pygls uses, also ends them at `\\f`, `\\v`, `\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029: a
  form feed or a line separator in a comment moved every later edit and position by a line);
* a position's character counts code units of the negotiated encoding (UTF-8, UTF-16 or
  UTF-32); a character past the end of its line means the end of the line (never its line
  break, never one character short), a line past the end of the document means its end, and
  a position inside a character (half a surrogate pair) means that character's start.

`Lines` finds line starts lazily, scanning only as far as a lookup needs, and an edited text
keeps the starts above the edit: so the scanning an edit costs is in proportion to the edit
and to how far it is from the previous one, not to the size of the document. The new text and
the kept starts are one copy each of what precedes (in C, as Python strings are immutable)."""

from __future__ import annotations

import bisect
import re
from typing import Iterable, Optional

from lsprotocol import types as lsp

_BREAK = re.compile(r"\r\n?|\n")


def _units(text: str, encoding: str) -> int:
    """How many code units of the encoding `text` takes."""
    if encoding == lsp.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    if encoding == lsp.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _column(line: str, units: int, encoding: str) -> int:
    """The code-point index in `line` of a position `units` code units into it (clamped to
    the line; a position inside a character is that character's start)."""
    if units <= 0:
        return 0
    if encoding == lsp.PositionEncodingKind.Utf32 or line.isascii():
        return min(units, len(line))
    count = 0
    for index, char in enumerate(line):
        count += _units(char, encoding)
        if count > units:
            return index
        if count == units:
            return index + 1
    return len(line)


class Lines:
    """Line starts of one text, found as far as lookups need them."""

    def __init__(self, text: str, known: Optional[list[int]] = None) -> None:
        self.text = text
        self._starts = known if known else [0]
        self._complete = False
        # the last position found: (offset, its line's start, code units from there to it,
        # encoding). Positions asked near one another along a line (an editor's diagnostics,
        # sorted) count only the text between one and the next, forward or back: counting
        # from the line's start each time made n diagnostics on one long line cost n times
        # the line.
        self._last: tuple = (0, -1, 0, "")

    def _scan(self, line: Optional[int] = None, offset: Optional[int] = None) -> None:
        """Find line starts until `line` has a start (and an end) or one lies past `offset`."""
        if self._complete:
            return
        starts = self._starts
        for match in _BREAK.finditer(self.text, starts[-1]):
            starts.append(match.end())
            if line is not None and len(starts) > line + 1 or offset is not None and starts[-1] > offset:
                return
        self._complete = True

    def count(self) -> int:
        """The number of lines (a text ending in a line break has an empty last line)."""
        self._scan()
        return len(self._starts)

    def _bounds(self, line: int) -> Optional[tuple[int, int]]:
        """Where a line's text starts and ends (its break excluded), or None past the end."""
        self._scan(line=line)
        starts = self._starts
        if line >= len(starts):
            return None
        if line + 1 < len(starts):
            end = starts[line + 1]
            end -= 2 if self.text.startswith("\r\n", end - 2) else 1
        else:
            end = len(self.text)
        return starts[line], end

    def locate(self, position: lsp.Position, encoding: str) -> tuple[int, int]:
        """The code-point offset of a position, and the line it is on (clamped as LSP says)."""
        bounds = self._bounds(max(position.line, 0))
        if bounds is None:
            return len(self.text), len(self._starts) - 1
        start, end = bounds
        return start + _column(self.text[start:end], position.character, encoding), position.line

    def offset(self, position: lsp.Position, encoding: str) -> int:
        """The code-point offset of a position."""
        return self.locate(position, encoding)[0]

    def position(self, offset: int, encoding: str) -> lsp.Position:
        """The position of a code-point offset (clamped to the text)."""
        offset = min(max(offset, 0), len(self.text))
        self._scan(offset=offset)
        line = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        last, last_start, last_units, last_encoding = self._last
        if last_start == start and last_encoding == encoding and abs(offset - last) < offset - start:
            if last <= offset:
                units = last_units + _units(self.text[last:offset], encoding)
            else:
                units = last_units - _units(self.text[offset:last], encoding)
        else:
            units = _units(self.text[start:offset], encoding)
        self._last = (offset, start, units, encoding)
        return lsp.Position(line, units)

    def edited(self, start: int, end: int, new: str, line: int) -> "Lines":
        """The lines of the text with [start, end) replaced by `new`, an edit that starts on
        `line`: the starts of the lines above it are kept (the edit may join a `\\r` that
        ends the line above to a `\\n` it brings, so that line's own start is found again)."""
        return Lines(self.text[:start] + new + self.text[end:], self._starts[:max(line, 1)])


def apply_changes(lines: Lines, changes: Iterable, encoding: str) -> Lines:
    """A document's lines after `textDocument/didChange`'s content changes, in order."""
    for change in changes:
        if not isinstance(change, lsp.TextDocumentContentChangePartial):
            lines = Lines(change.text)
            continue
        first, second = change.range.start, change.range.end
        if (second.line, second.character) < (first.line, first.character):
            first, second = second, first  # a reversed range: the text between its ends
        start, line = lines.locate(first, encoding)
        end = lines.offset(second, encoding)
        lines = lines.edited(start, max(start, end), change.text, line)
    return lines
