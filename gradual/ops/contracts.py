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

from gradual.ops.context import TensorArg, TupleArg
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
    """What a condition names, checked against the declaration."""

    def __init__(self, attrs: dict, operands: tuple, dims: frozenset, lists: frozenset = frozenset()) -> None:
        self.attrs, self.operand_names, self.dim_names, self.lists = attrs, operands, dims, lists
        self.attributes: list[str] = []
        self.operands: list[str] = []
        self.dims: list[str] = []

    def condition(self, node: ast.Condition) -> None:
        if isinstance(node, ast.Compare):
            for operand in node.operands:
                self.expr(operand)
        elif isinstance(node, ast.Member):
            self.expr(node.operand)
        else:
            for part in (node.operand, node.low, node.high):
                self.expr(part)

    def expr(self, node: ast.CExpr) -> None:
        if isinstance(node, ast.CName):
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
        if node.function == "len":
            if node.operand.startswith("%") and node.operand[1:] in self.lists and node.index is None:
                _add(self.operands, node.operand[1:])
                return
            attr = self.attrs.get(node.operand)
            if attr is None or not attr.is_list or node.index is not None:
                raise ContractError(f"`len({node.operand})` needs a list attribute or a list operand (`%x: [T]`)")
            _add(self.attributes, node.operand)
            return
        name = node.operand[1:]
        if not node.operand.startswith("%") or name not in self.operand_names:
            raise ContractError(f"`{node.function}({node.operand})` needs an operand of the declaration")
        if (node.function == "dim") != (node.index is not None):
            raise ContractError(f"`{node.function}` takes {FUNCTIONS[node.function]}")
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
    terms: tuple[tuple[int, int], ...]  # (argument index, coefficient), sorted, no zero coefficient

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
    """Evaluating one operator's contract in a context, after its signature was matched."""

    def __init__(self, ctx: Any, op: Any, dims: dict) -> None:
        # ctx: a ShapeContext, or for conditions on attributes alone anything with `attr`,
        # `static` and `fail`
        self.ctx = ctx
        self.op = op
        self.dims = {sym.name: value for sym, value in dims.items() if isinstance(sym, Symbol)}
        self.index = {name: i for i, name in enumerate(op.param_names)}

    # terms ---------------------------------------------------------------------------------
    def term(self, node: ast.CExpr) -> Value:
        if isinstance(node, ast.CInt):
            return node.value
        if isinstance(node, ast.CName):
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

    def _extremum(self, arg: Any, index: int, which: str) -> Value:
        if isinstance(arg, TupleArg) and arg.fields is not None and not arg.fields and self._optional(index):
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

    def call(self, node: ast.CCall) -> Value:
        if node.function == "len" and not node.operand.startswith("%"):
            value = self.ctx.attr(node.operand)
            return _ABSENT if value is None else len(value)
        i = self.index[node.operand[1:]]
        arg = self.ctx.args[i]
        if node.function in ("min", "max", "sum"):
            return self._extremum(arg, i, node.function)
        if node.function == "numel":
            if not isinstance(arg, TensorArg) or arg.dims is None:
                return UNDECIDED
            sizes = [self.ctx.static(d) for d in arg.dims]
            return UNDECIDED if None in sizes else math.prod(sizes)
        if node.function == "len":
            fields = getattr(arg, "fields", None)
            return UNDECIDED if fields is None else len(fields)
        if isinstance(arg, TupleArg) and arg.fields is not None and not arg.fields and self._optional(i):
            return _ABSENT
        if not isinstance(arg, TensorArg):
            return UNDECIDED  # the signature's own match reported a tuple where a tensor belongs
        if node.function == "rank":
            return arg.rank if arg.rank is not None else RankForm(0, ((i, 1),))
        axis = self.term(node.index) if node.index is not None else UNDECIDED
        if arg.dims is None or not isinstance(axis, int):
            return UNDECIDED
        if not -arg.rank <= axis < arg.rank:  # type: ignore[operator]
            return UNDECIDED  # another condition says which axes exist
        return self._dim(arg.dims[axis])

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
        node = condition.node
        if isinstance(node, ast.Compare):
            values = [self.term(o) for o in node.operands]
            for i, op in enumerate(node.ops):
                self.compare(condition, op, values[i], values[i + 1])
        elif isinstance(node, ast.Member):
            value = self.term(node.operand)
            for item in value if isinstance(value, list) else [value]:
                if item is _ABSENT or isinstance(item, (_Undecided, RankForm, _Dim)):
                    continue
                if item not in node.items:
                    self.fail(condition)
        else:
            value, low, high = self.term(node.operand), self.term(node.low), self.term(node.high)
            self.compare(condition, "<=", low, value)
            self.compare(condition, "<=", value, high)

    def compare(self, condition: Condition, op: str, a: Value, b: Value) -> None:
        if a is _ABSENT or b is _ABSENT or a is UNDECIDED or b is UNDECIDED:
            return
        if isinstance(a, list) or isinstance(b, list):
            pairs = (
                list(zip(a, b))
                if isinstance(a, list) and isinstance(b, list)
                else [(x, b) for x in a]
                if isinstance(a, list)
                else [(a, y) for y in b]
            )
            for x, y in pairs:
                self.compare(condition, op, x, y)
            return
        if (isinstance(a, (int, str)) and isinstance(b, (int, str)) and type(a) is type(b)) or (
            _number(a) and _number(b)
        ):
            if not _holds(op, a, b):  # NaN holds no comparison: a NaN attribute fails
                self.fail(condition)
            return
        if isinstance(a, (int, RankForm)) and isinstance(b, (int, RankForm)):
            self._rank_bound(condition, op, _rank_arith("-", a, b))
        elif isinstance(a, (int, _Dim)) and isinstance(b, (int, _Dim)):
            self._dim_relation(condition, op, a, b)

    def _rank_bound(self, condition: Condition, op: str, form: Any) -> None:
        """`form op 0` where form holds the ranks of arguments of unknown rank: one rank with a
        lower bound (or an equality) is required of that argument; the rest waits for runtime."""
        if not isinstance(form, RankForm) or len(form.terms) != 1:
            return
        (index, coeff), const = form.terms[0], form.const
        if coeff < 0:  # c*R + k op 0  with c < 0: flip to  |c|*R - k op' 0
            coeff, const, op = -coeff, -const, _FLIPPED[op]
        # coeff * R + const  op  0   ->   R op -const / coeff
        arg = self.ctx.args[index]
        assert isinstance(arg, TensorArg)
        if op == ">=":
            least = -(const // coeff)  # ceil(-const / coeff)
        elif op == ">":
            least = (-const) // coeff + 1
        elif op == "==":
            if -const < 0 or (-const) % coeff:
                self.fail(condition)
            self.ctx.require_rank(arg, -const // coeff)
            return
        else:
            return
        if least > 0:
            self.ctx.require_rank_at_least(arg, least)

    def _dim_relation(self, condition: Condition, op: str, a: Any, b: Any) -> None:
        """A relation between dims that are not both static: `==` unifies them (graded), a
        bound against a constant is required of the dim; the rest waits for runtime."""
        ctx = self.ctx
        if op == "==":
            ctx.equal(
                a.value if isinstance(a, _Dim) else ctx.const(a), b.value if isinstance(b, _Dim) else ctx.const(b)
            )
            return
        if isinstance(a, _Dim) and isinstance(b, int):
            dim, bound, rel = a.value, b, op
        elif isinstance(b, _Dim) and isinstance(a, int):
            dim, bound, rel = b.value, a, _FLIPPED[op]
        else:
            return
        low, high = {">=": (bound, None), ">": (bound + 1, None), "<=": (0, bound), "<": (0, bound - 1)}.get(
            rel, (0, None)
        )
        if high is not None and high < 0:
            self.fail(condition)  # no dim is negative
        elif low > 0 or high is not None:
            ctx.within(dim, max(low, 0), high)

    def fail(self, condition: Condition) -> None:
        facts = {"condition": condition.text, "detail": self.detail(condition)}
        operand = next((n for n in condition.operands), None)
        if operand is not None:
            facts["arg"] = self.ctx.args[self.index[operand]]
        attribute = next((n for n in condition.attributes), None)
        if attribute is not None:
            facts["attr"] = attribute
        self.ctx.fail(_failure_key(condition), **facts)

    def detail(self, condition: Condition) -> str:
        """What the condition's named terms are here: `batch_dims is 3, rank(%indices) is 2`."""
        shown = []
        for node in _leaves(condition.node):
            text = condition_text(node)
            value = self.term(node)
            if isinstance(value, (int, float, str, bool, list)):
                shown.append(f"{text} is {_value_text(value)}")
            elif isinstance(value, _Dim):
                shown.append(f"{text} is {value.value}")
        return ", ".join(dict.fromkeys(shown)) or "it does not hold"


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
    if isinstance(node, (ast.CName, ast.CCall)):
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
