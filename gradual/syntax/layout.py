"""A document algebra for laying out text to a width (after Wadler's "prettier printer" and
Prettier's documents), and its renderer.

A document is:

* a `str`: text on one line (never a line break);
* a `list`: its documents one after another;
* `Group(doc)`: laid out flat (every line of it a space or nothing) when all of it, and what
  follows it up to the next line break, fits in the width; else broken (every `SOFT` and
  `SPACE` line directly in it a line break). A group inside a broken one is decided anew;
  a group inside a flat one is flat;
* `Nest(doc)`: the line breaks inside it indent one level deeper;
* `SOFT` (nothing when flat), `SPACE` (a space when flat), `COMMA` (`, ` when flat, else `,`
  and a line break), `HARD` (always a line break; the groups around one never fit flat; on a
  line still empty, none), `BLANK` (a hard line break and an empty line);
* `IfBreak(broken, flat)`: text that depends on whether the enclosing group broke (a trailing
  comma);
* `Note(comment)`: a comment of the source, placed by the rules of `Renderer.note`.

Rendering is iterative and linear in the document's size: a group's flat width is measured
once (`flat_width`, kept on the group), and what follows a group is read only up to the next
line break or `width` columns.
Indentation grows with nesting up to `MAX_INDENT` levels and stays there (a program 10,000
levels deep would otherwise be mostly spaces). With `width=None` every group is flat (the
printer's one-line-per-construct layout); `HARD` lines and comments still break.
"""

from __future__ import annotations

from typing import Any, Sequence

from gradual.syntax.comments import Comment

#: Indentation grows with nesting up to this depth and stays there.
MAX_INDENT = 32
INDENT = "  "


class Group:
    """Flat if it fits, else broken (see the module docstring). `text`, when given, is the
    group laid out flat (it holds no comment and no hard line break); a group of text items
    (`bracket`) builds its document only if it breaks (most never do)."""

    __slots__ = ("_doc", "width", "text", "_items")

    def __init__(self, doc: Doc | None, text: str | None = None) -> None:
        self._doc = doc
        self.text = text
        self.width = -1 if text is None else len(text)  # its width laid out flat, once measured
        self._items: tuple[str, Sequence[Doc], str, str] | None = None

    @property
    def doc(self) -> Doc:
        doc = self._doc
        if doc is None:
            assert self._items is not None, "a group is made with its document or its items"
            doc = self._doc = _bracket_doc(*self._items, None)
        return doc


def bracket(
    opening: str, items: Sequence[Doc], closing: str, trailing: str = ",", notes: list[Doc] | None = None
) -> Group:
    """`opening item, item closing` as a group: flat, or one item per line one level deeper,
    `trailing` after the last (`,` where the grammar takes a trailing comma; `,1` for a tuple,
    whose single item takes its comma flat too; `` for none). `notes` (comments) go after the
    items. A group of text items knows its flat text at once."""
    if not notes:
        for item in items:
            if item.__class__ is not str:
                break
        else:
            last = "," if trailing == ",1" and len(items) == 1 else ""
            group = Group(None, f"{opening}{', '.join(items)}{last}{closing}")  # type: ignore[arg-type]
            group._items = (opening, items, closing, trailing)
            return group
    return Group(_bracket_doc(opening, items, closing, trailing, notes))


def _bracket_doc(opening: str, items: Sequence[Doc], closing: str, trailing: str, notes: list[Doc] | None) -> Doc:
    """The document of `bracket`'s group."""
    inner: list[Doc] = [SOFT]
    for i, item in enumerate(items):
        if i:
            inner.append(COMMA)
        inner.append(item)
    if items and trailing:
        inner.append("," if trailing == ",1" and len(items) == 1 else IfBreak(trailing[0]))
    if notes:
        inner += notes
    return [opening, Nest(inner), SOFT, closing]


class Nest:
    """Line breaks inside indent one level deeper."""

    __slots__ = ("doc", "width")

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.width = -1


