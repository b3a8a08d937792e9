"""Input generators for Relay's scatters, scans, image and vision operators and the rest of
what tests/test_runtime_kernels.py checks by family (see kernel_inputs.py for the registry):
each draws inputs and attributes the operator's rule accepts."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from kernel_inputs import FLOATS, INTS, Draw, any_dtype, array, axis_in, generator, shapes
from kernel_inputs_onnx import _einsum as onnx_einsum_inputs


def _index_array(draw: Draw, shape: tuple, size: int, dtype: str = "int64") -> np.ndarray:
    """Indices into a dim of `size` (negative ones too), of `shape`."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return np.asarray(rng.integers(-size, size, size=shape).astype(dtype))


# scatter ----------------------------------------------------------------------------------------
@generator("scatter_elements")
def _scatter_elements(draw: Draw) -> tuple:
    shape = draw(shapes(1, 3, 1, 4))
    axis = axis_in(draw, len(shape))
    index_shape = tuple(draw(st.integers(0, n)) for n in shape)
    reduction = draw(st.sampled_from(("update", "add", "mul", "mean", "min", "max")))
    dtype = draw(st.sampled_from(FLOATS + INTS))
    indices = _index_array(draw, index_shape, shape[axis], draw(st.sampled_from(INTS)))
    return [array(draw, shape, dtype), indices, array(draw, index_shape, dtype)], {"axis": axis, "reduction": reduction}


@generator("scatter_nd")
def _scatter_nd(draw: Draw) -> tuple:
    shape = draw(shapes(1, 3, 1, 4))
    m = draw(st.integers(1, len(shape)))
    ys = draw(shapes(0, 2, 1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    indices = np.stack([rng.integers(-shape[i], shape[i], size=ys) for i in range(m)]).astype(
        draw(st.sampled_from(INTS))
    )
    dtype = draw(st.sampled_from(FLOATS + INTS))
    mode = draw(st.sampled_from(("update", "add", "mul", "min", "max")))
    return [array(draw, shape, dtype), indices, array(draw, ys + shape[m:], dtype)], {"mode": mode}


@generator("strided_set")
def _strided_set(draw: Draw) -> tuple:
    shape = draw(shapes(1, 3, 1, 5))
    dtype = any_dtype(draw)
    count = draw(st.integers(0, len(shape)))
    begin = [draw(st.integers(-6, 6)) for _ in range(count)]
    end = [draw(st.integers(-6, 6)) for _ in range(draw(st.integers(0, len(shape))))]
    steps = [draw(st.sampled_from((1, 2, -1, -2))) for _ in range(draw(st.integers(0, len(shape))))]
    slices = tuple(
        slice(
            begin[i] if i < len(begin) else None,
            end[i] if i < len(end) else None,
            steps[i] if i < len(steps) else 1,
        )
        for i in range(len(shape))
    )
    target = np.zeros(shape)[slices].shape
    value_shape = tuple(1 if draw(st.booleans()) else n for n in target[draw(st.integers(0, len(target))) :])
    vectors = [np.asarray(v, "int32").reshape(-1) for v in (begin, end, steps)]
    return [array(draw, shape, dtype), array(draw, value_shape, dtype), *vectors], {}


@generator("adv_index")
def _adv_index(draw: Draw) -> tuple:
    shape = draw(shapes(1, 3, 1, 4))
    count = draw(st.integers(1, len(shape)))
    index_shape = draw(shapes(0, 2, 1, 3))
    indices = [
        _index_array(draw, index_shape[draw(st.integers(0, len(index_shape))) :], shape[i], draw(st.sampled_from(INTS)))
        for i in range(count)
    ]
    return [(array(draw, shape, any_dtype(draw)), *indices)], {}


# scans, sequences and grids ---------------------------------------------------------------------
@generator("cumsum", "cumprod")
def _scan(draw: Draw) -> tuple:
    shape = draw(shapes(0, 3, 0, 4))
    axis = axis_in(draw, len(shape)) if shape and draw(st.booleans()) else None
    dtype = draw(st.sampled_from(("", "float64", "int64")))
    exclusive = draw(st.sampled_from((None, False, True)))
    return [array(draw, shape, any_dtype(draw))], {"axis": axis, "dtype": dtype, "exclusive": exclusive}


@generator("reverse_sequence")
def _reverse_sequence(draw: Draw) -> tuple:
    shape = draw(shapes(2, 4, 1, 4))
    seq, batch = draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True))
    lengths = np.array(
        [draw(st.integers(-1, shape[seq] + 1)) for _ in range(shape[batch])], draw(st.sampled_from(INTS))
    )
    seq_axis = seq - len(shape) if draw(st.booleans()) else seq
    return [array(draw, shape, any_dtype(draw)), lengths], {"seq_axis": seq_axis, "batch_axis": batch}


