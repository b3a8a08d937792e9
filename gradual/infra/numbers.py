"""Integers as text, for every layer that prints one."""

from __future__ import annotations

#: digits per chunk when an int is too long for `str`
_CHUNK_DIGITS = 1000


def int_text(value: int) -> str:
    """Decimal text of any int, also beyond the interpreter's int-to-str digit limit
    (products of huge dimensions must still print in a diagnostic)."""
    try:
        return str(value)
    except ValueError:
        sign, value = ("-", -value) if value < 0 else ("", value)
        chunks: list[int] = []
        base = 10**_CHUNK_DIGITS
        while value:
            value, low = divmod(value, base)
            chunks.append(low)
        head, rest = chunks[-1], reversed(chunks[:-1])
        return sign + str(head) + "".join(f"{c:0{_CHUNK_DIGITS}d}" for c in rest)
