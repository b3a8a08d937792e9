"""Neural-network kernels in Relay's conventions: dense is `x W^T`, matmul with transpose flags,
batch_matmul (`transpose_b` False unless given, as in Relay's text format), the normalizations,
dropout and padding. Convolution and pooling are in conv.py."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from gradual.runtime.kernels.elementwise import same_dtype
from gradual.runtime.kernels.registration import kernel


def in_dtype(out: np.ndarray, like: np.ndarray, out_dtype: str = "") -> np.ndarray:
    """A result in `out_dtype` when given (accumulating in it, as Relay), else in `like`'s."""
    return np.asarray(out).astype(out_dtype or like.dtype, copy=False)


def accumulate(x: np.ndarray, out_dtype: str) -> np.ndarray:
    """An operand widened to `out_dtype` before a product, so int8 x int8 -> int32 is exact."""
    return x.astype(out_dtype) if out_dtype else x


# dense and matmul --------------------------------------------------------------------------
@kernel("nn.dense")
def dense(data: np.ndarray, weight: np.ndarray, *, out_dtype: str = "") -> np.ndarray:
    """`(..., k) x (units, k) -> (..., units)`: `x W^T`."""
    return in_dtype(np.matmul(accumulate(data, out_dtype), accumulate(weight, out_dtype).T), data, out_dtype)


@kernel("nn.matmul")
def matmul(
    tensor_a: np.ndarray, tensor_b: np.ndarray, *, transpose_a: bool, transpose_b: bool, out_dtype: str = ""
) -> np.ndarray:
    """`(..., n, k) x (k, m) -> (..., n, m)`; the flags transpose the last two dims first."""
    a = np.swapaxes(tensor_a, -1, -2) if transpose_a else tensor_a
    b = tensor_b.T if transpose_b else tensor_b
    return in_dtype(np.matmul(accumulate(a, out_dtype), accumulate(b, out_dtype)), tensor_a, out_dtype)


@kernel("nn.batch_matmul")
def batch_matmul(
    tensor_a: np.ndarray, tensor_b: np.ndarray, *, transpose_a: bool, transpose_b: bool, out_dtype: str = ""
) -> np.ndarray:
    """`(b, n, k) x (b, m, k) -> (b, n, m)` by default (`transpose_b=True`); batch 1 broadcasts."""
    a = np.swapaxes(tensor_a, -1, -2) if transpose_a else tensor_a
    b = np.swapaxes(tensor_b, -1, -2) if transpose_b else tensor_b
    return in_dtype(np.matmul(accumulate(a, out_dtype), accumulate(b, out_dtype)), tensor_a, out_dtype)


@kernel("nn.bias_add")
def bias_add(data: np.ndarray, bias: np.ndarray, *, axis: int) -> np.ndarray:
    """Add a vector along dim `axis`."""
    shape = [1] * data.ndim
    shape[axis] = -1
    return same_dtype(data, data + bias.reshape(shape))


@kernel("nn.batch_flatten")
def batch_flatten(data: np.ndarray) -> np.ndarray:
    """`(n, ...) -> (n, product of the rest)`."""
    rest = int(np.prod(data.shape[1:], dtype=np.int64))
    return data.reshape(data.shape[0], rest)


# softmax ----------------------------------------------------------------------------------
@kernel("nn.softmax")
def softmax(data: np.ndarray, *, axis: int) -> np.ndarray:
    """`exp(x) / sum(exp(x))` along `axis` (an empty tensor stays empty)."""
    if data.size == 0:
        return data.copy()
    shifted = data - np.max(data, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return same_dtype(data, e / np.sum(e, axis=axis, keepdims=True))


@kernel("nn.log_softmax")
def log_softmax(data: np.ndarray, *, axis: int) -> np.ndarray:
    """`x - log(sum(exp(x)))` along `axis` (an empty tensor stays empty)."""
    if data.size == 0:
        return data.copy()
    shifted = data - np.max(data, axis=axis, keepdims=True)
    return same_dtype(data, shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)))


# normalization, dropout, padding -----------------------------------------------------------
def _along(vector: np.ndarray, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = -1
    return vector.reshape(shape)


@kernel("nn.batch_norm")
def batch_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    moving_mean: np.ndarray,
    moving_var: np.ndarray,
    *,
    axis: int,
    epsilon: float,
    center: bool,
    scale: bool,
) -> tuple:
    """Inference-mode batch norm along `axis`: (normalized data, moving mean, moving variance)."""
    rank = data.ndim
    out = (data - _along(moving_mean, axis, rank)) / np.sqrt(_along(moving_var, axis, rank) + epsilon)
    if scale:
        out = out * _along(gamma, axis, rank)
    if center:
        out = out + _along(beta, axis, rank)
    return same_dtype(data, out), moving_mean.copy(), moving_var.copy()


@kernel("nn.layer_norm")
def layer_norm(
    data: np.ndarray, gamma: np.ndarray, beta: np.ndarray, *, axis: int, epsilon: float, center: bool, scale: bool
) -> np.ndarray:
    """Normalize over `axis`, then scale by gamma and shift by beta along it."""
    mean = np.mean(data, axis=axis, keepdims=True)
    var = np.var(data, axis=axis, keepdims=True)
    out = (data - mean) / np.sqrt(var + epsilon)
    if scale:
        out = out * _along(gamma, axis, data.ndim)
    if center:
        out = out + _along(beta, axis, data.ndim)
    return same_dtype(data, out)


