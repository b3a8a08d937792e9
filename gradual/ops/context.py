"""The interface a shape rule is written against, so one rule runs in two domains.

A shape rule is a Python function `rule(ctx) -> Result`. The checker calls it with a
symbolic context, where dimensions are symbolic values (static, symbolic, bounded or
unknown); the runtime calls it with a concrete context, where dimensions are plain ints and
the result is the size to allocate. A rule therefore:

* reads arguments through the typed accessors `ctx.operands()`, `ctx.operand(i)` (TensorArg)
  and `ctx.tuple_operand(i)` (TupleArg), attributes through `ctx.attr(name)`;
* combines dimensions with `+ - * //` (both domains support them) and never compares them
  with `==`: it asks the context (`ctx.equal`, `ctx.broadcast`, `ctx.static`, `ctx.is_one`);
* reports a violated constraint with `ctx.fail(code, **facts)` (which does not return);
* returns `ctx.tensor(dims, dtype=None, value=None)` or `ctx.tuple([...])`; `dims=None` is
  dynamic rank, `dtype=None` takes the dtype the operator's signature gives, `value` lists
  the elements of a small integer tensor when they are known (shape values).

`ctx.unknown()` and `ctx.bounded(lo, hi)` stand for data-dependent sizes; at runtime they mean
"whatever the kernel produced, within these bounds".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NoReturn, Optional, Sequence


class RuleFailure(Exception):
    """Raised by `ctx.fail`: the rule found its inputs or attributes invalid."""

    def __init__(self, code: str, facts: dict) -> None:
        super().__init__(code)
        self.code = code
        self.facts = facts


#: the most dims an array can have (NumPy's limit): no attribute may ask for more
MAX_RANK = 64


class ArgView:
    """One argument of the call as a rule sees it."""

    __slots__ = ("index", "path")

    def __init__(self, index: int, path: tuple = ()) -> None:
        self.index = index
        self.path = path

    @property
    def is_tuple(self) -> bool:
        """Whether this argument is a tuple."""
        return False


class TensorArg(ArgView):
    """A tensor argument: its rank (None when unknown), dims, dtype and known elements."""

    __slots__ = ("rank", "dims", "dtype", "value")

    def __init__(self, index: int, path: tuple, dims: Optional[list], dtype: Any, value: Optional[list]) -> None:
        super().__init__(index, path)
        self.dims = dims
        self.rank = None if dims is None else len(dims)
        self.dtype = dtype
        self.value = value

    def dim(self, axis: int) -> Any:
        """The dimension at `axis` (negative counts from the end); rank must be known."""
        assert self.dims is not None, "dim() of an argument of unknown rank"
        return self.dims[axis]


class TupleArg(ArgView):
    """A tuple argument: its fields (None when its length is unknown)."""

    __slots__ = ("fields",)

    def __init__(self, index: int, path: tuple, fields: Optional[list]) -> None:
        super().__init__(index, path)
        self.fields = fields

    @property
    def is_tuple(self) -> bool:
        return True


class ShapeContext(ABC):
    """What a rule may ask of the domain it runs in (see the module docstring)."""

    op_name: str
    args: Sequence[ArgView]

    # attributes ---------------------------------------------------------------------------
    @abstractmethod
    def attr(self, name: str) -> Any:
        """The attribute's value (the declared default when the call omits it)."""

    # knowledge ----------------------------------------------------------------------------
    @abstractmethod
    def static(self, d: Any) -> Optional[int]:
        """The value of a dimension if it is statically known, else None."""

    def is_one(self, d: Any) -> Optional[bool]:
        """True/False when it is known whether the dimension is 1, else None."""
        value = self.static(d)
        if value is not None:
            return value == 1
        return self.maybe_one(d)

    def at_least(self, d: Any, lo: int) -> Optional[bool]:
        """True if d >= lo for sure, False if d < lo for sure, None if that depends."""
        value = self.static(d)
        return None if value is None else value >= lo

    def bounds(self, d: Any) -> tuple:
        """The least and greatest value d can have (None: no upper bound)."""
        value = self.static(d)
        return (0, None) if value is None else (value, value)

    def exact(self, d: Any) -> bool:
        """Whether d stands for one value (a size or a symbolic expression), not `?` or an
        interval. Concrete sizes always are."""
        return self.static(d) is not None

    def exact_quotient(self, a: Any, b: Any) -> Any:
        """`a / b` when b is known to divide a (`4 * k` by `k` is 4), else None."""
        x, y = self.static(a), self.static(b)
        if x is None or not y or x % y:
            return None
        return self.const(x // y)

    def claimed(self, d: Any) -> bool:
        """Whether d mentions a claimed symbol (an exporter's dynamic dim, spec §6): a size the
        model says is free, which an operator that clamps (a slice) must not constrain.
        Concrete sizes never do."""
        return False

    @abstractmethod
    def maybe_one(self, d: Any) -> Optional[bool]:
        """For a dimension with no static value: False if it can never be 1, else None."""

    @abstractmethod
    def const(self, value: int) -> Any:
        """A static dimension in this domain."""

    @abstractmethod
    def symbolic(self, dim: Any) -> Any:
        """A dimension written over symbols of enclosing scopes (a Dimension) in this domain."""

    @abstractmethod
    def unknown(self) -> Any:
        """A data-dependent size with no bounds (`?`)."""

    @abstractmethod
    def bounded(self, lo: Any, hi: Any) -> Any:
        """A data-dependent size known to lie in `lo..hi` (hi None: unbounded)."""

    # constraints --------------------------------------------------------------------------
    @abstractmethod
    def equal(self, a: Any, b: Any, symbol: Optional[str] = None, otherwise: Optional[tuple] = None) -> Any:
        """Require a == b; returns the agreed dimension. `symbol` names the signature symbol;
        `otherwise = (code, facts)` makes a failure the rule's own (`fail(code, **facts)`), for
        rules whose constraint reads better in their words than as two dims."""

    def quotient(self, value: Any, coeff: int, symbol: Optional[str] = None, written: Optional[tuple] = None) -> Any:
        """`value // coeff`, requiring coeff to divide value (a signature's `2 * n` matched
        against a dim: n is half of it). `written`: the dim matched and the signature's
        expression (`2 * n + 1`), for a message."""
        q = value // coeff
        self.equal(q * coeff, value, symbol=symbol)
        return q

    @abstractmethod
    def broadcast(self, a: Any, b: Any) -> Any:
        """NumPy broadcasting of two dims: 1 stretches, otherwise they must be equal."""

    @abstractmethod
    def within(self, d: Any, lo: int, hi: Optional[int]) -> None:
        """Require lo <= d <= hi (hi None: no upper bound). The rule enforces this itself in
        both domains, so where it is not provable the runtime's evaluation of the rule stops
        a bad input at the call (no check is inserted for it)."""

    def assume_within(self, d: Any, lo: int, hi: Optional[int], needed: bool = True) -> None:
        """Like `within`, for an assumption the rule's symbolic result relies on but its
        concrete evaluation would not notice (a window that does not fit, a crop): where it is
        not provable, the checker inserts a runtime check of it. `needed` False: the operation
        itself runs without it (a slice of a short dim is clamped), and only the exact length
        assumes it, so a caller does not learn it as a requirement of the definition."""
        self.within(d, lo, hi)

    def assured(self, d: Any, lo: int, hi: Optional[int], symbol: str) -> Any:
        """The value of a callee's signature symbol that its body checks to lie in lo..hi
        before it returns. The runtime has the value itself; the checker narrows what it
        does not know of it."""
        return d

    @abstractmethod
    def require_rank(self, arg: TensorArg, rank: int) -> None:
        """Require the argument to have this rank (gives dims to an argument of unknown rank)."""

    def require_rank_at_least(self, arg: TensorArg, rank: int) -> None:
        """Require the argument to have at least this rank (an axis attribute names a dim of it);
        an argument of unknown rank gets a check. No array has more than MAX_RANK dims (an axis
        of 10^30 made a check pattern of that many dims: an OverflowError)."""
        self.require_possible_rank(arg, rank)
        if arg.rank is not None and arg.rank < rank:
            self.fail("rank-too-small", arg=arg, needed=rank, rank=arg.rank)

    def require_possible_rank(self, arg: TensorArg, rank: int) -> None:
        """Fail where a rank the rule needs is more than any array has (MAX_RANK)."""
        if rank > MAX_RANK:
            self.fail("rank-beyond-limit", arg=arg, needed=rank, limit=MAX_RANK)

    def edge_dims(self, arg: TensorArg, prefix: int, suffix: int) -> tuple[list, list]:
        """The first `prefix` and the last `suffix` dims of an argument whose rank may be
        unknown, once `require_rank_at_least(arg, prefix + suffix)` has been asked: a signature's
        `(*b, k)` or a rule's axis counted from either end. The checker opens the dims of a
        value of unknown rank it must verify (`Tensor[(*r, 4)]`); concrete sizes are the dims."""
        if arg.dims is None:
            return [self.unknown() for _ in range(prefix)], [self.unknown() for _ in range(suffix)]
        return list(arg.dims[:prefix]), list(arg.dims[len(arg.dims) - suffix :])

    def require_run(self, arg: TensorArg, symbol: Any, prefix: int, suffix: int) -> None:  # noqa: B027 - a hook: by default nothing to do
        """Require the dims of an argument of unknown rank between its first `prefix` and last
        `suffix` to be the run `*symbol` of an enclosing signature (bound already). Concrete
        sizes are compared by the signature itself."""

    @abstractmethod
    def expect_tensor(self, arg: ArgView) -> TensorArg:
        """The argument as a tensor: a tuple or a function fails the rule (a `?` argument gets
        a check that it is a tensor)."""

    @abstractmethod
    def same_dtype(self, a: Any, b: Any) -> Any:
        """Require two dtypes to agree; returns the agreed dtype."""

    @abstractmethod
    def tuple_fields(self, arg: ArgView) -> Optional[list]:
        """The fields of a tuple argument as tensors; None when the tuple's length is unknown."""

    def fail(self, code: str, **facts: Any) -> NoReturn:
        """Report that the inputs violate the operator's constraint `code`; does not return."""
        raise RuleFailure(code, facts)

    # typed operands -----------------------------------------------------------------------
    def operand(self, index: int) -> TensorArg:
        """Argument `index` as a tensor (a tuple or function there fails, as `expect_tensor`)."""
        arg = self.args[index]
        return arg if isinstance(arg, TensorArg) else self.expect_tensor(arg)

    def operands(self) -> list[TensorArg]:
        """Every argument, each as a tensor (`operand`)."""
        return [self.operand(i) for i in range(len(self.args))]

    def element_bounds(
        self, arg: TensorArg, excluding: Optional[int] = None, column: Optional[int] = None
    ) -> Optional[tuple]:
        """(least, greatest, sum) of the elements of an integer or bool tensor (leaving out
        those equal to `excluding`, a value that marks an element to skip, as nll_loss's
        ignore_index; with `column`, only entry `column` of the last dim: one coordinate of
        GatherND's index tuples): `()` when it has no such elements, None where they are not
        known here (the checker knows only small shape values; the runtime knows every tensor).
        A contract's `min(%x)`, `max(%x)` and `sum(%x)` read it."""
        if arg.value is None:
            return None
        entries = list(arg.value)
        if column is not None:
            if arg.rank != 1 or not -len(entries) <= column < len(entries):
                return None
            entries = [entries[column]]
        values = [self.static(v) for v in entries]
        if any(v is None for v in values):
            return None
        if excluding is not None:
            values = [v for v in values if v != excluding]
        return (min(values), max(values), sum(values)) if values else ()  # type: ignore[type-var]

    def scalar_number(self, arg: TensorArg) -> Optional[float]:
        """The value of a one-element numeric tensor (a float scale given as a tensor), where it
        is known: never in the checker, always when the program runs."""
        return None

    def row_bounds(self, arg: TensorArg, axis: int = 0) -> Optional[list]:
        """(least, greatest) of each slice of a numeric tensor along `axis` (its rows
        for axis 0, its columns for axis 1; None for a slice without elements): what a rule
        holds each row or column of addresses to (gather_nd's first index row names one dim,
        the second the next). None where the elements are not known here (the checker knows
        only small shape values, a vector's rows being its elements; the runtime knows every
        tensor)."""
        if arg.value is None or arg.rank != 1 or axis != 0:
            return None
        values = [self.static(v) for v in arg.value]
        return None if any(v is None for v in values) else [(v, v) for v in values]

    def optional_operand(self, index: int) -> Optional[TensorArg]:
        """An optional operand (`%x: T?`) as a tensor, or None where it is absent (`()`)."""
        arg = self.args[index]
        if isinstance(arg, TupleArg) and arg.fields is not None and not arg.fields:
            return None
        return self.operand(index)

    def list_operand(self, index: int) -> Optional[list[TensorArg]]:
        """A list operand (`%x: [T]`): its fields as tensors; None where its length is unknown."""
        return self.tuple_fields(self.args[index])

    def tuple_operand(self, index: int) -> TupleArg:
        """Argument `index` as a tuple (a tensor or function there fails the rule)."""
        arg = self.args[index]
        if isinstance(arg, TupleArg):
            return arg
        return self.fail("not-a-tuple", arg=arg, expected="tensors")

    # results ------------------------------------------------------------------------------
    @abstractmethod
    def tensor(self, dims: Optional[Sequence[Any]], dtype: Any = None, value: Optional[Sequence[Any]] = None) -> Any:
        """A tensor result."""

    def hinted_rank_conflict(self, param: Any, arg: Any) -> bool:
        """Whether an argument of another rank meets a parameter whose dims are `can_unify`
        guesses: the checker widens the hint (hints never fail, spec §3.5) instead of failing;
        the runtime has no hints."""
        return False

    def dtype_needs(self, dtype: Any, cls: str) -> None:  # noqa: B027 - a hook the runtime leaves empty
        """An operand's dtype that is not known here must be in a dtype class (`bits`,
        ops/operand_dtypes.py); the checker remembers it of a definition's dtype variable
        (FuncType.dtype_requires), the runtime knows every dtype and ignores it."""

    def bound(self, dims: dict, seqs: dict, dtypes: dict) -> None:  # noqa: B027 - a hook the runtime leaves empty
        """What a signature's symbols and dtype variables were bound to at this call
        (`k := 784`); the checker keeps it for tools, the runtime ignores it."""

    @abstractmethod
    def tuple(self, fields: Sequence[Any]) -> Any:
        """A tuple result."""


def normalize_axis(ctx: ShapeContext, axis: int, rank: int, name: str = "axis") -> int:
    """An axis in `[-rank, rank)` as a non-negative index; fails with axis-out-of-range."""
    if not -rank <= axis < rank:
        ctx.fail("axis-out-of-range", axis=axis, rank=rank, name=name)
    return axis + rank if axis < 0 else axis


def axis_rank(axis: int) -> int:
    """The least rank in which `axis` names a dim (2 for axis 1, 1 for axis -1)."""
    return axis + 1 if axis >= 0 else -axis


def axes_rank(axes: Optional[Sequence[int]]) -> int:
    """The least rank in which every one of `axes` names a dim (0 for none)."""
    return max((axis_rank(a) for a in axes or ()), default=0)


def new_axis_rank(axis: int) -> int:
    """The least rank of an input that a new axis `axis` can be inserted into."""
    return axis if axis >= 0 else -axis - 1


def product(ctx: ShapeContext, dims: Sequence[Any]) -> Any:
    """The product of dimensions (1 for none)."""
    total: Any = ctx.const(1)
    for d in dims:
        total = total * d
    return total
