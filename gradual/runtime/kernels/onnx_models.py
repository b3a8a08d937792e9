"""NumPy kernels of the operators in stdlib/onnx_models.rly (recurrent layers, attention,
quantization, signal processing), written from the ONNX operator specification. An optional
input the node left out arrives as an empty vector."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from gradual.diagnostics import codes
from gradual.ops.context import RuleFailure
from gradual.ops.messages import register_rule_message
from gradual.runtime.kernels.registration import kernel

register_rule_message(
    "unpool-index",
    codes.OP_CONSTRAINT,
    "{op}'s indices name position {index} of the unpooled shape {shape}, which lies outside {target}",
    "pass indices that name positions (flat, in the unpooled shape) whose coordinates lie within the output",
)


def given(a: np.ndarray) -> bool:
    """Whether an optional input was given."""
    return not (a.ndim == 1 and a.shape[0] == 0)


# recurrent layers -------------------------------------------------------------------------------------
def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


#: ONNX's recurrent activations: name -> (function of x, alpha, beta; default alpha, default beta)
ACTIVATIONS: dict = {
    "relu": (lambda x, a, b: np.maximum(x, 0), None, None),
    "tanh": (lambda x, a, b: np.tanh(x), None, None),
    "sigmoid": (lambda x, a, b: _sigmoid(x), None, None),
    "affine": (lambda x, a, b: a * x + b, 1.0, 0.0),
    "leakyrelu": (lambda x, a, b: np.where(x >= 0, x, a * x), 0.01, None),
    "thresholdedrelu": (lambda x, a, b: np.where(x >= a, x, 0), 1.0, None),
    "scaledtanh": (lambda x, a, b: a * np.tanh(b * x), 1.0, 1.0),
    "hardsigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 0.2, 0.5),
    "elu": (lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)), 1.0, None),
    "softsign": (lambda x, a, b: x / (1 + np.abs(x)), None, None),
    "softplus": (lambda x, a, b: np.log1p(np.exp(x)), None, None),
}
DEFAULT_ACTIVATIONS = {"rnn": ["Tanh"], "gru": ["Sigmoid", "Tanh"], "lstm": ["Sigmoid", "Tanh", "Tanh"]}
GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def _activations(
    kind: str, directions: int, names: Optional[list], alpha: Optional[list], beta: Optional[list]
) -> list:
    """Per direction, the list of activation functions. Alpha and beta are consumed in order by
    the activations that take one (an activation without an alpha takes none of the list), as
    ONNX Runtime reads ONNX's "consumed in the order of activation functions"."""
    per = len(DEFAULT_ACTIVATIONS[kind])
    names = list(names) if names else DEFAULT_ACTIVATIONS[kind] * directions
    if len(names) == per:
        names = names * directions
    alphas, betas = list(alpha or []), list(beta or [])
    out = []
    for name in names:
        fn, a_default, b_default = ACTIVATIONS[name.lower()]
        a = alphas.pop(0) if a_default is not None and alphas else a_default
        b = betas.pop(0) if b_default is not None and betas else b_default
        out.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return [out[d * per : (d + 1) * per] for d in range(directions)]


