"""An operator call's attributes checked against the declaration: known names, the kind each
is declared with, its domain, and the defaults of those omitted.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from gradual.diagnostics import Diagnostic
from gradual.ops import messages
from gradual.ops.attr_domains import domain_problem, kind_problem
from gradual.ops.contracts import attribute_violation
from gradual.ops.registry import Operator
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    DTYPES,
)
from gradual.types.annotations import suggest


def check_attributes(op: Operator, call: ast.Call, report: Callable[[Diagnostic], None]) -> Optional[dict]:
    """Validate a call's attributes against the declaration; returns name -> value with
    defaults filled in, or None after reporting a problem."""
    return attribute_values(op, call.attrs, call.span, report)


def unreported(diag: Diagnostic) -> None:
    """A `report` for attributes checked ahead (`quick_outcome`): a problem makes the call
    checked as syntax, which reports it."""


def attribute_values(op: Operator, attrs: tuple, span: Span, report: Callable[[Diagnostic], None]) -> Optional[dict]:
    """`check_attributes` of the Attr nodes `attrs` of a call at `span`."""
    if not attrs:
        defaults = op.defaults()
        if defaults is not None:
            return defaults  # shared: nothing downstream changes a call's attributes
    values: dict[str, Any] = {}
    ok = True
    for attr in attrs:
        spec = op.attrs.get(attr.name)
        if spec is None:
            report(
                messages.unknown_attribute(attr.span, op.name, attr.name, list(op.attrs), suggest(attr.name, op.attrs))
            )
            ok = False
            continue
        value = _attr_python(attr.value)
        problem = kind_problem(spec, value)
        if problem is not None:
            if spec.kind == "dtype" and isinstance(value, str) and value and value not in DTYPES:
                report(messages.unknown_dtype(attr.span, value, suggest(value, DTYPES)))
            else:
                expected = (
                    spec.describe()
                    if problem != "int64"
                    else ("a list of ints from -2^63 to 2^63 - 1" if spec.is_list else "an int from -2^63 to 2^63 - 1")
                )
                report(messages.bad_attribute(attr.span, op.name, attr.name, expected, _describe_value(value)))
            ok = False
            continue
        needed = domain_problem(op.name, attr.name, value)
        if needed is not None:
            report(messages.bad_attribute(attr.span, op.name, attr.name, needed, _describe_value(value)))
            ok = False
            continue
        if spec.is_list and value is not None and not isinstance(value, tuple):
            value = (value,)
        values[attr.name] = value
    for name, spec in op.attrs.items():
        if name not in values:
            if spec.has_default:
                values[name] = spec.default
            elif ok:
                report(messages.missing_attribute(span, op.name, name, spec.describe()))
                ok = False
    if ok:
        violation = attribute_violation(op, values)
        if violation is not None:
            name = violation.get("attr", "")
            where = next((a.span for a in attrs if a.name == name), span)
            report(messages.contract_violation(where, op.name, violation["condition"], violation["detail"], name))
            ok = False
    return values if ok else None


def _attr_python(value: Any) -> Any:
    cls = value.__class__
    if cls is ast.AttrSeq:
        return tuple([_attr_python(v) if v.__class__ in _ATTR_NODES else v for v in value.items])
    if cls is ast.Ident:
        return value.name
    return value


_ATTR_NODES = frozenset({ast.Ident, ast.AttrSeq})


#: item classes a flat sequence's key cannot hold as they are (their items' classes are not in it)
_NOT_FLAT = frozenset({ast.Ident, ast.AttrSeq, tuple})


def written_key(attrs: tuple) -> tuple:
    """Attr nodes as a hashable key: each name with its value and the value's class (1, 1.0
    and True are equal Python values but not equal attributes), so calls whose keys are equal
    get the same `attribute_values`. A scalar is `(name, (class, value))`; a sequence of
    scalars `(name, items, their classes)` (made without a call per item: most keys are of
    these two); anything else `(name, value with each scalar's class)`, never equal to either."""
    key: list[tuple[Any, ...]] = []
    for attr in attrs:
        value = attr.value
        cls = value.__class__
        if cls is ast.AttrSeq:
            items = value.items
            classes = tuple(map(type, items))
            if _NOT_FLAT.isdisjoint(classes):
                key.append((attr.name, items, classes))
                continue
        elif cls is not ast.Ident and cls is not tuple:
            key.append((attr.name, (cls, value)))
            continue
        key.append((attr.name, _typed(_attr_python(value))))
    return tuple(key)


def _typed(value: Any) -> Any:
    if value.__class__ is tuple:
        return tuple([_typed(v) for v in value])
    return (value.__class__, value)


def _describe_value(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_describe_value(v) for v in value) + "]"
    return str(value)
