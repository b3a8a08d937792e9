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
        return self.locate_at(position.line, position.character, encoding)

    def locate_at(self, line: int, character: int, encoding: str) -> tuple[int, int]:
        """`locate` of the position (line, character)."""
        bounds = self._bounds(max(line, 0))
        if bounds is None:
            return len(self.text), len(self._starts) - 1
        start, end = bounds
        return start + _column(self.text[start:end], character, encoding), line

    def offset(self, position: lsp.Position, encoding: str) -> int:
        """The code-point offset of a position."""
        return self.locate(position, encoding)[0]

    def position(self, offset: int, encoding: str) -> lsp.Position:
        """The position of a code-point offset (clamped to the text)."""
        return lsp.Position(*self.place(offset, encoding))

    def place(self, offset: int, encoding: str) -> tuple[int, int]:
        """`position` as (line, character)."""
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
        return line, units

    def edited(self, start: int, end: int, new: str, line: int) -> "Lines":
        """The lines of the text with [start, end) replaced by `new`, an edit that starts on
        `line`: the starts of the lines above it are kept (the edit may join a `\\r` that
        ends the line above to a `\\n` it brings, so that line's own start is found again)."""
        return Lines(self.text[:start] + new + self.text[end:], self._starts[: max(line, 1)])


def apply_changes(lines: Lines, changes: Iterable, encoding: str) -> Lines:
    """A document's lines after `textDocument/didChange`'s content changes, in order.

    Changes that follow one another through the text, each after the last (an editor's
    multi-cursor typing) or each before it (VS Code sends a replace-all's edits from the end
    of the document up), are one batch: their positions are found in the text before the
    batch, and the new text is made once. Applying each to a new copy of the whole text made
    k changes of a k-line document cost k copies (16,000 edits in one notification: 1.2 s,
    quadratic). Any other change ends the batch."""
    batch = _Batch(lines, encoding)
    for change in changes:
        if not isinstance(change, lsp.TextDocumentContentChangePartial):
            batch = _Batch(Lines(change.text), encoding)
            continue
        first, second = change.range.start, change.range.end
        if (second.line, second.character) < (first.line, first.character):
            first, second = second, first  # a reversed range: the text between its ends
        if not batch.add(first, second, change.text):
            batch = _Batch(batch.lines(), encoding)
            batch.add(first, second, change.text)
    return batch.lines()


class _Batch:
    """Edits of one text, found in its coordinates, that apply_changes makes at once."""

    def __init__(self, lines: Lines, encoding: str) -> None:
        self.base = lines
        self.encoding = encoding
        self.edits: list = []  # (start, end, text) offsets in the base text, in the order given
        self.direction = 0  # 1: each edit after the last; -1: each before it; 0: not known yet
        self.first_start: tuple = ()  # where the last edit starts, in the text as it is now
        self.last_end: tuple = ()  # where the last edit's new text ends now (line, units)
        self.base_end: tuple = ()  # ... and that place in the base text (line, units)
        self.top_line = 0  # the line of the lowest edit's start (line starts above it are kept)
        #: an edit may have joined a `\r` and a `\n` into one line break (or split one): the
        #: lines after it are not where counting its breaks says, so the batch takes no more
        self.closed = False

    def add(self, first: lsp.Position, second: lsp.Position, text: str) -> bool:
        """Take one change (its range in the text as the changes before it left it), when it
        is after the last one or before it as the batch's earlier changes were; False when not."""
        if self.closed:
            return False
        start_at, end_at = (first.line, first.character), (second.line, second.character)
        if self.edits:
            after = start_at >= self.last_end and self.direction >= 0
            before = end_at <= self.first_start and self.direction <= 0
            if not (after or before):
                return False
            self.direction = 1 if after else -1
            if after:  # past the last edit: its lines moved by the lines it added or removed
                start_at, end_at = self._in_base(start_at), self._in_base(end_at)
        base, encoding = self.base, self.encoding
        start, line = base.locate_at(*start_at, encoding)
        end = max(start, base.locate_at(*end_at, encoding)[0])
        if not self.edits or line < self.top_line:
            self.top_line = line
        self.edits.append((start, end, text))
        self.closed = "\r" in text or text.startswith("\n") or base.text[start - 1 : start] == "\r"
        begun = base.place(start, encoding)  # where it starts, in the base text and now
        line_now, column_now = self._now(*begun)
        self.first_start = (line_now, column_now)  # (not as written: past a line's end is its end)
        self.base_end = base.place(end, encoding)
        breaks = list(_BREAK.finditer(text))
        if breaks:
            self.last_end = (line_now + len(breaks), _units(text[breaks[-1].end() :], encoding))
        else:
            self.last_end = (line_now, column_now + _units(text, encoding))
        return True

    def _now(self, line: int, units: int) -> tuple:
        """A place of the base text before the edit being added, in the text as the batch's
        edits so far left it: moved by the last edit when it is after it (before it, nothing
        moved)."""
        if self.direction <= 0 or len(self.edits) < 2:
            return line, units
        end_line, end_units = self.base_end
        if line == end_line:
            return self.last_end[0], units - end_units + self.last_end[1]
        return line - end_line + self.last_end[0], units

    def _in_base(self, at: tuple) -> tuple:
        """A place at or after the last edit's end, in the text as it is now, in the base text."""
        line, units = at
        end_line, end_units = self.last_end
        if line == end_line:
            return self.base_end[0], self.base_end[1] + units - end_units
        return line - end_line + self.base_end[0], units

    def lines(self) -> Lines:
        """The lines of the text with every edit made (the base's, when there is none)."""
        if not self.edits:
            return self.base
        edits = self.edits if self.direction >= 0 else self.edits[::-1]
        text, at = self.base.text, 0
        pieces: list[str] = []
        for start, end, new in edits:
            pieces += (text[at:start], new)
            at = end
        pieces.append(text[at:])
        return Lines("".join(pieces), self.base._starts[: max(self.top_line, 1)])
