"""Input generators of the ONNX frontend's operators (stdlib/onnx.rly, stdlib/onnx_models.rly),
drawn within what the ONNX operator specification allows: tensor inputs where Relay takes
attributes (axes, pads, k, ...), empty vectors for left-out optional inputs, negative axes,
zero-size dims, and attributes at their bounds."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from kernel_inputs import (
    ABSENT,
    FLOATS,
    INTS,
    UNSIGNED,
    Draw,
    array,
    axis_in,
    conv_sizes,
    generator,
    ints,
    part_sizes,
    positive,
    scalar,
    shapes,
    some_axes,
)


def _float(draw: Draw) -> str:
    return draw(st.sampled_from(FLOATS))


def _numeric(draw: Draw) -> str:
    return draw(st.sampled_from(FLOATS + INTS))


def _index_dtype(draw: Draw) -> str:
    return draw(st.sampled_from(INTS))


# constants and dtypes -----------------------------------------------------------------------------
@generator("onnx.constant")
def _constant(draw: Draw) -> tuple:
    shape = draw(shapes(rank_hi=3, lo=0, hi=4))
    count = int(np.prod(shape))
    values = draw(st.lists(st.integers(-9, 9), min_size=count, max_size=count))
    dtype = draw(st.sampled_from(FLOATS + INTS + ("bool", "uint8", "int8")))
    if dtype == "bool":
        values = [abs(v) % 2 for v in values]
    elif dtype == "uint8":
        values = [abs(v) for v in values]
    shown: Any = values[0] if not shape and draw(st.booleans()) else values
    return [], {"values": shown, "shape": list(shape), "dtype": dtype}


CAST_TARGETS = (
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int8",
    "uint8",
    "int32",
    "int64",
    "bool",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
)


def _cast_attrs(draw: Draw) -> dict:
    return {"saturate": draw(st.booleans()), "round_mode": draw(st.sampled_from(("up", "down", "nearest")))}


@generator("onnx.cast")
def _cast(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(lo=0)), draw(st.sampled_from(FLOATS + INTS + ("bool", "uint8"))))
    return [data], {"dtype": draw(st.sampled_from(CAST_TARGETS)), **_cast_attrs(draw)}


@generator("onnx.cast_like")
def _cast_like(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(lo=0)), draw(st.sampled_from(FLOATS + INTS)))
    like = np.zeros(draw(shapes(rank_hi=2, lo=0)), draw(st.sampled_from(CAST_TARGETS)))
    return [data, like], _cast_attrs(draw)


@generator("onnx.eye_like")
def _eye_like(draw: Draw) -> tuple:
    data = array(draw, draw(shapes(rank_lo=2, rank_hi=2, lo=0)), _numeric(draw))
    return [data], {"k": draw(st.integers(-6, 6)), "dtype": draw(st.sampled_from(("",) + FLOATS + INTS))}


# linear algebra ------------------------------------------------------------------------------------
@generator("onnx.matmul")
def _matmul(draw: Draw) -> tuple:
    a_batch, b_batch = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3)).input_shapes
    n, k, m = (draw(st.integers(0, 4)) for _ in range(3))
    a = (k,) if draw(st.booleans()) else a_batch + (n, k)
    b = (k,) if draw(st.booleans()) else b_batch + (k, m)
    dtype = _numeric(draw)
    return [array(draw, a, dtype), array(draw, b, dtype)], {}


@generator("onnx.einsum")
def _einsum(draw: Draw) -> tuple:
    sizes = {c: draw(st.integers(0, 3)) for c in "ijkl"}
    batch = draw(shapes(rank_hi=2, lo=1, hi=3))
    terms, operands = [], []
    dtype = _numeric(draw)
    for _ in range(draw(st.integers(1, 3))):
        letters = draw(st.lists(st.sampled_from("ijkl"), max_size=3))
        dots = draw(st.booleans())
        at = draw(st.integers(0, len(letters)))
        term = "".join(letters[:at]) + ("..." if dots else "") + "".join(letters[at:])
        middle = batch[len(batch) - draw(st.integers(0, len(batch))) :] if dots else ()
        middle = tuple(d if draw(st.booleans()) else 1 for d in middle)
        terms.append(term)
        operands.append(
            array(draw, tuple(sizes[c] for c in letters[:at]) + middle + tuple(sizes[c] for c in letters[at:]), dtype)
        )
    equation = ",".join(terms)
    if draw(st.booleans()):
        seen = sorted({c for t in terms for c in t if c.isalpha()})
        out = draw(st.permutations(seen))[: draw(st.integers(0, len(seen)))]
        equation += "->" + ("..." if any("..." in t for t in terms) else "") + "".join(out)
    return [tuple(operands)], {"equation": equation}


# shapes ---------------------------------------------------------------------------------------------
@generator("onnx.flatten")
def _flatten(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    return [array(draw, shape, _numeric(draw))], {"axis": draw(st.integers(-len(shape), len(shape)))}


@generator("onnx.unsqueeze")
def _unsqueeze(draw: Draw) -> tuple:
    shape = draw(shapes(rank_hi=3, lo=0))
    rank = len(shape) + draw(st.integers(0, 3))
    axes = some_axes(draw, rank, min_size=rank - len(shape))[: rank - len(shape)]
    return [array(draw, shape, _numeric(draw)), ints(axes, _index_dtype(draw))], {}


@generator("onnx.squeeze")
def _squeeze(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0, hi=2))
    ones = [i for i, d in enumerate(shape) if d == 1]
    axes = (
        [a - len(shape) if draw(st.booleans()) else a for a in draw(st.lists(st.sampled_from(ones), unique=True))]
        if ones
        else []
    )
    return [array(draw, shape, _numeric(draw)), ints(axes, _index_dtype(draw))], {}


@generator("onnx.expand")
def _expand(draw: Draw) -> tuple:
    data, target = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, min_side=0, max_side=3)).input_shapes
    return [array(draw, data, _numeric(draw)), ints(target)], {}


@generator("onnx.slice")
def _slice(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0, hi=6))
    rank = len(shape)
    axes = some_axes(draw, rank, min_size=1)
    dtype = _index_dtype(draw)
    largest = np.iinfo(dtype).max
    bound = st.integers(-8, 8) | st.sampled_from((largest, -largest - 1))
    starts = [draw(bound) for _ in axes]
    ends = [draw(bound) for _ in axes]
    steps = [draw(st.sampled_from((1, 2, 3, -1, -2))) for _ in axes]
    if draw(st.booleans()):  # the default axes: the leading ones, in order
        axes = []
        starts, ends, steps = starts[:rank], ends[:rank], steps[:rank]
    steps_arg = ABSENT if all(s == 1 for s in steps) and draw(st.booleans()) else ints(steps)
    return [
        array(draw, shape, _numeric(draw)),
        ints(starts, dtype),
        ints(ends, dtype),
        ints(axes, dtype) if axes else ABSENT,
        steps_arg,
    ], {}


@generator("onnx.tile")
def _tile(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    reps = draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape)))
    return [array(draw, shape, _numeric(draw)), ints(reps)], {}


@generator("onnx.pad")
def _pad(draw: Draw) -> tuple:
    mode = draw(st.sampled_from(("constant", "edge", "reflect", "wrap")))
    shape = draw(shapes(rank_lo=1, lo=0 if mode == "constant" else 1))
    axes = some_axes(draw, len(shape)) if draw(st.booleans()) else []
    chosen = [a % len(shape) for a in axes] if axes else list(range(len(shape)))

    def width(axis: int) -> int:
        d = shape[axis]
        if mode == "constant":
            return draw(st.integers(-(d // 2), 3))
        return draw(st.integers(0, d - 1 if mode == "reflect" else 3 if mode == "edge" else d))

    pads = [width(a) for a in chosen] + [width(a) for a in chosen]
    dtype = _numeric(draw)
    value = np.asarray(draw(st.integers(-3, 3)), dtype) if draw(st.booleans()) else np.zeros((0,), dtype)
    return [array(draw, shape, dtype), ints(pads), value, ints(axes) if axes else ABSENT], {"mode": mode}


@generator("onnx.split")
def _split(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0, hi=7))
    axis = axis_in(draw, len(shape))
    whole = shape[axis]
    # ceil(d / n) per part leaves the last part d - (n - 1) * ceil(d / n), which must not be negative
    counts = [n for n in range(1, max(whole, 1) + 2) if whole - (n - 1) * -(-whole // n) >= 0]
    return [array(draw, shape, _numeric(draw))], {"num_outputs": draw(st.sampled_from(counts)), "axis": axis}


@generator("onnx.split_sizes")
def _split_sizes(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0, hi=6))
    axis = axis_in(draw, len(shape))
    sizes = part_sizes(draw, shape[axis])
    return [array(draw, shape, _numeric(draw)), ints(sizes, _index_dtype(draw))], {
        "num_outputs": len(sizes),
        "axis": axis,
    }


@generator("onnx.depth_to_space")
def _depth_to_space(draw: Draw) -> tuple:
    block = draw(st.integers(1, 3))
    n, c, h, w = (
        draw(st.integers(0, 2)),
        draw(st.integers(0, 2)) * block * block,
        draw(st.integers(0, 3)),
        draw(st.integers(0, 3)),
    )
    return [array(draw, (n, c, h, w), _numeric(draw))], {
        "blocksize": block,
        "mode": draw(st.sampled_from(("DCR", "CRD"))),
    }


@generator("onnx.space_to_depth")
def _space_to_depth(draw: Draw) -> tuple:
    block = draw(st.integers(1, 3))
    n, c, h, w = (
        draw(st.integers(0, 2)),
        draw(st.integers(0, 3)),
        draw(st.integers(0, 2)) * block,
        draw(st.integers(0, 2)) * block,
    )
    return [array(draw, (n, c, h, w), _numeric(draw))], {
        "blocksize": block,
        "mode": draw(st.sampled_from(("DCR", "CRD"))),
    }


@generator("onnx.trilu")
def _trilu(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, lo=0))
    k = ABSENT if draw(st.booleans()) else scalar(draw(st.integers(-6, 6)))
    return [array(draw, shape, _numeric(draw)), k], {"upper": draw(st.booleans())}


REDUCTIONS = ("sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum", "log_sum_exp")


@generator("onnx.reduce")
def _reduce(draw: Draw) -> tuple:
    kind = draw(st.sampled_from(REDUCTIONS))
    shape = draw(shapes(lo=0 if kind not in ("mean", "log_sum") else 1))
    dtype = _float(draw) if kind in ("mean", "l2", "log_sum", "log_sum_exp") else _numeric(draw)
    data = positive(draw, shape, dtype) if kind == "log_sum" else array(draw, shape, dtype)
    axes = some_axes(draw, len(shape))
    return [data, ints(axes) if axes else ABSENT], {
        "kind": kind,
        "keepdims": draw(st.booleans()),
        "noop_with_empty_axes": draw(st.booleans()),
    }


RESIZE_COORDINATES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)


@generator("onnx.resize")
def _resize(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, rank_hi=4, lo=1, hi=4))
    axes = some_axes(draw, len(shape), min_size=1) if draw(st.booleans()) else None
    count = len(axes) if axes else len(shape)
    coordinates = draw(st.sampled_from(RESIZE_COORDINATES))
    roi = ABSENT.astype("float32")
    if coordinates == "tf_crop_and_resize":
        starts = [draw(st.floats(0, 0.5)) for _ in range(count)]
        roi = np.asarray(starts + [s + draw(st.floats(0.2, 0.8)) for s in starts], "float32")
    attrs = {
        "axes": axes,
        "mode": draw(st.sampled_from(("nearest", "linear", "cubic"))),
        "coordinate_transformation_mode": coordinates,
        "nearest_mode": draw(st.sampled_from(("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"))),
        "cubic_coeff_a": draw(st.sampled_from((-0.75, -0.5))),
        "exclude_outside": draw(st.booleans()),
        "extrapolation_value": draw(st.floats(-2, 2)),
        "antialias": draw(st.booleans()),
    }
    scales = ABSENT.astype("float32")
    sizes = ABSENT
    if draw(st.booleans()):
        sizes = ints([draw(st.integers(1, 7)) for _ in range(count)])
        attrs["keep_aspect_ratio_policy"] = draw(st.sampled_from(("stretch", "not_larger", "not_smaller")))
    else:
        factors = [draw(st.sampled_from((0.5, 0.6, 1.0, 1.5, 2.0, 3.0))) for _ in range(count)]
        scales = np.asarray(factors, "float32")
        attrs["static_scales"] = factors if draw(st.booleans()) else None
    dtype = draw(st.sampled_from(FLOATS + ("int32", "uint8")))
    return [array(draw, shape, dtype), roi, scales, sizes], attrs


# indexing -----------------------------------------------------------------------------------------
def _indices_within(draw: Draw, shape: tuple, size: int) -> np.ndarray:
    """Indices into a dim of `size` (negative ones counted from its end)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return rng.integers(-size, size, size=shape).astype(_index_dtype(draw)) if size else np.zeros(shape, "int64")


