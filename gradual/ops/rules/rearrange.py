"""Relay's block rearrangements, dilation and mirror padding: nn.dilate, nn.mirror_pad,
nn.space_to_batch_nd, nn.batch_to_space_nd and dyn.expand_dims.

Relay's relations floor a batch that does not divide by the blocks and let a mirror pad be
wider than its dim; these rules require what the kernels need (a batch and padded dims that
divide, crops and widths that fit), so a call that checks clean never stops in the kernel.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    axis_index,
    known_ints,
    require_nonempty,
    show_ints,
)
from gradual.ops.tables import shape_rule

register_rule_message(
    "block-divide",
    codes.SHAPE_MISMATCH,
    "{what} of {arg} is {dim}, which {op} cannot divide into blocks of {block}",
    "make it a multiple of {block} (pad or crop it, or choose another block_shape)",
)

register_rule_message(
    "mirror-width",
    codes.SHAPE_MISMATCH,
    "{op} pads dim {axis} of {arg} (of {dim}) by {width}, but a {mode} mirror of it holds at most {most}",
    "pad by at most {most} there",
)
register_rule_message(
    "crop-too-large",
    codes.SHAPE_MISMATCH,
    "{op} crops {crop} from dim {axis} of {arg}, which holds only {dim} once grown by its block",
    "crop less, or use a larger block",
)


def _divide(ctx: ShapeContext, data: Any, whole: Any, block: int, what: str) -> Any:
    """`whole / block`, which must divide: a static failure in the rule's words, else a check."""
    size = ctx.static(whole)
    if size is not None and size % block:
        ctx.fail("block-divide", arg=data, what=what, dim=size, block=block)
    return ctx.quotient(whole, block, symbol=f"a multiple of {block}")


def _pairs(ctx: ShapeContext, name: str, count: int | None) -> list[tuple[int, int]]:
    """A `[[before, after], ...]` attribute of non-negative ints, `count` pairs where given."""
    value = ctx.attr(name)
    ok = isinstance(value, (tuple, list)) and all(
        isinstance(p, (tuple, list))
        and len(p) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in p)
        for p in value
    )
    if not ok:
        shown = show_ints(value) if isinstance(value, (tuple, list)) else str(value)
        ctx.fail("attribute-entries", name=name, value=shown, needed="a pair [before, after] of sizes")
    if count is not None and len(value) != count:
        ctx.fail("attribute-length", name=name, expected=count, actual=len(value))
    return [(int(p[0]), int(p[1])) for p in value]


@shape_rule("dilate")
def dilate(ctx: ShapeContext) -> Any:
    """`nn.dilate(x, strides, dilation_value)`: one stride per dim; d becomes (d - 1) * s + 1
    (an empty dim stays empty)."""
    (data,) = ctx.operands()  # the contract: one stride per dim, each at least 1
    strides = list(ctx.attr("strides"))
    if data.dims is None or len(data.dims) != len(strides):
        return ctx.tensor(None)
    dims = []
    for axis, (d, s) in enumerate(zip(data.dims, strides)):
        if s > 1:
            require_nonempty(ctx, data, axis, "a dilated dim holds its first element")
            ctx.within(d, 1, None)
        dims.append(d if s == 1 else (d - ctx.const(1)) * ctx.const(s) + ctx.const(1))
    return ctx.tensor(dims)


@shape_rule("mirror_pad")
def mirror_pad(ctx: ShapeContext) -> Any:
    """`nn.mirror_pad(x, pad_width, mode)`: one [before, after] per dim, each at most the dim
    (SYMMETRIC) or the dim less one (REFLECT); d becomes before + d + after."""
    (data,) = ctx.operands()
    mode = ctx.attr("mode")  # one of the declared two
    pairs = _pairs(ctx, "pad_width", None)
    ctx.require_possible_rank(data, len(pairs))
    ctx.require_rank(data, len(pairs))
    if data.dims is None:
        return ctx.tensor(None)
    dims: list[Any] = []
    for d, (before, after) in zip(data.dims, pairs):
        widest = max(before, after)
        if widest:
            least = widest + (1 if mode == "REFLECT" else 0)
            have = ctx.static(d)
            if have is not None and have < least:
                most = have - (least - widest)
                ctx.fail("mirror-width", arg=data, axis=len(dims), dim=have, width=widest, mode=mode, most=most)
            ctx.within(d, least, None)
        dims.append(d + ctx.const(before + after))
    return ctx.tensor(dims)


