"""Comments (and the `#[version]` header) as the formatter keeps them: their text, and how
each sat among its lines, which decides where the printer puts it back (see `printer.py`)."""

from __future__ import annotations

from dataclasses import dataclass

_SPACE = " \t\r\f"


@dataclass(frozen=True)
class Comment:
    """One comment between two tokens.

    `after_code`: something (code or another comment) precedes it on its first line, so it
    trails that line. `before_code`: something follows it on its last line, so it leads into
    that. Neither: it has its line(s) to itself. `blank_before` / `blank_after`: an empty line
    separates it from what precedes / follows it."""

    start: int
    end: int
    text: str
    after_code: bool = False
    before_code: bool = False
    blank_before: bool = False
    blank_after: bool = False

    @property
    def is_line(self) -> bool:
        """A `//` comment: it runs to the end of its line, so a line break must follow it."""
        return self.text.startswith("//")

    @property
    def own_line(self) -> bool:
        """Whether it had its line(s) to itself."""
        return not self.after_code and not self.before_code


def comments_of(text: str, spans: list[tuple[int, int]]) -> list[Comment]:
    """The comments at `spans` (the lexer's trivia, in order) with how each sat in `text`.
    A line comment's text stops before the end of its line (and any `\\r` there)."""
    found = []
    for start, end in spans:
        body = text[start:end]
        if body.startswith("//"):
            body = body.rstrip()
            end = start + len(body)
        before, gap_before = _before(text, start)
        after, gap_after = _after(text, end)
        found.append(
            Comment(
                start,
                end,
                body,
                after_code=before,
                before_code=after,
                blank_before=gap_before > 1,
                blank_after=gap_after > 1,
            )
        )
    return found


def _before(text: str, start: int) -> tuple[bool, int]:
    """Whether something precedes `start` on its line, and how many line breaks separate it
    from the text before."""
    at, breaks = start - 1, 0
    while at >= 0 and (text[at] in _SPACE or text[at] == "\n"):
        breaks += _breaks_at(text, at)
        at -= 1
    return at >= 0 and breaks == 0, breaks if at >= 0 else 0


def _after(text: str, end: int) -> tuple[bool, int]:
    """Whether something follows `end` on its line, and how many line breaks separate it from
    the text after."""
    at, breaks = end, 0
    while at < len(text) and (text[at] in _SPACE or text[at] == "\n"):
        breaks += _breaks_at(text, at)
        at += 1
    return at < len(text) and breaks == 0, breaks if at < len(text) else 0


def _breaks_at(text: str, at: int) -> bool:
    """Whether a line break ends at `at`: a `\n`, or a `\r` no `\n` follows (source.LINE_BREAK;
    a lone `\r` ends a line as it does for an editor)."""
    char = text[at]
    return char == "\n" or (char == "\r" and text[at + 1 : at + 2] != "\n")
