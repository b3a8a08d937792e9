"""Every NumPy kernel agrees with its operator's shape rule (spec §3.10), on random valid inputs.

For each operator, a generator draws inputs and attributes that satisfy the operator's
constraints; the runtime then runs the rule on them, the kernel, and the agreement check
(`run_operator`), exactly as `gradual run` does. A disagreement is an `internal-error`, a rule
rejecting valid inputs a `check-failed`: either fails the test with the operator's name.
"""

from __future__ import annotations

import os
from typing import Any

import kernel_inputs_aten  # noqa: F401  (registers the ATen operators' generators)
import kernel_inputs_onnx  # noqa: F401  (registers the ONNX operators' generators)
import kernel_inputs_onnx_models  # noqa: F401  (registers the generators of ONNX's model operators)
import kernel_inputs_relay  # noqa: F401  (registers the generators of Relay's scatter, scan, image and vision operators)
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from kernel_inputs import FLOATS, GENERATORS, INTS, Draw, any_dtype, array, generator, positive, shapes

from gradual.ops.registry import default_registry
from gradual.ops.tables import KERNELS
from gradual.runtime import kernels  # noqa: F401  (registers the kernels)
from gradual.runtime.errors import KernelFailure, RunFailure
from gradual.runtime.kernels.conv import unlayout
from gradual.runtime.operators import run_operator
from gradual.syntax.source import generated_span

SPAN = generated_span("<kernel test>")
#: examples per operator (GRADUAL_KERNEL_EXAMPLES=500 for a deep run)
EXAMPLES = int(os.environ.get("GRADUAL_KERNEL_EXAMPLES", "12"))


# elementwise ------------------------------------------------------------------------------------
@generator(
    "nn.relu",
    "negative",
    "abs",
    "exp",
    "tanh",
    "sigmoid",
    "erf",
    "floor",
    "ceil",
    "round",
    "sign",
    "copy",
    "zeros_like",
    "ones_like",
    "sin",
    "cos",
    "tan",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "trunc",
    "fast_exp",
    "fast_tanh",
    "fast_erf",
    "isnan",
    "isinf",
    "isfinite",
)
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


@generator(
    "add",
    "subtract",
    "multiply",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
)
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


@generator("reinterpret")
def _reinterpret(draw: Draw) -> tuple:
    source, target = draw(
        st.sampled_from(
            (
                ("float32", "int32"),
                ("int32", "float32"),
                ("float64", "int64"),
                ("int64", "uint64"),
                ("float16", "int16"),
                ("int8", "uint8"),
                ("float32", "float32"),
            )
        )
    )
    return [array(draw, draw(shapes()), source)], {"dtype": target}


@generator("fixed_point_multiply")
def _fixed_point_multiply(draw: Draw) -> tuple:
    data = np.asarray(array(draw, draw(shapes()), "int32") * draw(st.integers(1, 1000))).astype("int32")
    return [data], {"multiplier": draw(st.integers(1, 2**31 - 1)), "shift": draw(st.integers(-31, 8))}


@generator("annotation.checkpoint", "annotation.stop_fusion")
def _annotation(draw: Draw) -> tuple:
    value = array(draw, draw(shapes()), any_dtype(draw))
    if draw(st.booleans()):
        value = (value, (array(draw, draw(shapes())),))
    return [value], {}


@generator("annotation.compiler_begin", "annotation.compiler_end")
def _compiler_annotation(draw: Draw) -> tuple:
    (value,), _ = _annotation(draw)
    return [value], {"compiler": draw(st.sampled_from(("dnnl", "ccompiler", "test")))}


@generator("on_device")
def _on_device(draw: Draw) -> tuple:
    (value,), _ = _annotation(draw)
    return [value], {"constrain_result": draw(st.booleans()), "constrain_body": draw(st.booleans())}


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
    return [data], {"sorted": draw(st.booleans()), "return_counts": draw(st.booleans())}


@generator("topk")
def _topk(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    k = draw(st.integers(0, shape[axis]))
    return [array(draw, shape)], {
        "k": k,
        "axis": axis,
        "ret_type": draw(st.sampled_from(("both", "values", "indices"))),
        "is_ascend": draw(st.booleans()),
        "dtype": draw(st.sampled_from(INTS)),
    }


@generator("dyn.topk")
def _dyn_topk(draw: Draw) -> tuple:
    (data,), attrs = _topk(draw)
    k = np.array(attrs.pop("k"), draw(st.sampled_from(INTS))).reshape(draw(st.sampled_from(((), (1,)))))
    return [data, k], attrs


@generator("sort", "argsort")
def _sort(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape, any_dtype(draw))], {
        "axis": draw(st.integers(-len(shape), len(shape) - 1)),
        "is_ascend": draw(st.booleans()),
        "dtype": draw(st.sampled_from(INTS)),
    }


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
        "depth": depth,
        "axis": draw(st.integers(-len(shape) - 1, len(shape))),
        "dtype": draw(st.sampled_from(FLOATS + INTS)),
    }


@generator("dyn.one_hot")
def _dyn_one_hot(draw: Draw) -> tuple:
    args, attrs = _one_hot(draw)
    return args + [np.array(attrs.pop("depth"), draw(st.sampled_from(INTS)))], attrs


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
        return [array(draw, shape, dtype)], {
            "begin": begin,
            "end": end,
            "strides": strides,
            "axes": axes,
            "slice_mode": "end",
        }
    mode = draw(st.sampled_from(("end", "size")))
    if mode == "size":
        begin = [draw(st.integers(-d, d)) for d in shape[:count]]
        end = [draw(st.integers(-1, d - b if b >= 0 else -b)) for b, d in zip(begin, shape)]
    return [array(draw, shape, dtype)], {
        "begin": begin,
        "end": end,
        "strides": strides,
        "axes": None,
        "slice_mode": mode,
    }


# reductions -------------------------------------------------------------------------------------
@generator("sum", "mean", "max", "min", "prod", "argmax", "argmin")
def _reduce(draw: Draw) -> tuple:
    shape = draw(shapes())
    axis = (
        draw(
            st.none()
            | st.lists(
                st.integers(-len(shape), len(shape) - 1),
                max_size=len(shape),
                unique_by=lambda a: a % max(len(shape), 1),
            )
        )
        if shape
        else None
    )
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


@generator("contrib_reverse_reshape")
def _reverse_reshape(draw: Draw) -> tuple:
    (data,), attrs = _reshape(draw)
    codes = (
        [c for c in attrs["newshape"] if c >= -1]
        if -4 in attrs["newshape"] or -3 in attrs["newshape"]
        else attrs["newshape"]
    )
    if codes != attrs["newshape"]:
        codes = [-1]
    return [data], {"newshape": codes[::-1]}


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
    return [array(draw, shape, dtype)], {
        "axis": draw(st.integers(-len(shape) - 1, len(shape))),
        "num_newaxis": draw(st.integers(0, 2)),
    }


@generator("squeeze")
def _squeeze(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(lo=1, hi=2))
    ones = [i for i, d in enumerate(shape) if d == 1]
    axis = draw(st.none() | st.lists(st.sampled_from(ones), unique=True)) if ones else None
    return [array(draw, shape, dtype)], {"axis": axis}


