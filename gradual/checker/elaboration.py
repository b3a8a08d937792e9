"""Elaboration: the checked program with its runtime checks made explicit.

Every check site inference recorded becomes a cast `e as T` around the expression that was
assumed (`CheckNote` keeps the blamed source location); unannotated parameters get the types
inferred for them; every binding's type is printed as a Relay-style `/* ty=... */` comment.
The result is an ordinary program: it prints, parses back, and runs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from gradual.shapes import Dimension, Extremum, FloorDiv, Poly, Symbol
from gradual.syntax import ast
from gradual.syntax.printer import format_module
from gradual.types import (
    DYN_DTYPE,
    AdtType,
    Broadcast,
    DType,
    DTypeVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    Variadic,
    map_dtypes,
)


class _Names:
    """Printable, unique names for the symbols of one definition."""

    def __init__(self, reserved: set[str]) -> None:
        self.taken = set(reserved)
        self.names: dict[int, str] = {}
        self.next_suffix: dict[str, int] = {}

    def of(self, sym: Symbol) -> str:
        found = self.names.get(sym.uid)
        if found is not None:
            return found
        name = sym.name
        if name in self.taken and not self._is_reserved_for(sym):
            base = name
            i = self.next_suffix.get(base, 1)
            while f"{base}{i}" in self.taken:
                i += 1
            self.next_suffix[base] = i + 1
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
    if isinstance(atom, Extremum):
        args = [_poly_expr(arg, names) for arg in atom.args]
        result = args[0]
        for arg in args[1:]:
            result = ast.DimBinary(atom.kind, result, arg)
        return result
    assert isinstance(atom, FloorDiv)
    return ast.DimBinary("//", _poly_expr(atom.num, names), ast.DimInt(atom.den))


def type_expr(t: Type, names: _Names) -> ast.TypeExpr:
    """A checker type as syntax."""
    if isinstance(t, TensorType):
        dims = None if t.dims is None else tuple(dim_expr(d, names) for d in t.dims)
        dtype = t.dtype.name if isinstance(t.dtype, DTypeVar) else t.dtype
        # a scalar of a dtype variable is spelled `Tensor[(), T]`: a bare `T` reads as a type parameter
        return ast.TensorTypeExpr(dims, dtype, bare=False if isinstance(t.dtype, DTypeVar) else None)
    if isinstance(t, TupleType):
        return ast.TupleTypeExpr(tuple(type_expr(f, names) for f in t.fields))
    if isinstance(t, FuncType):
        return ast.FnTypeExpr(
            tuple(type_expr(p, names) for p in t.params),
            type_expr(t.ret, names),
            tuple(p.name for p in t.type_params),
        )
    if isinstance(t, RefType):
        return ast.RefTypeExpr(type_expr(t.content, names))
    if isinstance(t, AdtType):
        return ast.AdtTypeExpr(t.name, tuple(type_expr(a, names) for a in t.args))
    if isinstance(t, TypeParam):
        return ast.TensorTypeExpr((), t.name, bare=True)  # a bare name: the type parameter in scope
    return ast.DynTypeExpr()


class Elaborator:
    """Rebuilds a checked module with casts inserted (see the module docstring).

    Copy on write: a node is rebuilt only if something under it changed, so a definition
    with no checks keeps its own tree. Binding types are formatted only when printed."""

    def __init__(self, result: "object") -> None:
        self.result = result
        self.kept: dict[int, tuple[Type, _Names]] = {}
        self.formatted: dict[tuple[int, Type], str] = {}
        self.names = _Names(set())
        self.casts: dict[int, list[Any]] = {}  # the CheckRecords of a node, by its identity
        self.dtype_vars: set[int] = set()  # the definition's dtype variables, by identity

    def module(self) -> ast.Module[ast.Def]:
        res = self.result
        defs = []
        for d in res.module.defs:  # type: ignore[attr-defined]
            fn = res.functions.get(d.name)  # type: ignore[attr-defined]
            known = fn is not None and fn.node is d and id(d) in res.resolution.functions  # type: ignore[attr-defined]
            defs.append(self.definition(d, fn) if known else d)
        return ast.Module(tuple(defs), res.module.types, span=res.module.span)  # type: ignore[attr-defined]

    def definition(self, d: ast.Def, fn: "object") -> ast.Def:
        info = self.result.resolution.function(d)  # type: ignore[attr-defined]
        written = list(info.dim_params) + list(info.written)
        self.names = _Names({s.name for s in written})
        for sym in written:
            self.names.claim(sym)
        self.casts = {}
        for check in fn.checks:  # type: ignore[attr-defined]
            if check.inserted:  # a written annotation or cast is in the program already
                self.casts.setdefault(id(check.node), []).append(check)
        fn_type: FuncType = fn.type  # type: ignore[attr-defined]
        self.dtype_vars = {id(v) for v in list(info.dtype_params) + list(fn_type.dtype_params)}
        params = []
        for p, t in zip(d.params, fn_type.params):
            params.append(
                p if p.type is not None else replace(p, type=type_expr(map_dtypes(t, self._declared_dtype), self.names))
            )
        dtype_params = tuple(d.dtype_params) + tuple(
            v.name for v in fn_type.dtype_params + fn_type.type_params if v.name not in d.dtype_params
        )
        ret = (
            d.ret
            if d.ret is not None or self._undeclared_dtype(fn_type.ret)
            else type_expr(map_dtypes(fn_type.ret, self._declared_dtype), self.names)
        )
        return replace(d, dtype_params=dtype_params, params=tuple(params), ret=ret, body=self.body(d.body))

    def body(self, b: ast.Body) -> ast.Body:
        stmts: list[ast.Stmt] = []
        changed = False
        for s in b.stmts:
            if isinstance(s, ast.Let):
                value = self.expr(s.value)
                new = s if value is s.value else replace(s, value=value)
                self._keep_type(s, new)
                changed |= new is not s
                stmts.append(new)
            else:
                stmts.append(s)
        result = self.expr(b.result)
        self._keep_type(b.result, result)
        if not changed and result is b.result:
            return b
        return replace(b, stmts=tuple(stmts), result=result)

    def _keep_type(self, old: object, new: object) -> None:
        t = self.result.types.get(id(old))  # type: ignore[attr-defined]
        if t is not None and (isinstance(old, ast.Let) or isinstance(t, TensorType)):
            self.kept[id(new)] = (t, self.names)

    def expr(self, e: ast.Expr) -> ast.Expr:
        new = self._rebuild(e)
        for check in self.casts.get(id(e), ()):
            note = ast.CheckNote(check.blame, check.reason, check.verifies)
            new = ast.Cast(new, type_expr(map_dtypes(check.type, self._declared_dtype), self.names), note, span=e.span)
        return new

    def _undeclared_dtype(self, t: Type) -> bool:
        """Whether an inferred type cannot be written without losing something: it names a
        dtype variable the definition does not declare (a function's own: `@mk` returning `@f`,
        `def @f[T]`, or a closed closure `fn (%a) { nn.relu(%a) }`; no written type quantifies
        one, and `?` there lost what relates its parameter to its result), or it holds a
        function with what its body was learned to check (`FuncType.requires`,
        `dtype_requires`: learned, not written, so a written type would drop them and a
        caller's result, `(2, 1..)` for a `m >= 1`, would need a check). Such a return type is
        left to inference when the elaborated program is checked again."""
        found: list[DType] = []

        def note(d: DType) -> DType:
            found.append(d)
            return d

        map_dtypes(t, note)
        if any(isinstance(d, DTypeVar) and id(d) not in self.dtype_vars for d in found):
            return True
        stack = [t]
        while stack:
            u = stack.pop()
            if isinstance(u, FuncType):
                if u.requires or u.dtype_requires:
                    return True
                stack.extend(u.params)
                stack.append(u.ret)
            elif isinstance(u, TupleType):
                stack.extend(u.fields)
            elif isinstance(u, RefType):
                stack.append(u.content)
        return False

    def _declared_dtype(self, dtype: DType) -> DType:
        """A dtype a cast can name: the definition's own dtype variables, or `?` for another
        (a closed closure's generalized one: a closure declares none, and a call binds it)."""
        if isinstance(dtype, DTypeVar) and id(dtype) not in self.dtype_vars:
            return DYN_DTYPE
        return dtype

    def _rebuild(self, e: ast.Expr) -> ast.Expr:
        if isinstance(e, ast.Call):
            callee = self.expr(e.callee)
            args = tuple(self.expr(a) for a in e.args)
            if callee is e.callee and all(a is b for a, b in zip(args, e.args)):
                return e
            return replace(e, callee=callee, args=args)
        if isinstance(e, ast.TupleExpr):
            fields = tuple(self.expr(f) for f in e.fields)
            return e if all(a is b for a, b in zip(fields, e.fields)) else replace(e, fields=fields)
        if isinstance(e, ast.Proj):
            inner = self.expr(e.tuple)
            return e if inner is e.tuple else replace(e, tuple=inner)
        if isinstance(e, ast.If):
            cond, then, otherwise = self.expr(e.cond), self.body(e.then), self.body(e.otherwise)
            if cond is e.cond and then is e.then and otherwise is e.otherwise:
                return e
            return replace(e, cond=cond, then=then, otherwise=otherwise)
        if isinstance(e, ast.Fn):
            body = self.body(e.body)
            return e if body is e.body else replace(e, body=body)
        if isinstance(e, ast.Cast):
            inner = self.expr(e.expr)
            return e if inner is e.expr else replace(e, expr=inner)
        if isinstance(e, ast.Block):
            body = self.body(e.body)
            return e if body is e.body else replace(e, body=body)
        if isinstance(e, ast.Match):
            scrutinee = self.expr(e.scrutinee)
            clauses = tuple(c if (b := self.body(c.body)) is c.body else replace(c, body=b) for c in e.clauses)
            if scrutinee is e.scrutinee and all(a is b for a, b in zip(clauses, e.clauses)):
                return e
            return replace(e, scrutinee=scrutinee, clauses=clauses)
        return e

    def annotate(self, node: object) -> Optional[str]:
        """The `ty=` comment for a binding or a body's result (formatted once per type)."""
        if isinstance(node, ast.Var):
            return None
        kept = self.kept.get(id(node))
        if kept is None:
            return None
        t, names = kept
        key = (id(names), t)
        text = self.formatted.get(key)
        if text is None:
            text = self.formatted[key] = "ty=" + _format_with(t, names)
        return text


def _format_with(t: Type, names: _Names) -> str:
    from gradual.syntax.printer import format_type as format_type_expr

    return format_type_expr(type_expr(t, names))


def elaborate_module(result: "object") -> tuple[ast.Module[ast.Def], Elaborator]:
    """The elaborated module and the elaborator (whose `annotate` prints binding types)."""
    elaborator = Elaborator(result)
    return elaborator.module(), elaborator


def elaborated_text(result: "object") -> str:
    """The elaborated program as text, with every binding's type in a comment."""
    module, elaborator = elaborate_module(result)
    return format_module(module, elaborator.annotate)


def type_syntax(t: Type) -> ast.TypeExpr:
    """A checker type as syntax, each symbol under its own name (for a frontend that writes an
    inferred type back into a program)."""
    return type_expr(t, _Names(set()))