@generator("trilu")
def _trilu(draw: Draw) -> tuple:
    shape = draw(shapes(2, 4, 0, 4))
    k = np.array(draw(st.integers(-4, 4)), draw(st.sampled_from(INTS)))
    return [array(draw, shape, any_dtype(draw)), k], {"upper": draw(st.booleans())}


@generator("stft")
def _stft(draw: Draw) -> tuple:
    n_fft = draw(st.integers(1, 6))
    win = draw(st.integers(1, n_fft))
    length = n_fft + draw(st.integers(0, 6))
    shape = (draw(st.integers(1, 2)), length) if draw(st.booleans()) else (length,)
    window = array(draw, (win + draw(st.integers(0, 2)),), draw(st.sampled_from(FLOATS + ("int32",))))
    attrs = {
        "n_fft": n_fft,
        "hop_length": draw(st.integers(1, 4)),
        "win_length": win,
        "normalized": draw(st.booleans()),
        "onesided": draw(st.booleans()),
    }
    return [array(draw, shape, draw(st.sampled_from(FLOATS))), window], attrs


@generator("searchsorted")
def _searchsorted(draw: Draw) -> tuple:
    values_shape = draw(shapes(1, 3, 1, 4))
    if draw(st.booleans()):
        sequence = np.sort(array(draw, (draw(st.integers(1, 5)),)))
    else:
        sequence = np.sort(array(draw, values_shape[:-1] + (draw(st.integers(1, 5)),)), axis=-1)
    attrs = {"right": draw(st.booleans()), "dtype": draw(st.sampled_from(("int32", "int64")))}
    return [sequence, array(draw, values_shape)], attrs


@generator("meshgrid")
def _meshgrid(draw: Draw) -> tuple:
    dtype = any_dtype(draw)
    fields = tuple(array(draw, draw(shapes(0, 1, 0, 4)), dtype) for _ in range(draw(st.integers(1, 3))))
    return [fields], {"indexing": draw(st.sampled_from(("ij", "xy")))}


@generator("sliding_window")
def _sliding_window(draw: Draw) -> tuple:
    shape = draw(shapes(1, 4, 1, 5))
    axis = draw(st.integers(0, len(shape) - 1))
    windows = [draw(st.integers(1, n)) for n in shape[axis:]]
    strides = [draw(st.integers(1, 3)) for _ in windows]
    return [array(draw, shape, any_dtype(draw))], {"axis": axis, "window_shape": windows, "strides": strides}


@generator("collapse_sum_to")
def _collapse_sum_to(draw: Draw) -> tuple:
    shape = draw(shapes(0, 4, 1, 4))
    kept = shape[draw(st.integers(0, len(shape))) :]
    target = [1 if draw(st.booleans()) else n for n in kept]
    vector = np.array(target, draw(st.sampled_from(INTS))).reshape(-1)
    attrs = {"shape": target} if draw(st.booleans()) else {}
    return [array(draw, shape, draw(st.sampled_from(FLOATS + INTS))), vector], attrs


# image sampling ---------------------------------------------------------------------------------
@generator("image.grid_sample")
def _grid_sample(draw: Draw) -> tuple:
    rank = draw(st.sampled_from((4, 5)))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    data = array(draw, (n, c) + tuple(draw(st.integers(1, 4)) for _ in range(rank - 2)), "float32")
    grid = np.clip(array(draw, (n, rank - 2) + tuple(draw(st.integers(1, 4)) for _ in range(rank - 2))), -1.2, 1.2)
    methods = ("bilinear", "nearest", "bicubic") if rank == 4 else ("bilinear", "nearest")
    attrs = {
        "method": draw(st.sampled_from(methods)),
        "layout": "NCHW" if rank == 4 else "NCDHW",
        "padding_mode": draw(st.sampled_from(("zeros", "border", "reflection"))),
        "align_corners": draw(st.booleans()),
    }
    return [data, grid.astype("float32")], attrs