@generator("dyn.squeeze")
def _dyn_squeeze(draw: Draw) -> tuple:
    (data,), attrs = _squeeze(draw)
    axes = attrs["axis"] if attrs["axis"] is not None else [i for i, d in enumerate(data.shape) if d == 1]
    return [data, np.array(axes, draw(st.sampled_from(INTS))).reshape(-1)], {}


@generator("reverse")
def _reverse(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape, dtype)], {"axis": draw(st.integers(-len(shape), len(shape) - 1))}


def _broadcast_target(draw: Draw) -> tuple:
    target = draw(shapes(lo=1))
    kept = target[len(target) - draw(st.integers(0, len(target))) :]
    source = tuple(d if draw(st.booleans()) else 1 for d in kept)
    return source, target


@generator("broadcast_to")
def _broadcast_to(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    source, target = _broadcast_target(draw)
    return [array(draw, source, dtype)], {"shape": list(target)}


@generator("broadcast_to_like")
def _broadcast_to_like(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    source, target = _broadcast_target(draw)
    return [array(draw, source, dtype), array(draw, target, dtype)], {}


@generator("collapse_sum_like")
def _collapse_sum_like(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    source, target = _broadcast_target(draw)
    return [array(draw, target, dtype), array(draw, source, dtype)], {}


@generator("slice_like")
def _slice_like(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    like = tuple(draw(st.integers(1, d)) for d in shape[: draw(st.integers(1, len(shape)))])
    axes = draw(
        st.none()
        | st.lists(
            st.integers(-len(like), len(like) - 1).map(lambda a: a % len(like)),
            min_size=1,
            max_size=len(like),
            unique=True,
        )
    )
    return [array(draw, shape, any_dtype(draw)), array(draw, like, draw(st.sampled_from(INTS)))], {"axes": axes}


@generator("cast_like")
def _cast_like(draw: Draw) -> tuple:
    like = np.zeros(
        draw(shapes(rank_hi=2)), draw(st.sampled_from(("float32", "int32", "int64", "float16", "bool", "int8")))
    )
    return [array(draw, draw(shapes()), draw(st.sampled_from(INTS + FLOATS))), like], {}


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


@generator("dyn.tile")
def _dyn_tile(draw: Draw) -> tuple:
    (data,), attrs = _tile(draw)
    return [data, np.array(attrs["reps"], draw(st.sampled_from(INTS))).reshape(-1)], {}


@generator("repeat")
def _repeat(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape, dtype)], {
        "repeats": draw(st.integers(1, 3)),
        "axis": draw(st.integers(-len(shape), len(shape) - 1)),
    }


# nn ---------------------------------------------------------------------------------------------
@generator("nn.dense")
def _dense(draw: Draw) -> tuple:
    batch, k, u = draw(shapes(rank_hi=2)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    dtype = draw(st.sampled_from(("float32", "int8")))
    out_dtype = "int32" if dtype == "int8" and draw(st.booleans()) else ""
    return [array(draw, batch + (k,), dtype), array(draw, (u, k), dtype)], {
        "units": draw(st.sampled_from((None, u))),
        "out_dtype": out_dtype,
    }


@generator("nn.matmul")
def _matmul(draw: Draw) -> tuple:
    ta, tb = draw(st.booleans()), draw(st.booleans())
    batch = draw(shapes(rank_hi=2))
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    a_shape = batch + ((k, n) if ta else (n, k)) if ta or draw(st.booleans()) else (k,)
    b_shape = (m, k) if tb else (k, m)
    return [array(draw, a_shape), array(draw, b_shape)], {
        "transpose_a": ta,
        "transpose_b": tb,
        "units": None,
        "out_dtype": "",
    }


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


@generator("nn.prelu")
def _prelu(draw: Draw) -> tuple:
    (data, alpha), attrs = _bias_add(draw)
    return [data, alpha], attrs


@generator("nn.lrn")
def _lrn(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    return [array(draw, shape)], {
        "size": draw(st.integers(1, 6)),
        "axis": draw(st.integers(-len(shape), len(shape) - 1)),
        "bias": draw(st.floats(0.5, 2)),
        "alpha": draw(st.floats(0, 1)),
        "beta": draw(st.floats(0, 1)),
    }


@generator("nn.l2_normalize")
def _l2_normalize(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axes = draw(st.none() | st.lists(st.integers(0, len(shape) - 1), unique=True))
    return [array(draw, shape)], {"eps": draw(st.sampled_from((1e-3, 1e-12))), "axis": axes}


@generator("sequence_mask")
def _sequence_mask(draw: Draw) -> tuple:
    time, batch = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    axis = draw(st.sampled_from((0, 1)))
    leading = (time, batch) if axis == 0 else (batch, time)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    lengths = rng.integers(0, time + 2, size=(batch,)).astype(draw(st.sampled_from(INTS)))
    return [array(draw, leading + draw(shapes(rank_hi=2))), lengths], {
        "mask_value": draw(st.floats(-2, 2)),
        "axis": axis,
    }


@generator("nn.cross_entropy", "nn.cross_entropy_with_logits")
def _cross_entropy(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, rank_hi=2))
    dtype = draw(st.sampled_from(FLOATS))
    return [positive(draw, shape, dtype), positive(draw, shape, dtype)], {}


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
    return [array(draw, shape)] + vectors, {
        "axis": axis,
        "epsilon": 1e-5,
        "center": draw(st.booleans()),
        "scale": draw(st.booleans()),
    }


@generator("nn.layer_norm")
def _layer_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    c = shape[axis]
    return [array(draw, shape), array(draw, (c,)), array(draw, (c,))], {
        "axis": axis,
        "epsilon": 1e-5,
        "center": draw(st.booleans()),
        "scale": draw(st.booleans()),
    }


@generator("nn.pad")
def _pad(draw: Draw) -> tuple:
    shape = draw(shapes(lo=2))
    mode = draw(st.sampled_from(("constant", "edge", "reflect")))
    low = 0 if mode != "constant" else -1
    widths = [[draw(st.integers(low, min(2, d - 1))), draw(st.integers(low, min(2, d - 1)))] for d in shape]
    return [array(draw, shape), np.array(0.5, "float32")], {"pad_width": widths, "pad_mode": mode}


SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
DATA_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC", "NCHW2c"), 3: ("NCDHW", "NDHWC")}
KERNEL_LAYOUTS = {1: ("OIW", "WIO"), 2: ("OIHW", "HWIO", "OHWI", "OIHW2o"), 3: ("OIDHW", "DHWIO")}


def _laid_out(draw: Draw, shape: tuple, canonical: str, layout: str) -> np.ndarray:
    """A random array of a canonical shape (`NCHW` order) stored in `layout` (maybe packed)."""
    return unlayout(array(draw, shape), canonical, layout)


def _packed(layout: str) -> int:
    """The factor a layout packs a dim by (1 when it packs none)."""
    digits = "".join(c for c in layout if c.isdigit())
    return int(digits) if digits else 1


def _window_attrs(draw: Draw, k: int) -> dict:
    def values(lo: int, hi: int, counts: tuple) -> list:
        return draw(st.lists(st.integers(lo, hi), min_size=1, max_size=max(counts)).filter(lambda v: len(v) in counts))

    return {"strides": values(1, 2, (1, k)), "dilation": values(1, 2, (1, k)), "padding": values(0, 2, (1, k, 2 * k))}


def _pads(padding: list, k: int) -> list:
    if len(padding) == 1:
        return [padding[0] * 2] * k
    if len(padding) == k and k != 1:
        return [2 * p for p in padding]
    return [b + a for b, a in zip(padding[:k], padding[k:])]


def _fits(size: tuple, kernel: tuple, attrs: dict) -> bool:
    k = len(size)
    dil = attrs["dilation"] * k if len(attrs["dilation"]) == 1 else attrs["dilation"]
    return all(s + p >= (kk - 1) * d + 1 for s, kk, d, p in zip(size, kernel, dil, _pads(attrs["padding"], k)))


def _conv(draw: Draw, k: int) -> tuple:
    spatial = SPATIAL[k]
    layout, kernel_layout = draw(st.sampled_from(DATA_LAYOUTS[k])), draw(st.sampled_from(KERNEL_LAYOUTS[k]))
    out_layout = draw(st.sampled_from(("",) + DATA_LAYOUTS[k]))
    groups = draw(st.sampled_from((1, 2)))
    n, sizes = draw(st.integers(1, 2)), tuple(draw(st.integers(3, 6)) for _ in spatial)
    c = groups * _packed(layout) * draw(st.integers(1, 2))
    o = groups * _packed(kernel_layout) * _packed(out_layout or layout) * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in spatial)
    attrs = _window_attrs(draw, k)
    attrs.update(groups=groups, data_layout=layout, kernel_layout=kernel_layout, out_layout=out_layout)
    if not _fits(sizes, kernel, attrs):
        attrs["padding"] = [4]
    data = _laid_out(draw, (n, c) + sizes, "NC" + spatial, layout)
    weight = _laid_out(draw, (o, c // groups) + kernel, "OI" + spatial, kernel_layout)
    return [data, weight], attrs


def _conv_transpose(draw: Draw, k: int) -> tuple:
    spatial = SPATIAL[k]
    layout = draw(st.sampled_from(DATA_LAYOUTS[k][:2]))
    groups = draw(st.sampled_from((1, 2)))
    n, sizes = draw(st.integers(1, 2)), tuple(draw(st.integers(1, 4)) for _ in spatial)
    c, og = groups * draw(st.integers(1, 2)), draw(st.integers(1, 3))
    kernel = tuple(draw(st.integers(1, 3)) for _ in spatial)
    stride = draw(st.integers(1, 2))
    attrs = {
        "strides": [stride],
        "dilation": [draw(st.integers(1, 2))],
        "padding": [draw(st.integers(0, 1))],
        "output_padding": [draw(st.integers(0, stride - 1))],
        "groups": groups,
        "data_layout": layout,
        "kernel_layout": "IO" + spatial,
        "out_layout": draw(st.sampled_from(("",) + DATA_LAYOUTS[k][:2])),
    }
    grown = [
        (s - 1) * stride + (kk - 1) * attrs["dilation"][0] + 1 + attrs["output_padding"][0]
        for s, kk in zip(sizes, kernel)
    ]
    if min(grown) - 2 * attrs["padding"][0] < 1:
        attrs["padding"] = [0]
    data = _laid_out(draw, (n, c) + sizes, "NC" + spatial, layout)
    return [data, array(draw, (c, og) + kernel)], attrs


def _pool(draw: Draw, k: int) -> tuple:
    spatial = SPATIAL[k]
    layout = draw(st.sampled_from(DATA_LAYOUTS[k]))
    n, c = draw(st.integers(1, 2)), _packed(layout) * draw(st.integers(1, 3))
    sizes = tuple(draw(st.integers(2, 6)) for _ in spatial)
    pool = draw(st.lists(st.integers(1, 3), min_size=1, max_size=k).filter(lambda v: len(v) in (1, k)))
    kernel = tuple(pool * k if len(pool) == 1 else pool)
    attrs = _window_attrs(draw, k)
    attrs["padding"] = [min(p, kernel[i % k] - 1) for i, p in enumerate(attrs["padding"])]
    if not _fits(sizes, kernel, attrs):
        attrs["dilation"], attrs["padding"] = [1], [0]
    if not _fits(sizes, kernel, attrs):
        pool = [1]
    attrs.update(
        pool_size=pool,
        layout=layout,
        ceil_mode=draw(st.booleans()),
        count_include_pad=draw(st.booleans()),
        out_layout=draw(st.sampled_from(("",) + DATA_LAYOUTS[k][:2])),
    )
    return [_laid_out(draw, (n, c) + sizes, "NC" + spatial, layout)], attrs


def _adaptive(draw: Draw, k: int) -> tuple:
    spatial = SPATIAL[k]
    layout = draw(st.sampled_from(DATA_LAYOUTS[k][:2]))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3))) + tuple(draw(st.integers(1, 5)) for _ in spatial)
    size = draw(st.none() | st.lists(st.integers(1, 4), min_size=1, max_size=k).filter(lambda v: len(v) in (1, k)))
    return [_laid_out(draw, shape, "NC" + spatial, layout)], {
        "layout": layout,
        "output_size": size,
        "out_layout": draw(st.sampled_from(("",) + DATA_LAYOUTS[k][:2])),
    }


for _k in SPATIAL:
    generator(f"nn.conv{_k}d")(lambda draw, k=_k: _conv(draw, k))
    generator(f"nn.conv{_k}d_transpose")(lambda draw, k=_k: _conv_transpose(draw, k))
    generator(f"nn.max_pool{_k}d", f"nn.avg_pool{_k}d")(lambda draw, k=_k: _pool(draw, k))
    generator(f"nn.adaptive_avg_pool{_k}d", f"nn.adaptive_max_pool{_k}d")(lambda draw, k=_k: _adaptive(draw, k))


@generator("nn.global_avg_pool2d", "nn.global_max_pool2d")
def _global_pool(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    return [array(draw, draw(shapes(rank_lo=4, rank_hi=4)))], {
        "layout": layout,
        "out_layout": draw(st.sampled_from(("", "NCHW", "NHWC"))),
    }


def _resize(draw: Draw, spatial: str) -> tuple:
    layout = draw(st.sampled_from(("NC" + spatial, "N" + spatial + "C")))
    mode = draw(
        st.sampled_from(("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn"))
    )
    rank = 2 + len(spatial)
    return [array(draw, draw(shapes(rank_lo=rank, rank_hi=rank)), draw(st.sampled_from(FLOATS + ("int8",))))], {
        "size": draw(
            st.lists(st.integers(1, 6), min_size=1, max_size=len(spatial)).filter(lambda v: len(v) in (1, len(spatial)))
        ),
        "layout": layout,
        "coordinate_transformation_mode": mode,
        "method": draw(st.sampled_from(("nearest_neighbor", "linear", "cubic"))),
    }


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
    index_shape = tuple(
        draw(st.integers(1, 4)) if i == axis % len(shape) else draw(st.integers(1, d)) for i, d in enumerate(shape)
    )
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


# layouts, blocks, sparse tensors, losses, gradients --------------------------------------------------
def _upsampling(draw: Draw, spatial: str, dynamic: bool) -> tuple:
    layout = draw(st.sampled_from(("NC" + spatial, "N" + spatial + "C")))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(2 + len(spatial)))
    scales = [draw(st.sampled_from((0.5, 1.0, 1.5, 2.0, 3.0))) for _ in spatial]
    attrs = {"layout": layout, "method": draw(st.sampled_from(("nearest_neighbor", "bilinear")))}
    if spatial == "HW":
        attrs["align_corners"] = draw(st.booleans())
    else:
        attrs["coordinate_transformation_mode"] = draw(st.sampled_from(("half_pixel", "asymmetric")))
    if dynamic:
        return [array(draw, shape)] + [np.array(v, "float32") for v in scales], attrs
    return [array(draw, shape)], dict(attrs, **{f"scale_{c.lower()}": v for c, v in zip(spatial, scales)})


for _name, _spatial in (
    ("nn.upsampling", "HW"),
    ("nn.upsampling3d", "DHW"),
    ("dyn.nn.upsampling", "HW"),
    ("dyn.nn.upsampling3d", "DHW"),
):
    GENERATORS[_name] = lambda draw, spatial=_spatial, dynamic=_name.startswith("dyn."): _upsampling(  # noqa: B008 - bound per operator
        draw, spatial, dynamic
    )


@generator("layout_transform")
def _layout_transform(draw: Draw) -> tuple:
    src, dst = draw(st.sampled_from((("NCHW", "NHWC"), ("NCHW", "NCHW2c"), ("NCHW2c", "NHWC"), ("NHWC", "NCHW"))))
    canonical = (draw(st.integers(1, 2)), 2 * draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    return [_laid_out(draw, canonical, "NCHW", src)], {"src_layout": src, "dst_layout": dst}


@generator("nn.depth_to_space", "nn.space_to_depth")
def _blocks(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    shape = tuple(draw(st.integers(1, 9)) for _ in range(4))
    return [_laid_out(draw, shape, "NCHW", layout)], {
        "block_size": draw(st.integers(1, 3)),
        "layout": layout,
        "mode": draw(st.sampled_from(("DCR", "CRD"))),
    }


@generator("matrix_set_diag")
def _matrix_set_diag(draw: Draw) -> tuple:
    batch, m, n = draw(shapes(rank_hi=2)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    k1 = draw(st.integers(-m + 1, n - 1))
    k2 = draw(st.integers(k1, n - 1)) if draw(st.booleans()) else k1
    longest = min(m + min(k2, 0), n - max(k1, 0))
    band = (k2 - k1 + 1,) if k1 != k2 else ()
    return [array(draw, batch + (m, n)), array(draw, batch + band + (longest,))], {
        "k1": k1,
        "k2": k2,
        "super_diag_right_align": draw(st.booleans()),
        "sub_diag_right_align": draw(st.booleans()),
    }


@generator("sparse_to_dense", "dyn.sparse_to_dense")
def _sparse_to_dense(draw: Draw) -> tuple:
    shape = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3))))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    count = draw(st.integers(0, int(np.prod(shape))))
    flat = rng.choice(int(np.prod(shape)), size=count, replace=False)
    indices = np.stack(np.unravel_index(flat, shape), axis=1).astype("int64")
    if len(shape) == 1 and draw(st.booleans()):
        indices = indices.reshape(-1)
    values, default = array(draw, (count,), "float32"), np.array(draw(st.floats(-2, 2)), "float32")
    return [indices, values, default], {"output_shape": list(shape)}


def _dyn_sparse_to_dense(draw: Draw) -> tuple:
    args, attrs = _sparse_to_dense(draw)
    return args + [np.array(attrs["output_shape"], "int64")], {}


GENERATORS["dyn.sparse_to_dense"] = _dyn_sparse_to_dense


@generator("sparse_reshape")
def _sparse_reshape(draw: Draw) -> tuple:
    (data,), attrs = _reshape(draw)
    if any(c < -1 or c == 0 for c in attrs["newshape"]):
        attrs["newshape"] = [-1]
    shape = data.shape
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    count = draw(st.integers(0, int(np.prod(shape))))
    flat = rng.choice(int(np.prod(shape)), size=count, replace=False)
    indices = np.stack(np.unravel_index(flat, shape), axis=1).astype("int64").reshape(count, len(shape))
    return [indices, np.array(shape, "int64"), np.array(attrs["newshape"], "int64")], {}


@generator("sparse_fill_empty_rows")
def _sparse_fill_empty_rows(draw: Draw) -> tuple:
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    count = draw(st.integers(0, rows * cols))
    flat = np.sort(rng.choice(rows * cols, size=count, replace=False))
    indices = np.stack(np.unravel_index(flat, (rows, cols)), axis=1).astype("int64").reshape(count, 2)
    return [indices, array(draw, (count,), "int64"), np.array([rows, cols], "int64"), np.array([7], "int64")], {}


@generator("unravel_index")
def _unravel_index(draw: Draw) -> tuple:
    dims = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(0, 3))))  # () is a scalar's shape
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    index_shape = draw(shapes(rank_hi=2))
    dtype = draw(st.sampled_from(INTS))
    return [rng.integers(0, int(np.prod(dims)), size=index_shape).astype(dtype), np.array(dims, dtype)], {}


