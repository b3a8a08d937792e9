"""Operator contracts: the conditions a declaration states in its `where` clause, enforced
generically before the operator's rule runs.

    def take[T, I: index](%data: Tensor[*, T], %indices: Tensor[*, I], axis: int? = None,
                          batch_dims: int = 0, mode: str = "clip") -> Tensor[*, T]
        where mode in {"clip", "wrap", "fast"},
              axis in -rank(%data) .. rank(%data) - 1,
              0 <= batch_dims <= rank(%indices)
        = take;

A condition compares terms built from integers, attributes (`axis`; a float attribute compares
as a number, so `p >= 0` holds of 0.5 and not of NaN; a list attribute compares
entry by entry; an omitted optional attribute makes the condition hold), the signature's dim
names (`r` of `Tensor[(r,), I]`), `rank(%x)`, `dim(%x, i)`, `len(attr)` and `len(%x)` (the
length of a list operand `%x: [T]`), `numel(%x)` (its element count), `min(%x)`,
`max(%x)` and `sum(%x)` (the least and greatest element, and the sum, of an integer or bool
operand: data, so known when the program runs, or where the checker knows the value; an
operand without elements makes a condition on its `min` or `max` hold), with `+ - * //`. An optional operand (`%x: T?`) that is
absent makes every condition that names it hold, as an omitted attribute does.

Conditions combine with `or`, `and`, `not`; `present(x)` says whether an optional attribute or
operand is given; `all(c for e in %xs)` and `any(...)` range over the entries of a list
operand (`rank(e)`, `dim(%xs[0], i)`), of a list attribute, or of a range `lo .. hi`. A
condition is true, false or undecided where it is evaluated: conjunctive places (the clause,
`and`, `all`) say what an undecided part needs through the context, as below; `or`, `not` and
`any` decide where their terms are known and otherwise leave it to the runtime.

The same evaluation runs in both domains a rule runs in (ops/context.py). Where every term is
known it decides: a violated condition is a located diagnostic naming the operand or attribute,
the condition and the values it saw. Where a term is not known statically, what can be said
is said through the context, so it is graded like any constraint: dims compared with `==`
unify (`ctx.equal`), a dim against a constant is a bound (`ctx.within`), a lower bound on the
rank of an argument of unknown rank is required of it (`ctx.require_rank_at_least`). Anything
else is decided at runtime, where the concrete context knows every term, before the kernel
runs (a failure there is a check failure blamed at the call).

Conditions that name only attributes are checked where the attributes are (ops/attributes.py),
so they point at the attribute; at runtime every condition is evaluated again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from gradual.ops.context import MAX_RANK, ArgView, TensorArg, TupleArg
from gradual.shapes import Symbol
from gradual.syntax import ast
from gradual.syntax.printer import format_condition as condition_text

#: a dtype class a dtype parameter may be restricted to (`[T: float]`): name -> description
DTYPE_CLASSES = ("any", "bool", "number", "float", "int", "index", "bits", "quantized")

FUNCTIONS = {
    "rank": "an operand",
    "dim": "an operand and an axis",
    "len": "a list attribute or list operand",
    "numel": "an operand",
    "min": "an operand",
    "max": "an operand",
    "sum": "an operand",
}
#: the functions of an operand's elements (not of its type): data, decided where known
ELEMENT_FUNCTIONS = ("min", "max", "sum")


class ContractError(ValueError):
    """A declaration's contract that names what the declaration does not have."""


@dataclass(frozen=True)
class Condition:
    """One condition of a contract, with what it names (for checking and for messages)."""

    node: ast.Condition
    text: str
    attributes: tuple[str, ...]
    operands: tuple[str, ...]
    dims: tuple[str, ...]

    @property
    def attribute_only(self) -> bool:
        """Whether it names no operand and no dim: it is decided by the attributes alone."""
        return not self.operands and not self.dims


@dataclass(frozen=True)
class Contract:
    """A declaration's conditions, in the order written."""

    conditions: tuple[Condition, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.conditions)


