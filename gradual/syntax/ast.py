"""The abstract syntax tree. Every node carries the span of source it came from.

Nodes compare by identity (so later phases can key side tables on them); `same_tree`
compares two trees structurally, ignoring spans, which is what the printer round trip means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Generic, Optional, Protocol, Sequence, TypeVar, Union

from gradual.syntax.source import NOWHERE, Span


@dataclass(eq=False, slots=True)
class Node:
    """Base of all syntax nodes."""

    span: Span = field(default=NOWHERE, kw_only=True, repr=False)


# dimensions ---------------------------------------------------------------------------------
@dataclass(eq=False, slots=True)
class DimInt(Node):
    """A static dimension `3`."""

    value: int


@dataclass(eq=False, slots=True)
class DimUnknown(Node):
    """The unknown dimension `?`."""


@dataclass(eq=False, slots=True)
class DimName(Node):
    """A symbolic dimension `n`."""

    name: str


@dataclass(eq=False, slots=True)
class DimBinary(Node):
    """Dimension arithmetic: `op` is one of `+ - * //`."""

    op: str
    left: "DimExpr"
    right: "DimExpr"


@dataclass(eq=False, slots=True)
class DimInterval(Node):
    """A bounded unknown `lo..hi`; either bound may be absent."""

    lo: Optional[int]
    hi: Optional[int]


@dataclass(eq=False, slots=True)
class DimBroadcast(Node):
    """`e|1` in a cast: the dimension must be 1 or `e` (a check that broadcasting holds)."""

    target: "DimExpr"


@dataclass(eq=False, slots=True)
class DimVariadic(Node):
    """`*b` in a signature: any number of dimensions, named so they can be repeated."""

    name: str


DimExpr = Union[DimInt, DimUnknown, DimName, DimBinary, DimInterval, DimBroadcast, DimVariadic]


# types --------------------------------------------------------------------------------------
#: the names of the dtype families (`float32`, `uint8`, `bfloat16`, `float8_e4m3fn`, `bool`):
#: a scalar of one prints bare whatever its spelling (`Tensor[(), float32]` is `float32`); a
#: dtype variable's scalar keeps `Tensor[(), T]`, as a bare `T` reads as a type parameter
DTYPE_NAME = re.compile(r"(?:bool|u?int\d+|b?float\d+(?:_\w+)?)\Z")


@dataclass(eq=False, slots=True)
class TensorTypeExpr(Node):
    """`Tensor[(d1, ..., dk), dtype]`; dims None is `Tensor[*, dtype]`; () with a bare dtype
    is a scalar. `dtype` is a dtype name, a dtype variable, or `?`.

    `bare` says how a scalar was spelled: True for a bare name (`float32`, and also a type
    parameter or an ADT, which name resolution tells apart), False for `Tensor[(), T]` (always
    a dtype: a bracketed `T` written so is a dtype variable), None where no text was read
    (built in code: printed bare when it has no dims)."""

    dims: Optional[tuple[DimExpr, ...]]
    dtype: str
    bare: Optional[bool] = field(default=None, kw_only=True, compare=False)

    @property
    def spelled_bare(self) -> bool:
        """Whether it prints as a bare name: the printer's rule, and what `same_tree` compares of `bare`."""
        if self.dims != () or self.dtype == "?":
            return False
        return self.bare is not False or DTYPE_NAME.match(self.dtype) is not None


@dataclass(eq=False, slots=True)
class TupleTypeExpr(Node):
    """`(T1, T2)`."""

    fields: tuple["TypeExpr", ...]


@dataclass(eq=False, slots=True)
class FnTypeExpr(Node):
    """`fn (T1, T2) -> T3`; `fn [A](A) -> A` quantifies type parameters (Relay prints a
    polymorphic function's type so)."""

    params: tuple["TypeExpr", ...]
    ret: "TypeExpr"
    type_params: tuple[str, ...] = ()


@dataclass(eq=False, slots=True)
class DynTypeExpr(Node):
    """The dynamic type `?`."""


@dataclass(eq=False, slots=True)
class HoleTypeExpr(Node):
    """`?T`: a named type to infer, shared by every parameter that names it."""

    name: str


@dataclass(eq=False, slots=True)
class RefTypeExpr(Node):
    """`ref(T)`: a reference to a mutable cell holding a T (Relay's RefType)."""

    content: "TypeExpr"