@generator("dyn.strided_slice")
def _dyn_strided_slice(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    count = draw(st.integers(1, len(shape)))
    begin = [draw(st.integers(-d, d)) for d in shape[:count]]
    end = [draw(st.integers(-d, d)) for d in shape[:count]]
    strides = [draw(st.sampled_from((1, 2, -1))) for _ in range(count)]
    as_tensor = lambda v: np.array(v, draw(st.sampled_from(INTS)))  # noqa: E731
    return [array(draw, shape), as_tensor(begin), as_tensor(end), as_tensor(strides)], {}


@generator("dyn.nn.pad")
def _dyn_pad(draw: Draw) -> tuple:
    (data, value), attrs = _pad(draw)
    return [data, np.array(attrs["pad_width"], "int64").reshape(data.ndim, 2), value], {"pad_mode": attrs["pad_mode"]}


@generator("nn.nll_loss")
def _nll_loss(draw: Draw) -> tuple:
    n, c, rest = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(shapes(rank_hi=2))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    targets = rng.integers(0, c, size=(n,) + rest).astype("int32")
    return [array(draw, (n, c) + rest), targets, positive(draw, (c,))], {
        "reduction": draw(st.sampled_from(("mean", "sum", "none"))),
        "ignore_index": draw(st.sampled_from((-100, 0))),
    }


def _conv_geometry(draw: Draw) -> tuple:
    """(n, c, h, w, groups, kernel, attrs, output size) of a valid 2-D convolution."""
    groups = draw(st.sampled_from((1, 2)))
    n, c, h, w = (
        draw(st.integers(1, 2)),
        groups * draw(st.integers(1, 2)),
        draw(st.integers(2, 6)),
        draw(st.integers(2, 6)),
    )
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    attrs = {
        "strides": [draw(st.integers(1, 2))],
        "dilation": [draw(st.integers(1, 2))],
        "padding": [draw(st.integers(0, 1))],
        "groups": groups,
        "kernel_size": list(kernel),
    }
    if not _fits((h, w), kernel, attrs):
        attrs["padding"] = [4]
    s, d, p = attrs["strides"][0], attrs["dilation"][0], attrs["padding"][0]
    out = tuple((size + 2 * p - (k - 1) * d - 1) // s + 1 for size, k in zip((h, w), kernel))
    return n, c, h, w, groups, kernel, attrs, out


@generator("nn.conv2d_backward_weight")
def _conv2d_backward_weight(draw: Draw) -> tuple:
    n, c, h, w, groups, kernel, attrs, out = _conv_geometry(draw)
    o = groups * draw(st.integers(1, 2))
    attrs.update(data_layout="NCHW", kernel_layout="NCHW", out_layout="OIHW")
    return [array(draw, (n, o) + out), array(draw, (n, c, h, w))], attrs


@generator("nn.deformable_conv2d")
def _deformable_conv2d(draw: Draw) -> tuple:
    n, c, h, w, groups, kernel, attrs, out = _conv_geometry(draw)
    o, deformable = groups * draw(st.integers(1, 2)), draw(st.sampled_from([g for g in (1, 2) if c % g == 0]))
    offsets = (np.tanh(array(draw, (n, 2 * kernel[0] * kernel[1] * deformable) + out)) * 1.5).astype("float32")
    attrs.update(deformable_groups=deformable, data_layout="NCHW", kernel_layout="OIHW")
    return [array(draw, (n, c, h, w)), offsets, array(draw, (o, c // groups) + kernel)], attrs


# quantized operators ----------------------------------------------------------------------------
QUANTIZED = ("int8", "uint8")


def _scale(draw: Draw, length: int = 1) -> np.ndarray:
    values = np.asarray([draw(st.floats(0.05, 4)) for _ in range(length)], "float32")
    return values.reshape(()) if length == 1 and draw(st.booleans()) else values


def _zero_point(draw: Draw) -> np.ndarray:
    return np.asarray(draw(st.integers(-3, 3)), "int32")


def _quantized(draw: Draw, shape: tuple, dtype: str = "") -> np.ndarray:
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    dtype = dtype or draw(st.sampled_from(QUANTIZED))
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -20), min(info.max, 20) + 1, size=shape).astype(dtype)


def _per_channel(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return shape, axis, shape[axis] if draw(st.booleans()) else 1


@generator("qnn.quantize")
def _qnn_quantize(draw: Draw) -> tuple:
    shape, axis, channels = _per_channel(draw)
    return [array(draw, shape), _scale(draw, channels), _zero_point(draw)], {
        "axis": axis,
        "out_dtype": draw(st.sampled_from(QUANTIZED + ("int32",))),
    }


@generator("qnn.dequantize")
def _qnn_dequantize(draw: Draw) -> tuple:
    shape, axis, channels = _per_channel(draw)
    data = _quantized(draw, shape, draw(st.sampled_from(QUANTIZED + ("int32",))))
    return [data, _scale(draw, channels), _zero_point(draw)], {"axis": axis, "out_dtype": "float32"}


@generator("qnn.requantize")
def _qnn_requantize(draw: Draw) -> tuple:
    shape, axis, channels = _per_channel(draw)
    data = _quantized(draw, shape, draw(st.sampled_from(QUANTIZED + ("int32",))))
    return [data, _scale(draw, channels), _zero_point(draw), _scale(draw, channels), _zero_point(draw)], {
        "axis": axis,
        "out_dtype": draw(st.sampled_from(QUANTIZED)),
    }


def _with_quantization(draw: Draw, args: list, attrs: dict) -> tuple:
    """Float-op inputs turned into quantized ones, with zero points and scales after them."""
    data, weight = (_quantized(draw, a.shape) for a in args)
    return [data, weight, _zero_point(draw), _zero_point(draw), _scale(draw), _scale(draw)], dict(
        attrs, out_dtype="int32"
    )


@generator("qnn.conv2d")
def _qnn_conv2d(draw: Draw) -> tuple:
    return _with_quantization(draw, *_conv(draw, 2))


@generator("qnn.conv2d_transpose")
def _qnn_conv2d_transpose(draw: Draw) -> tuple:
    return _with_quantization(draw, *_conv_transpose(draw, 2))


@generator("qnn.dense")
def _qnn_dense(draw: Draw) -> tuple:
    return _with_quantization(draw, *_dense(draw))


@generator("qnn.batch_matmul")
def _qnn_batch_matmul(draw: Draw) -> tuple:
    return _with_quantization(draw, *_batch_matmul(draw))


@generator("qnn.add", "qnn.subtract", "qnn.mul")
def _qnn_binary(draw: Draw) -> tuple:
    lhs, rhs = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4)).input_shapes
    dtype = draw(st.sampled_from(QUANTIZED))
    params = [p for _ in range(3) for p in (_scale(draw), _zero_point(draw))]
    return [_quantized(draw, lhs, dtype), _quantized(draw, rhs, dtype)] + params, {}


@generator(
    "qnn.sqrt", "qnn.rsqrt", "qnn.exp", "qnn.erf", "qnn.sigmoid", "qnn.tanh", "qnn.log", "qnn.abs", "qnn.hardswish"
)
def _qnn_unary(draw: Draw) -> tuple:
    return [_quantized(draw, draw(shapes())), _scale(draw), _zero_point(draw), _scale(draw), _zero_point(draw)], {}


@generator("qnn.concatenate")
def _qnn_concatenate(draw: Draw) -> tuple:
    (fields,), attrs = _concatenate(draw)
    dtype = draw(st.sampled_from(QUANTIZED))
    data = tuple(_quantized(draw, f.shape, dtype) for f in fields)
    scales = tuple(_scale(draw) for _ in fields)
    points = tuple(_zero_point(draw) for _ in fields)
    return [data, scales, points, _scale(draw), _zero_point(draw)], attrs


# the properties ---------------------------------------------------------------------------------
def with_defaults(op: Any, attrs: dict) -> dict:
    """The attributes a call would have: the declared defaults, then the drawn ones."""
    values = {name: spec.default for name, spec in op.attrs.items() if spec.has_default}
    values.update(attrs)
    return values


@pytest.mark.parametrize("name", sorted(GENERATORS))
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data())
def test_kernel_agrees_with_its_rule(name: str, data: st.DataObject) -> None:
    op = default_registry().get(name)
    assert op is not None, f"{name} is not declared any more"
    args, attrs = GENERATORS[name](data.draw)
    try:
        run_operator(op, args, with_defaults(op, attrs), SPAN)
    except RunFailure as failure:
        diag = failure.diagnostic()
        raise AssertionError(
            f"{name}{tuple(a.shape if hasattr(a, 'shape') else a for a in args)} {attrs}: {diag.code}: {diag.message}"
        ) from None


#: registered operators that have no NumPy kernel, each with the reason (a program calling one
#: type-checks but does not run); every other operator needs a kernel and a generator
NO_KERNEL: dict[str, str] = {}


def test_no_kernel_lists_exactly_the_operators_without_one() -> None:
    """An operator that gains a kernel leaves NO_KERNEL; one that loses it (or is declared
    without one) must be listed there with its reason."""
    registry = default_registry()
    without = {name for name in registry.names() if name not in KERNELS}
    assert without == set(NO_KERNEL), "NO_KERNEL is out of date"
    assert all(registry.get(name) is not None for name in NO_KERNEL)


def test_every_kernel_belongs_to_a_declared_operator() -> None:
    """A kernel whose operator stdlib/ does not declare is unreachable: aten.instance_norm had a
    kernel and a rule, and torch's InstanceNorm was "unknown operator"."""
    registry = default_registry()
    assert sorted(name for name in KERNELS if registry.get(name) is None) == []


@pytest.mark.parametrize("name", default_registry().names())
def test_every_operator_has_a_kernel_and_a_generator(name: str) -> None:
    if name in NO_KERNEL:
        return
    assert name in KERNELS, f"`{name}` has no NumPy kernel (or belongs in NO_KERNEL, with the reason)"
    assert name in GENERATORS, f"`{name}` has no input generator (tests/kernel_inputs*.py)"


# a rule stops what its kernel cannot run -------------------------------------------------------
def _other_rank(array_: np.ndarray, how: int) -> np.ndarray:
    """The array as a scalar (how 0), without its first dim (1), or with a new first dim (2)."""
    if how == 0:
        return array_.reshape(-1)[:1].reshape(()) if array_.size else np.zeros((), array_.dtype)
    if how == 1:
        return np.asarray(array_[0]) if array_.ndim and array_.shape[0] else array_.reshape(-1)[:0]
    return array_[None]


#: operators whose rule still accepts some input of another rank (or length) than its kernel
#: runs: a `Tensor[*]` argument of that rank stops in the kernel (a runtime-error) instead of
#: at a check or in the rule. Each one that is fixed leaves this list. What is left is decided
#: by index values alone: a shorter tensor makes the drawn indices out of range (aten.index,
#: aten.index_select, gather_nd), a mask selects as many places as it holds
#: true values (aten.index_put).
RANK_GAPS = frozenset({})


@pytest.mark.parametrize("name", sorted(GENERATORS))
@settings(
    max_examples=max(EXAMPLES // 6, 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_a_rule_stops_what_its_kernel_cannot_run(name: str, data: st.DataObject) -> None:
    """Valid inputs with one tensor made a scalar, one dim shorter or one dim longer: the rule
    (run first at every call) either accepts them and the kernel runs, or rejects them. A
    `Tensor[*]` argument reaches every operator with any rank, and only the rule stands between
    it and the kernel."""
    op = default_registry().get(name)
    args, attrs = GENERATORS[name](data.draw)
    tensors = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    if not tensors:
        return
    args = list(args)
    at = data.draw(st.sampled_from(tensors))
    args[at] = _other_rank(args[at], data.draw(st.integers(0, 2)))
    try:
        run_operator(op, args, with_defaults(op, attrs), SPAN)
    except KernelFailure as failure:
        if name not in RANK_GAPS:
            raise AssertionError(
                f"{name}{tuple(np.shape(a) for a in args)} {attrs}: {failure.diagnostic().message}"
            ) from None
    except RunFailure:
        pass


#: dtypes an operand whose declared dtype is a dtype variable is given in turn
OTHER_DTYPES = ("float32", "float16", "int32", "int8", "uint8", "int64", "bool")


@pytest.mark.parametrize("name", sorted(GENERATORS))
@settings(
    max_examples=max(EXAMPLES // 6, 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_a_rule_stops_the_dtypes_its_kernel_cannot_run(name: str, data: st.DataObject) -> None:
    """Valid inputs with the operands of the first dtype variable given another dtype (which
    the signature's `T` allows): the checks of the call (gradual.ops.operand_dtypes, the rule)
    either accept them and the kernel runs, or reject them. A float `bitwise_and` and a bool
    `negative` checked clean and stopped in the kernel."""
    from gradual.types import DTypeVar, TensorType

    op = default_registry().get(name)
    args, attrs = GENERATORS[name](data.draw)
    params = op.signature.params
    typed = [
        i
        for i, (p, a) in enumerate(zip(params, args))
        if isinstance(p, TensorType) and isinstance(p.dtype, DTypeVar) and isinstance(a, np.ndarray)
    ]
    if not typed:
        return
    var = params[typed[0]].dtype
    dtype = data.draw(st.sampled_from(OTHER_DTYPES))
    with np.errstate(invalid="ignore"):  # NaN and infinity cast to an integer dtype: any value will do
        args = [a.astype(dtype) if i in typed and params[i].dtype == var else a for i, a in enumerate(args)]
    try:
        with np.errstate(all="ignore"):
            run_operator(op, args, with_defaults(op, attrs), SPAN)
    except KernelFailure as failure:
        shown = [(a.shape, str(a.dtype)) if isinstance(a, np.ndarray) else a for a in args]
        raise AssertionError(f"{name}{shown} {attrs} with {dtype} operands: {failure.diagnostic().message}") from None
    except RunFailure:
        pass


@pytest.mark.parametrize("name", sorted(GENERATORS))
@settings(
    max_examples=max(EXAMPLES // 6, 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_an_integer_operand_given_as_floats_is_stopped_or_runs(name: str, data: st.DataObject) -> None:
    """Valid inputs with an integer operand whose declared dtype is `?` (indices, axes, sizes)
    given as float32 (the same values): the call's checks reject it, or the kernel runs.
    `take` of float32 indices and `onnx.gather_nd`'s checked clean and stopped in the kernel,
    `onnx.stft` of a float frame_length gave a result its rule did not compute (an internal
    error; found by an outside pass; gradual.ops.operand_dtypes.INDEX_OPERANDS)."""
    from gradual.types import DTypeVar, TensorType

    op = default_registry().get(name)
    args, attrs = GENERATORS[name](data.draw)
    typed = [
        i
        for i, (p, a) in enumerate(zip(op.signature.params, args))
        if isinstance(p, TensorType)
        and not isinstance(p.dtype, DTypeVar)
        and str(p.dtype) == "?"
        and isinstance(a, np.ndarray)
        and a.dtype.kind in "iu"
    ]
    if not typed:
        return
    i = data.draw(st.sampled_from(typed))
    args = [a.astype(np.float32) if j == i else a for j, a in enumerate(args)]
    try:
        with np.errstate(all="ignore"):
            run_operator(op, args, with_defaults(op, attrs), SPAN)
    except KernelFailure as failure:
        raise AssertionError(f"{name} with float32 {op.param_names[i]}: {failure.diagnostic().message}") from None
    except RunFailure:
        pass


#: attribute values an exporter or a user may write that no operator means: per attribute kind
ODD_ATTRIBUTES = {
    "int": (-1, 0, 3, -(2**62), 2**62, 2**70),  # 3: a count that divides few sizes (groups)
    "float": (float("nan"), float("inf"), float("-inf"), -1e30, 0.0),
    "str": ("", "bogus"),
    "dtype": ("", "bogus"),
}
#: a list attribute of many entries, by its entries' kind
LONG_LISTS = {"int": [0] * 100, "float": [0.0] * 100, "str": ["x"] * 100}


def odd_attribute_values(spec: Any, old: Any) -> list:
    """Values of an attribute's kind that no operator means: out of range, not finite, unknown
    names; for a list, empty, long, one entry short or doubled, or each entry odd."""
    if not spec.is_list:
        return list(ODD_ATTRIBUTES.get(spec.kind, ())) + ([None] if spec.optional else [])
    old = list(old) if isinstance(old, (list, tuple)) else []
    values = [[], LONG_LISTS.get(spec.kind, [])] + [[v] * max(len(old), 1) for v in ODD_ATTRIBUTES.get(spec.kind, ())]
    return values + ([old + old, old[:-1]] if old else [])


@pytest.mark.parametrize("name", sorted(GENERATORS))
@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_rule_refuses_odd_attribute_values(name: str, data: st.DataObject) -> None:
    """Valid inputs with one attribute given a value of its kind that the operator does not
    mean (a negative or huge count, NaN or an infinite scale, an unknown mode, an empty list):
    the rule rejects it with a diagnostic, or the kernel runs. A rule that indexed an empty
    dilation, turned a NaN scale into an int or built a tuple of a billion outputs, or a kernel
    that looked an unknown mode up, was an internal error.

    And a value the checker accepts (its kind and domain, gradual.ops.attr_domains, then the
    rule) is one the kernel runs: 30 such values (`nn.lrn` size=-1, an upsampling method "",
    a stride of 2^70, `fixed_point_multiply` shift=-2^62) checked clean and stopped at run with
    a runtime-error. Results past the runtime's size limits are the
    exception: those stop by design, before the kernel."""
    op = default_registry().get(name)
    args, attrs = GENERATORS[name](data.draw)
    attrs = with_defaults(op, attrs)
    for attr, spec in op.attrs.items():
        for value in odd_attribute_values(spec, attrs.get(attr)):
            odd = dict(attrs, **{attr: value})
            try:
                run_operator(op, args, odd, SPAN)
            except RunFailure as failure:
                diag = failure.diagnostic()
                where = f"{name} with {attr}={str(value)[:40]}"
                assert diag.code != "internal-error", f"{where}: {diag.message}"
                if isinstance(failure, KernelFailure) and _checker_accepts(op, args, odd):
                    raise AssertionError(f"{where} checks clean but its kernel stops: {diag.message}") from None


def _checker_accepts(op: Any, args: list, attrs: dict) -> bool:
    """Whether `gradual check` accepts these attributes (gradual.ops.attr_domains) and the
    rule a result the runtime may build (within its byte, index and rank limits)."""
    from gradual.ops.attr_domains import attribute_problem
    from gradual.runtime import operators

    if any(attribute_problem(op, key, value) is not None for key, value in attrs.items()):
        return False
    try:
        expected = operators.expected_result(op, args, attrs, SPAN)
    except RunFailure:
        return False
    return (
        operators.result_bytes(expected) <= operators.tensor_byte_limit()
        and operators.result_bytes(expected, skip_zeros=True) <= operators.INDEX_LIMIT
        and operators.result_rank(expected) <= operators.RANK_LIMIT
    )


# the property's findings, pinned (each failed before its rule was mended) ------------------------
def _outcome(name: str, args: list, attrs: dict) -> str:
    op = default_registry().get(name)
    try:
        result = run_operator(op, args, with_defaults(op, attrs), SPAN)
    except KernelFailure as failure:
        return f"kernel: {failure.diagnostic().message}"
    except RunFailure:
        return "stopped by the rule"
    return f"ran: {len(result)} outputs" if isinstance(result, tuple) else f"ran: {np.shape(result)}"


F32, I64 = np.float32, np.int64


@pytest.mark.parametrize(
    "name, args, attrs, want",
    [
        # a scalar's index holds one value and leaves the scalar (the rule said scalar, the kernel gave (0,))
        ("aten.index_select", [np.array(3, F32), np.array([0], I64)], {"dim": 0}, "ran: ()"),
        ("aten.index_select", [np.array(3, F32), np.zeros((0,), I64)], {"dim": 0}, "stopped by the rule"),
        # a scale of rank 2 broadcasts into x: it must not add a dim (the kernel gave rank 5 for rank 4)
        (
            "onnx.quantize",
            [np.ones((1, 5, 1, 4), F32), np.ones((1, 1, 5, 1, 4), F32), np.zeros((0,), np.int16)],
            {"dtype": "int16", "axis": -2, "block_size": 3},
            "stopped by the rule",
        ),
        (
            "onnx.quantize",
            [np.ones((2, 4), F32), np.ones((1, 4), F32), np.zeros((0,), np.int8)],
            {"dtype": "int8", "axis": 0},
            "ran: (2, 4)",
        ),
        # a per-axis scale needs x to have that axis (a scalar x divided by zero in the kernel)
        (
            "onnx.dequantize",
            [np.array(3, np.int8), np.ones((2,), F32), np.zeros((0,), np.int8)],
            {"dtype": "float32", "axis": 0},
            "stopped by the rule",
        ),
        # a zero point shaped unlike its scale
        (
            "onnx.quantize",
            [np.ones((2, 4, 2, 2), F32), np.ones((2,), F32), np.zeros((1, 0), np.int8)],
            {"dtype": "int8", "axis": -2},
            "stopped by the rule",
        ),
        # STFT's step is a scalar (the rule crashed on an empty one), its frame length matches the window
        (
            "onnx.stft",
            [np.ones((1, 7, 2), F32), np.zeros((0,), I64), np.zeros((0,), F32), np.array(2, I64)],
            {"onesided": False},
            "stopped by the rule",
        ),
        (
            "onnx.stft",
            [np.ones((1, 6, 1), F32), np.array(1, I64), np.ones((3,), F32), np.array(2, I64)],
            {"onesided": True},
            "stopped by the rule",
        ),
        (
            "onnx.stft",
            [np.ones((1, 3, 1), F32), np.array(1, I64), np.ones((4,), F32), np.array(4, I64)],
            {"onesided": True},
            "stopped by the rule",
        ),
        (
            "onnx.stft",
            [np.ones((1, 6, 1), F32), np.array(2, I64), np.ones((4,), F32), np.array(4, I64)],
            {"onesided": True},
            "ran: (1, 2, 3, 2)",
        ),
        # one value where ONNX says so, and the (off, on) pair
        (
            "onnx.one_hot",
            [np.zeros((0, 2), I64), np.zeros((0,), I64), np.ones((2,), F32)],
            {"axis": -1},
            "stopped by the rule",
        ),
        (
            "onnx.one_hot",
            [np.zeros((3,), I64), np.array([4], I64), np.array(1, F32)],
            {"axis": -1},
            "stopped by the rule",
        ),
        ("onnx.one_hot", [np.zeros((3,), I64), np.array([4], I64), np.array([0, 1], F32)], {"axis": -1}, "ran: (3, 4)"),
        (
            "onnx.window",
            [np.zeros((0,), I64)],
            {"kind": "hann", "periodic": True, "dtype": "float32"},
            "stopped by the rule",
        ),
        # ranks the kernels index into
        (
            "onnx.affine_grid",
            [np.ones((2, 2, 3), F32), np.array(4, I64)],
            {"align_corners": True},
            "stopped by the rule",
        ),
        ("onnx.gather_nd", [np.ones((2,), F32), np.array(0, I64)], {"batch_dims": 0}, "stopped by the rule"),
        (
            "aten.col2im",
            [np.ones((1, 2, 6, 18), F32)],
            {"kernel_size": [1, 3], "dilation": [2, 1], "padding": [1, 0], "stride": [1, 1], "output_size": [4, 5]},
            "stopped by the rule",
        ),
        # torch refuses an infinity norm and a median of no elements
        ("aten.linalg_vector_norm", [np.zeros((0,), F32)], {"ord": float("inf")}, "stopped by the rule"),
        ("aten.linalg_vector_norm", [np.zeros((0,), F32)], {"ord": 2.0}, "ran: ()"),
        ("aten.median", [np.zeros((2, 0), F32)], {}, "stopped by the rule"),
        # a slice's start and end are SymInts: scalars
        ("aten.slice", [np.ones((4,), F32), np.zeros((0,), I64), ()], {"dim": 0}, "stopped by the rule"),
        # a mean that would grow the data; an output scale of no elements
        ("variance", [np.ones((1, 5), F32), np.ones((1, 1, 1), F32)], {}, "stopped by the rule"),
        ("variance", [np.ones((3, 5), F32), np.ones((3, 1), F32)], {"axis": [1]}, "ran: (3,)"),
        (
            "qnn.concatenate",
            [
                (np.ones((2, 2), np.int8),),
                (np.array(1, F32),),
                (np.array(0, np.int32),),
                np.zeros((0,), F32),
                np.array(0, np.int32),
            ],
            {"axis": 0},
            "stopped by the rule",
        ),
        # a condition longer than its axis; one sequence length per batch entry
        ("onnx.compress", [np.ones((4,), F32), np.ones((5,), bool)], {"axis": 0}, "stopped by the rule"),
        ("onnx.compress", [np.ones((4,), F32), np.ones((3,), bool)], {"axis": 0}, "ran: (3,)"),
        (
            "onnx.reverse_sequence",
            [np.ones((3, 2, 1), F32), np.array([1, 1, 1], I64)],
            {"batch_axis": 1, "time_axis": 0},
            "stopped by the rule",
        ),
        # DFT's signal has a last dim of 1 or 2 that is not the axis, and at least one point
        (
            "onnx.dft",
            [np.ones((2,), F32), np.zeros((0,), I64)],
            {"axis": 0, "inverse": True, "onesided": True},
            "stopped by the rule",
        ),
        (
            "onnx.dft",
            [np.ones((5, 4, 4, 1), F32), np.array(0, I64)],
            {"axis": -3, "inverse": False, "onesided": True},
            "stopped by the rule",
        ),
        (
            "onnx.dft",
            [np.ones((1, 4, 1), F32), np.zeros((0,), I64)],
            {"axis": 1, "inverse": False, "onesided": False},
            "ran: (1, 4, 2)",
        ),
        # Col2Im's shapes are vectors, one entry per spatial dim, and the blocks fill the columns
        ("onnx.col2im", [np.ones((2, 2, 1), F32), np.array(2, I64), np.array([2], I64)], {}, "stopped by the rule"),
        (
            "onnx.col2im",
            [np.ones((1, 2, 8), F32), np.array([3, 3], I64), np.array([1, 2], I64)],
            {},
            "stopped by the rule",
        ),
        (
            "onnx.col2im",
            [np.ones((1, 2, 6), F32), np.array([3, 3], I64), np.array([1, 2], I64)],
            {},
            "ran: (1, 1, 3, 3)",
        ),
        # MaxUnpool's indices have x's shape; x has one spatial dim per kernel dim
        (
            "onnx.max_unpool",
            [np.ones((1, 1, 2), F32), np.zeros((1, 1, 3), I64), np.zeros((0,), I64)],
            {"kernel_shape": [2]},
            "stopped by the rule",
        ),
        (
            "onnx.max_unpool",
            [np.array(1, F32), np.zeros((1, 1, 1), I64), np.zeros((0,), I64)],
            {"kernel_shape": [3]},
            "stopped by the rule",
        ),
        # RoPE's caches match the positions and the rotated half of the head
        (
            "onnx.rotary_embedding",
            [np.ones((1, 1, 12), F32), np.ones((1, 1, 2), F32), np.ones((1, 1, 2), F32), np.zeros((0,), I64)],
            {"interleaved": True, "rotary_embedding_dim": 4, "num_heads": 2},
            "ran: (1, 1, 12)",
        ),
        (
            "onnx.rotary_embedding",
            [np.ones((1, 1, 12), F32), np.ones((1, 1, 2), F32), np.ones((1, 1, 2), F32), np.array(0, I64)],
            {"interleaved": True, "rotary_embedding_dim": 4, "num_heads": 2},
            "stopped by the rule",
        ),
        # the scatters: ScatterElements' three ranks agree, ScatterND's updates are indices[:-1] + data[k:]
        (
            "onnx.scatter_elements",
            [np.ones((4,), F32), np.zeros((1, 1), I64), np.ones((1,), F32)],
            {"axis": -1},
            "stopped by the rule",
        ),
        (
            "onnx.scatter_elements",
            [np.ones((4, 2), F32), np.zeros((1, 3), I64), np.ones((1, 3), F32)],
            {"axis": 0},
            "stopped by the rule",
        ),
        (
            "onnx.scatter_elements",
            [np.ones((4, 2), F32), np.zeros((1, 2), I64), np.ones((1, 2), F32)],
            {"axis": 0},
            "ran: (4, 2)",
        ),
        (
            "onnx.scatter_nd",
            [np.ones((4, 3, 4), F32), np.zeros((2,), I64), np.ones((3, 4), F32)],
            {},
            "stopped by the rule",
        ),
        (
            "onnx.scatter_nd",
            [np.ones((4, 3, 4), F32), np.zeros((1, 2), I64), np.ones((1, 4), F32)],
            {},
            "ran: (4, 3, 4)",
        ),
        (
            "onnx.tensor_scatter",
            [np.ones((3, 4), F32), np.ones((3, 4), F32), np.array(0, I64)],
            {"axis": 1, "mode": "circular"},
            "stopped by the rule",
        ),
        # Attention's mask: at most the total sequence long (a shorter one is padded), bool or q's type
        (
            "onnx.attention",
            [
                np.ones((1, 1, 1, 1), F32),
                np.ones((1, 1, 3, 1), F32),
                np.ones((1, 1, 3, 1), F32),
                np.zeros((1, 2), F32),
                np.zeros((0,), F32),
                np.zeros((0,), F32),
                np.zeros((0,), I64),
            ],
            {"qk_matmul_output_mode": 0},
            "ran: 4 outputs",
        ),
        (
            "onnx.attention",
            [
                np.ones((1, 1, 1, 1), F32),
                np.ones((1, 1, 3, 1), F32),
                np.ones((1, 1, 3, 1), F32),
                np.zeros((1, 4), F32),
                np.zeros((0,), F32),
                np.zeros((0,), F32),
                np.zeros((0,), I64),
            ],
            {"qk_matmul_output_mode": 0},
            "stopped by the rule",
        ),
        (
            "onnx.attention",
            [
                np.ones((1, 1, 2, 2), F32),
                np.ones((1, 1, 2, 2), F32),
                np.ones((1, 1, 2, 3), F32),
                np.zeros((1, 0), I64),
                np.zeros((0,), F32),
                np.zeros((0,), F32),
                np.zeros((0,), I64),
            ],
            {"is_causal": True},
            "stopped by the rule",
        ),
    ],
)
def test_a_rule_stops_the_inputs_its_kernel_ran_wrongly(name: str, args: list, attrs: dict, want: str) -> None:
    assert _outcome(name, args, attrs) == want