@generator("onnx.gather_elements")
def _gather_elements(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    axis = axis_in(draw, len(shape))
    index_shape = tuple(
        draw(st.integers(0, 4)) if i == axis % len(shape) else draw(st.integers(0, d)) for i, d in enumerate(shape)
    )
    return [array(draw, shape, _numeric(draw)), _indices_within(draw, index_shape, shape[axis])], {"axis": axis}


def _index_tuples(draw: Draw, shape: tuple, leading: tuple) -> np.ndarray:
    """(*leading, len(shape)) indices into shape, negative ones counted from the end."""
    columns = [_indices_within(draw, leading, d).astype("int64") for d in shape]
    return np.stack(columns, axis=-1) if columns else np.zeros(leading + (0,), "int64")


@generator("onnx.gather_nd")
def _gather_nd(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    batch = draw(st.integers(0, len(shape) - 1))
    depth = draw(st.integers(1, len(shape) - batch))
    queries = draw(shapes(rank_hi=2, lo=0, hi=3))
    indices = _index_tuples(draw, shape[batch : batch + depth], tuple(shape[:batch]) + queries)
    return [array(draw, shape, _numeric(draw)), indices], {"batch_dims": batch}


SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


@generator("onnx.scatter_elements")
def _scatter_elements(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    axis = axis_in(draw, len(shape))
    index_shape = tuple(draw(st.integers(0, d)) for d in shape)
    dtype = _numeric(draw)
    return [
        array(draw, shape, dtype),
        _indices_within(draw, index_shape, shape[axis]),
        array(draw, index_shape, dtype),
    ], {"axis": axis, "reduction": draw(st.sampled_from(SCATTER_REDUCTIONS))}


@generator("onnx.scatter_nd")
def _scatter_nd(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    depth = draw(st.integers(1, len(shape)))
    queries = draw(shapes(rank_hi=2, lo=0, hi=3))
    indices = _index_tuples(draw, shape[:depth], queries)
    dtype = _numeric(draw)
    updates = array(draw, queries + tuple(shape[depth:]), dtype)
    return [array(draw, shape, dtype), indices, updates], {"reduction": draw(st.sampled_from(SCATTER_REDUCTIONS))}


@generator("onnx.cumsum", "onnx.cumprod")
def _cumulative(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    axis = axis_in(draw, len(shape))
    axis_arg = np.asarray(axis, _index_dtype(draw)).reshape(draw(st.sampled_from(((), (1,)))))
    return [array(draw, shape, _numeric(draw)), axis_arg], {
        "exclusive": draw(st.booleans()),
        "reverse": draw(st.booleans()),
    }


@generator("onnx.topk")
def _topk(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    axis = axis_in(draw, len(shape))
    k = ints([draw(st.integers(0, shape[axis]))])
    data = array(draw, shape, draw(st.sampled_from(FLOATS + INTS + ("uint8",))))
    return [data, k], {"axis": axis, "largest": draw(st.booleans())}


@generator("onnx.one_hot")
def _one_hot(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, rank_hi=3, lo=0))
    depth = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    indices = rng.integers(-depth, depth, size=shape).astype(draw(st.sampled_from(INTS + ("float32",))))
    depth_arg = np.asarray(depth, _index_dtype(draw)).reshape(draw(st.sampled_from(((), (1,)))))
    values = array(draw, (2,), _numeric(draw))
    return [indices, depth_arg, values], {"axis": draw(st.integers(-len(shape) - 1, len(shape)))}


# convolution and pooling, N-d -------------------------------------------------------------------
def _window_attrs(draw: Draw, k: int, kernel: list, sizes: list, pad_limit: Any = None) -> dict:
    """auto_pad, pads, strides and dilations for k spatial dims whose windows fit."""
    auto_pad = draw(st.sampled_from(("NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")))
    strides = [draw(st.integers(1, 3)) for _ in range(k)]
    dilations = [draw(st.integers(1, 2)) for _ in range(k)]
    spans = [(kk - 1) * d + 1 for kk, d in zip(kernel, dilations)]
    limit = pad_limit or (lambda i: 2)
    pads = [draw(st.integers(0, limit(i % k))) for i in range(2 * k)]
    for i in range(k):
        if auto_pad in ("NOTSET", "VALID"):
            room = sizes[i] + (pads[i] + pads[i + k] if auto_pad == "NOTSET" else 0)
            if room < spans[i]:  # the window must fit the (padded) input
                sizes[i] += spans[i] - room
    attrs = {
        "auto_pad": auto_pad,
        "strides": strides if draw(st.booleans()) or any(s != 1 for s in strides) else None,
        "dilations": dilations if any(d != 1 for d in dilations) or draw(st.booleans()) else None,
        "pads": pads if auto_pad == "NOTSET" and (any(pads) or draw(st.booleans())) else None,
    }
    return attrs


@generator("onnx.conv")
def _conv(draw: Draw) -> tuple:
    k, group, n, c, m, kernel = conv_sizes(draw)
    sizes = [draw(st.integers(1, 5)) for _ in range(k)]
    attrs = _window_attrs(draw, k, kernel, sizes)
    dtype = _float(draw)
    return [array(draw, (n, c, *sizes), dtype), array(draw, (m, c // group, *kernel), dtype)], {**attrs, "group": group}


@generator("onnx.conv_transpose")
def _conv_transpose(draw: Draw) -> tuple:
    k, group, n, c, m, kernel = conv_sizes(draw)
    sizes = [draw(st.integers(1, 4)) for _ in range(k)]
    strides = [draw(st.integers(1, 3)) for _ in range(k)]
    dilations = [draw(st.integers(1, 2)) for _ in range(k)]
    extra = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(strides, dilations)]
    full = [s * (x - 1) + (kk - 1) * d + 1 + e for s, x, kk, d, e in zip(strides, sizes, kernel, dilations, extra)]
    auto_pad = draw(st.sampled_from(("NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")))
    begin = [draw(st.integers(0, min(2, f - 1))) for f in full]  # the pads leave at least one element
    pads = begin + [draw(st.integers(0, min(2, f - 1 - b))) for f, b in zip(full, begin)]
    attrs = {
        "auto_pad": auto_pad,
        "strides": strides,
        "dilations": dilations,
        "output_padding": extra,
        "pads": pads if auto_pad == "NOTSET" else None,
        "group": group,
        "output_shape": None,
    }
    if draw(st.booleans()):  # output_shape (the pads are then not read): at most the full result's size
        attrs["output_shape"] = [draw(st.integers(1, f)) for f in full]
    dtype = _float(draw)
    return [array(draw, (n, c, *sizes), dtype), array(draw, (c, m // group, *kernel), dtype)], attrs


def _pool_input(draw: Draw, ceil_allowed: bool = True) -> tuple:
    k = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(k)]
    sizes = [draw(st.integers(1, 5)) for _ in range(k)]
    attrs = _window_attrs(draw, k, kernel, sizes, pad_limit=lambda i: kernel[i] - 1)
    attrs.update(kernel_shape=kernel, ceil_mode=draw(st.booleans()) if ceil_allowed else False)
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *sizes)
    return shape, attrs


@generator("onnx.max_pool")
def _max_pool(draw: Draw) -> tuple:
    shape, attrs = _pool_input(draw)
    return [array(draw, shape, draw(st.sampled_from(FLOATS + ("int8", "uint8"))))], attrs


@generator("onnx.max_pool_indices")
def _max_pool_indices(draw: Draw) -> tuple:
    shape, attrs = _pool_input(draw)
    return [array(draw, shape, _float(draw))], {**attrs, "storage_order": draw(st.integers(0, 1))}


@generator("onnx.avg_pool")
def _avg_pool(draw: Draw) -> tuple:
    shape, attrs = _pool_input(draw)
    return [array(draw, shape, _float(draw))], {**attrs, "count_include_pad": draw(st.booleans())}


@generator("onnx.lp_pool")
def _lp_pool(draw: Draw) -> tuple:
    shape, attrs = _pool_input(draw)
    return [array(draw, shape, _float(draw))], {**attrs, "p": draw(st.integers(1, 3))}


@generator("onnx.global_lp_pool")
def _global_lp_pool(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(rank_lo=3, rank_hi=5, lo=1)), _float(draw))], {"p": draw(st.integers(1, 3))}


# normalization ----------------------------------------------------------------------------------
def _suffix_broadcast(draw: Draw, dims: tuple) -> tuple:
    """A shape that broadcasts to dims: a suffix of them, some entries 1."""
    tail = dims[len(dims) - draw(st.integers(0, len(dims))) :]
    return tuple(d if draw(st.booleans()) else 1 for d in tail)


@generator("onnx.layer_norm")
def _layer_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    axis = axis_in(draw, len(shape))
    normalized = shape[axis % len(shape) :]
    dtype = _float(draw)
    return [
        array(draw, shape, dtype),
        array(draw, _suffix_broadcast(draw, normalized), dtype),
        array(draw, _suffix_broadcast(draw, normalized), dtype),
    ], {"axis": axis, "epsilon": 1e-5}


@generator("onnx.rms_norm")
def _rms_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    axis = axis_in(draw, len(shape))
    dtype = _float(draw)
    return [array(draw, shape, dtype), array(draw, _suffix_broadcast(draw, shape[axis % len(shape) :]), dtype)], {
        "axis": axis,
        "epsilon": draw(st.sampled_from((1e-5, 0.5))),
    }


def _channel_vectors(draw: Draw, c: int, count: int, dtype: str) -> list:
    return [array(draw, (c,), dtype) for _ in range(count)]


@generator("onnx.batch_norm_train")
def _batch_norm_train(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, lo=1))
    dtype = _float(draw)
    c = shape[1]
    return [array(draw, shape, dtype)] + _channel_vectors(draw, c, 3, dtype) + [positive(draw, (c,), dtype)], {
        "epsilon": 1e-5,
        "momentum": draw(st.floats(0, 1)),
    }


@generator("onnx.instance_norm")
def _instance_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=3, lo=1))  # (n, c, d, ...): ONNX Runtime refuses fewer dims
    dtype = _float(draw)
    return [array(draw, shape, dtype)] + _channel_vectors(draw, shape[1], 2, dtype), {"epsilon": 1e-5}


@generator("onnx.group_norm")
def _group_norm(draw: Draw) -> tuple:
    groups = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))) + draw(shapes(rank_hi=2, lo=1, hi=3))
    dtype = _float(draw)
    return [array(draw, shape, dtype)] + _channel_vectors(draw, shape[1], 2, dtype), {
        "num_groups": groups,
        "epsilon": 1e-5,
    }


