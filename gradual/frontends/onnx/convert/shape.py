"""ONNX operators that rearrange, index and create tensors: Reshape, Flatten, Transpose,
(Un)Squeeze, Concat, Split, Slice, Gather*, Scatter*, Shape, Size, Expand, Tile, Pad,
ConstantOfShape, Range, NonZero, ... Values known at import time (initializers, Constant
outputs) become Relay attributes; other shape inputs stay tensors whose values the checker
may still know (Shape -> Gather -> Concat -> Reshape chains)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from gradual import builder as gb
from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import INT64_MAX, Node, Tuple, literal


# reshaping --------------------------------------------------------------------------------------
@converts("Reshape")
def reshape(node: Node) -> Any:
    """Reshape: `reshape(newshape=...)` for a constant target, `dyn.reshape` otherwise (0 copies
    a dim unless allowzero, -1 is inferred, as in Relay)."""
    allowzero = bool(node.attr("allowzero", 0))
    if node.opset < 5:
        target: Optional[list] = [int(v) for v in node.attr("shape", [])]
    else:
        target = node.ints(1)
    if target is not None:
        # allowzero only changes what a 0 entry means: without one it is the plain Reshape
        # (the dynamo exporter writes allowzero=1 on every Reshape)
        allowzero = allowzero and 0 in target
        target = _batch_target(node, target, allowzero)
        return node.call("reshape", node.x(0), newshape=target, allowzero=allowzero)
    return node.call("dyn.reshape", node.x(0), node.x(1), allowzero=allowzero)


def _batch_target(node: Node, target: list, allowzero: bool) -> list:
    """With the `batch_reshapes` option, a leading entry equal to the original batch size
    copies the (now symbolic) batch dim instead."""
    importer = node.importer
    if importer.options.batch_reshapes and target and target[0] == importer.batch_size and not allowzero:
        return [0] + target[1:]
    return target


@converts("Flatten")
def flatten(node: Node) -> Any:
    """Flatten: `nn.batch_flatten` at axis 1, `onnx.flatten` elsewhere."""
    axis = int(node.attr("axis", 1))
    if axis == 1:
        return node.call("nn.batch_flatten", node.x(0))
    return node.call("onnx.flatten", node.x(0), axis=axis)


@converts("Transpose")
def transpose(node: Node) -> Any:
    """Transpose by perm (reversed dims by default)."""
    perm = node.attr("perm")
    if perm is None:
        return node.call("transpose", node.x(0))
    return node.call("transpose", node.x(0), axes=[int(p) for p in perm])


@converts("Squeeze")
def squeeze(node: Node) -> Any:
    """Squeeze the listed dims (every size-1 dim without axes); `onnx.squeeze` when the axes
    are known only at runtime."""
    axes, known = node.axes(13)
    if not known:
        return node.call("onnx.squeeze", node.x(0), node.x(1))
    return node.call("squeeze", node.x(0), axis=axes if axes else None)


@converts("Unsqueeze")
def unsqueeze(node: Node) -> Any:
    """Unsqueeze: `expand_dims` per axis when the output positions are known, `onnx.unsqueeze`
    when negative axes meet an unknown rank or the axes are known only at runtime."""
    axes, known = node.axes(13)
    if not known:
        return node.call("onnx.unsqueeze", node.x(0), node.x(1))
    if not axes:
        node.fail_attribute("axes", "absent", "axes given")
    rank = node.rank(0) if any(a < 0 for a in axes) else None  # asked only when needed: it may run ONNX's inference
    out_rank = (rank or 0) + len(axes)
    positions = [a + out_rank if a < 0 else a for a in axes]
    if any(a < 0 for a in axes) and rank is None or len(set(positions)) < len(positions):
        # the rule also says where axes name one output position twice (ONNX rejects that)
        return node.call("onnx.unsqueeze", node.x(0), node.int64s(axes))
    out = node.x(0)
    for a in sorted(positions):
        out = node.call("expand_dims", out, axis=a)
    return out


@converts("Concat")
def concat(node: Node) -> Any:
    """Concat along axis."""
    return node.call("concatenate", gb.tuple_(*node.args(), loc=node.loc), axis=int(node.attr("axis", 0)))


@converts("Split")
def split(node: Node) -> Any:
    """Split: by sizes (`onnx.split_sizes`, whose rule requires them to add up to the dim: one
    strided_slice per output ran sizes that did not, which onnxruntime rejects), into equal
    parts (`split`), or into num_outputs parts with a smaller last one (opset 18, `onnx.split`)."""
    axis = int(node.attr("axis", 0))
    sizes = [int(v) for v in node.attr("split", [])] if node.opset < 13 else (node.ints(1) if node.has(1) else None)
    if node.opset >= 13 and node.has(1) and sizes is None:
        call = node.call("onnx.split_sizes", node.x(0), node.x(1), num_outputs=len(node.outputs), axis=axis)
        return Tuple(call, len(node.outputs))
    if sizes:
        call = node.call("onnx.split_sizes", node.x(0), node.int64s(sizes), num_outputs=len(node.outputs), axis=axis)
        return Tuple(call, len(node.outputs))
    count = int(node.attr("num_outputs", len(node.outputs)))
    if node.opset >= 18 and node.attr("num_outputs") is not None:
        return Tuple(node.call("onnx.split", node.x(0), num_outputs=count, axis=axis), count)
    return Tuple(node.call("split", node.x(0), indices_or_sections=count, axis=axis), count)


@converts("Slice")
def slice_(node: Node) -> Any:
    """Slice: `strided_slice` when starts/ends/axes/steps are constants (attributes before
    opset 10), `onnx.slice` with tensors otherwise."""
    if node.opset < 10:
        starts, ends = node.attr("starts"), node.attr("ends")
        axes = node.attr("axes")
        return _strided(node, list(starts), list(ends), list(axes) if axes else None, None)
    consts = [node.ints(i) if node.has(i) else [] for i in range(1, 5)]
    given = [node.has(i) for i in range(1, 5)]
    known = [c for c in consts if c is not None]
    if len(known) == len(consts):
        starts, ends, axes, steps = known
        return _strided(node, starts, ends, axes if given[2] else None, steps if given[3] else None)
    empty = node.int64s([])
    extra = [node.x(i) if node.has(i) else empty for i in (3, 4)]
    return node.call("onnx.slice", node.x(0), node.x(1), node.x(2), *extra)


def _strided(node: Node, starts: list, ends: list, axes: Optional[list], steps: Optional[list]) -> Any:
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    return node.call(
        "strided_slice",
        node.x(0),
        begin=[int(v) for v in starts],
        end=[int(v) for v in ends],
        strides=[int(v) for v in steps],
        axes=[int(v) for v in axes],
    )


# indexing ---------------------------------------------------------------------------------------
@converts("Gather")
def gather(node: Node) -> Any:
    """Gather along axis: take with mode="fast", where negative indices count from the end and
    one out of range stops the run, as ONNX makes it an error (mode="wrap" wrapped index 3 of 3
    to 0 and ran what onnxruntime rejects)."""
    return node.call("take", node.x(0), node.x(1), axis=int(node.attr("axis", 0)), mode="fast")


@converts("GatherElements")
def gather_elements(node: Node) -> Any:
    """GatherElements along axis."""
    return node.call("onnx.gather_elements", node.x(0), node.x(1), axis=int(node.attr("axis", 0)))


@converts("GatherND")
def gather_nd(node: Node) -> Any:
    """GatherND with batch_dims."""
    return node.call("onnx.gather_nd", node.x(0), node.x(1), batch_dims=int(node.attr("batch_dims", 0)))


@converts("ScatterElements", "Scatter")
def scatter_elements(node: Node) -> Any:
    """ScatterElements (Scatter before opset 11) with reduction."""
    return node.call(
        "onnx.scatter_elements",
        node.x(0),
        node.x(1),
        node.x(2),
        axis=int(node.attr("axis", 0)),
        reduction=node.attr("reduction", "none"),
    )


@converts("ScatterND")
def scatter_nd(node: Node) -> Any:
    """ScatterND with reduction."""
    return node.call("onnx.scatter_nd", node.x(0), node.x(1), node.x(2), reduction=node.attr("reduction", "none"))


# shapes as values --------------------------------------------------------------------------------
@converts("Shape")
def shape(node: Node) -> Any:
    """Shape (with start/end, opset 15): `shape_of`, sliced; its value is the input's dims."""
    out = node.call("shape_of", node.x(0), dtype="int64")
    start, end = node.attr("start"), node.attr("end")
    if start is None and end is None:
        return out
    return node.call(
        "strided_slice", out, begin=[int(start or 0)], end=[INT64_MAX if end is None else int(end)], axes=[0]
    )


