"""Shape rules of the ATen operators (stdlib/aten.rly), for the torch.export frontend.

Where ATen's semantics are those of an operator the library already has, the rule *is* that
operator's rule, read through `adapted`: it sees ATen's attribute names under the names the
shared rule reads (`dim` as `axis`), and only the arguments it expects. What is ATen's own lives
here: sizes given as tuples of int64 scalars (SymInt lists, whose known values are the dims),
optional tensors written `()`, torch's squeeze, flatten, chunk and split, convolution with its
bias, and attention.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence, cast

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, axis_rank, normalize_axis, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    dtype_name,
    known_dims,
    require_entries,
    require_finite,
    require_nonempty,
    require_outputs,
    require_scalar,
    show_ints,
    value_add,
    value_multiply,
)
from gradual.ops.rules.elementwise import broadcast_dims
from gradual.ops.rules.index import slice_length
from gradual.ops.rules.onnx import divided
from gradual.ops.rules.reduce import require_elements
from gradual.ops.rules.shape import broadcast_into, reshape_dims
from gradual.ops.tables import RULES, shape_rule
from gradual.types import DYN_DTYPE, FLOAT_DTYPES, INT_DTYPES

register_rule_message(
    "split-sizes",
    codes.SHAPE_MISMATCH,
    "{op} splits dim {axis} of {arg} into parts of {sizes}, which add up to {total}, but the dim is {dim}",
    "make the split sizes add up to the dim",
)
register_rule_message(
    "normalized-shape",
    codes.SHAPE_MISMATCH,
    "{op} normalizes over the last dims {wanted}, but {arg} has rank {rank}",
    "normalized_shape must list the input's last dims",
)
register_rule_message(
    "unbind-count",
    codes.SHAPE_MISMATCH,
    "{op} unbinds dim {axis} of {arg} into {count} tensors, but the dim is {dim}",
    "unbind a dim whose size is the number of outputs",
)
register_rule_message(
    "rank-too-large",
    codes.RANK_MISMATCH,
    "{arg} has rank {rank}, but {op} takes at most {allowed} dims",
    "pass a tensor of at most {allowed} dims",
)
register_rule_message(
    "pad-mode-length",
    codes.BAD_ATTRIBUTE,
    "{op} pads in mode {mode} the last 1, 2 or 3 dims of an input with one or two dims more, but got"
    " pad={pad} for {arg} of rank {rank}",
    "give 2, 4 or 6 entries for an input of rank 2 or 3, 3 or 4, 4 or 5 (or use mode constant)",
)
register_rule_message(
    "pad-length",
    codes.BAD_ATTRIBUTE,
    "{op} got pad={pad}: it needs an even number of entries, at most two per dim of {arg} (rank {rank})",
    "give [before, after] pairs for the last dims, the last dim first",
)


class _View:
    """A context seen through other argument and attribute names (see `adapted`)."""

    def __init__(self, ctx: ShapeContext, args: Sequence[Any], attrs: dict) -> None:
        self._ctx = ctx
        self.args = list(args)
        self._attrs = attrs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def attr(self, name: str) -> Any:
        """The renamed attribute, else the operator's own."""
        return self._attrs[name](self._ctx) if name in self._attrs else self._ctx.attr(name)

    # the typed operands, over this view's own arguments
    operand = ShapeContext.operand
    operands = ShapeContext.operands
    tuple_operand = ShapeContext.tuple_operand


def _view(ctx: ShapeContext, args: Sequence[Any], attrs: dict) -> ShapeContext:
    """A context seen through other arguments and attribute names, as the shared rule it is
    handed to reads one (`_View` answers every other question as `ctx` does)."""
    return cast(ShapeContext, _View(ctx, args, attrs))


def adapted(rule: str, args: Optional[Sequence[int]] = None, **attrs: Any) -> Callable[[ShapeContext], Any]:
    """A shared rule applied to an ATen operator: `args` picks the arguments it sees (by
    position), each keyword gives one attribute it reads, as an ATen attribute's name
    (`axis="dim"`), a function of the context, or another constant (`exclude=False`)."""
    readers = {name: _reader(source) for name, source in attrs.items()}

    def run(ctx: ShapeContext) -> Any:
        picked = ctx.args if args is None else [ctx.args[i] for i in args]
        return RULES[rule](_view(ctx, picked, readers))

    run.__doc__ = f"ATen's form of the `{rule}` rule."
    return run


def _reader(source: Any) -> Callable[[ShapeContext], Any]:
    if isinstance(source, str):
        return lambda ctx: ctx.attr(source)
    if callable(source):
        return source
    return lambda ctx: source


def dim_rank(dim: int) -> int:
    """The least rank in which torch's `dim` names a dim: torch lets 0 and -1 name a scalar's."""
    return 0 if dim in (0, -1) else axis_rank(dim)


def _register(name: str, rule: Callable[[ShapeContext], Any]) -> None:
    RULES[name] = rule


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, int) else value


def torch_axis(ctx: ShapeContext, dim: int, rank: int, name: str = "dim") -> int:
    """A dim as torch names it: of a 0-d tensor only 0 and -1 (torch wraps a scalar as a
    1-element vector), said so where another is given."""
    if rank == 0 and dim not in (0, -1):
        ctx.fail("attribute-range", name=name, value=dim, needed="0 or -1 for a scalar")
    return normalize_axis(ctx, dim, max(rank, 1), name)


def scalar_dims(ctx: ShapeContext, data: TensorArg, dims: Any) -> bool:
    """Whether data is 0-d, its dims (an int, a list, or None) then checked as torch wraps
    them: a scalar's dims are those of a 1-element vector, 0 and -1 (and it reduces to itself)."""
    if data.dims is None or data.rank:
        return False
    _distinct(ctx, [torch_axis(ctx, d, 0) for d in _as_list(dims) or []], dims)
    return True


def _distinct(ctx: ShapeContext, axes: list, written: Any, name: str = "dim") -> list:
    """Normalized axes, each named once (torch: "dim 0 appears multiple times")."""
    if len(set(axes)) != len(axes):
        ctx.fail("attribute-range", name=name, value=show_ints(written), needed="distinct dims")
    return axes


# shared rules under ATen's names ------------------------------------------------------------------
_REDUCE_ATTRS = {
    "axis": _reader(lambda c: _as_list(c.attr("dim"))),
    "keepdims": _reader("keepdim"),
    "exclude": _reader(False),
}
#: reductions torch refuses over a dim without elements (max.dim and min.dim check their one dim)
NO_IDENTITY = frozenset({"aten.amax", "aten.amin", "aten.argmax", "aten.argmin"})


def _reduce(ctx: ShapeContext) -> Any:
    """Relay's `reduce` rule under ATen's names (dim as axis); a reduction without identity
    needs an element in every dim it reduces. Of unknown rank, the input needs the rank its dims
    name as torch counts (0 and -1 name a scalar's: one less than Relay's rule asks)."""
    data = ctx.operand(0)
    if data.dims is None:
        dims = _as_list(ctx.attr("dim")) or []
        ctx.require_rank_at_least(data, max((dim_rank(d) for d in dims), default=0))
        return ctx.tensor([] if not dims and not ctx.attr("keepdim") else None)
    written = _as_list(ctx.attr("dim")) or []
    _distinct(ctx, [normalize_axis(ctx, d, len(data.dims), "dim") for d in written], written)
    view = _view(ctx, ctx.args[:1], _REDUCE_ATTRS)
    if ctx.op_name in NO_IDENTITY or _infinity_norm(ctx):
        require_elements(view, ctx.operand(0))
    return RULES["reduce"](view)


def _infinity_norm(ctx: ShapeContext) -> bool:
    """`aten.linalg_vector_norm` with `ord` inf or -inf: a max or min of absolute values, which
    torch refuses over no elements."""
    return ctx.op_name == "aten.linalg_vector_norm" and math.isinf(float(ctx.attr("ord")))


@shape_rule("aten_median")
def median(ctx: ShapeContext) -> Any:
    """`aten.median(x)`: the lower median of every element, a scalar; torch refuses an empty x."""
    (data,) = ctx.operands()
    for axis in range(data.rank or 0):
        require_nonempty(ctx, data, axis, "the median of no elements has no value")
    return ctx.tensor([], data.dtype)


_transpose_dims = adapted("transpose", [0], axes="dims")


@shape_rule("aten_permute")
def permute(ctx: ShapeContext) -> Any:
    """`aten.permute(x, dims)`: Relay's transpose, where no dims is the permutation of a scalar
    (Relay's empty axes reverse every dim)."""
    if not ctx.attr("dims"):
        ctx.require_rank(ctx.operand(0), 0)
    return _transpose_dims(ctx)


_register("aten_unsqueeze", adapted("expand_dims", [0], axis="dim", num_newaxis=1))
_register("aten_cat", adapted("concatenate", [0], axis="dim"))
_register("aten_stack", adapted("stack", [0], axis="dim"))
_register("aten_repeat", adapted("tile", [0], reps="repeats"))