@dataclass(eq=False, slots=True)
class AdtTypeExpr(Node):
    """`List[A]`, `nat[]`: an algebraic data type applied to type arguments (a bare name
    such as `nat` is a TensorTypeExpr of no dims, which name resolution reads as the ADT)."""

    name: str
    args: tuple["TypeExpr", ...]


TypeExpr = Union[TensorTypeExpr, TupleTypeExpr, FnTypeExpr, DynTypeExpr, HoleTypeExpr, RefTypeExpr, AdtTypeExpr]


# attributes ---------------------------------------------------------------------------------
@dataclass(eq=False, slots=True)
class Ident(Node):
    """A bare name as an attribute value (a dtype such as `int32`, or `NCHW`)."""

    name: str


@dataclass(eq=False, slots=True)
class AttrSeq(Node):
    """A list `[...]` (square) or tuple `(...)` of attribute values."""

    items: tuple["AttrValue", ...]
    square: bool = True


@dataclass(eq=False, slots=True)
class AttrObject(Node):
    """An object Relay prints by its constructor, `VirtualDevice(device_type=1,
    virtual_device_id=0)`: a name and its fields, each `name=value` (Attr nodes)."""

    name: str
    fields: tuple["Attr", ...]


AttrValue = Union[int, float, str, bool, None, Ident, AttrSeq, AttrObject]


@dataclass(eq=False, slots=True)
class Attr(Node):
    """`name=value` in a call."""

    name: str
    value: AttrValue


# expressions --------------------------------------------------------------------------------
@dataclass(eq=False, slots=True)
class Var(Node):
    """A local variable `%x` (a use, or the name in a binder)."""

    name: str


@dataclass(eq=False, slots=True)
class GlobalVar(Node):
    """A global function `@f`."""

    name: str


@dataclass(eq=False, slots=True)
class OpRef(Node):
    """An operator name such as `nn.dense`, as the callee of a call."""

    name: str


@dataclass(eq=False, slots=True)
class Literal(Node):
    """A scalar constant: `1`, `1i64`, `1.5f`, `True`; `text` keeps the spelling."""

    value: Union[int, float, bool]
    dtype: str
    text: str = field(default="", compare=False)


@dataclass(eq=False, slots=True)
class TupleExpr(Node):
    """`(a, b)`, `(a,)` or `()`."""

    fields: tuple["Expr", ...]


@dataclass(eq=False, slots=True)
class Proj(Node):
    """`t.0`: a field of a tuple."""

    tuple: "Expr"
    index: int


@dataclass(eq=False, slots=True)
class Call(Node):
    """`callee(args, name=value)`."""

    callee: "Expr"
    args: tuple["Expr", ...]
    attrs: tuple[Attr, ...] = ()


@dataclass(eq=False, slots=True)
class If(Node):
    """`if (cond) { then } else { otherwise }`."""

    cond: "Expr"
    then: "Body"
    otherwise: "Body"


@dataclass(eq=False, slots=True)
class Param(Node):
    """`%x: T`, `%x` or `%x: ?T` (type None means: infer it). An operator declaration's
    operand may also be `%x: T?` (`form` "optional": T or absent, `()`) or `%x: [T]` (`form`
    "list": a tuple of any length whose fields are each a T)."""

    var: Var
    type: Optional[TypeExpr] = None
    form: str = field(default="", kw_only=True, compare=False)


@dataclass(eq=False, slots=True)
class Fn(Node):
    """A closure `fn (params) -> ret { body }`; `attrs` are the function attributes Relay
    prints after the parameters (`Primitive=1`), kept for printing and otherwise ignored."""

    params: tuple[Param, ...]
    ret: Optional[TypeExpr]
    body: "Body"
    attrs: tuple[Attr, ...] = ()
    type_params: tuple[str, ...] = ()  # `fn [A](%x: A) -> A { ... }`: type parameters (Relay's)


@dataclass(eq=False, slots=True)
class CheckNote:
    """What an inserted cast checks and whom it blames (elaborated programs only)."""

    blame: Span
    reason: str
    verifies: bool = True


@dataclass(eq=False, slots=True)
class Cast(Node):
    """`e as T`: checks at runtime what is not statically known, binds new dimension names.

    `check` is set on casts that elaboration inserted: it names the source location blamed
    when the check fails. `what` names the value in diagnostics where a frontend wrote the cast
    (default: "the value cast here")."""

    expr: "Expr"
    type: TypeExpr
    check: Optional[CheckNote] = field(default=None, compare=False)
    what: Optional[str] = field(default=None, compare=False)  # a frontend's words for the value cast


