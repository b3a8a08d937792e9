"""Operators that join or replicate tensors: concatenate, stack, split, tile, repeat."""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, axis_rank, new_axis_rank, normalize_axis
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import axis_index, known_ints, new_axis, require_outputs, require_positive, show_ints
from gradual.ops.tables import shape_rule

register_rule_message(
    "concatenate-empty",
    codes.OP_CONSTRAINT,
    "{op} needs at least one tensor, but got an empty tuple",
    "pass a tuple of one or more tensors",
)
register_rule_message(
    "split-uneven",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is {dim}, which {op} cannot split into {sections} equal sections",
    "choose a number of sections that divides {dim}, or pass split indices instead",
)
register_rule_message(
    "split-indices",
    codes.BAD_ATTRIBUTE,
    "{op} got indices_or_sections={indices}, but split indices must be positive and increasing",
    "list the split points in increasing order, e.g. [2, 5]",
)
register_rule_message(
    "split-beyond",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is {dim}, too short for {op} to split it at {index}",
    "split indices must lie inside the dim",
)


# concatenate and stack ------------------------------------------------------------------------
# Relay's declarations state what these rules check (one or more tensors of one rank, the axis
# in range); the rules still check it for ATen's aten.cat and aten.stack, which run them
# adapted (ops/rules/aten.py) and whose declarations do not state it yet.
def _same_rank_fields(ctx: ShapeContext, fields: list) -> Optional[int]:
    """The common rank of a tuple's tensors (unknown ranks get a check); None if all unknown."""
    if not fields:
        ctx.fail("concatenate-empty")
    ranked = [f for f in fields if f.dims is not None]
    if not ranked:
        return None
    rank = ranked[0].rank
    for f in fields:
        if f.dims is None:
            ctx.require_rank(f, rank)
        elif f.rank != rank:
            ctx.fail("same-rank", arg=f, expected=rank, actual=f.rank)
    return rank


def _require_ranks(ctx: ShapeContext, fields: Optional[list], rank: int) -> None:
    """Tensors of unknown rank (in a tuple of known length) that an axis needs `rank` dims of."""
    for f in fields or ():
        ctx.require_rank_at_least(f, rank)


def _common_dtype(ctx: ShapeContext, fields: list) -> Any:
    dtype = fields[0].dtype
    for f in fields[1:]:
        dtype = ctx.same_dtype(dtype, f.dtype)
    return dtype


def _agreed(ctx: ShapeContext, fields: list, axis: int) -> Any:
    """The dim every field has at `axis` (they must be equal)."""
    d = fields[0].dim(axis)
    for f in fields[1:]:
        d = ctx.equal(d, f.dim(axis))
    return d


def _joined_values(ctx: ShapeContext, fields: list) -> Optional[list]:
    """The elements of joined shape vectors/scalars: a field whose values are not known but
    whose length is static contributes that many unknown elements, so `[b] ++ [?]` keeps b."""
    if all(f.value is None for f in fields):
        return None
    joined: list = []
    for f in fields:
        if f.value is not None:
            joined.extend(f.value)
            continue
        length = 1 if f.rank == 0 else ctx.static(f.dim(0)) if f.rank == 1 else None
        if length is None:
            return None
        joined.extend(ctx.unknown() for _ in range(length))
    return joined


def _joined_fields(ctx: ShapeContext) -> tuple:
    """The tensors of a concatenate/stack tuple: (fields, their common dtype, their common
    rank or None when unknown)."""
    tup = ctx.args[0]  # a tuple, or `?` (no typed accessor: tuple_operand refuses a `?`); qnn's scales follow
    fields = ctx.tuple_fields(tup)
    if fields is None:
        return None, None, None
    if not fields:
        ctx.fail("concatenate-empty")
    dtype = _common_dtype(ctx, fields)
    return fields, dtype, _same_rank_fields(ctx, fields)


@shape_rule("concatenate")
def concatenate(ctx: ShapeContext) -> Any:
    """`concatenate((a, b, ...), axis)`: equal dims except along `axis`, which add up; known
    vectors are joined (Shape -> Concat)."""
    fields, dtype, rank = _joined_fields(ctx)
    if rank is None:
        _require_ranks(ctx, fields, max(1, axis_rank(ctx.attr("axis"))))
        return ctx.tensor(None, dtype)
    if rank == 0:
        ctx.fail("rank-too-small", arg=fields[0], needed=1, rank=0)
    axis = normalize_axis(ctx, ctx.attr("axis"), rank)
    dims = []
    for j in range(rank):
        if j == axis:
            total = fields[0].dim(j)
            for f in fields[1:]:
                total = total + f.dim(j)
            dims.append(total)
        else:
            dims.append(_agreed(ctx, fields, j))
    value = _joined_values(ctx, fields) if axis == 0 and rank <= 1 else None
    return ctx.tensor(dims, dtype, value)


@shape_rule("stack")
def stack(ctx: ShapeContext) -> Any:
    """`stack((a, b, ...), axis)`: equal shapes joined along a new axis of length N; known
    scalars stack into a known vector."""
    fields, dtype, rank = _joined_fields(ctx)
    if rank is None:
        _require_ranks(ctx, fields, new_axis_rank(ctx.attr("axis")))
        return ctx.tensor(None, dtype)
    axis = new_axis(ctx, ctx.attr("axis"), rank)
    dims = [_agreed(ctx, fields, j) for j in range(rank)]
    dims.insert(axis, ctx.const(len(fields)))
    value = _joined_values(ctx, fields) if axis == 0 and rank <= 1 else None
    return ctx.tensor(dims, dtype, value)