@generator("image.affine_grid")
def _affine_grid(draw: Draw) -> tuple:
    theta = array(draw, (draw(st.integers(1, 3)), 2, 3), draw(st.sampled_from(FLOATS)))
    return [theta], {"target_shape": [draw(st.integers(2, 5)), draw(st.integers(2, 5))]}


@generator("image.dilation2d")
def _dilation2d(draw: Draw) -> tuple:
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    h = (kh - 1) * dh + 1 + draw(st.integers(0, 3))
    w = (kw - 1) * dw + 1 + draw(st.integers(0, 3))
    data_layout = draw(st.sampled_from(("NCHW", "NHWC")))
    kernel_layout = draw(st.sampled_from(("IHW", "HWI")))
    shape = {"N": n, "C": c, "H": h, "W": w}
    kshape = {"I": c, "H": kh, "W": kw}
    dtype = draw(st.sampled_from(FLOATS))
    attrs = {
        "strides": [draw(st.integers(1, 2)), draw(st.integers(1, 2))],
        "padding": [draw(st.integers(0, 1)) for _ in range(draw(st.sampled_from((1, 2, 4))))],
        "dilations": [dh, dw],
        "data_layout": data_layout,
        "kernel_layout": kernel_layout,
    }
    data = array(draw, tuple(shape[letter] for letter in data_layout), dtype)
    weight = array(draw, tuple(kshape[letter] for letter in kernel_layout), dtype)
    return [data, weight], attrs


