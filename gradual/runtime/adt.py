"""Algebraic data types at runtime: constructing values, matching patterns, and checking a
value against an ADT type (a cast the checker inserted, an annotation).

A value is an `AdtValue` (values.py): its constructor and fields. The checker guarantees each
field has the constructor's declared field type up to the type's arguments, so a check of a
`List[A]` (arguments that say nothing) looks at the constructor only, and a check of a
`List[Tensor[(?, 4), float32]]` walks the list once, without recursion (a list may be 100,000
long), and remembers on every cell it walked that the cell has that type: a recursion that
passes the tail to a function with the same parameter type finds it checked already.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from gradual.runtime.errors import Blame, CheckFailure, Mismatch
from gradual.runtime.values import AdtValue, describe_value, value_kind
from gradual.syntax import ast
from gradual.types import AdtType, DynType, Type, TypeParam, TypeVar, is_ground, type_symbols
from gradual.types.params import substitute


def construct(ctor: Any, args: tuple) -> AdtValue:
    """The value `ctor(args...)`."""
    return AdtValue(ctor, args)


def says_nothing(t: Type) -> bool:
    """Whether every value has type `t` as far as a check can tell (`?`, a type parameter)."""
    return isinstance(t, (DynType, TypeParam, TypeVar))


def check_adt(value: Any, t: AdtType, check_field: Callable[[Any, Type], Any], fail: Callable) -> Any:
    """Check `value` against `t`: the walk over every cell of the same type (a list's spine)
    is a loop; other fields are checked by `check_field(value, type)` (the cast's own check,
    which may wrap a function: the value is then rebuilt around the wrapped field). `fail(
    mismatch)` raises. Returns the value (or its rebuilt copy)."""
    cacheable = _cache_key(t)
    order: list = []  # (cell, field types) in the order walked
    pending = [(value, t)]
    while pending:
        v, want = pending.pop()
        if not isinstance(v, AdtValue):
            fail(Mismatch("kind", {"actual": value_kind(v), "expected": f"a {want.name}"}, ()))
        if v.ctor.adt.name != want.name:
            fail(Mismatch("constructor", {"actual": v.ctor.name, "adt": v.ctor.adt.name, "expected": want.name}, ()))
        if all(says_nothing(a) for a in want.args):
            continue  # its fields have their declared types by construction
        key = _cache_key(want)
        if key is not None and v.checked is not None and key in v.checked:
            continue
        mapping = dict(zip(v.ctor.adt.params, want.args))
        fields = tuple(substitute(f, mapping) for f in v.ctor.fields)
        order.append((v, fields, key))
        for field, ftype in zip(v.fields, fields):
            if isinstance(ftype, AdtType) and ftype.name == want.name:
                pending.append((field, ftype))  # the spine: walked by this loop
    replaced: dict = {}
    for cell, fields, key in reversed(order):  # innermost first: a rebuilt tail is in `replaced`
        new_fields = []
        changed = False
        for field, ftype in zip(cell.fields, fields):
            if isinstance(ftype, AdtType) and isinstance(field, AdtValue) and ftype.name == t.name:
                out = replaced.get(id(field), field)
            elif says_nothing(ftype):
                out = field
            else:
                out = check_field(field, ftype)
            changed = changed or out is not field
            new_fields.append(out)
        if changed:
            replaced[id(cell)] = AdtValue(cell.ctor, tuple(new_fields))
        elif key is not None and cacheable is not None:
            if cell.checked is None:
                cell.checked = set()
            cell.checked.add(key)
    return replaced.get(id(value), value)


def _cache_key(t: AdtType) -> Optional[Type]:
    """The type as a key of `AdtValue.checked`: only a closed type (no symbols to bind, no
    inference variables) means the same thing in every frame."""
    if type_symbols(t) or not is_ground(t):
        return None
    try:
        hash(t)
    except TypeError:
        return None
    return t


def match_pattern(pattern: ast.Pattern, value: Any, bind: Callable[[ast.PVar, Any], None]) -> bool:
    """Whether `value` matches `pattern`; the variables are bound (`bind`) only on a match.
    Iterative: patterns are small, but the loop keeps the interpreter's stack flat."""
    bindings: list = []
    stack: list = [(pattern, value)]
    while stack:
        p, v = stack.pop()
        if isinstance(p, ast.PWild):
            continue
        if isinstance(p, ast.PVar):
            bindings.append((p, v))
        elif isinstance(p, ast.PCtor):
            if not isinstance(v, AdtValue) or v.ctor.name != p.name or len(v.fields) != len(p.args):
                return False
            stack.extend(zip(p.args, v.fields))
        elif isinstance(p, ast.PTuple):
            if not isinstance(v, tuple) or len(v) != len(p.fields):
                return False
            stack.extend(zip(p.fields, v))
    for p, v in bindings:
        bind(p, v)
    return True


def no_clause(e: ast.Match, value: Any, reason: str) -> CheckFailure:
    """The failure of a partial match (`match?`) that no clause takes, blamed on the match."""
    made = value.ctor.name if isinstance(value, AdtValue) else value_kind(value)
    return CheckFailure(
        Blame(e.span, "match", reason),
        "a value one of its clauses takes",
        describe_value(value),
        Mismatch("no-clause", {"actual": made}, ()),
    )
