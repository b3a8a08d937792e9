"""Checking algebraic data types: constructors, polymorphic calls, `match`.

* **Constructors** are polymorphic functions (`Cons: fn [A](A, List[A]) -> List[A]`); a
  nullary one (`Nil`) is a value of its type whose parameters are fresh `ElemVar`s (bound by
  a later use, `?` if none is).
* **Polymorphic calls** (`instantiate_call`): the callee's type parameters are instantiated
  from the arguments' types (types/params.py: `merge`, the join of the uses where they agree),
  so the call site (site/) sees a monomorphic signature and checks the arguments against it
  as it checks any call: an argument less precise than its parameter gets a check (a cast of
  the whole value: a list's elements are checked where a caller relies on their shape), one
  that can never fit is a static error at the argument.
* **match**: the scrutinee's type gives each pattern variable its type; the result is the
  join of the clauses' (as an `if`'s). A complete `match` that some value escapes is a
  `non-exhaustive-match` error naming the missing patterns (Relay's check, and Relay's
  algorithm: candidate patterns expanded constructor by constructor); a clause no value can
  reach is an `unreachable-clause` warning. `match?` is partial: a value no clause matches
  stops the run there, blamed on the match (a check site).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from gradual.checker import adt_messages
from gradual.checker.adt_names import CtorInfo
from gradual.checker.records import Env
from gradual.checker.site.values import Callee
from gradual.ops.messages import register_rule_message
from gradual.shapes import Dimension, Poly
from gradual.syntax import ast
from gradual.syntax.adt_printing import format_pattern
from gradual.syntax.printer import format_type
from gradual.types import (
    DYN,
    DYN_DTYPE,
    ERROR,
    AdtType,
    BottomType,
    DynType,
    ElemVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
    map_dims,
    map_dtypes,
)
from gradual.types.join import join, without_values
from gradual.types.params import conflicts, fresh_instance, substitute

if TYPE_CHECKING:
    from gradual.checker.calls import Calls
    from gradual.types.unify import Solver

register_rule_message(
    "value-mismatch",
    "type-mismatch",
    "{arg} has type {actual}, but {op} needs {expected}: {detail}",
    "pass a value of that type, or write `?` where it is only known at runtime",
)

#: how many candidate patterns the exhaustiveness check expands before it gives up (silently)
MAX_CANDIDATES = 20_000


# types ------------------------------------------------------------------------------------
def merge(known: Optional[Type], new: Type) -> Type:
    """What one type parameter is, given what it was (`known`, None: nothing yet) and another
    use's type: the join where they agree (so `Cons(%x: (3, 4), %l: List[(?, 4)])` is a
    `List[(?, 4)]` and `%l` needs no check of its elements), the first on conflict (the call
    then reports the other argument)."""
    new = without_values(new)
    if known is None or isinstance(known, ElemVar):
        return new
    if isinstance(new, ElemVar):
        return known
    if conflicts(known, new):
        return known
    return join(known, new)


def constructor_value(info: CtorInfo) -> Type:
    """A constructor used as a value: a nullary one is a value of its type (its parameters
    fresh), another a polymorphic function."""
    if not info.fields:
        return AdtType(info.adt.name, tuple(ElemVar(p.name) for p in info.adt.params))
    return info.type


def instantiate_call(fn: FuncType, arg_types: list[Type], solver: "Solver") -> FuncType:
    """A polymorphic function type instantiated for these arguments (see the module
    docstring); unbound parameters become fresh ElemVars. Arguments that are not functions
    are read first, then function arguments, whose own parameters (a polymorphic function
    passed, `@map(@id, %l)`) are bound from what is known by then."""
    if not fn.type_params:
        return fn
    mapping: dict[Any, Optional[Type]] = dict.fromkeys(fn.type_params)
    pairs = list(zip(fn.params, arg_types))
    ordered = [p for p in pairs if not isinstance(solver.resolve_type(p[1]), FuncType)]
    ordered += [p for p in pairs if isinstance(solver.resolve_type(p[1]), FuncType)]
    for param, arg in ordered:
        _collect(param, arg, mapping, solver)
    final = {p: (t if t is not None else ElemVar(p.name)) for p, t in mapping.items()}
    return FuncType(
        tuple(substitute(p, final) for p in fn.params),
        substitute(fn.ret, final),
        fn.dim_params,
        fn.dtype_params,
        fn.requires,
        fn.dtype_requires,
    )


def specialize_inside(fn: FuncType, arg_types: list[Type], solver: "Solver") -> FuncType:
    """The callee's own dtype variables and dim symbols that only an ADT argument's elements
    can give (`Tensor[*, T]` inside `List[Option[Tensor[*, T]]]`: the call site compares ADT
    values whole, so it binds nothing inside them), taken from the arguments and written into
    the signature: a call with a list of float32 tensors gives a float32 result, not `?`.
    A variable given two different values keeps the first (the call then reports the other)."""
    dtypes: dict[Any, Any] = {}
    dims: dict[Any, Any] = {}
    quantified_dtypes, quantified_dims = set(fn.dtype_params), set(fn.dim_params)
    stack = [(p, a, False) for p, a in zip(fn.params, arg_types)]
    while stack:
        p, a, inside = stack.pop()
        a = solver.resolve_type(a)
        if isinstance(p, TensorType) and isinstance(a, TensorType):
            if not inside:
                continue
            if p.dtype in quantified_dtypes and isinstance(a.dtype, str) and a.dtype != DYN_DTYPE:
                dtypes.setdefault(p.dtype, a.dtype)
            if p.dims is not None and a.dims is not None and len(p.dims) == len(a.dims):
                for pd, ad in zip(p.dims, a.dims):
                    if isinstance(pd, Dimension) and pd.is_symbolic and isinstance(ad, Dimension) and ad.is_exact:
                        atoms = pd.expr.symbols()
                        if len(atoms) == 1 and pd.expr == Poly.atom(next(iter(atoms))) and atoms <= quantified_dims:
                            dims.setdefault(next(iter(atoms)), ad)
        elif isinstance(p, TupleType) and isinstance(a, TupleType) and len(p.fields) == len(a.fields):
            stack.extend((x, y, inside) for x, y in zip(p.fields, a.fields))
        elif isinstance(p, AdtType) and isinstance(a, AdtType) and p.name == a.name and len(p.args) == len(a.args):
            stack.extend((x, y, True) for x, y in zip(p.args, a.args))
        elif isinstance(p, RefType) and isinstance(a, RefType):
            stack.append((p.content, a.content, inside))
    if not dtypes and not dims:
        return fn
    polys = {sym: d.expr for sym, d in dims.items()}

    def dim(d: Dimension) -> Dimension:
        if d.is_symbolic and d.symbols() & polys.keys():
            return Dimension.of_expr(d.expr.substitute(lambda s: polys.get(s)))
        return d

    found = map_dtypes(map_dims(fn, dim), lambda t: dtypes.get(t, t))
    assert isinstance(found, FuncType)
    return FuncType(
        found.params,
        found.ret,
        tuple(s for s in fn.dim_params if s not in dims),
        tuple(v for v in fn.dtype_params if v not in dtypes),
        tuple(r for r in fn.requires if r[0] not in dims),
        tuple(r for r in fn.dtype_requires if r[0] not in dtypes),
        fn.type_params,
    )


def _collect(param: Type, arg: Type, mapping: dict[Any, Optional[Type]], solver: "Solver") -> None:
    """What `arg` says of the type parameters in `param` (iterative)."""
    stack = [(param, arg)]
    while stack:
        p, a = stack.pop()
        a = solver.resolve_type(a)
        if isinstance(p, TypeParam) and p in mapping:
            known = mapping[p]
            if known is not None and isinstance(a, ElemVar):
                solver.bind_type(a, known)  # a polymorphic argument's parameter, bound by what is known
                continue
            if known is not None:
                bind_elements(a, known, solver)
            mapping[p] = merge(known, a)
        elif isinstance(a, ElemVar) and not _mentions_unknown(p, mapping):
            solver.bind_type(a, substitute(p, {k: v for k, v in mapping.items() if v is not None}))
        elif isinstance(p, TupleType) and isinstance(a, TupleType) and len(p.fields) == len(a.fields):
            stack.extend(reversed(list(zip(p.fields, a.fields))))
        elif isinstance(p, AdtType) and isinstance(a, AdtType) and p.name == a.name and len(p.args) == len(a.args):
            stack.extend(reversed(list(zip(p.args, a.args))))
        elif isinstance(p, FuncType) and isinstance(a, FuncType) and len(p.params) == len(a.params):
            if a.type_params:
                a = fresh_instance(a)
            # the result last: the parameters bind a polymorphic argument's own parameters
            stack.append((p.ret, a.ret))
            stack.extend(reversed(list(zip(p.params, a.params))))
        elif isinstance(p, RefType) and isinstance(a, RefType):
            stack.append((p.content, a.content))


def _mentions_unknown(t: Type, mapping: dict[Any, Optional[Type]]) -> bool:
    """Whether `t` mentions a type parameter of `mapping` not yet known."""
    found = False

    def visit(leaf: Type) -> Optional[Type]:
        nonlocal found
        if isinstance(leaf, TypeParam) and leaf in mapping and mapping[leaf] is None:
            found = True
        return None

    from gradual.types.params import map_leaves

    map_leaves(t, visit)
    return found


def element_variables(
    types: list[Type], solver: "Solver", closed: Optional[Mapping[int, Type]] = None
) -> frozenset[Any]:
    """The unbound type variables that are arguments of an ADT type (at any depth) in `types`;
    the types in `closed` (by identity) hold none and are not entered."""
    found: set[Any] = set()
    stack = [(t, False) for t in types]
    seen: set[int] = set()
    closed = closed or {}
    while stack:
        t, inside = stack.pop()
        t = solver.resolve_type(t)
        if isinstance(t, TypeVar):
            if inside:
                found.add(t)
            continue
        if id(t) in seen or id(t) in closed:
            continue
        seen.add(id(t))
        if isinstance(t, AdtType):
            stack.extend((a, True) for a in t.args)
        elif isinstance(t, TupleType):
            stack.extend((f, inside) for f in t.fields)
        elif isinstance(t, FuncType):
            stack.extend((p, inside) for p in t.params + (t.ret,))
        elif isinstance(t, RefType):
            stack.append((t.content, inside))
    return frozenset(found)


def bind_elements(value: Type, known: Type, solver: "Solver") -> None:
    """Bind the unbound ElemVars of `value` to the parts of `known` at their positions
    (`List[α]` of a `Nil` met where a `List[A]` is known: α is A)."""
    stack = [(value, known)]
    while stack:
        v, k = stack.pop()
        v = solver.resolve_type(v)
        if isinstance(v, ElemVar):
            if not isinstance(solver.resolve_type(k), ElemVar) or solver.resolve_type(k) is not v:
                solver.bind_type(v, k)
        elif isinstance(v, TupleType) and isinstance(k, TupleType) and len(v.fields) == len(k.fields):
            stack.extend(zip(v.fields, k.fields))
        elif isinstance(v, AdtType) and isinstance(k, AdtType) and v.name == k.name and len(v.args) == len(k.args):
            stack.extend(zip(v.args, k.args))
        elif isinstance(v, FuncType) and isinstance(k, FuncType) and len(v.params) == len(k.params):
            stack.extend(zip(v.params + (v.ret,), k.params + (k.ret,)))
        elif isinstance(v, RefType) and isinstance(k, RefType):
            stack.append((v.content, k.content))


# calls --------------------------------------------------------------------------------------
def call_constructor(checker: "Calls", e: ast.Call, info: CtorInfo, env: Env) -> Type:
    """`Cons(%x, %rest)`: a call of the constructor's polymorphic function type."""
    arg_types = [checker.expr(a, env) for a in e.args]
    checker.reread_variables(e.args, arg_types, env)
    desc = Callee("constructor", info.name, (), str(info.type), info.node.span if info.node is not None else None)
    checker.record(e.callee, info.type)
    result = checker.call_function(e, info.type, desc, arg_types, env)
    return result


