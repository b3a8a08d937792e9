"""Operators that rearrange a tensor's dims: reshape (Relay codes, also read from the right),
reshape_like, dyn.reshape, transpose, expand_dims, squeeze, broadcast_to, dyn.broadcast_to,
broadcast_to_like, collapse_sum_like, slice_like, reverse.

None of them moves an element out of row-major order except transpose and reverse, so the
known values of a shape vector (spec §3.7) pass through reshape, expand_dims and squeeze.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from gradual.diagnostics import codes
from gradual.ops.context import (
    ShapeContext,
    TensorArg,
    product,
)
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    axis_index,
    distinct_axes,
    known_dims,
    known_ints,
    rearranged_value,
    show_ints,
    value_subtract,
)
from gradual.ops.rules.conv import assemble, check_layout, layout_dims
from gradual.ops.tables import shape_rule

register_rule_message(
    "reshape-count",
    codes.SHAPE_MISMATCH,
    "{op} cannot reshape a tensor of shape {shape} to {newshape}: {have} elements do not fill {want}",
    "the new shape must hold exactly as many elements as the input; write -1 for the one dim to infer",
)
register_rule_message(
    "reshape-indivisible",
    codes.SHAPE_MISMATCH,
    "{op} cannot reshape a tensor of shape {shape} to {newshape}: {have} elements do not divide into parts of {want}",
    "the known dims of the new shape must divide the input's element count",
)
register_rule_message(
    "reshape-two-inferred",
    codes.BAD_ATTRIBUTE,
    "{op} got newshape={newshape}, which asks to infer more than one dim (-1)",
    "write -1 for at most one dim",
)
register_rule_message(
    "reshape-infer-zero",
    codes.BAD_ATTRIBUTE,
    "{op} got newshape={newshape}, whose other dims hold no elements, so the -1 dim cannot be inferred",
    "give the dim explicitly instead of -1",
)
register_rule_message(
    "dyn-reshape-code",
    codes.OP_CONSTRAINT,
    "{op} got the shape {newshape}: {entry} is not a dim size, 0 (copy) or -1 (infer)",
    "a shape tensor gives each dim of the result: its length is the rank, so -2, -3 and -4 are not allowed",
)
register_rule_message(
    "reshape-code",
    codes.BAD_ATTRIBUTE,
    "{op} got newshape={newshape}: {entry} is not a dim size or a Relay code (0, -1, -2, -3, -4 followed by two dims)",
    "use a positive size, 0 (copy), -1 (infer), -2 (copy the rest), -3 (merge two) or -4 (split one)",
)
register_rule_message(
    "reshape-source",
    codes.RANK_MISMATCH,
    "{op} got newshape={newshape}, which reads more dims than the input of rank {rank} has",
    "codes 0, -3 and -4 each consume input dims; the input has only {rank}",
)
register_rule_message(
    "transpose-axes",
    codes.BAD_ATTRIBUTE,
    "{op} got axes={axes}, which is not a permutation of the {rank} axes of the input",
    "list each axis of the input (0 to {last}) exactly once",
)
register_rule_message(
    "broadcast-rank",
    codes.RANK_MISMATCH,
    "{arg} has rank {rank}, which cannot broadcast to the {target} dims of the target shape",
    "the target shape needs at least as many dims as the input",
)
register_rule_message(
    "broadcast-target",
    codes.BROADCAST_MISMATCH,
    "dim {axis} of {arg} is {dim}, which {op} cannot broadcast to the target's {target}",
    "each input dim must be 1 or equal to the target dim (broadcasting never shrinks)",
)
register_rule_message(
    "slice-like-longer",
    codes.SHAPE_MISMATCH,
    "{op} cuts dim {axis} of {arg} ({dim}) to {target}, which is longer",
    "the shape to slice like must not be longer than the data along the sliced axes",
)
register_rule_message(
    "squeeze-not-one",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is {dim}, but {op} only removes dims of size 1",
    "squeeze only axes of size 1, or drop `axis` to squeeze every size-1 axis",
)


# reshape ------------------------------------------------------------------------------------
def _code(ctx: ShapeContext, c: Any) -> Optional[int]:
    """A newshape entry as an int when it is one (attributes, static shape values)."""
    return c if isinstance(c, int) else ctx.static(c)


def _shown(ctx: ShapeContext, newshape: Sequence[Any]) -> Any:
    """The newshape as a message fact: `[5, -1]` for an attribute, the dims for a value."""
    return show_ints(newshape) if all(isinstance(c, int) for c in newshape) else list(newshape)


class _Reshape:
    """Relay's InferNewShape: walk the codes, remember which input and output dims are copies,
    and infer the -1 dim from the dims that are not (so copies cancel symbolically)."""

    def __init__(
        self,
        ctx: ShapeContext,
        data: TensorArg,
        newshape: Sequence[Any],
        dynamic: bool = False,
        allowzero: bool = False,
    ) -> None:
        assert data.dims is not None, "a reshaped input has a known rank: the rules return before otherwise"
        self.ctx, self.data, self.newshape = ctx, data, list(newshape)
        self.shape: list[Any] = data.dims  # the input's dims
        self.rank = len(data.dims)
        self.dynamic = dynamic
        self.dims: list = []
        self.copied_in: set = set()
        self.copied_out: set = set()
        self.src = 0
        self.infer_at: Optional[int] = None
        self.allowzero = allowzero
        self.value_entries: list = []  # (output position, input position, entry) of symbolic sizes

    def run(self) -> list:
        """The result dims (failing on bad codes or a provably wrong element count)."""
        i = 0
        while i < len(self.newshape):
            i = self._step(i)
        self._finish()
        self._unsure_copies()
        return self.dims

    def _unsure_copies(self) -> None:
        """An entry of unknown value (`?`, `0..8`) that is 0 at runtime is the code 0: it
        copies the input's dim there (unless allowzero). Where that dim is not known to equal
        the entry, the dim is not known, nor is the inferred one. An exact entry (`n`) is read
        as a size, as spec §3.7 and exported models need (see docs/design.md for the 0 case).
        Without a -1, a rank-1 input or result needs no such care: the runtime's count check
        then only passes where the copied dim is the entry's 0. With one, it does: `[?, -1]` of
        a (0,) tensor is (0, 1) when the `?` is the code 0 and (k, 0) when it is a size k."""
        small = self.rank <= 1 or len(self.dims) <= 1
        if self.allowzero or small and self.infer_at is None:
            return
        ctx = self.ctx
        for at, src, entry in self.value_entries:
            if src >= self.rank or ctx.at_least(entry, 1) or ctx.exact(entry):
                continue
            if _same(ctx, entry, self.data.dim(src)):
                continue
            self.dims[at] = ctx.unknown()
            if self.infer_at is not None:
                self.dims[self.infer_at] = ctx.unknown()

    def _input(self) -> Any:
        if self.src >= self.rank:
            self.ctx.fail("reshape-source", newshape=_shown(self.ctx, self.newshape), rank=self.rank)
        self.src += 1
        return self.data.dim(self.src - 1)

    def _copy(self) -> None:
        self.copied_in.add(self.src)
        self.copied_out.add(len(self.dims))
        self.dims.append(self._input())

    def _step(self, i: int) -> int:
        entry = self.newshape[i]
        code = _code(self.ctx, entry)
        if code is None:  # a symbolic size from a shape value
            self.value_entries.append((len(self.dims), self.src, entry))
            self.dims.append(entry)
            self.src += 1
        elif code > 0:
            self.dims.append(self.ctx.const(code))
            self.src += 1
        elif code == 0 and self.allowzero:
            self.dims.append(self.ctx.const(0))
            self.src += 1
        elif code == 0:
            self._copy()
        elif code == -1:
            self._infer_here()
        elif self.dynamic:
            self.ctx.fail("dyn-reshape-code", newshape=_shown(self.ctx, self.newshape), entry=code)
        elif code == -2:
            while self.src < self.rank:
                self._copy()
        elif code == -3:
            self._merge()
        elif code == -4:
            return self._split(i)
        else:
            self._bad_code(code)
        return i + 1

    def _bad_code(self, code: Any) -> None:
        self.ctx.fail("reshape-code", newshape=_shown(self.ctx, self.newshape), entry=code)

    def _infer_here(self) -> None:
        if self.infer_at is not None:
            self.ctx.fail("reshape-two-inferred", newshape=_shown(self.ctx, self.newshape))
        self.infer_at = len(self.dims)
        self.dims.append(self.ctx.const(1))
        self.src += 1

    def _merge(self) -> None:
        self.copied_in.update({self.src, self.src + 1})
        self.copied_out.add(len(self.dims))
        first = self._input()
        self.dims.append(first * self._input())

    def _split(self, i: int) -> int:
        if i + 2 >= len(self.newshape):
            self._bad_code(-4)
        left, right = self.newshape[i + 1], self.newshape[i + 2]
        lcode, rcode = _code(self.ctx, left), _code(self.ctx, right)
        if (
            lcode is not None
            and rcode is not None
            and (min(lcode, rcode) < -1 or lcode == rcode == -1 or 0 in (lcode, rcode))
        ):
            self._bad_code(-4)
        self.copied_in.add(self.src)
        whole = self._input()
        a = whole // self._size(right) if lcode == -1 else self._size(left)
        b = whole // self._size(left) if rcode == -1 else self._size(right)
        self._require_count(whole, a * b)
        self.copied_out.update({len(self.dims), len(self.dims) + 1})
        self.dims.extend([a, b])
        return i + 3

    def _size(self, entry: Any) -> Any:
        return self.ctx.const(entry) if isinstance(entry, int) else entry

    def _finish(self) -> None:
        ctx = self.ctx
        have = product(ctx, [d for i, d in enumerate(self.shape) if i not in self.copied_in])
        rest = product(ctx, [d for i, d in enumerate(self.dims) if i not in self.copied_out and i != self.infer_at])
        if self.infer_at is None:
            copied = self._copied()
            if ctx.static(copied) == 0:
                return  # the copies are empty, so both sides are, whatever the other dims
            if self._differ(have, rest):
                self._require_empty_copy(have, rest)
            elif ctx.exact(copied) or ctx.at_least(copied, 1):
                self._require_count(have, rest)
            # else: an unknown copy may be empty, and then any counts do: the rule decides at runtime
            return
        if ctx.static(rest) == 0:
            ctx.fail("reshape-infer-zero", newshape=_shown(ctx, self.newshape))
        h, r = ctx.static(have), ctx.static(rest)
        if h is not None and r is not None and h % r != 0:
            self._fail_count("reshape-indivisible", have, rest)
        if r is not None:  # a rigid count some sizes divide is checked at runtime (design.md)
            inferred = ctx.quotient(have, r)
        else:
            inferred = have // rest
            ctx.equal(inferred * rest, have)
        self.dims[self.infer_at] = inferred

    def _differ(self, have: Any, want: Any) -> bool:
        """Whether two counts can never be equal (their ranges do not meet)."""
        (hlo, hhi), (wlo, whi) = self.ctx.bounds(have), self.ctx.bounds(want)
        return hhi is not None and hhi < wlo or whi is not None and whi < hlo

    def _require_empty_copy(self, have: Any, want: Any) -> None:
        """Counts of the dims that are not copies that differ still agree when a copied dim is
        0 (`(0, 14)` and `(0, 7)` both hold no element): the copies must be empty."""
        ctx = self.ctx
        copied = self._copied()
        if not self.copied_in or ctx.at_least(copied, 1):
            self._fail_count("reshape-count", have, want)
        ctx.equal(copied, ctx.const(0), otherwise=("reshape-count", self._count_facts(have, want)))

    def _copied(self) -> Any:
        """The element count of the input dims that are copied (the same on both sides)."""
        return product(self.ctx, [d for i, d in enumerate(self.shape) if i in self.copied_in])

    def _require_count(self, have: Any, want: Any) -> None:
        self.ctx.equal(want, have, otherwise=("reshape-count", self._count_facts(have, want)))

    def _fail_count(self, code: str, have: Any, want: Any) -> None:
        self.ctx.fail(code, **self._count_facts(have, want))

    def _count_facts(self, have: Any, want: Any) -> dict:
        return {
            "shape": list(self.shape),
            "newshape": _shown(self.ctx, self.newshape),
            "have": have,
            "want": want,
        }


def _same(ctx: ShapeContext, a: Any, b: Any) -> bool:
    """Whether two dims are known to be equal (as far as the call's constraints tell)."""
    try:
        return ctx.exact(a) and ctx.exact(b) and ctx.static(value_subtract(ctx, a, b)) == 0
    except Exception:  # noqa: BLE001 - a difference that is not a dimension: not known equal
        return False


def reshape_dims(
    ctx: ShapeContext, data: TensorArg, newshape: Sequence[Any], dynamic: bool = False, allowzero: Optional[bool] = None
) -> Optional[list]:
    """The dims `reshape` gives `data` under Relay's codes: n > 0 is n, 0 copies a dim (a real 0
    with `allowzero`, by default the operator's attribute), -1 is inferred, -2 copies the rest,
    -3 merges two dims, -4 splits one into the next two codes.
    A `dynamic` shape (a tensor: its length is the rank) takes sizes, 0 and -1 only. A
    shape-value entry that may be negative (`n - 1`) may be a code at runtime: the dims are
    unknown; unless it is one of the input's own dims (`m // 5 - 1` of a conv's output,
    reshaped back to its shape_of), which no tensor has negative."""
    if any(_code(ctx, e) is None and not ctx.at_least(e, 0) and not _a_dim_of(ctx, e, data) for e in newshape):
        return [ctx.unknown() for _ in newshape] if dynamic else None
    if allowzero is None:
        allowzero = bool(ctx.attr("allowzero"))
    if data.dims is None:
        ctx.require_rank_at_least(data, _dims_read(ctx, newshape, allowzero))
        return _reshape_unknown_rank(ctx, newshape)
    return _Reshape(ctx, data, newshape, dynamic, allowzero).run()


def _a_dim_of(ctx: ShapeContext, entry: Any, data: TensorArg) -> bool:
    """Whether a shape-value entry is known to be >= 0 because one of data's dims (a size, so
    never negative) is q times it for some q >= 1: the entry itself, or GroupNorm's
    `4 * ((m - 10) // 5 + 1)` of the group reshape for the entry `(m - 10) // 5 + 1`."""
    if data.dims is None or not ctx.exact(entry):
        return False
    for dim in data.dims:
        if _same(ctx, entry, dim):
            return True
        quotient = ctx.exact_quotient(dim, entry) if ctx.exact(dim) else None
        if quotient is not None and ctx.at_least(quotient, 1):
            return True
    return False


def _dims_read(ctx: ShapeContext, newshape: Sequence[Any], allowzero: bool) -> int:
    """How many leading input dims the codes read (0 copies one, -3 merges two, -4 splits one;
    every other entry but -2 steps over one): the least rank the input needs."""
    src = least = i = 0
    while i < len(newshape):
        code = _code(ctx, newshape[i])
        if code == -2:
            break
        step = 2 if code == -3 else 1
        if code in (-3, -4) or code == 0 and not allowzero:
            least = src + step
        src += step
        i += 3 if code == -4 else 1
    return least


def _reshape_unknown_rank(ctx: ShapeContext, newshape: Sequence[Any]) -> Optional[list]:
    """Without the input's dims only positive sizes and one -1 can be read."""
    codes_ = [_code(ctx, c) for c in newshape]
    if any(c is not None and c not in (-1,) and c <= 0 for c in codes_):
        return None
    if codes_.count(-1) > 1:
        ctx.fail("reshape-two-inferred", newshape=_shown(ctx, newshape))
    return [ctx.unknown() if c == -1 else (ctx.const(c) if c is not None else e) for c, e in zip(codes_, newshape)]


@shape_rule("reshape")
def reshape(ctx: ShapeContext) -> Any:
    """`reshape(x, newshape=[...])` with Relay's codes; known element values are kept."""
    (data,) = ctx.operands()
    return ctx.tensor(reshape_dims(ctx, data, list(ctx.attr("newshape"))), value=data.value)


@shape_rule("reverse_reshape")
def reverse_reshape(ctx: ShapeContext) -> Any:
    """`contrib_reverse_reshape(x, newshape)`: Relay's reshape codes read from the right (both
    the input's dims and the codes reversed, the result reversed back)."""
    (data,) = ctx.operands()
    codes_ = list(ctx.attr("newshape"))[::-1]
    if data.dims is None:
        dims = _reshape_unknown_rank(ctx, codes_)
    else:
        flipped = TensorArg(data.index, data.path, list(data.dims)[::-1], data.dtype, None)
        dims = _Reshape(ctx, flipped, codes_).run()
    return ctx.tensor(None if dims is None else dims[::-1], value=data.value)


@shape_rule("dyn_reshape")
def dyn_reshape(ctx: ShapeContext) -> Any:
    """`dyn.reshape(x, shape)`: the new shape is a 1-D tensor; its known values are read like
    `newshape` (0 copies, -1 infers, as in ONNX); its length alone gives the rank, so the codes
    that change the rank (-2, -3, -4) are errors here."""
    data, shape = ctx.operands()  # the contract makes the shape a vector of integers
    if shape.value is not None:
        return ctx.tensor(reshape_dims(ctx, data, list(shape.value), dynamic=True), value=data.value)
    length = ctx.static(shape.dim(0))
    if length is not None:
        return ctx.tensor([ctx.unknown() for _ in range(length)], value=data.value)
    return ctx.tensor(None, value=data.value)


def _slice_bounds(begin: int, end: Optional[int], rank: int) -> tuple:
    """Relay's reshape_like begin/end (negative from the end, None for the end)."""
    start = begin + rank if begin < 0 else begin
    stop = rank if end is None else (end + rank if end < 0 else end)
    return max(0, min(start, rank)), max(0, min(stop, rank))


@shape_rule("reshape_like")
def reshape_like(ctx: ShapeContext) -> Any:
    """`reshape_like(x, y, lhs_begin, lhs_end, rhs_begin, rhs_end)`: x's dims
    [lhs_begin, lhs_end) are replaced by y's dims [rhs_begin, rhs_end); counts must agree."""
    data, like = ctx.operands()
    if data.dims is None or like.dims is None:
        return ctx.tensor(None, value=data.value)
    lb, le = _slice_bounds(ctx.attr("lhs_begin"), ctx.attr("lhs_end"), len(data.dims))
    rb, re_ = _slice_bounds(ctx.attr("rhs_begin"), ctx.attr("rhs_end"), len(like.dims))
    replaced, taken = list(data.dims[lb:le]), list(like.dims[rb:re_])
    have, want = product(ctx, replaced), product(ctx, taken)
    h, w = ctx.static(have), ctx.static(want)
    if h is not None and w is not None and h != w:
        ctx.fail("reshape-count", shape=list(data.dims), newshape=list(like.dims), have=have, want=want)
    ctx.equal(want, have)
    return ctx.tensor(list(data.dims[:lb]) + taken + list(data.dims[le:]), value=data.value)


# permutations and unit dims --------------------------------------------------------------------
@shape_rule("transpose")
def transpose(ctx: ShapeContext) -> Any:
    """`transpose(x, axes)`: a permutation of the dims (reversed when axes is absent)."""
    (data,) = ctx.operands()
    axes = ctx.attr("axes")
    if data.dims is None:
        if not axes:
            return ctx.tensor(None)
        ctx.require_rank(data, len(axes))  # the permutation gives the rank
    dims = known_dims(data)
    rank = len(dims)
    if not axes:
        perm = list(range(rank))[::-1]
    else:
        if len(axes) != rank:
            ctx.fail("transpose-axes", axes=show_ints(axes), rank=rank, last=rank - 1)
        perm = [axis_index(a, rank) for a in axes]  # the contract holds each axis in range
        if sorted(perm) != list(range(rank)):
            ctx.fail("transpose-axes", axes=show_ints(axes), rank=rank, last=rank - 1)
    value = data.value if rank <= 1 else rearranged_value(ctx, data, [range(ctx.static(d) or 0) for d in dims], perm)
    return ctx.tensor([data.dim(p) for p in perm], value=value)


@shape_rule("expand_dims")
def expand_dims(ctx: ShapeContext) -> Any:
    """`expand_dims(x, axis, num_newaxis)`: insert `num_newaxis` dims of size 1 at `axis`
    (in [-rank - 1, rank], num_newaxis at most MAX_RANK: the contract); known values are kept."""
    (data,) = ctx.operands()
    count = ctx.attr("num_newaxis")
    if data.dims is None:
        return ctx.tensor(None, value=data.value)
    axis = axis_index(ctx.attr("axis"), len(data.dims) + 1)
    dims = list(data.dims[:axis]) + [ctx.const(1) for _ in range(count)] + list(data.dims[axis:])
    return ctx.tensor(dims, value=data.value)


@shape_rule("squeeze")
def squeeze(ctx: ShapeContext) -> Any:
    """`squeeze(x, axis)`: drop the listed size-1 dims (checked), or with no axis every dim
    known to be 1; if some dim may or may not be 1, the result's rank is unknown."""
    (data,) = ctx.operands()
    return _squeeze(ctx, data, ctx.attr("axis"))


@shape_rule("dyn_squeeze")
def dyn_squeeze(ctx: ShapeContext) -> Any:
    """`dyn.squeeze(x, axis)`: squeeze whose axes are a 1-D tensor: as `squeeze` when its values
    are known, else the rank drops by its length and the kept dims are unknown."""
    data, axes = ctx.operands()  # the contract: a vector of at most rank axes, each in range
    known = known_ints(ctx, axes)
    if known is not None:
        return _squeeze(ctx, data, known)
    count = ctx.static(axes.dim(0))
    if data.dims is None or count is None:
        return ctx.tensor(None)
    return ctx.tensor([ctx.unknown() for _ in range(len(data.dims) - count)])


def _squeeze(ctx: ShapeContext, data: TensorArg, axes: Optional[Sequence[int]]) -> Any:
    if data.dims is None:  # the contract asks the rank the axes need
        return ctx.tensor(None, value=data.value)
    if axes is None:
        return ctx.tensor(_squeeze_all(ctx, data), value=data.value)
    drop = set(distinct_axes(ctx, axes, len(data.dims)))
    for a in sorted(drop):
        if ctx.is_one(data.dim(a)) is False and ctx.static(data.dim(a)) is not None:
            ctx.fail("squeeze-not-one", arg=data, axis=a, dim=data.dim(a))
        ctx.equal(data.dim(a), ctx.const(1))
    return ctx.tensor([d for i, d in enumerate(data.dims) if i not in drop], value=data.value)


def _squeeze_all(ctx: ShapeContext, data: TensorArg) -> Optional[list]:
    kept = []
    for d in known_dims(data):
        one = ctx.is_one(d)
        if one is None:
            return None
        if not one:
            kept.append(d)
    return kept


@shape_rule("reverse")
def reverse(ctx: ShapeContext) -> Any:
    """`reverse(x, axis)`: the same shape (the contract holds axis in range); a known vector's
    values reversed."""
    (data,) = ctx.operands()
    if data.dims is None:
        return ctx.tensor(None)
    value = list(reversed(data.value)) if data.value is not None and len(data.dims) == 1 else None
    return ctx.tensor(data.dims, value=value)


# broadcast_to ---------------------------------------------------------------------------------
def broadcast_into(ctx: ShapeContext, data: TensorArg, target: list) -> list:
    """NumPy `broadcast_to`: each input dim (right-aligned) must be 1 or the target dim."""
    if data.dims is None:
        return target
    rank = len(data.dims)
    if rank > len(target):
        ctx.fail("broadcast-rank", arg=data, rank=rank, target=len(target))
    offset = len(target) - rank
    out = list(target)
    for axis, d in enumerate(data.dims):
        t = target[offset + axis]
        size, wanted = ctx.static(d), ctx.static(t)
        if size is not None and wanted is not None and size not in (1, wanted):
            ctx.fail("broadcast-target", arg=data, axis=axis, dim=d, target=t)
        if ctx.is_one(t):
            ctx.equal(d, t)
        elif not ctx.exact(t):  # an element of a shape value that is not known: data decides it
            out[offset + axis] = d if ctx.is_one(d) is False else t
        else:
            out[offset + axis] = ctx.broadcast(d, t)
    return out


@shape_rule("broadcast_to")
def broadcast_to(ctx: ShapeContext) -> Any:
    """`broadcast_to(x, shape=[...])`: x must broadcast to the static target shape."""
    (data,) = ctx.operands()
    target = [ctx.const(s) for s in ctx.attr("shape")]  # the contract: each at least 0
    return ctx.tensor(broadcast_into(ctx, data, target), value=_broadcast_value(ctx, data, target))


def _broadcast_value(ctx: ShapeContext, data: TensorArg, target: list) -> Optional[list]:
    """A known scalar (or one-element vector) broadcast to a static vector keeps its value."""
    if data.value is None or len(data.value) != 1 or len(target) != 1:
        return None
    length = ctx.static(target[0])
    return None if length is None else [data.value[0]] * length


@shape_rule("dyn_broadcast_to")
def dyn_broadcast_to(ctx: ShapeContext) -> Any:
    """`dyn.broadcast_to(x, shape)`: the target shape is a 1-D tensor value."""
    data, shape = ctx.operands()  # the contract makes the shape a vector of integers
    if shape.value is not None:
        target = list(shape.value)
        return ctx.tensor(broadcast_into(ctx, data, target), value=_broadcast_value(ctx, data, target))
    length = ctx.static(shape.dim(0))
    if length is None:
        return ctx.tensor(None)
    return ctx.tensor(_broadcast_unknown_target(ctx, data, length))


def _broadcast_unknown_target(ctx: ShapeContext, data: TensorArg, length: int) -> list:
    """Broadcasting to `length` unknown dims: an input dim that is never 1 is the result's."""
    out = [ctx.unknown() for _ in range(length)]
    if data.dims is None:
        return out
    rank = len(data.dims)
    if rank > length:
        ctx.fail("broadcast-rank", arg=data, rank=rank, target=length)
    for axis, d in enumerate(data.dims):
        if ctx.is_one(d) is False:
            out[length - rank + axis] = d
    return out


@shape_rule("broadcast_to_like")
def broadcast_to_like(ctx: ShapeContext) -> Any:
    """`broadcast_to_like(x, like)`: x must broadcast to like's shape, which the result has."""
    data, like = ctx.operands()
    if like.dims is None:
        return ctx.tensor(None)
    return ctx.tensor(broadcast_into(ctx, data, list(like.dims)))


@shape_rule("collapse_sum_like")
def collapse_sum_like(ctx: ShapeContext) -> Any:
    """`collapse_sum_like(x, like)`: x summed down to like's shape, which must broadcast to x's
    (the gradient of a broadcast)."""
    data, like = ctx.operands()
    if data.dims is not None:
        broadcast_into(ctx, like, list(data.dims))
    return ctx.tensor(like.dims)


@shape_rule("slice_like")
def slice_like(ctx: ShapeContext) -> Any:
    """`slice_like(x, like, axes)`: along each axis (every axis both have, when none are
    given), x's dim becomes like's, which must not be longer."""
    data, like = ctx.operands()  # the contract: each axis names a dim of both
    axes = ctx.attr("axes")
    if data.dims is None:
        return ctx.tensor(None)
    if not axes:
        if like.dims is None:
            return ctx.tensor([ctx.unknown() for _ in data.dims])
        axes = range(min(len(data.dims), len(like.dims)))
    out = list(data.dims)
    for given in axes:
        axis = axis_index(given, len(data.dims))  # the contract holds each to a dim of data
        if like.dims is None or axis >= len(like.dims):
            out[axis] = ctx.unknown()
            continue
        out[axis] = _slice_like_dim(ctx, data, axis, like.dim(axis))
    return ctx.tensor(out)


def _slice_like_dim(ctx: ShapeContext, data: TensorArg, axis: int, target: Any) -> Any:
    """The dim `target`, which dim `axis` of data must reach."""
    wanted = ctx.static(target)
    if wanted is None:
        return target
    have = ctx.static(data.dim(axis))
    if have is not None and have < wanted:
        ctx.fail("slice-like-longer", arg=data, axis=axis, dim=have, target=wanted)
    ctx.assume_within(data.dim(axis), wanted, None)
    return target


# layouts and blocks -----------------------------------------------------------------------------
@shape_rule("layout_transform")
def layout_transform(ctx: ShapeContext) -> Any:
    """`layout_transform(x, src_layout, dst_layout)`: the same dims rearranged (and packed or
    unpacked: `NCHW` to `NCHW4c` splits C by 4)."""
    (data,) = ctx.operands()
    src, dst = ctx.attr("src_layout"), ctx.attr("dst_layout")
    letters = "".join(c for c in src if c.isupper())
    check_layout(ctx, src, letters, "src_layout")
    by_letter = layout_dims(ctx, data, src, letters, "src_layout")
    return ctx.tensor(assemble(ctx, dst, letters, by_letter, "dst_layout"))


def _blocks(ctx: ShapeContext) -> tuple:
    """(data by layout letter, the block size) of depth_to_space / space_to_depth."""
    (data,) = ctx.operands()
    block = ctx.attr("block_size")  # at least 1, as declared
    return layout_dims(ctx, data, ctx.attr("layout"), "NCHW", "layout"), block


@shape_rule("depth_to_space")
def depth_to_space(ctx: ShapeContext) -> Any:
    """`nn.depth_to_space(x, block_size, layout, mode)`: C // b^2 channels, H * b, W * b (as
    Relay, channels past a multiple of b^2 are dropped)."""
    x, block = _blocks(ctx)
    out = dict(x, C=x["C"] // (block * block), H=x["H"] * block, W=x["W"] * block)
    return ctx.tensor([out[c] for c in ctx.attr("layout")])


@shape_rule("space_to_depth")
def space_to_depth(ctx: ShapeContext) -> Any:
    """`nn.space_to_depth(x, block_size, layout)`: C * b^2 channels, H // b, W // b (as Relay,
    rows and columns past a multiple of b are dropped)."""
    x, block = _blocks(ctx)
    out = dict(x, C=x["C"] * (block * block), H=x["H"] // block, W=x["W"] // block)
    return ctx.tensor([out[c] for c in ctx.attr("layout")])


@shape_rule("matrix_set_diag")
def matrix_set_diag(ctx: ShapeContext) -> Any:
    """`matrix_set_diag(x, diagonal, k1, k2)`: x's shape; the diagonal has x's batch dims (and,
    for a band k1 < k2, the band's k2 - k1 + 1 diagonals as its second to last dim), and its last
    dim is the longest diagonal of the band in an (m, n) matrix: min(m + min(k2, 0), n - max(k1, 0))."""
    data, diagonal = ctx.operands()  # the contract: k1 <= k2, the ranks (a band adds a dim to the diagonal)
    k1, k2 = ctx.attr("k1"), ctx.attr("k2")
    band = 0 if k1 == k2 else 1
    if data.dims is None or diagonal.dims is None or len(diagonal.dims) != len(data.dims) - 1 + band:
        return ctx.tensor(data.dims)  # a rank not known here: the contract is decided when the program runs
    rank = len(data.dims)
    for axis in range(rank - 2):
        ctx.equal(data.dim(axis), diagonal.dim(axis), symbol="batch")
    if band:
        ctx.equal(diagonal.dim(-2), ctx.const(k2 - k1 + 1), symbol="diagonals")
    rows, columns = (ctx.static(data.dim(axis)) for axis in (-2, -1))
    if rows is not None and columns is not None:  # else the rule checks it when the program runs
        longest = max(0, min(rows + min(k2, 0), columns - max(k1, 0)))
        ctx.equal(diagonal.dim(-1), ctx.const(longest), symbol="length")
    return ctx.tensor(data.dims)