@kernel("nn.dropout")
def dropout(data: np.ndarray) -> tuple:
    """Inference-mode dropout: the data unchanged, and a mask of ones."""
    return data.copy(), np.ones_like(data)


@kernel("nn.pad")
def pad(data: np.ndarray, pad_value: np.ndarray, *, pad_width: Sequence[Sequence[int]], pad_mode: str) -> np.ndarray:
    """Pad each dim by [before, after] (negative widths crop) with a constant, the edge values,
    or a reflection."""
    if data.ndim == 0:
        return data.copy()
    crop = tuple(slice(max(0, -b), d - max(0, -a)) for d, (b, a) in zip(data.shape, pad_width))
    widths = [(max(0, b), max(0, a)) for b, a in pad_width]
    cropped = data[crop]
    if pad_mode == "constant":
        return np.pad(cropped, widths, constant_values=np.asarray(pad_value).astype(data.dtype))
    if pad_mode == "edge":
        return np.pad(cropped, widths, mode="edge")
    if pad_mode == "reflect":
        return np.pad(cropped, widths, mode="reflect")
    raise ValueError(f"unknown pad_mode {pad_mode!r}")


@kernel("dyn.nn.pad")
def dyn_pad(data: np.ndarray, widths: np.ndarray, pad_value: np.ndarray, *, pad_mode: str) -> np.ndarray:
    """nn.pad whose widths are a (rank, 2) tensor."""
    return pad(data, pad_value, pad_width=[[int(b), int(a)] for b, a in widths.reshape(-1, 2)], pad_mode=pad_mode)


@kernel("nn.nll_loss")
def nll_loss(
    predictions: np.ndarray, targets: np.ndarray, weights: np.ndarray, *, reduction: str, ignore_index: int
) -> np.ndarray:
    """-weight[t] * predictions[n, t, ...] per element (0 where t is ignore_index), reduced."""
    keep = targets != ignore_index
    safe = np.where(keep, targets, 0).astype(np.int64)
    picked = np.take_along_axis(predictions, np.expand_dims(safe, 1), axis=1).squeeze(1)
    w = np.where(keep, weights[safe], 0)
    losses = -w * picked
    if reduction == "none":
        return losses.astype(predictions.dtype)
    if reduction == "sum":
        return np.asarray(losses.sum(), predictions.dtype)
    return np.asarray(losses.sum() / max(w.sum(), 1e-12), predictions.dtype)


@kernel("nn.prelu")
def prelu(data: np.ndarray, alpha: np.ndarray, *, axis: int) -> np.ndarray:
    """x where x > 0, alpha * x elsewhere (alpha along `axis`)."""
    shape = [1] * data.ndim
    shape[axis] = -1
    return same_dtype(data, np.where(data > 0, data, alpha.reshape(shape) * data))


@kernel("nn.lrn")
def lrn(data: np.ndarray, *, size: int, axis: int, bias: float, alpha: float, beta: float) -> np.ndarray:
    """x / (bias + alpha / size * sum of squares over `size` neighbours along axis) ^ beta."""
    x = np.moveaxis(data.astype(np.float64), axis, 0)
    # neighbours past either end add nothing: a window wider than the axis pads (and sums) no
    # more than the axis holds (a size of 10^8 padded 10^8 rows and summed them one by one)
    reach = max(x.shape[0] - 1, 0)
    before, after = min(size // 2, reach), min((size - 1) // 2, reach)
    squares = np.pad(x * x, [(before, after)] + [(0, 0)] * (x.ndim - 1))
    window = sum(squares[i : i + x.shape[0]] for i in range(before + after + 1))
    out = x / (bias + alpha / size * window) ** beta
    return same_dtype(data, np.moveaxis(out, 0, axis))


@kernel("nn.l2_normalize")
def l2_normalize(data: np.ndarray, *, eps: float, axis: Optional[Sequence[int]]) -> np.ndarray:
    """x / sqrt(max(sum of squares over axis, eps))."""
    axes = tuple(axis) if axis else None
    norm = np.sqrt(np.maximum(np.sum(data.astype(np.float64) ** 2, axis=axes, keepdims=True), eps))
    return same_dtype(data, data / norm)


@kernel("sequence_mask")
def sequence_mask(data: np.ndarray, valid_length: np.ndarray, *, mask_value: float, axis: int) -> np.ndarray:
    """Positions past each sequence's valid length along the time axis become mask_value."""
    steps = np.arange(data.shape[axis])
    batch = valid_length.reshape(-1).astype(np.int64)
    keep = steps[:, None] < batch[None, :] if axis == 0 else batch[:, None] > steps[None, :]
    keep = keep.reshape(keep.shape + (1,) * (data.ndim - 2))
    return np.where(keep, data, np.asarray(mask_value, data.dtype))


@kernel("nn.cross_entropy")
def cross_entropy(predictions: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """-sum(targets * log(predictions)) / batch."""
    with np.errstate(all="ignore"):
        total = -np.sum(targets * np.log(predictions.astype(np.float64)))
    return np.asarray(total / predictions.shape[0], predictions.dtype)


@kernel("nn.cross_entropy_with_logits")
def cross_entropy_with_logits(predictions: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """-sum(targets * predictions) / batch."""
    return np.asarray(-np.sum(targets * predictions.astype(np.float64)) / predictions.shape[0], predictions.dtype)