def _blocks(ctx: ShapeContext, data: Any, name: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The block shape (each at least 1) and its [before, after] pairs (`name`), one per spatial dim."""
    blocks = list(ctx.attr("block_shape"))  # the contract: at least one, each at least 1, rank(data) > len
    return blocks, _pairs(ctx, name, len(blocks))


@shape_rule("space_to_batch_nd")
def space_to_batch_nd(ctx: ShapeContext) -> Any:
    """`nn.space_to_batch_nd(x, block_shape, paddings, pad_value)`: x is (n, *spatial, *rest)
    with one block per spatial dim; each padded spatial dim is a multiple of its block."""
    (data,) = ctx.operands()
    blocks, pairs = _blocks(ctx, data, "paddings")
    if data.dims is None:
        return ctx.tensor(None)
    dims = [data.dim(0) * ctx.const(product_of(blocks))]
    for i, (block, (before, after)) in enumerate(zip(blocks, pairs)):
        padded = data.dim(1 + i) + ctx.const(before + after)
        dims.append(_divide(ctx, data, padded, block, f"dim {1 + i} (padded)"))
    return ctx.tensor(dims + list(data.dims[1 + len(blocks) :]))


@shape_rule("batch_to_space_nd")
def batch_to_space_nd(ctx: ShapeContext) -> Any:
    """`nn.batch_to_space_nd(x, block_shape, crops)`: x is (n * prod(block), *spatial, *rest)
    (a batch past a multiple of prod(block) is dropped); each spatial dim grows by its block,
    less the crops (which must fit)."""
    (data,) = ctx.operands()
    blocks, pairs = _blocks(ctx, data, "crops")
    if data.dims is None:
        return ctx.tensor(None)
    # the batch is floored, as Relay's relation does (entries past a multiple of the blocks
    # are dropped, as depth_to_space drops channels)
    dims = [data.dim(0) // ctx.const(product_of(blocks))]
    for i, (block, (before, after)) in enumerate(zip(blocks, pairs)):
        grown = data.dim(1 + i) * ctx.const(block)
        have = ctx.static(grown)
        if have is not None and have < before + after:
            ctx.fail("crop-too-large", arg=data, axis=1 + i, crop=before + after, dim=have)
        ctx.within(grown, before + after, None)
        dims.append(grown - ctx.const(before + after))
    return ctx.tensor(dims + list(data.dims[1 + len(blocks) :]))


def product_of(values: list[int]) -> int:
    """The product of ints (1 for none)."""
    total = 1
    for v in values:
        total *= v
    return total


@shape_rule("dyn_expand_dims")
def dyn_expand_dims(ctx: ShapeContext) -> Any:
    """`dyn.expand_dims(x, axis, num_newaxis)`: axis an integer scalar; num_newaxis dims of 1 at
    axis where its value is known, else rank + num_newaxis unknown dims."""
    data, axis = ctx.operands()  # the contract: an integer scalar axis in range, num_newaxis in [0, MAX_RANK]
    count = ctx.attr("num_newaxis")
    if data.dims is None:
        return ctx.tensor(None)
    rank = len(data.dims)
    ctx.require_possible_rank(data, rank + count)
    known = known_ints(ctx, axis)
    at = axis_index(known[0], rank + 1) if known else None
    if at is None:
        # the value decides where the new dims go: at run it is known and the rule places them
        return ctx.tensor([ctx.unknown() for _ in range(rank + count)])
    dims = list(data.dims)
    return ctx.tensor(dims[:at] + [ctx.const(1)] * count + dims[at:])
