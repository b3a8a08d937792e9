"""Image kernels: `image.resize1d/2d/3d` with Relay's methods (nearest_neighbor, linear, cubic)
and coordinate transformation modes, as separable 1-D resampling along each spatial axis."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from gradual.ops import attr_domains
from gradual.runtime.kernels.conv import relayout
from gradual.runtime.kernels.registration import kernel


def source_coordinates(out: int, size: int, mode: str, roi: tuple = (0.0, 1.0)) -> np.ndarray:
    """Where each output index samples the input, per coordinate_transformation_mode."""
    x = np.arange(out, dtype=np.float64)
    scale = size / out if out else 0.0
    if mode == "half_pixel":
        return (x + 0.5) * scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) * scale - 0.5 if out > 1 else np.zeros(out)
    if mode == "align_corners":
        return x * (size - 1) / (out - 1) if out > 1 else np.zeros(out)
    if mode == "asymmetric":
        return x * scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) * scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if out > 1:
            return start * (size - 1) + x * (end - start) * (size - 1) / (out - 1)
        return np.full(out, 0.5 * (start + end) * (size - 1))
    raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")


def _nearest_index(coords: np.ndarray, rounding: str, mode: str) -> np.ndarray:
    if not rounding:
        rounding = "floor" if mode in ("align_corners", "asymmetric", "tf_half_pixel_for_nn") else "round"
    rounders: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "round": lambda c: np.floor(c + 0.5),
        "round_prefer_ceil": lambda c: np.floor(c + 0.5),
        "round_prefer_floor": lambda c: np.ceil(c - 0.5),
        "floor": np.floor,
        "ceil": np.ceil,
    }
    if rounding not in rounders:
        raise ValueError(f"unknown rounding_method {rounding!r}")
    return rounders[rounding](coords).astype(np.int64)


def _cubic_weights(t: np.ndarray, alpha: float) -> np.ndarray:
    """Keys' cubic convolution weights of the four taps around a fractional offset t."""

    def w(d: np.ndarray) -> np.ndarray:
        d = np.abs(d)
        near = ((alpha + 2) * d - (alpha + 3)) * d * d + 1
        far = ((alpha * d - 5 * alpha) * d + 8 * alpha) * d - 4 * alpha
        return np.where(d <= 1, near, np.where(d < 2, far, 0.0))

    return np.stack([w(t + 1), w(t), w(1 - t), w(2 - t)], axis=-1)


def resample_matrix(
    out: int, size: int, method: str, mode: str, rounding: str, alpha: float, exclude: int, roi: tuple
) -> tuple:
    """(out x size) weights of a 1-D resize, and which outputs fall outside the input (for
    tf_crop_and_resize's extrapolation value)."""
    coords = source_coordinates(out, size, mode, roi)
    matrix = np.zeros((out, size))
    rows = np.arange(out)
    outside = (coords < 0) | (coords > size - 1) if mode == "tf_crop_and_resize" else np.zeros(out, bool)
    if method == "nearest_neighbor":
        matrix[rows, np.clip(_nearest_index(coords, rounding, mode), 0, size - 1)] = 1.0
    elif method == "linear":
        low = np.floor(coords)
        frac = coords - low
        for offset, weight in ((0, 1 - frac), (1, frac)):
            np.add.at(matrix, (rows, np.clip(low.astype(np.int64) + offset, 0, size - 1)), weight)
    elif method == "cubic":
        low = np.floor(coords)
        weights = _cubic_weights(coords - low, alpha)
        for tap in range(4):
            index = low.astype(np.int64) - 1 + tap
            weight = weights[:, tap] * (((index >= 0) & (index < size)) if exclude else 1)
            np.add.at(matrix, (rows, np.clip(index, 0, size - 1)), weight)
        if exclude:
            matrix /= np.maximum(matrix.sum(axis=1, keepdims=True), 1e-12)
    else:
        raise ValueError(f"unknown resize method {method!r}")
    return matrix, outside


