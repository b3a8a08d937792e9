"""Input generators of the torch.export frontend's ATen operators (stdlib/aten.rly), drawn within
what PyTorch accepts: SymInt lists as tuples of int64 scalars, an absent optional tensor as
`()`, negative dims, zero-size dims, attributes at their bounds.

An ATen operator without attributes that means what a Relay or ONNX operator means is drawn by
that operator's generator (`ALIASES`); every other one has its own, drawing its own attributes.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from kernel_inputs import (
    FLOATS,
    GENERATORS,
    INTS,
    Draw,
    array,
    axis_in,
    conv_sizes,
    generator,
    part_sizes,
    positive,
    scalar,
    shapes,
    some_axes,
)

from gradual.ops.registry import default_registry

#: ATen operator -> the operator whose generator draws its inputs (neither takes attributes,
#: or both take the same ones)
ALIASES = {
    "aten.clone": "copy",
    "aten.matmul": "onnx.matmul",
    "aten.einsum": "onnx.einsum",
    "aten.arange": "arange",
    "aten.nonzero": "argwhere",
}


#: ATen operator -> (the operator whose generator it uses, {that operator's attribute: ATen's})
RENAMED = {"aten.cat": ("concatenate", {"axis": "dim"}), "aten.stack": ("stack", {"axis": "dim"})}


def _alias(target: str, renames: Any = None) -> Any:
    def draw_inputs(draw: Draw) -> tuple:
        args, attrs = GENERATORS[target](draw)
        return args, {(renames or {}).get(name, name): value for name, value in attrs.items()}

    draw_inputs.__doc__ = f"The inputs of `{target}`" + (f", attributes renamed {renames}." if renames else ".")
    return draw_inputs


for _name, _target in ALIASES.items():
    generator(_name)(_alias(_target))
for _name, (_target, _renames) in RENAMED.items():
    generator(_name)(_alias(_target, _renames))


def _float(draw: Draw) -> str:
    return draw(st.sampled_from(FLOATS))


def _numeric(draw: Draw) -> str:
    return draw(st.sampled_from(FLOATS + INTS))


#: a dtype of every class a declaration can name: an operand whose dtype variable is not
#: restricted is drawn in each (torch must run what the contract admits)
EVERY_DTYPE = ("float16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool")
#: every float dtype, float16 too
EVERY_FLOAT = ("float16",) + FLOATS


def _any_class(draw: Draw) -> str:
    return draw(st.sampled_from(EVERY_DTYPE))


def _any_float(draw: Draw) -> str:
    return draw(st.sampled_from(EVERY_FLOAT))


def sym_ints(values: Any) -> tuple:
    """A SymInt list: a tuple of int64 scalars."""
    return tuple(scalar(v) for v in values)


NONE = ()  # an optional tensor that is None


def _optional(draw: Draw, make: Any) -> Any:
    return make() if draw(st.booleans()) else NONE


def _floats(draw: Draw, lo: int = 0) -> np.ndarray:
    return array(draw, draw(shapes(lo=lo)), _float(draw))


# elementwise, one input --------------------------------------------------------------------------
#: every dtype class an elementwise operator's declaration may take or refuse
EVERY_DTYPE = FLOATS + INTS + ("bool", "uint8", "int8")

#: elementwise operators of one input without attributes (the rest draw their attributes below)
UNARY = (
    "relu neg abs exp log sqrt rsqrt tanh sigmoid erf floor ceil sign sin cos reciprocal silu mish hardswish"
    " hardsigmoid tan asin acos atan sinh cosh asinh acosh atanh log2 log10 log1p expm1 exp2 trunc frac erfinv"
    " selu relu6 log_sigmoid isinf isfinite isneginf isposinf signbit"
).split()


def accepted_dtypes(name: str) -> tuple:
    """The dtypes of EVERY_DTYPE that operator `name`'s declared dtype classes take (every
    class at once: a draw of one dtype for all its dtype variables)."""
    from gradual.ops.operand_dtypes import CLASSES

    classes = [cls for _, cls in default_registry().get(name).signature.dtype_requires]
    return tuple(d for d in EVERY_DTYPE if all(CLASSES[c][2](d) for c in classes))


def per_operator(*names: str) -> Any:
    """Register `fn(draw, name)` as the generator of each operator named (it draws what that
    operator's declaration takes)."""

    def register(fn: Any) -> Any:
        for name in names:
            generator(name)(functools.update_wrapper(functools.partial(fn, name=name), fn))
        return fn

    return register


def _any_dtype(draw: Draw, name: str, shape: Any = None) -> np.ndarray:
    """A tensor of each dtype class (bool, integers, floats) the operator's contract takes."""
    return array(draw, draw(shapes(lo=0)) if shape is None else shape, draw(st.sampled_from(accepted_dtypes(name))))


@per_operator(*("aten." + name for name in UNARY))
def _unary(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {}


@per_operator("aten.round")
def _round(draw: Draw, name: str) -> tuple:
    """Decimals other than 0 (torch's round.decimals) of floats only: torch refuses integers
    there, which a contract cannot say (no condition relates an attribute to a dtype)."""
    data = _any_dtype(draw, name)
    return [data], {"decimals": draw(st.sampled_from((0, 1, 2, -1))) if data.dtype.kind == "f" else 0}


@per_operator("aten.celu")
def _celu(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {"alpha": draw(st.sampled_from((1.0, 0.5, 2.0, -1.0)))}


@per_operator("aten.hardshrink", "aten.softshrink")
def _shrink(draw: Draw, name: str) -> tuple:
    negative = (-0.5,) if name == "aten.hardshrink" else ()  # softshrink's lambd is at least 0
    return [_any_dtype(draw, name)], {"lambd": draw(st.sampled_from((0.5, 0.0, 1.5) + negative))}


@per_operator("aten.threshold")
def _threshold(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {"threshold": draw(st.floats(-2, 2)), "value": draw(st.floats(-2, 2))}


@per_operator("aten.logit")
def _logit(draw: Draw, name: str) -> tuple:
    eps = draw(st.sampled_from((None, 0.0, 1e-6, 0.25)))
    return [_any_dtype(draw, name)], {} if eps is None else {"eps": eps}


@per_operator("aten.nan_to_num")
def _nan_to_num(draw: Draw, name: str) -> tuple:
    data = _any_dtype(draw, name)
    if data.dtype.kind == "f" and data.size:
        data.reshape(-1)[:3] = np.array([np.nan, np.inf, -np.inf])[: data.size]
    attrs = {k: draw(st.floats(-5, 5)) for k in ("nan", "posinf", "neginf") if draw(st.booleans())}
    return [data], attrs


@per_operator("aten.clone")
def _clone(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {}


@per_operator("aten.gelu")
def _gelu(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {"approximate": draw(st.sampled_from(("none", "tanh")))}


@per_operator("aten.leaky_relu")
def _leaky_relu(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {"negative_slope": draw(st.floats(-1, 1))}


@per_operator("aten.hardtanh")
def _hardtanh(draw: Draw, name: str) -> tuple:
    low = draw(st.floats(-3, 1))
    return [_any_dtype(draw, name)], {"min_val": low, "max_val": low + draw(st.floats(-1, 3))}


@per_operator("aten.elu")
def _elu(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {
        "alpha": draw(st.floats(-1, 2)),
        "scale": draw(st.floats(0, 2)),
        "input_scale": draw(st.floats(0, 2)),
    }


@per_operator("aten.softplus")
def _softplus(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {"beta": draw(st.floats(-2, 2)), "threshold": draw(st.floats(0, 20))}


@generator("aten.clamp")
def _clamp(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    dtype = _numeric(draw)

    def bound() -> Any:  # absent, or a tensor of a trailing part of x's shape (a scalar too)
        return _optional(draw, lambda: array(draw, tuple(shape[draw(st.integers(0, len(shape))) :]), dtype))

    low, high = bound(), bound()
    if isinstance(low, tuple) and isinstance(high, tuple):  # torch needs at least one bound
        high = array(draw, shape, dtype)
    return [array(draw, shape, dtype), low, high], {}


@per_operator("aten.logical_not", "aten.bitwise_not")
def _logical_not(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {}


@per_operator("aten.isnan")
def _isnan(draw: Draw, name: str) -> tuple:
    data = _any_dtype(draw, name)
    if data.dtype.kind == "f":
        data.reshape(-1)[:1] = np.nan
    return [data], {}


@per_operator("aten.dropout")
def _dropout(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {"p": draw(st.floats(0, 1)), "train": False}


@per_operator("aten.tril", "aten.triu")
def _triangle(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name, draw(shapes(rank_lo=2, lo=0)))], {"diagonal": draw(st.integers(-6, 6))}


@generator("aten.cumsum")
def _cumsum(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    return [array(draw, shape, _numeric(draw))], {
        "dim": axis_in(draw, max(len(shape), 1)),
        "dtype": draw(st.sampled_from(("",) + FLOATS + INTS)),
    }


DTYPES = ("",) + FLOATS + INTS + ("bool", "float16", "int8", "uint8")


@generator("aten._to_copy", "aten.zeros_like", "aten.ones_like")
def _like(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=0)), _numeric(draw))], {"dtype": draw(st.sampled_from(DTYPES))}


@generator("aten.full_like")
def _full_like(draw: Draw) -> tuple:
    args, attrs = _like(draw)
    return args, {**attrs, "fill_value": float(draw(st.integers(-3, 3)))}


# elementwise, broadcasting -----------------------------------------------------------------------
def _broadcast(draw: Draw, count: int, dtypes: tuple) -> list:
    found = draw(mutually_broadcastable_shapes(num_shapes=count, max_dims=4, min_side=0, max_side=3)).input_shapes
    return [array(draw, shape, draw(st.sampled_from(dtypes))) for shape in found]


@generator("aten.floor_divide", "aten.remainder", "aten.fmod")
def _dividing(draw: Draw) -> tuple:
    """Dividends and divisors of either sign (where the rounding differs), no divisor 0."""
    dtype = _numeric(draw)
    lhs, rhs = _broadcast(draw, 2, (dtype,))
    return [lhs, np.where(rhs == 0, -1, rhs).astype(dtype)], {}


@generator("aten.div")
def _div(draw: Draw) -> tuple:
    args, _ = _dividing(draw)
    return args, {"rounding_mode": draw(st.sampled_from((None, "floor", "trunc")))}


@generator("aten.logical_and", "aten.logical_or", "aten.logical_xor")
def _logical(draw: Draw) -> tuple:
    return _broadcast(draw, 2, EVERY_DTYPE), {}  # any dtype, each operand its own


#: elementwise operators of two broadcasting operands of one dtype, without attributes
BINARY = (
    "add sub mul pow maximum minimum eq ne lt le gt ge bitwise_and bitwise_or bitwise_xor atan2 hypot heaviside"
    " copysign logaddexp xlogy"
).split()


@per_operator(*("aten." + name for name in BINARY))
def _binary(draw: Draw, name: str) -> tuple:
    return _broadcast(draw, 2, (draw(st.sampled_from(accepted_dtypes(name))),)), {}


@per_operator("aten.bitwise_left_shift", "aten.bitwise_right_shift")
def _shift(draw: Draw, name: str) -> tuple:
    """Shifts by 0 up to the width of the narrowest drawn integer less one (torch and NumPy
    differ past it)."""
    dtype = draw(st.sampled_from(accepted_dtypes(name)))
    lhs, rhs = _broadcast(draw, 2, (dtype,))
    return [lhs, np.abs(rhs) % 7 if dtype != "bool" else rhs], {}


@generator("aten.where")
def _where(draw: Draw) -> tuple:
    dtype = draw(st.sampled_from(accepted_dtypes("aten.where")))
    condition, x, y = _broadcast(draw, 3, (dtype,))
    return [np.asarray(condition > 0), x, y], {}


@generator("aten.masked_select")
def _masked_select(draw: Draw) -> tuple:
    data, mask = _broadcast(draw, 2, (_numeric(draw),))
    return [data, np.asarray(mask > 0)], {}


@generator("aten._unique2")
def _unique2(draw: Draw) -> tuple:
    """Small integers (so values repeat) or any numeric values, of any rank, maybe empty."""
    dtype = _numeric(draw)
    shape = draw(shapes(0, 3, lo=0, hi=4))
    data = np.asarray(np.round(array(draw, shape, dtype)), dtype) if draw(st.booleans()) else array(draw, shape, dtype)
    flags = {name: draw(st.booleans()) for name in ("sorted", "return_inverse", "return_counts")}
    return [data], flags


@generator("aten.masked_scatter")
def _masked_scatter(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(lo=0)), _numeric(draw))
    tail = data.shape[draw(st.integers(0, data.ndim)) :]  # mask broadcasts into self's shape (not both ways)
    mask = array(draw, tuple(d if draw(st.booleans()) else 1 for d in tail), "float32")
    shape = data.shape
    count = int(np.prod(shape)) + draw(st.integers(0, 2))
    return [data, np.asarray(mask > 0), array(draw, (count,), str(data.dtype))], {}


@generator("aten.bincount")
def _bincount(draw: Draw) -> tuple:
    n = draw(st.integers(0, 6))
    data = np.asarray(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), np.int64)
    weights: Any = ()
    if draw(st.booleans()):
        weights = array(draw, (n,), draw(st.sampled_from(["float32", "float64", "int32"])))
    return [data, weights], {"minlength": draw(st.integers(0, 4))}


# linear algebra ----------------------------------------------------------------------------------
@generator("aten.mm")
def _mm(draw: Draw) -> tuple:
    n, k, m = (draw(st.integers(0, 4)) for _ in range(3))
    dtype = _numeric(draw)
    return [array(draw, (n, k), dtype), array(draw, (k, m), dtype)], {}


@generator("aten.bmm")
def _bmm(draw: Draw) -> tuple:
    b, n, k, m = (draw(st.integers(0, 3)) for _ in range(4))
    dtype = _numeric(draw)
    return [array(draw, (b, n, k), dtype), array(draw, (b, k, m), dtype)], {}


@generator("aten.addmm")
def _addmm(draw: Draw) -> tuple:
    n, k, m = (draw(st.integers(0, 4)) for _ in range(3))
    dtype = _float(draw)
    bias = tuple(d if draw(st.booleans()) else 1 for d in (n, m))[2 - draw(st.integers(0, 2)) :]
    return [array(draw, bias, dtype), array(draw, (n, k), dtype), array(draw, (k, m), dtype)], {
        "beta": draw(st.floats(-2, 2)),
        "alpha": draw(st.floats(-2, 2)),
    }


@generator("aten.linear")
def _linear(draw: Draw) -> tuple:
    batch, k, u = draw(shapes(rank_hi=3, lo=0)), draw(st.integers(0, 4)), draw(st.integers(0, 4))
    dtype = _float(draw)
    bias = _optional(draw, lambda: array(draw, draw(st.sampled_from(((u,), (1,), ()))), dtype))
    return [array(draw, batch + (k,), dtype), array(draw, (u, k), dtype), bias], {}


@generator("aten.t")
def _t(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(rank_hi=2, lo=0)), _numeric(draw))], {}


@generator("aten.scaled_dot_product_attention")
def _attention(draw: Draw) -> tuple:
    gqa = draw(st.booleans())
    batch = draw(shapes(rank_lo=1 if gqa else 0, rank_hi=2, lo=1, hi=3))  # gqa: heads at dim -3
    group = draw(st.integers(1, 3)) if gqa and batch else 1  # grouped query heads: dim -3 of q is a multiple of k's
    kv_batch = batch
    q_batch = batch[:-1] + (batch[-1] * group,) if batch else batch
    length, source, e, ev = (
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
    )
    dtype = _float(draw)
    q = array(draw, q_batch + (length, e), dtype)
    k, v = array(draw, kv_batch + (source, e), dtype), array(draw, kv_batch + (source, ev), dtype)
    mask_shape = tuple(d if draw(st.booleans()) else 1 for d in q_batch + (length, source))
    mask_shape = mask_shape[draw(st.integers(0, len(mask_shape))) :]
    is_causal = draw(st.booleans())
    mask = (
        NONE if is_causal else _optional(draw, lambda: array(draw, mask_shape, draw(st.sampled_from(("bool", dtype)))))
    )
    return [q, k, v, mask], {
        "dropout_p": 0.0,
        "is_causal": is_causal,
        "scale": draw(st.none() | st.floats(0.1, 2)),
        "enable_gqa": gqa,
    }


# convolution and pooling -------------------------------------------------------------------------
def _each(draw: Draw, k: int, lo: int, hi: int) -> list:
    """A per-dim list, or one value for every dim."""
    if draw(st.booleans()):
        return [draw(st.integers(lo, hi))]
    return [draw(st.integers(lo, hi)) for _ in range(k)]


def _spread(values: list, k: int) -> list:
    return values * k if len(values) == 1 else values


@generator("aten.convolution")
def _convolution(draw: Draw) -> tuple:
    k, groups, n, c, o, kernel = conv_sizes(draw)
    stride, padding, dilation = _each(draw, k, 1, 3), _each(draw, k, 0, 2), _each(draw, k, 1, 2)
    transposed = draw(st.booleans())
    spans = [(kk - 1) * d + 1 for kk, d in zip(kernel, _spread(dilation, k))]
    if transposed:
        extra = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(_spread(stride, k), _spread(dilation, k))]
        sizes = [
            max(draw(st.integers(1, 4)), -(-(2 * p - sp - e + 1) // s) + 1 if s else 1)
            for p, sp, e, s in zip(_spread(padding, k), spans, extra, _spread(stride, k))
        ]
        weight = (c, o // groups) + tuple(kernel)
    else:
        extra = [0]
        sizes = [max(draw(st.integers(1, 5)), sp - 2 * p) for sp, p in zip(spans, _spread(padding, k))]
        weight = (o, c // groups) + tuple(kernel)
    dtype = _float(draw)
    bias = _optional(draw, lambda: array(draw, (o,), dtype))
    return [array(draw, (n, c, *sizes), dtype), array(draw, weight, dtype), bias], {
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
        "transposed": transposed,
        "output_padding": extra,
        "groups": groups,
    }


def _pool_input(draw: Draw, dilated: bool) -> tuple:
    """(shape, attrs) of torch's pooling: padding at most half the kernel, windows that fit. The
    frontend reads max_pool1d/2d/3d as one operator, so kernel_size has one entry per spatial
    dim (as torch.export records an int kernel_size); the others may have one for all."""
    k = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(k)]
    padding = [draw(st.integers(0, kk // 2)) for kk in kernel]
    if len(set(padding)) == 1 and draw(st.booleans()):
        padding = padding[:1]
    dilation = _each(draw, k, 1, 2) if dilated else [1]
    stride = [] if draw(st.booleans()) else _each(draw, k, 1, 3)
    spans = [(kk - 1) * d + 1 for kk, d in zip(kernel, _spread(dilation, k))]
    sizes = [max(draw(st.integers(1, 5)), sp - 2 * p) for sp, p in zip(spans, _spread(padding, k))]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *sizes)
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding, "ceil_mode": draw(st.booleans())}
    if dilated:
        attrs["dilation"] = dilation
    return shape, attrs


@generator("aten.max_pool2d", "aten.max_pool2d_with_indices")
def _max_pool(draw: Draw) -> tuple:
    shape, attrs = _pool_input(draw, dilated=True)
    return [array(draw, shape, _numeric(draw))], attrs


@generator("aten.avg_pool2d")
def _avg_pool(draw: Draw) -> tuple:
    shape, attrs = _pool_input(draw, dilated=False)
    kernel = list(attrs["kernel_size"])
    if len(kernel) == 3:  # torch's 3-d average pool needs each unpadded dim to hold the window
        shape = tuple(shape[:-3]) + tuple(max(s, k) for s, k in zip(shape[-3:], kernel))
    return [array(draw, shape, _float(draw))], {
        **attrs,
        "count_include_pad": draw(st.booleans()),
        "divisor_override": draw(st.none() | st.integers(1, 4)),
    }


@generator("aten.adaptive_avg_pool2d")
def _adaptive_avg_pool(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=4, rank_hi=4, lo=1))
    return [array(draw, shape, _float(draw))], {"output_size": [draw(st.integers(1, 4)) for _ in range(2)]}


# normalization -----------------------------------------------------------------------------------
def _layer_norm_inputs(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    count = draw(st.integers(1, len(shape)))
    normalized = list(shape[len(shape) - count :])
    dtype = _float(draw)
    weight = _optional(draw, lambda: array(draw, tuple(normalized), dtype))
    bias = _optional(draw, lambda: array(draw, tuple(normalized), dtype))
    return [array(draw, shape, dtype), weight, bias], {
        "normalized_shape": normalized,
        "eps": draw(st.sampled_from((1e-5, 0.1))),
    }


@generator("aten.layer_norm")
def _layer_norm(draw: Draw) -> tuple:
    return _layer_norm_inputs(draw)


@generator("aten.native_layer_norm")
def _native_layer_norm(draw: Draw) -> tuple:
    return _layer_norm_inputs(draw)


def _shape_as_operand(inputs: tuple) -> tuple:
    """A norm's inputs with `normalized_shape` passed as an operand of sizes (the `_sized` forms)."""
    args, attrs = inputs
    return args + [sym_ints(attrs.pop("normalized_shape"))], attrs


@generator("aten.layer_norm_sized", "aten.native_layer_norm_sized")
def _layer_norm_sized(draw: Draw) -> tuple:
    return _shape_as_operand(_layer_norm_inputs(draw))


@generator("aten.diagonal")
def _diagonal(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, hi=4))
    dim1 = axis_in(draw, len(shape))
    dim2 = draw(st.sampled_from([a for a in range(-len(shape), len(shape)) if a % len(shape) != dim1 % len(shape)]))
    return [array(draw, shape, _numeric(draw))], {"offset": draw(st.integers(-3, 3)), "dim1": dim1, "dim2": dim2}


def _batch_norm_inputs(draw: Draw, optional_stats: bool) -> list:
    shape = draw(shapes(rank_lo=2, lo=1))
    dtype = _float(draw)
    c = shape[1]
    weight = _optional(draw, lambda: array(draw, (c,), dtype))
    bias = _optional(draw, lambda: array(draw, (c,), dtype))
    if optional_stats:
        mean = _optional(draw, lambda: array(draw, (c,), dtype))
        var = _optional(draw, lambda: positive(draw, (c,), dtype))
    else:
        mean, var = array(draw, (c,), dtype), positive(draw, (c,), dtype)
    return [array(draw, shape, dtype), weight, bias, mean, var]


@generator("aten.batch_norm")
def _batch_norm(draw: Draw) -> tuple:
    return _batch_norm_inputs(draw, optional_stats=False), {
        "training": False,
        "momentum": draw(st.floats(0, 1)),
        "eps": 1e-5,
    }


@generator("aten._native_batch_norm_legit_no_training")
def _batch_norm_stats(draw: Draw) -> tuple:
    return _batch_norm_inputs(draw, optional_stats=False), {"momentum": draw(st.floats(0, 1)), "eps": 1e-5}


@generator("aten.softmax", "aten.log_softmax")
def _softmax(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    return [array(draw, shape, _float(draw))], {"dim": axis_in(draw, max(len(shape), 1)), "half_to_float": False}


# reductions --------------------------------------------------------------------------------------
def _dims(draw: Draw, shape: tuple) -> Any:
    """A reduction's dim: None, [] (every dim), or some dims."""
    return draw(st.sampled_from((None, [], "some"))) if shape else draw(st.sampled_from((None, [])))


def _reduced(draw: Draw, nonempty: bool = False, dtypes: tuple = FLOATS + INTS) -> tuple:
    shape = draw(shapes(lo=1 if nonempty else 0))
    dim = _dims(draw, shape)
    if dim == "some":
        dim = some_axes(draw, len(shape), min_size=1)
    return array(draw, shape, draw(st.sampled_from(dtypes))), dim


@generator("aten.sum", "aten.prod")
def _sum(draw: Draw) -> tuple:
    data, dim = _reduced(draw)
    return [data], {"dim": dim, "keepdim": draw(st.booleans()), "dtype": draw(st.sampled_from(("",) + FLOATS + INTS))}


@generator("aten.mean")
def _mean(draw: Draw) -> tuple:
    data, dim = _reduced(draw, dtypes=FLOATS)
    return [data], {"dim": dim, "keepdim": draw(st.booleans()), "dtype": draw(st.sampled_from(("",) + FLOATS))}


@generator("aten.amax", "aten.amin")
def _amax(draw: Draw) -> tuple:
    data, dim = _reduced(draw, nonempty=True)
    return [data], {"dim": dim, "keepdim": draw(st.booleans())}


@generator("aten.var", "aten.std")
def _var(draw: Draw) -> tuple:
    data, dim = _reduced(draw, dtypes=FLOATS)
    return [data], {"dim": dim, "keepdim": draw(st.booleans()), "correction": float(draw(st.integers(0, 2)))}


@generator("aten.max_dim", "aten.min_dim")
def _max_dim(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    dim = axis_in(draw, max(len(shape), 1))
    if shape and shape[dim] == 0:
        shape = shape[: dim % len(shape)] + (1,) + shape[dim % len(shape) + 1 :]
    return [array(draw, shape, _numeric(draw))], {"dim": dim, "keepdim": draw(st.booleans())}


@generator("aten.argmax", "aten.argmin")
def _argmax(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    dim = draw(st.none() | st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    return [array(draw, shape, _numeric(draw))], {"dim": dim, "keepdim": draw(st.booleans())}


# shapes ------------------------------------------------------------------------------------------
def _factor(draw: Draw, total: int, parts: int) -> list:
    """`parts` sizes whose product is total (a 0 total: one of them 0)."""
    if total == 0:
        sizes = [draw(st.integers(0, 3)) for _ in range(parts)]
        sizes[draw(st.integers(0, parts - 1))] = 0
        return sizes
    sizes = []
    for _ in range(parts - 1):
        d = draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
        sizes.append(d)
        total //= d
    return sizes + [total]


@generator("aten.view")
def _view(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    total = int(np.prod(shape))
    size = _factor(draw, total, draw(st.integers(1, 4))) if draw(st.booleans()) or total else []
    if total and draw(st.booleans()):
        size[draw(st.integers(0, len(size) - 1))] = -1
    if not size and total != 1:
        size = [total]
    return [array(draw, shape, _numeric(draw)), sym_ints(size)], {}


@generator("aten.expand")
def _expand(draw: Draw) -> tuple:
    target = draw(shapes(lo=0))
    kept = target[len(target) - draw(st.integers(0, len(target))) :]
    source = tuple(d if draw(st.booleans()) else 1 for d in kept)
    offset = len(target) - len(source)
    size = [-1 if i >= offset and draw(st.booleans()) else d for i, d in enumerate(target)]
    return [array(draw, source, _numeric(draw)), sym_ints(size)], {}


@generator("aten.permute")
def _permute(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    dims = [d - len(shape) if draw(st.booleans()) else d for d in draw(st.permutations(range(len(shape))))]
    return [array(draw, shape, _numeric(draw))], {"dims": dims}


@generator("aten.transpose")
def _transpose(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    rank = max(len(shape), 1)
    return [array(draw, shape, _numeric(draw))], {"dim0": axis_in(draw, rank), "dim1": axis_in(draw, rank)}


@generator("aten.unsqueeze")
def _unsqueeze(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    return [array(draw, shape, _numeric(draw))], {"dim": draw(st.integers(-len(shape) - 1, len(shape)))}


@generator("aten.squeeze")
def _squeeze(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0, hi=2))
    dim: Any = None
    if draw(st.booleans()):
        dim = some_axes(draw, max(len(shape), 1)) if shape else draw(st.sampled_from(([], [0], [-1])))
        if dim and draw(st.booleans()):
            dim = dim[0]
    return [array(draw, shape, _numeric(draw))], {"dim": dim}


@generator("aten.flatten")
def _flatten(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    rank = max(len(shape), 1)
    start = draw(st.integers(0, rank - 1))
    end = draw(st.integers(start, rank - 1))
    negative = lambda a: a - rank if draw(st.booleans()) else a  # noqa: E731
    return [array(draw, shape, _numeric(draw))], {"start_dim": negative(start), "end_dim": negative(end)}


@generator("aten.split")
def _split(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1, hi=7))
    dim = axis_in(draw, len(shape))
    whole = shape[dim]
    if draw(st.booleans()):  # chunk: parts of ceil(dim / chunks), as many as that takes
        chunks = draw(st.integers(1, whole + 1))
        size = -(-whole // chunks)
        attrs = {"split_size": 0, "chunks": chunks, "count": -(-whole // size)}
    else:
        size = draw(st.integers(1, whole + 1))
        attrs = {"split_size": size, "chunks": 0, "count": -(-whole // size)}
    return [array(draw, shape, _numeric(draw))], {**attrs, "dim": dim}


@generator("aten.unbind")
def _unbind(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    dim = axis_in(draw, len(shape))
    return [array(draw, shape, _numeric(draw))], {"dim": dim, "count": shape[dim]}


@generator("aten.slice")
def _slice(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0, hi=6))
    bounds = []
    for _ in range(2):
        kind = draw(st.sampled_from(("none", "value", "value", "max")))
        bounds.append(NONE if kind == "none" else scalar(2**63 - 1 if kind == "max" else draw(st.integers(-8, 8))))
    return [array(draw, shape, _numeric(draw))] + bounds, {
        "dim": axis_in(draw, len(shape)),
        "step": draw(st.integers(1, 3)),
    }


@generator("aten.select")
def _select(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    dim = axis_in(draw, len(shape))
    index = scalar(draw(st.integers(-shape[dim], shape[dim] - 1)))
    return [array(draw, shape, _numeric(draw)), index], {"dim": dim}


@generator("aten.index_select")
def _index_select(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    dim = axis_in(draw, len(shape))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    index = rng.integers(0, shape[dim], size=draw(st.integers(0, 4))).astype(draw(st.sampled_from(INTS)))
    return [array(draw, shape, _numeric(draw)), index], {"dim": dim}


@generator("aten.embedding")
def _embedding(draw: Draw) -> tuple:
    rows, width = draw(st.integers(1, 5)), draw(st.integers(0, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    indices = rng.integers(0, rows, size=draw(shapes(rank_hi=3, lo=0))).astype(draw(st.sampled_from(INTS)))
    return [array(draw, (rows, width), _float(draw)), indices], {"padding_idx": draw(st.integers(-1, rows - 1))}


@generator("aten.constant_pad_nd")
def _constant_pad_nd(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    pad = []
    for d in reversed(shape[len(shape) - draw(st.integers(0, len(shape))) :]):
        low = draw(st.integers(-(d // 2), 2))
        pad += [low, draw(st.integers(-(d + min(low, 0)) if d else 0, 2))]
    return [array(draw, shape, _numeric(draw))], {"pad": pad, "value": float(draw(st.integers(-2, 2)))}


@generator("aten.repeat")
def _repeat(draw: Draw) -> tuple:
    shape = draw(shapes(rank_hi=3, lo=0))
    repeats = [draw(st.integers(0, 3)) for _ in range(len(shape) + draw(st.integers(0, 2)))]
    return [array(draw, shape, _numeric(draw))], {"repeats": repeats}


@generator("aten.pad_sized")
def _pad_sized(draw: Draw) -> tuple:
    (data,), attrs = _constant_pad_nd(draw)
    return [data, sym_ints(attrs["pad"])], {"mode": "constant", "value": attrs["value"]}


@generator("aten.repeat_sized")
def _repeat_sized(draw: Draw) -> tuple:
    (data,), attrs = _repeat(draw)
    return [data, sym_ints(attrs["repeats"])], {}


# creation and sizes ------------------------------------------------------------------------------
CREATED = FLOATS + INTS + ("bool", "float16", "uint8")


@generator("aten.zeros", "aten.ones", "aten.empty")
def _sized(draw: Draw) -> tuple:
    return [sym_ints(draw(shapes(lo=0)))], {"dtype": draw(st.sampled_from(CREATED))}


@generator("aten.full")
def _full(draw: Draw) -> tuple:
    return [sym_ints(draw(shapes(lo=0)))], {
        "fill_value": float(draw(st.integers(-3, 3))),
        "dtype": draw(st.sampled_from(CREATED)),
    }


@generator("aten.sym_size")
def _sym_size(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    return [array(draw, shape, _numeric(draw))], {"dim": axis_in(draw, len(shape))}


@generator("aten.sym_numel")
def _sym_numel(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=0)), _numeric(draw))], {}


@generator("aten.item")
def _item(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=1, hi=1)), draw(st.sampled_from(FLOATS + INTS + ("bool",))))], {}


@generator("aten.copy")
def _copy(draw: Draw) -> tuple:
    """self, and src of a trailing part of self's shape with some dims 1 (it broadcasts into
    self), in any numeric dtype (the result takes self's)."""
    shape = draw(shapes(lo=0))
    tail = shape[draw(st.integers(0, len(shape))) :]
    src_shape = tuple(1 if draw(st.booleans()) else d for d in tail)
    return [array(draw, shape, _numeric(draw)), array(draw, src_shape, _numeric(draw))], {}


@per_operator("aten.fill")
def _fill(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name), scalar(draw(st.integers(-5, 5)), _numeric(draw))], {}


@per_operator("aten.zero")
def _zero(draw: Draw, name: str) -> tuple:
    return [_any_dtype(draw, name)], {}


@generator("aten.view_as")
def _view_as(draw: Draw) -> tuple:
    """other has as many elements as self, in another shape."""
    shape = draw(shapes(lo=0))
    other = tuple(np.random.default_rng(draw(st.integers(0, 2**16))).permutation(shape)) if shape else ()
    return [array(draw, shape, _numeric(draw)), array(draw, other, _numeric(draw))], {}


@generator("aten.slice_scatter")
def _slice_scatter(draw: Draw) -> tuple:
    """src has the shape of self[start:end:step] along dim."""
    args, attrs = GENERATORS["aten.slice"](draw)
    data, start, end = args
    where = slice(None if start is NONE else int(start), None if end is NONE else int(end), attrs["step"])
    part = data[(slice(None),) * (attrs["dim"] % data.ndim) + (where,)]
    return [data, array(draw, part.shape, str(data.dtype)), start, end], attrs


@generator("aten.select_scatter")
def _select_scatter(draw: Draw) -> tuple:
    """src has self's shape without dim."""
    (data, index), attrs = GENERATORS["aten.select"](draw)
    src_shape = data.shape[: attrs["dim"] % data.ndim] + data.shape[attrs["dim"] % data.ndim + 1 :]
    return [data, array(draw, src_shape, str(data.dtype)), index], attrs


@generator("aten.unflatten")
def _unflatten(draw: Draw) -> tuple:
    """dim split into factors of its size, one of them now and then -1."""
    shape = draw(shapes(rank_lo=1, lo=0))
    dim = axis_in(draw, len(shape))
    size = shape[dim]
    first = draw(st.sampled_from([f for f in range(1, size + 1) if size % f == 0])) if size else 0
    parts = [first, size // first if first else draw(st.integers(0, 3))]
    if draw(st.booleans()) and first:
        parts[draw(st.integers(0, 1))] = -1
    return [array(draw, shape, _numeric(draw)), sym_ints(parts)], {"dim": dim}


@generator("aten.topk")
def _topk(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    dim = axis_in(draw, len(shape))
    k = draw(st.integers(0, shape[dim]))
    return [array(draw, shape, _numeric(draw))], {"k": k, "dim": dim, "largest": draw(st.booleans()), "sorted": True}


@generator("aten.upsample")
def _upsample(draw: Draw) -> tuple:
    """1 to 3 resized trailing dims (each at least 1), to output sizes or by scale factors."""
    k = draw(st.integers(1, 3))
    shape = draw(shapes(rank_lo=k + 1, rank_hi=k + 2, lo=1, hi=4))
    mode = draw(st.sampled_from(("nearest", "nearest-exact", "linear", "cubic")))
    attrs = {"mode": mode, "align_corners": mode in ("linear", "cubic") and draw(st.booleans()), "antialias": False}
    if draw(st.booleans()):
        return [array(draw, shape, _float(draw)), sym_ints([draw(st.integers(1, 6)) for _ in range(k)])], {
            **attrs,
            "scales": None,
        }
    scales = [draw(st.sampled_from((0.5, 1.0, 1.5, 2.0, 3.0))) for _ in range(k)]
    return [array(draw, shape, _float(draw)), NONE], {**attrs, "scales": scales}


# less common ATen operators ------------------------------------------------------------
def _in_range(draw: Draw, low: float, high: float, lo: int = 0) -> np.ndarray:
    """Floats strictly inside (low, high): inverse trigonometry, logit, erfinv."""
    shape = draw(shapes(lo=lo))
    dtype = _float(draw)
    unit = np.asarray(draw(st.lists(st.floats(0.01, 0.99), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    return (low + (high - low) * unit).reshape(shape).astype(dtype)


def _unary(draw: Draw) -> tuple:
    return [_floats(draw)], {}


for _name in (
    "aten.atan",
    "aten.asinh",
    "aten.sinh",
    "aten.cosh",
    "aten.tan",
    "aten.expm1",
    "aten.exp2",
    "aten.trunc",
    "aten.frac",
    "aten.selu",
    "aten.relu6",
    "aten.log_sigmoid",
    "aten.signbit",
    "aten.isfinite",
    "aten.isinf",
    "aten.isneginf",
    "aten.isposinf",
):
    generator(_name)(_unary)


@generator("aten.acos", "aten.asin", "aten.atanh", "aten.erfinv")
def _unit_interval(draw: Draw) -> tuple:
    return [_in_range(draw, -1, 1)], {}


@generator("aten.acosh")
def _acosh(draw: Draw) -> tuple:
    return [_in_range(draw, 1, 4)], {}


@generator("aten.log10", "aten.log2", "aten.log1p")
def _logarithms(draw: Draw) -> tuple:
    return [_in_range(draw, 0, 5)], {}


@generator("aten.logit")
def _logit(draw: Draw) -> tuple:
    return [_in_range(draw, 0, 1)], {"eps": draw(st.none() | st.floats(0, 0.4))}


@generator("aten.celu")
def _celu(draw: Draw) -> tuple:
    return [_floats(draw)], {"alpha": draw(st.floats(0.1, 2))}


@generator("aten.hardshrink", "aten.softshrink")
def _shrink(draw: Draw) -> tuple:
    return [_floats(draw)], {"lambd": draw(st.floats(0, 1))}


@generator("aten.threshold")
def _threshold(draw: Draw) -> tuple:
    return [_floats(draw)], {"threshold": draw(st.floats(-1, 1)), "value": draw(st.floats(-2, 2))}


@generator("aten.nan_to_num")
def _nan_to_num(draw: Draw) -> tuple:
    data = _floats(draw)
    flat = data.reshape(-1)
    for i, special in zip(range(flat.size), (np.nan, np.inf, -np.inf)):
        flat[i] = special
    bound = st.none() | st.floats(-9, 9)
    return [data], {"nan": draw(bound), "posinf": draw(bound), "neginf": draw(bound)}


@generator("aten.atan2", "aten.copysign", "aten.hypot", "aten.logaddexp", "aten.heaviside", "aten.xlogy")
def _float_pair(draw: Draw) -> tuple:
    return _broadcast(draw, 2, (_float(draw),)), {}


@generator("aten.bitwise_left_shift", "aten.bitwise_right_shift")
def _shifts(draw: Draw) -> tuple:
    dtype = draw(st.sampled_from(INTS))
    lhs, rhs = _broadcast(draw, 2, (dtype,))
    return [lhs, np.asarray(np.abs(rhs), dtype)], {}


# reductions and scans ------------------------------------------------------------------------------
def _dims_of(draw: Draw, rank: int) -> Any:
    return draw(st.none() | st.just(some_axes(draw, max(rank, 1), min_size=1)))


@generator("aten.all", "aten.any", "aten.count_nonzero")
def _logical_reduce(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    data = array(draw, shape, draw(st.sampled_from(FLOATS + INTS + ("bool",))))
    attrs: dict = {"dim": _dims_of(draw, len(shape)) if shape else None}
    if draw(st.booleans()):
        attrs["keepdim"] = draw(st.booleans())
    return [data], attrs


@generator("aten.logsumexp")
def _logsumexp(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    return [array(draw, shape, _float(draw))], {
        "dim": _dims_of(draw, len(shape)) if shape else None,
        "keepdim": draw(st.booleans()),
    }


@generator("aten.linalg_vector_norm")
def _vector_norm(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    return [array(draw, shape, _float(draw))], {
        "ord": draw(st.sampled_from((1.0, 2.0, 3.0, float("inf")))),
        "dim": _dims_of(draw, len(shape)) if shape else None,
        "keepdim": draw(st.booleans()),
    }


@per_operator("aten.cummax", "aten.cummin", "aten.logcumsumexp")
def _scan(draw: Draw, name: str) -> tuple:
    shape = draw(shapes(lo=0))
    return [_any_dtype(draw, name, shape)], {"dim": axis_in(draw, max(len(shape), 1))}


@generator("aten.cumprod")
def _cumprod(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    return [array(draw, shape, _numeric(draw))], {
        "dim": axis_in(draw, max(len(shape), 1)),
        "dtype": draw(st.sampled_from(("",) + FLOATS)),
    }


@generator("aten.median")
def _median(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=1)), _numeric(draw))], {}


@generator("aten.median_dim", "aten.mode")
def _median_dim(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    return [array(draw, shape, _numeric(draw))], {
        "dim": axis_in(draw, max(len(shape), 1)),
        "keepdim": draw(st.booleans()),
    }


@generator("aten.kthvalue")
def _kthvalue(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    dim = axis_in(draw, max(len(shape), 1))
    size = shape[dim] if shape else 1
    return [array(draw, shape, _numeric(draw))], {
        "k": draw(st.integers(1, size)),
        "dim": dim,
        "keepdim": draw(st.booleans()),
    }


@generator("aten.sort", "aten.argsort")
def _sort(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    return [array(draw, shape, _numeric(draw))], {
        "dim": axis_in(draw, max(len(shape), 1)),
        "descending": draw(st.booleans()),
        "stable": True,
    }


# shapes --------------------------------------------------------------------------------------------
@per_operator("aten.flip")
def _flip(draw: Draw, name: str) -> tuple:
    shape = draw(shapes(lo=0))
    return [_any_dtype(draw, name, shape)], {"dims": some_axes(draw, max(len(shape), 1)) if shape else []}


@per_operator("aten.roll")
def _roll(draw: Draw, name: str) -> tuple:
    shape = draw(shapes(lo=0, rank_lo=1))
    dims = some_axes(draw, len(shape))
    shifts = [draw(st.integers(-7, 7)) for _ in range(max(len(dims), 1))]
    return [_any_dtype(draw, name, shape)], {"shifts": shifts, "dims": dims}


@generator("aten.expand_as")
def _expand_as(draw: Draw) -> tuple:
    data_shape, target = (
        draw(mutually_broadcastable_shapes(num_shapes=1, max_dims=4, min_side=0, max_side=3)).input_shapes[0],
        None,
    )
    target = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))) + tuple(
        draw(st.integers(0, 3)) if d == 1 else d for d in data_shape
    )
    return [array(draw, data_shape, _numeric(draw)), array(draw, target, _float(draw))], {}


@generator("aten.as_strided_scatter")
def _as_strided_scatter(draw: Draw) -> tuple:
    """A view that reads each element once (row-major strides, spread by a factor), inside x."""
    data = array(draw, draw(shapes(rank_lo=1, lo=1, hi=6)), _numeric(draw))
    size = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 3)))]
    spread = draw(st.integers(1, 2))
    stride = [spread * int(np.prod(size[i + 1 :])) for i in range(len(size))]
    reach = sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if reach >= data.size:
        size, stride, reach = [1 for _ in size], [0 for _ in size], 0
    offset = draw(st.integers(0, data.size - 1 - reach))
    return [data, array(draw, tuple(size), str(data.dtype)), sym_ints(size)], {
        "stride": stride,
        "storage_offset": offset,
    }


@generator("aten.as_strided")
def _as_strided(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(rank_lo=1, lo=1, hi=6)), _numeric(draw))
    total = data.size
    size = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 3)))]
    stride = [draw(st.integers(0, 2)) for _ in size]
    reach = sum((n - 1) * s for n, s in zip(size, stride))
    offset = draw(st.integers(0, max(total - 1 - reach, 0))) if reach < total else 0
    if reach + offset >= total:
        stride = [0 for _ in size]
    return [data, sym_ints(size)], {"stride": stride, "storage_offset": offset}


@generator("aten.unfold")
def _unfold(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1, hi=6))
    dimension = axis_in(draw, max(len(shape), 1))
    whole = shape[dimension] if shape else 1
    return [array(draw, shape, _numeric(draw))], {
        "dimension": dimension,
        "size": draw(st.integers(0 if shape else 1, whole)),
        "step": draw(st.integers(1, 3)),
    }


@generator("aten.repeat_interleave")
def _repeat_interleave(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    dim = draw(st.none() | st.just(axis_in(draw, max(len(shape), 1)))) if shape else None
    return [array(draw, shape, _numeric(draw))], {"repeats": draw(st.integers(0, 3)), "dim": dim}


@generator("aten.diff")
def _diff(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    dim = axis_in(draw, len(shape))
    dtype = _numeric(draw)

    def side() -> Any:
        return _optional(
            draw,
            lambda: array(
                draw, tuple(draw(st.integers(0, 3)) if a == dim % len(shape) else n for a, n in enumerate(shape)), dtype
            ),
        )

    return [array(draw, shape, dtype), side(), side()], {"n": draw(st.integers(0, 3)), "dim": dim}


@generator("aten.broadcast_tensors")
def _broadcast_tensors(draw: Draw) -> tuple:
    count = draw(st.integers(1, 3))
    return [tuple(_broadcast(draw, count, (_numeric(draw),)))], {}


@generator("aten.meshgrid")
def _meshgrid(draw: Draw) -> tuple:
    dtype = _numeric(draw)
    vectors = tuple(array(draw, (draw(st.integers(0, 4)),), dtype) for _ in range(draw(st.integers(1, 3))))
    return [vectors], {"indexing": draw(st.sampled_from(("ij", "xy")))}


@generator("aten.pixel_shuffle")
def _pixel_shuffle(draw: Draw) -> tuple:
    r = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1)))) + (
        draw(st.integers(1, 2)) * r * r,
        draw(st.integers(0, 3)),
        draw(st.integers(0, 3)),
    )
    return [array(draw, shape, _numeric(draw))], {"upscale_factor": r}


@generator("aten.pixel_unshuffle")
def _pixel_unshuffle(draw: Draw) -> tuple:
    r = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1)))) + (
        draw(st.integers(1, 2)),
        draw(st.integers(0, 2)) * r,
        draw(st.integers(0, 2)) * r,
    )
    return [array(draw, shape, _numeric(draw))], {"downscale_factor": r}


@generator("aten.pad")
def _pad(draw: Draw) -> tuple:
    mode = draw(st.sampled_from(("constant", "reflect", "replicate", "circular")))
    if mode == "constant":
        shape = draw(shapes(rank_lo=1, lo=1))
        k = draw(st.integers(1, min(len(shape), 3)))
    else:  # torch pads k = 1..3 dims after one or two others (a batch, channels)
        k = draw(st.integers(1, 3))
        shape = draw(shapes(rank_lo=k + 1, rank_hi=k + 2, lo=1, hi=4))
    pads = []
    for axis in range(len(shape) - 1, len(shape) - 1 - k, -1):
        size = shape[axis]
        most = {"constant": 3, "reflect": size - 1, "replicate": 3, "circular": size}[mode]
        low = -size if mode == "constant" else 0
        pads += [draw(st.integers(max(low, -1), most)), draw(st.integers(max(low, -1), most))]
    return [array(draw, shape, _numeric(draw))], {"pad": pads, "mode": mode, "value": float(draw(st.integers(-2, 2)))}


# creation ------------------------------------------------------------------------------------------
@generator("aten.eye")
def _eye(draw: Draw) -> tuple:
    n = scalar(draw(st.integers(0, 4)))
    m = _optional(draw, lambda: scalar(draw(st.integers(0, 4))))
    return [n, m], {"dtype": draw(st.sampled_from(FLOATS + INTS + ("bool",)))}


@generator("aten.linspace")
def _linspace(draw: Draw) -> tuple:
    start, end = (scalar(draw(st.floats(-5, 5)), "float64") for _ in range(2))
    return [start, end, scalar(draw(st.integers(0, 6)))], {"dtype": draw(st.sampled_from(FLOATS))}


@generator("aten.one_hot")
def _one_hot(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    classes = draw(st.integers(1, 5))
    data = (
        np.asarray(
            draw(st.lists(st.integers(0, classes - 1), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
        )
        .reshape(shape)
        .astype(np.int64)
    )
    return [data], {"num_classes": classes if draw(st.booleans()) or data.size == 0 else -1}


# indexing ------------------------------------------------------------------------------------------
def _index_of(draw: Draw, size: int, shape: tuple) -> np.ndarray:
    count = int(np.prod(shape))
    if size == 0:
        return np.zeros(shape, np.int64)
    values = draw(st.lists(st.integers(-size, size - 1), min_size=count, max_size=count))
    return np.asarray(values, np.int64).reshape(shape)


@generator("aten.index")
def _index(draw: Draw) -> tuple:
    args, attrs = _index_args(draw)
    return args[:2], attrs


@generator("aten.index_put")
def _index_put(draw: Draw) -> tuple:
    (data, indices, _), attrs = _index_args(draw)
    picked = data[_numpy_index(data, indices, attrs["dims"])]
    values = array(draw, picked.shape[draw(st.integers(0, picked.ndim)) :], str(data.dtype))
    return [data, indices, values], {**attrs, "accumulate": draw(st.booleans())}


def _numpy_index(data: np.ndarray, indices: tuple, dims: list) -> tuple:
    from gradual.runtime.kernels.aten_nn import _index_tuple

    return _index_tuple(data, indices, dims)


def _index_args(draw: Draw) -> tuple:
    """x, a tuple of index tensors (integers of one broadcast shape, or a bool mask) and the dims
    they index."""
    mask = draw(st.booleans())
    shape = draw(shapes(rank_lo=1, lo=0 if mask else 1, hi=4))  # integer indices need a non-empty dim
    data = array(draw, shape, _any_class(draw))
    if mask:  # one mask over some dims from a start
        start = draw(st.integers(0, len(shape) - 1))
        width = draw(st.integers(1, len(shape) - start))
        mask = np.asarray(
            draw(
                st.lists(
                    st.booleans(),
                    min_size=int(np.prod(shape[start : start + width])),
                    max_size=int(np.prod(shape[start : start + width])),
                )
            )
        ).reshape(shape[start : start + width])
        return [data, (mask.astype(bool),), None], {"dims": [start]}
    dims = sorted(set(draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape)))))
    batch = draw(mutually_broadcastable_shapes(num_shapes=len(dims), max_dims=2, min_side=0, max_side=3)).input_shapes
    return [data, tuple(_index_of(draw, shape[d], b) for d, b in zip(dims, batch)), None], {"dims": dims}


@generator("aten.gather")
def _gather(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    dim = axis_in(draw, len(shape))
    index_shape = tuple(
        draw(st.integers(0, n)) if a != dim % len(shape) else draw(st.integers(0, 4)) for a, n in enumerate(shape)
    )
    index = (
        np.asarray(
            draw(
                st.lists(
                    st.integers(0, shape[dim] - 1),
                    min_size=int(np.prod(index_shape)),
                    max_size=int(np.prod(index_shape)),
                )
            )
        )
        .reshape(index_shape)
        .astype(np.int64)
    )
    return [array(draw, shape, _any_class(draw)), index], {"dim": dim}


@generator("aten.scatter")
def _scatter(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    dim = axis_in(draw, len(shape))
    index_shape = tuple(draw(st.integers(0, n)) for n in shape)
    index = (
        np.asarray(
            draw(
                st.lists(
                    st.integers(0, shape[dim] - 1),
                    min_size=int(np.prod(index_shape)),
                    max_size=int(np.prod(index_shape)),
                )
            )
        )
        .reshape(index_shape)
        .astype(np.int64)
    )
    dtype = _numeric(draw)
    src_shape = tuple(n + draw(st.integers(0, 1)) for n in index_shape)
    reduce = draw(st.sampled_from(("none", "sum", "prod", "mean", "amax", "amin")))
    return [array(draw, shape, dtype), index, array(draw, src_shape, dtype)], {
        "dim": dim,
        "reduce": reduce,
        "include_self": draw(st.booleans()) if reduce != "none" else True,
    }


@generator("aten.index_add")
def _index_add(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    dim = axis_in(draw, len(shape))
    count = draw(st.integers(0, 4))
    index = np.asarray(draw(st.lists(st.integers(0, shape[dim] - 1), min_size=count, max_size=count)), np.int64)
    source_shape = tuple(count if a == dim % len(shape) else n for a, n in enumerate(shape))
    dtype = _float(draw)
    return [array(draw, shape, dtype), index, array(draw, source_shape, dtype)], {
        "dim": dim,
        "alpha": draw(st.floats(-2, 2)),
    }


def _indices(draw: Draw, lo: int, hi: int, count: int, unique: bool = False) -> np.ndarray:
    """count int64 indices in lo..hi (distinct where `unique`: a write to one place twice is
    nondeterministic in torch)."""
    if hi < lo:
        return np.zeros((0,), np.int64)
    values = draw(st.lists(st.integers(lo, hi), min_size=count, max_size=count, unique=unique))
    return np.asarray(values, np.int64)


@generator("aten.index_copy")
def _index_copy(draw: Draw) -> tuple:
    """Distinct indices (a repeated one keeps either slice)."""
    return _index_write(draw, unique=True)


@generator("aten.index_reduce")
def _index_reduce(draw: Draw) -> tuple:
    """Indices that may repeat (each reduces there)."""
    return _index_write(draw, unique=False)


def _index_write(draw: Draw, unique: bool) -> tuple:
    shape = draw(shapes(rank_hi=3, lo=1))
    rank = len(shape)
    dim = axis_in(draw, max(rank, 1))
    size = shape[dim] if rank else 1
    count = draw(st.integers(0, size if unique else 4))
    index = _indices(draw, 0, size - 1, count, unique)
    source_shape = tuple(count if a == dim % rank else n for a, n in enumerate(shape)) if rank else ()
    if not rank and count != 1:
        index = np.zeros((1,), np.int64)
    dtype = _any_class(draw) if unique else _numeric(draw)  # index_reduce: numbers only
    args = [array(draw, shape, dtype), index, array(draw, source_shape, dtype)]
    if unique:
        return args, {"dim": dim}
    reduce = draw(st.sampled_from(("prod", "mean", "amax", "amin")))
    return args, {"dim": dim, "reduce": reduce, "include_self": draw(st.booleans())}


@generator("aten.index_fill")
def _index_fill(draw: Draw) -> tuple:
    shape = draw(shapes(rank_hi=3, lo=0))
    # not uint8: torch refuses a fill value the dtype cannot hold (-1.5), which gradual wraps as
    # NumPy casts; a contract cannot relate a value to a dtype's range (see full_like's gap)
    dtype = draw(st.sampled_from([d for d in EVERY_DTYPE if d != "uint8"]))
    dim = axis_in(draw, max(len(shape), 1))
    size = shape[dim] if shape else 1
    index = _indices(draw, -size, size - 1, draw(st.integers(0, 3)))
    if draw(st.booleans()) and index.size:
        index = index[:1].reshape(())
    value = np.asarray(draw(st.sampled_from((-1.5, 0.0, 2.0, 3))), "float32" if draw(st.booleans()) else "int64")
    return [array(draw, shape, dtype), index, value], {"dim": dim}


@generator("aten.take")
def _take(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(rank_hi=3, lo=0)), _any_class(draw))
    index_shape = draw(shapes(rank_hi=2, lo=0, hi=3)) if data.size else (0,)
    index = _indices(draw, -data.size, data.size - 1, int(np.prod(index_shape))).reshape(index_shape)
    return [data, index], {}


@generator("aten.take_along_dim")
def _take_along_dim(draw: Draw) -> tuple:
    """x and indices broadcast off dim (either side may be 1); negative indices wrap."""
    shape = draw(shapes(rank_lo=1, rank_hi=3, lo=1))
    dim = axis_in(draw, len(shape))
    axis = dim % len(shape)
    index_shape = tuple(
        draw(st.integers(0, 3)) if a == axis else draw(st.sampled_from((n, 1))) for a, n in enumerate(shape)
    )
    if draw(st.booleans()):
        shape = tuple(1 if a != axis and draw(st.booleans()) else n for a, n in enumerate(shape))
        index_shape = tuple(
            n if a == axis or shape[a] != 1 else draw(st.integers(1, 3)) for a, n in enumerate(index_shape)
        )
    count = int(np.prod(index_shape))
    index = _indices(draw, -2 * shape[axis], shape[axis] - 1, count).reshape(index_shape)
    return [array(draw, shape, _any_class(draw)), index], {"dim": dim}


@generator("aten.put")
def _put(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(rank_hi=3, lo=0)), _any_class(draw))
    accumulate = draw(st.booleans())
    count = draw(st.integers(0, min(data.size, 5)))
    index = _indices(draw, 0, data.size - 1, count, unique=not accumulate)
    index = np.where(
        np.asarray(draw(st.lists(st.booleans(), min_size=count, max_size=count)), bool), index - data.size, index
    )
    index = index.reshape(draw(st.sampled_from(((count,), (1, count)))))
    return [data, index, array(draw, (count,), str(data.dtype))], {"accumulate": accumulate}


@generator("aten.diagonal_scatter")
def _diagonal_scatter(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, rank_hi=4, lo=0, hi=4))
    rank = len(shape)
    dim1 = axis_in(draw, rank)
    dim2 = draw(st.sampled_from([d for d in range(-rank, rank) if d % rank != dim1 % rank]))
    offset = draw(st.integers(-3, 3))
    data = array(draw, shape, _any_class(draw))
    src = (np.diagonal(data, offset, dim1 % rank, dim2 % rank) + 1).astype(data.dtype)
    return [data, np.ascontiguousarray(src)], {"offset": offset, "dim1": dim1, "dim2": dim2}


def _repeating(draw: Draw) -> np.ndarray:
    """Small integers (so slices repeat) of rank 1..3, no dim empty."""
    dtype = _numeric(draw)
    return np.asarray(np.clip(np.round(array(draw, draw(shapes(1, 3, lo=1, hi=4)), dtype)), -1, 1), dtype)


@generator("aten.unique_dim")
def _unique_dim(draw: Draw) -> tuple:
    data = _repeating(draw)
    flags = {name: draw(st.booleans()) for name in ("sorted", "return_inverse", "return_counts")}
    return [data], {**flags, "dim": axis_in(draw, data.ndim)}


@generator("aten.unique_consecutive")
def _unique_consecutive(draw: Draw) -> tuple:
    data = _repeating(draw)
    flags = {name: draw(st.booleans()) for name in ("return_inverse", "return_counts")}
    return [data], {**flags, "dim": axis_in(draw, data.ndim)} if draw(st.booleans()) else flags


def _sorted_rows(draw: Draw, shape: tuple, dtype: str) -> np.ndarray:
    return np.sort(array(draw, shape, dtype), axis=-1) if shape else array(draw, shape, dtype)


@generator("aten.bucketize")
def _bucketize(draw: Draw) -> tuple:
    dtype = _numeric(draw)
    boundaries = np.sort(array(draw, (draw(st.integers(0, 5)),), dtype))
    return [array(draw, draw(shapes(lo=0)), dtype), boundaries], {
        "out_int32": draw(st.booleans()),
        "right": draw(st.booleans()),
    }


@generator("aten.searchsorted")
def _searchsorted(draw: Draw) -> tuple:
    dtype = _numeric(draw)
    if draw(st.booleans()):  # one sorted row for any values
        return [_sorted_rows(draw, (draw(st.integers(0, 5)),), dtype), array(draw, draw(shapes(lo=0)), dtype)], {
            "out_int32": draw(st.booleans()),
            "right": draw(st.booleans()),
        }
    batch = draw(shapes(rank_hi=2, lo=0, hi=3))
    sequence = _sorted_rows(draw, batch + (draw(st.integers(0, 4)),), dtype)
    values = array(draw, batch + (draw(st.integers(0, 4)),), dtype)
    return [sequence, values], {"out_int32": draw(st.booleans()), "right": draw(st.booleans())}


@generator("aten.split_with_sizes")
def _split_sizes_operand(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0, hi=6))
    dim = axis_in(draw, len(shape))
    return [array(draw, shape, _numeric(draw)), sym_ints(part_sizes(draw, shape[dim]))], {"dim": dim}


# model parts ---------------------------------------------------------------------------------------
RNN_GATES = {"aten.lstm": 4, "aten.gru": 3, "aten.rnn_tanh": 1, "aten.rnn_relu": 1}


@generator(*RNN_GATES)
def _recurrent(draw: Draw, name: str = "") -> tuple:
    """A sequence, initial state(s) and every layer's weights: (w_ih, w_hh[, b_ih, b_hh]) per
    layer and direction, layer k > 0 reading the previous layer's directions concatenated; an
    LSTM may project its state (proj_size: w_hr (proj, hidden) after each slot's weights, h of
    proj features)."""
    dtype = _float(draw)
    batch_first, bidirectional, has_biases = (draw(st.booleans()) for _ in range(3))
    layers, directions = draw(st.integers(1, 2)), 2 if bidirectional else 1
    steps, batch, features, hidden = (draw(st.integers(lo, 3)) for lo in (1, 0, 1, 1))  # torch needs a step
    batched = True  # ATen's recurrent operators take a batch dim (nn.RNN adds one first)
    shape = ((batch, steps) if batch_first else (steps, batch)) if batched else (steps,)
    data = array(draw, shape + (features,), dtype)
    gates = RNN_GATES[name]
    proj = draw(st.integers(1, hidden - 1)) if gates == 4 and hidden > 1 and draw(st.booleans()) else 0
    out = proj or hidden
    params = []
    for layer in range(layers):
        inputs = features if layer == 0 else out * directions
        for _ in range(directions):
            params += [array(draw, (gates * hidden, inputs), dtype), array(draw, (gates * hidden, out), dtype)]
            if has_biases:
                params += [array(draw, (gates * hidden,), dtype), array(draw, (gates * hidden,), dtype)]
            if proj:
                params.append(array(draw, (proj, hidden), dtype))
    leading = (layers * directions,) + ((batch,) if batched else ())
    hx: Any = array(draw, leading + (out,), dtype)
    if gates == 4:
        hx = (hx, array(draw, leading + (hidden,), dtype))
    return [data, hx, tuple(params)], {
        "has_biases": has_biases,
        "num_layers": layers,
        "dropout": 0.0,
        "train": False,
        "bidirectional": bidirectional,
        "batch_first": batch_first,
    }


for _name in RNN_GATES:
    GENERATORS[_name] = lambda draw, name=_name: _recurrent(draw, name)


@generator("aten.lstm_cell", "aten.gru_cell", "aten.rnn_tanh_cell", "aten.rnn_relu_cell")
def _recurrent_cell(draw: Draw, name: str = "") -> tuple:
    """One step: input (batch, in) (nn.RNNCell adds the batch dim of an unbatched input before
    it calls ATen), the state(s) like it with hidden features, the weights, biases or `()`."""
    dtype = _float(draw)
    gates = RNN_GATES[name[: -len("_cell")]]
    features, hidden = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    lead = (draw(st.integers(0, 3)),)
    state: Any = array(draw, lead + (hidden,), dtype)
    if gates == 4:
        state = (state, array(draw, lead + (hidden,), dtype))
    biases = [array(draw, (gates * hidden,), dtype) if draw(st.booleans()) else NONE for _ in range(2)]
    return [
        array(draw, lead + (features,), dtype),
        state,
        array(draw, (gates * hidden, features), dtype),
        array(draw, (gates * hidden, hidden), dtype),
    ] + biases, {}


for _name in ("aten.lstm_cell", "aten.gru_cell", "aten.rnn_tanh_cell", "aten.rnn_relu_cell"):
    GENERATORS[_name] = lambda draw, name=_name: _recurrent_cell(draw, name)


@generator("aten.col2im_sized")
def _col2im_sized(draw: Draw) -> tuple:
    (data,), attrs = GENERATORS["aten.col2im"](draw)
    return [data, sym_ints(attrs.pop("output_size"))], attrs


@generator("aten.embedding_bag")
def _embedding_bag(draw: Draw) -> tuple:
    """Indices into (rows, d), sorted offsets starting at 0 (the last one n with
    include_last_offset), per-sample weights only with mode sum."""
    rows, width, n = draw(st.integers(1, 5)), draw(st.integers(0, 3)), draw(st.integers(0, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    indices = rng.integers(0, rows, size=n).astype(draw(st.sampled_from(("int64", "int32"))))
    last = draw(st.booleans())
    inner = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    offsets = np.asarray([0] + inner + ([n] if last else []), indices.dtype)
    mode = draw(st.integers(0, 2))
    dtype = _float(draw)
    weights = array(draw, (n,), dtype) if mode == 0 and draw(st.booleans()) else NONE
    padding = draw(st.sampled_from([None, -1] + list(range(rows))))
    return [array(draw, (rows, width), dtype), indices, offsets, weights], {
        "scale_grad_by_freq": False,
        "mode": mode,
        "sparse": False,
        "include_last_offset": last,
        "padding_idx": padding,
    }


@generator("aten.repeat_interleave_by")
def _repeat_interleave_by(draw: Draw) -> tuple:
    shape = draw(shapes(rank_hi=3, lo=0))
    dim = axis_in(draw, len(shape)) if shape and draw(st.booleans()) else None
    length = int(np.prod(shape)) if dim is None else shape[dim]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    counts = rng.integers(0, 3, size=length if draw(st.booleans()) or length != 1 else ()).astype(np.int64)
    return [array(draw, shape, _numeric(draw)), counts], {"dim": dim}


def _channels_first(draw: Draw, channels: int) -> tuple:
    return (draw(st.integers(1, 3)), channels) + tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2))))


@generator("aten.group_norm", "aten.native_group_norm")
def _group_norm(draw: Draw) -> tuple:
    groups = draw(st.integers(1, 3))
    channels = groups * draw(st.integers(1, 2))
    dtype = _any_float(draw)
    data = array(draw, _channels_first(draw, channels), dtype)
    weight, bias = (_optional(draw, lambda: array(draw, (channels,), dtype)) for _ in range(2))
    return [data, weight, bias], {"num_groups": groups, "eps": 1e-5}


GENERATORS["aten.native_group_norm"] = lambda draw: (
    lambda args, attrs: (args, {"group": attrs["num_groups"], "eps": attrs["eps"]})
)(*_group_norm(draw))


@generator("aten.batch_norm_batch_stats", "aten.instance_norm")
def _batch_norm_batch_stats(draw: Draw) -> tuple:
    channels = draw(st.integers(1, 3))
    dtype = _any_float(draw)
    data = array(draw, _channels_first(draw, channels), dtype)
    weight, bias = (_optional(draw, lambda: array(draw, (channels,), dtype)) for _ in range(2))
    return [data, weight, bias], {"eps": 1e-5}


@generator("aten.rms_norm_sized")
def _rms_norm_sized(draw: Draw) -> tuple:
    return _shape_as_operand(_rms_norm(draw))


@generator("aten.rms_norm")
def _rms_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    k = draw(st.integers(1, len(shape)))
    dtype = _any_float(draw)
    weight = _optional(draw, lambda: array(draw, shape[len(shape) - k :], dtype))
    return [array(draw, shape, dtype), weight], {
        "normalized_shape": list(shape[len(shape) - k :]),
        "eps": draw(st.none() | st.floats(1e-6, 1e-3)),
    }


def _class_targets(draw: Draw) -> tuple:
    """Scores (n, c, d...) or (c,), class targets (n, d...) with some ignored, per-class weights."""
    classes = draw(st.integers(1, 4))
    dtype = _float(draw)
    batch = (
        ()
        if draw(st.booleans())
        else (draw(st.integers(0, 3)),) + tuple(draw(st.integers(0, 2)) for _ in range(draw(st.integers(0, 2))))
    )
    shape = batch[:1] + (classes,) + batch[1:] if batch else (classes,)
    count = int(np.prod(batch)) if batch else 1
    target = np.asarray(
        draw(st.lists(st.sampled_from(list(range(classes)) + [-100]), min_size=count, max_size=count)), np.int64
    ).reshape(batch)
    weight = _optional(draw, lambda: positive(draw, (classes,), dtype))
    return array(draw, shape, dtype), target, weight, {"reduction": draw(st.integers(0, 2)), "ignore_index": -100}


@generator("aten.nll_loss", "aten.nll_loss_forward")
def _nll_loss(draw: Draw) -> tuple:
    data, target, weight, attrs = _class_targets(draw)
    return [data, target, weight], attrs


@generator("aten.cross_entropy_loss")
def _cross_entropy(draw: Draw) -> tuple:
    data, target, weight, attrs = _class_targets(draw)
    if draw(st.booleans()):  # class probabilities of the scores' shape instead of indices
        target = np.abs(array(draw, data.shape, str(data.dtype)))
    return [data, target, weight], {**attrs, "label_smoothing": draw(st.sampled_from((0.0, 0.1)))}


@generator("aten.cdist")
def _cdist(draw: Draw) -> tuple:
    """float32 and float64, the dtypes the contract names (torch's CPU cdist has no float16)."""
    dtype = _float(draw)
    batch = tuple(draw(st.integers(0, 2)) for _ in range(draw(st.integers(0, 1))))
    features = draw(st.integers(1, 3))
    return [
        array(draw, batch + (draw(st.integers(0, 3)), features), dtype),
        array(draw, batch + (draw(st.integers(0, 3)), features), dtype),
    ], {"p": draw(st.sampled_from((1.0, 2.0, 0.0, float("inf"))))}


@generator("aten.cosine_similarity")
def _cosine_similarity(draw: Draw) -> tuple:
    lhs, rhs = _broadcast(draw, 2, (_any_float(draw),))
    rank = max(lhs.ndim, rhs.ndim)
    if rank == 0:
        lhs, rhs = lhs.reshape(1), rhs.reshape(1)
        rank = 1
    return [lhs, rhs], {"dim": axis_in(draw, rank), "eps": 1e-8}


@generator("aten.pairwise_distance")
def _pairwise_distance(draw: Draw) -> tuple:
    """p of every kind; a norm without an identity (p negative or infinite) over elements."""
    lhs, rhs = _broadcast(draw, 2, (_any_float(draw),))
    kinds = (1.0, 2.0, 3.0, 0.0, 0.5) + ((-1.0, float("inf")) if lhs.size and rhs.size else ())
    return [lhs, rhs], {"p": draw(st.sampled_from(kinds)), "eps": 1e-6, "keepdim": draw(st.booleans())}


@generator("aten.adaptive_max_pool2d")
def _adaptive_max_pool2d(draw: Draw) -> tuple:
    shape = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(1, 2)))) + (
        draw(st.integers(1, 5)),
        draw(st.integers(1, 5)),
    )
    return [array(draw, shape, _float(draw))], {"output_size": [draw(st.integers(1, 4)), draw(st.integers(1, 4))]}


@generator("aten.grid_sampler")
def _grid_sampler(draw: Draw) -> tuple:
    dtype = _float(draw)
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    data = array(draw, (n, c, draw(st.integers(1, 4)), draw(st.integers(1, 4))), dtype)
    grid = (array(draw, (n, draw(st.integers(1, 3)), draw(st.integers(1, 3)), 2), dtype) * 0.5).astype(dtype)
    return [data, grid], {
        "interpolation_mode": draw(st.integers(0, 2)),
        "padding_mode": draw(st.integers(0, 2)),
        "align_corners": draw(st.booleans()),
    }


@generator("aten.affine_grid_generator")
def _affine_grid_generator(draw: Draw) -> tuple:
    r, n = draw(st.integers(2, 3)), draw(st.integers(1, 2))
    size = [n, draw(st.integers(1, 3))] + [draw(st.integers(1, 4)) for _ in range(r)]
    return [array(draw, (n, r, r + 1), _float(draw)), sym_ints(size)], {"align_corners": draw(st.booleans())}


def _window(draw: Draw) -> dict:
    return {
        "kernel_size": [draw(st.integers(1, 3)), draw(st.integers(1, 3))],
        "dilation": [draw(st.integers(1, 2)), draw(st.integers(1, 2))],
        "padding": [draw(st.integers(0, 1)), draw(st.integers(0, 1))],
        "stride": [draw(st.integers(1, 2)), draw(st.integers(1, 2))],
    }


def _blocks(size: int, kernel: int, dilation: int, padding: int, stride: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


@generator("aten.im2col")
def _im2col(draw: Draw) -> tuple:
    attrs = _window(draw)
    reach = [d * (k - 1) + 1 - 2 * p for k, d, p in zip(attrs["kernel_size"], attrs["dilation"], attrs["padding"])]
    spatial = tuple(max(r, 1) + draw(st.integers(0, 3)) for r in reach)  # torch: a non-empty image
    batch = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1))))
    return [array(draw, batch + (draw(st.integers(1, 2)),) + spatial, _float(draw))], attrs


@generator("aten.col2im")
def _col2im(draw: Draw) -> tuple:
    attrs = _window(draw)
    reach = [d * (k - 1) + 1 - 2 * p for k, d, p in zip(attrs["kernel_size"], attrs["dilation"], attrs["padding"])]
    image = [max(r, 1) + draw(st.integers(0, 3)) for r in reach]
    blocks = int(
        np.prod(
            [
                _blocks(size, k, d, p, s)
                for size, k, d, p, s in zip(
                    image, attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"]
                )
            ]
        )
    )
    channels = draw(st.integers(1, 2)) * int(np.prod(attrs["kernel_size"]))
    batch = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1))))
    return [array(draw, batch + (channels, blocks), _float(draw))], {**attrs, "output_size": image}


