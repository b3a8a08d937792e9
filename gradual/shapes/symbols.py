"""Equalities between symbols, as OpenVINO's `ov::symbol` namespace.

OpenVINO labels a dimension with a symbol to say "this size equals every other size with an
equal symbol"; merging two labelled dimensions declares their symbols equal. Equal symbols
form classes in a union-find whose links live on `Symbol` itself (so nothing outlives the
symbols). A symbolic dimension `n` is labelled by its own symbol. These equalities are facts
about sizes a shape was built with; they never make two different polynomials equal.
"""

from __future__ import annotations

from typing import Optional

from gradual.shapes.poly import Symbol


def ancestor_of(symbol: Symbol) -> Symbol:
    """The representative of the symbol's class (path halving on the way)."""
    node = symbol
    while node._parent is not None:
        parent = node._parent
        if parent._parent is not None:
            node._parent = parent._parent
        node = parent
    return node


def are_equal(a: Optional[Symbol], b: Optional[Symbol]) -> bool:
    """Whether two symbols are known equal; a missing symbol (None) equals nothing."""
    if a is None or b is None:
        return False
    return a is b or ancestor_of(a) is ancestor_of(b)


def set_equal(a: Optional[Symbol], b: Optional[Symbol]) -> None:
    """Declare two symbols equal (nothing happens when either is missing)."""
    if a is None or b is None:
        return
    root_a, root_b = ancestor_of(a), ancestor_of(b)
    if root_a is not root_b:
        root_a._parent = root_b


def merge_symbols(lhs: Optional[Symbol], rhs: Optional[Symbol], merge_unequal: bool = True) -> Optional[Symbol]:
    """The symbol of a dimension merged from two labelled ones, as OpenVINO decides it: an
    equal pair or a lone symbol survives; of two unequal symbols the right one survives when
    `merge_unequal`, else neither (their sizes may differ, as in the hull of two `?`)."""
    if rhs is None or are_equal(lhs, rhs):
        return lhs
    if merge_unequal or lhs is None:
        return rhs
    return None