# match --------------------------------------------------------------------------------------
def check_match(checker: "Calls", e: ast.Match, env: Env) -> Type:
    """A match's type: the join of its clauses' (see the module docstring)."""
    solver = checker.current.solver  # type: ignore[union-attr]
    scrutinee = checker.expr(e.scrutinee, env)
    results = []
    for clause in e.clauses:
        mark = env.mark()
        try:
            _bind_pattern(checker, clause.pattern, scrutinee, env)
            results.append(checker.final_type(checker.body(clause.body, env), solver))
        finally:
            env.undo(mark)
    if not e.complete:
        checker.record_check(
            e, DYN, e.span, adt_messages.match_reason(e.span), verifies=True, inserted=False
        )  # a value no clause matches stops the run here
    _coverage(checker, e, solver.resolve_type(scrutinee))
    result: Optional[Type] = None
    for t in results:
        result = t if result is None else join(result, t)
    return result if result is not None else DYN


def _bind_pattern(checker: "Calls", pattern: ast.Pattern, t: Type, env: Env) -> None:
    """Give each variable of `pattern` its type, matching it against a value of type `t`
    (iterative); a pattern that can never match is a `pattern-mismatch` error."""
    solver = checker.current.solver  # type: ignore[union-attr]
    res = checker.res
    stack: list[tuple[ast.Pattern, Type]] = [(pattern, t)]
    while stack:
        p, t = stack.pop()
        t = solver.resolve_type(t)
        if isinstance(p, ast.PWild):
            continue
        if isinstance(p, ast.PVar):
            binder = res.binders[id(p)]
            if p.type is not None:
                target = res.annotations[id(p.type)]
                if conflicts(target, t) and not isinstance(t, BottomType):
                    checker.report(adt_messages.pattern_mismatch(p.span, format_pattern(p, format_type), t))
                t = target
            env.set(binder, t)
            checker.record(p, t)
            continue
        if isinstance(p, ast.PTuple):
            if isinstance(t, TypeVar):
                fields: tuple[Type, ...] = tuple(TypeVar() for _ in p.fields)
                solver.bind_type(t, TupleType(fields))
                t = TupleType(fields)
            if isinstance(t, TupleType) and len(t.fields) == len(p.fields):
                stack.extend(zip(p.fields, t.fields))
            elif isinstance(t, (DynType, BottomType)):
                stack.extend((f, ERROR if isinstance(t, DynType) and t.from_error else DYN) for f in p.fields)
            else:
                checker.report(adt_messages.pattern_mismatch(p.span, format_pattern(p, format_type), t))
                stack.extend((f, ERROR) for f in p.fields)
            continue
        assert isinstance(p, ast.PCtor)
        info = res.ctors.get(p.name)
        if info is None:  # reported by names
            stack.extend((a, ERROR) for a in p.args)
            continue
        if len(p.args) != len(info.fields):
            checker.report(adt_messages.constructor_arity(p.span, p.name, len(info.fields), len(p.args)))
            stack.extend((a, ERROR) for a in p.args)
            continue
        if isinstance(t, TypeVar):  # an unannotated parameter (or an element type not yet known): it is this type
            fresh = AdtType(info.adt.name, tuple(ElemVar(q.name) for q in info.adt.params))
            solver.bind_type(t, fresh)
            t = fresh
        if isinstance(t, AdtType) and t.name == info.adt.name and len(t.args) == len(info.adt.params):
            mapping = dict(zip(info.adt.params, t.args))
            stack.extend((a, substitute(f, mapping)) for a, f in zip(p.args, info.fields))
        elif isinstance(t, (DynType, BottomType)):
            fill = ERROR if isinstance(t, DynType) and t.from_error else DYN
            mapping = dict.fromkeys(info.adt.params, fill)
            stack.extend((a, substitute(f, mapping)) for a, f in zip(p.args, info.fields))
        else:
            detail = f"`{p.name}` makes a {info.adt.name}, and the value matched here has type {t}"
            checker.report(adt_messages.pattern_mismatch(p.span, format_pattern(p, format_type), t, detail))
            stack.extend((a, ERROR) for a in p.args)