@dataclass(eq=False, slots=True)
class Block(Node):
    """`(let %v = e; ...; result)`: bindings local to an expression (Relay prints a `let`
    inside an argument or a graph binding this way)."""

    body: "Body"


# algebraic data types ------------------------------------------------------------------------
@dataclass(eq=False, slots=True)
class PWild(Node):
    """The pattern `_`: matches anything, binds nothing."""


@dataclass(eq=False, slots=True)
class PVar(Node):
    """The pattern `%x` (or `%x: T`): matches anything and binds it."""

    var: Var
    type: Optional[TypeExpr] = None


@dataclass(eq=False, slots=True)
class PCtor(Node):
    """The pattern `Cons(p1, p2)` (or `Nil`): a value made by that constructor, whose fields
    match the subpatterns."""

    name: str
    args: tuple["Pattern", ...]
    name_span: Span = field(default=NOWHERE, kw_only=True, repr=False, compare=False)


@dataclass(eq=False, slots=True)
class PTuple(Node):
    """The pattern `(p1, p2)`: a tuple whose fields match the subpatterns."""

    fields: tuple["Pattern", ...]


Pattern = Union[PWild, PVar, PCtor, PTuple]


@dataclass(eq=False, slots=True)
class Clause(Node):
    """`pattern => body` in a match."""

    pattern: Pattern
    body: "Body"


@dataclass(eq=False, slots=True)
class Match(Node):
    """`match (e) { clauses }`; `complete` False is Relay's `match?`, a partial match: a value
    no clause matches stops the run there (a check failure blamed on the match)."""

    scrutinee: "Expr"
    clauses: tuple[Clause, ...]
    complete: bool = True


Expr = Union[Var, GlobalVar, OpRef, Literal, TupleExpr, Proj, Call, If, Fn, Cast, Block, Match]

#: Relay's reference expressions, written as calls: `ref(e)` makes a cell holding e,
#: `ref_read(r)` reads it, `ref_write(r, e)` stores e in it and gives `()`.
REF_FORMS = {"ref": 1, "ref_read": 1, "ref_write": 2}


# statements and definitions -----------------------------------------------------------------
@dataclass(eq=False, slots=True)
class Let(Node):
    """`let %v: T = e;` or the graph form `%v = e;` (graph=True, no annotation)."""

    var: Var
    type: Optional[TypeExpr]
    value: Expr
    graph: bool = False


@dataclass(eq=False, slots=True)
class Hint(Node):
    """`can_unify(%v, shape=(...));`: a guess for an unannotated variable's shape."""

    var: Var
    dims: tuple[DimExpr, ...]


class Locator(Protocol):
    """Where a Dataflow's statements are: each statement has a tag of the locator's own kind
    (a frontend's node, a made Let), which it places."""

    def line(self, tag: Any) -> Span: ...

    def argument(self, tag: Any, j: int) -> Span: ...


@dataclass(eq=False, slots=True)
class Dataflow(Node):
    """A run of graph bindings `%v = op(%a, %b);` held compactly: a frontend's straight-line
    graph (an ONNX model is mostly one). Statement `i` binds `names[i]` to operator `ops[i]`
    applied to the variables `args[i]`, with the attributes `attrs[i]` (Attr nodes; a statement
    with none is not in `attrs`); `locator` places it in the source (`locator.line(tags[i])`,
    `locator.argument(tags[i], j)` give spans). A statement whose syntax exists already (the
    builder's `let` of an operator call) is in `made` from the start.

    Name resolution and inference read the arrays; a statement's syntax nodes are made when
    something asks for them (`let(i)`), once, so every phase that keys tables on them sees the
    same nodes. After checking, `expand_dataflow` puts the statements in their body as lets."""

    names: list[str]
    ops: list[str]
    args: list[Sequence[str]]
    tags: list[Any] = field(compare=False)  # each the locator's own kind of tag
    locator: Locator = field(compare=False, repr=False)
    made: dict[int, Let] = field(default_factory=dict, compare=False, repr=False)
    attrs: dict[int, tuple[Attr, ...]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.names)

    def line(self, i: int) -> Span:
        """Where statement `i` is."""
        return self.locator.line(self.tags[i])

    def argument(self, i: int, j: int) -> Span:
        """Where argument `j` of statement `i` is."""
        return self.locator.argument(self.tags[i], j)

    def let(self, i: int) -> Let:
        """Statement `i` as syntax: `%names[i] = ops[i](%args[i]...)` (made once)."""
        found = self.made.get(i)
        if found is None:
            span = self.line(i)
            uses = tuple([Var(a, span=self.argument(i, j)) for j, a in enumerate(self.args[i])])
            call = Call(OpRef(self.ops[i], span=span), uses, self.attrs.get(i, ()), span=span)
            found = self.made[i] = Let(Var(self.names[i], span=span), None, call, graph=True, span=span)
        return found

    def lets(self) -> tuple[Let, ...]:
        """Every statement as syntax."""
        return tuple([self.let(i) for i in range(len(self.names))])


