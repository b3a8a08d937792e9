"""Property tests of the operator library's shape rules (spec §3.10: one rule, two domains).

Each rule is run concretely, on plain ints, through `IntContext` (a minimal ShapeContext written
here, independent of the runtime) and compared with the shape NumPy itself produces; and run
symbolically, by checking a program whose input dims are names, whose result instantiated at
the concrete sizes must equal the concrete result.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import gradual
from gradual.ops.context import RuleFailure, ShapeContext, TensorArg, TupleArg
from gradual.ops.operand_dtypes import INDEX_OPERANDS
from gradual.ops.registry import default_registry
from gradual.ops.signature import apply_operator

SETTINGS = settings(max_examples=60, deadline=None)
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")


# a concrete context over ints ------------------------------------------------------------------
class Unknown:
    """A data-dependent size (arithmetic on it stays unknown)."""

    def __init__(self, lo: int = 0, hi: Optional[int] = None) -> None:
        self.lo, self.hi = lo, hi

    def _any(self, other: Any) -> "Unknown":
        return Unknown()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __floordiv__ = _any


class IntContext(ShapeContext):
    """Dims are ints; a violated constraint raises RuleFailure."""

    def __init__(
        self,
        op_name: str,
        shapes: Sequence[Any],
        attrs: dict,
        dtype: str = "float32",
        integer_args: frozenset = frozenset(),
    ) -> None:
        self.op_name = op_name
        self.attrs = attrs
        self.integer_args = integer_args  # the arguments that hold indices: int64, the others float32
        self.args = [self._view(s, i, ()) for i, s in enumerate(shapes)]
        self.dtype = dtype

    def _view(self, shape: Any, index: int, path: tuple) -> Any:
        if isinstance(shape, list):  # a tuple argument: a list of shapes
            return TupleArg(index, path, [self._view(s, index, path + (i,)) for i, s in enumerate(shape)])
        return TensorArg(index, path, list(shape), "int64" if index in self.integer_args else "float32", None)

    def attr(self, name: str) -> Any:
        return self.attrs.get(name)

    def static(self, d: Any) -> Optional[int]:
        return None if isinstance(d, Unknown) else int(d)

    def maybe_one(self, d: Any) -> Optional[bool]:
        return None

    def const(self, value: int) -> int:
        return value

    def symbolic(self, dim: Any) -> Any:
        return dim.get_length() if dim.is_static else Unknown()

    def unknown(self) -> Unknown:
        return Unknown()

    def bounded(self, lo: Any, hi: Any) -> Unknown:
        return Unknown(lo, hi)

    def equal(self, a: Any, b: Any, symbol: Optional[str] = None, otherwise: Optional[tuple] = None) -> Any:
        if not isinstance(a, Unknown) and not isinstance(b, Unknown) and a != b:
            if otherwise is not None:
                self.fail(otherwise[0], **otherwise[1])
            self.fail("differ", a=a, b=b)
        return b if isinstance(a, Unknown) else a

    def broadcast(self, a: Any, b: Any) -> Any:
        if a == 1:
            return b
        if b == 1:
            return a
        return self.equal(a, b)

    def within(self, d: Any, lo: int, hi: Optional[int]) -> None:
        if d < lo or (hi is not None and d > hi):
            self.fail("outside", d=d)

    def require_rank(self, arg: TensorArg, rank: int) -> None:
        if len(arg.dims) != rank:
            self.fail("rank", arg=arg)

    def same_dtype(self, a: Any, b: Any) -> Any:
        return a

    def tuple_fields(self, arg: Any) -> Optional[list]:
        return list(arg.fields)

    def expect_tensor(self, arg: Any) -> Any:
        return arg

    def expect_tuple(self, arg: Any, length: int) -> Any:
        return arg

    def match_other(self, param: Any, arg: Any) -> None:
        return None

    def other_result(self, t: Any, matcher: Any) -> Any:
        return t

    def tensor(self, dims: Any, dtype: Any = None, value: Any = None) -> tuple:
        return tuple(dims) if dims is not None else None

    def tuple(self, fields: Sequence[Any]) -> list:
        return list(fields)


def run_rule(op_name: str, shapes: Sequence[Any], **attrs: Any) -> Any:
    """The result dims of an operator on concrete shapes (a tuple, or a list for tuples)."""
    op = default_registry().get(op_name)
    assert op is not None
    values = {name: spec.default for name, spec in op.attrs.items() if spec.has_default}
    values.update(attrs)
    indices = INDEX_OPERANDS.get(op_name, ())
    index_vars = {var for var, cls in op.signature.dtype_requires if cls in ("index", "int")}
    integer_args = frozenset(
        i
        for i, (name, param) in enumerate(zip(op.param_names, op.signature.params))
        if name in indices or getattr(param, "dtype", None) in index_vars
    )
    return apply_operator(IntContext(op_name, shapes, values, integer_args=integer_args), op)


def rejects(op_name: str, shapes: Sequence[Any], **attrs: Any) -> bool:
    """Whether the rule fails on these concrete inputs."""
    try:
        run_rule(op_name, shapes, **attrs)
    except RuleFailure:
        return True
    return False


def numpy_shape(fn: Any, *shapes: Sequence[int]) -> Any:
    """The shape (or shapes) NumPy gives for these input shapes, None if NumPy rejects them."""
    try:
        out = fn(*(np.zeros(s) for s in shapes))
    except (ValueError, IndexError):
        return None
    if isinstance(out, (list, tuple)):
        return [tuple(o.shape) for o in out]
    return tuple(np.shape(out))


# strategies -----------------------------------------------------------------------------------
dims = st.integers(min_value=1, max_value=6)
shapes = st.lists(dims, min_size=1, max_size=4).map(tuple)


# broadcasting ---------------------------------------------------------------------------------
@SETTINGS
@given(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4))
def test_add_broadcasts_like_numpy(pair: Any) -> None:
    lhs, rhs = pair.input_shapes
    assert run_rule("add", [lhs, rhs]) == np.broadcast_shapes(lhs, rhs)


@SETTINGS
@given(shapes, shapes)
def test_add_rejects_what_numpy_rejects(lhs: tuple, rhs: tuple) -> None:
    expected = numpy_shape(np.add, lhs, rhs)
    if expected is None:
        assert rejects("add", [lhs, rhs])
    else:
        assert run_rule("add", [lhs, rhs]) == expected


@SETTINGS
@given(mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3))
def test_where_broadcasts_three_shapes(shapes3: Any) -> None:
    cond, x, y = shapes3.input_shapes
    assert run_rule("where", [cond, x, y]) == np.broadcast_shapes(cond, x, y)


# reductions -----------------------------------------------------------------------------------
@SETTINGS
@given(shapes, st.data(), st.booleans(), st.booleans())
def test_sum_matches_numpy(shape: tuple, data: Any, keepdims: bool, exclude: bool) -> None:
    axes = data.draw(
        st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape), unique_by=lambda a: a % len(shape))
    )
    chosen = {a % len(shape) for a in axes}
    if exclude and axes:
        chosen = set(range(len(shape))) - chosen
    if not axes:
        chosen = set(range(len(shape)))
    expected = np.sum(np.zeros(shape), axis=tuple(sorted(chosen)), keepdims=keepdims).shape
    assert run_rule("sum", [shape], axis=tuple(axes) or None, keepdims=keepdims, exclude=exclude) == expected


# reshape and friends ------------------------------------------------------------------------------
@SETTINGS
@given(shapes, st.data())
def test_reshape_with_one_inferred_dim_matches_numpy(shape: tuple, data: Any) -> None:
    total = int(np.prod(shape))
    parts = data.draw(
        st.lists(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]), min_size=1, max_size=3)
    )
    newshape = list(parts)
    newshape[data.draw(st.integers(0, len(newshape) - 1))] = -1
    expected = numpy_shape(lambda x: x.reshape(newshape), shape)
    if expected is None:
        assert rejects("reshape", [shape], newshape=tuple(newshape))
    else:
        assert run_rule("reshape", [shape], newshape=tuple(newshape)) == expected


@pytest.mark.parametrize(
    "shape, newshape, expected",
    [
        ((2, 3, 4), (0, -1), (2, 12)),
        ((2, 3, 4), (-2,), (2, 3, 4)),
        ((2, 3, 4), (-3, 4), (6, 4)),
        ((2, 3, 4), (-4, 1, 2, -2), (1, 2, 3, 4)),
        ((2, 3, 4), (-4, -1, 1, -3), (2, 1, 12)),
        ((2, 3, 4), (2, -4, -1, 3, 4), (2, 1, 3, 4)),
        ((6, 4), (0, -4, 2, -1), (6, 2, 2)),
    ],
)
def test_reshape_relay_codes(shape: tuple, newshape: tuple, expected: tuple) -> None:
    assert run_rule("reshape", [shape], newshape=newshape) == expected


@SETTINGS
@given(shapes, st.data())
def test_transpose_matches_numpy(shape: tuple, data: Any) -> None:
    perm = data.draw(st.permutations(range(len(shape))))
    assert run_rule("transpose", [shape], axes=tuple(perm)) == np.transpose(np.zeros(shape), perm).shape


@SETTINGS
@given(shapes, st.data(), st.integers(0, 3))
def test_expand_dims_matches_numpy(shape: tuple, data: Any, count: int) -> None:
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    expected = np.zeros(shape)
    at = axis + len(shape) + 1 if axis < 0 else axis
    for _ in range(count):
        expected = np.expand_dims(expected, at)
    assert run_rule("expand_dims", [shape], axis=axis, num_newaxis=count) == expected.shape


@SETTINGS
@given(st.lists(st.integers(1, 3), min_size=1, max_size=5).map(tuple))
def test_squeeze_all_matches_numpy(shape: tuple) -> None:
    assert run_rule("squeeze", [shape]) == np.squeeze(np.zeros(shape)).shape


@SETTINGS
@given(shapes, st.data())
def test_broadcast_to_matches_numpy(shape: tuple, data: Any) -> None:
    target = data.draw(st.lists(dims, min_size=len(shape), max_size=len(shape) + 2).map(tuple))
    expected = numpy_shape(lambda x: np.broadcast_to(x, target), shape)
    if expected is None:
        assert rejects("broadcast_to", [shape], shape=target)
    else:
        assert run_rule("broadcast_to", [shape], shape=target) == expected


# joining and splitting ------------------------------------------------------------------------
@SETTINGS
@given(shapes, st.data(), st.integers(1, 4))
def test_concatenate_matches_numpy(shape: tuple, data: Any, count: int) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    parts = []
    for _ in range(count):
        part = list(shape)
        part[axis] = data.draw(dims)
        parts.append(tuple(part))
    expected = np.concatenate([np.zeros(p) for p in parts], axis=axis).shape
    assert run_rule("concatenate", [parts], axis=axis) == expected


@SETTINGS
@given(shapes, st.data(), st.integers(1, 4))
def test_stack_matches_numpy(shape: tuple, data: Any, count: int) -> None:
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    expected = np.stack([np.zeros(shape)] * count, axis=axis).shape
    assert run_rule("stack", [[shape] * count], axis=axis) == expected


@SETTINGS
@given(shapes, st.data(), st.integers(1, 4))
def test_split_into_sections_matches_numpy(shape: tuple, data: Any, sections: int) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    expected = numpy_shape(lambda x: np.split(x, sections, axis=axis), shape)
    if expected is None:
        assert rejects("split", [shape], indices_or_sections=sections, axis=axis)
    else:
        assert run_rule("split", [shape], indices_or_sections=sections, axis=axis) == expected


@SETTINGS
@given(shapes, st.data())
def test_split_at_indices_matches_numpy(shape: tuple, data: Any) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    indices = sorted(data.draw(st.sets(st.integers(1, shape[axis]), max_size=3)))
    expected = numpy_shape(lambda x: np.split(x, indices, axis=axis), shape)
    assert run_rule("split", [shape], indices_or_sections=tuple(indices), axis=axis) == expected


@SETTINGS
@given(shapes, st.lists(st.integers(0, 3), min_size=1, max_size=5))
def test_tile_matches_numpy(shape: tuple, reps: list) -> None:
    assert run_rule("tile", [shape], reps=tuple(reps)) == np.tile(np.zeros(shape), reps).shape


@SETTINGS
@given(shapes, st.data(), st.integers(1, 4))
def test_repeat_matches_numpy(shape: tuple, data: Any, times: int) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    assert run_rule("repeat", [shape], repeats=times, axis=axis) == np.repeat(np.zeros(shape), times, axis=axis).shape


# indexing ---------------------------------------------------------------------------------------
@SETTINGS
@given(shapes, shapes, st.data())
def test_take_matches_numpy(shape: tuple, index_shape: tuple, data: Any) -> None:
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    indices = np.zeros(index_shape, dtype=np.int64)
    expected = np.take(np.zeros(shape), indices, axis=axis).shape
    assert run_rule("take", [shape, index_shape], axis=axis) == expected


slice_ends = st.one_of(st.none(), st.integers(-8, 8), st.sampled_from([2**31 - 1, -(2**31), 2**63 - 1]))


@SETTINGS
@given(shapes, st.data())
def test_strided_slice_matches_numpy(shape: tuple, data: Any) -> None:
    count = data.draw(st.integers(1, len(shape)))
    begin, end, strides = [], [], []
    for _ in range(count):
        step = data.draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        b, e = data.draw(slice_ends), data.draw(slice_ends)
        begin.append(b if b is not None else (0 if step > 0 else 2**31 - 1))
        end.append(e if e is not None else (2**31 - 1 if step > 0 else -(2**31)))
        strides.append(step)
    expected = np.zeros(shape)[tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides))].shape
    got = run_rule("strided_slice", [shape], begin=tuple(begin), end=tuple(end), strides=tuple(strides))
    assert got == expected


@SETTINGS
@given(shapes, st.data())
def test_strided_slice_with_axes_matches_numpy(shape: tuple, data: Any) -> None:
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    begin = [data.draw(st.integers(-6, 6)) for _ in axes]
    end = [data.draw(st.integers(-6, 6)) for _ in axes]
    index = [slice(None)] * len(shape)
    for a, b, e in zip(axes, begin, end):
        index[a] = slice(b, e)
    expected = np.zeros(shape)[tuple(index)].shape
    got = run_rule("strided_slice", [shape], begin=tuple(begin), end=tuple(end), axes=tuple(axes))
    assert got == expected


@SETTINGS
@given(shapes, st.data())
def test_strided_slice_in_size_mode_matches_numpy(shape: tuple, data: Any) -> None:
    begin = [data.draw(st.integers(-d, d - 1)) for d in shape]
    sizes = [data.draw(st.integers(-1, d)) for d in shape]
    index = []
    for b, n, d in zip(begin, sizes, shape):
        start = b + d if b < 0 else b
        index.append(slice(start, None if n < 0 else start + n))
    expected = np.zeros(shape)[tuple(index)].shape
    got = run_rule("strided_slice", [shape], begin=tuple(begin), end=tuple(sizes), slice_mode="size")
    assert got == expected


# convolution and pooling ------------------------------------------------------------------------
def windows(size: int, kernel: int, pad: int, stride: int, dilation: int) -> int:
    """How many placements of a dilated kernel fit a padded length (counted, not computed)."""
    span = (kernel - 1) * dilation + 1
    return len(range(0, size + pad - span + 1, stride))


@SETTINGS
@given(
    st.integers(1, 12), st.integers(1, 12), st.integers(1, 4), st.integers(0, 2), st.integers(1, 3), st.integers(1, 2)
)
def test_conv2d_counts_window_placements(h: int, w: int, k: int, pad: int, stride: int, dilation: int) -> None:
    attrs = {"padding": (pad,), "strides": (stride,), "dilation": (dilation,)}
    shape = (2, 3, h, w)
    fits = (k - 1) * dilation + 1 <= min(h, w) + 2 * pad
    if not fits:
        assert rejects("nn.conv2d", [shape, (8, 3, k, k)], **attrs)
        return
    got = run_rule("nn.conv2d", [shape, (8, 3, k, k)], **attrs)
    assert got == (2, 8, windows(h, k, 2 * pad, stride, dilation), windows(w, k, 2 * pad, stride, dilation))


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2), st.integers(1, 3))
def test_conv2d_transpose_inverts_conv2d(h: int, k: int, pad: int, stride: int) -> None:
    """A transposed convolution maps a conv's output size back to its input size (when the
    output padding restores the remainder)."""
    size = (h - 1) * stride + k - 2 * pad
    assume(size >= k and size + 2 * pad >= k)
    out = run_rule("nn.conv2d", [(1, 4, size, size), (6, 4, k, k)], padding=(pad,), strides=(stride,))
    back = run_rule("nn.conv2d_transpose", [out, (6, 4, k, k)], padding=(pad,), strides=(stride,))
    assert back == (1, 4, size, size)


# one rule, two domains: the symbolic result instantiated equals the concrete one ---------------
def symbolic_result(program: str, env_dims: dict) -> tuple:
    """Check a program over symbolic dims and evaluate @main's result dims at concrete sizes."""
    result = gradual.check(program)
    assert result.ok, [d.message for d in result.diagnostics]
    fn = result.function_type("main")
    env = {}
    for param in fn.params:
        for d in param.dims:
            for sym in d.symbols():
                env[sym] = env_dims[sym.name]
    ret = fn.ret
    fields = ret.fields if hasattr(ret, "fields") else (ret,)
    out = [tuple(d.evaluate(env) for d in f.dims) for f in fields]
    return out if hasattr(ret, "fields") else out[0]


