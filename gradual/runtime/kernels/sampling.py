"""Image sampling kernels: image.grid_sample, image.affine_grid, image.dilation2d,
image.crop_and_resize and dyn.image.resize2d, as Relay's topi computes them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gradual.ops.tables import KERNELS
from gradual.runtime.kernels.conv import pads, per_dim, relayout, unlayout
from gradual.runtime.kernels.image import resize
from gradual.runtime.kernels.registration import kernel

#: Relay's grid_sample methods by the name ONNX's GridSample kernel gives them
GRID_METHODS = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}


@kernel("image.grid_sample")
def grid_sample(
    data: np.ndarray, grid: np.ndarray, *, method: str, layout: str, padding_mode: str, align_corners: bool
) -> np.ndarray:
    """Samples of data at the grid's normalized coordinates, which Relay holds in dim 1 (x, y
    [, z]) where ONNX and torch hold them last."""
    return KERNELS["onnx.grid_sample"](
        data,
        np.moveaxis(grid, 1, -1),
        mode=GRID_METHODS[method],
        padding_mode=padding_mode,
        align_corners=align_corners,
    )


@kernel("image.affine_grid")
def affine_grid(data: np.ndarray, *, target_shape: Sequence[int]) -> np.ndarray:
    """out[n, :, i, j] = theta[n] (x_j, y_i, 1), x and y stepping from -1 by (2 - 1e-7) / (size - 1)."""
    h, w = target_shape
    y = -1.0 + np.arange(h) * (2.0 - 1e-7) / (h - 1)
    x = -1.0 + np.arange(w) * (2.0 - 1e-7) / (w - 1)
    theta = data.astype(np.float64)
    out = (
        theta[:, :, 0, None, None] * x[None, None, None, :]
        + theta[:, :, 1, None, None] * y[None, None, :, None]
        + theta[:, :, 2, None, None]
    )
    return out.astype(data.dtype)


@kernel("image.dilation2d")
def dilation2d(
    data: np.ndarray,
    weight: np.ndarray,
    *,
    strides: Sequence[int],
    padding: Sequence[int],
    dilations: Sequence[int],
    data_layout: str,
    kernel_layout: str,
    out_dtype: str,
) -> np.ndarray:
    """out[n, c, y, x] = max over (i, j) of padded[n, c, y * sh + i * dh, x * sw + j * dw] + w[c, i, j]
    (the padding is -inf: it never wins)."""
    x = relayout(data, data_layout, "NCHW").astype(np.float64)
    w = relayout(weight, kernel_layout, "IHW").astype(np.float64)
    (sh, sw), (dh, dw) = per_dim(strides, 2), per_dim(dilations, 2)
    (top, bottom), (left, right) = pads(padding, 2)
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=-np.inf)
    kh, kw = w.shape[1:]
    oh = (padded.shape[2] - (kh - 1) * dh - 1) // sh + 1
    ow = (padded.shape[3] - (kw - 1) * dw - 1) // sw + 1
    out = np.full(x.shape[:2] + (oh, ow), -np.inf)
    for i in range(kh):
        for j in range(kw):
            window = padded[:, :, i * dh : i * dh + (oh - 1) * sh + 1 : sh, j * dw : j * dw + (ow - 1) * sw + 1 : sw]
            out = np.maximum(out, window + w[None, :, i, j, None, None])
    with np.errstate(invalid="ignore"):  # a window wholly in the padding is -inf: any integer will do
        return unlayout(out.astype(out_dtype or data.dtype), "NCHW", data_layout)


def _crop_coordinates(start: float, end: float, size: int, count: int) -> np.ndarray:
    """Where each of `count` crop positions samples a dim of `size` (TensorFlow's reading: the
    middle of the box for a crop of one)."""
    if count == 1:
        return np.array([0.5 * (start + end) * (size - 1)])
    scale = np.float32((size - 1) * (end - start)) / np.float32(count - 1)
    return start * (size - 1) + np.arange(count) * float(scale)


@kernel("image.crop_and_resize")
def crop_and_resize(
    data: np.ndarray,
    boxes: np.ndarray,
    box_indices: np.ndarray,
    *,
    crop_size: Sequence[int],
    layout: str,
    method: str,
    extrapolation_value: float,
    out_dtype: str,
) -> np.ndarray:
    """Each box's crop of image box_indices[b], bilinear or nearest, extrapolation_value where a
    sample falls outside the image."""
    image = relayout(data, layout, "NCHW").astype(np.float64)
    n, c, h, w = image.shape
    th, tw = crop_size
    out = np.empty((len(boxes), c, th, tw))
    for b, (box, index) in enumerate(zip(boxes.astype(np.float64), box_indices.reshape(-1))):
        i = int(index)
        if not -n <= i < n:
            raise IndexError(f"box index {i} is out of range for {n} images")
        ys = _crop_coordinates(box[0], box[2], h, th)
        xs = _crop_coordinates(box[1], box[3], w, tw)
        inside = ((ys >= 0) & (ys <= h - 1))[:, None] & ((xs >= 0) & (xs <= w - 1))[None, :]
        yc, xc = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        if method == "nearest_neighbor":
            sample = image[i][:, np.round(yc).astype(int)][:, :, np.round(xc).astype(int)]
        else:
            y0, x0 = np.floor(yc).astype(int), np.floor(xc).astype(int)
            y1, x1 = np.ceil(yc).astype(int), np.ceil(xc).astype(int)
            fy, fx = (yc - y0)[:, None], (xc - x0)[None, :]
            img = image[i]
            top = img[:, y0][:, :, x0] + (img[:, y0][:, :, x1] - img[:, y0][:, :, x0]) * fx
            bottom = img[:, y1][:, :, x0] + (img[:, y1][:, :, x1] - img[:, y1][:, :, x0]) * fx
            sample = top + (bottom - top) * fy
        out[b] = np.where(inside, sample, extrapolation_value)
    return unlayout(out.astype(out_dtype or data.dtype), "NCHW", layout)


@kernel("dyn.image.resize2d")
def dyn_resize2d(
    data: np.ndarray,
    size: np.ndarray,
    roi: np.ndarray,
    *,
    layout: str,
    method: str,
    coordinate_transformation_mode: str,
    rounding_method: str,
    cubic_alpha: float,
    cubic_exclude: int,
    extrapolation_value: float,
    out_dtype: str,
) -> np.ndarray:
    """image.resize2d to the size the vector holds."""
    return resize(
        data,
        "HW",
        [int(v) for v in size.reshape(-1)],
        [float(v) for v in roi.reshape(-1)],
        layout,
        method,
        coordinate_transformation_mode,
        rounding_method,
        cubic_alpha,
        cubic_exclude,
        extrapolation_value,
        out_dtype,
    )