#: a statement of a body
Stmt = Union[Let, Hint, Dataflow]


@dataclass(eq=False, slots=True)
class Body(Node):
    """Bindings and hints, then the result expression."""

    stmts: tuple[Stmt, ...]
    result: Expr


#: the function attribute that writes a definition's claimed dims (Def.claimed_dims)
CLAIMED = "claimed"


def claimed_attr(attrs: tuple[Attr, ...]) -> frozenset[str]:
    """The names a `claimed=[...]` function attribute lists (its strings; names.py reports
    one that is not a list of strings)."""
    for attr in attrs:
        if attr.name == CLAIMED and isinstance(attr.value, AttrSeq):
            return frozenset(v for v in attr.value.items if isinstance(v, str))
    return frozenset()


@dataclass(eq=False, slots=True)
class Def(Node):
    """`def @name[T](params) -> ret { body }`."""

    name: str
    dtype_params: tuple[str, ...]
    params: tuple[Param, ...]
    ret: Optional[TypeExpr]
    body: Body
    attrs: tuple[Attr, ...] = ()  # function attributes Relay prints after the parameters, as in Fn
    name_span: Span = field(default=NOWHERE, kw_only=True, repr=False, compare=False)
    # dim names of the signature marked as an exporter's claim (spec §6): by a frontend, or in
    # text by the function attribute `claimed=["batch", ...]` (CLAIMED), which a printed
    # program writes so that it checks again as it did
    claimed_dims: frozenset[str] = field(default=frozenset(), kw_only=True, repr=False, compare=False)
    # bounds a frontend gives dim names of the signature ({name: (lo, hi)}, hi None: none), as
    # torch.export's range constraints; text never sets them (the runtime checks them on entry)
    dim_bounds: dict[str, tuple[int, Optional[int]]] = field(
        default_factory=dict, kw_only=True, repr=False, compare=False
    )
    #: dim expressions over the signature's names that the frontend declares >= 0 (torch's
    #: inequality guards): names.py attaches them to the symbols as `Symbol.facts`
    dim_facts: tuple[DimExpr, ...] = field(default_factory=tuple, kw_only=True, repr=False, compare=False)
    #: dtype parameters written with a class (`[T: float]`), which only declarations may have
    dtype_classes: tuple[tuple[str, str], ...] = field(default=(), kw_only=True, compare=False)


@dataclass(eq=False, slots=True)
class AttrParam(Node):
    """An operator attribute in a declaration: `axis: int? = None`.

    `kind` is int, float, bool, str, dtype or any; `is_list` for `[int]`; `optional` when
    None is allowed; `default` is the value used when the call omits it (required if absent).
    """

    name: str
    kind: str
    is_list: bool = False
    optional: bool = False
    has_default: bool = False
    default: "AttrValue" = None


# contracts ----------------------------------------------------------------------------------
@dataclass(eq=False, slots=True)
class CInt(Node):
    """An integer in a contract."""

    value: int


@dataclass(eq=False, slots=True)
class CName(Node):
    """An attribute or a dim name of the signature, in a contract."""

    name: str


@dataclass(eq=False, slots=True)
class CCall(Node):
    """`rank(%x)`, `len(attr)` or `dim(%x, i)`: `operand` is `%x`, an attribute name or a name
    bound by a quantifier (`rank(e)`); `entry` picks one entry of a list operand (`%xs[0]`)."""

    function: str
    operand: str
    index: Optional["CExpr"] = None
    entry: Optional["CExpr"] = None


@dataclass(eq=False, slots=True)
class CBinary(Node):
    """Contract arithmetic: `op` is one of `+ - * //`."""

    op: str
    left: "CExpr"
    right: "CExpr"


@dataclass(eq=False, slots=True)
class CNeg(Node):
    """`-e` in a contract."""

    operand: "CExpr"


CExpr = Union[CInt, CName, CCall, CBinary, CNeg]


@dataclass(eq=False, slots=True)
class Compare(Node):
    """`a <= b < c`: `ops[i]` compares `operands[i]` with `operands[i + 1]`."""

    ops: tuple[str, ...]
    operands: tuple[CExpr, ...]