EMPTY = Contract()


# compiling ---------------------------------------------------------------------------------------
def compile_contract(decl: ast.OpDecl, operand_names: tuple[str, ...], dim_names: frozenset) -> Contract:
    """The contract of a declaration; ContractError when a condition names an unknown operand,
    attribute, dim or function."""
    attrs = {a.name: a for a in decl.attrs}
    conditions = []
    lists = frozenset(p.var.name for p in decl.params if p.form == "list")
    for node in decl.where:
        names = _Names(attrs, operand_names, dim_names, lists)
        names.condition(node)
        conditions.append(
            Condition(node, condition_text(node), tuple(names.attributes), tuple(names.operands), tuple(names.dims))
        )
    for param, cls in decl.dtype_classes:
        if cls not in DTYPE_CLASSES:
            raise ContractError(f"`{param}: {cls}`: the dtype classes are {', '.join(DTYPE_CLASSES)}")
    return Contract(tuple(conditions))


class _Names:
    """What a condition names, checked against the declaration. A quantifier binds its name in
    its body: to a tensor (an entry of a list operand) or an int (an entry of a list attribute,
    or of a range)."""

    def __init__(self, attrs: dict, operands: tuple, dims: frozenset, lists: frozenset = frozenset()) -> None:
        self.attrs, self.operand_names, self.dim_names, self.lists = attrs, operands, dims, lists
        self.attributes: list[str] = []
        self.operands: list[str] = []
        self.dims: list[str] = []
        self.bound: dict[str, str] = {}  # a quantifier's name -> "tensor" or "int"

    def condition(self, node: ast.Condition) -> None:
        if isinstance(node, ast.Compare):
            for operand in node.operands:
                self.expr(operand)
        elif isinstance(node, ast.Member):
            self.expr(node.operand)
        elif isinstance(node, ast.InRange):
            for part in (node.operand, node.low, node.high):
                self.expr(part)
        elif isinstance(node, ast.CBool):
            for clause in node.parts:
                self.condition(clause)
        elif isinstance(node, ast.CNot):
            self.condition(node.operand)
        elif isinstance(node, ast.CPresent):
            self.present(node.name)
        else:
            self.quantifier(node)

    def present(self, name: str) -> None:
        if name.startswith("%") and name[1:] in self.operand_names:
            _add(self.operands, name[1:])
            return
        attr = self.attrs.get(name)
        if attr is None or not attr.optional:
            raise ContractError(f"`present({name})` needs an optional attribute or operand")
        _add(self.attributes, name)

    def quantifier(self, node: ast.CQuant) -> None:
        if node.var in self.attrs or node.var in self.dim_names or node.var in self.bound:
            raise ContractError(f"`{node.var}` of `{node.quantifier}(...)` is already a name of the signature")
        if node.source is None:
            assert node.low is not None and node.high is not None, "the grammar gives a range both ends"
            self.expr(node.low)
            self.expr(node.high)
            kind = "int"
        elif node.source.startswith("%"):
            if node.source[1:] not in self.operand_names:
                raise ContractError(f"`{node.quantifier}(... for {node.var} in {node.source})` needs an operand")
            _add(self.operands, node.source[1:])
            kind = "tensor"
        else:
            attr = self.attrs.get(node.source)
            if attr is None or not attr.is_list:
                raise ContractError(f"`... for {node.var} in {node.source}` needs a list attribute or operand")
            _add(self.attributes, node.source)
            kind = "int"
        self.bound[node.var] = kind
        try:
            self.condition(node.body)
        finally:
            del self.bound[node.var]

    def expr(self, node: ast.CExpr) -> None:
        if isinstance(node, ast.CName):
            if self.bound.get(node.name) == "int":
                return
            if node.name in self.attrs:
                _add(self.attributes, node.name)
            elif node.name in self.dim_names:
                _add(self.dims, node.name)
            else:
                raise ContractError(f"`{node.name}` is neither an attribute nor a dim of the signature")
        elif isinstance(node, ast.CCall):
            self.call(node)
        elif isinstance(node, ast.CBinary):
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, ast.CNeg):
            self.expr(node.operand)

    def call(self, node: ast.CCall) -> None:
        if node.function not in FUNCTIONS:
            raise ContractError(f"`{node.function}(...)`: a contract may call {', '.join(FUNCTIONS)}")
        if node.entry is not None:
            self.expr(node.entry)
        if node.function == "len":
            if node.operand.startswith("%") and node.operand[1:] in self.lists and node.index is None:
                _add(self.operands, node.operand[1:])
                return
            attr = self.attrs.get(node.operand)
            if attr is None or not attr.is_list or node.index is not None or node.entry is not None:
                raise ContractError(f"`len({node.operand})` needs a list attribute or a list operand (`%x: [T]`)")
            _add(self.attributes, node.operand)
            return
        name = node.operand[1:]
        bound = self.bound.get(node.operand) == "tensor"
        if not bound and (not node.operand.startswith("%") or name not in self.operand_names):
            raise ContractError(f"`{node.function}({node.operand})` needs an operand of the declaration")
        if (node.function == "dim") != (node.index is not None):
            raise ContractError(f"`{node.function}` takes {FUNCTIONS[node.function]}")
        if not bound:
            _add(self.operands, name)
        if node.index is not None:
            self.expr(node.index)


