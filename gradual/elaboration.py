"""Elaboration: the checked program with its runtime checks made explicit.

Every check site inference recorded becomes a cast `e as T` around the expression that was
assumed (`CheckNote` keeps the blamed source location); unannotated parameters get the types
inferred for them; every binding's type is printed as a Relay-style `/* ty=... */` comment.
The result is an ordinary program: it prints, parses back, and runs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from .shapes import Dimension, FloorDiv, Poly, Symbol
from .syntax import ast
from .syntax.printer import format_module
from .types import (
    Broadcast, DTypeVar, DynType, FuncType, TensorType, TupleType, Type, TypeVar, Variadic, format_type,
)


class _Names:
    """Printable, unique names for the symbols of one definition."""

    def __init__(self, reserved: set[str]) -> None:
        self.taken = set(reserved)
        self.names: dict[int, str] = {}

    def of(self, sym: Symbol) -> str:
        found = self.names.get(sym.uid)
        if found is not None:
            return found
        name = sym.name
        if name in self.taken and not self._is_reserved_for(sym):
            base = name
            i = 1
            while f"{base}{i}" in self.taken:
                i += 1
            name = f"{base}{i}"
        self.taken.add(name)
        self.names[sym.uid] = name
        return name

    def _is_reserved_for(self, sym: Symbol) -> bool:
        return False

    def claim(self, sym: Symbol) -> None:
        """Keep a symbol's own name (it is written in the source)."""
        self.names[sym.uid] = sym.name
        self.taken.add(sym.name)


def dim_expr(d: object, names: _Names) -> ast.DimExpr:
    """A dimension (or signature/cast marker) as syntax."""
    if isinstance(d, Broadcast):
        return ast.DimBroadcast(dim_expr(d.target, names))
    if isinstance(d, Variadic):
        return ast.DimVariadic(names.of(d.symbol))
    assert isinstance(d, Dimension)
    if d.is_static:
        return ast.DimInt(d.get_length())
    if d.is_interval:
        if d.is_unknown:
            return ast.DimUnknown()
        return ast.DimInterval(d.min_length, d.max_length)
    return _poly_expr(d.expr, names)


def _poly_expr(p: Poly, names: _Names) -> ast.DimExpr:
    result: Optional[ast.DimExpr] = None
    for mono, coeff in p.terms:
        term: Optional[ast.DimExpr] = None
        for atom in mono:
            factor = _atom_expr(atom, names)
            term = factor if term is None else ast.DimBinary("*", term, factor)
        magnitude = abs(coeff)
        if term is None:
            term = ast.DimInt(magnitude)
        elif magnitude != 1:
            term = ast.DimBinary("*", ast.DimInt(magnitude), term)
        if result is None:
            result = term if coeff > 0 else ast.DimBinary("-", ast.DimInt(0), term)
        else:
            result = ast.DimBinary("-" if coeff < 0 else "+", result, term)
    return result if result is not None else ast.DimInt(0)


def _atom_expr(atom: object, names: _Names) -> ast.DimExpr:
    if isinstance(atom, Symbol):
        return ast.DimName(names.of(atom))
    assert isinstance(atom, FloorDiv)
    return ast.DimBinary("//", _poly_expr(atom.num, names), ast.DimInt(atom.den))


def type_expr(t: Type, names: _Names) -> ast.TypeExpr:
    """A checker type as syntax."""
    if isinstance(t, TensorType):
        dims = None if t.dims is None else tuple(dim_expr(d, names) for d in t.dims)
        dtype = t.dtype.name if isinstance(t.dtype, DTypeVar) else t.dtype
        return ast.TensorTypeExpr(dims, dtype)
    if isinstance(t, TupleType):
        return ast.TupleTypeExpr(tuple(type_expr(f, names) for f in t.fields))
    if isinstance(t, FuncType):
        return ast.FnTypeExpr(tuple(type_expr(p, names) for p in t.params), type_expr(t.ret, names))
    return ast.DynTypeExpr()


