"""Nested scopes.

Variables, dimension names, inferred types and runtime values all live in scopes that nest
(a body inside a function, a branch inside a body, a closure inside its definer).

The checker's phases walk scopes strictly in and out, so they keep one plain dict per table for
the whole nest and an `UndoLog` of what each level changed: a lookup is one dict access at any
depth (a chain of levels would make a program of depth d cost d per lookup, quadratic in all),
and leaving a level undoes its changes. Shadowing is free: an inner level's entry replaces the
outer one until the level ends.

The runtime keeps a `Chain` of frames instead: a closure outlives the level that made it and
keeps its defining frame as parent.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

_ABSENT = object()


class UndoLog:
    """Changes to plain dicts made since some mark, undone on request (newest first).

    The `unlogged` outermost levels are never undone change by change (changes made outside
    every mark cannot be; an owner that drops its tables whole when such a level ends says so),
    so what changes there is not remembered: the outermost level of a function body holds
    most bindings."""

    __slots__ = ("entries", "open", "unlogged")

    def __init__(self, unlogged: int = 0) -> None:
        self.entries: list = []
        self.open = 0
        self.unlogged = unlogged

    def set(self, table: dict, key: Any, value: Any) -> None:
        """`table[key] = value`, remembering what it replaces (inside a logged level)."""
        if self.open > self.unlogged:
            self.entries.append((table, key, table.get(key, _ABSENT)))
        table[key] = value

    def mark(self) -> int:
        """A point to come back to: the start of a nested level."""
        self.open += 1
        return len(self.entries)

    def undo(self, mark: int) -> None:
        """Undo every change made since `mark` (the nested level ends)."""
        self.open -= 1
        entries = self.entries
        while len(entries) > mark:
            table, key, old = entries.pop()
            if old is _ABSENT:
                del table[key]
            else:
                table[key] = old


class Chain:
    """A mixin for a scope level with a `parent` and dict-valued tables named by attribute."""

    __slots__ = ()
    parent: Optional["Chain"]

    def levels(self) -> Iterator["Chain"]:
        """This level, then each enclosing one."""
        level: Optional[Chain] = self
        while level is not None:
            yield level
            level = level.parent

    def find(self, table: str, key: Any) -> Optional[Any]:
        """The innermost non-None entry for `key` in the table called `table`, or None."""
        level: Optional[Chain] = self
        while level is not None:
            found = getattr(level, table).get(key)
            if found is not None:
                return found
            level = level.parent
        return None
