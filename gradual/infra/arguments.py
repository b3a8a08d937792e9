"""Checking the arguments of library entry points."""

from __future__ import annotations

from typing import Any


def require(value: Any, kinds: Any, function: str, what: str) -> None:
    """A TypeError naming the library function and what it takes, when `value` is none of
    `kinds` (a wrong argument failed deep inside, with an error about lark or `.ops`)."""
    if not isinstance(value, kinds):
        raise TypeError(f"gradual.{function} takes {what}, not {type(value).__name__}")