class Line:
    """A place where a line may break: `flat` is what it is when its group is flat (None for
    a hard line, which always breaks); `lead`, the text that ends the line when it breaks;
    `breaks`, how many line breaks it is then (2: an empty line follows, however many a comment
    before it owes)."""

    __slots__ = ("flat", "lead", "breaks")

    def __init__(self, flat: str | None, breaks: int = 1, lead: str = "") -> None:
        self.flat = flat
        self.lead = lead
        self.breaks = breaks

    def __repr__(self) -> str:
        return {None: "HARD", "": "SOFT", " ": "SPACE"}.get(self.flat, "Line") + "2" * (self.breaks > 1)


SOFT = Line("")
SPACE = Line(" ")
HARD = Line(None)
BLANK = Line(None, 2)  # a hard line break and an empty line
COMMA = Line(", ", lead=",")  # between two items: `, ` flat, `,` then a line break


class IfBreak:
    """`broken` when the enclosing group is broken, else `flat`."""

    __slots__ = ("broken", "flat")

    def __init__(self, broken: str, flat: str = "") -> None:
        self.broken = broken
        self.flat = flat


#: the width of what cannot be laid out flat (it holds a hard line break)
UNBOUNDED = 1 << 60
#: what a comment adds to a measure (`_measure`) besides its width
_NOTED = 1 << 32


def _measure(doc: Any) -> int:
    """A document's width laid out flat, plus _NOTED for each comment in it (UNBOUNDED when it
    holds a hard line break); kept on each group and nest, so measuring a document again, or
    one that holds it, costs no more than its own items."""
    cls = doc.__class__
    if cls is str:
        return len(doc)
    if cls is Group or cls is Nest:
        width: int = doc.width
        if width < 0:
            width = doc.width = _measure(doc.doc)
        return width
    if cls is list:
        total = 0
        for item in doc:
            total += len(item) if item.__class__ is str else _measure(item)
        return min(total, UNBOUNDED)
    if cls is Line:
        return UNBOUNDED if doc.flat is None else len(doc.flat)
    if cls is IfBreak:
        return len(doc.flat)
    if cls is Note:
        return UNBOUNDED if doc.hard else doc.width + _NOTED
    raise TypeError(f"not a document: {doc!r}")


def flat_width(doc: Any) -> int:
    """The width of a document laid out flat on one line (UNBOUNDED when it holds a hard line
    break)."""
    measured = _measure(doc)
    return UNBOUNDED if measured >= UNBOUNDED else measured % _NOTED


def flat_text(doc: Any) -> str:
    """A document laid out flat, when it holds no comment and no hard line break."""
    pieces: list[str] = []
    stack: list[Any] = [doc]
    pop, push, add = stack.pop, stack.append, pieces.append
    while stack:
        d = pop()
        cls = d.__class__
        if cls is str:
            add(d)
        elif cls is list:
            stack.extend(reversed(d))
        elif cls is Group:
            if d.text is not None:
                add(d.text)
            else:
                push(d.doc)
        elif cls is Nest:
            push(d.doc)
        elif cls is Line or cls is IfBreak:
            add(d.flat)
        else:
            raise ValueError(f"not flat: {d!r}")
    return "".join(pieces)


class Note:
    """A comment of the source (see `Renderer.note` for where it goes)."""

    __slots__ = ("comment", "hard", "width")

    def __init__(self, comment: Comment) -> None:
        self.comment = comment
        # whether it always ends a line where it is: a line comment, a comment that had a line
        # of its own, a block over several lines (measuring stops at it); these depend on the
        # comment alone, so a text formatted again measures alike
        self.hard = comment.is_line or comment.own_line or "\n" in comment.text or "\r" in comment.text
        self.width = len(comment.text) + 1


Doc = str | list["Doc"] | Group | Nest | Line | IfBreak | Note

# what the line being written ends in (decides where a comment may follow it)
_TOP, _BLANK, _OPEN, _CODE, _COMMENT, _LINE_COMMENT = range(6)
_OPENERS = ("(", "[", "{")
_NO_SPACE_BEFORE = (")", "]", "}", ",", ";", ".")


_PADS = tuple(INDENT * level for level in range(MAX_INDENT + 1))


def _pad(level: int) -> str:
    return _PADS[level] if level < MAX_INDENT else _PADS[MAX_INDENT]


