"""References (Relay's `ref`, `ref_read`, `ref_write`): their typing in the checker.

`ref(e)` makes a cell holding e and has type `ref(T)` for e's type T; `ref_read(r)` has the
type of r's contents; `ref_write(r, e)` stores e and gives `()`. Reference types are
invariant: `ref(T)` and `ref(U)` are consistent when T and U are, and a reference flowing where
a more precise one is expected is checked (a cast `r as ref(U)`).

The runtime makes this sound with *monotonic references* (Siek, Vitousek, Cimini,
Tobin-Hochstadt and Garcia, "Monotonic References for Efficient Gradual Typing", ESOP 2015):
each cell carries the type it must keep, every write is checked against it, and a cast of a
reference to a more precise type makes its cell's type more precise (after checking the
value in it), never less. So widening a reference to `ref(?)` needs no cast, and a value read
through any reference always has the cell's type, which is at least as precise as every
reference type the cell was seen at. Elaboration writes each new cell's type as a cast,
`ref(e) as ref(T)`: it cannot fail (e has type T), it only tells the runtime what the cell keeps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradual.checker import messages
from gradual.checker.site.values import Callee
from gradual.ops import messages as ops_messages
from gradual.syntax import ast
from gradual.types import (
    BOTTOM,
    DYN,
    ERROR,
    BottomType,
    DynType,
    FuncType,
    RefType,
    TupleType,
    Type,
    TypeVar,
    is_static_type,
)

if TYPE_CHECKING:
    from gradual.checker.calls import Calls  # the checker, as the mixin that checks calls
    from gradual.checker.records import Env

UNIT = TupleType(())


def check_reference(checker: "Calls", e: ast.Call, arg_types: list[Type], env: "Env") -> Type:
    """The type of a reference form (`e.callee` names one of `ast.REF_FORMS`)."""
    form = e.callee.name  # type: ignore[union-attr]
    arity = ast.REF_FORMS[form]
    if e.attrs:
        checker.report(ops_messages.unknown_attribute(e.attrs[0].span, form, e.attrs[0].name, [], None))
    if len(arg_types) != arity:
        checker.report(messages.wrong_arity(e.span, form, arity, len(arg_types), _signature(form)))
        return ERROR
    if form == "ref":
        return _create(checker, e, arg_types[0])
    content = _contents(checker, form, e.args[0], arg_types[0], env)
    if form == "ref_read":
        return content
    _write(checker, e, content, arg_types[1], env)
    return UNIT


def _signature(form: str) -> str:
    return {"ref": "ref(T) -> ref(T)", "ref_read": "ref_read(ref(T)) -> T", "ref_write": "ref_write(ref(T), T) -> ()"}[
        form
    ]


def _create(checker: "Calls", e: ast.Call, value: Type) -> Type:
    """`ref(e)`: a cell that keeps e's type; elaboration tells the runtime which (a cast
    that cannot fail, so it is not counted as a check)."""
    content = _without_requirements(checker.final_type(value, checker.current.solver))  # type: ignore[union-attr]
    if not isinstance(content, (DynType, BottomType)):
        checker.record_check(e, RefType(content), e.span, messages.reference_reason("ref", e.span), verifies=False)
    return RefType(content)


def _without_requirements(t: Type) -> Type:
    """A cell's type: a function in it without what its body was learned to check
    (`FuncType.requires`, `dtype_requires`), since `ref_write` may put another function of the
    same type there (as a join forgets them)."""
    if isinstance(t, FuncType):
        return t.without_requires()
    if isinstance(t, TupleType):
        return TupleType(tuple(_without_requirements(f) for f in t.fields))
    return t


def _contents(checker: "Calls", form: str, node: ast.Expr, t: Type, env: "Env") -> Type:
    """The contents type of a reference argument; a `?` one is checked to be a reference."""
    solver = checker.current.solver  # type: ignore[union-attr]
    t = solver.resolve_type(t)
    if isinstance(t, RefType):
        return t.content
    if isinstance(t, BottomType):
        return BOTTOM
    if isinstance(t, TypeVar):
        content = TypeVar("content")
        solver.bind_type(t, RefType(content))
        return content
    if isinstance(t, DynType):
        if t.from_error:
            return ERROR
        checker.flow(
            t,
            RefType(DYN),
            node,
            env,
            (),
            Callee("flow", f"the reference given to `{form}`"),
            insert=True,
            blame=node.span,
        )
        return DYN
    checker.report(messages.not_a_reference(node.span, form, t))
    return ERROR


def _write(checker: "Calls", e: ast.Call, content: Type, value: Type, env: "Env") -> None:
    """`ref_write(r, v)`: v must be consistent with r's contents (checked where it is less
    precise). The runtime checks every write against the cell's own type, which may be more
    precise than r's: through a reference of imprecise contents that check can fail, so it
    counts as a check site."""
    node = e.args[1]
    checker.flow(
        value,
        content,
        node,
        env,
        (),
        Callee("flow", "the value written to this reference", expected=content),
        insert=True,
        blame=node.span,
    )
    if not isinstance(content, (BottomType, TypeVar)) and not is_static_type(content):
        checker.record_check(
            e, content, e.span, messages.reference_reason("ref_write", e.span), verifies=True, inserted=False
        )