@generator("onnx.lrn")
def _lrn(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, lo=1))
    return [array(draw, shape, _float(draw))], {
        "size": draw(st.integers(1, 5)),
        "alpha": draw(st.floats(0, 1e-3)),
        "beta": draw(st.floats(0.5, 1)),
        "bias": draw(st.floats(1, 2)),
    }


@generator("onnx.mean_variance_norm")
def _mean_variance_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    return [array(draw, shape, _float(draw))], {"axes": some_axes(draw, len(shape), min_size=1)}


@generator("onnx.lp_norm")
def _lp_norm(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    return [array(draw, shape, _float(draw))], {"axis": axis_in(draw, len(shape)), "p": draw(st.integers(1, 2))}


def _loss_inputs(draw: Draw) -> tuple:
    n, c = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    extra = draw(shapes(rank_hi=2, lo=1, hi=3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    ignore = draw(st.none() | st.integers(-1, c - 1))
    target = rng.integers(0, c, size=(n,) + extra)
    if ignore is not None and ignore < 0:
        target = np.where(rng.integers(0, 3, size=target.shape) == 0, ignore, target)
    dtype = _float(draw)
    weight = positive(draw, (c,), dtype) if draw(st.booleans()) else np.zeros((0,), dtype)
    return (
        (n, c) + extra,
        target.astype(_index_dtype(draw)),
        weight,
        dtype,
        {"reduction": draw(st.sampled_from(("none", "mean", "sum"))), "ignore_index": ignore},
    )


@generator("onnx.nll_loss")
def _nll_loss(draw: Draw) -> tuple:
    shape, target, weight, dtype, attrs = _loss_inputs(draw)
    return [array(draw, shape, dtype), target, weight], attrs


@generator("onnx.softmax_cross_entropy")
def _softmax_cross_entropy(draw: Draw) -> tuple:
    shape, target, weight, dtype, attrs = _loss_inputs(draw)
    return [array(draw, shape, dtype), target, weight], attrs


@generator("onnx.hardmax")
def _hardmax(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=1))
    return [array(draw, shape, _float(draw))], {"axis": axis_in(draw, len(shape))}


# elementwise ------------------------------------------------------------------------------------
def _unary_data(draw: Draw, low: float = -3.0, high: float = 3.0, dtype: str = "") -> np.ndarray:
    """Floats in [low, high] of any shape (zero-size dims included)."""
    data = array(draw, draw(shapes(lo=0)), dtype or _float(draw))
    return np.asarray(low + (high - low) * (np.tanh(data) + 1) / 2, data.dtype)


@generator(
    "onnx.reciprocal",
    "onnx.sin",
    "onnx.cos",
    "onnx.tan",
    "onnx.atan",
    "onnx.sinh",
    "onnx.cosh",
    "onnx.asinh",
    "onnx.softplus",
    "onnx.softsign",
    "onnx.mish",
    "onnx.hard_swish",
    "onnx.isnan",
)
def _unary(draw: Draw) -> tuple:
    return [_unary_data(draw)], {}


@generator("onnx.asin", "onnx.acos", "onnx.atanh")
def _unary_within_one(draw: Draw) -> tuple:
    return [_unary_data(draw, -0.99, 0.99)], {}


@generator("onnx.acosh")
def _unary_above_one(draw: Draw) -> tuple:
    return [_unary_data(draw, 1.0, 4.0)], {}


@generator("onnx.isinf")
def _isinf(draw: Draw) -> tuple:
    data = _unary_data(draw)
    specials = np.array([np.inf, -np.inf, np.nan], data.dtype)
    flat = data.reshape(-1)
    flat[: min(flat.size, 3)] = specials[: min(flat.size, 3)]
    return [data], {"detect_negative": draw(st.booleans()), "detect_positive": draw(st.booleans())}


@generator("onnx.bitwise_not")
def _bitwise_not(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=0)), draw(st.sampled_from(INTS + UNSIGNED + ("int8",))))], {}


