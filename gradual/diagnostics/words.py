"""Phrasing every layer's messages share: ordinals, code in backticks, dim names, templates."""

from __future__ import annotations

from typing import Optional


def ordinal(n: int) -> str:
    """1 -> 1st, 2 -> 2nd, 11 -> 11th."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def backticked(text: object) -> str:
    return f"`{text}`"


def dim_name(axis: int) -> str:
    """`dim 1`; a dim of a value of unknown rank counted from its end: `the last dim`,
    `dim -2 (from the end)`."""
    if axis >= 0:
        return f"dim {axis}"
    return "the last dim" if axis == -1 else f"dim {axis} (from the end)"


def safe_format(template: str, texts: dict) -> str:
    class _Missing(dict):
        def __missing__(self, key: str) -> str:
            return "{" + key + "}"

    return template.format_map(_Missing(texts))


def did_you_mean(suggestion: Optional[str], sigil: str = "") -> Optional[str]:
    """The help line of a misspelling: `did you mean `%x`?` (None without a suggestion)."""
    return f"did you mean `{sigil}{suggestion}`?" if suggestion else None


def rename_data(name: str, suggestion: Optional[str]) -> dict:
    """The data of a did-you-mean: a tool may replace `name` (inside the span) by the suggestion."""
    return {"name": name, "suggestion": suggestion} if suggestion else {}