class Elaborator:
    """Rebuilds a checked module with casts inserted (see the module docstring)."""

    def __init__(self, result: "object") -> None:
        self.result = result
        self.types_by_new: dict[int, str] = {}
        self.names = _Names(set())
        self.casts: dict[int, list] = {}

    def module(self) -> ast.Module:
        res = self.result
        defs = []
        for d in res.module.defs:  # type: ignore[attr-defined]
            fn = res.functions.get(d.name)  # type: ignore[attr-defined]
            known = fn is not None and fn.node is d and id(d) in res.resolution.functions  # type: ignore[attr-defined]
            defs.append(self.definition(d, fn) if known else d)
        return ast.Module(tuple(defs), span=res.module.span)  # type: ignore[attr-defined]

    def definition(self, d: ast.Def, fn: "object") -> ast.Def:
        info = self.result.resolution.function(d)  # type: ignore[attr-defined]
        self.names = _Names(_source_dim_names(d))
        for sym in info.dim_params:
            self.names.claim(sym)
        for sym in _written_symbols(self.result.resolution, d):
            self.names.claim(sym)
        self.casts = {}
        for check in fn.checks:  # type: ignore[attr-defined]
            self.casts.setdefault(id(check.node), []).append(check)
        fn_type: FuncType = fn.type  # type: ignore[attr-defined]
        params = []
        for p, t in zip(d.params, fn_type.params):
            params.append(p if p.type is not None else replace(p, type=type_expr(t, self.names)))
        dtype_params = tuple(d.dtype_params) + tuple(
            v.name for v in fn_type.dtype_params if v.name not in d.dtype_params)
        ret = d.ret if d.ret is not None else type_expr(fn_type.ret, self.names)
        return replace(d, dtype_params=dtype_params, params=tuple(params), ret=ret, body=self.body(d.body))

    def body(self, b: ast.Body) -> ast.Body:
        stmts = []
        for s in b.stmts:
            if isinstance(s, ast.Let):
                new = replace(s, value=self.expr(s.value))
                self._keep_type(s, new)
                stmts.append(new)
            else:
                stmts.append(s)
        return replace(b, stmts=tuple(stmts), result=self.expr(b.result))

    def _keep_type(self, old: object, new: object) -> None:
        t = self.result.types.get(id(old))  # type: ignore[attr-defined]
        if t is not None and (isinstance(old, ast.Let) or isinstance(t, TensorType)):
            self.types_by_new[id(new)] = "ty=" + _format_with(t, self.names)

    def expr(self, e: ast.Expr) -> ast.Expr:
        new = self._rebuild(e)
        self._keep_type(e, new)
        for check in self.casts.get(id(e), ()):
            note = ast.CheckNote(check.blame, check.reason, check.verifies)
            new = ast.Cast(new, type_expr(check.type, self.names), note, span=e.span)
        return new

    def _rebuild(self, e: ast.Expr) -> ast.Expr:
        if isinstance(e, ast.Call):
            return replace(e, callee=self.expr(e.callee), args=tuple(self.expr(a) for a in e.args))
        if isinstance(e, ast.TupleExpr):
            return replace(e, fields=tuple(self.expr(f) for f in e.fields))
        if isinstance(e, ast.Proj):
            return replace(e, tuple=self.expr(e.tuple))
        if isinstance(e, ast.If):
            return replace(e, cond=self.expr(e.cond), then=self.body(e.then), otherwise=self.body(e.otherwise))
        if isinstance(e, ast.Fn):
            return replace(e, body=self.body(e.body))
        if isinstance(e, ast.Cast):
            return replace(e, expr=self.expr(e.expr))
        return e

    def annotate(self, node: object) -> Optional[str]:
        """The `ty=` comment for a binding or a body's result."""
        if isinstance(node, ast.Var):
            return None
        return self.types_by_new.get(id(node))


def _format_with(t: Type, names: _Names) -> str:
    from .syntax.printer import format_type as format_type_expr

    return format_type_expr(type_expr(t, names))


def _written_symbols(resolution: "object", d: ast.Def) -> list:
    """Symbols the source itself names inside a definition: existentials bound by its
    annotations and casts, and its closures' own symbols. Inserted casts refer to them by
    these names, so they must keep them."""
    found: list = []
    stack: list = [d.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Let, ast.Cast)):
            found.extend(resolution.introduced.get(id(node), ()))  # type: ignore[attr-defined]
        if isinstance(node, ast.Fn):
            found.extend(resolution.functions[id(node)].dim_params)  # type: ignore[attr-defined]
        if isinstance(node, ast.Node):
            for name in getattr(node, "__dataclass_fields__", {}):
                if name != "span":
                    stack.append(getattr(node, name))
        elif isinstance(node, tuple):
            stack.extend(node)
    return found


def _source_dim_names(d: ast.Def) -> set[str]:
    names: set[str] = set()
    stack: list = [d]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.DimName):
            names.add(node.name)
        elif isinstance(node, ast.Node):
            for field_name in getattr(node, "__dataclass_fields__", {}):
                if field_name != "span":
                    stack.append(getattr(node, field_name))
        elif isinstance(node, tuple):
            stack.extend(node)
    return names


def elaborate_module(result: "object") -> tuple[ast.Module, Elaborator]:
    """The elaborated module and the elaborator (whose `annotate` prints binding types)."""
    elaborator = Elaborator(result)
    return elaborator.module(), elaborator


def elaborated_text(result: "object") -> str:
    """The elaborated program as text, with every binding's type in a comment."""
    module, elaborator = elaborate_module(result)
    return format_module(module, elaborator.annotate)