# exhaustiveness -------------------------------------------------------------------------------
# A candidate is a pattern over: "_" (any value), ("ctor", CtorInfo, tuple) and ("tuple", tuple).


def _simple(p: ast.Pattern, ctors: dict[str, Any]) -> Any:
    """A pattern as a candidate: variables are wildcards; an unknown constructor None."""
    if isinstance(p, (ast.PWild, ast.PVar)):
        return "_"
    if isinstance(p, ast.PTuple):
        fields = tuple(_simple(f, ctors) for f in p.fields)
        return None if None in fields else ("tuple", fields)
    info = ctors.get(p.name)
    if info is None or len(p.args) != len(info.fields):
        return None
    args = tuple(_simple(a, ctors) for a in p.args)
    return None if None in args else ("ctor", info, args)


_MATCH, _CLASH, _MORE = 0, 1, 2


def _check(pattern: Any, candidate: Any) -> int:
    """Whether a clause's pattern matches every value of the candidate (_MATCH), none of
    them (_CLASH), or it depends on what the candidate leaves open (_MORE)."""
    if pattern == "_":
        return _MATCH
    if candidate == "_":
        return _MORE
    if pattern[0] != candidate[0]:
        return _CLASH
    if pattern[0] == "ctor" and pattern[1] is not candidate[1]:
        return _CLASH
    parts_p, parts_c = pattern[-1], candidate[-1]
    if len(parts_p) != len(parts_c):
        return _CLASH
    more = False
    for sp, sc in zip(parts_p, parts_c):
        found = _check(sp, sc)
        if found == _CLASH:
            return _CLASH
        more = more or found == _MORE
    return _MORE if more else _MATCH