# split ------------------------------------------------------------------------------------------
@shape_rule("split")
def split(ctx: ShapeContext) -> Any:
    """`split(x, indices_or_sections, axis)`: an int gives that many equal parts (the dim must
    divide), a list of increasing indices gives len + 1 parts; the result is a tuple."""
    (data,) = ctx.operands()
    spec = ctx.attr("indices_or_sections")
    parts = _split_parts(ctx, spec)
    if data.dims is None:  # the contract asks the rank the axis needs
        return ctx.tuple([ctx.tensor(None, data.dtype) for _ in range(parts)])
    axis = axis_index(ctx.attr("axis"), len(data.dims))
    whole = data.dim(axis)
    if isinstance(spec, int):
        sizes = _equal_sections(ctx, data, axis, whole, spec)
    else:
        sizes = _sections_at(ctx, data, axis, whole, list(spec))
    values = _split_values(ctx, data, sizes)
    fields = []
    for i, size in enumerate(sizes):
        dims = list(data.dims[:axis]) + [size] + list(data.dims[axis + 1 :])
        fields.append(ctx.tensor(dims, data.dtype, None if values is None else values[i]))
    return ctx.tuple(fields)


def _split_parts(ctx: ShapeContext, spec: Any) -> int:
    if isinstance(spec, bool) or not isinstance(spec, (int, tuple, list)):
        ctx.fail("attribute-range", name="indices_or_sections", value=spec, needed="an int or a list of ints")
    if isinstance(spec, int):
        return require_outputs(ctx, "indices_or_sections", require_positive(ctx, "indices_or_sections", spec))
    if any(isinstance(i, bool) or not isinstance(i, int) for i in spec):
        ctx.fail(
            "attribute-range", name="indices_or_sections", value=show_ints(spec), needed="an int or a list of ints"
        )
    if (spec and spec[0] <= 0) or any(b <= a for a, b in zip(spec, spec[1:])):
        ctx.fail("split-indices", indices=show_ints(spec))
    return len(spec) + 1


def _equal_sections(ctx: ShapeContext, data: TensorArg, axis: int, whole: Any, sections: int) -> list:
    size = ctx.static(whole)
    if size is not None and size % sections != 0:
        ctx.fail("split-uneven", arg=data, axis=axis, dim=whole, sections=sections)
    part = ctx.quotient(whole, sections) if sections > 1 else whole
    return [part] * sections


def _sections_at(ctx: ShapeContext, data: TensorArg, axis: int, whole: Any, indices: list) -> list:
    if not indices:
        return [whole]
    size = ctx.static(whole)
    if size is not None and indices[-1] > size:
        ctx.fail("split-beyond", arg=data, axis=axis, index=indices[-1], dim=whole)
    ctx.within(whole, indices[-1], None)
    bounds = [0] + indices
    sizes = [ctx.const(b - a) for a, b in zip(bounds, bounds[1:])]
    return sizes + [whole - indices[-1]]


def _split_values(ctx: ShapeContext, data: TensorArg, sizes: list) -> Optional[list]:
    """Splitting a known vector splits its values."""
    if data.value is None or data.rank != 1:
        return None
    lengths = [ctx.static(s) for s in sizes]
    if any(n is None for n in lengths):
        return None
    out, start = [], 0
    for n in lengths:
        out.append(list(data.value[start : start + n]))  # type: ignore[operator]
        start += n  # type: ignore[operator]
    return out


# tile and repeat --------------------------------------------------------------------------------
@shape_rule("tile")
def tile(ctx: ShapeContext) -> Any:
    """`tile(x, reps)`: x and reps are aligned on the right (padded with 1s) and multiplied."""
    (data,) = ctx.operands()
    return _tile(ctx, data, list(ctx.attr("reps")))  # the contract: each at least 0


@shape_rule("dyn_tile")
def dyn_tile(ctx: ShapeContext) -> Any:
    """`dyn.tile(x, reps)`: tile whose repeats are a 1-D tensor: as `tile` when its values are
    known, else max(rank, len(reps)) unknown dims."""
    data, reps = ctx.operands()  # the contract: a vector of integers, each at least 0
    known = known_ints(ctx, reps)
    if known is not None:
        return _tile(ctx, data, known)
    count = ctx.static(reps.dim(0))
    if data.dims is None or count is None:
        return ctx.tensor(None)
    return ctx.tensor([ctx.unknown() for _ in range(max(len(data.dims), count))])


def _tile(ctx: ShapeContext, data: TensorArg, reps: list) -> Any:
    if data.dims is None:
        return ctx.tensor(None)
    rank = max(len(data.dims), len(reps))
    dims = [ctx.const(1)] * (rank - len(data.dims)) + list(data.dims)
    reps = [1] * (rank - len(reps)) + reps
    value = None
    if data.value is not None and rank == 1:
        value = list(data.value) * reps[0]
    return ctx.tensor([d * r for d, r in zip(dims, reps)], value=value)


@shape_rule("repeat")
def repeat(ctx: ShapeContext) -> Any:
    """`repeat(x, repeats, axis)`: dim `axis` is multiplied by `repeats` (each element repeated;
    the contract holds both to their domains)."""
    (data,) = ctx.operands()
    times = ctx.attr("repeats")
    if data.dims is None:
        return ctx.tensor(None)
    axis = axis_index(ctx.attr("axis"), len(data.dims))
    dims = list(data.dims)
    dims[axis] = dims[axis] * times
    value = None
    if data.value is not None and len(dims) == 1:
        value = [v for v in data.value for _ in range(times)]
    return ctx.tensor(dims, value=value)