@converts("Size")
def size(node: Node) -> Any:
    """Size: the element count as an int64 scalar."""
    return node.call("ndarray_size", node.x(0), dtype="int64")


@converts("Expand")
def expand(node: Node) -> Any:
    """Expand: bidirectional broadcast to a shape vector."""
    return node.call("onnx.expand", node.x(0), node.x(1))


@converts("Tile")
def tile(node: Node) -> Any:
    """Tile: `tile(reps=...)` for constant repeats, `onnx.tile` otherwise."""
    if node.opset < 6:
        node.fail_attribute("inputs", "(input, tiles, axis)", "a repeats input (opset 6 and later)")
    reps = node.ints(1)
    if reps is not None:
        return node.call("tile", node.x(0), reps=reps)
    return node.call("onnx.tile", node.x(0), node.x(1))


@converts("ConstantOfShape")
def constant_of_shape(node: Node) -> Any:
    """ConstantOfShape: `full` for a constant shape; otherwise the fill value expanded to the
    shape (`onnx.expand` keeps an integer fill's elements known, as shape values). The fill
    value is the `value` attribute (a float32 0 by default)."""
    value = node.attr("value")
    array = np.zeros((1,), np.float32) if value is None else np.asarray(value).reshape(-1)
    dtype = _array_dtype(node, array)
    fill = literal(array[0].item(), dtype, node.loc)
    dims = node.ints(0)
    if dims is not None:
        return node.call("full", fill, shape=dims, dtype=dtype)
    return node.call("onnx.expand", fill, node.x(0))