@dataclass(eq=False, slots=True)
class Member(Node):
    """`e in {v1, v2}`: `items` are Python values (ints, strings, bools; a bare name is a string)."""

    operand: CExpr
    items: tuple[Union[int, str, bool], ...]


@dataclass(eq=False, slots=True)
class InRange(Node):
    """`e in lo .. hi`, both ends included."""

    operand: CExpr
    low: CExpr
    high: CExpr


@dataclass(eq=False, slots=True)
class CBool(Node):
    """`a or b` (`op` "or") or `a and b` (`op` "and") over two or more conditions."""

    op: str
    parts: tuple["Condition", ...]


@dataclass(eq=False, slots=True)
class CNot(Node):
    """`not c`."""

    operand: "Condition"


@dataclass(eq=False, slots=True)
class CPresent(Node):
    """`present(x)`: whether an optional attribute or operand (`%x`) is given."""

    name: str


@dataclass(eq=False, slots=True)
class CQuant(Node):
    """`all(c for e in xs)` / `any(...)`: `c` for each entry `e` of a list operand (`%xs`), of
    a list attribute, or of an integer range `lo .. hi` (both ends included). `source` is the
    operand or attribute name; `low`/`high` the range's ends when `source` is None."""

    quantifier: str
    body: "Condition"
    var: str
    source: Optional[str] = None
    low: Optional[CExpr] = None
    high: Optional[CExpr] = None


Condition = Union[Compare, Member, InRange, CBool, CNot, CPresent, CQuant]


@dataclass(eq=False, slots=True)
class OpDecl(Node):
    """`def nn.dense[T](%x: T1, units: int? = None) -> T2 where ... = rule;` in stdlib/.

    `dtype_classes` pairs dtype parameters with the class they are restricted to
    (`[T: float]`); `where` holds the contract's conditions."""

    name: str
    dtype_params: tuple[str, ...]
    params: tuple[Param, ...]
    attrs: tuple[AttrParam, ...]
    ret: TypeExpr
    rule: Optional[str] = None
    doc: str = field(default="", compare=False)
    dtype_classes: tuple[tuple[str, str], ...] = ()
    where: tuple[Condition, ...] = ()


#: what a module holds: a program's definitions, or a declaration file's operators (stdlib/)
DefT = TypeVar("DefT", Def, OpDecl)


@dataclass(eq=False, slots=True)
class CtorDecl(Node):
    """One constructor of a type definition: `Cons(A, List[A])` (fields are type expressions)."""

    name: str
    fields: tuple[TypeExpr, ...]


@dataclass(eq=False, slots=True)
class TypeDef(Node):
    """`type List[A] { Cons(A, List[A]), Nil }`: an algebraic data type, its type parameters
    and its constructors."""

    name: str
    params: tuple[str, ...]
    ctors: tuple[CtorDecl, ...]
    name_span: Span = field(default=NOWHERE, kw_only=True, repr=False, compare=False)


@dataclass(eq=False, slots=True)
class Module(Node, Generic[DefT]):
    """A whole program: its definitions in source order (a `Module[Def]`), and its type
    definitions (printed first, as Relay prints them); a file of operator declarations parses
    to a `Module[OpDecl]`."""

    defs: tuple[DefT, ...]
    types: tuple[TypeDef, ...] = ()

    def find(self, name: str) -> Optional[DefT]:
        """The definition called `name`, if any."""
        for d in self.defs:
            if d.name == name:
                return d
        return None


#: a module of either kind (the printer and the formatter take both)
AnyModule = Union[Module[Def], Module[OpDecl]]


