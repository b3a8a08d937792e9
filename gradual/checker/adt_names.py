"""Names of algebraic data types: `type` definitions and their constructors, the kind of a
definition's bracketed parameters (dtype variable or type parameter), and patterns.

A definition's `[A, B]` declares dtype variables (`Tensor[(n,), T]`) and type parameters
(`%x: A`, `List[A]`, `fn (A) -> B`) alike, as Relay's text does for the latter: a name that
the signature uses as the dtype of a tensor type with dims (`Tensor[(n,), T]`, `Tensor[*, T]`)
is a dtype variable, any other a type parameter. The two never meet in Relay's programs, and
gradual's own kept their meaning (a scalar `T` beside `Tensor[(n,), T]` is still a dtype).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Callable, Optional

from gradual.checker import adt_messages
from gradual.diagnostics import Diagnostic
from gradual.syntax import ast
from gradual.types import AdtType, FuncType, Type, TypeParam
from gradual.types.annotations import Converter, DimScope, Report, TypeScope


@dataclass(eq=False)
class AdtDef:
    """A `type` definition: its name, type parameters and constructors (in order)."""

    name: str
    params: tuple[TypeParam, ...]
    ctors: list[CtorInfo] = field(default_factory=list)
    node: Optional[ast.TypeDef] = None

    def applied(self) -> AdtType:
        """The type over its own parameters (`List[A]`)."""
        return AdtType(self.name, self.params)


@dataclass(eq=False)
class CtorInfo:
    """A constructor: its type definition, position among its siblings and field types (over
    the definition's type parameters)."""

    name: str
    adt: AdtDef
    index: int
    fields: tuple[Type, ...] = ()
    node: Optional[ast.CtorDecl] = None

    @property
    def type(self) -> FuncType:
        """`fn [A](A, List[A]) -> List[A]`: a constructor is a polymorphic function."""
        return FuncType(self.fields, self.adt.applied(), type_params=self.adt.params)


def declare_types(
    types: tuple[ast.TypeDef, ...], report: Callable[[Diagnostic], None], annotation_report: Report
) -> tuple[dict[str, AdtDef], dict[str, CtorInfo]]:
    """The module's type definitions and constructors by name (the first of each name), their
    field types converted (types may refer to each other in any order)."""
    adts: dict[str, AdtDef] = {}
    ctors: dict[str, CtorInfo] = {}
    for t in types:
        first = adts.get(t.name)
        if first is not None:
            report(adt_messages.duplicate_type(t.name_span, t.name, first.node.name_span if first.node else t.span))
            continue
        adts[t.name] = AdtDef(t.name, tuple(TypeParam(n) for n in dict.fromkeys(t.params)), node=t)
    arities = {name: len(a.params) for name, a in adts.items()}
    for adt in adts.values():
        scope = TypeScope(type_params={p.name: p for p in adt.params}, adts=arities)
        for c in adt.node.ctors if adt.node is not None else ():  # (each declared AdtDef has its node)
            dims = DimScope(mode="closed")
            fields = tuple(Converter(dims, scope, annotation_report).convert(f) for f in c.fields)
            dims.close()
            earlier = ctors.get(c.name)
            if earlier is not None:
                report(
                    adt_messages.duplicate_constructor(c.span, c.name, earlier.node.span if earlier.node else c.span)
                )
                continue
            info = CtorInfo(c.name, adt, len(adt.ctors), fields, c)
            adt.ctors.append(info)
            ctors[c.name] = info
    return adts, ctors


def dtype_names(node: object) -> set[str]:
    """The bracketed names a definition uses as dtypes of tensor types with dims or spelled
    `Tensor[(), T]`, in its
    signature or in an annotation of its body (`let %v: Tensor[(n, m), T] = ...`); the rest
    are type parameters."""
    found: set[str] = set()
    stack: list[ast.TypeExpr] = [p.type for p in getattr(node, "params", ()) if p.type is not None]
    ret = getattr(node, "ret", None)
    if ret is not None:
        stack.append(ret)
    body = getattr(node, "body", None)
    if body is not None:
        stack.extend(_annotations(body))
    while stack:
        t = stack.pop()
        if isinstance(t, ast.TensorTypeExpr):
            if t.dims != () or t.bare is False:
                found.add(t.dtype)
        elif isinstance(t, ast.TupleTypeExpr):
            stack.extend(t.fields)
        elif isinstance(t, ast.FnTypeExpr):
            stack.extend(t.params)
            stack.append(t.ret)
        elif isinstance(t, ast.RefTypeExpr):
            stack.append(t.content)
        elif isinstance(t, ast.AdtTypeExpr):
            stack.extend(t.args)
    return found


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    """A syntax class's field names but its span (what may hold a child), once per class."""
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")
    return names


def _annotations(root: object) -> list[ast.TypeExpr]:
    """Every type written inside a body (let annotations, casts, closures' signatures,
    pattern annotations), found by walking its syntax nodes iteratively."""
    types: list[ast.TypeExpr] = []
    stack: list[object] = [root]
    type_classes = typing.get_args(ast.TypeExpr)
    while stack:
        item = stack.pop()
        if isinstance(item, type_classes):
            types.append(item)
        elif isinstance(item, ast.Node):
            stack.extend([getattr(item, name) for name in _child_fields(type(item))])
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
    return types


def pattern_vars(p: ast.Pattern) -> list[ast.PVar]:
    """The `PVar`s of a pattern, left to right."""
    found: list[ast.PVar] = []
    stack: list[ast.Pattern] = [p]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.PVar):
            found.append(item)
        elif isinstance(item, ast.PCtor):
            stack.extend(reversed(item.args))
        elif isinstance(item, ast.PTuple):
            stack.extend(reversed(item.fields))
    return found


def pattern_ctors(p: ast.Pattern) -> list[ast.PCtor]:
    """The constructor patterns of a pattern."""
    found: list[ast.PCtor] = []
    stack: list[ast.Pattern] = [p]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.PCtor):
            found.append(item)
            stack.extend(item.args)
        elif isinstance(item, ast.PTuple):
            stack.extend(item.fields)
    return found


def constructor_type(info: CtorInfo) -> Type:
    """A constructor as a value: a polymorphic function, or (no fields) a value of its type."""
    return info.type