@kernel("onnx.rnn")
def rnn(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray,
    sequence_lens: np.ndarray,
    initial_h: np.ndarray,
    initial_c: np.ndarray,
    p: np.ndarray,
    *,
    kind: str,
    hidden_size: Optional[int],
    direction: str,
    layout: int,
    activations: Optional[list],
    activation_alpha: Optional[list],
    activation_beta: Optional[list],
    clip: Optional[float],
    input_forget: bool,
    linear_before_reset: bool,
) -> tuple:
    """RNN, GRU or LSTM over every step, each direction on its own (see stdlib/onnx_models.rly)."""
    dtype = x.dtype
    xs = (x if layout == 0 else x.transpose(1, 0, 2)).astype(np.float64)
    seq, batch, _ = xs.shape
    directions = 2 if direction == "bidirectional" else 1
    hidden = r.shape[2]
    gates = GATES[kind]
    lens = sequence_lens.astype(np.int64) if given(sequence_lens) else np.full((batch,), seq, np.int64)
    bias = b.astype(np.float64) if given(b) else np.zeros((directions, 2 * gates * hidden))
    h0 = _state(initial_h, layout, directions, batch, hidden)
    c0 = _state(initial_c, layout, directions, batch, hidden)
    peep = p.astype(np.float64) if given(p) else np.zeros((directions, 3 * hidden))
    fns = _activations(kind, directions, activations, activation_alpha, activation_beta)
    y = np.zeros((seq, directions, batch, hidden))
    y_h, y_c = np.zeros((directions, batch, hidden)), np.zeros((directions, batch, hidden))
    for d in range(directions):
        reverse = direction == "reverse" or d == 1
        step = _Cell(
            kind,
            w[d].astype(np.float64),
            r[d].astype(np.float64),
            bias[d],
            peep[d],
            fns[d],
            clip,
            input_forget,
            linear_before_reset,
        )
        h, c = h0[d], c0[d]
        entries = np.arange(batch)
        for t in range(seq):
            active = t < lens  # batch entries still inside their sequence
            index = np.where(active, (lens - 1 - t) if reverse else t, 0)
            xt = xs[index, entries]
            new_h, new_c = step(xt, h, c)
            h = np.where(active[:, None], new_h, h)
            c = np.where(active[:, None], new_c, c)
            # each entry's own step (y[index, d] would be every entry's row at every index)
            y[index, d, entries] = np.where(active[:, None], new_h, y[index, d, entries])
        y_h[d], y_c[d] = h, c
    if layout == 1:
        y, y_h, y_c = y.transpose(2, 0, 1, 3), y_h.transpose(1, 0, 2), y_c.transpose(1, 0, 2)
    return y.astype(dtype), y_h.astype(dtype), y_c.astype(dtype)


def _state(a: np.ndarray, layout: int, directions: int, batch: int, hidden: int) -> np.ndarray:
    if not given(a):
        return np.zeros((directions, batch, hidden))
    return (a if layout == 0 else a.transpose(1, 0, 2)).astype(np.float64)


