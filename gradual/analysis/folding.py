"""Folding ranges, from the text alone (a document folds while it does not parse): each
definition from its `def` line to its closing brace, each bracketed body or list that spans
lines (a closure's or a branch's `{ ... }`, a long parameter list or call), each block
comment and each run of two or more `//` lines.

Lines are 0-based and counted as LSP counts them (`\\n`, `\\r\\n`, a lone `\\r`); a bracket's
range ends on the line before its closing bracket when that bracket starts its line (so the
closing line stays in view, as editors fold)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from gradual.analysis.lexical import tokens
from gradual.syntax.source import LINE_BREAK


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


def folding_ranges(text: str) -> list[Fold]:
    """The folds of a document, sorted by their first line."""
    lines = _Lines(text)
    found: dict[tuple, Fold] = {}
    stack: list = []  # (bracket, offset, the `def` that opened before it at top level)
    run_start = run_end = -1  # a run of `//` lines
    definition = -1
    for token in tokens(text):
        value = text[token.start : token.end]
        if token.kind == "comment":
            if value.startswith("//") and lines.starts_line(token.start):
                line = lines.of(token.start)
                if line == run_end + 1 and run_start >= 0:
                    run_end = line
                else:
                    _comment_run(found, run_start, run_end)
                    run_start = run_end = line
            else:
                first, last = lines.of(token.start), lines.of(token.end - 1)
                if last > first:
                    found[(first, "comment")] = Fold(first, last, "comment")
            continue
        if token.kind == "name" and value == "def" and not stack:
            definition = token.start
        if token.kind != "punct" or value not in "([{)]}":
            continue
        if value in "([{":
            stack.append((value, token.start, definition if not stack else -1))
            continue
        if not stack:
            continue
        _, opened, owner = stack.pop()
        end = lines.of(token.start) - (1 if lines.starts_line(token.start) else 0)
        first = lines.of(opened)
        if end > first:
            found.setdefault((first, "region"), Fold(first, end, "region"))
        if value == "}" and not stack and definition >= 0:
            start = lines.of(definition)
            if end > start:
                found[(start, "region")] = Fold(
                    start, max(end, found.get((start, "region"), Fold(0, 0, "")).end_line), "region"
                )
            definition = -1
    _comment_run(found, run_start, run_end)
    return sorted(found.values(), key=lambda f: (f.start_line, f.end_line))


def _comment_run(found: dict, start: int, end: int) -> None:
    if start >= 0 and end > start:
        found[(start, "comment")] = Fold(start, end, "comment")