@shape_rule("aten_along_dim")
def along_dim(ctx: ShapeContext) -> Any:
    """`aten.softmax(x, dim)`, `log_softmax`, `cumsum(x, dim, dtype)`: x's shape, where dim names
    one of x's dims (0 or -1 of a scalar); the dtype given, else x's."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, dim_rank(ctx.attr("dim")))
    else:
        torch_axis(ctx, ctx.attr("dim"), len(data.dims))
    return ctx.tensor(data.dims, ctx.attr("dtype") or data.dtype)


@shape_rule("aten_accumulate")
def accumulate(ctx: ShapeContext) -> Any:
    """`aten.cumsum(x, dim, dtype)` and `cumprod`: as `aten_along_dim`, in the dtype given, else
    torch's: int64 for bool and integer inputs (a bool mask's cumsum counts), x's otherwise."""
    result = along_dim(ctx)
    if ctx.attr("dtype"):
        return result
    return ctx.tensor(result.dims, accumulated_dtype(ctx.operand(0).dtype))


def accumulated_dtype(dtype: Any) -> Any:
    """The dtype torch sums and multiplies a tensor of `dtype` in: int64 for bool and integers
    (`?` where the input's is not known)."""
    name = dtype_name(dtype)
    if name is None:
        return DYN_DTYPE
    return "int64" if name == "bool" or name in INT_DTYPES else dtype


@shape_rule("aten_scan")
def scan(ctx: ShapeContext) -> Any:
    """`aten.cumprod(x, dim)`, `logcumsumexp`, `cummax` and `cummin` ((values, int64 indices)):
    x's shape, where dim names one of x's dims (0 or -1 of a scalar)."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, dim_rank(ctx.attr("dim")))
    else:
        torch_axis(ctx, ctx.attr("dim"), len(data.dims))
    values = ctx.tensor(data.dims)
    return (
        ctx.tuple([values, ctx.tensor(data.dims, "int64")]) if ctx.op_name in ("aten.cummax", "aten.cummin") else values
    )


@shape_rule("aten_div")
def div(ctx: ShapeContext) -> Any:
    """`aten.div(x, y, rounding_mode)`: the operands broadcast; true division (no rounding_mode)
    of integers is float32 (torch's default dtype), else the operands' dtype."""
    lhs = ctx.operand(0)
    out = RULES["broadcast"](ctx)
    name = dtype_name(lhs.dtype)
    if ctx.attr("rounding_mode") is not None or name in FLOAT_DTYPES:
        return ctx.tensor(out.dims, lhs.dtype)
    return ctx.tensor(out.dims, DYN_DTYPE if name is None else "float32")


@shape_rule("aten_reduce")
def reduce(ctx: ShapeContext) -> Any:
    """`aten.sum(x, dim, keepdim, dtype)` and the other reductions: Relay's rule (dim None or []
    reduces every dim; a scalar reduces to itself); the dtype given, else x's (sum and prod:
    torch's, int64 for bool and integers)."""
    data = ctx.operand(0)
    dims = [] if scalar_dims(ctx, data, ctx.attr("dim")) else _reduce(ctx).dims
    given = ctx.attr("dtype")
    if given:
        return ctx.tensor(dims, given)
    return ctx.tensor(dims, accumulated_dtype(data.dtype) if ctx.op_name in ACCUMULATING else data.dtype)


#: reductions that sum or multiply bool and integer inputs in int64 where no dtype is given
ACCUMULATING = frozenset({"aten.sum", "aten.prod"})


# optional tensors and SymInt lists -----------------------------------------------------------------
def present(ctx: ShapeContext, arg: Any) -> Optional[TensorArg]:
    """An optional tensor argument: the tensor, or None where it is `()` (absent)."""
    if arg.is_tuple:
        fields = ctx.tuple_fields(arg)
        return None if fields is not None and not fields else fields[0] if fields else None
    return arg


def sizes(ctx: ShapeContext, arg: Any) -> Optional[list]:
    """A SymInt list (a tuple of int64 scalars) as dims and ints: each known value, `?` where it
    is not; None when the tuple's length is unknown."""
    fields = ctx.tuple_fields(arg) if arg.is_tuple else None
    if fields is None:
        return None
    out = []
    for f in fields:
        if f.dims is not None and f.rank != 0:
            require_scalar(ctx, f)
        value = f.value[0] if f.value else None
        out.append(_size(ctx, value))
    return out


def _size(ctx: ShapeContext, value: Any) -> Any:
    if value is None:
        return ctx.unknown()
    if isinstance(value, int):
        return value
    known = ctx.static(value)
    return known if known is not None and known < 0 else value


def _dims(ctx: ShapeContext, entries: list) -> list:
    return [ctx.const(e) if isinstance(e, int) else e for e in entries]


@shape_rule("aten_view")
def view(ctx: ShapeContext) -> Any:
    """`aten.view(x, size)` / `reshape`: torch's sizes (-1 inferred, 0 a real 0) as a tuple."""
    data, size = ctx.operand(0), ctx.args[1]
    entries = sizes(ctx, size)
    if entries is None:
        return ctx.tensor(None)
    codes_ = [e if isinstance(e, int) else ctx.static(e) for e in entries]
    # an entry whose value is not known may itself be -1, unless it is a size (`s77` of sym_size)
    maybe_code = any(c is None and not (ctx.exact(e) and ctx.at_least(e, 0)) for c, e in zip(codes_, entries))
    if data.dims is None or maybe_code and -1 in codes_:
        return ctx.tensor([ctx.unknown() if c == -1 else d for c, d in zip(codes_, _dims(ctx, entries))])
    dims = reshape_dims(ctx, data, entries, allowzero=True)  # a 0 is a size, not Relay's "copy"
    if dims is None:  # an entry may be -1 (a size computed from others): torch's view keeps the rank
        dims = [
            ctx.unknown() if c is None and not ctx.at_least(e, 0) else d
            for c, e, d in zip(codes_, entries, _dims(ctx, entries))
        ]
    return ctx.tensor(dims, value=data.value)


@shape_rule("aten_expand")
def expand(ctx: ShapeContext) -> Any:
    """`aten.expand(x, size)`: -1 keeps x's dim; new dims are prepended; 1s stretch."""
    data, size = ctx.operand(0), ctx.args[1]
    entries = sizes(ctx, size)
    if entries is None:
        return ctx.tensor(None)
    if data.dims is None:
        return ctx.tensor([ctx.unknown() if e == -1 else d for e, d in zip(entries, _dims(ctx, entries))])
    offset = len(entries) - len(data.dims)  # >= 0: declared
    target = [
        data.dim(i - offset) if e == -1 and i >= offset else d
        for i, (e, d) in enumerate(zip(entries, _dims(ctx, entries)))
    ]
    return ctx.tensor(broadcast_into(ctx, data, target))


@shape_rule("aten_sized")
def sized(ctx: ShapeContext) -> Any:
    """`aten.zeros(size)`, `ones`, `empty`, `full(size, fill_value)`: the dims a size tuple gives."""
    entries = sizes(ctx, ctx.args[0])
    dtype = ctx.attr("dtype") or None
    return ctx.tensor(None if entries is None else _dims(ctx, entries), dtype)


@shape_rule("aten_like")
def like(ctx: ShapeContext) -> Any:
    """`aten.zeros_like(x, dtype)` and friends, `_to_copy(x, dtype)`: x's dims, the dtype given
    (or x's)."""
    data = ctx.operand(0)
    return ctx.tensor(data.dims, ctx.attr("dtype") or None)


@shape_rule("aten_diagonal")
def diagonal(ctx: ShapeContext) -> Any:
    """`aten.diagonal(x, offset, dim1, dim2)`: dim1 and dim2 (distinct) removed, the diagonal's
    length appended: min(n1, n2 - offset) (min(n1 + offset, n2) below), at least 0."""
    (data,) = ctx.operands()
    return ctx.tensor(diagonal_dims(ctx, data))


def diagonal_dims(ctx: ShapeContext, data: TensorArg) -> Optional[list]:
    """The dims of x's diagonal as `aten.diagonal` takes it (its attributes offset, dim1, dim2),
    or None where x's rank is unknown."""
    offset = ctx.attr("offset")
    ctx.require_rank_at_least(data, 2)
    if data.dims is None:
        return None
    a = normalize_axis(ctx, ctx.attr("dim1"), len(data.dims), "dim1")
    b = normalize_axis(ctx, ctx.attr("dim2"), len(data.dims), "dim2")
    if a == b:
        ctx.fail(
            "attribute-range", name="dim2", value=ctx.attr("dim2"), needed=f"a dim other than dim1 ({ctx.attr('dim1')})"
        )
    rows, cols = data.dim(a), data.dim(b)
    fixed = [ctx.static(rows), ctx.static(cols)]
    if None not in fixed:
        length = ctx.const(
            max(0, min(fixed[0], fixed[1] - offset) if offset >= 0 else min(fixed[0] + offset, fixed[1]))
        )
    elif offset == 0 and ctx.static(rows - cols) == 0:
        length = rows
    else:
        known = [v for v in fixed if v is not None]
        length = ctx.bounded(0, max(0, min(known) + abs(offset))) if known else ctx.unknown()
    dims = [d for i, d in enumerate(data.dims) if i not in (a, b)]
    return dims + [length]