def _array_dtype(node: Node, array: np.ndarray) -> str:
    from gradual.frontends.onnx.node import numpy_dtype

    dtype = numpy_dtype(array)
    if not dtype:
        node.fail_attribute("value", array.dtype.name, "a value of a dtype gradual runs")
    return dtype


@converts("Range")
def range_(node: Node) -> Any:
    """Range(start, limit, delta): `arange` of the three as scalars (its length is known when
    the values are). When
    all three are constants the frontend knows the length, max(ceil((limit - start) / delta),
    0), even of float ranges whose values the checker does not track: it says so with a cast,
    which the runtime verifies."""
    integral = _integer_bounds(node)
    if integral is not None:
        return node.call("arange", *integral, dtype=node.dtype(0))
    call = node.call("arange", *(_scalar(node, i) for i in range(3)))
    values = [node.value(i) for i in range(3)]
    dtype = node.dtype(0)
    if any(v is None for v in values) or dtype is None:
        return call
    start, limit, delta = (float(np.asarray(v).reshape(-1)[0]) for v in values)
    if delta == 0:
        return call
    length = max(int(np.ceil((limit - start) / delta)), 0)
    return gb.cast(call, gb.Tensor([length], dtype), loc=node.loc)


def _integer_bounds(node: Node) -> Optional[list]:
    """A float Range's three scalars as int64 ones, when each is a whole constant or a Cast of
    an integer tensor: `Range(0.0, Cast(Gather(Shape(x), 1)), 1.0)` (exporters' spelling of
    `torch.arange(x.shape[1], dtype=torch.float32)`) then has the size as its length, which a
    float scalar, carrying no shape value, would lose. Same length, same values in the float
    dtype. None for any other Range."""
    dtype = node.dtype(0)
    if dtype is None or not dtype.startswith(("float", "bfloat")):
        return None
    bounds = []
    for i in range(3):
        value = node.value(i)
        if value is not None:
            number = float(np.asarray(value).reshape(-1)[0]) if np.asarray(value).size == 1 else None
            if number is None or not number.is_integer() or abs(number) >= 2**31:
                return None
            bounds.append(literal(int(number), "int64", node.loc))
            continue
        source = node.importer.cast_sources.get(node.inputs[i])
        if source is None or (node.importer.info(source).dtype or "") not in ("int64", "int32"):
            return None
        var = node.importer.expr_of(source, node.loc)
        bounds.append(var if node.importer.info(source).dims == () else node.call("reshape", var, newshape=[]))
    return bounds