@generator("onnx.elu", "onnx.thresholded_relu")
def _alpha_unary(draw: Draw) -> tuple:
    return [_unary_data(draw)], {"alpha": draw(st.floats(0, 2))}


@generator("onnx.celu")
def _celu(draw: Draw) -> tuple:
    return [_unary_data(draw, dtype="float32")], {"alpha": draw(st.floats(0.1, 2))}


@generator("onnx.swish")
def _swish(draw: Draw) -> tuple:
    return [_unary_data(draw)], {"alpha": draw(st.floats(-2, 2))}


@generator("onnx.selu")
def _selu(draw: Draw) -> tuple:
    return [_unary_data(draw)], {"alpha": draw(st.floats(0, 2)), "gamma": draw(st.floats(0, 2))}


@generator("onnx.hard_sigmoid")
def _hard_sigmoid(draw: Draw) -> tuple:
    return [_unary_data(draw)], {"alpha": draw(st.floats(0, 1)), "beta": draw(st.floats(0, 1))}


@generator("onnx.shrink")
def _shrink(draw: Draw) -> tuple:
    return [_unary_data(draw)], {"bias": draw(st.floats(0, 1)), "lambd": draw(st.floats(0, 1))}


@generator("onnx.gelu")
def _gelu(draw: Draw) -> tuple:
    return [_unary_data(draw)], {"approximate": draw(st.sampled_from(("none", "tanh")))}