@shape_rule("aten_sym_size")
def sym_size(ctx: ShapeContext) -> Any:
    """`aten.sym_size(x, dim)`: an int64 scalar whose value is that dim."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("dim")))
        return ctx.tensor([], "int64")
    axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")
    return ctx.tensor([], "int64", value=[data.dim(axis)])


@shape_rule("aten_sym_numel")
def sym_numel(ctx: ShapeContext) -> Any:
    """`aten.sym_numel(x)`: an int64 scalar whose value is the element count."""
    (data,) = ctx.operands()
    return ctx.tensor([], "int64", value=None if data.dims is None else [product(ctx, data.dims)])


@shape_rule("aten_item")
def item(ctx: ShapeContext) -> Any:
    """`aten.item(x)`: x holds one element; a scalar of its dtype (the value is the data's)."""
    (data,) = ctx.operands()
    if data.dims is not None:
        for d in data.dims:
            ctx.equal(d, ctx.const(1))
    return ctx.tensor([], value=data.value if data.value is not None and data.dims == [] else None)


# shapes ---------------------------------------------------------------------------------------------
@shape_rule("aten_transpose")
def transpose(ctx: ShapeContext) -> Any:
    """`aten.transpose(x, dim0, dim1)`: two dims swapped."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, max(dim_rank(ctx.attr("dim0")), dim_rank(ctx.attr("dim1"))))
        return ctx.tensor(None)
    rank = max(len(data.dims), 1)
    a = normalize_axis(ctx, ctx.attr("dim0"), rank, "dim0")
    b = normalize_axis(ctx, ctx.attr("dim1"), rank, "dim1")
    dims = list(data.dims)
    if dims:
        dims[a], dims[b] = dims[b], dims[a]
    return ctx.tensor(dims)


@shape_rule("aten_t")
def t(ctx: ShapeContext) -> Any:
    """`aten.t(x)`: a matrix transposed (vectors and scalars unchanged)."""
    (data,) = ctx.operands()
    if data.dims is None:
        return ctx.tensor(None)
    if len(data.dims) > 2:
        ctx.require_rank(data, 2)
    return ctx.tensor(list(reversed(data.dims)))


@shape_rule("aten_squeeze")
def squeeze(ctx: ShapeContext) -> Any:
    """`aten.squeeze(x, dim)`: the listed dims (all, without `dim`) that are 1 are removed;
    listed dims that are not 1 stay (torch's squeeze is a no-op on them)."""
    (data,) = ctx.operands()
    listed = ctx.attr("dim")
    if data.dims is None:
        ctx.require_rank_at_least(data, max((dim_rank(a) for a in _as_list(listed or [])), default=0))
        return ctx.tensor(None)
    written = _as_list(listed)
    axes = set(
        range(len(data.dims))
        if listed is None
        else _distinct(ctx, [torch_axis(ctx, a, len(data.dims)) for a in written], listed)
    )
    keep = [d for i, d in enumerate(data.dims) if not (i in axes and ctx.is_one(d) is True)]
    if any(i in axes and ctx.is_one(d) is None for i, d in enumerate(data.dims)):
        return ctx.tensor(None)
    return ctx.tensor(keep, value=data.value)


@shape_rule("aten_flatten")
def flatten(ctx: ShapeContext) -> Any:
    """`aten.flatten(x, start_dim, end_dim)`: dims start..end (inclusive) multiplied into one."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, max(dim_rank(ctx.attr("start_dim")), dim_rank(ctx.attr("end_dim"))))
        return ctx.tensor(None)
    rank = max(len(data.dims), 1)  # a scalar flattens to (1,), its dims named as a vector's (torch)
    start = normalize_axis(ctx, ctx.attr("start_dim"), rank, "start_dim")
    end = normalize_axis(ctx, ctx.attr("end_dim"), rank, "end_dim")
    if end < start:
        ctx.fail("attribute-range", name="end_dim", value=ctx.attr("end_dim"), needed=f"at least start_dim ({start})")
    if data.rank == 0:
        return ctx.tensor([ctx.const(1)], value=data.value)
    dims = list(data.dims[:start]) + [product(ctx, data.dims[start : end + 1])] + list(data.dims[end + 1 :])
    return ctx.tensor(dims, value=data.value if data.rank == 1 else None)


def _parts(ctx: ShapeContext, data: TensorArg, axis: int, part_sizes: list) -> Any:
    fields = []
    known = known_dims(data)
    for size in part_sizes:
        dims = list(known[:axis]) + [size] + list(known[axis + 1 :])
        fields.append(ctx.tensor(dims, data.dtype))
    return ctx.tuple(fields)


@shape_rule("aten_split_with_sizes")
def split_with_sizes(ctx: ShapeContext) -> Any:
    """`aten.split_with_sizes(x, split_sizes, dim)`: parts of the given sizes (a SymInt list),
    which add up to the dim."""
    data, size_arg = ctx.operand(0), ctx.args[1]
    entries = sizes(ctx, size_arg)
    if entries is None:  # not a literal tuple: the frontend always writes one
        return ctx.tensor(None)
    wanted = _dims(ctx, entries)
    if data.dims is None:
        return ctx.tuple([ctx.tensor(None, data.dtype) for _ in wanted])
    axis = declared_axis(ctx.attr("dim"), len(data.dims))
    total = product_sum(ctx, wanted)
    facts = {"arg": data, "axis": axis, "sizes": show_ints(entries), "total": total, "dim": data.dim(axis)}
    ctx.equal(data.dim(axis), total, otherwise=("split-sizes", facts))
    return _parts(ctx, data, axis, wanted)


def declared_axis(axis: int, rank: int) -> int:
    """An axis the declaration holds to `-rank .. rank - 1`, as a non-negative index."""
    return axis + rank if axis < 0 else axis


def product_sum(ctx: ShapeContext, dims: Sequence[Any]) -> Any:
    """The sum of dimensions (0 for none)."""
    total: Any = ctx.const(0)
    for d in dims:
        total = total + d
    return total


@shape_rule("aten_chunk")
def chunk(ctx: ShapeContext) -> Any:
    """`aten.split(x, split_size, dim)` (chunk: `chunks`): parts of split_size (chunk:
    ceil(dim / chunks)), the last one smaller; `count` is how many the graph uses."""
    (data,) = ctx.operands()
    count = require_outputs(ctx, "count", ctx.attr("count"))
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("dim")))
        return ctx.tuple([ctx.tensor(None, data.dtype) for _ in range(count)])
    axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")
    whole = data.dim(axis)
    chunks = ctx.attr("chunks")
    size = (whole + (chunks - 1)) // chunks if chunks else ctx.const(ctx.attr("split_size"))
    ctx.within(whole, 1, None)
    last = whole - size * (count - 1) if count > 1 else whole
    return _parts(ctx, data, axis, [size] * (count - 1) + [last])


@shape_rule("aten_unbind")
def unbind(ctx: ShapeContext) -> Any:
    """`aten.unbind(x, dim)`: one tensor per index of the dim, which is removed."""
    (data,) = ctx.operands()
    count = require_outputs(ctx, "count", ctx.attr("count"))
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("dim")))
        return ctx.tuple([ctx.tensor(None, data.dtype) for _ in range(count)])
    axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")
    facts = {"arg": data, "axis": axis, "count": count, "dim": data.dim(axis)}
    ctx.equal(data.dim(axis), ctx.const(count), otherwise=("unbind-count", facts))
    dims = list(data.dims[:axis]) + list(data.dims[axis + 1 :])
    return ctx.tuple([ctx.tensor(dims, data.dtype) for _ in range(count)])


@shape_rule("aten_slice")
def slice_(ctx: ShapeContext) -> Any:
    """`aten.slice(x, dim, start, end, step)`: start and end are scalars or `()` (None), clamped
    as Python slices; a start or end whose value is not known gives `?`."""
    data, start_arg, end_arg = ctx.operand(0), ctx.args[1], ctx.args[2]
    if data.dims is None:
        return ctx.tensor(None)
    axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")  # declared too; kept for a rank the call refines
    step = ctx.attr("step")
    start, start_known = _optional_int(ctx, start_arg)
    end, end_known = _optional_int(ctx, end_arg)
    dims = list(data.dims)
    if not (start_known and end_known):
        dims[axis] = _sized_slice_length(ctx, data.dim(axis), start_arg, end_arg, step)
        return ctx.tensor(dims)
    if end is not None and end >= 2**62:
        end = None
    dims[axis] = slice_length(ctx, data.dim(axis), start, end, step)
    return ctx.tensor(dims)


def _sized_slice_length(ctx: ShapeContext, d: Any, start_arg: Any, end_arg: Any, step: int) -> Any:
    """The length of `x[start:end:step]` along d where start or end is a size computed from
    others (`x[:, :h]` cropping a padded tensor back to h): (end - start) / step rounded up
    where 0 <= start <= end <= d is provable (nothing is clamped then), else `?`."""
    start, end = _sized_end(ctx, start_arg, ctx.const(0)), _sized_end(ctx, end_arg, d)
    if start is None or end is None:
        return ctx.unknown()
    if not (ctx.at_least(start, 0) and ctx.at_least(end - start, 0) and ctx.at_least(d - end, 0)):
        return ctx.unknown()
    span = end - start
    return span if step == 1 else (span + ctx.const(step - 1)) // step


def _sized_end(ctx: ShapeContext, arg: Any, absent: Any) -> Any:
    """An optional int scalar slice end as a dim (`absent` for `()` and the INT_MAX-like ends),
    None where its value is not known."""
    tensor = present(ctx, arg)
    if tensor is None:
        return absent
    value = arg.value[0] if arg.value else None
    if value is None:
        return None
    known = value if isinstance(value, int) else ctx.static(value)
    if known is not None:
        return absent if known >= 2**62 else ctx.const(known) if known >= 0 else None
    return value


def _optional_int(ctx: ShapeContext, arg: Any) -> tuple:
    """(value, known) of an optional int scalar argument (`()` is None, known); a tensor of
    known rank must be a scalar (a SymInt)."""
    tensor = present(ctx, arg)
    if tensor is None:
        return None, True
    if not tensor.is_tuple and tensor.dims is not None:
        require_scalar(ctx, tensor)
    value = arg.value[0] if arg.value else None
    known = value if isinstance(value, int) else (ctx.static(value) if value is not None else None)
    return known, known is not None


@shape_rule("aten_select")
def select(ctx: ShapeContext) -> Any:
    """`aten.select(x, dim, index)`: the dim is removed; a known index must lie inside it."""
    data = ctx.operand(0)  # the index a scalar: declared
    if data.dims is None:
        return ctx.tensor(None)
    axis = declared_axis(ctx.attr("dim"), len(data.dims))
    return ctx.tensor(list(data.dims[:axis]) + list(data.dims[axis + 1 :]))


@shape_rule("aten_index_select")
def index_select(ctx: ShapeContext) -> Any:
    """`aten.index_select(x, dim, index)`: the dim becomes the index vector's length."""
    data, index = ctx.operands()
    ctx.require_rank(index, 1)
    if data.dims is None:
        ctx.require_rank_at_least(data, dim_rank(ctx.attr("dim")))
        return ctx.tensor(None)
    axis = torch_axis(ctx, ctx.attr("dim"), len(data.dims))
    dims = list(data.dims)
    if not dims:  # torch: the index of a scalar holds exactly one value, and the result is the scalar
        ctx.within(index.dim(0), 1, 1)
        return ctx.tensor([])
    dims[axis] = index.dim(0)
    return ctx.tensor(dims)


@shape_rule("aten_embedding")
def embedding(ctx: ShapeContext) -> Any:
    """`aten.embedding(weight, indices)`: (n, d) rows picked by indices: indices' dims + (d,)."""
    weight, indices = ctx.operands()  # weight (n, d): declared
    if indices.dims is None:
        return ctx.tensor(None)
    return ctx.tensor(list(indices.dims) + [weight.dim(1)])


@shape_rule("aten_embedding_bag")
def embedding_bag(ctx: ShapeContext) -> Any:
    """`aten.embedding_bag(weight, indices, offsets, per_sample_weights, ...)`: (bags, d) and
    torch's bookkeeping (see stdlib/aten.rly); bags is offsets' length (less one with
    include_last_offset)."""
    weight, indices, offsets = ctx.operand(0), ctx.operand(1), ctx.operand(2)
    mode = ctx.attr("mode")  # the ranks, mode's values, per_sample_weights' length and mode: declared
    if offsets.dims is None:
        bags = ctx.unknown()
    elif ctx.attr("include_last_offset"):
        ctx.within(offsets.dim(0), 1, None)
        bags = offsets.dim(0) - ctx.const(1)
    else:
        bags = offsets.dim(0)
    d = weight.dim(1) if weight.dims is not None else ctx.unknown()
    names = {dtype_name(indices.dtype), dtype_name(offsets.dtype)}  # torch's: int32 only where both are
    book = "int32" if names == {"int32"} else "int64" if "int64" in names else "?"
    if mode == 0:  # torch's sum keeps zeros, one per offset (or per bag, in _embedding_bag)
        return ctx.tuple(
            [
                ctx.tensor([bags, d]),
                ctx.tensor([ctx.unknown()], book),
                ctx.tensor([ctx.unknown()], book),
                ctx.tensor([ctx.unknown()], book),
            ]
        )
    return ctx.tuple(
        [
            ctx.tensor([bags, d]),
            ctx.tensor([ctx.unknown()], book),
            ctx.tensor([bags], book),
            ctx.tensor([bags, d] if mode == 2 else [bags], book),
        ]
    )


PAD_MODES = ("constant", "reflect", "replicate", "circular")


@shape_rule("aten_constant_pad")
def constant_pad(ctx: ShapeContext) -> Any:
    """`aten.constant_pad_nd(x, pad, value)`: [before, after] pairs from the last dim back
    (negative entries crop; the pairs' count is declared). `aten.pad`'s other modes read the
    input's own elements: no crop, and a padded dim holds more elements than its reflect pads
    (as many as its circular ones, one for replicate)."""
    (data,) = ctx.operands()
    pad = list(ctx.attr("pad"))
    mode = ctx.attr("mode") if ctx.op_name == "aten.pad" else "constant"
    if mode == "constant":
        _fill_fits(ctx, data, ctx.attr("value"))
    if mode != "constant":
        require_entries(ctx, "pad", pad, allow_zero=True)
    if data.dims is None:
        return ctx.tensor(None)
    _pad_mode_length(ctx, data, mode, pad)
    dims = list(data.dims)
    for i in range(len(pad) // 2):
        axis = len(data.dims) - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if mode != "constant" and (before or after):
            least = {"reflect": max(before, after) + 1, "circular": max(before, after), "replicate": 1}[mode]
            ctx.within(dims[axis], least, None)
        grow = before + after
        dims[axis] = dims[axis] + grow if grow >= 0 else dims[axis] - (-grow)
    return ctx.tensor(dims)


def _fill_fits(ctx: ShapeContext, data: TensorArg, value: float) -> None:
    """A pad value torch can write into x's dtype: an integer or bool x takes a finite value
    within its range (torch: "value cannot be converted to type int32_t without overflow"). A
    contract cannot relate a float attribute to an operand's dtype, so the rule says it."""
    name = dtype_name(data.dtype)
    if name is None or name in FLOAT_DTYPES:
        return
    if name == "bool":
        low, high = 0, 1
    else:  # int8 .. int64, uint8 .. uint64
        bits = int(name.lstrip("uint"))
        low, high = (0, 2**bits - 1) if name.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if not math.isfinite(value) or not low <= value <= high:
        ctx.fail("attribute-range", name="value", value=value, needed=f"a value {name} holds ({low} .. {high})")


def _pad_mode_length(ctx: ShapeContext, data: TensorArg, mode: str, pad: list) -> None:
    """torch pads in a mode other than constant the last 1, 2 or 3 dims of an input of one or two
    dims more (a batch, then channels); a contract cannot yet say "either" of two ranks."""
    if mode != "constant" and not (len(pad) in (2, 4, 6) and data.rank in (len(pad) // 2 + 1, len(pad) // 2 + 2)):
        ctx.fail("pad-mode-length", arg=data, mode=mode, pad=f"[{', '.join(map(str, pad))}]", rank=data.rank)


@shape_rule("aten_pad_sized")
def pad_sized(ctx: ShapeContext) -> Any:
    """`aten.pad_sized(x, pad, mode, value)`: `aten.pad` whose pad is a SymInt list, computed from
    sizes (Swin pads to a multiple of its window, U-Net to a skip connection's size): each
    padded dim is the dim plus its two entries (`?` where an entry is not known)."""
    data, pad_arg = ctx.operand(0), ctx.args[1]  # mode and the pairs' count: declared
    if ctx.attr("mode") == "constant":
        _fill_fits(ctx, data, ctx.attr("value"))
    entries = sizes(ctx, pad_arg)
    if entries is None or data.dims is None:
        return ctx.tensor(None)
    _pad_mode_length(ctx, data, ctx.attr("mode"), entries)
    dims = list(data.dims)
    for i in range(len(entries) // 2):
        axis = len(dims) - 1 - i
        dims[axis] = _padded(ctx, dims[axis], entries[2 * i], entries[2 * i + 1])
    return ctx.tensor(dims)


def _padded(ctx: ShapeContext, dim: Any, before: Any, after: Any) -> Any:
    """dim + before + after, each entry an int or a shape value (`?` where that sum is not
    known: an entry not known, or an interval plus a value that may be negative)."""
    try:
        total = dim
        for entry in (before, after):
            total = value_add(ctx, total, ctx.const(entry) if isinstance(entry, int) and entry >= 0 else entry)
        return total
    except ValueError:
        return ctx.unknown()


@shape_rule("aten_repeat_sized")
def repeat_sized(ctx: ShapeContext) -> Any:
    """`aten.repeat_sized(x, repeats)`: `aten.repeat` whose repeats are a SymInt list (`w.repeat(n)`
    of a batch n): x aligned on the right with them, each dim multiplied by its repeat."""
    data, repeats_arg = ctx.operand(0), ctx.args[1]
    entries = sizes(ctx, repeats_arg)
    if entries is None or data.dims is None:
        return ctx.tensor(None)
    dims = [ctx.const(1)] * (len(entries) - len(data.dims)) + list(data.dims)  # as many repeats as dims: declared
    out = []
    for d, r in zip(dims, entries):
        try:
            out.append(value_multiply(ctx, d, ctx.const(r) if isinstance(r, int) and r >= 0 else r))
        except ValueError:
            out.append(ctx.unknown())
    return ctx.tensor(out)


# linear algebra and convolution ------------------------------------------------------------------
@shape_rule("aten_linear")
def linear(ctx: ShapeContext) -> Any:
    """`aten.linear(x, w, b)`: (*, k) x (u, k) -> (*, u); b, when present, broadcasts to (u,)."""
    data, weight, bias_arg = ctx.operand(0), ctx.operand(1), ctx.args[2]
    ctx.require_rank(weight, 2)
    if data.dims is not None:  # of rank 1 at least: declared
        ctx.equal(data.dim(-1), weight.dim(1), symbol="k")
    out = RULES["dense"](_view(ctx, [data, weight], {"units": lambda c: None, "out_dtype": lambda c: ""}))
    bias = present(ctx, bias_arg)
    if bias is not None and weight.dims is not None:
        broadcast_into(ctx, bias, [weight.dim(0)])
    return out


@shape_rule("aten_addmm")
def addmm(ctx: ShapeContext) -> Any:
    """`aten.addmm(b, m1, m2)`: (n, k) x (k, m) -> (n, m); b broadcasts to (n, m)."""
    bias, a, b = ctx.operands()
    ctx.require_rank(a, 2)
    ctx.require_rank(b, 2)
    ctx.equal(a.dim(1), b.dim(0), symbol="k")
    out = [a.dim(0), b.dim(1)]
    broadcast_into(ctx, bias, out)
    return ctx.tensor(out)


def _conv_attrs(ctx: ShapeContext, k: int) -> dict:
    """ATen's convolution attributes under the names of ONNX's rule, for k spatial dims."""

    def each(name: str) -> list:
        values = list(ctx.attr(name))
        return values * k if len(values) == 1 else values

    return {
        "auto_pad": lambda c: "NOTSET",
        "pads": lambda c: each("padding") * 2,
        "strides": lambda c: each("stride"),
        "dilations": lambda c: each("dilation"),
        "group": lambda c: ctx.attr("groups"),
        "output_padding": lambda c: each("output_padding"),
        "output_shape": lambda c: None,
    }


@shape_rule("aten_convolution")
def convolution(ctx: ShapeContext) -> Any:
    """`aten.convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups)`
    over any number of spatial dims (ONNX's rule); b, when present, has one entry per output
    channel."""
    data, weight, bias_arg = ctx.operand(0), ctx.operand(1), ctx.args[2]
    rank = data.rank if data.dims is not None else weight.rank
    k = max((rank or 3) - 2, 1)
    rule = RULES["onnx_conv_transpose" if ctx.attr("transposed") else "onnx_conv"]
    out = rule(_view(ctx, [data, weight], _conv_attrs(ctx, k)))
    bias = present(ctx, bias_arg)
    if bias is not None and out.dims is not None:
        ctx.require_rank(bias, 1)
        ctx.equal(bias.dim(0), out.dims[1], symbol="out_channels")
    return out


def _pool_attrs(ctx: ShapeContext, k: int) -> dict:
    def each(name: str, default: Optional[list] = None) -> list:
        values = list(ctx.attr(name) or default or [])
        return values * k if len(values) == 1 else values

    return {
        "kernel_shape": lambda c: each("kernel_size"),
        "auto_pad": lambda c: "NOTSET",
        "pads": lambda c: each("padding") * 2,
        "strides": lambda c: each("stride", list(ctx.attr("kernel_size"))),
        "dilations": lambda c: each("dilation", [1]),
    }


@shape_rule("aten_pool")
def pool(ctx: ShapeContext) -> Any:
    """`aten.max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode)` and
    `avg_pool2d`: ONNX's pooling rule (the same ceil_mode); stride [] means kernel_size."""
    k = len(list(ctx.attr("kernel_size")))
    data = ctx.operand(0)
    if data.dims is not None:  # torch pools no empty plane (only the batch may be 0)
        for axis in range(max(len(data.dims) - k, 0), len(data.dims)):
            require_nonempty(ctx, data, axis, "torch pools only non-empty planes")
        if ctx.op_name == "aten.avg_pool2d" and k == 3 and len(data.dims) >= 3:  # torch: "smaller than kernel size"
            for axis, size in zip(range(len(data.dims) - 3, len(data.dims)), ctx.attr("kernel_size")):
                ctx.within(data.dim(axis), size, None)
    out = RULES["onnx_pool"](_view(ctx, ctx.args, _pool_attrs(ctx, max(k, 1))))
    if out.dims is not None:  # torch: "Output size is too small" (a window that fits nowhere)
        for axis in range(max(len(out.dims) - k, 0), len(out.dims)):
            ctx.within(out.dims[axis], 1, None)
    return out


@shape_rule("aten_pool_indices")
def pool_indices(ctx: ShapeContext) -> Any:
    """`aten.max_pool2d_with_indices`: the pooled values and their int64 positions."""
    values = pool(ctx)
    return ctx.tuple([values, ctx.tensor(list(values.dims) if values.dims is not None else None, "int64")])


# normalization and attention ---------------------------------------------------------------------
def _normalized(ctx: ShapeContext, data: TensorArg) -> Optional[list]:
    """The last dims layer_norm normalizes over; they must be normalized_shape (an attribute,
    or the last operand of the `_sized` forms: a SymInt list, `F.layer_norm(x, x.shape[-1:])`)."""
    if ctx.op_name.endswith("_sized"):
        entries = sizes(ctx, ctx.args[-1])
        if entries is None:
            return None
        wanted = [ctx.const(e) if isinstance(e, int) and e >= 0 else e for e in entries]
        shown = "[" + ", ".join(str(e) for e in entries) + "]"
    else:
        constants = list(ctx.attr("normalized_shape"))
        wanted, shown = [ctx.const(w) for w in constants], show_ints(constants)
    if data.dims is None:
        ctx.require_rank_at_least(data, len(wanted))
        return None
    if len(wanted) > len(data.dims):
        ctx.fail("normalized-shape", arg=data, wanted=shown, rank=data.rank)
    tail = list(data.dims[len(data.dims) - len(wanted) :])
    for d, w in zip(tail, wanted):
        ctx.equal(d, w, symbol="normalized_shape")
    return tail


def _affine(ctx: ShapeContext, args: Sequence[Any], shape: Optional[list]) -> None:
    for arg in args:
        tensor = present(ctx, arg)
        if tensor is not None and shape is not None:
            ctx.require_rank(tensor, len(shape))
            for d, w in zip(known_dims(tensor), shape):
                ctx.equal(d, w, symbol="normalized_shape")


@shape_rule("aten_layer_norm")
def layer_norm(ctx: ShapeContext) -> Any:
    """`aten.layer_norm(x, weight, bias, normalized_shape, eps)`: x's last dims are
    normalized_shape; weight and bias (or `()`) have that shape."""
    data, weight, bias = ctx.operand(0), ctx.args[1], ctx.args[2]
    _affine(ctx, [weight, bias], _normalized(ctx, data))
    return ctx.tensor(data.dims)


@shape_rule("aten_native_layer_norm")
def native_layer_norm(ctx: ShapeContext) -> Any:
    """`aten.native_layer_norm`: (y, mean, rstd), the statistics with 1s for normalized dims."""
    data = ctx.operand(0)
    y = layer_norm(ctx)
    if data.dims is None:
        return ctx.tuple([y, ctx.tensor(None), ctx.tensor(None)])
    if ctx.op_name.endswith("_sized"):
        fields = ctx.tuple_fields(ctx.args[-1])
        if fields is None:
            return ctx.tuple([y, ctx.tensor(None), ctx.tensor(None)])
        k = len(fields)
    else:
        k = len(list(ctx.attr("normalized_shape")))
    stats = list(data.dims[: len(data.dims) - k]) + [ctx.const(1)] * k
    return ctx.tuple([y, ctx.tensor(stats), ctx.tensor(list(stats))])


@shape_rule("aten_batch_norm")
def batch_norm(ctx: ShapeContext) -> Any:
    """`aten.batch_norm(x, weight, bias, running_mean, running_var, ...)`: every vector given
    (not `()`) is as long as x's channels (dim 1)."""
    data = ctx.operand(0)
    ctx.require_rank_at_least(data, 2)  # (n, c, ...): torch reads a missing channel dim as 0 channels
    channels = data.dim(1) if data.dims is not None else None
    for arg in ctx.args[1:5]:
        vector = present(ctx, arg)
        if vector is not None:
            ctx.require_rank(vector, 1)
            channels = vector.dim(0) if channels is None else ctx.equal(channels, vector.dim(0), symbol="channels")
    return ctx.tensor(data.dims)


@shape_rule("aten_batch_norm_stats")
def batch_norm_stats(ctx: ShapeContext) -> Any:
    """`aten._native_batch_norm_legit_no_training`: (y, empty mean, empty invstd) as torch."""
    y = batch_norm(ctx)
    return ctx.tuple([y, ctx.tensor([ctx.const(0)]), ctx.tensor([ctx.const(0)])])


@shape_rule("aten_attention")
def attention(ctx: ShapeContext) -> Any:
    """`aten.scaled_dot_product_attention(q, k, v, mask)`: q (*b, L, E), k (*b, S, E),
    v (*b, S, Ev) -> (*b, L, Ev); the mask (or `()`) broadcasts to (*b, L, S)."""
    q, k, v, mask_arg = ctx.operand(0), ctx.operand(1), ctx.operand(2), ctx.args[3]
    for arg in (q, k, v):  # with enable_gqa torch reads the heads at dim -3
        ctx.require_rank_at_least(arg, 3 if ctx.attr("enable_gqa") else 2)
    if q.dims is None or k.dims is None or v.dims is None:
        return ctx.tensor(None)
    ctx.equal(q.dim(-1), k.dim(-1), symbol="E")
    ctx.equal(k.dim(-2), v.dim(-2), symbol="S")
    if ctx.attr("enable_gqa"):
        batch = _grouped_heads(ctx, q, k, v)
    else:
        batch = broadcast_dims(ctx, [list(q.dims[:-2]), list(k.dims[:-2]), list(v.dims[:-2])])
    mask = present(ctx, mask_arg)
    if mask is not None and batch is not None:
        broadcast_into(ctx, mask, list(batch) + [q.dim(-2), k.dim(-2)])
    return ctx.tensor(None if batch is None else list(batch) + [q.dim(-2), v.dim(-1)])


def _grouped_heads(ctx: ShapeContext, q: TensorArg, k: TensorArg, v: TensorArg) -> Optional[list]:
    """Grouped-query attention (enable_gqa): dim -3 holds the heads; key and value have the same
    number, which divides the query's (each key head serves a group of query heads)."""
    heads, kv_heads = q.dim(-3), ctx.equal(k.dim(-3), v.dim(-3), symbol="kv_heads")
    have, divisor = ctx.static(heads), ctx.static(kv_heads)
    if have is not None and divisor is not None and (divisor == 0 or have % divisor):
        ctx.fail("not-divisible", arg=q, axis=len(known_dims(q)) - 3, dim=heads, factor=divisor)
    batch = broadcast_dims(ctx, [list(known_dims(q)[:-3]), list(known_dims(k)[:-3]), list(known_dims(v)[:-3])])
    return None if batch is None else batch + [heads]


# reductions with indices -------------------------------------------------------------------------
@shape_rule("aten_max_dim")
def max_dim(ctx: ShapeContext) -> Any:
    """`aten.max.dim(x, dim, keepdim)` (and min): (values, int64 indices)."""
    (data,) = ctx.operands()
    if scalar_dims(ctx, data, ctx.attr("dim")):
        return ctx.tuple([ctx.tensor([]), ctx.tensor([], "int64")])
    values = _reduce(ctx)
    if data.dims is None:
        ctx.require_rank_at_least(data, dim_rank(ctx.attr("dim")))
    else:
        ctx.within(data.dim(normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")), 1, None)
    return ctx.tuple([values, ctx.tensor(values.dims, "int64")])


@shape_rule("aten_argmax")
def argmax(ctx: ShapeContext) -> Any:
    """`aten.argmax(x, dim, keepdim)`: int64 indices (dim None: over the flattened tensor)."""
    (data,) = ctx.operands()
    if ctx.attr("dim") is None:  # over every element, of which there must be one
        require_elements(_view(ctx, ctx.args, _REDUCE_ATTRS), data)
        return ctx.tensor(
            [ctx.const(1)] * len(data.dims) if ctx.attr("keepdim") and data.dims is not None else [], "int64"
        )
    if scalar_dims(ctx, data, ctx.attr("dim")):
        return ctx.tensor([], "int64")
    values = _reduce(ctx)
    return ctx.tensor(values.dims, "int64")


# writes (in-place operators, functionalized) -----------------------------------------------------
_register("aten_view_as", adapted("reshape_like", [0, 1], lhs_begin=0, lhs_end=None, rhs_begin=0, rhs_end=None))


@shape_rule("aten_copy")
def copy(ctx: ShapeContext) -> Any:
    """`aten.copy(self, src)`: src written into self: it broadcasts to self's shape (never
    growing it) and takes self's dtype. An in-place `aten.X_(self, ...)` is `copy(self, X(...))`."""
    data, src = ctx.operands()
    if data.dims is not None:
        broadcast_into(ctx, src, list(data.dims))
    return ctx.tensor(data.dims, data.dtype)


def _same_dims(ctx: ShapeContext, src: TensorArg, dims: Optional[list], symbol: str) -> None:
    """src has exactly the dims of the part of self it is written into."""
    if dims is None or src.dims is None:
        return
    ctx.require_rank(src, len(dims))
    for have, want in zip(src.dims, dims):
        ctx.equal(have, want, symbol=symbol)


@shape_rule("aten_slice_scatter")
def slice_scatter(ctx: ShapeContext) -> Any:
    """`aten.slice_scatter(self, src, start, end, dim, step)`: self with self[start:end:step]
    (along dim) replaced by src, which has that slice's shape."""
    data, src, start, end = ctx.operand(0), ctx.operand(1), ctx.args[2], ctx.args[3]
    part = slice_(_view(ctx, [data, start, end], {}))
    _same_dims(ctx, src, part.dims, "slice")
    return ctx.tensor(data.dims)


@shape_rule("aten_select_scatter")
def select_scatter(ctx: ShapeContext) -> Any:
    """`aten.select_scatter(self, src, index, dim)`: self with self.select(dim, index) replaced
    by src, which has self's shape without dim."""
    data, src, index = ctx.operand(0), ctx.operand(1), ctx.args[2]
    part = select(_view(ctx, [data, index], {}))
    _same_dims(ctx, src, part.dims, "selected")
    return ctx.tensor(data.dims)


@shape_rule("aten_unflatten")
def unflatten(ctx: ShapeContext) -> Any:
    """`aten.unflatten(x, sizes, dim)`: dim split into sizes (a SymInt list, one -1 inferred,
    a 0 a size), whose product is the dim."""
    data, size_arg = ctx.operand(0), ctx.args[1]
    entries = sizes(ctx, size_arg)
    if entries is None:
        return ctx.tensor(None)
    if data.dims is None:
        return ctx.tensor(None)
    axis = declared_axis(ctx.attr("dim"), len(data.dims))
    part = TensorArg(data.index, data.path, [data.dim(axis)], data.dtype, None)
    middle = reshape_dims(ctx, part, entries, allowzero=True)
    if middle is None:
        return ctx.tensor(None)
    return ctx.tensor(list(data.dims[:axis]) + list(middle) + list(data.dims[axis + 1 :]))


# elementwise with scalar or tensor bounds ----------------------------------------------------------
@shape_rule("aten_clamp")
def clamp(ctx: ShapeContext) -> Any:
    """`aten.clamp(x, min, max)`: bounds that are tensors broadcast with x; x's dtype."""
    data = ctx.operand(0)
    bounds = [ctx.optional_operand(1), ctx.optional_operand(2)]  # at least one: declared
    dims = broadcast_dims(ctx, [data.dims] + [b.dims for b in bounds if b is not None])
    return ctx.tensor(dims, data.dtype)


def _distinct_dims(ctx: ShapeContext, data: TensorArg, name: str, scalar_dims: bool = True) -> list:
    """The dims an attribute names, each once; `scalar_dims`: a scalar has dims 0 and -1 (flip),
    else none (roll: "tensor has no dimensions")."""
    axes = [
        torch_axis(ctx, a, len(known_dims(data)), name)
        if scalar_dims
        else normalize_axis(ctx, a, len(known_dims(data)), name)
        for a in _as_list(ctx.attr(name))
    ]
    return _distinct(ctx, axes, ctx.attr(name), name)


@shape_rule("aten_flip")
def flip(ctx: ShapeContext) -> Any:
    """`aten.flip(x, dims)`: x's shape; the dims are distinct dims of x."""
    (data,) = ctx.operands()
    if data.dims is not None:
        _distinct_dims(ctx, data, "dims")
    return ctx.tensor(data.dims)


@shape_rule("aten_roll")
def roll(ctx: ShapeContext) -> Any:
    """`aten.roll(x, shifts, dims)`: x's shape; one shift per dim (or one, without dims)."""
    (data,) = ctx.operands()
    dims = list(ctx.attr("dims"))  # one shift per dim (one without dims): declared
    if data.dims is not None and dims:
        _distinct_dims(ctx, data, "dims", scalar_dims=False)
    return ctx.tensor(data.dims)


# sorting and selecting -----------------------------------------------------------------------------
@shape_rule("aten_sort")
def sort(ctx: ShapeContext) -> Any:
    """`aten.sort(x, dim)`: (values, int64 indices) of x's shape; argsort the indices alone."""
    (data,) = ctx.operands()
    if data.dims is not None and data.rank:
        normalize_axis(ctx, ctx.attr("dim"), data.rank, "dim")
    indices = ctx.tensor(data.dims, "int64")
    return indices if ctx.op_name == "aten.argsort" else ctx.tuple([ctx.tensor(data.dims), indices])


@shape_rule("aten_topk")
def topk(ctx: ShapeContext) -> Any:
    """`aten.topk(x, k, dim)`: (values, int64 indices), dim become k; it must hold at least k
    (a scalar is its own top 1)."""
    (data,) = ctx.operands()
    k = ctx.attr("k")  # at least 0: declared
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("dim")) if k > 1 else 0)
        return ctx.tuple([ctx.tensor(None), ctx.tensor(None, "int64")])
    dims = list(data.dims)
    axis = torch_axis(ctx, ctx.attr("dim"), len(data.dims))
    if dims:
        ctx.within(dims[axis], k, None)
        dims[axis] = ctx.const(k)
    elif k > 1:
        ctx.fail("attribute-range", name="k", value=k, needed="at most 1 for a scalar")
    return ctx.tuple([ctx.tensor(dims), ctx.tensor(list(dims), "int64")])


# resampling ------------------------------------------------------------------------------------------
register_rule_message(
    "upsample-size",
    codes.BAD_ATTRIBUTE,
    "{op} needs output_size or scales for the dims it resizes",
    "give the output size or the scale factors",
)


def scaled(ctx: ShapeContext, d: Any, scale: float) -> Any:
    """floor(d * scale) as torch computes it (in double): exact for a scale whose binary
    fraction has a small denominator ((d * p) // q), else `?` when d is not known."""
    size = ctx.static(d)
    if size is not None:
        return ctx.const(int(size * scale))
    from fractions import Fraction  # only here: its import (with decimal's) is a start's 10 ms

    exact = Fraction(scale)
    if scale <= 0 or exact.denominator > 1024:
        return ctx.unknown()
    if exact.denominator == 1:
        return d * exact.numerator
    return (d * exact.numerator) // exact.denominator


@shape_rule("aten_upsample")
def upsample(ctx: ShapeContext) -> Any:
    """`aten.upsample(x, output_size, scales, mode)`: the last len(output_size or scales) dims
    resized (see stdlib/aten.rly); each must hold at least 1."""
    data, size_arg = ctx.operand(0), ctx.args[1]  # the mode: declared
    scales = ctx.attr("scales")
    if scales is not None:
        require_finite(ctx, "scales", scales)
    entries = sizes(ctx, size_arg) if present(ctx, size_arg) is not None else None
    if not entries and not scales:
        ctx.fail("upsample-size")
    k = len(entries) if entries else len(scales)
    if data.dims is None:
        ctx.require_rank_at_least(data, k + 1)
        return ctx.tensor(None)
    if len(data.dims) < k + 1:
        ctx.fail("rank-too-small", arg=data, needed=k + 1, rank=len(data.dims))
    dims = list(data.dims)
    first = len(dims) - k
    for i in range(k):
        ctx.within(dims[first + i], 1, None)
        dims[first + i] = _dims(ctx, [entries[i]])[0] if entries else scaled(ctx, dims[first + i], float(scales[i]))
    return ctx.tensor(dims)


@shape_rule("aten_kthvalue")
def kthvalue(ctx: ShapeContext) -> Any:
    """`aten.kthvalue(x, k, dim, keepdim)`: (values, indices) with dim reduced; k in 1..dim."""
    (data,) = ctx.operands()
    k = ctx.attr("k")  # at least 1: declared
    if data.dims is not None and data.rank:
        ctx.within(data.dim(normalize_axis(ctx, ctx.attr("dim"), data.rank, "dim")), k, None)
    elif data.dims is not None and k > 1:  # a scalar is a line of one element
        ctx.fail("attribute-range", name="k", value=k, needed="at most 1 for a scalar")
    return max_dim(ctx)


@shape_rule("aten_adaptive_pool")
def adaptive_pool(ctx: ShapeContext) -> Any:
    """`aten.adaptive_avg_pool2d(x, output_size)` over the last len(output_size) dims (1 to 3),
    which must hold an element; adaptive_max_pool2d also gives int64 positions."""
    (data,) = ctx.operands()
    wanted = list(ctx.attr("output_size"))
    dims = None
    ctx.require_rank_at_least(data, len(wanted) + 1)
    if data.dims is not None:
        k = len(wanted)
        for axis in range(len(data.dims) - k, len(data.dims)):
            ctx.within(data.dim(axis), 1, None)
        dims = list(data.dims[: len(data.dims) - k]) + [ctx.const(w) for w in wanted]
    values = ctx.tensor(dims)
    return ctx.tuple([values, ctx.tensor(dims, "int64")]) if ctx.op_name == "aten.adaptive_max_pool2d" else values


# shapes ------------------------------------------------------------------------------------------
@shape_rule("aten_repeat_interleave")
def repeat_interleave(ctx: ShapeContext) -> Any:
    """`aten.repeat_interleave(x, repeats, dim)`: dim times repeats (dim None: x flattened)."""
    (data,) = ctx.operands()
    repeats = ctx.attr("repeats")  # at least 0: declared
    if data.dims is None:
        return ctx.tensor(None)
    if ctx.attr("dim") is None:
        return ctx.tensor([product(ctx, data.dims) * repeats])
    dims = list(data.dims)
    axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")  # torch: a scalar has no dim here
    dims[axis] = dims[axis] * repeats
    return ctx.tensor(dims)


@shape_rule("aten_repeat_interleave_by")
def repeat_interleave_by(ctx: ShapeContext) -> Any:
    """`aten.repeat_interleave_by(x, repeats, dim)`: dim becomes the sum of repeats (unknown
    here: `?`); a vector of repeats is as long as the dim (dim None: x flattened)."""
    data, repeats = ctx.operands()
    if repeats.dims is not None and len(repeats.dims) > 1:
        ctx.require_rank(repeats, 1)
    if data.dims is None:
        return ctx.tensor(None)
    if ctx.attr("dim") is None:
        length, dims, axis = product(ctx, data.dims), [ctx.unknown()], 0
    else:
        dims = list(data.dims)
        axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims), "dim")
        length = dims[axis]
        dims[axis] = ctx.unknown()
    if repeats.dims is not None and len(repeats.dims) == 1 and ctx.static(repeats.dim(0)) != 1:
        ctx.equal(repeats.dim(0), length, symbol="repeats")
    return ctx.tensor(dims)


@shape_rule("aten_diff")
def diff(ctx: ShapeContext) -> Any:
    """`aten.diff(x, prepend, append, n, dim)`: dim of prepend ++ x ++ append, less n (none
    left where it is shorter); prepend and append have x's other dims."""
    data = ctx.operand(0)
    n = ctx.attr("n")
    if data.dims is None:
        return ctx.tensor(None)
    rank = len(data.dims)
    axis = normalize_axis(ctx, ctx.attr("dim"), rank, "dim")  # declared too; kept for a rank the call refines
    length = data.dim(axis)
    for part in (ctx.optional_operand(1), ctx.optional_operand(2)):
        if part is not None and part.dims is None:  # its rank is checked when run; its length unknown
            length = ctx.unknown()
        elif part is not None:
            ctx.require_rank(part, rank)  # declared too; kept for a rank the call refines
            for i in range(rank):
                if i != axis:
                    ctx.equal(part.dim(i), data.dim(i))
            length = length + part.dim(axis)
    dims = list(data.dims)
    dims[axis] = data.dim(axis) if n == 0 else _differenced(ctx, length, n)  # torch: n = 0 gives x itself
    return ctx.tensor(dims)


def _differenced(ctx: ShapeContext, length: Any, n: int) -> Any:
    """The length left after n differences: torch clamps n to the length, so max(0, length - n)
    (`length - n` where it is provably at least n, else at most the length)."""
    if ctx.at_least(length, n):
        return length - n
    size = ctx.static(length)
    if size is not None:
        return ctx.const(max(0, size - n))
    return ctx.bounded(0, length)


@shape_rule("aten_broadcast_tensors")
def broadcast_tensors(ctx: ShapeContext) -> Any:
    """`aten.broadcast_tensors(tensors)`: each broadcast to their common shape."""
    fields = ctx.tuple_fields(ctx.args[0])
    if fields is None:
        return ctx.tensor(None)
    dims = broadcast_dims(ctx, [f.dims for f in fields])
    return ctx.tuple([ctx.tensor(None if dims is None else list(dims), f.dtype) for f in fields])


@shape_rule("aten_meshgrid")
def meshgrid(ctx: ShapeContext) -> Any:
    """`aten.meshgrid(tensors, indexing)`: vectors (n0, n1, ...) give that many grids of
    shape (n0, n1, ...), the first two dims swapped for "xy"."""
    fields = ctx.tuple_fields(ctx.args[0])
    if fields is None:
        return ctx.tensor(None)
    dims = []
    for f in fields:
        if f.dims is not None and f.rank > 1:
            ctx.fail("rank-too-large", arg=f, allowed=1, rank=f.rank)
        dims.append(ctx.unknown() if f.dims is None else f.dim(0) if f.rank else ctx.const(1))
    if ctx.attr("indexing") == "xy" and len(dims) >= 2:
        dims[0], dims[1] = dims[1], dims[0]
    return ctx.tuple([ctx.tensor(list(dims), f.dtype) for f in fields])


@shape_rule("aten_pixel_shuffle")
def pixel_shuffle(ctx: ShapeContext) -> Any:
    """`aten.pixel_shuffle(x, r)`: (*, c * r * r, h, w) -> (*, c, h * r, w * r);
    pixel_unshuffle the reverse (h and w multiples of r)."""
    (data,) = ctx.operands()
    shuffle = ctx.op_name == "aten.pixel_shuffle"
    r = ctx.attr("upscale_factor" if shuffle else "downscale_factor")  # r >= 1, rank >= 3: declared
    if data.dims is None:
        return ctx.tensor(None)
    dims = list(data.dims)
    c, h, w = len(data.dims) - 3, len(data.dims) - 2, len(data.dims) - 1
    if shuffle:
        dims[c], dims[h], dims[w] = divided(ctx, data, c, r * r), dims[h] * r, dims[w] * r
    else:
        dims[c], dims[h], dims[w] = dims[c] * (r * r), divided(ctx, data, h, r), divided(ctx, data, w, r)
    return ctx.tensor(dims)


# creation ---------------------------------------------------------------------------------------
def _scalar_dim(ctx: ShapeContext, arg: Any) -> Any:
    """A size given as an int64 scalar (a literal or a symbolic int; a scalar, not negative:
    declared): its dim, or `?`."""
    value = arg.value[0] if arg.value else None
    if value is None:
        return ctx.unknown()
    return ctx.const(value) if isinstance(value, int) else value


@shape_rule("aten_linspace")
def linspace(ctx: ShapeContext) -> Any:
    """`aten.linspace(start, end, steps)`: a vector of steps elements."""
    return ctx.tensor([_scalar_dim(ctx, ctx.operand(2))], ctx.attr("dtype") or None)


@shape_rule("aten_eye")
def eye(ctx: ShapeContext) -> Any:
    """`aten.eye(n, m)`: (n, m), m () meaning n."""
    n = _scalar_dim(ctx, ctx.args[0])
    columns = present(ctx, ctx.args[1])
    return ctx.tensor([n, n if columns is None else _scalar_dim(ctx, columns)], ctx.attr("dtype") or None)


@shape_rule("aten_one_hot")
def one_hot(ctx: ShapeContext) -> Any:
    """`aten.one_hot(x, num_classes)`: a new last dim of num_classes (-1: known when run)."""
    (data,) = ctx.operands()
    classes = ctx.attr("num_classes")
    if data.dims is None:
        return ctx.tensor(None, "int64")
    return ctx.tensor(list(data.dims) + [ctx.unknown() if classes < 0 else ctx.const(classes)], "int64")


@shape_rule("aten_expand_as")
def expand_as(ctx: ShapeContext) -> Any:
    """`aten.expand_as(x, other)`: x broadcast to other's shape."""
    data, other = ctx.operands()
    return ctx.tensor(None if other.dims is None else broadcast_into(ctx, data, list(other.dims)))


@shape_rule("aten_as_strided")
def as_strided(ctx: ShapeContext) -> Any:
    """`aten.as_strided(x, size, stride, storage_offset)`: the dims size gives; the last element
    it reads lies inside x."""
    data, size_arg = ctx.operand(0), ctx.args[1]
    entries = sizes(ctx, size_arg)
    strides = list(ctx.attr("stride"))  # one per size, none negative: declared
    if entries is None:
        return ctx.tensor(None)
    dims = _dims(ctx, entries)
    _inside(ctx, data, dims, strides)
    return ctx.tensor(dims)


def _inside(ctx: ShapeContext, data: TensorArg, dims: list, strides: Sequence[int]) -> None:
    """Require the last element a strided view of `dims` reads (where they are known and none
    is 0) to lie inside x."""
    known = [k for k in (ctx.static(d) for d in dims) if k is not None and k > 0]
    if data.dims is not None and len(known) == len(dims):
        last = ctx.attr("storage_offset") + sum((k - 1) * s for k, s in zip(known, strides))
        ctx.within(product(ctx, data.dims), last + 1, None)


@shape_rule("aten_as_strided_scatter")
def as_strided_scatter(ctx: ShapeContext) -> Any:
    """`aten.as_strided_scatter(x, src, size, stride, storage_offset)`: src has the dims size
    gives; the last element the view reads lies inside x; x's shape."""
    data, src, size_arg = ctx.operand(0), ctx.operand(1), ctx.args[2]
    entries = sizes(ctx, size_arg)
    if entries is None:
        return ctx.tensor(data.dims)
    dims = _dims(ctx, entries)
    if src.dims is not None:
        for have, want in zip(src.dims, dims):
            ctx.equal(have, want, symbol="size")
    _inside(ctx, data, dims, ctx.attr("stride"))
    return ctx.tensor(data.dims)


@shape_rule("aten_unfold")
def unfold(ctx: ShapeContext) -> Any:
    """`aten.unfold(x, dimension, size, step)`: the dim becomes (d - size) // step + 1 (d at
    least size), and a last dim of size is added."""
    (data,) = ctx.operands()
    size, step = ctx.attr("size"), ctx.attr("step")  # step >= 1, size >= 0: declared
    if data.dims is None:
        return ctx.tensor(None)
    if not data.dims:  # a line of one element: one window of at most 1
        normalize_axis(ctx, ctx.attr("dimension"), 1, "dimension")
        if size > 1:
            ctx.fail("attribute-range", name="size", value=size, needed="at most 1 for a scalar")
        return ctx.tensor([ctx.const(size)])
    axis = normalize_axis(ctx, ctx.attr("dimension"), len(data.dims), "dimension")
    dims = list(data.dims)
    ctx.within(dims[axis], size, None)
    dims[axis] = (dims[axis] - size) // step + 1 if size else dims[axis] // step + 1
    return ctx.tensor(dims + [ctx.const(size)])


@shape_rule("aten_bincount")
def bincount(ctx: ShapeContext) -> Any:
    """`aten.bincount(x, weights, minlength)`: a vector of max(max(x) + 1, minlength) counts, so
    at least minlength (known when run); weights, when given, are as long as x."""
    minlength = ctx.attr("minlength")  # x and weights of one length n, minlength >= 0: declared
    dtype: Any = "int64"
    given = ctx.optional_operand(1)
    if given is not None:
        name = dtype_name(given.dtype)
        dtype = name if name in ("float32", "float64") else "float64" if name is not None else None
    return ctx.tensor([ctx.bounded(minlength, None) if minlength else ctx.unknown()], dtype)


@shape_rule("aten_masked_select")
def aten_masked_select(ctx: ShapeContext) -> Any:
    """`aten.masked_select(self, mask)`: the selected elements of the two broadcast together, a
    vector of 0 up to their element count."""
    data, mask = ctx.operands()
    dims = broadcast_dims(ctx, [data.dims, mask.dims])
    if dims is None:
        return ctx.tensor([ctx.unknown()])
    return ctx.tensor([ctx.bounded(0, product(ctx, dims))])


@shape_rule("aten_unique2")
def aten_unique2(ctx: ShapeContext) -> Any:
    """`aten._unique2(self, sorted, return_inverse, return_counts)`: k distinct values, k known
    when run (1..numel, 0 for an empty x); inverse shaped like x and counts (k,) where asked,
    else each (0,)."""
    data = ctx.operand(0)
    if data.dims is None:
        count = ctx.unknown()
    else:
        total = product(ctx, data.dims)
        static = ctx.static(total)
        count = ctx.const(0) if static == 0 else ctx.bounded(1 if static else 0, total)
    empty = ctx.tensor([ctx.const(0)], "int64")
    inverse = ctx.tensor(data.dims, "int64") if ctx.attr("return_inverse") else empty
    counts = ctx.tensor([count], "int64") if ctx.attr("return_counts") else empty
    return ctx.tuple([ctx.tensor([count], data.dtype), inverse, counts])


def _distinct_count(ctx: ShapeContext, total: Any) -> Any:
    """How many distinct values (runs, slices) of `total`: 1..total, 0 when there are none."""
    static = ctx.static(total)
    return ctx.const(0) if static == 0 else ctx.bounded(1 if static else 0, total)


@shape_rule("aten_unique_dim")
def aten_unique_dim(ctx: ShapeContext) -> Any:
    """`aten.unique_dim(self, dim)`: x with dim k (its distinct slices, known when run), the
    inverse (dim(x, dim),) and the counts (k,), whatever the flags say (as torch)."""
    data = ctx.operand(0)
    if data.dims is None:
        unknown = ctx.tensor([ctx.unknown()], "int64")
        return ctx.tuple([ctx.tensor(None, data.dtype), unknown, unknown])
    axis = normalize_axis(ctx, ctx.attr("dim"), len(data.dims))
    for other in range(len(data.dims)):
        if other != axis:  # torch: "there are 0 sized dimensions, and they aren't selected"
            require_nonempty(ctx, data, other, "torch compares the slices along dim only when they hold elements")
    count = _distinct_count(ctx, data.dim(axis))
    values = [count if i == axis else d for i, d in enumerate(data.dims)]
    return ctx.tuple(
        [ctx.tensor(values, data.dtype), ctx.tensor([data.dim(axis)], "int64"), ctx.tensor([count], "int64")]
    )


@shape_rule("aten_unique_consecutive")
def aten_unique_consecutive(ctx: ShapeContext) -> Any:
    """`aten.unique_consecutive(self, return_inverse, return_counts, dim)`: without dim, k runs
    of the flat x (k,), the inverse x's shape and the counts (k,) where asked, else (0,); with
    dim as aten.unique_dim, except dim 0 (not -1) of a vector, which torch reads as no dim."""
    data = ctx.operand(0)
    dim = ctx.attr("dim")
    if dim is not None and not (dim == 0 and data.rank == 1):
        return aten_unique_dim(ctx)
    count = ctx.unknown() if data.dims is None else _distinct_count(ctx, product(ctx, data.dims))
    empty = ctx.tensor([ctx.const(0)], "int64")
    inverse = ctx.tensor(data.dims, "int64") if ctx.attr("return_inverse") else empty
    counts = ctx.tensor([count], "int64") if ctx.attr("return_counts") else empty
    return ctx.tuple([ctx.tensor([count], data.dtype), inverse, counts])


@shape_rule("aten_masked_scatter")
def aten_masked_scatter(ctx: ShapeContext) -> Any:
    """`aten.masked_scatter(self, mask, source)`: mask broadcasts into self's shape (the result);
    source's shape is free, and it holds at least as many elements as the broadcast mask has
    true ones (declared: they are data)."""
    data, mask, _source = ctx.operands()
    if data.dims is None:
        return ctx.tensor(None)
    return ctx.tensor(broadcast_into(ctx, mask, list(data.dims)))
