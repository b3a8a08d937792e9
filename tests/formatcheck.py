"""What formatting must keep: a program's meaning as the checker sees it."""

from __future__ import annotations

import re
from collections.abc import Iterable

import gradual


def meaning(text: str, path: str = "<input>") -> tuple:
    """Each function's type and number of runtime checks, and the diagnostics (severity, code
    and message; not their positions, which formatting moves), of a program text."""
    result = gradual.check(text, path)
    functions = {name: (str(fn.type), fn.check_count) for name, fn in result.functions.items()}
    diagnostics = sorted((d.severity.value, d.code, d.message) for d in result.diagnostics)
    return functions, diagnostics


#: a token of the language, roughly (enough to tell how long the longest of a line is)
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|[%@?]?[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*|\S')


def too_long(text: str, width: int, unbroken: Iterable[str] = ()) -> list:
    """The lines of a formatted text longer than `width` although they need not be: a line may
    only be longer when it holds a comment (which cannot be broken) or a token that does not fit
    after the line's indentation (or one of the texts `unbroken`, counted as tokens)."""
    pieces = sorted(set(unbroken), key=len, reverse=True)
    found = []
    for line in text.splitlines():
        if len(line) <= width or "//" in line or "/*" in line:
            continue
        indent = len(line) - len(line.lstrip(" "))
        longest = max(len(t) for t in _TOKEN.findall(line))
        longest = max([longest] + [len(p) for p in pieces if p in line])
        if longest <= width - indent:
            found.append(line)
    return found