def _scalar(node: Node, i: int) -> Any:
    """Input i as a scalar: runtimes accept a one-element tensor where ONNX says scalar, so a
    tensor not known to be rank 0 is reshaped to one (checked: it must hold one element)."""
    if node.rank(i) == 0:
        return node.x(i)
    return node.call("reshape", node.x(i), newshape=[])


@converts("NonZero")
def nonzero(node: Node) -> Any:
    """NonZero: the transposed `argwhere` (rank x count, int64)."""
    return node.call("transpose", node.call("argwhere", node.x(0)))


@converts("Pad")
def pad(node: Node) -> Any:
    """Pad: `nn.pad` for constant pads over every dim (modes constant, edge, reflect),
    `onnx.pad` otherwise (wrap mode, pads or axes known only at runtime)."""
    mode = node.attr("mode", "constant") or "constant"
    if node.opset < 11:
        pads = [int(v) for v in node.attr("pads", node.attr("paddings", []))]
        value = node.scalar(float(node.attr("value", 0.0)), 0)
        return _relay_pad(node, pads, value, mode)
    value = _pad_value(node)
    known_pads, axes = node.ints(1), (node.ints(3) if node.has(3) else [])
    if known_pads is not None and axes == [] and mode != "wrap":
        return _relay_pad(node, known_pads, value, mode)
    axes_expr = node.x(3) if node.has(3) else node.int64s([])
    return node.call("onnx.pad", node.x(0), node.x(1), value, axes_expr, mode=mode)


def _pad_value(node: Node) -> Any:
    if not node.has(2):
        return node.scalar(0, 0)
    if node.rank(2) == 0:
        return node.x(2)
    return node.call("reshape", node.x(2), newshape=[])


def _relay_pad(node: Node, pads: list, value: Any, mode: str) -> Any:
    if mode not in ("constant", "edge", "reflect"):
        node.fail_attribute("mode", mode, "mode constant, edge, reflect or wrap")
    half = len(pads) // 2
    widths = [[pads[i], pads[i + half]] for i in range(half)]
    return node.call("nn.pad", node.x(0), value, pad_width=widths, pad_mode=mode)


@converts("Resize")
def resize(node: Node) -> Any:
    """Resize (opset 10 and later: X, roi, scales, sizes); scales known at import are also given
    as `static_scales`, so the checker computes the resized dims."""
    if node.opset < 11:
        return _resize_call(
            node,
            None,
            node.x(1),
            None,
            {
                "mode": node.attr("mode", "nearest"),
                "coordinate_transformation_mode": "asymmetric",
                "nearest_mode": "floor",
            },
        )
    attrs = {name: node.attr(name, default) for name, default in RESIZE_ATTRS.items() if node.attr(name) is not None}
    for flag in ("exclude_outside", "antialias"):
        if flag in attrs:
            attrs[flag] = bool(attrs[flag])
    roi = node.x(1) if node.has(1) else None
    scales = node.x(2) if node.has(2) else None
    sizes = node.x(3) if node.has(3) else None
    return _resize_call(node, roi, scales, sizes, attrs)


RESIZE_ATTRS = {
    "axes": None,
    "mode": "nearest",
    "coordinate_transformation_mode": "half_pixel",
    "nearest_mode": "round_prefer_floor",
    "cubic_coeff_a": -0.75,
    "exclude_outside": 0,
    "extrapolation_value": 0.0,
    "keep_aspect_ratio_policy": "stretch",
    "antialias": 0,
}


