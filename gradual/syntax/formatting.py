"""Formatting a program text: the printer's layout with the text's comments put back, offered
only when it provably keeps both the program and its comments.

`format_text` parses the text with its comments, prints it (`printer.format_module`), then
parses the result again: the two trees must be the same (`same_tree`: spans aside) and the
comments the same, in the same order. Anything else (a text that does not parse, a comment
that moved where it would read differently) gives None: the text is left as it is.
"""

from __future__ import annotations

from typing import Optional

from gradual.syntax.ast import same_tree
from gradual.syntax.parser import ParseError, parse_with_comments
from gradual.syntax.printer import format_module
from gradual.syntax.source import Source


def format_text(text: str, path: str = "<input>") -> Optional[str]:
    """The text formatted, or None when it does not parse or formatting would not keep its
    meaning and every comment."""
    try:
        module, comments = parse_with_comments(Source(text, path))
    except (ParseError, RecursionError):
        return None
    formatted = format_module(module, comments=comments)
    try:
        again, kept = parse_with_comments(Source(formatted, path))
    except (ParseError, RecursionError):
        return None
    if not same_tree(module, again) or [c.text for c in kept] != [c.text for c in comments]:
        return None
    return formatted