@generator("aten.multi_margin_loss")
def _multi_margin_loss(draw: Draw) -> tuple:
    dtype = _float(draw)
    classes = draw(st.integers(1, 4))
    shape = draw(st.sampled_from(((classes,), (draw(st.integers(1, 3)), classes))))
    target = _indices(draw, 0, classes - 1, int(np.prod(shape[:-1]))).reshape(shape[:-1])
    weight = positive(draw, (classes,), dtype) if draw(st.booleans()) else ()
    return [array(draw, shape, dtype), target, weight], {
        "p": draw(st.sampled_from((1, 2))),
        "margin": draw(st.floats(0, 2)),
        "reduction": draw(st.integers(0, 2)),
    }


@generator("aten.multilabel_margin_loss")
def _multilabel_margin_loss(draw: Draw) -> tuple:
    dtype = _float(draw)
    classes = draw(st.integers(1, 4))
    shape = draw(st.sampled_from(((classes,), (draw(st.integers(1, 3)), classes))))
    target = _indices(draw, -1, classes - 1, int(np.prod(shape))).reshape(shape)
    return [array(draw, shape, dtype), target], {"reduction": draw(st.integers(0, 2))}


@generator("aten.pdist")
def _pdist(draw: Draw) -> tuple:
    shape = (draw(st.integers(0, 5)), draw(st.integers(0, 4)))
    return [array(draw, shape, _float(draw))], {"p": draw(st.sampled_from((0.0, 1.0, 2.0, 3.0, 0.5)))}


@generator("aten.dist")
def _dist(draw: Draw) -> tuple:
    dtype = _float(draw)
    return _broadcast(draw, 2, (dtype,)), {"p": draw(st.sampled_from((0.0, 1.0, 2.0, 3.5)))}