def _broadcast_pair(draw: Draw, dtype: str) -> list:
    lhs, rhs = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=4, min_side=0, max_side=3)).input_shapes
    return [array(draw, lhs, dtype), array(draw, rhs, dtype)]


@generator("onnx.bitwise_and", "onnx.bitwise_or", "onnx.bitwise_xor")
def _bitwise(draw: Draw) -> tuple:
    return _broadcast_pair(draw, draw(st.sampled_from(INTS + UNSIGNED + ("int8",)))), {}


@generator("onnx.bitshift")
def _bitshift(draw: Draw) -> tuple:
    lhs, rhs = _broadcast_pair(draw, draw(st.sampled_from(UNSIGNED)))
    return [lhs, np.asarray(rhs % 8)], {"direction": draw(st.sampled_from(("LEFT", "RIGHT")))}


@generator("onnx.mod")
def _mod(draw: Draw) -> tuple:
    dtype = _numeric(draw)
    lhs, rhs = _broadcast_pair(draw, dtype)
    rhs = np.where(rhs == 0, 1, rhs).astype(dtype)
    # ONNX: fmod=0 is defined for integers only; floats need fmod=1
    return [lhs, rhs], {"fmod": True if dtype in FLOATS else draw(st.booleans())}


@generator("onnx.prelu")
def _prelu(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    dtype = _float(draw)
    return [array(draw, shape, dtype), array(draw, _suffix_broadcast(draw, shape), dtype)], {}


# control flow -----------------------------------------------------------------------------------
@generator("onnx.scan_append")
def _scan_append(draw: Draw) -> tuple:
    item = draw(shapes(rank_hi=3, lo=0, hi=3))
    dtype = _numeric(draw)
    rows = draw(st.integers(0, 3))
    # the loop's start: no rows, of any shape of its own
    acc = (
        (0,) + tuple(draw(shapes(rank_hi=3, lo=0, hi=3)))
        if rows == 0 and draw(st.booleans())
        else (rows,) + tuple(item)
    )
    return [array(draw, acc, dtype), array(draw, item, dtype)], {}