def _resize_call(node: Node, roi: Any, scales: Any, sizes: Any, attrs: dict) -> Any:
    empty_floats = node.constant(np.zeros((0,), np.float32), "float32")
    scale_index = 2 if node.opset >= 11 else 1
    known = node.value(scale_index) if scales is not None else None
    if known is not None and np.asarray(known).size:
        attrs["static_scales"] = [float(v) for v in np.asarray(known).reshape(-1)]
    if "axes" in attrs:
        attrs["axes"] = [int(a) for a in attrs["axes"]]
    if "cubic_coeff_a" in attrs or "extrapolation_value" in attrs:
        for name in ("cubic_coeff_a", "extrapolation_value"):
            if name in attrs:
                attrs[name] = float(attrs[name])
    return node.call(
        "onnx.resize",
        node.x(0),
        roi if roi is not None else empty_floats,
        scales if scales is not None else empty_floats,
        sizes if sizes is not None else node.int64s([]),
        **attrs,
    )


@converts("Upsample")
def upsample(node: Node) -> Any:
    """Upsample (deprecated): Resize with asymmetric coordinates (nearest: floor)."""
    attrs = {
        "mode": node.attr("mode", "nearest"),
        "coordinate_transformation_mode": "asymmetric",
        "nearest_mode": "floor",
    }
    if node.opset < 9:
        scales = [float(v) for v in node.attr("scales", [])]
        empty = node.constant(np.zeros((0,), np.float32), "float32")
        return node.call("onnx.resize", node.x(0), empty, empty, node.int64s([]), static_scales=scales, **attrs)
    return _resize_call(node, None, node.x(1), None, attrs)


@converts("DepthToSpace", "SpaceToDepth")
def depth_to_space(node: Node) -> Any:
    """DepthToSpace (DCR or CRD) and SpaceToDepth."""
    op = "onnx.depth_to_space" if node.op_type == "DepthToSpace" else "onnx.space_to_depth"
    return node.call(op, node.x(0), blocksize=int(node.attr("blocksize")), mode=node.attr("mode", "DCR"))


@converts("Trilu")
def trilu(node: Node) -> Any:
    """Trilu with an optional k input."""
    k = node.x(1) if node.has(1) else gb.const(0, "int64", loc=node.loc)
    return node.call("onnx.trilu", node.x(0), k, upper=bool(node.attr("upper", 1)))


@converts("CumSum", "CumProd")
def cumulative(node: Node) -> Any:
    """CumSum / CumProd along the axis input."""
    op = "onnx.cumsum" if node.op_type == "CumSum" else "onnx.cumprod"
    return node.call(
        op, node.x(0), node.x(1), exclusive=bool(node.attr("exclusive", 0)), reverse=bool(node.attr("reverse", 0))
    )


@converts("TopK")
def topk(node: Node) -> Any:
    """TopK: (values, int64 indices); k is an attribute before opset 10."""
    k = node.int64s([int(node.attr("k"))]) if node.opset < 10 else node.x(1)
    call = node.call("onnx.topk", node.x(0), k, axis=int(node.attr("axis", -1)), largest=bool(node.attr("largest", 1)))
    return Tuple(call, 2)


@converts("OneHot")
def one_hot(node: Node) -> Any:
    """OneHot(indices, depth, values=[off, on])."""
    depth = node.value(1)
    # ONNX allows any number type for depth and reads it as an int64, as the operator declares it
    depth_expr = (
        node.int64s([int(depth.reshape(-1)[0])])
        if depth is not None and depth.size == 1
        else node.call("cast", node.x(1), dtype="int64")
    )
    return node.call("onnx.one_hot", node.x(0), depth_expr, node.x(2), axis=int(node.attr("axis", -1)))


@converts("EyeLike")
def eye_like(node: Node) -> Any:
    """EyeLike with k and an optional dtype."""
    dtype = node.attr("dtype")
    chosen = node.onnx_dtype(int(dtype), node.outputs[0]) if dtype is not None else ""
    return node.call("onnx.eye_like", node.x(0), k=int(node.attr("k", 0)), dtype=chosen)