class Renderer:
    """Writes a document as text (`render`)."""

    def __init__(self, width: int | None) -> None:
        self.width = width
        self.out: list[str] = []
        self.col = 0
        self.fresh = True  # nothing but indentation on the current line
        self.kind = _TOP  # what the current line ends in
        self.prev = _TOP  # what the last line that ended was
        self.takes = -1  # the piece that ends the last line a trailing comment may follow
        self.newline_at = -1  # the piece that began the current line
        self.pending = 0  # line breaks owed before anything more is written (after a comment)
        self.pending_level = 0
        self.space = False  # a space is owed before the next text (after an inline comment)

    # rendering --------------------------------------------------------------------------------
    def render(self, doc: Doc) -> str:
        stack: list[tuple[int, bool, Any]] = [(0, self.width is None, doc)]
        pop, push, extend = stack.pop, stack.append, stack.extend
        out = self.out
        while stack:
            level, flat, d = pop()
            cls = d.__class__
            if cls is str:
                if not d:
                    continue
                if self.pending or self.space:
                    self.text(d, level)
                else:  # `text`, inline: the commonest piece
                    out.append(d)
                    self.col += len(d)
                    self.fresh = False
                    self.kind = _OPEN if d[-1] in _OPENERS else _CODE
            elif cls is list:
                extend([(level, flat, item) for item in reversed(d)])
            elif cls is Group:
                flat = flat or self.fits(d, stack)
                if not flat:
                    push((level, False, d.doc))
                elif d.text is not None:
                    self.text(d.text, level)
                elif _measure(d) < _NOTED:  # no comment in it: all at once
                    self.text(flat_text(d.doc), level)
                else:
                    push((level, True, d.doc))
            elif cls is Nest:
                push((level + 1, flat, d.doc))
            elif cls is Line:
                if flat and d.flat is not None:
                    if self.pending:
                        self.newline(self.pending_level)
                    elif d.flat:
                        self.text(d.flat, level)
                else:
                    if d.lead:
                        self.text(d.lead, level)
                    self.newline(level, d.breaks)
            elif cls is IfBreak:
                text = d.flat if flat else d.broken
                if text:
                    self.text(text, level)
            elif cls is Note:
                self.note(d.comment, level)
            else:
                raise TypeError(f"not a document: {d!r}")
        self.end_line()
        return "".join(self.out)

    def fits(self, group: Group, rest: list[tuple[int, bool, Any]]) -> bool:
        """Whether `group` laid out flat, then what follows it (`rest`, the renderer's stack) up
        to its next line break, fits in what is left of the line."""
        width = self.width
        if width is None:
            return True
        if self.pending:
            left = width - len(_pad(self.pending_level))
        else:
            left = width - self.col - (1 if self.space else 0)
        left -= flat_width(group)
        # what follows: in a broken group the first line break ends the line; a group not
        # yet decided is measured as if flat
        todo: list[tuple[bool, Any]] = []
        pop, push = todo.pop, todo.append
        at = len(rest)
        while left >= 0:
            if not todo:
                if at == 0:
                    return True
                at -= 1
                _, flat, d = rest[at]
                push((flat, d))
                continue
            flat, d = pop()
            cls = d.__class__
            if cls is str:
                left -= len(d)
            elif cls is list:
                if d:
                    push((flat, _Tail(d, 0)))
            elif cls is _Tail:
                items, index = d.items, d.index
                if index + 1 < len(items):
                    push((flat, _Tail(items, index + 1)))
                push((flat, items[index]))
            elif cls is Nest:
                push((flat, d.doc))
            elif cls is Line:
                if d.flat is None or not flat:
                    return left >= len(d.lead)  # the line ends here
                left -= len(d.flat)
            elif cls is IfBreak:
                left -= len(d.flat if flat else d.broken)
            elif cls is Note and d.hard:
                return True
            else:  # a group, a note
                measured = flat_width(d)
                if measured >= UNBOUNDED and cls is Group:
                    push((True, d.doc))  # its first line break ends the line
                else:
                    left -= measured
        return False

    # writing ----------------------------------------------------------------------------------
    def text(self, text: str, level: int) -> None:
        if self.pending:
            self.newline(self.pending_level)
        elif self.space:
            if text[0] not in _NO_SPACE_BEFORE:
                text = " " + text
        self.space = False
        self.out.append(text)
        self.col += len(text)
        self.fresh = False
        self.kind = _OPEN if text[-1] in _OPENERS else _CODE

    def newline(self, level: int, breaks: int = 1) -> None:
        """End the line with `breaks` line breaks (or the empty line a comment owes), then
        indent to `level`. On a line that is still empty, only the indentation changes, and
        the empty lines before it become `breaks - 1` if they were fewer."""
        breaks = max(self.pending, breaks)
        at = self.newline_at
        if self.fresh and at >= 0 and at == len(self.out) - 1:
            piece = self.out[at]
            breaks = max(breaks, len(piece) - len(piece.lstrip("\n")))
            if breaks > 1:
                self.prev = _BLANK
            pad = _pad(level)
            self.out[at] = "\n" * breaks + pad
            self.col = len(pad)
            self.pending = 0
            self.space = False
            return
        self.end_line()
        if breaks > 1:
            self.prev = _BLANK
        pad = _pad(level)
        self.out.append("\n" * breaks + pad)
        self.newline_at = len(self.out) - 1
        self.col = len(pad)
        self.fresh = True
        self.pending = 0
        self.space = False

    def end_line(self) -> None:
        """Close the current line: drop trailing blanks, note what it ended in."""
        out = self.out
        while out and out[-1].endswith(" "):
            stripped = out[-1].rstrip(" ")
            if stripped:
                out[-1] = stripped
                break
            out.pop()
        if self.fresh:
            if self.newline_at >= 0:
                self.prev = _BLANK
            return
        self.prev = self.kind
        self.takes = len(out) - 1 if self.kind in (_CODE, _OPEN) else -1

    # comments ---------------------------------------------------------------------------------
    def note(self, c: Comment, level: int) -> None:
        """Place a comment that came before what follows it in the document:

        * one that followed code on its line goes at the end of the last line that ends in
          code (across empty lines), if the renderer stands at a line start; else where it
          stands;
        * a block comment that led into code on its line stays in front of what follows;
        * one that had its line(s) to itself gets a line of its own, indented as what
          follows, with the empty line before or after it that it had;
        * a line comment ends its line: what follows goes on the next.
        """
        if self.pending:
            self.newline(self.pending_level)
        if self.fresh:
            if c.after_code and self.takes >= 0:
                self.out[self.takes] += " " + c.text
                if c.is_line:
                    self.takes = -1
                    if self.prev != _BLANK:
                        self.prev = _LINE_COMMENT
                return
            if c.before_code and not c.is_line:
                self._inline(c.text)
                return
            self._own_line(c, level)
            return
        if c.own_line:
            self.newline(level)
            self._own_line(c, level)
        elif c.is_line:
            self.out.append(c.text if self.out[-1][-1:] == " " else " " + c.text)
            self.kind = _LINE_COMMENT
            self._owe(1, level)
        else:
            self._inline(c.text)

    def _inline(self, text: str) -> None:
        if not self.fresh and self.out and self.out[-1][-1:] not in (" ", "(", "["):
            text = " " + text
        self.out.append(text)
        self.col = _column_after(text, self.col)
        self.fresh = False
        self.kind = _CODE
        self.space = True

    def _own_line(self, c: Comment, level: int) -> None:
        if c.blank_before and self.prev not in (_TOP, _BLANK, _OPEN) and self.newline_at >= 0:
            self.out[self.newline_at] = "\n" + self.out[self.newline_at]
        self.out.append(c.text)
        self.col = _column_after(c.text, self.col)
        self.fresh = False
        self.kind = _COMMENT
        self.space = False
        self._owe(2 if c.blank_after else 1, level)

    def _owe(self, breaks: int, level: int) -> None:
        self.pending = breaks
        self.pending_level = level


class _Tail:
    """The items of a list from `index` on, while measuring (a long list is not copied)."""

    __slots__ = ("items", "index")

    def __init__(self, items: list[Doc], index: int) -> None:
        self.items = items
        self.index = index


def _column_after(text: str, col: int) -> int:
    last = max(text.rfind("\n"), text.rfind("\r"))
    return col + len(text) if last < 0 else len(text) - last - 1


def render(doc: Doc, width: int | None = None) -> str:
    """The document as text, fitted to `width` columns where it can be (None: no limit)."""
    return Renderer(width).render(doc)