def same_tree(a: object, b: object) -> bool:
    """Structural equality of two trees, ignoring spans and other non-compared fields. A
    Dataflow is the lets it holds (`Dataflow.let`)."""
    stack: list[tuple[object, object]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:  # one tree (a formatted text's unchanged definition is the original's)
            continue
        if isinstance(x, Node) or isinstance(y, Node):
            if type(x) is not type(y):
                return False
            if type(x) is TensorTypeExpr and x.spelled_bare != y.spelled_bare:  # type: ignore[attr-defined]
                return False
            if type(x) is Body and type(y) is Body:
                stack.append((plain_statements(x.stmts), plain_statements(y.stmts)))
                stack.append((x.result, y.result))
                continue
            for name in _COMPARED.get(x.__class__) or _compared(x.__class__):
                stack.append((getattr(x, name), getattr(y, name)))
        elif isinstance(x, tuple) and isinstance(y, tuple):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif type(x) is not type(y) or x != y:
            if not (isinstance(x, float) and isinstance(y, float) and x != x and y != y):
                return False
    return True


_COMPARED: dict[type, tuple[str, ...]] = {}


def compared_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that make up its tree (all but its span and what a node
    class marks as not compared)."""
    return _COMPARED.get(cls) or _compared(cls)


def _compared(cls: type) -> tuple[str, ...]:
    """The fields of a node class that `same_tree` compares (kept per class: `fields` builds
    its tuple on every call)."""
    names = _COMPARED[cls] = tuple(f.name for f in fields(cls) if f.compare and f.name != "span")
    return names


class MadeLets:
    """The locator of Dataflow statements made as syntax first (the builder's `let`,
    `compact_lets`): each statement's tag is its Let."""

    @staticmethod
    def line(let: Let) -> Span:
        """Where the statement is."""
        return let.span

    @staticmethod
    def argument(let: Let, j: int) -> Span:
        """Where argument `j` is."""
        call = let.value
        assert isinstance(call, Call), "a made statement's value is an operator call"
        return call.args[j].span


MADE_LETS = MadeLets()


def is_graph_call(value: Node) -> bool:
    """An operator call whose arguments are all variables (`op(%a, %b, attr=...)`)."""
    if type(value) is not Call or value.callee.__class__ is not OpRef:
        return False
    for a in value.args:
        if a.__class__ is not Var:
            return False
    return True


def add_made_let(flow: Dataflow, let: Let) -> None:
    """Append `let` (unannotated, its value `is_graph_call`) to `flow` as a made statement."""
    call = let.value
    assert isinstance(call, Call) and isinstance(call.callee, OpRef), "a made statement is a graph call"
    args = [a.name for a in call.args if isinstance(a, Var)]
    assert len(args) == len(call.args), "a graph call's arguments are variables"
    index = len(flow.names)
    flow.names.append(let.var.name)
    flow.ops.append(call.callee.name)
    flow.args.append(args)
    flow.tags.append(let)
    flow.made[index] = let
    if call.attrs:
        flow.attrs[index] = call.attrs


def compact_lets(module: Module[Def]) -> Module[Def]:
    """Hold every run of unannotated operator lets on variables as a Dataflow of those very
    lets, in place (the inverse of `expand_dataflow`, which a CheckResult runs before a tool
    sees the module): name resolution and inference then read them from arrays. Returns the
    module."""
    return _rewrite_bodies(module, _compacted)


def _compacted(stmts: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """Statements with each run of operator lets (at least two) as a Dataflow."""
    out: list[Stmt] = []
    run: list[Let] = []
    for s in (*stmts, None):
        if type(s) is Let and s.type is None and is_graph_call(s.value):
            run.append(s)
            continue
        if len(run) > 1:
            flow = Dataflow([], [], [], [], MADE_LETS)
            for let in run:
                add_made_let(flow, let)
            out.append(flow)
        else:
            out.extend(run)
        run = []
        if s is not None:
            out.append(s)
    return tuple(out)


def expand_dataflow(module: Module[Def]) -> Module[Def]:
    """Put every Dataflow's statements in its body as lets (the same nodes `Dataflow.let`
    gives), in place: after checking, tools walk plain bindings. Returns the module."""
    return _rewrite_bodies(
        module, lambda stmts: plain_statements(stmts) if any(s.__class__ is Dataflow for s in stmts) else stmts
    )


def _rewrite_bodies(module: Module[Def], rewrite: Callable[[tuple[Stmt, ...]], tuple[Stmt, ...]]) -> Module[Def]:
    """Replace every body's statements by `rewrite(statements)`, in place, walking the tree
    without recursion (a Dataflow holds no bodies). Returns the module."""
    stack: list[object] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        if not isinstance(node, Node) or node.__class__ is Dataflow:
            continue
        if type(node) is Body:
            node.stmts = rewrite(node.stmts)
        for name in _CHILD_FIELDS.get(node.__class__) or _child_fields(node.__class__):
            stack.append(getattr(node, name))
    return module


def plain_statements(stmts: tuple[Stmt, ...]) -> tuple[Let | Hint, ...]:
    """Statements with each Dataflow's in its place as lets."""
    return tuple(let for s in stmts for let in (s.lets() if isinstance(s, Dataflow) else (s,)))


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that may hold expressions or bodies."""
    names = _CHILD_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "span")
    return names