def _expand(pattern: Any, candidate: Any) -> list[Any]:
    """The candidate with its wildcards opened one level where the pattern looks inside."""
    if pattern == "_":
        return [candidate]
    if candidate == "_":
        if pattern[0] == "tuple":
            return [("tuple", tuple("_" for _ in pattern[1]))]
        return [("ctor", c, tuple("_" for _ in c.fields)) for c in pattern[1].adt.ctors]
    options = [_expand(sp, sc) for sp, sc in zip(pattern[-1], candidate[-1])]
    out: list[tuple[Any, ...]] = [()]
    for choices in options:
        out = [prefix + (c,) for prefix in out for c in choices]
    if candidate[0] == "tuple":
        return [("tuple", parts) for parts in out]
    return [("ctor", candidate[1], parts) for parts in out]


def unmatched(patterns: list[Any], start: Any = "_") -> Optional[list[Any]]:
    """The candidates that none of `patterns` matches, starting from `start` (None: too many
    to tell, or a pattern that is not understood)."""
    if any(p is None for p in patterns):
        return None
    candidates = [start]
    failures: list[Any] = []
    spent = 0
    while candidates:
        spent += 1
        if spent > MAX_CANDIDATES:
            return None
        cand = candidates.pop()
        for p in patterns:
            found = _check(p, cand)
            if found == _CLASH:
                continue
            if found == _MORE:
                candidates.extend(reversed(_expand(p, cand)))
            break
        else:
            failures.append(cand)
    return failures


