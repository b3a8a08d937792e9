"""Every NumPy kernel agrees with its operator's shape rule (SPEC 3.10), on random valid inputs.

For each operator, a generator draws inputs and attributes that satisfy the operator's
constraints; the runtime then runs the rule on them, the kernel, and the agreement check
(`run_operator`), exactly as `gradual run` does. A disagreement is an `internal-error`, a rule
rejecting valid inputs a `check-failed`: either fails the test with the operator's name.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from gradual.ops.registry import KERNELS, default_registry
from gradual.runtime import kernels  # noqa: F401  (registers the kernels)
from gradual.runtime.errors import RunFailure
from gradual.runtime.operators import run_operator
from gradual.syntax.source import generated_span

SPAN = generated_span("<kernel test>")
#: examples per operator (GRADUAL_KERNEL_EXAMPLES=500 for a deep run)
EXAMPLES = int(os.environ.get("GRADUAL_KERNEL_EXAMPLES", "12"))
FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
Draw = Callable[..., Any]
GENERATORS: dict[str, Callable[[Draw], tuple]] = {}

#: operators declared when the kernels were written; each must have a kernel and a generator
#: (operators added later are reported as skipped until their kernel is written).
KNOWN_OPERATORS = frozenset("""
abs add arange argmax argmin argwhere broadcast_to cast ceil clip concatenate copy divide
dyn.broadcast_to dyn.full dyn.ones dyn.reshape dyn.zeros equal erf exp expand_dims floor
floor_divide full full_like greater greater_equal image.resize2d less less_equal log
logical_and logical_not logical_or max maximum mean min minimum mod multiply ndarray_size
negative nn.adaptive_avg_pool2d nn.adaptive_max_pool2d nn.avg_pool2d nn.batch_flatten
nn.batch_matmul nn.batch_norm nn.bias_add nn.conv2d nn.conv2d_transpose nn.dense nn.dropout
nn.global_avg_pool2d nn.global_max_pool2d nn.layer_norm nn.leaky_relu nn.log_softmax
nn.matmul nn.max_pool2d nn.pad nn.relu nn.softmax not_equal one_hot ones ones_like power prod
repeat reshape reshape_like reverse round rsqrt shape_of sigmoid sign split sqrt squeeze stack
strided_slice subtract sum take tanh tile topk transpose unique where zeros zeros_like
sin cos tan asin acos atan sinh cosh asinh acosh atanh log2 log10 trunc fast_exp fast_tanh fast_erf
isnan isinf isfinite bitwise_not floor_mod trunc_divide trunc_mod bitwise_and bitwise_or bitwise_xor
left_shift right_shift logical_xor all any variance image.resize1d image.resize3d gather gather_nd
""".split())


def generator(*names: str) -> Callable:
    """Register an input generator for operators: `fn(draw) -> (args, attrs)`."""

    def register(fn: Callable) -> Callable:
        for name in names:
            GENERATORS[name] = fn
        return fn

    return register


# building blocks ---------------------------------------------------------------------------------
def shapes(rank_lo: int = 0, rank_hi: int = 4, lo: int = 1, hi: int = 5) -> st.SearchStrategy:
    return st.lists(st.integers(lo, hi), min_size=rank_lo, max_size=rank_hi).map(tuple)


def array(draw: Draw, shape: tuple, dtype: str = "float32") -> np.ndarray:
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if dtype == "bool":
        return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
    if np.dtype(dtype).kind in "iu":
        return np.asarray(rng.integers(-5, 6, size=shape).astype(dtype))
    return np.asarray((rng.standard_normal(shape) * 2).astype(dtype))


def any_dtype(draw: Draw) -> str:
    """Shape operators see floats and integers alike (integer vectors also carry shape values)."""
    return draw(st.sampled_from(FLOATS + INTS))


def positive(draw: Draw, shape: tuple, dtype: str = "float32") -> np.ndarray:
    return np.asarray(np.abs(array(draw, shape, dtype)) + 1)


# elementwise ------------------------------------------------------------------------------------
@generator("nn.relu", "negative", "abs", "exp", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sign",
           "copy", "zeros_like", "ones_like", "sin", "cos", "tan", "atan", "sinh", "cosh", "asinh", "trunc",
           "fast_exp", "fast_tanh", "fast_erf", "isnan", "isinf", "isfinite")
def _unary(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()), draw(st.sampled_from(FLOATS)))], {}


@generator("log", "sqrt", "rsqrt", "log2", "log10", "acosh")
def _unary_positive(draw: Draw) -> tuple:
    return [positive(draw, draw(shapes()), draw(st.sampled_from(FLOATS)))], {}


@generator("asin", "acos", "atanh")
def _unary_within_one(draw: Draw) -> tuple:
    return [np.asarray(np.tanh(array(draw, draw(shapes()), draw(st.sampled_from(FLOATS)))) * 0.9)], {}


@generator("bitwise_not")
def _unary_integer(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()), draw(st.sampled_from(INTS)))], {}


@generator("nn.leaky_relu")
def _leaky(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()))], {"alpha": draw(st.floats(0, 1))}


@generator("clip")
def _clip(draw: Draw) -> tuple:
    lo = draw(st.floats(-2, 0))
    return [array(draw, draw(shapes()))], {"a_min": lo, "a_max": lo + draw(st.floats(0, 3))}


@generator("logical_not")
def _logical_not(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()), "bool")], {}


@generator("full_like")
def _full_like(draw: Draw) -> tuple:
    return [array(draw, draw(shapes())), np.array(draw(st.floats(-3, 3)), "float32")], {}


@generator("cast")
def _cast(draw: Draw) -> tuple:
    dtype = draw(st.sampled_from(("float32", "int32", "int64", "float16", "bool", "int8")))
    return [array(draw, draw(shapes()), draw(st.sampled_from(INTS + FLOATS)))], {"dtype": dtype}


@generator("add", "subtract", "multiply", "maximum", "minimum", "equal", "not_equal", "less", "less_equal",
           "greater", "greater_equal")
def _binary(draw: Draw) -> tuple:
    lhs, rhs = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4)).input_shapes
    dtype = draw(st.sampled_from(FLOATS + INTS))
    return [array(draw, lhs, dtype), array(draw, rhs, dtype)], {}


@generator("divide", "floor_divide", "mod", "power", "floor_mod", "trunc_divide", "trunc_mod")
def _binary_nonzero(draw: Draw) -> tuple:
    lhs, rhs = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4)).input_shapes
    dtype = draw(st.sampled_from(FLOATS + INTS))
    right = np.asarray(np.abs(array(draw, rhs, dtype)) % 3 + 1).astype(dtype)
    return [array(draw, lhs, dtype), right], {}


@generator("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
def _binary_integer(draw: Draw) -> tuple:
    lhs, rhs = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4)).input_shapes
    dtype = draw(st.sampled_from(INTS))
    return [array(draw, lhs, dtype), np.asarray(np.abs(array(draw, rhs, dtype)) % 4).astype(dtype)], {}


@generator("logical_and", "logical_or", "logical_xor")
def _logical(draw: Draw) -> tuple:
    lhs, rhs = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4)).input_shapes
    return [array(draw, lhs, "bool"), array(draw, rhs, "bool")], {}


@generator("where")
def _where(draw: Draw) -> tuple:
    c, x, y = draw(mutually_broadcastable_shapes(num_shapes=3, max_dims=4, max_side=4)).input_shapes
    cond_dtype = draw(st.sampled_from(("bool", "int32", "float32")))
    return [array(draw, c, cond_dtype), array(draw, x), array(draw, y)], {}


# creation and data ------------------------------------------------------------------------------
@generator("zeros", "ones")
def _static_creation(draw: Draw) -> tuple:
    return [], {"shape": draw(shapes(lo=0)), "dtype": draw(st.sampled_from(FLOATS + INTS + ("bool",)))}


@generator("full")
def _full(draw: Draw) -> tuple:
    fill = np.array(draw(st.integers(-3, 3)), draw(st.sampled_from(FLOATS + INTS)))
    return [fill], {"shape": draw(shapes(lo=0)), "dtype": draw(st.sampled_from(("", "float32", "int64")))}


@generator("dyn.zeros", "dyn.ones")
def _dyn_creation(draw: Draw) -> tuple:
    shape = np.array(draw(shapes(rank_lo=1, lo=0)), draw(st.sampled_from(INTS)))
    return [shape], {"dtype": draw(st.sampled_from(FLOATS + INTS))}


@generator("dyn.full")
def _dyn_full(draw: Draw) -> tuple:
    shape = np.array(draw(shapes(rank_lo=1, lo=0)), "int64")
    return [np.array(2.5, "float32"), shape], {"dtype": draw(st.sampled_from(("", "float64", "int32")))}


@generator("arange")
def _arange(draw: Draw) -> tuple:
    dtype = draw(st.sampled_from(INTS + FLOATS))
    start, stop = draw(st.integers(-10, 10)), draw(st.integers(-10, 10))
    step = draw(st.sampled_from((1, 2, 3, -1, -2)))
    return [np.array(start, dtype), np.array(stop, dtype), np.array(step, dtype)], {"dtype": ""}


@generator("shape_of", "ndarray_size")
def _shape_value(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=0)))], {"dtype": draw(st.sampled_from(INTS))}


@generator("argwhere")
def _argwhere(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()), draw(st.sampled_from(("bool", "int32"))))], {}


@generator("unique")
def _unique(draw: Draw) -> tuple:
    data = np.array(draw(st.lists(st.integers(0, 4), min_size=1, max_size=8)), "int32")
    return [data], {"is_sorted": draw(st.booleans()), "return_counts": draw(st.booleans())}


@generator("topk")
def _topk(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    k = draw(st.integers(0, shape[axis]))
    return [array(draw, shape)], {"k": k, "axis": axis, "ret_type": draw(st.sampled_from(("both", "values", "indices"))),
                                  "is_ascend": draw(st.booleans()), "dtype": draw(st.sampled_from(INTS))}


@generator("take")
def _take(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    indices = np.array(draw(st.lists(st.integers(-7, 7), max_size=4)), "int32").reshape(-1)
    if draw(st.booleans()):
        indices = indices.reshape(-1, 1)
    axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    return [array(draw, shape, dtype), indices], {"axis": axis, "mode": draw(st.sampled_from(("clip", "wrap")))}


@generator("one_hot")
def _one_hot(draw: Draw) -> tuple:
    shape = draw(shapes(rank_hi=3))
    depth = draw(st.integers(0, 5))
    indices = np.asarray(np.abs(array(draw, shape, "int32")) % (depth + 1))
    return [indices, np.array(1.0, "float32"), np.array(0.0, "float32")], {
        "depth": depth, "axis": draw(st.integers(-len(shape) - 1, len(shape))), "dtype": draw(st.sampled_from(FLOATS + INTS))}


@generator("strided_slice")
def _strided_slice(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    count = draw(st.integers(1, len(shape)))
    begin = draw(st.lists(st.integers(-6, 6), min_size=count, max_size=count))
    end = draw(st.lists(st.integers(-6, 6) | st.just(2**31 - 1), min_size=count, max_size=count))
    strides = draw(st.lists(st.sampled_from((1, 2, -1, -2)), min_size=count, max_size=count))
    if draw(st.booleans()):
        axes = draw(st.permutations(range(len(shape))))[:count]
        return [array(draw, shape, dtype)], {"begin": begin, "end": end, "strides": strides, "axes": axes, "slice_mode": "end"}
    mode = draw(st.sampled_from(("end", "size")))
    if mode == "size":
        begin = [draw(st.integers(-d, d)) for d in shape[:count]]
        end = [draw(st.integers(-1, d - b if b >= 0 else -b)) for b, d in zip(begin, shape)]
    return [array(draw, shape, dtype)], {"begin": begin, "end": end, "strides": strides, "axes": None, "slice_mode": mode}


# reductions -------------------------------------------------------------------------------------
@generator("sum", "mean", "max", "min", "prod", "argmax", "argmin")
def _reduce(draw: Draw) -> tuple:
    shape = draw(shapes())
    axis = draw(st.none() | st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape), unique_by=lambda a: a % max(len(shape), 1))) if shape else None
    attrs = {"axis": axis, "keepdims": draw(st.booleans()), "exclude": draw(st.booleans())}
    return [array(draw, shape, draw(st.sampled_from(FLOATS + INTS)))], attrs


@generator("all", "any")
def _reduce_bool(draw: Draw) -> tuple:
    args, attrs = _reduce(draw)
    return [np.asarray(args[0] > 0)], attrs


@generator("variance")
def _variance(draw: Draw) -> tuple:
    (data,), attrs = _reduce(draw)
    data = data.astype(draw(st.sampled_from(FLOATS)))
    mean = np.mean(data, axis=None if not attrs["axis"] else tuple(attrs["axis"]), keepdims=True)
    if attrs["exclude"] and attrs["axis"]:
        mean = np.zeros((), data.dtype)
    attrs["unbiased"] = draw(st.booleans())
    return [data, np.asarray(mean, data.dtype)], attrs


# shape ------------------------------------------------------------------------------------------
def _factor(total: int, parts: int, draw: Draw) -> list:
    dims = []
    for _ in range(parts - 1):
        divisors = [d for d in range(1, total + 1) if total % d == 0]
        d = draw(st.sampled_from(divisors))
        dims.append(d)
        total //= d
    return dims + [total]


@generator("reshape")
def _reshape(draw: Draw, templates: tuple = ("dims", "infer", "copy", "rest", "merge", "split")) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    total = int(np.prod(shape))
    template = draw(st.sampled_from(templates))
    if template == "dims":
        newshape = _factor(total, draw(st.integers(1, 4)), draw)
    elif template == "infer":
        newshape = _factor(total, draw(st.integers(1, 3)), draw)
        newshape[draw(st.integers(0, len(newshape) - 1))] = -1
    elif template == "copy":
        newshape = [0] + ([-1] if len(shape) > 1 else [])
    elif template == "rest":
        newshape = [-2] if len(shape) < 2 else [0, -2]
    elif template == "merge" and len(shape) >= 2:
        newshape = [-3, -2]
    else:
        first = draw(st.sampled_from([d for d in range(1, shape[0] + 1) if shape[0] % d == 0]))
        newshape = [-4, first, -1, -2]
    return [array(draw, shape, dtype)], {"newshape": newshape, "allowzero": False}


@generator("dyn.reshape")
def _dyn_reshape(draw: Draw) -> tuple:
    (data,), attrs = _reshape(draw, ("dims", "infer", "copy"))  # a shape tensor's length is the rank
    return [data, np.array(attrs["newshape"], "int64")], {"allowzero": False}


@generator("reshape_like")
def _reshape_like(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    like = _factor(int(np.prod(shape)), draw(st.integers(1, 4)), draw)
    return [array(draw, shape, dtype), array(draw, tuple(like))], {}


@generator("transpose")
def _transpose(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes())
    axes = draw(st.none() | st.permutations(range(len(shape))))
    return [array(draw, shape, dtype)], {"axes": axes}


@generator("expand_dims")
def _expand_dims(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes())
    return [array(draw, shape, dtype)], {"axis": draw(st.integers(-len(shape) - 1, len(shape))), "num_newaxis": draw(st.integers(0, 2))}


@generator("squeeze")
def _squeeze(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(lo=1, hi=2))
    ones = [i for i, d in enumerate(shape) if d == 1]
    axis = draw(st.none() | st.lists(st.sampled_from(ones), unique=True)) if ones else None
    return [array(draw, shape, dtype)], {"axis": axis}


@generator("reverse")
def _reverse(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape, dtype)], {"axis": draw(st.integers(-len(shape), len(shape) - 1))}


def _broadcast_target(draw: Draw) -> tuple:
    target = draw(shapes(lo=1))
    kept = target[len(target) - draw(st.integers(0, len(target))):]
    source = tuple(d if draw(st.booleans()) else 1 for d in kept)
    return source, target


@generator("broadcast_to")
def _broadcast_to(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    source, target = _broadcast_target(draw)
    return [array(draw, source, dtype)], {"shape": list(target)}


@generator("dyn.broadcast_to")
def _dyn_broadcast_to(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    source, target = _broadcast_target(draw)
    return [array(draw, source, dtype), np.array(target, "int64")], {}


@generator("concatenate")
def _concatenate(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        piece = list(shape)
        piece[axis] = draw(st.integers(0, 4))
        parts.append(array(draw, tuple(piece), dtype))
    return [tuple(parts)], {"axis": axis}


@generator("stack")
def _stack(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes())
    parts = tuple(array(draw, shape, dtype) for _ in range(draw(st.integers(1, 3))))
    return [parts], {"axis": draw(st.integers(-len(shape) - 1, len(shape)))}


@generator("split")
def _split(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1, hi=6))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    dim = shape[axis]
    if draw(st.booleans()):
        spec: Any = draw(st.sampled_from([d for d in range(1, dim + 1) if dim % d == 0]))
    else:
        spec = sorted(draw(st.sets(st.integers(1, dim), max_size=3)))
    return [array(draw, shape, dtype)], {"indices_or_sections": spec, "axis": axis}


@generator("tile")
def _tile(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()))], {"reps": draw(st.lists(st.integers(0, 3), max_size=4))}


@generator("repeat")
def _repeat(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape, dtype)], {"repeats": draw(st.integers(1, 3)), "axis": draw(st.integers(-len(shape), len(shape) - 1))}


# nn ---------------------------------------------------------------------------------------------
@generator("nn.dense")
def _dense(draw: Draw) -> tuple:
    batch, k, u = draw(shapes(rank_hi=2)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    dtype = draw(st.sampled_from(("float32", "int8")))
    out_dtype = "int32" if dtype == "int8" and draw(st.booleans()) else ""
    return [array(draw, batch + (k,), dtype), array(draw, (u, k), dtype)], {"units": draw(st.sampled_from((None, u))), "out_dtype": out_dtype}


@generator("nn.matmul")
def _matmul(draw: Draw) -> tuple:
    ta, tb = draw(st.booleans()), draw(st.booleans())
    batch = draw(shapes(rank_hi=2))
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    a_shape = batch + ((k, n) if ta else (n, k)) if ta or draw(st.booleans()) else (k,)
    b_shape = (m, k) if tb else (k, m)
    return [array(draw, a_shape), array(draw, b_shape)], {"transpose_a": ta, "transpose_b": tb, "units": None, "out_dtype": ""}


@generator("nn.batch_matmul")
def _batch_matmul(draw: Draw) -> tuple:
    ta, tb = draw(st.booleans()), draw(st.booleans())
    b, n, k, m = (draw(st.integers(1, 4)) for _ in range(4))
    bx, by = draw(st.sampled_from(((b, b), (1, b), (b, 1))))
    x = (bx, k, n) if ta else (bx, n, k)
    y = (by, m, k) if tb else (by, k, m)
    return [array(draw, x), array(draw, y)], {"transpose_a": ta, "transpose_b": tb, "out_dtype": ""}


@generator("nn.bias_add")
def _bias_add(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return [array(draw, shape), array(draw, (shape[axis],))], {"axis": axis}


@generator("nn.softmax", "nn.log_softmax")
def _softmax(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape)], {"axis": draw(st.integers(-len(shape), len(shape) - 1))}


@generator("nn.batch_flatten")
def _batch_flatten(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(rank_lo=1)))], {}


@generator("nn.dropout")
def _dropout(draw: Draw) -> tuple:
    return [array(draw, draw(shapes()))], {"rate": 0.5}


@generator("nn.batch_norm")
def _batch_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    c = shape[axis]
    vectors = [array(draw, (c,)), array(draw, (c,)), array(draw, (c,)), positive(draw, (c,))]
    return [array(draw, shape)] + vectors, {"axis": axis, "epsilon": 1e-5, "center": draw(st.booleans()), "scale": draw(st.booleans())}


@generator("nn.layer_norm")
def _layer_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    c = shape[axis]
    return [array(draw, shape), array(draw, (c,)), array(draw, (c,))], {
        "axis": axis, "epsilon": 1e-5, "center": draw(st.booleans()), "scale": draw(st.booleans())}


@generator("nn.pad")
def _pad(draw: Draw) -> tuple:
    shape = draw(shapes(lo=2))
    mode = draw(st.sampled_from(("constant", "edge", "reflect")))
    low = 0 if mode != "constant" else -1
    widths = [[draw(st.integers(low, min(2, d - 1))), draw(st.integers(low, min(2, d - 1)))] for d in shape]
    return [array(draw, shape), np.array(0.5, "float32")], {"pad_width": widths, "pad_mode": mode}


LAYOUTS = (("NCHW", "OIHW"), ("NHWC", "HWIO"), ("NHWC", "OIHW"), ("NCHW", "OHWI"))


def _in_layout(shape: tuple, layout: str, canonical: str) -> tuple:
    by_letter = dict(zip(canonical, shape))
    return tuple(by_letter[c] for c in layout)


def _window_attrs(draw: Draw, size: tuple, kernel: tuple) -> dict:
    strides = draw(st.sampled_from(([1], [2], [1, 2], [2, 1])))
    dilation = draw(st.sampled_from(([1], [1, 1], [2], [1, 2])))
    padding = draw(st.sampled_from(([0], [1], [0, 1], [1, 0, 0, 2], [2, 1, 0, 1])))
    return {"strides": strides, "dilation": dilation, "padding": padding}


def _fits(size: tuple, kernel: tuple, attrs: dict) -> bool:
    pad = attrs["padding"] * 4 if len(attrs["padding"]) == 1 else attrs["padding"] * 2 if len(attrs["padding"]) == 2 else attrs["padding"]
    dil = attrs["dilation"] * 2 if len(attrs["dilation"]) == 1 else attrs["dilation"]
    return all(s + p0 + p1 >= (k - 1) * d + 1 for s, k, d, p0, p1 in zip(size, kernel, dil, pad[:2], pad[2:]))


@generator("nn.conv2d")
def _conv2d(draw: Draw) -> tuple:
    layout, kernel_layout = draw(st.sampled_from(LAYOUTS))
    groups = draw(st.sampled_from((1, 2)))
    n, h, w = draw(st.integers(1, 2)), draw(st.integers(3, 7)), draw(st.integers(3, 7))
    c, o = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    attrs = _window_attrs(draw, (h, w), (kh, kw))
    attrs.update(groups=groups, data_layout=layout, kernel_layout=kernel_layout, out_layout=draw(st.sampled_from(("", "NCHW", "NHWC"))))
    if not _fits((h, w), (kh, kw), attrs):
        attrs["padding"] = [4]
    data = array(draw, _in_layout((n, c, h, w), layout, "NCHW"))
    weight = array(draw, _in_layout((o, c // groups, kh, kw), kernel_layout, "OIHW"))
    return [data, weight], attrs


@generator("nn.conv2d_transpose")
def _conv2d_transpose(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    groups = draw(st.sampled_from((1, 2)))
    n, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    c, og = groups * draw(st.integers(1, 2)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = draw(st.sampled_from(([1], [2], [2, 1])))
    attrs = {"strides": strides, "dilation": draw(st.sampled_from(([1], [2]))), "padding": draw(st.sampled_from(([0], [1, 0])) ),
             "output_padding": [0] if max(strides) == 1 else draw(st.sampled_from(([0], [1, 0]))),
             "groups": groups, "data_layout": layout, "kernel_layout": "IOHW", "out_layout": draw(st.sampled_from(("", "NHWC")))}
    pads = attrs["padding"] * 4 if len(attrs["padding"]) == 1 else attrs["padding"] * 2
    dil = attrs["dilation"][0]
    if min((h - 1) * strides[0] + (kh - 1) * dil + 1 - pads[0] - pads[2],
           (w - 1) * strides[-1] + (kw - 1) * dil + 1 - pads[1] - pads[3]) < 1:
        attrs["padding"] = [0]
    data = array(draw, _in_layout((n, c, h, w), layout, "NCHW"))
    return [data, array(draw, (c, og, kh, kw))], attrs


@generator("nn.max_pool2d", "nn.avg_pool2d")
def _pool2d(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    n, c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(2, 7)), draw(st.integers(2, 7))
    pool = draw(st.sampled_from(([1], [2], [3], [2, 3])))
    attrs = _window_attrs(draw, (h, w), tuple(pool * 2 if len(pool) == 1 else pool))
    kernel = tuple(pool * 2 if len(pool) == 1 else pool)
    attrs["padding"] = [min(p, k - 1) for p, k in zip(attrs["padding"], kernel * 2)][:len(attrs["padding"])]
    if not _fits((h, w), kernel, attrs):
        attrs["dilation"], attrs["padding"] = [1], [0]
    if not _fits((h, w), kernel, attrs):
        pool = [1]
    attrs.update(pool_size=pool, layout=layout, ceil_mode=draw(st.booleans()), count_include_pad=draw(st.booleans()),
                 out_layout=draw(st.sampled_from(("", "NCHW", "NHWC"))))
    return [array(draw, _in_layout((n, c, h, w), layout, "NCHW"))], attrs


@generator("nn.global_avg_pool2d", "nn.global_max_pool2d")
def _global_pool(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    return [array(draw, draw(shapes(rank_lo=4, rank_hi=4)))], {"layout": layout, "out_layout": draw(st.sampled_from(("", "NCHW", "NHWC")))}


@generator("nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d")
def _adaptive_pool(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    size = draw(st.none() | st.lists(st.integers(1, 4), min_size=1, max_size=2))
    return [array(draw, draw(shapes(rank_lo=4, rank_hi=4)))], {"layout": layout, "output_size": size,
                                                               "out_layout": draw(st.sampled_from(("", "NHWC")))}


def _resize(draw: Draw, spatial: str) -> tuple:
    layout = draw(st.sampled_from(("NC" + spatial, "N" + spatial + "C")))
    mode = draw(st.sampled_from(("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn")))
    rank = 2 + len(spatial)
    return [array(draw, draw(shapes(rank_lo=rank, rank_hi=rank)), draw(st.sampled_from(FLOATS + ("int8",))))], {
        "size": draw(st.lists(st.integers(1, 6), min_size=1, max_size=len(spatial)).filter(lambda v: len(v) in (1, len(spatial)))),
        "layout": layout, "coordinate_transformation_mode": mode,
        "method": draw(st.sampled_from(("nearest_neighbor", "linear", "cubic")))}


@generator("image.resize1d")
def _resize1d(draw: Draw) -> tuple:
    return _resize(draw, "W")


@generator("image.resize2d")
def _resize2d(draw: Draw) -> tuple:
    return _resize(draw, "HW")


@generator("image.resize3d")
def _resize3d(draw: Draw) -> tuple:
    return _resize(draw, "DHW")


@generator("gather")
def _gather(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = tuple(draw(st.integers(1, 4)) if i == axis % len(shape) else draw(st.integers(1, d))
                        for i, d in enumerate(shape))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    indices = rng.integers(0, shape[axis], size=index_shape).astype(draw(st.sampled_from(INTS)))
    return [array(draw, shape, any_dtype(draw)), indices], {"axis": axis}


@generator("gather_nd")
def _gather_nd(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    batch = draw(st.integers(0, len(shape) - 1))
    depth = draw(st.integers(1, len(shape) - batch))
    ys = draw(shapes(rank_hi=2))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = [rng.integers(0, shape[batch + i], size=tuple(shape[:batch]) + ys) for i in range(depth)]
    indices = np.stack(rows).astype(draw(st.sampled_from(INTS))) if rows else np.zeros((0,), "int32")
    attrs = {"batch_dims": batch, "index_rank": draw(st.sampled_from((None, depth)))}
    return [array(draw, shape, any_dtype(draw)), indices], attrs


# the properties ---------------------------------------------------------------------------------
def with_defaults(op: Any, attrs: dict) -> dict:
    """The attributes a call would have: the declared defaults, then the drawn ones."""
    values = {name: spec.default for name, spec in op.attrs.items() if spec.has_default}
    values.update(attrs)
    return values


@pytest.mark.parametrize("name", sorted(GENERATORS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_kernel_agrees_with_its_rule(name: str, data: st.DataObject) -> None:
    op = default_registry().get(name)
    assert op is not None, f"{name} is not declared any more"
    args, attrs = GENERATORS[name](data.draw)
    try:
        run_operator(op, args, with_defaults(op, attrs), SPAN)
    except RunFailure as failure:
        diag = failure.diagnostic()
        raise AssertionError(f"{name}{tuple(a.shape if hasattr(a, 'shape') else a for a in args)} {attrs}: "
                             f"{diag.code}: {diag.message}") from None


@pytest.mark.parametrize("name", default_registry().names())
def test_every_operator_has_a_kernel_and_a_generator(name: str) -> None:
    if name not in KNOWN_OPERATORS:
        pytest.skip(f"`{name}` was declared after the kernels were written: it needs a kernel and a generator")
    assert name in KERNELS, f"`{name}` has no NumPy kernel"
    assert name in GENERATORS, f"`{name}` has no input generator in this test"
