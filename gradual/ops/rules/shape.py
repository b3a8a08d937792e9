"""Rules for operators that rearrange shapes: reshape, concatenate, transpose, ..."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..context import ShapeContext, TensorArg, normalize_axis, product
from ..registry import shape_rule


def reshape_dims(ctx: ShapeContext, data: TensorArg, newshape: Sequence[Any]) -> Optional[list]:
    """Relay's reshape codes: n > 0 keeps n, 0 copies, -1 infers, -2 copies the rest,
    -3 merges two dims, -4 splits one dim into the next two codes."""
    if data.dims is None:
        return None if any(_code(ctx, c) in (0, -2, -3, -4) for c in newshape) else _reshape_unknown_input(ctx, newshape)
    dims, src, infer_at = [], 0, None
    codes = list(newshape)
    i = 0
    while i < len(codes):
        code = _code(ctx, codes[i])
        if code == 0:
            dims.append(data.dim(src)); src += 1
        elif code == -1:
            if infer_at is not None:
                ctx.fail("reshape-two-inferred", newshape=_show(ctx, codes))
            infer_at = len(dims); dims.append(None); src += 1
        elif code == -2:
            dims.extend(data.dims[src:]); src = len(data.dims)
        elif code == -3:
            dims.append(data.dim(src) * data.dim(src + 1)); src += 2
        elif code == -4:
            first, second = _code(ctx, codes[i + 1]), _code(ctx, codes[i + 2])
            whole = data.dim(src)
            a = whole // ctx.const(second) if first == -1 else ctx.const(first) if first is not None else codes[i + 1]
            b = whole // ctx.const(first) if second == -1 else ctx.const(second) if second is not None else codes[i + 2]
            ctx.equal(a * b, whole)
            dims.extend([a, b]); src += 1; i += 2
        elif code is not None and code < -4:
            ctx.fail("reshape-code", code=code)
        else:
            dims.append(ctx.const(code) if code is not None else codes[i]); src += 1
        i += 1
    total = product(ctx, data.dims)
    if infer_at is not None:
        known = product(ctx, [d for d in dims if d is not None])
        if ctx.static(known) == 0:
            ctx.fail("reshape-infer-zero", newshape=_show(ctx, codes))
        inferred = total // known
        ctx.equal(inferred * known, total)
        dims[infer_at] = inferred
    else:
        _check_count(ctx, total, product(ctx, dims), data, dims)
    return dims


def _check_count(ctx: ShapeContext, total: Any, out: Any, data: TensorArg, dims: list) -> None:
    ctx.equal(out, total)


def _reshape_unknown_input(ctx: ShapeContext, newshape: Sequence[Any]) -> list:
    return [ctx.unknown() if _code(ctx, c) == -1 else (ctx.const(_code(ctx, c)) if _code(ctx, c) is not None else c)
            for c in newshape]


def _code(ctx: ShapeContext, c: Any) -> Optional[int]:
    if isinstance(c, int):
        return c
    return ctx.static(c)


def _show(ctx: ShapeContext, codes: Sequence[Any]) -> str:
    return "[" + ", ".join(str(c if isinstance(c, int) else (ctx.static(c) if ctx.static(c) is not None else "?")) for c in codes) + "]"


@shape_rule("reshape")
def reshape(ctx: ShapeContext) -> Any:
    """`reshape(x, newshape=[...])` with Relay's special codes."""
    (data,) = ctx.args
    return ctx.tensor(reshape_dims(ctx, data, list(ctx.attr("newshape"))))


@shape_rule("dyn_reshape")
def dyn_reshape(ctx: ShapeContext) -> Any:
    """`dyn.reshape(x, shape)`: the new shape is a tensor; known values give known dims."""
    data, shape = ctx.args
    if shape.dims is not None:
        ctx.require_rank(shape, 1)
    if shape.value is not None:
        return ctx.tensor(reshape_dims(ctx, data, shape.value))
    if shape.dims is not None and ctx.static(shape.dim(0)) is not None:
        return ctx.tensor([ctx.unknown() for _ in range(ctx.static(shape.dim(0)))])
    return ctx.tensor(None)


@shape_rule("reshape_like")
def reshape_like(ctx: ShapeContext) -> Any:
    """`reshape_like(x, y)`: x's elements in y's shape."""
    data, like = ctx.args
    if data.dims is not None and like.dims is not None:
        ctx.equal(product(ctx, like.dims), product(ctx, data.dims))
    return ctx.tensor(like.dims)


@shape_rule("concatenate")
def concatenate(ctx: ShapeContext) -> Any:
    """`concatenate((a, b, ...), axis)`: equal dims except along `axis`, which add up."""
    (tup,) = ctx.args
    fields = ctx.tuple_fields(tup)
    if fields is None:
        return ctx.tensor(None)
    if not fields:
        ctx.fail("concatenate-empty")
    dtype = fields[0].dtype
    for f in fields[1:]:
        dtype = ctx.same_dtype(dtype, f.dtype)
    ranked = [f for f in fields if f.dims is not None]
    if not ranked:
        return ctx.tensor(None, dtype)
    rank = ranked[0].rank
    for f in fields:
        if f.dims is None:
            ctx.require_rank(f, rank)
        elif f.rank != rank:
            ctx.fail("same-rank", arg=f, expected=rank, actual=f.rank)
    axis = normalize_axis(ctx, ctx.attr("axis"), rank)
    dims = []
    for j in range(rank):
        if j == axis:
            total = fields[0].dim(j)
            for f in fields[1:]:
                total = total + f.dim(j)
            dims.append(total)
        else:
            d = fields[0].dim(j)
            for f in fields[1:]:
                d = ctx.equal(d, f.dim(j))
            dims.append(d)
    value = None
    if rank == 1 and all(f.value is not None for f in fields):
        value = [v for f in fields for v in f.value]
    return ctx.tensor(dims, dtype, value)