def show_candidate(c: Any) -> str:
    """A candidate as a pattern is written: `Cons(_, Nil)`."""
    if c == "_":
        return "_"
    if c[0] == "tuple":
        inner = ", ".join(show_candidate(f) for f in c[1])
        return f"({inner},)" if len(c[1]) == 1 else f"({inner})"
    if not c[2]:
        name: str = c[1].name  # the constructor's
        return name
    return f"{c[1].name}({', '.join(show_candidate(a) for a in c[2])})"


def _coverage(checker: "Calls", e: ast.Match, scrutinee: Type) -> None:
    """`non-exhaustive-match` for a complete match some value escapes, `unreachable-clause`
    for each clause the ones before it cover (reported once, from the last pass)."""
    ctors = checker.res.ctors
    patterns = [_simple(c.pattern, ctors) for c in e.clauses]
    if any(p is None for p in patterns):
        return  # a problem with a pattern is reported already
    for i in range(1, len(patterns)):
        left = unmatched(patterns[:i], patterns[i])
        if left is not None and not left:
            checker.report(adt_messages.unreachable_clause(e.clauses[i].span, i))
    if e.complete:
        missing = unmatched(patterns)
        if missing:
            checker.report(adt_messages.non_exhaustive(e.span, [show_candidate(c) for c in missing], scrutinee))
