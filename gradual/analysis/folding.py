"""Folding ranges, from the text alone (a document folds while it does not parse): each
definition from its `def` line to its closing brace, each bracketed body or list that spans
lines (a closure's or a branch's `{ ... }`, a long parameter list or call), each block
comment and each run of two or more `//` lines.

Lines are 0-based and counted as LSP counts them (`\\n`, `\\r\\n`, a lone `\\r`); a bracket's
range ends on the line before its closing bracket when that bracket starts its line (so the
closing line stays in view, as editors fold)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from gradual.syntax.source import LINE_BREAK, line_end


@dataclass(frozen=True)
class Fold:
    start_line: int
    end_line: int
    kind: str  # "region" or "comment"


class _Lines:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]

    def of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def starts_line(self, offset: int) -> bool:
        """Whether only blanks stand before `offset` on its line."""
        return not self.text[self.starts[self.of(offset)] : offset].strip()


_SCAN = re.compile(r'/\*|//|"|Tensor[ \t]*\[|[()\[\]{}]|(?<![A-Za-z0-9_])def(?![A-Za-z0-9_])')
_STRING = re.compile(r'"[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*"?')


def folding_ranges(text: str) -> list[Fold]:
    """The folds of a document, sorted by their first line. The text is scanned for brackets,
    comments and strings only (reading every token took half a second at 10,000 lines); `//`
    inside a tensor type is floor division, as the lexer reads it."""
    lines = _Lines(text)
    found: dict[tuple, Fold] = {}
    stack: list = []  # (bracket, offset, inside a tensor type)
    run_start = run_end = -1  # a run of `//` lines
    definition = -1
    at = 0
    while True:
        m = _SCAN.search(text, at)
        if m is None:
            break
        token, at = m.group(), m.end()
        typed = bool(stack) and stack[-1][2]
        if token == "//" and not typed:
            end = line_end(text, m.start())
            if lines.starts_line(m.start()):
                line = lines.of(m.start())
                if line == run_end + 1 and run_start >= 0:
                    run_end = line
                else:
                    _comment_run(found, run_start, run_end)
                    run_start = run_end = line
            at = end
        elif token == "/*":
            close = text.find("*/", at)
            at = len(text) if close == -1 else close + 2
            first, last = lines.of(m.start()), lines.of(max(m.start(), at - 1))
            if last > first:
                found[(first, "comment")] = Fold(first, last, "comment")
        elif token == '"':
            at = _STRING.match(text, m.start()).end()  # type: ignore[union-attr]
        elif token == "def":
            if not stack:
                definition = m.start()
        elif token.startswith("Tensor"):
            stack.append(("[", m.end() - 1, True))
        elif token in "([{":
            stack.append((token, m.start(), typed))
        elif token != "//" and stack:
            _, opened, _ = stack.pop()
            if not (token == "}" and not stack) and _one_line(text, opened, m.start()):
                continue  # most brackets close on the line they open
            end_line = lines.of(m.start()) - (1 if lines.starts_line(m.start()) else 0)
            first = lines.of(opened)
            if end_line > first:
                found.setdefault((first, "region"), Fold(first, end_line, "region"))
            if token == "}" and not stack and definition >= 0:
                begin = lines.of(definition)
                if end_line > begin:
                    kept = found.get((begin, "region"))
                    found[(begin, "region")] = Fold(begin, max(end_line, kept.end_line if kept else 0), "region")
                definition = -1
    _comment_run(found, run_start, run_end)
    return sorted(found.values(), key=lambda f: (f.start_line, f.end_line))


def _one_line(text: str, start: int, end: int) -> bool:
    return text.find("\n", start, end) == -1 and text.find("\r", start, end) == -1


def _comment_run(found: dict, start: int, end: int) -> None:
    if start >= 0 and end > start:
        found[(start, "comment")] = Fold(start, end, "comment")