class _Cell:
    """One direction's step function: (x_t, h, c) -> (h', c')."""

    def __init__(
        self,
        kind: str,
        w: np.ndarray,
        r: np.ndarray,
        bias: np.ndarray,
        peep: np.ndarray,
        fns: list,
        clip: Optional[float],
        input_forget: bool,
        linear_before_reset: bool,
    ) -> None:
        self.kind, self.w, self.r, self.fns = kind, w, r, fns
        half = bias.shape[0] // 2
        self.wb, self.rb = bias[:half], bias[half:]
        self.peep, self.clip = peep, clip
        self.input_forget, self.linear_before_reset = input_forget, linear_before_reset

    def _clipped(self, v: np.ndarray) -> np.ndarray:
        return v if self.clip is None else np.clip(v, -self.clip, self.clip)

    def __call__(self, xt: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple:
        step: Callable[..., tuple] = getattr(self, self.kind)
        return step(xt, h, c)

    def rnn(self, xt: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple:
        (f,) = self.fns
        return f(self._clipped(xt @ self.w.T + h @ self.r.T + self.wb + self.rb)), c

    def gru(self, xt: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple:
        f, g = self.fns
        n = h.shape[1]
        xw = xt @ self.w.T + self.wb
        wz, wr, wh = xw[:, :n], xw[:, n : 2 * n], xw[:, 2 * n :]
        rz, rr, rh = self.r[:n], self.r[n : 2 * n], self.r[2 * n :]
        bz, br, bh = self.rb[:n], self.rb[n : 2 * n], self.rb[2 * n :]
        z = f(self._clipped(wz + h @ rz.T + bz))
        reset = f(self._clipped(wr + h @ rr.T + br))
        if self.linear_before_reset:
            candidate = g(self._clipped(wh + reset * (h @ rh.T + bh)))
        else:
            candidate = g(self._clipped(wh + (reset * h) @ rh.T + bh))
        return (1 - z) * candidate + z * h, c

    def lstm(self, xt: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple:
        f, g, out_fn = self.fns
        n = h.shape[1]
        gates = xt @ self.w.T + h @ self.r.T + self.wb + self.rb
        gi, go, gf, gc = gates[:, :n], gates[:, n : 2 * n], gates[:, 2 * n : 3 * n], gates[:, 3 * n :]
        pi, po, pf = self.peep[:n], self.peep[n : 2 * n], self.peep[2 * n :]
        i = f(self._clipped(gi + pi * c))
        forget = (1 - i) if self.input_forget else f(self._clipped(gf + pf * c))
        cell = forget * c + i * g(self._clipped(gc))
        o = f(self._clipped(go + po * cell))
        return o * out_fn(cell), cell


# attention -----------------------------------------------------------------------------------------------
@kernel("onnx.attention")
def attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    attn_mask: np.ndarray,
    past_key: np.ndarray,
    past_value: np.ndarray,
    nonpad_kv_seqlen: np.ndarray,
    *,
    is_causal: bool,
    q_num_heads: Optional[int],
    kv_num_heads: Optional[int],
    qk_matmul_output_mode: int,
    scale: Optional[float],
    softcap: float,
    softmax_precision: str,
    left_window_size: int,
    right_window_size: int,
) -> tuple:
    """Scaled dot-product attention as ONNX's Attention defines it (see stdlib/onnx_models.rly):
    causal masks aligned bottom-right by the cache offset, sliding windows, soft capping, grouped
    key/value heads, and fully masked rows giving zeros."""
    dtype, three_d = q.dtype, q.ndim == 3
    if three_d:
        q, k, v = (_heads(a, n) for a, n in ((q, q_num_heads), (k, kv_num_heads), (v, kv_num_heads)))
    if given(past_key):
        k = np.concatenate([past_key, k], axis=2)
        v = np.concatenate([past_value, v], axis=2)
    present_key, present_value = k, v
    batch, q_heads, q_seq, head = q.shape
    total = k.shape[2]
    group = q_heads // k.shape[1]
    kq, vq = np.repeat(k, group, axis=1).astype(np.float64), np.repeat(v, group, axis=1).astype(np.float64)
    factor = (1.0 / np.sqrt(head)) if scale is None else scale
    qk = (q.astype(np.float64) * np.sqrt(factor)) @ (kq * np.sqrt(factor)).swapaxes(-1, -2)
    raw = qk
    if softcap:
        qk = softcap * np.tanh(qk / softcap)
    capped = qk
    allowed, bias = _attention_mask(
        attn_mask, nonpad_kv_seqlen, past_key, batch, q_seq, total, is_causal, left_window_size, right_window_size
    )
    scores = qk + bias + np.where(allowed, 0.0, -np.inf)
    probs = _masked_softmax(scores, softmax_precision, dtype)
    y = probs @ vq
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(batch, q_seq, y.shape[1] * y.shape[3])  # named: q_seq may be 0
    qk_out = {0: raw, 1: capped, 2: scores, 3: probs}[qk_matmul_output_mode]
    return y.astype(dtype), present_key.astype(dtype), present_value.astype(dtype), qk_out.astype(dtype)


def _heads(a: np.ndarray, heads: Optional[int]) -> np.ndarray:
    """(batch, seq, heads * size) -> (batch, heads, seq, size)."""
    batch, seq, hidden = a.shape
    count = int(heads or 1)
    return a.reshape(batch, seq, count, hidden // count).transpose(0, 2, 1, 3)


def _attention_mask(
    attn_mask: np.ndarray,
    nonpad: np.ndarray,
    past_key: np.ndarray,
    batch: int,
    q_seq: int,
    total: int,
    is_causal: bool,
    left: int,
    right: int,
) -> tuple:
    """(allowed, additive bias), both broadcastable to (batch, heads, q_seq, total)."""
    allowed = np.ones((batch, 1, q_seq, total), bool)
    bias: Any = 0.0
    if given(attn_mask):
        mask = attn_mask
        if mask.shape[-1] < total:
            fill = False if mask.dtype == np.bool_ else -np.inf
            pad = [(0, 0)] * (mask.ndim - 1) + [(0, total - mask.shape[-1])]
            mask = np.pad(mask, pad, constant_values=fill)
        if mask.dtype == np.bool_:
            allowed = allowed & mask
        else:
            bias = mask.astype(np.float64)
    keys = np.arange(total)[None, None, None, :]
    queries = np.arange(q_seq)[None, None, :, None]
    if given(nonpad):
        lengths = nonpad.astype(np.int64).reshape(batch, 1, 1, 1)
        allowed = allowed & (keys < lengths)
        offset: Any = lengths - q_seq
    else:
        offset = past_key.shape[2] if given(past_key) else 0
    position = queries + offset
    if is_causal:
        allowed = allowed & (keys <= position)
    if left >= 0:
        allowed = allowed & (keys >= position - left)
    if right >= 0:
        allowed = allowed & (keys <= position + right)
    return allowed, bias


def _masked_softmax(scores: np.ndarray, precision: str, dtype: np.dtype) -> np.ndarray:
    """Softmax over the keys (in `precision` when given); a row with no allowed key is zeros."""
    work = scores.astype(np.dtype(precision)) if precision else scores
    empty = np.all(np.isneginf(work), axis=-1, keepdims=True)
    top = np.where(empty, 0, np.max(work, axis=-1, keepdims=True))
    e = np.where(empty, 0, np.exp(work - top))
    total = np.sum(e, axis=-1, keepdims=True)
    probs = np.where(empty, 0, e / np.where(total == 0, 1, total))
    return probs.astype(np.float64)


# quantization ------------------------------------------------------------------------------------------
def _granular(a: np.ndarray, x: np.ndarray, axis: int, block_size: int) -> np.ndarray:
    """A scale or zero point broadcast to x: a scalar, a vector along axis, blocks along axis,
    or a tensor of x's rank that broadcasts."""
    if a.ndim == 0 or a.size == 1 and a.ndim <= 1 and not block_size:
        return a.reshape(())
    axis = axis % x.ndim
    if block_size:  # x's rank, dim `axis` in blocks (even when that rank is 1)
        return np.repeat(a, block_size, axis=axis).take(np.arange(x.shape[axis]), axis=axis)
    if a.ndim == 1:
        shape = [1] * x.ndim
        shape[axis] = a.shape[0]
        return a.reshape(shape)
    return a


NARROW_RANGES = {"int4": (-8, 7), "uint4": (0, 15), "int2": (-2, 1), "uint2": (0, 3)}


def _range(dtype: np.dtype) -> tuple:
    if dtype.name in NARROW_RANGES:
        return NARROW_RANGES[dtype.name]
    info = np.iinfo(dtype)
    return info.min, info.max


@kernel("onnx.quantize")
def quantize(
    x: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    *,
    dtype: str,
    axis: int,
    block_size: int,
    saturate: bool,
    precision: str,
) -> np.ndarray:
    """saturate(round(x / scale) + zero_point) in dtype (see stdlib/onnx_models.rly)."""
    from gradual.runtime.kernels.onnx import convert

    out = np.dtype(dtype)
    work = np.dtype(precision) if precision else scale.dtype
    ratio = x.astype(work) / _granular(scale, x, axis, block_size).astype(work)
    zp = _granular(zero_point, x, axis, block_size) if given(zero_point) else np.zeros((), out)
    if out.name.startswith(("float8", "float4")):
        return convert(ratio.astype(np.float32) + zp.astype(np.float32), out, saturate, "nearest")
    lo, hi = _range(out)
    return np.clip(np.rint(ratio.astype(np.float64)) + zp.astype(np.float64), lo, hi).astype(out)


@kernel("onnx.dequantize")
def dequantize(
    x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, *, dtype: str, axis: int, block_size: int
) -> np.ndarray:
    """(x - zero_point) * scale, multiplied in dtype."""
    out = np.dtype(dtype)
    zp = _granular(zero_point, x, axis, block_size).astype(np.float64) if given(zero_point) else 0.0
    difference = x.astype(np.float64) - zp
    return (difference.astype(out) * _granular(scale, x, axis, block_size).astype(out)).astype(out)


@kernel("onnx.dynamic_quantize")
def dynamic_quantize(x: np.ndarray) -> tuple:
    """uint8 quantization over [min(x, 0), max(x, 0)]."""
    low, high = min(float(np.min(x)), 0.0) if x.size else 0.0, max(float(np.max(x)), 0.0) if x.size else 0.0
    scale = np.float32((high - low) / 255.0)
    divisor = scale if scale != 0 else np.float32(1.0)
    zero_point = np.clip(np.rint(np.float32(0.0) - np.float32(low) / divisor), 0, 255)
    y = np.clip(np.rint(x.astype(np.float32) / divisor) + zero_point, 0, 255)
    return y.astype(np.uint8), np.asarray(scale, np.float32), np.asarray(zero_point, np.uint8)


# more of ONNX's operators -------------------------------------------------------------------------------
@kernel("onnx.bitcast")
def bitcast(data: np.ndarray, *, dtype: str) -> np.ndarray:
    """The same bytes (little endian) as another type."""
    return np.array(data, copy=True).view(np.dtype(dtype))


@kernel("onnx.swiglu")
def swiglu(a: np.ndarray, b: np.ndarray, *, alpha: float) -> np.ndarray:
    """a * sigmoid(alpha * a) * b."""
    wide = a.astype(np.float64)
    return (wide * _sigmoid(alpha * wide) * b.astype(np.float64)).astype(a.dtype)


@kernel("onnx.det")
def det(data: np.ndarray) -> np.ndarray:
    """Determinants of the trailing square matrices."""
    return np.asarray(np.linalg.det(data.astype(np.float64))).astype(data.dtype)


@kernel("onnx.compress")
def compress(data: np.ndarray, condition: np.ndarray, *, axis: Optional[int]) -> np.ndarray:
    """numpy.compress."""
    return np.compress(condition.astype(bool).reshape(-1), data, axis=axis)


@kernel("onnx.reverse_sequence")
def reverse_sequence(data: np.ndarray, sequence_lens: np.ndarray, *, batch_axis: int, time_axis: int) -> np.ndarray:
    """Each batch entry's first lens[i] steps reversed."""
    out = data.copy()
    for i, length in enumerate(sequence_lens.reshape(-1).astype(np.int64)):
        index: list = [slice(None)] * data.ndim
        index[batch_axis] = i
        index[time_axis] = slice(0, int(length))
        reversed_index = list(index)
        reversed_index[time_axis] = slice(int(length) - 1, None, -1) if length > 0 else slice(0, 0)
        out[tuple(index)] = data[tuple(reversed_index)]
    return out


#: window -> coefficients of cos(0), cos(2 pi n / N), cos(4 pi n / N)
WINDOWS = {"hann": (0.5, -0.5, 0.0), "hamming": (25 / 46, -21 / 46, 0.0), "blackman": (0.42, -0.5, 0.08)}


@kernel("onnx.window")
def window(size: np.ndarray, *, kind: str, periodic: bool, dtype: str) -> np.ndarray:
    """The window's values at n = 0 .. size - 1. A symmetric window of size 1 divides 0 by 0, NaN,
    as ONNX's function body and reference implementation compute it (and ONNX Runtime)."""
    count = int(np.asarray(size).reshape(-1)[0])
    span = count if periodic else count - 1
    a0, a1, a2 = WINDOWS[kind]
    n = np.arange(count, dtype=np.float64)
    angle = 2 * np.pi * n / span if span > 0 else np.full_like(n, np.nan)
    return (a0 + a1 * np.cos(angle) + a2 * np.cos(2 * angle)).astype(np.dtype(dtype))


@kernel("onnx.center_crop_pad")
def center_crop_pad(data: np.ndarray, shape: np.ndarray, *, axes: Optional[list]) -> np.ndarray:
    """Crop (centered, start rounded down) or zero-pad (odd pixel on the right) each axis."""
    axes = list(range(data.ndim)) if axes is None else [a % data.ndim for a in axes]
    out = data
    for axis, target in zip(axes, (int(v) for v in shape.reshape(-1))):
        size = out.shape[axis]
        if size > target:
            start = (size - target) // 2
            out = np.take(out, np.arange(start, start + target), axis=axis)
        elif size < target:
            widths = [(0, 0)] * out.ndim
            widths[axis] = ((target - size) // 2, target - size - (target - size) // 2)
            out = np.pad(out, widths)
    return out


@kernel("onnx.tensor_scatter")
def tensor_scatter(
    past_cache: np.ndarray, update: np.ndarray, write_indices: np.ndarray, *, axis: int, mode: str
) -> np.ndarray:
    """past_cache with update written along axis from each batch entry's write index."""
    out = past_cache.copy()
    axis = axis % past_cache.ndim
    capacity, steps = past_cache.shape[axis], update.shape[axis]
    starts = (
        write_indices.reshape(-1).astype(np.int64) if given(write_indices) else np.zeros(past_cache.shape[0], np.int64)
    )
    for b in range(past_cache.shape[0]):
        for t in range(steps):
            target = int(starts[b]) + t
            if mode == "circular":
                target %= capacity
            source: list = [slice(None)] * past_cache.ndim
            dest: list = [slice(None)] * past_cache.ndim
            source[0] = dest[0] = b
            source[axis], dest[axis] = t, target
            out[tuple(dest)] = update[tuple(source)]
    return out


@kernel("onnx.unique")
def unique(data: np.ndarray, *, axis: Optional[int], sorted: bool) -> tuple:
    """numpy.unique with first indices, inverse indices and counts; unsorted: first-occurrence order."""
    flat = data.reshape(-1) if axis is None else data
    values, first, inverse, counts = np.unique(
        flat, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = inverse.reshape(-1)
    if not sorted:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values = np.take(values, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    as64 = [np.asarray(a, np.int64) for a in (first, inverse, counts)]
    return (values, *as64)


@kernel("onnx.rotary_embedding")
def rotary_embedding(
    x: np.ndarray,
    cos_cache: np.ndarray,
    sin_cache: np.ndarray,
    position_ids: np.ndarray,
    *,
    interleaved: bool,
    rotary_embedding_dim: int,
    num_heads: int,
) -> np.ndarray:
    """RoPE as ONNX defines it, computed on (batch, seq, heads, head)."""
    shape = x.shape
    work = x.transpose(0, 2, 1, 3) if x.ndim == 4 else x.reshape(shape[0], shape[1], num_heads, -1)
    work = work.astype(np.float64)
    dim = rotary_embedding_dim or work.shape[3]
    rotate, keep = work[..., :dim], work[..., dim:]
    if given(position_ids):
        cos_cache, sin_cache = cos_cache[position_ids], sin_cache[position_ids]
    cos, sin = cos_cache[:, :, None, :].astype(np.float64), sin_cache[:, :, None, :].astype(np.float64)
    if interleaved:
        x1, x2 = rotate[..., 0::2], rotate[..., 1::2]
    else:
        x1, x2 = np.split(rotate, 2, axis=-1)
    real, imaginary = cos * x1 - sin * x2, sin * x1 + cos * x2
    if interleaved:
        rotated = np.stack([real, imaginary], axis=-1).reshape(rotate.shape)
    else:
        rotated = np.concatenate([real, imaginary], axis=-1)
    out = np.concatenate([rotated, keep], axis=-1)
    out = out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(shape)
    return out.astype(x.dtype)


# sampling and signals ----------------------------------------------------------------------------------
def _reflect(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """Coordinates reflected by the near border until they lie within [low, high]."""
    span = high - low
    if span <= 0:
        return np.full_like(x, low)
    below, above = x < low, x > high
    distance = np.where(below, low - x, x - high)
    folds = np.floor(distance / span)
    rest = distance - folds * span
    even = folds % 2 == 0
    inside_from_below = np.where(even, low + rest, high - rest)
    inside_from_above = np.where(even, high - rest, low + rest)
    return np.where(below, inside_from_below, np.where(above, inside_from_above, x))


def _cubic_weights(t: np.ndarray) -> list:
    """Keys' cubic convolution weights (a = -0.75) of the taps at -1, 0, 1, 2 from floor(x)."""
    a = -0.75

    def near(d: np.ndarray) -> np.ndarray:
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: np.ndarray) -> np.ndarray:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@kernel("onnx.grid_sample")
def grid_sample(x: np.ndarray, grid: np.ndarray, *, mode: str, padding_mode: str, align_corners: bool) -> np.ndarray:
    """Sample x at the grid's normalized coordinates (see stdlib/onnx_models.rly)."""
    n, c, *sizes = x.shape
    r = len(sizes)
    coords, lows, highs = [], [], []
    for i, size in enumerate(sizes):
        g = grid[..., r - 1 - i].astype(np.float32)
        position = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
        low, high = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        if mode == "nearest":
            position = np.rint(position)
        if padding_mode == "border":
            position = np.where((position < low) | (position > high), np.clip(position, 0, size - 1), position)
        elif padding_mode == "reflection":
            position = _reflect(position, low, high)
        coords.append(position.astype(np.float64))
        lows.append(low)
        highs.append(high)
    taps = []
    for position in coords:
        if mode == "nearest":
            taps.append([(position.astype(np.int64), np.ones_like(position))])
            continue
        base = np.floor(position)
        t = position - base
        if mode == "linear":
            taps.append([(base.astype(np.int64), 1 - t), (base.astype(np.int64) + 1, t)])
        else:
            taps.append([(base.astype(np.int64) + k - 1, w) for k, w in enumerate(_cubic_weights(t))])
    out = np.zeros((n, c) + grid.shape[1:-1])
    batch = np.arange(n).reshape((n,) + (1,) * (grid.ndim - 2))
    data = x.astype(np.float64)
    for combination in _product(taps):
        weight = np.ones(grid.shape[:-1])
        index, valid = [], np.ones(grid.shape[:-1], bool)
        for i, (position, w) in enumerate(combination):
            weight = weight * w
            fixed, ok = _pixel_index(position, sizes[i], lows[i], highs[i], padding_mode)
            index.append(fixed)
            valid &= ok
        values = _gather(data, batch, index)
        out += np.moveaxis(np.where(valid[..., None], values, 0.0) * weight[..., None], -1, 1)
    return out.astype(x.dtype)


def _gather(data: np.ndarray, batch: np.ndarray, index: list) -> np.ndarray:
    """data[b, :, i0, i1, ...] for arrays of indices: (n, *out, c)."""
    moved = np.moveaxis(data, 1, -1)
    key = (batch, *index)
    return moved[key]


def _product(taps: list) -> list:
    import itertools

    return list(itertools.product(*taps))


def _pixel_index(i: np.ndarray, size: int, low: float, high: float, padding_mode: str) -> tuple:
    """(index into the dim, whether the pixel exists): zeros outside for `zeros`, the border
    pixel for `border`, the reflected one for `reflection`."""
    if padding_mode == "zeros":
        ok = (i >= 0) & (i < size)
        return np.clip(i, 0, size - 1), ok
    if padding_mode == "border":
        return np.clip(i, 0, size - 1), np.ones(i.shape, bool)
    reflected = np.trunc(_reflect(i.astype(np.float64), low, high)).astype(np.int64)
    return np.clip(reflected, 0, size - 1), np.ones(i.shape, bool)


@kernel("onnx.affine_grid")
def affine_grid(theta: np.ndarray, size: np.ndarray, *, align_corners: bool) -> np.ndarray:
    """theta applied to the normalized coordinates (x, y[, z], 1) of every output position."""
    spatial = [int(v) for v in size.reshape(-1)[2:]]
    axes = []
    for count in spatial:
        steps = np.arange(count, dtype=np.float64)
        if align_corners:
            # a single position is the first corner, -1 (ONNX's reference and PyTorch agree)
            axes.append(-1 + 2 * steps / (count - 1) if count > 1 else -np.ones(count))
        else:
            axes.append(-1 + (2 * steps + 1) / count)
    mesh = np.meshgrid(*axes, indexing="ij")  # (D, H, W) order
    base = np.stack(list(reversed(mesh)) + [np.ones_like(mesh[0])], axis=-1)  # x, y[, z], 1
    grid = np.einsum("...k,njk->n...j", base, theta.astype(np.float64))
    return grid.astype(theta.dtype)


def _complex(data: np.ndarray) -> np.ndarray:
    """The signal of a (..., 1) real or (..., 2) complex tensor."""
    if data.shape[-1] == 2:
        return data[..., 0].astype(np.float64) + 1j * data[..., 1].astype(np.float64)
    return data[..., 0].astype(np.float64)


def _pairs(spectrum: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.stack([spectrum.real, spectrum.imag], axis=-1).astype(dtype)


@kernel("onnx.dft")
def dft(data: np.ndarray, dft_length: np.ndarray, *, axis: int, inverse: bool, onesided: bool) -> np.ndarray:
    """The discrete Fourier transform along axis (see stdlib/onnx_models.rly)."""
    axis = axis % data.ndim
    signal = _complex(data)
    n = int(dft_length.reshape(-1)[0]) if given(dft_length) else None
    if inverse and onesided:
        return np.fft.irfft(signal, n=n, axis=axis)[..., None].astype(data.dtype)
    if onesided:
        return _pairs(np.fft.rfft(signal.real, n=n, axis=axis), data.dtype)
    return _pairs((np.fft.ifft if inverse else np.fft.fft)(signal, n=n, axis=axis), data.dtype)


@kernel("onnx.stft")
def stft(
    signal: np.ndarray, frame_step: np.ndarray, window: np.ndarray, frame_length: np.ndarray, *, onesided: bool
) -> np.ndarray:
    """Frames of the signal (a (batch, length) one is real), windowed and transformed."""
    values = _complex(signal[..., None] if signal.ndim == 2 else signal)
    step = int(frame_step.reshape(-1)[0])
    if given(frame_length):
        length = int(frame_length.reshape(-1)[0])
    else:
        length = window.shape[0] if given(window) else values.shape[1]
    weights = window.astype(np.float64) if given(window) else np.ones(length)
    frames = (values.shape[1] - length) // step + 1
    pieces = np.stack([values[:, f * step : f * step + length] * weights for f in range(frames)], axis=1)
    spectrum = np.fft.rfft(pieces.real, axis=-1) if onesided else np.fft.fft(pieces, axis=-1)
    return _pairs(spectrum, signal.dtype)


@kernel("onnx.max_unpool")
def max_unpool(
    x: np.ndarray,
    indices: np.ndarray,
    output_shape: np.ndarray,
    *,
    kernel_shape: list,
    strides: Optional[list],
    pads: Optional[list],
) -> np.ndarray:
    """Zeros with x written at the flat positions indices name (positions in the unpooled shape
    the kernel gives; a larger output_shape keeps their coordinates)."""
    k = len(kernel_shape)
    strides = strides or [1] * k
    pads = pads or [0] * (2 * k)
    shape = list(x.shape[:2]) + [
        (d - 1) * s + kk - pads[i] - pads[i + k] for i, (d, s, kk) in enumerate(zip(x.shape[2:], strides, kernel_shape))
    ]
    flat = indices.reshape(-1).astype(np.int64)
    target = [int(v) for v in output_shape.reshape(-1)] if given(output_shape) else shape
    # the indices are data: where they land is known here, not in the declaration
    outside = flat >= int(np.prod(shape))
    if not outside.any() and target is not shape:
        coords = np.unravel_index(flat, shape)
        outside = np.any([c >= t for c, t in zip(coords, target)], axis=0)
    if np.any(outside):
        bad = int(flat[np.argmax(outside)])
        where = "it" if target is shape else f"the output shape {tuple(target)}"
        raise RuleFailure("unpool-index", {"index": bad, "shape": tuple(shape), "target": where})
    if target is not shape:
        flat = np.ravel_multi_index(np.unravel_index(flat, shape), target)
        shape = target
    out = np.zeros(int(np.prod(shape)), x.dtype)
    out[flat] = x.reshape(-1)
    return out.reshape(shape)


@kernel("onnx.col2im")
def col2im(
    data: np.ndarray,
    image_shape: np.ndarray,
    block_shape: np.ndarray,
    *,
    strides: Optional[list],
    pads: Optional[list],
    dilations: Optional[list],
) -> np.ndarray:
    """Column blocks summed back into the (padded, then cropped) image."""
    import itertools

    image = [int(v) for v in image_shape.reshape(-1)]
    block = [int(v) for v in block_shape.reshape(-1)]
    k = len(image)
    strides, dilations = strides or [1] * k, dilations or [1] * k
    pads = pads or [0] * (2 * k)
    n, columns, blocks = data.shape
    channels = columns // int(np.prod(block))
    padded = [image[i] + pads[i] + pads[i + k] for i in range(k)]
    counts = [(padded[i] - (dilations[i] * (block[i] - 1) + 1)) // strides[i] + 1 for i in range(k)]
    out = np.zeros((n, channels, *padded), np.float64)
    # every size named: a zero batch leaves no size to infer
    values = data.reshape(n, channels, *block, blocks).astype(np.float64)
    whole = (slice(None), slice(None))  # every batch and channel
    for column, start in enumerate(itertools.product(*(range(c) for c in counts))):
        for offset in itertools.product(*(range(b) for b in block)):
            at = tuple(start[i] * strides[i] + offset[i] * dilations[i] for i in range(k))
            out[whole + at] += values[whole + offset + (column,)]
    crop = tuple(slice(pads[i], pads[i] + image[i]) for i in range(k))
    return out[whole + crop].astype(data.dtype)