@SETTINGS
@given(st.integers(4, 20), st.integers(4, 20), st.integers(1, 3), st.integers(0, 2), st.integers(1, 3), st.booleans())
def test_conv_and_pool_symbolic_equals_concrete(h: int, w: int, k: int, pad: int, stride: int, ceil: bool) -> None:
    program = f"""
def @main(%x: Tensor[(n, 3, h, w), float32], %k: Tensor[(8, 3, {k}, {k}), float32]) {{
  %0 = nn.conv2d(%x, %k, padding=[{pad}], strides=[{stride}]);
  nn.max_pool2d(%0, pool_size=[2, 2], strides=[2, 2], padding=[1, 1], ceil_mode={ceil})
}}
"""
    conv = run_rule("nn.conv2d", [(2, 3, h, w), (8, 3, k, k)], padding=(pad,), strides=(stride,))
    pooled = run_rule("nn.max_pool2d", [conv], pool_size=(2, 2), strides=(2, 2), padding=(1, 1), ceil_mode=ceil)
    assert symbolic_result(program, {"n": 2, "h": h, "w": w}) == pooled


@SETTINGS
@given(st.integers(1, 8), st.integers(1, 8), st.sampled_from([1, 2, 3]))
def test_split_and_reshape_symbolic_equals_concrete(b: int, s: int, heads: int) -> None:
    program = f"""
def @main(%x: Tensor[(b, s, {heads * 3 * 4}), float32]) {{
  %parts = split(%x, indices_or_sections=3, axis=2);
  %q = reshape(%parts.0, newshape=[0, 0, {heads}, -1]);
  transpose(%q, axes=[0, 2, 1, 3])
}}
"""
    parts = run_rule("split", [(b, s, heads * 12)], indices_or_sections=3, axis=2)
    q = run_rule("reshape", [parts[0]], newshape=(0, 0, heads, -1))
    expected = run_rule("transpose", [q], axes=(0, 2, 1, 3))
    assert symbolic_result(program, {"b": b, "s": s}) == expected


@SETTINGS
@given(st.integers(2, 12), st.integers(2, 12), st.integers(-2, 2), st.integers(1, 3))
def test_strided_slice_symbolic_equals_concrete(n: int, m: int, begin: int, step: int) -> None:
    end = 2**31 - 1
    program = f"""
def @main(%x: Tensor[(n, m), float32]) {{
  strided_slice(%x, begin=[{begin}, 1], end=[{end}, -1], strides=[{step}, 1])
}}
"""
    expected = run_rule("strided_slice", [(n, m)], begin=(begin, 1), end=(end, -1), strides=(step, 1))
    assert symbolic_result(program, {"n": n, "m": m}) == expected


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4))
def test_tile_concatenate_symbolic_equals_concrete(a: int, b: int, reps: int) -> None:
    program = f"""
def @main(%x: Tensor[(a, b), float32], %y: Tensor[(a, 2), float32]) {{
  %t = tile(%x, reps=[1, {reps}]);
  concatenate((%t, %y), axis=1)
}}
"""
    tiled = run_rule("tile", [(a, b)], reps=(1, reps))
    expected = run_rule("concatenate", [[tiled, (a, 2)]], axis=1)
    assert symbolic_result(program, {"a": a, "b": b}) == expected