def resize(
    data: np.ndarray,
    spatial: str,
    size: int | Sequence[int],
    roi: Optional[Sequence[float]],
    layout: str,
    method: str,
    mode: str,
    rounding: str,
    alpha: float,
    exclude: int,
    extrapolation_value: float,
    out_dtype: str,
) -> np.ndarray:
    """Resize the spatial dims (`spatial`, e.g. "HW") to `size` (one int: every one of them),
    one axis after the other."""
    size = [size] if isinstance(size, int) else size
    if not all(isinstance(v, int) for v in size):
        raise ValueError(f"size {list(size)} names a shape variable that has no value at runtime")
    count = len(spatial)
    x = relayout(data, layout, "NC" + spatial).astype(np.float64)
    sizes = list(size) * count if len(size) == 1 else list(size)
    box = tuple(roi) if roi else (0.0,) * count + (1.0,) * count
    outside = np.zeros([1] * count, bool)
    for i in range(count):
        matrix, out_i = resample_matrix(
            sizes[i], x.shape[2 + i], method, mode, rounding, alpha, exclude, (box[i], box[count + i])
        )
        x = np.moveaxis(np.tensordot(x, matrix, axes=([2 + i], [1])), -1, 2 + i)
        outside = outside | out_i.reshape([-1 if j == i else 1 for j in range(count)])
    out = np.where(outside, extrapolation_value, x)
    if data.dtype.kind in "iu" and not out_dtype:
        out = np.round(out)
    return relayout(out.astype(out_dtype or data.dtype), "NC" + spatial, layout)


def _register_resize(name: str, spatial: str) -> None:
    @kernel(f"image.{name}")
    def run(
        data: np.ndarray,
        *,
        size: Sequence[int],
        roi: Optional[Sequence[float]],
        layout: str,
        method: str,
        coordinate_transformation_mode: str,
        rounding_method: str,
        cubic_alpha: float,
        cubic_exclude: int,
        extrapolation_value: float,
        out_dtype: str = "",
    ) -> np.ndarray:
        return resize(
            data,
            spatial,
            size,
            roi,
            layout,
            method,
            coordinate_transformation_mode,
            rounding_method,
            cubic_alpha,
            cubic_exclude,
            extrapolation_value,
            out_dtype,
        )

    run.__name__ = name
    run.__doc__ = f"`image.{name}`: resize {', '.join(spatial)} to `size`."


for _name, _spatial in (("resize1d", "W"), ("resize2d", "HW"), ("resize3d", "DHW")):
    _register_resize(_name, _spatial)


# upsampling -------------------------------------------------------------------------------------
#: the resize method of each upsampling method (the names are the checker's: attr_domains)
UPSAMPLING_METHODS = dict(
    zip(attr_domains.UPSAMPLING_METHODS, ("nearest_neighbor", "linear", "linear", "cubic", "linear", "cubic"))
)


def upsample(
    data: np.ndarray, spatial: str, scales: Sequence[float], layout: str, method: str, mode: str
) -> np.ndarray:
    """Resize the spatial dims to round(size * scale) (half to even, as Relay)."""
    x = relayout(data, layout, "NC" + spatial)
    sizes = [round(size * float(scale)) for size, scale in zip(x.shape[2:], scales)]
    if method not in UPSAMPLING_METHODS:
        raise ValueError(f"unknown upsampling method {method!r}")
    return resize(data, spatial, sizes, None, layout, UPSAMPLING_METHODS[method], mode, "", -0.5, 0, 0.0, "")


@kernel("nn.upsampling")
def upsampling(
    data: np.ndarray, *, scale_h: float, scale_w: float, layout: str, method: str, align_corners: bool
) -> np.ndarray:
    """Scale H and W (align_corners: corner pixels aligned, else asymmetric)."""
    return upsample(data, "HW", (scale_h, scale_w), layout, method, "align_corners" if align_corners else "asymmetric")


@kernel("nn.upsampling3d")
def upsampling3d(
    data: np.ndarray,
    *,
    scale_d: float,
    scale_h: float,
    scale_w: float,
    layout: str,
    method: str,
    coordinate_transformation_mode: str,
) -> np.ndarray:
    """Scale D, H and W."""
    return upsample(data, "DHW", (scale_d, scale_h, scale_w), layout, method, coordinate_transformation_mode)


@kernel("dyn.nn.upsampling")
def dyn_upsampling(
    data: np.ndarray,
    scale_h_value: np.ndarray,
    scale_w_value: np.ndarray,
    *,
    layout: str,
    method: str,
    align_corners: bool,
) -> np.ndarray:
    """upsampling by scalar tensors."""
    return upsample(
        data,
        "HW",
        (float(scale_h_value), float(scale_w_value)),
        layout,
        method,
        "align_corners" if align_corners else "asymmetric",
    )


@kernel("dyn.nn.upsampling3d")
def dyn_upsampling3d(
    data: np.ndarray,
    scale_d_value: np.ndarray,
    scale_h_value: np.ndarray,
    scale_w_value: np.ndarray,
    *,
    layout: str,
    method: str,
    coordinate_transformation_mode: str,
) -> np.ndarray:
    """upsampling3d by scalar tensors."""
    scales = (float(scale_d_value), float(scale_h_value), float(scale_w_value))
    return upsample(data, "DHW", scales, layout, method, coordinate_transformation_mode)