def _add(items: list, name: str) -> None:
    if name not in items:
        items.append(name)


# evaluating --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RankForm:
    """`const + sum(coeff * rank(arg))` over arguments whose rank is not known here."""

    const: int
    terms: tuple[tuple[Any, int], ...]  # ((argument index, path), coefficient), sorted, no zero coefficient

    def plus(self, other: "RankForm", sign: int = 1) -> "RankForm":
        terms = dict(self.terms)
        for index, coeff in other.terms:
            terms[index] = terms.get(index, 0) + sign * coeff
        return RankForm(self.const + sign * other.const, tuple(sorted((i, c) for i, c in terms.items() if c)))

    def times(self, k: int) -> "RankForm":
        return RankForm(self.const * k, tuple((i, c * k) for i, c in self.terms if c * k))


class _Undecided:
    """A term whose value this context cannot know (it is decided at runtime)."""


UNDECIDED = _Undecided()
_ABSENT = object()  # an omitted optional attribute: its conditions hold


class _Dim:
    """A dim value of the context that is not static here (`n`, `?`, an interval)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


Value = Any  # int | list | str | bool | RankForm | _Dim | _Undecided | _ABSENT


class Evaluation:
    """Evaluating one operator's contract in a context, after its signature was matched.

    A condition evaluates to True (holds), False (can never hold here: a violation) or None
    (not decided here). Where it is not decided, a condition in a conjunctive place (the
    clause itself, a part of `and`, the body of `all`) says what it can through the context
    (`effects`); under `or`, `not` and `any` nothing can be required of a single part, so
    those are decided where every term is known (always at runtime) and otherwise wait."""

    def __init__(self, ctx: Any, op: Any, dims: dict) -> None:
        # ctx: a ShapeContext, or for conditions on attributes alone anything with `attr`,
        # `static` and `fail`
        self.ctx = ctx
        self.op = op
        self.dims = {sym.name: value for sym, value in dims.items() if isinstance(sym, Symbol)}
        self.index = {name: i for i, name in enumerate(op.param_names)}
        self.env: dict[str, Any] = {}  # a quantifier's name -> the entry it stands for now
        self.witness: dict[str, str] = {}  # ... and that entry as text (`%xs[2]`), for messages
        self.rank_args: dict[tuple, Any] = {}  # a RankForm's key -> the argument of that rank
        self.opening = False  # whether terms may open dims of unknown-rank operands (effects)
        self.least_ranks: dict[tuple, int] = {}  # a RankForm's key -> the rank required of it so far

    # terms ---------------------------------------------------------------------------------
    def term(self, node: ast.CExpr) -> Value:
        if isinstance(node, ast.CInt):
            return node.value
        if isinstance(node, ast.CName):
            if node.name in self.env:
                bound = self.env[node.name]
                return bound if isinstance(bound, int) else UNDECIDED
            if node.name in self.op.attrs:
                value = self.ctx.attr(node.name)
                if value is None:
                    return _ABSENT
                return list(value) if isinstance(value, (list, tuple)) else value
            return self._dim(self.dims.get(node.name, _ABSENT))
        if isinstance(node, ast.CCall):
            return self.call(node)
        if isinstance(node, ast.CNeg):
            return self.arith("-", 0, self.term(node.operand))
        if isinstance(node, ast.CBinary):
            return self.arith(node.op, self.term(node.left), self.term(node.right))
        raise TypeError(f"not a contract term: {node!r}")

    def _extremum(self, arg: Any, optional: bool, which: str) -> Value:
        if optional and _absent(arg):
            return _ABSENT
        if not isinstance(arg, TensorArg):
            return UNDECIDED
        bounds = self.ctx.element_bounds(arg)
        if bounds is None:
            return UNDECIDED
        if not bounds:
            return 0 if which == "sum" else _ABSENT  # no elements: no least or greatest one
        return bounds[("min", "max", "sum").index(which)]

    def _optional(self, index: int) -> bool:
        forms = getattr(self.op, "forms", ())
        return bool(forms) and forms[index] == "optional"

    def _dim(self, value: Any) -> Value:
        if value is _ABSENT:
            return UNDECIDED
        static = self.ctx.static(value)
        return static if static is not None else _Dim(value)

    def _operand(self, node: ast.CCall) -> tuple[Any, bool]:
        """The argument a call names (an operand, one entry of a list operand, or a
        quantifier's entry) and whether it is an optional operand; UNDECIDED where it is not
        known here."""
        if node.operand in self.env:
            return self.env[node.operand], False
        if not node.operand.startswith("%"):
            return UNDECIDED, False  # a quantifier's name outside its quantifier (messages)
        i = self.index[node.operand[1:]]
        arg = self.ctx.args[i]
        if node.entry is None:
            return arg, self._optional(i)
        entry = self.term(node.entry)
        fields = arg.fields if isinstance(arg, TupleArg) else None
        if fields is None or not isinstance(entry, int) or not -len(fields) <= entry < len(fields):
            return UNDECIDED, False  # another condition says how many entries there are
        return fields[entry], False

    def call(self, node: ast.CCall) -> Value:
        if node.function == "len" and not node.operand.startswith("%"):
            value = self.ctx.attr(node.operand)
            return _ABSENT if value is None else len(value)
        arg, optional = self._operand(node)
        if arg is UNDECIDED:
            return UNDECIDED
        if node.function in ELEMENT_FUNCTIONS:
            return self._extremum(arg, optional, node.function)
        if node.function == "numel":
            if not isinstance(arg, TensorArg) or arg.dims is None:
                return UNDECIDED
            sizes = [self.ctx.static(d) for d in arg.dims]
            return UNDECIDED if None in sizes else math.prod(sizes)
        if node.function == "len":
            fields = getattr(arg, "fields", None)
            return UNDECIDED if fields is None else len(fields)
        if optional and _absent(arg):
            return _ABSENT
        if not isinstance(arg, TensorArg):
            return UNDECIDED  # the signature's own match reported a tuple where a tensor belongs
        if node.function == "rank":
            if arg.rank is not None:
                return arg.rank
            key = (arg.index, tuple(arg.path))
            self.rank_args[key] = arg
            return RankForm(0, ((key, 1),))
        axis = self.term(node.index) if node.index is not None else UNDECIDED
        if not isinstance(axis, int) or isinstance(axis, bool):
            return UNDECIDED
        if arg.dims is None:
            return self._opened_dim(arg, axis)
        if not -arg.rank <= axis < arg.rank:  # type: ignore[operator]
            return UNDECIDED  # another condition says which axes exist
        return self._dim(arg.dims[axis])

    def _opened_dim(self, arg: TensorArg, axis: int) -> Value:
        """`dim(%x, axis)` of an operand of unknown rank, in a conjunctive place, where an
        earlier condition already required the rank the axis needs (`axis in -rank(%x) ..
        rank(%x) - 1`): the dim is opened (counted from the end for a negative axis), so a
        relation on it is graded like one on a known dim. Elsewhere undecided, and decided when
        the program runs: an axis outside the rank names no dim, and a comparison with no dim
        holds (another condition says which axes exist), whether the rank is known here or not."""
        if not self.opening or not -MAX_RANK <= axis < MAX_RANK:
            return UNDECIDED
        if self.least_ranks.get((arg.index, tuple(arg.path)), 0) < (axis + 1 if axis >= 0 else -axis):
            return UNDECIDED
        first, last = self.ctx.edge_dims(arg, axis + 1 if axis >= 0 else 0, -axis if axis < 0 else 0)
        return self._dim(first[axis] if axis >= 0 else last[0])

    def arith(self, op: str, a: Value, b: Value) -> Value:
        if a is _ABSENT or b is _ABSENT:
            return _ABSENT
        if isinstance(a, list) or isinstance(b, list):
            if isinstance(a, list) and isinstance(b, list):
                return [self.arith(op, x, y) for x, y in zip(a, b)] if len(a) == len(b) else UNDECIDED
            return [self.arith(op, x, b) for x in a] if isinstance(a, list) else [self.arith(op, a, y) for y in b]
        if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
            return UNDECIDED
        if _number(a) and _number(b):  # ints, or a float attribute (`p >= 0`, `eps > 0`)
            if op == "//":
                return a // b if b else UNDECIDED
            return a + b if op == "+" else a - b if op == "-" else a * b
        if isinstance(a, (int, RankForm)) and isinstance(b, (int, RankForm)):
            return _rank_arith(op, a, b)
        return UNDECIDED

    # conditions ----------------------------------------------------------------------------
    def check(self, condition: Condition) -> None:
        self.env, self.witness = {}, {}
        if self.holds(condition.node, True) is False:
            self.fail(condition)

    def holds(self, node: ast.Condition, effects: bool) -> Optional[bool]:
        """Whether the condition holds here (None: not decided here); `effects`: say what an
        undecided comparison needs through the context (see the class docstring)."""
        if isinstance(node, ast.Compare):
            values = self._terms(node.operands, effects)
            return _conjunction(self.compare(op, values[i], values[i + 1], effects) for i, op in enumerate(node.ops))
        if isinstance(node, ast.Member):
            value = self.term(node.operand)
            verdict: Optional[bool] = True
            for item in value if isinstance(value, list) else [value]:
                if item is _ABSENT:
                    continue
                if isinstance(item, (_Undecided, RankForm, _Dim)):
                    verdict = None
                elif item not in node.items:
                    return False
            return verdict
        if isinstance(node, ast.InRange):
            value, low, high = self._terms((node.operand, node.low, node.high), effects)
            return _conjunction(self.compare("<=", a, b, effects) for a, b in ((low, value), (value, high)))
        if isinstance(node, ast.CBool):
            if node.op == "and":
                return _conjunction(self.holds(part, effects) for part in node.parts)
            return _disjunction(self.holds(part, False) for part in node.parts)
        if isinstance(node, ast.CNot):
            inner = self.holds(node.operand, False)
            return None if inner is None else not inner
        if isinstance(node, ast.CPresent):
            return self.present(node.name)
        return self.quantified(node, effects)

    def _terms(self, nodes: Any, effects: bool) -> list:
        self.opening = effects
        try:
            return [self.term(n) for n in nodes]
        finally:
            self.opening = False

    def present(self, name: str) -> Optional[bool]:
        if not name.startswith("%"):
            return self.ctx.attr(name) is not None
        arg = self.ctx.args[self.index[name[1:]]]
        if isinstance(arg, TupleArg):
            return None if arg.fields is None else bool(arg.fields)
        return True

    def quantified(self, node: ast.CQuant, effects: bool) -> Optional[bool]:
        """`all`: a conjunction over the entries (an entry that fails is the witness the
        message names: its binding stays); `any`: a disjunction."""
        entries = self.entries(node)
        if entries is _ABSENT:
            return True
        if entries is None:
            return None
        verdicts = []
        for value, text in entries:
            self.env[node.var], self.witness[node.var] = value, text
            verdict = self.holds(node.body, effects and node.quantifier == "all")
            if node.quantifier == "all" and verdict is False:
                return False
            if node.quantifier == "any" and verdict is True:
                break
            verdicts.append(verdict)
        else:
            self.env.pop(node.var, None)
            return _conjunction(verdicts) if node.quantifier == "all" else _disjunction(verdicts)
        self.env.pop(node.var, None)
        return True

    def entries(self, node: ast.CQuant) -> Any:
        """The (value, text) of each entry a quantifier ranges over; None where they are not
        known here, _ABSENT for an omitted optional attribute (its conditions hold)."""
        if node.source is None:
            assert node.low is not None and node.high is not None, "a quantifier ranges over a source or a range"
            low, high = self.term(node.low), self.term(node.high)
            if low is _ABSENT or high is _ABSENT:
                return _ABSENT
            if not _is_int(low) or not _is_int(high) or high - low >= MAX_RANGE:
                return None
            return [(i, str(i)) for i in range(low, high + 1)]
        if node.source.startswith("%"):
            arg = self.ctx.args[self.index[node.source[1:]]]
            fields = arg.fields if isinstance(arg, TupleArg) else None
            return None if fields is None else [(f, f"{node.source}[{j}]") for j, f in enumerate(fields)]
        value = self.ctx.attr(node.source)
        if value is None:
            return _ABSENT
        return [(v, f"{node.source}[{j}] = {_value_text(v)}") for j, v in enumerate(value)]

    def compare(self, op: str, a: Value, b: Value, effects: bool) -> Optional[bool]:
        if a is _ABSENT or b is _ABSENT:
            return True
        if a is UNDECIDED or b is UNDECIDED:
            return None
        if isinstance(a, list) or isinstance(b, list):
            pairs = (
                list(zip(a, b))
                if isinstance(a, list) and isinstance(b, list)
                else [(x, b) for x in a]
                if isinstance(a, list)
                else [(a, y) for y in b]
            )
            return _conjunction(self.compare(op, x, y, effects) for x, y in pairs)
        if (isinstance(a, (int, str)) and isinstance(b, (int, str)) and type(a) is type(b)) or (
            _number(a) and _number(b)
        ):
            return _holds(op, a, b)  # NaN holds no comparison: a NaN attribute fails
        if isinstance(a, (int, RankForm)) and isinstance(b, (int, RankForm)):
            return self._rank_bound(op, _rank_arith("-", a, b), effects)
        if isinstance(a, (int, _Dim)) and isinstance(b, (int, _Dim)):
            return self._dim_relation(op, a, b, effects)
        return None

    def _rank_bound(self, op: str, form: Any, effects: bool) -> Optional[bool]:
        """`form op 0` where form holds the ranks of arguments of unknown rank: one rank with a
        lower bound (or an equality) is required of that argument; the rest waits for runtime."""
        if not isinstance(form, RankForm) or len(form.terms) != 1:
            return None
        (key, coeff), const = form.terms[0], form.const
        if coeff < 0:  # c*R + k op 0  with c < 0: flip to  |c|*R - k op' 0
            coeff, const, op = -coeff, -const, _FLIPPED[op]
        # coeff * R + const  op  0   ->   R op -const / coeff, where no rank is negative
        arg = self.rank_args[key]
        if op == ">=":
            least = -(const // coeff)  # ceil(-const / coeff)
        elif op == ">":
            least = (-const) // coeff + 1
        elif op == "==":
            if -const < 0 or (-const) % coeff:
                return False
            if effects:
                self.ctx.require_rank(arg, -const // coeff)
                self.least_ranks[key] = max(self.least_ranks.get(key, 0), -const // coeff)
            return None
        elif op in ("<", "<="):
            return False if const > 0 or (op == "<" and const == 0) else None
        else:
            return None
        if least > 0 and effects:
            self.ctx.require_rank_at_least(arg, least)
            self.least_ranks[key] = max(self.least_ranks.get(key, 0), least)
        return None

    def _dim_relation(self, op: str, a: Any, b: Any, effects: bool) -> Optional[bool]:
        """A relation between dims that are not both static: `==` unifies them (graded), a
        bound against a constant is required of the dim; the rest waits for runtime."""
        ctx = self.ctx
        if op == "==":
            if effects:
                ctx.equal(
                    a.value if isinstance(a, _Dim) else ctx.const(a), b.value if isinstance(b, _Dim) else ctx.const(b)
                )
            return None
        if isinstance(a, _Dim) and isinstance(b, int):
            dim, bound, rel = a.value, b, op
        elif isinstance(b, _Dim) and isinstance(a, int):
            dim, bound, rel = b.value, a, _FLIPPED[op]
        else:
            return None
        low, high = {">=": (bound, None), ">": (bound + 1, None), "<=": (0, bound), "<": (0, bound - 1)}.get(
            rel, (0, None)
        )
        if high is not None and high < 0:
            return False  # no dim is negative
        if (low > 0 or high is not None) and effects:
            ctx.within(dim, max(low, 0), high)
        return None

    def fail(self, condition: Condition) -> None:
        facts: dict[str, Any] = {"condition": condition.text, "detail": self.detail(condition)}
        entry = next((v for v in self.env.values() if isinstance(v, ArgView)), None)
        operand = next((n for n in condition.operands), None)
        if entry is not None:
            facts["arg"] = entry  # the entry of a list operand the condition fails for
        elif operand is not None:
            facts["arg"] = self.ctx.args[self.index[operand]]
        attribute = next((n for n in condition.attributes), None)
        if attribute is not None:
            facts["attr"] = attribute
        self.ctx.fail(_failure_key(condition), **facts)

    def detail(self, condition: Condition) -> str:
        """What the condition's named terms are here: `batch_dims is 3, rank(%indices) is 2`;
        under a quantifier, first the entry it fails for (`e = %xs[2]`, `s = strides[1] = 0`)."""
        shown = [f"{var} = {text}" for var, text in self.witness.items() if var in self.env]
        for node in _leaves(condition.node):
            if isinstance(node, ast.CName) and node.name in self.env:
                continue  # shown as the entry above
            text = condition_text(node)
            value = self.present(node.name) if isinstance(node, ast.CPresent) else self.term(node)
            if isinstance(value, (int, float, str, bool, list)):
                shown.append(f"{text} is {_value_text(value)}")
            elif isinstance(value, _Dim):
                shown.append(f"{text} is {value.value}")
        return ", ".join(dict.fromkeys(shown)) or "it does not hold"


#: the most entries a quantifier's integer range is enumerated for (ranks are at most 64)
MAX_RANGE = 4096


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _absent(arg: Any) -> bool:
    """Whether an optional operand's argument is the absent `()`."""
    return isinstance(arg, TupleArg) and arg.fields is not None and not arg.fields


def _conjunction(verdicts: Any) -> Optional[bool]:
    """False if any is False, else None if any is None, else True (every part is evaluated,
    so each says what it needs through the context)."""
    result: Optional[bool] = True
    for verdict in verdicts:
        if verdict is False:
            return False
        if verdict is None:
            result = None
    return result


def _disjunction(verdicts: Any) -> Optional[bool]:
    result: Optional[bool] = False
    for verdict in verdicts:
        if verdict is True:
            return True
        if verdict is None:
            result = None
    return result


def _failure_key(condition: Condition) -> str:
    if condition.attribute_only:
        return "contract-attribute"
    if any(isinstance(leaf, ast.CCall) and leaf.function in ELEMENT_FUNCTIONS for leaf in _leaves(condition.node)):
        return "contract-value"  # what an operand holds, whatever else it names
    if condition.attributes:
        return "contract"
    node_text = condition.text
    if "rank(" in node_text:
        return "contract-rank"
    if condition.dims or "dim(" in node_text:
        return "contract-dim"
    return "contract"


def _leaves(node: Any) -> list:
    if isinstance(node, ast.Compare):
        return [leaf for o in node.operands for leaf in _leaves(o)]
    if isinstance(node, ast.Member):
        return _leaves(node.operand)
    if isinstance(node, ast.InRange):
        return _leaves(node.operand) + _leaves(node.low) + _leaves(node.high)
    if isinstance(node, ast.CBool):
        return [leaf for part in node.parts for leaf in _leaves(part)]
    if isinstance(node, ast.CNot):
        return _leaves(node.operand)
    if isinstance(node, ast.CQuant):
        ends = [leaf for end in (node.low, node.high) if end is not None for leaf in _leaves(end)]
        return ends + _leaves(node.body)
    if isinstance(node, (ast.CName, ast.CCall, ast.CPresent)):
        return [node]
    if isinstance(node, ast.CBinary):
        return _leaves(node.left) + _leaves(node.right)
    if isinstance(node, ast.CNeg):
        return _leaves(node.operand)
    return []


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return str(value)


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _number(value: Any) -> bool:
    """An int or a float (a float attribute's value), not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _holds(op: str, a: Any, b: Any) -> bool:
    if op == "==":
        return bool(a == b)
    if op == "!=":
        return bool(a != b)
    if isinstance(a, str) or isinstance(b, str):
        return False
    return bool(a < b if op == "<" else a <= b if op == "<=" else a > b if op == ">" else a >= b)


def _rank_arith(op: str, a: Any, b: Any) -> Any:
    fa = a if isinstance(a, RankForm) else RankForm(a, ())
    fb = b if isinstance(b, RankForm) else RankForm(b, ())
    if op == "+":
        return fa.plus(fb)
    if op == "-":
        return fa.plus(fb, -1)
    if op == "*":
        if not fa.terms:
            return fb.times(fa.const)
        if not fb.terms:
            return fa.times(fb.const)
    return UNDECIDED


def enforce(ctx: Any, op: Any, dims: dict, attribute_only: Optional[bool] = None) -> None:
    """Check an operator's contract in a context (see the module docstring); `dims` are the
    signature's dim names as matched. `attribute_only` selects the conditions that name only
    attributes (True), the others (False), or all (None)."""
    contract: Contract = op.contract
    if not contract:
        return
    evaluation = Evaluation(ctx, op, dims)
    for condition in contract.conditions:
        if attribute_only is None or condition.attribute_only == attribute_only:
            evaluation.check(condition)


class _Violation(Exception):
    def __init__(self, facts: dict) -> None:
        super().__init__(facts.get("condition"))
        self.facts = facts


class _Attributes:
    """The part of a context that conditions on attributes alone read."""

    args: tuple = ()

    def __init__(self, op: Any, values: dict) -> None:
        self.op_name = op.name
        self.values = values

    def attr(self, name: str) -> Any:
        return self.values.get(name)

    def static(self, d: Any) -> Optional[int]:
        return d if isinstance(d, int) else None

    def fail(self, code: str, **facts: Any) -> Any:
        raise _Violation(facts)


def attribute_violation(op: Any, values: dict) -> Optional[dict]:
    """The facts of the first condition on attributes alone that `values` break (`condition`,
    `detail`, `attr`), or None."""
    contract: Contract = op.contract
    if not contract or not any(c.attribute_only for c in contract.conditions):
        return None
    try:
        enforce(_Attributes(op, values), op, {}, attribute_only=True)
    except _Violation as violation:
        return violation.facts
    return None
