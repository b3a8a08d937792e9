"""Input generators of the ONNX operators of whole model parts (stdlib/onnx_models.rly):
recurrent layers, attention, quantization, signal processing, sampling. An optional input left
out is an empty vector, as the frontend passes it."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from kernel_inputs import ABSENT, FLOATS, INTS, Draw, array, axis_in, generator, ints, positive, scalar, shapes


def _float(draw: Draw) -> str:
    return draw(st.sampled_from(FLOATS))


def _optional(draw: Draw, make: object) -> np.ndarray:
    """The input `make()` builds, or the empty vector of an input left out."""
    return make() if draw(st.booleans()) else ABSENT  # type: ignore[operator]


# recurrent layers -------------------------------------------------------------------------------
ACTIVATIONS = (
    "Relu",
    "Tanh",
    "Sigmoid",
    "Affine",
    "LeakyRelu",
    "ThresholdedRelu",
    "ScaledTanh",
    "HardSigmoid",
    "Elu",
    "Softsign",
    "Softplus",
)
PER_DIRECTION = {"rnn": 1, "gru": 2, "lstm": 3}


@generator("onnx.rnn")
def _rnn(draw: Draw) -> tuple:
    kind = draw(st.sampled_from(("rnn", "gru", "lstm")))
    gates = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
    direction = draw(st.sampled_from(("forward", "reverse", "bidirectional")))
    dirs = 2 if direction == "bidirectional" else 1
    layout = draw(st.integers(0, 1))
    seq, batch, size, hidden = (
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
    )
    dtype = _float(draw)
    x = array(draw, (seq, batch, size) if layout == 0 else (batch, seq, size), dtype)
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    args = [
        x,
        array(draw, (dirs, gates * hidden, size), dtype),
        array(draw, (dirs, gates * hidden, hidden), dtype),
        _optional(draw, lambda: array(draw, (dirs, 2 * gates * hidden), dtype)),
        _optional(draw, lambda: rng.integers(1, seq + 1, size=batch).astype("int32")),
        _optional(draw, lambda: array(draw, state, dtype)),
        _optional(draw, lambda: array(draw, state, dtype)) if kind == "lstm" else ABSENT,
        _optional(draw, lambda: array(draw, (dirs, 3 * hidden), dtype)) if kind == "lstm" else ABSENT,
    ]
    attrs = {
        "kind": kind,
        "hidden_size": draw(st.sampled_from((None, hidden))),
        "direction": direction,
        "layout": layout,
        "clip": draw(st.none() | st.floats(0.5, 3)),
        "input_forget": kind == "lstm" and draw(st.booleans()),
        "linear_before_reset": kind == "gru" and draw(st.booleans()),
    }
    if draw(st.booleans()):
        count = PER_DIRECTION[kind] * dirs
        attrs["activations"] = [draw(st.sampled_from(ACTIVATIONS)) for _ in range(count)]
        attrs["activation_alpha"] = [draw(st.floats(0.1, 1)) for _ in range(count)] if draw(st.booleans()) else None
        attrs["activation_beta"] = [draw(st.floats(0.1, 1)) for _ in range(count)] if draw(st.booleans()) else None
    return args, attrs


# attention ----------------------------------------------------------------------------------------
@generator("onnx.attention")
def _attention(draw: Draw) -> tuple:
    batch, kv_heads, group = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    q_heads = kv_heads * group
    q_seq, kv_seq, head, v_head = (draw(st.integers(1, 3)) for _ in range(4))
    past = draw(st.integers(0, 2)) if draw(st.booleans()) else None
    total = kv_seq + (past or 0)
    dtype = _float(draw)
    three_d = draw(st.booleans())
    if three_d:
        q = array(draw, (batch, q_seq, q_heads * head), dtype)
        k = array(draw, (batch, kv_seq, kv_heads * head), dtype)
        v = array(draw, (batch, kv_seq, kv_heads * v_head), dtype)
    else:
        q = array(draw, (batch, q_heads, q_seq, head), dtype)
        k = array(draw, (batch, kv_heads, kv_seq, head), dtype)
        v = array(draw, (batch, kv_heads, kv_seq, v_head), dtype)
    mask = ABSENT
    if draw(st.booleans()):
        mask_dtype = draw(st.sampled_from(("bool", dtype)))
        width = draw(st.integers(1, total))  # a shorter last dim is padded with -inf
        lead = draw(st.sampled_from(((), (q_seq,), (1, q_seq), (q_heads, q_seq), (batch, 1, q_seq))))
        mask = array(draw, lead + (width,), mask_dtype) if lead else array(draw, (q_seq, width), mask_dtype)
    past_key = array(draw, (batch, kv_heads, past, head), dtype) if past is not None else ABSENT
    past_value = array(draw, (batch, kv_heads, past, v_head), dtype) if past is not None else ABSENT
    nonpad = ABSENT
    if past is None and draw(st.booleans()):
        nonpad = np.random.default_rng(draw(st.integers(0, 2**16))).integers(0, kv_seq + 1, size=batch).astype("int64")
    attrs = {
        "is_causal": draw(st.booleans()),
        "q_num_heads": q_heads if three_d else None,
        "kv_num_heads": kv_heads if three_d else None,
        "qk_matmul_output_mode": draw(st.integers(0, 3)),
        "scale": draw(st.none() | st.floats(0.1, 2)),
        "softcap": draw(st.sampled_from((0.0, 0.0, 5.0))),
        "softmax_precision": draw(st.sampled_from(("", "float32", "float64"))),
        "left_window_size": draw(st.integers(-1, 2)),
        "right_window_size": draw(st.integers(-1, 2)),
    }
    return [q, k, v, mask, past_key, past_value, nonpad], attrs


# quantization -----------------------------------------------------------------------------------
QUANTIZED = ("int8", "uint8", "int16", "uint16", "int4", "uint4")  # ONNX's output types (not int32)


def _granularity(draw: Draw, shape: tuple) -> tuple:
    """(scale shape, axis, block_size): per tensor, per axis, or blocked along axis."""
    kind = draw(st.sampled_from(("tensor", "axis", "block"))) if shape else "tensor"
    if kind == "tensor":
        return draw(st.sampled_from(((), (1,)))), draw(st.integers(-1, 1)) if shape else 1, 0
    axis = axis_in(draw, len(shape))
    if kind == "axis":
        return (shape[axis],), axis, 0
    block = draw(st.integers(1, 3))
    blocked = tuple(-(-d // block) if i == axis % len(shape) else d for i, d in enumerate(shape))
    return blocked, axis, block


@generator("onnx.quantize")
def _quantize(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    scale_shape, axis, block = _granularity(draw, shape)
    dtype = draw(st.sampled_from(QUANTIZED + ("float8_e4m3fn", "float8_e5m2")))
    scale_dtype = _float(draw)
    zero_point = np.zeros(scale_shape, dtype) if draw(st.booleans()) else ABSENT
    attrs = {
        "dtype": dtype,
        "axis": axis,
        "block_size": block,
        "saturate": draw(st.booleans()),
        "precision": draw(st.sampled_from(("",) + FLOATS)),
    }
    return [array(draw, shape, scale_dtype), positive(draw, scale_shape, scale_dtype), zero_point], attrs


@generator("onnx.dequantize")
def _dequantize(draw: Draw) -> tuple:
    shape = draw(shapes(lo=1))
    scale_shape, axis, block = _granularity(draw, shape)
    source = draw(st.sampled_from(("int8", "uint8", "int32")))
    zero_point = array(draw, scale_shape, source) if draw(st.booleans()) else ABSENT
    attrs = {"dtype": draw(st.sampled_from(FLOATS + ("float16",))), "axis": axis, "block_size": block}
    return [array(draw, shape, source), positive(draw, scale_shape, "float32"), zero_point], attrs


@generator("onnx.dynamic_quantize")
def _dynamic_quantize(draw: Draw) -> tuple:
    return [array(draw, draw(shapes(lo=0)), "float32")], {}


# more of ONNX's operators -----------------------------------------------------------------------
SAME_WIDTH = (
    ("int32", "float32", "uint32"),
    ("int64", "float64", "uint64"),
    ("int16", "float16", "uint16"),
    ("int8", "uint8", "bool"),
)


@generator("onnx.bitcast")
def _bitcast(draw: Draw) -> tuple:
    family = draw(st.sampled_from(SAME_WIDTH))
    source, target = draw(st.sampled_from(family)), draw(st.sampled_from(family))
    data = array(draw, draw(shapes(lo=0)), source)
    if target == "bool":
        data = np.asarray(data.astype(bool).astype(source))
    return [data], {"dtype": target}


@generator("onnx.swiglu")
def _swiglu(draw: Draw) -> tuple:
    shape = draw(shapes(lo=0))
    dtype = _float(draw)
    return [array(draw, shape, dtype), array(draw, shape, dtype)], {"alpha": draw(st.floats(-2, 2))}


@generator("onnx.det")
def _det(draw: Draw) -> tuple:
    m = draw(st.integers(0, 4))
    return [array(draw, draw(shapes(rank_hi=2, lo=0, hi=3)) + (m, m), _float(draw))], {}


@generator("onnx.compress")
def _compress(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    room = int(np.prod(shape)) if axis is None else shape[axis]
    condition = array(draw, (draw(st.integers(0, room)),), "bool")  # ONNX's T1 is bool only
    return [array(draw, shape, draw(st.sampled_from(FLOATS + INTS))), condition], {"axis": axis}


@generator("onnx.reverse_sequence")
def _reverse_sequence(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=2, lo=1))
    batch_axis, time_axis = draw(st.permutations((0, 1)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    lens = rng.integers(1, shape[time_axis] + 1, size=shape[batch_axis]).astype(draw(st.sampled_from(INTS)))
    return [array(draw, shape, draw(st.sampled_from(FLOATS + INTS))), lens], {
        "batch_axis": batch_axis,
        "time_axis": time_axis,
    }


@generator("onnx.window")
def _window(draw: Draw) -> tuple:
    size = np.asarray(draw(st.integers(0, 6)), draw(st.sampled_from(INTS))).reshape(draw(st.sampled_from(((), (1,)))))
    return [size], {
        "kind": draw(st.sampled_from(("hann", "hamming", "blackman"))),
        "periodic": draw(st.booleans()),
        "dtype": draw(st.sampled_from(FLOATS + ("float16",))),
    }


@generator("onnx.center_crop_pad")
def _center_crop_pad(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, lo=0))
    axes = None
    count = len(shape)
    if draw(st.booleans()):
        axes = [
            a - len(shape) if draw(st.booleans()) else a
            for a in draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
        ]
        count = len(axes)
    target = ints([draw(st.integers(0, 6)) for _ in range(count)], draw(st.sampled_from(INTS)))
    return [array(draw, shape, draw(st.sampled_from(FLOATS + INTS))), target], {"axes": axes}


@generator("onnx.tensor_scatter")
def _tensor_scatter(draw: Draw) -> tuple:
    shape = (draw(st.integers(1, 3)),) + draw(shapes(rank_lo=1, rank_hi=3, lo=1))
    axis = draw(st.integers(1, len(shape) - 1))
    capacity = shape[axis]
    steps = draw(st.integers(0, capacity))
    mode = draw(st.sampled_from(("linear", "circular")))
    update = tuple(steps if i == axis else d for i, d in enumerate(shape))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    high = capacity - steps if mode == "linear" else capacity - 1
    writes = _optional(draw, lambda: rng.integers(0, high + 1, size=shape[0]).astype("int64"))
    dtype = draw(st.sampled_from(FLOATS + INTS))
    written_axis = axis - len(shape) if draw(st.booleans()) else axis
    return [array(draw, shape, dtype), array(draw, update, dtype), writes], {"axis": written_axis, "mode": mode}


@generator("onnx.unique")
def _unique(draw: Draw) -> tuple:
    shape = draw(shapes(rank_lo=1, rank_hi=3, lo=1, hi=4))
    data = np.asarray(array(draw, shape, draw(st.sampled_from(FLOATS + INTS))) % 3)
    axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    return [data], {"axis": axis, "sorted": draw(st.booleans())}


@generator("onnx.rotary_embedding")
def _rotary_embedding(draw: Draw) -> tuple:
    batch, heads, seq = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    head = 2 * draw(st.integers(1, 3))
    rotary = draw(st.sampled_from([0] + [2 * i for i in range(1, head // 2 + 1)]))
    half = (rotary or head) // 2
    dtype = _float(draw)
    four_d = draw(st.booleans())
    x = array(draw, (batch, heads, seq, head) if four_d else (batch, seq, heads * head), dtype)
    if draw(st.booleans()):
        positions = draw(st.integers(seq, seq + 3))
        ids = (
            np.random.default_rng(draw(st.integers(0, 2**16))).integers(0, positions, size=(batch, seq)).astype("int64")
        )
        caches = [array(draw, (positions, half), dtype) for _ in range(2)]
    else:
        ids, caches = ABSENT, [array(draw, (batch, seq, half), dtype) for _ in range(2)]
    attrs = {"interleaved": draw(st.booleans()), "rotary_embedding_dim": rotary, "num_heads": 0 if four_d else heads}
    return [x, caches[0], caches[1], ids], attrs


# sampling and signals ---------------------------------------------------------------------------
@generator("onnx.grid_sample")
def _grid_sample(draw: Draw) -> tuple:
    r = draw(st.integers(1, 3))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    spatial = draw(shapes(rank_lo=r, rank_hi=r, lo=1, hi=4))
    out = draw(shapes(rank_lo=r, rank_hi=r, lo=0, hi=3))
    grid = np.tanh(array(draw, (n,) + out + (r,), "float32")) * 1.3
    dtype = _float(draw)
    return [array(draw, (n, c) + spatial, dtype), np.asarray(grid, dtype)], {
        "mode": draw(st.sampled_from(("linear", "nearest", "cubic"))),
        "padding_mode": draw(st.sampled_from(("zeros", "border", "reflection"))),
        "align_corners": draw(st.booleans()),
    }


@generator("onnx.affine_grid")
def _affine_grid(draw: Draw) -> tuple:
    r = draw(st.integers(2, 3))
    n = draw(st.integers(1, 2))
    size = [n, draw(st.integers(1, 3))] + [draw(st.integers(1, 4)) for _ in range(r)]
    return [array(draw, (n, r, r + 1), _float(draw)), ints(size)], {"align_corners": draw(st.booleans())}


@generator("onnx.dft")
def _dft(draw: Draw) -> tuple:
    inverse, onesided = draw(st.booleans()), draw(st.booleans())
    shape = draw(shapes(rank_lo=1, rank_hi=3, lo=1, hi=5))
    complex_input = not onesided or inverse  # a one-sided forward transform reads a real signal
    shape = shape + ((2,) if complex_input or draw(st.booleans()) else (1,))
    axis = draw(st.integers(0, len(shape) - 2))
    if onesided and not inverse:
        shape = shape[:-1] + (1,)
    length = _optional(
        draw, lambda: scalar(draw(st.integers(1, 6))) if draw(st.booleans()) else ints([draw(st.integers(1, 6))])
    )
    if inverse and onesided and length is ABSENT and shape[axis] == 1:
        shape = shape[:axis] + (2,) + shape[axis + 1 :]  # a spectrum of one bin is a signal of 2 * (1 - 1) = 0 samples
    written_axis = axis - len(shape) if draw(st.booleans()) else axis
    return [array(draw, shape, _float(draw)), length], {"axis": written_axis, "inverse": inverse, "onesided": onesided}


@generator("onnx.stft")
def _stft(draw: Draw) -> tuple:
    batch, length = draw(st.integers(1, 2)), draw(st.integers(1, 8))
    onesided = draw(st.booleans())
    channels = 1 if onesided else draw(st.integers(1, 2))
    frame = draw(st.integers(1, length))
    step = scalar(draw(st.integers(1, 3)))
    dtype = _float(draw)
    window = array(draw, (frame,), dtype) if draw(st.booleans()) else ABSENT
    frame_length = scalar(frame) if window is ABSENT or draw(st.booleans()) else ABSENT
    shape = (batch, length) if channels == 1 and draw(st.booleans()) else (batch, length, channels)
    return [array(draw, shape, dtype), step, window, frame_length], {"onesided": onesided}


@generator("onnx.max_unpool")
def _max_unpool(draw: Draw) -> tuple:
    k = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(k)]
    strides = [draw(st.integers(1, 3)) for _ in range(k)]
    pads = [draw(st.integers(0, kk - 1)) for kk in kernel + kernel]
    sizes = [draw(st.integers(1, 3)) for _ in range(k)]
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    out = [(d - 1) * s + kk - pads[i] - pads[i + k] for i, (d, s, kk) in enumerate(zip(sizes, strides, kernel))]
    if min(out) < 1:
        pads = [0] * (2 * k)
        out = [(d - 1) * s + kk for d, s, kk in zip(sizes, strides, kernel)]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    plane = int(np.prod(out))
    count = int(np.prod(sizes))
    # each value goes to a distinct position of its own (n, c) plane, as MaxPool's indices do
    positions = (
        np.stack(
            [rng.permutation(plane)[:count] if count <= plane else rng.integers(0, plane, count) for _ in range(n * c)]
        )
        + (np.arange(n * c) * plane)[:, None]
    )
    indices = positions.reshape((n, c, *sizes)).astype("int64")
    dtype = _float(draw)
    output_shape = ABSENT
    if draw(st.booleans()):
        output_shape = ints([n, c] + [o + draw(st.integers(0, 2)) for o in out])
    return [array(draw, (n, c, *sizes), dtype), indices, output_shape], {
        "kernel_shape": kernel,
        "strides": strides if draw(st.booleans()) or any(s != 1 for s in strides) else None,
        "pads": pads if any(pads) or draw(st.booleans()) else None,
    }


@generator("onnx.col2im")
def _col2im(draw: Draw) -> tuple:
    k = draw(st.integers(1, 3))
    block = [draw(st.integers(1, 2)) for _ in range(k)]
    strides = [draw(st.integers(1, 2)) for _ in range(k)]
    dilations = [draw(st.integers(1, 2)) for _ in range(k)]
    pads = [draw(st.integers(0, 1)) for _ in range(2 * k)]
    image = [draw(st.integers(1, 4)) + (b - 1) * d for b, d in zip(block, dilations)]
    counts = [
        (image[i] + pads[i] + pads[i + k] - (dilations[i] * (block[i] - 1) + 1)) // strides[i] + 1 for i in range(k)
    ]
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    data = array(draw, (n, c * int(np.prod(block)), int(np.prod(counts))), _float(draw))
    return [data, ints(image), ints(block)], {"strides": strides, "pads": pads, "dilations": dilations}
