"""Nested scopes: levels of tables searched innermost first.

Variables, dimension names, inferred types and runtime values all live in scopes that nest
(a body inside a function, a branch inside a body, a closure inside its definer). Each level
keeps its own dicts; a lookup walks up through `parent`. Shadowing is free: an inner level's
entry is found first, and leaving the level forgets it.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional


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
        while level is not None:  # a plain loop: this is the checker's most frequent lookup
            found = getattr(level, table).get(key)
            if found is not None:
                return found
            level = level.parent
        return None

    def keys_of(self, table: str) -> list:
        """Every key of the table at every level (innermost first)."""
        return [key for level in self.levels() for key in getattr(level, table)]