@generator("image.crop_and_resize")
def _crop_and_resize(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    n, c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    dims = {"N": n, "C": c, "H": h, "W": w}
    count = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    boxes = rng.uniform(-0.2, 1.2, size=(count, 4)).astype("float32")
    indices = rng.integers(0, n, size=(count,)).astype(draw(st.sampled_from(INTS)))
    attrs = {
        "crop_size": [draw(st.integers(1, 4)), draw(st.integers(1, 4))],
        "layout": layout,
        "method": draw(st.sampled_from(("bilinear", "nearest_neighbor"))),
        "extrapolation_value": draw(st.floats(-1, 1)),
    }
    return [array(draw, tuple(dims[letter] for letter in layout), "float32"), boxes, indices], attrs


@generator("dyn.image.resize2d")
def _dyn_resize2d(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    dims = {
        "N": draw(st.integers(1, 2)),
        "C": draw(st.integers(1, 2)),
        "H": draw(st.integers(1, 4)),
        "W": draw(st.integers(1, 4)),
    }
    size = np.array([draw(st.integers(1, 5)), draw(st.integers(1, 5))], draw(st.sampled_from(INTS)))
    roi = np.array([0.0, 0.0, 1.0, 1.0], "float32")
    attrs = {
        "layout": layout,
        "method": draw(st.sampled_from(("nearest_neighbor", "linear", "cubic"))),
        "coordinate_transformation_mode": draw(st.sampled_from(("half_pixel", "align_corners", "asymmetric"))),
    }
    return [array(draw, tuple(dims[letter] for letter in layout), "float32"), size, roi], attrs


# block rearrangements, dilation, mirror padding -------------------------------------------------
@generator("nn.dilate")
def _dilate(draw: Draw) -> tuple:
    shape = draw(shapes(1, 3, 1, 4))
    strides = [draw(st.integers(1, 3)) for _ in shape]
    return [array(draw, shape, any_dtype(draw))], {"strides": strides, "dilation_value": draw(st.floats(-2, 2))}


@generator("nn.mirror_pad")
def _mirror_pad(draw: Draw) -> tuple:
    shape = draw(shapes(1, 3, 1, 4))
    mode = draw(st.sampled_from(("SYMMETRIC", "REFLECT")))
    most = [n - 1 if mode == "REFLECT" else n for n in shape]
    widths = [[draw(st.integers(0, m)), draw(st.integers(0, m))] for m in most]
    return [array(draw, shape, any_dtype(draw))], {"pad_width": widths, "mode": mode}


@generator("nn.space_to_batch_nd")
def _space_to_batch_nd(draw: Draw) -> tuple:
    m = draw(st.integers(1, 2))
    blocks = [draw(st.integers(1, 3)) for _ in range(m)]
    paddings, spatial = [], []
    for b in blocks:
        before, after = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        total = b * max(draw(st.integers(1, 3)), -(-(before + after) // b))  # a multiple of b, at least the pads
        paddings.append([before, after])
        spatial.append(total - before - after)
    shape = (draw(st.integers(1, 2)), *spatial, *draw(shapes(0, 1, 1, 3)))
    return [array(draw, shape, any_dtype(draw))], {"block_shape": blocks, "paddings": paddings}


@generator("nn.batch_to_space_nd")
def _batch_to_space_nd(draw: Draw) -> tuple:
    m = draw(st.integers(1, 2))
    blocks = [draw(st.integers(1, 3)) for _ in range(m)]
    spatial = [draw(st.integers(1, 3)) for _ in range(m)]
    crops = []
    for b, d in zip(blocks, spatial):
        before = draw(st.integers(0, b * d))
        crops.append([before, draw(st.integers(0, b * d - before))])
    batch = int(np.prod(blocks)) * draw(st.integers(1, 2))
    shape = (batch, *spatial, *draw(shapes(0, 1, 1, 3)))
    return [array(draw, shape, any_dtype(draw))], {"block_shape": blocks, "crops": crops}


@generator("dyn.expand_dims")
def _dyn_expand_dims(draw: Draw) -> tuple:
    shape = draw(shapes(0, 3))
    axis = np.array(draw(st.integers(-len(shape) - 1, len(shape))), draw(st.sampled_from(INTS)))
    return [array(draw, shape, any_dtype(draw)), axis], {"num_newaxis": draw(st.integers(0, 2))}


# vision -----------------------------------------------------------------------------------------
def _rois(draw: Draw, batch: int, height: int, width: int) -> np.ndarray:
    """Regions [batch index, x1, y1, x2, y2] around the image (some past its edges)."""
    count = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    xs = np.sort(rng.uniform(-1.0, width + 1.0, size=(count, 2)), axis=1)
    ys = np.sort(rng.uniform(-1.0, height + 1.0, size=(count, 2)), axis=1)
    index = rng.integers(0, batch, size=count)
    rois = np.stack([index, xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]], 1) if count else np.zeros((0, 5))
    return rois.astype(draw(st.sampled_from(FLOATS)))


@generator("vision.roi_pool")
def _roi_pool(draw: Draw) -> tuple:
    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    n, c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 6))
    shape = (n, c, h, w) if layout == "NCHW" else (n, h, w, c)
    attrs: dict = {
        "pooled_size": [draw(st.integers(1, 3)), draw(st.integers(1, 3))],
        "spatial_scale": draw(st.sampled_from((1.0, 0.5, 0.25))),
        "layout": layout,
    }
    return [array(draw, shape, draw(st.sampled_from(FLOATS))), _rois(draw, n, h, w)], attrs


@generator("vision.roi_align")
def _roi_align(draw: Draw) -> tuple:
    args, attrs = _roi_pool(draw)
    attrs.update(sample_ratio=draw(st.sampled_from((-1, 0, 1, 2))), mode=draw(st.sampled_from(("avg", "max"))))
    return args, attrs


@generator("vision.yolo_reorg")
def _yolo_reorg(draw: Draw) -> tuple:
    stride = draw(st.integers(1, 3))
    shape = (
        draw(st.integers(1, 2)),
        stride * stride * draw(st.integers(0, 2)),
        stride * draw(st.integers(0, 2)),
        stride * draw(st.integers(1, 2)),
    )
    return [array(draw, shape, any_dtype(draw))], {"stride": stride}


@generator("vision.multibox_prior")
def _multibox_prior(draw: Draw) -> tuple:
    shape = (1, draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    attrs = {
        "sizes": [draw(st.floats(0.1, 2.0)) for _ in range(draw(st.integers(1, 3)))],
        "ratios": [draw(st.floats(0.5, 3.0)) for _ in range(draw(st.integers(1, 3)))],
        "steps": [draw(st.sampled_from((-1.0, 0.5, 2.0))) for _ in range(2)],
        "offsets": [draw(st.floats(0.0, 1.0)) for _ in range(2)],
        "clip": draw(st.booleans()),
    }
    return [array(draw, shape, draw(st.sampled_from(FLOATS)))], attrs


@generator("vision.multibox_transform_loc")
def _multibox_transform_loc(draw: Draw) -> tuple:
    b, k, n = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 5))
    dtype = draw(st.sampled_from(FLOATS))
    anchors = np.sort(np.abs(array(draw, (1, n, 4), dtype)), axis=-1)
    attrs = {
        "clip": draw(st.booleans()),
        "threshold": draw(st.floats(0.0, 0.5)),
        "keep_background": draw(st.booleans()),
    }
    return [np.abs(array(draw, (b, k, n), dtype)), array(draw, (b, 4 * n), dtype), anchors], attrs