@shape_rule("stack")
def stack(ctx: ShapeContext) -> Any:
    """`stack((a, b, ...), axis)`: equal shapes, a new axis of length N."""
    (tup,) = ctx.args
    fields = ctx.tuple_fields(tup)
    if fields is None:
        return ctx.tensor(None)
    if not fields:
        ctx.fail("concatenate-empty")
    dtype = fields[0].dtype
    for f in fields[1:]:
        dtype = ctx.same_dtype(dtype, f.dtype)
    ranked = [f for f in fields if f.dims is not None]
    if not ranked:
        return ctx.tensor(None, dtype)
    rank = ranked[0].rank
    for f in fields:
        if f.dims is None:
            ctx.require_rank(f, rank)
        elif f.rank != rank:
            ctx.fail("same-rank", arg=f, expected=rank, actual=f.rank)
    axis = normalize_axis(ctx, ctx.attr("axis"), rank + 1)
    dims = []
    for j in range(rank):
        d = fields[0].dim(j)
        for f in fields[1:]:
            d = ctx.equal(d, f.dim(j))
        dims.append(d)
    dims.insert(axis, ctx.const(len(fields)))
    value = None
    if rank == 0 and all(f.value is not None for f in fields):
        value = [f.value[0] for f in fields]
    return ctx.tensor(dims, dtype, value)


@shape_rule("transpose")
def transpose(ctx: ShapeContext) -> Any:
    """`transpose(x, axes)`: a permutation of the dims (reversed when axes is absent)."""
    (data,) = ctx.args
    axes = ctx.attr("axes")
    if data.dims is None:
        return ctx.tensor(None if axes is None else [ctx.unknown() for _ in axes])
    rank = data.rank
    if axes is None or len(axes) == 0:
        return ctx.tensor(list(reversed(data.dims)))
    if len(axes) != rank:
        ctx.fail("transpose-axes", axes=list(axes), rank=rank)
    perm = [normalize_axis(ctx, a, rank, "axes") for a in axes]
    if sorted(perm) != list(range(rank)):
        ctx.fail("transpose-axes", axes=list(axes), rank=rank)
    return ctx.tensor([data.dim(p) for p in perm])


@shape_rule("expand_dims")
def expand_dims(ctx: ShapeContext) -> Any:
    """`expand_dims(x, axis, num_newaxis)`: insert dims of size 1."""
    (data,) = ctx.args
    count = ctx.attr("num_newaxis")
    if count < 0:
        ctx.fail("negative-attribute", name="num_newaxis", value=count)
    if data.dims is None:
        return ctx.tensor(None)
    axis = normalize_axis(ctx, ctx.attr("axis"), data.rank + 1)
    dims = list(data.dims)
    for _ in range(count):
        dims.insert(axis, ctx.const(1))
    value = data.value if data.rank == 0 and count == 1 else None
    return ctx.tensor(dims, value=value)


@shape_rule("squeeze")
def squeeze(ctx: ShapeContext) -> Any:
    """`squeeze(x, axis)`: drop the given size-1 dims (all statically-1 dims if no axis)."""
    (data,) = ctx.args
    axes = ctx.attr("axis")
    if data.dims is None:
        return ctx.tensor(None)
    if axes is None:
        kept = []
        for d in data.dims:
            one = ctx.is_one(d)
            if one is None:
                return ctx.tensor(None)
            if not one:
                kept.append(d)
        return ctx.tensor(kept)
    drop = {normalize_axis(ctx, a, data.rank) for a in axes}
    for a in drop:
        ctx.equal(data.dim(a), ctx.const(1))
    value = data.value if data.rank == 1 and drop == {0} else None
    return ctx.tensor([d for i, d in enumerate(data.dims) if i not in drop], value=value)


@shape_rule("broadcast_to")
def broadcast_to(ctx: ShapeContext) -> Any:
    """`broadcast_to(x, shape=[...])`: x must broadcast to the target shape."""
    (data,) = ctx.args
    target = [ctx.const(s) for s in ctx.attr("shape")]
    return ctx.tensor(_broadcast_into(ctx, data, target))


def _broadcast_into(ctx: ShapeContext, data: TensorArg, target: list) -> list:
    if data.dims is None:
        return target
    if data.rank > len(target):
        ctx.fail("broadcast-rank", arg=data, rank=data.rank, target=len(target))
    for d, t in zip(reversed(data.dims), reversed(target)):
        ctx.broadcast(d, t)
    return target


@shape_rule("dyn_broadcast_to")
def dyn_broadcast_to(ctx: ShapeContext) -> Any:
    """`dyn.broadcast_to(x, shape)`: the target shape is a tensor value."""
    data, shape = ctx.args
    if shape.value is not None:
        return ctx.tensor(_broadcast_into(ctx, data, list(shape.value)))
    if shape.dims is not None and len(shape.dims) == 1 and ctx.static(shape.dim(0)) is not None:
        return ctx.tensor([ctx.unknown() for _ in range(ctx.static(shape.dim(0)))])
    return ctx.tensor(None)