def _box_rows(draw: Draw, b: int, n: int, k: int, dtype: str) -> np.ndarray:
    """Boxes (b, n, k): class ids from -1 to 2 in entry 0, scores in entry 1, corners after."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = rng.uniform(0.0, 10.0, size=(b, n, k))
    rows[:, :, 0] = rng.integers(-1, 3, size=(b, n))
    rows[:, :, 1] = rng.uniform(-0.2, 1.0, size=(b, n))
    return rows.astype(dtype)


@generator("vision.get_valid_counts")
def _get_valid_counts(draw: Draw) -> tuple:
    b, n, k = draw(st.integers(1, 2)), draw(st.integers(0, 5)), draw(st.integers(5, 6))
    threshold = np.array(draw(st.floats(0.0, 0.8)), draw(st.sampled_from(FLOATS)))
    attrs = {"id_index": draw(st.sampled_from((-1, 0))), "score_index": 1}
    return [_box_rows(draw, b, n, k, draw(st.sampled_from(FLOATS))), threshold], attrs


@generator("vision.non_max_suppression")
def _non_max_suppression(draw: Draw) -> tuple:
    b, n, k = draw(st.integers(1, 2)), draw(st.integers(0, 5)), draw(st.integers(6, 7))
    rows = _box_rows(draw, b, n, k, draw(st.sampled_from(FLOATS)))
    valid = np.array([draw(st.integers(0, n)) for _ in range(b)], draw(st.sampled_from(INTS)))
    indices = np.tile(np.arange(n), (b, 1)).astype(draw(st.sampled_from(INTS)))
    attrs = {
        "force_suppress": draw(st.booleans()),
        "top_k": draw(st.sampled_from((-1, 1, 3))),
        "coord_start": 2,
        "score_index": 1,
        "id_index": draw(st.sampled_from((-1, 0))),
        "return_indices": draw(st.booleans()),
        "invalid_to_bottom": draw(st.booleans()),
    }
    limits = [np.array(draw(st.sampled_from((-1, 0, 2))), "int32"), np.array(draw(st.floats(-0.1, 1.0)), "float32")]
    return [rows, valid, indices, *limits], attrs


@generator("vision.all_class_non_max_suppression")
def _all_class_nms(draw: Draw) -> tuple:
    b, k, n = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(0, 5))
    dtype = draw(st.sampled_from(FLOATS))
    boxes = np.sort(np.abs(array(draw, (b, n, 4), dtype)), axis=-1)
    scores = np.abs(array(draw, (b, k, n), dtype))
    limits = [
        np.array(draw(st.sampled_from((-1, 1, 3))), draw(st.sampled_from(INTS))),
        np.array(draw(st.floats(0.0, 1.0)), "float32"),
        np.array(draw(st.floats(0.0, 0.5)), "float32"),
    ]
    return [boxes, scores, *limits], {"output_format": draw(st.sampled_from(("onnx", "tensorflow")))}


@generator("vision.proposal")
def _proposal(draw: Draw) -> tuple:
    scales = [draw(st.sampled_from((0.5, 1.0, 2.0))) for _ in range(draw(st.integers(1, 2)))]
    ratios = [draw(st.sampled_from((0.5, 1.0, 2.0))) for _ in range(draw(st.integers(1, 2)))]
    anchors = len(scales) * len(ratios)
    b, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dtype = draw(st.sampled_from(FLOATS))
    stride = draw(st.sampled_from((4, 16)))
    im_info = np.array([[stride * h * 1.5, stride * w, 1.0]] * b, dtype)
    attrs = {
        "scales": scales,
        "ratios": ratios,
        "feature_stride": stride,
        "threshold": draw(st.floats(0.3, 0.9)),
        "rpn_pre_nms_top_n": draw(st.sampled_from((-1, 3, 100))),
        "rpn_post_nms_top_n": draw(st.integers(1, 4)),
        "rpn_min_size": draw(st.sampled_from((1, 16))),
        "iou_loss": draw(st.booleans()),
    }
    scores = np.abs(array(draw, (b, 2 * anchors, h, w), dtype))
    return [scores, array(draw, (b, 4 * anchors, h, w), dtype) * 0.2, im_info], attrs


# pooling gradients ------------------------------------------------------------------------------
@generator("nn.max_pool2d_grad")
def _pool2d_grad(draw: Draw) -> tuple:
    from gradual.runtime.kernels.conv import _pool_geometry

    layout = draw(st.sampled_from(("NCHW", "NHWC")))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    strides = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    padding = draw(st.sampled_from(([0, 0], [1, 1], [1, 0, 0, 1])))
    ceil = draw(st.booleans())
    pads = [(padding[0], padding[0]), (padding[1], padding[1])] if len(padding) == 2 else [(1, 0), (0, 1)]
    spatial = [k + draw(st.integers(0, 3)) for k in kernel]
    pooled = [_pool_geometry(d, k, b + a, s, 1, ceil)[0] for d, k, (b, a), s in zip(spatial, kernel, pads, strides)]
    dtype = draw(st.sampled_from(FLOATS))

    def laid_out(h: int, w: int) -> tuple:
        return (n, c, h, w) if layout == "NCHW" else (n, h, w, c)

    attrs: dict = {"pool_size": kernel, "strides": strides, "padding": padding, "layout": layout, "ceil_mode": ceil}
    return [array(draw, laid_out(*pooled), dtype), array(draw, laid_out(*spatial), dtype)], attrs


@generator("nn.avg_pool2d_grad")
def _avg_pool2d_grad(draw: Draw) -> tuple:
    args, attrs = _pool2d_grad(draw)
    return args, dict(attrs, count_include_pad=draw(st.booleans()))


@generator("nn.correlation")
def _correlation(draw: Draw) -> tuple:
    kernel, displacement = draw(st.sampled_from((1, 3))), draw(st.integers(0, 2))
    stride1, stride2 = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    padding = draw(st.sampled_from(([0, 0], [1, 2], [2, 2], [1, 0, 2, 3])))
    border = displacement + kernel // 2
    low_h = max(1, 2 * border + 1 - (padding[0] + padding[-2] if len(padding) == 4 else 2 * padding[0]))
    low_w = max(1, 2 * border + 1 - (padding[1] + padding[3] if len(padding) == 4 else 2 * padding[1]))
    shape = (
        draw(st.integers(1, 2)),
        draw(st.integers(1, 3)),
        low_h + draw(st.integers(0, 2)),
        low_w + draw(st.integers(0, 2)),
    )
    dtype = draw(st.sampled_from(FLOATS))
    attrs = {
        "kernel_size": kernel,
        "max_displacement": displacement,
        "stride1": stride1,
        "stride2": stride2,
        "padding": padding,
        "is_multiply": draw(st.booleans()),
    }
    return [array(draw, shape, dtype), array(draw, shape, dtype)], attrs


# einsum: Relay's is NumPy's, as ONNX's Einsum is
generator("einsum")(onnx_einsum_inputs)


@generator("nn.contrib_conv2d_NCHWc")
def _conv2d_nchwc(draw: Draw) -> tuple:
    ib, ob = draw(st.sampled_from((1, 2, 4))), draw(st.sampled_from((1, 2, 4)))
    ic, oc = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides, dilation = [draw(st.integers(1, 2)) for _ in "hw"], [draw(st.integers(1, 2)) for _ in "hw"]
    padding = draw(st.sampled_from(([0, 0], [1, 1], [1, 0, 0, 1])))
    h = (kh - 1) * dilation[0] + 1 + draw(st.integers(0, 3))
    w = (kw - 1) * dilation[1] + 1 + draw(st.integers(0, 3))
    dtype = draw(st.sampled_from(FLOATS))
    attrs = {
        "strides": strides,
        "padding": padding,
        "dilation": dilation,
        "channels": oc * ob,
        "kernel_size": [kh, kw],
        "data_layout": f"NCHW{ib}c",
        "kernel_layout": f"OIHW{ib}i{ob}o",
        "out_layout": f"NCHW{ob}c",
    }
    return [
        array(draw, (draw(st.integers(1, 2)), ic, h, w, ib), dtype),
        array(draw, (oc, ic, kh, kw, ib, ob), dtype),
    ], attrs


# bit-serial products ----------------------------------------------------------------------------
PACK_WIDTHS = {"uint8": 8, "uint16": 16, "uint32": 32}


@generator("nn.bitpack")
def _bitpack(draw: Draw) -> tuple:
    pack_type = draw(st.sampled_from(sorted(PACK_WIDTHS)))
    shape = list(draw(shapes(1, 3, 1, 3)))
    pack_axis = draw(st.integers(0, len(shape) - 1))
    shape[pack_axis] = PACK_WIDTHS[pack_type] * draw(st.integers(0, 2))
    data = np.asarray(np.random.default_rng(draw(st.integers(0, 2**16))).integers(-8, 8, size=shape)).astype(
        draw(st.sampled_from(("int8", "int16", "int32")))
    )
    attrs = {
        "bits": draw(st.integers(1, 3)),
        "pack_axis": pack_axis,
        "bit_axis": draw(st.integers(0, len(shape))),
        "pack_type": pack_type,
    }
    return [data], attrs


def _bit_values(draw: Draw, shape: tuple) -> np.ndarray:
    return np.asarray(np.random.default_rng(draw(st.integers(0, 2**16))).integers(0, 4, size=shape)).astype(
        draw(st.sampled_from(("int16", "int32")))
    )


@generator("nn.bitserial_dense")
def _bitserial_dense(draw: Draw) -> tuple:
    pack = draw(st.sampled_from(sorted(PACK_WIDTHS)))
    k = PACK_WIDTHS[pack] * draw(st.integers(1, 2))
    units = draw(st.integers(1, 3))
    attrs = {
        "units": units,
        "data_bits": draw(st.integers(1, 2)),
        "weight_bits": draw(st.integers(1, 2)),
        "pack_dtype": pack,
        "out_dtype": draw(st.sampled_from(("", "int16", "int32"))),
        "unipolar": draw(st.booleans()),
    }
    return [_bit_values(draw, (draw(st.integers(0, 2)), k)), _bit_values(draw, (units, k))], attrs


@generator("nn.bitserial_conv2d")
def _bitserial_conv2d(draw: Draw) -> tuple:
    pack = draw(st.sampled_from(("uint8", "uint16")))
    c, o = PACK_WIDTHS[pack], draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = kh + draw(st.integers(0, 2)), kw + draw(st.integers(0, 2))
    nchw = draw(st.booleans())
    data = _bit_values(draw, (1, c, h, w) if nchw else (1, h, w, c))
    weight = _bit_values(draw, (o, c, kh, kw) if nchw else (kh, kw, c, o))
    attrs = {
        "strides": [draw(st.integers(1, 2)), draw(st.integers(1, 2))],
        "padding": draw(st.sampled_from(([0, 0], [1, 1], [1, 0, 0, 1]))),
        "kernel_size": [kh, kw],
        "channels": o,
        "activation_bits": draw(st.integers(1, 2)),
        "weight_bits": draw(st.integers(1, 2)),
        "data_layout": "NCHW" if nchw else "NHWC",
        "kernel_layout": "OIHW" if nchw else "HWIO",
        "pack_dtype": pack,
        "out_dtype": draw(st.sampled_from(("int16", "int32"))),
        "unipolar": draw(st.booleans()),
    }
    return [data, weight], attrs
