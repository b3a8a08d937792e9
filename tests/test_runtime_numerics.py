"""The kernels compute what Relay computes: convolution, pooling, reshape codes, indexing,
reductions and normalization compared with direct NumPy references and Relay's documented
examples (shapes are covered for every operator by test_runtime_kernels.py)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from gradual.ops.registry import default_registry
from gradual.runtime import kernels  # noqa: F401
from gradual.runtime.operators import run_operator
from gradual.syntax.source import generated_span

SPAN = generated_span("<numerics>")
RNG = np.random.default_rng(7)


def op(name: str, *args: Any, **attrs: Any) -> Any:
    """Run an operator as the runtime does (rule, kernel, agreement) with default attributes."""
    operator = default_registry().get(name)
    values = {k: spec.default for k, spec in operator.attrs.items() if spec.has_default}
    values.update(attrs)
    return run_operator(operator, [np.asarray(a) for a in args], values, SPAN)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


# convolution --------------------------------------------------------------------------------------
def conv_reference(x: np.ndarray, w: np.ndarray, stride: tuple, pad: tuple, dilation: tuple, groups: int) -> np.ndarray:
    """Direct NCHW/OIHW convolution with padding (top, left, bottom, right)."""
    top, left, bottom, right = pad
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    ow = (wd - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for b in range(n):
        for f in range(o):
            g = f // og
            for i in range(oh):
                for j in range(ow):
                    for ch in range(cg):
                        for p in range(kh):
                            for q in range(kw):
                                out[b, f, i, j] += (
                                    x[b, g * cg + ch, i * stride[0] + p * dilation[0], j * stride[1] + q * dilation[1]]
                                    * w[f, ch, p, q]
                                )
    return out


@pytest.mark.parametrize(
    "groups, stride, dilation, padding",
    [
        (1, [1, 1], [1, 1], [0, 0]),
        (2, [2, 1], [1, 2], [1, 0, 2, 1]),
        (1, [2], [2], [1]),
        (3, [1], [1], [2, 1]),
    ],
)
def test_conv2d_matches_a_direct_convolution(groups: int, stride: list, dilation: list, padding: list) -> None:
    x, w = rand(2, 6, 7, 8), rand(6, 6 // groups, 3, 2)
    pad4 = tuple(padding * 4 if len(padding) == 1 else padding * 2 if len(padding) == 2 else padding)
    s2 = tuple(stride * 2 if len(stride) == 1 else stride)
    d2 = tuple(dilation * 2 if len(dilation) == 1 else dilation)
    got = op("nn.conv2d", x, w, strides=stride, padding=padding, dilation=dilation, groups=groups)
    np.testing.assert_allclose(got, conv_reference(x, w, s2, pad4, d2, groups), rtol=1e-10, atol=1e-10)


def test_conv2d_in_nhwc_with_hwio_weights() -> None:
    x, w = rand(1, 3, 5, 6), rand(4, 3, 2, 2)
    nchw = op("nn.conv2d", x, w, padding=[1])
    nhwc = op(
        "nn.conv2d",
        x.transpose(0, 2, 3, 1),
        w.transpose(2, 3, 1, 0),
        padding=[1],
        data_layout="NHWC",
        kernel_layout="HWIO",
    )
    np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1))


def test_conv2d_transpose_is_the_adjoint_of_conv2d() -> None:
    x, w = rand(1, 3, 7, 7), rand(4, 3, 3, 3)
    y = rand(1, 4, 4, 4)
    forward = op("nn.conv2d", x, w, strides=[2], padding=[1])
    backward = op("nn.conv2d_transpose", y, w, strides=[2], padding=[1])
    assert forward.shape == y.shape and backward.shape == x.shape
    np.testing.assert_allclose(np.sum(forward * y), np.sum(x * backward))


def test_conv2d_transpose_with_groups_and_output_padding() -> None:
    x, w = rand(1, 4, 3, 3), rand(4, 2, 3, 3)
    out = op("nn.conv2d_transpose", x, w, strides=[2], output_padding=[1], groups=2)
    assert out.shape == (1, 4, 8, 8)
    first = op("nn.conv2d_transpose", x[:, :2], w[:2], strides=[2], output_padding=[1])
    np.testing.assert_allclose(out[:, :2], first)


# pooling ----------------------------------------------------------------------------------------
def test_max_pool_with_padding_and_ceil_mode() -> None:
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    out = op("nn.max_pool2d", x, pool_size=[2], strides=[2], ceil_mode=True)
    np.testing.assert_array_equal(out[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    padded = op("nn.max_pool2d", -x, pool_size=[3], strides=[1], padding=[1])
    assert padded[0, 0, 0, 0] == -0.0 and padded.shape == (1, 1, 5, 5)


def test_avg_pool_counts_padding_only_when_asked() -> None:
    x = np.ones((1, 1, 2, 2), np.float32)
    without = op("nn.avg_pool2d", x, pool_size=[2], strides=[1], padding=[1])
    with_pad = op("nn.avg_pool2d", x, pool_size=[2], strides=[1], padding=[1], count_include_pad=True)
    np.testing.assert_array_equal(without[0, 0], np.ones((3, 3)))
    np.testing.assert_array_equal(with_pad[0, 0], [[0.25, 0.5, 0.25], [0.5, 1, 0.5], [0.25, 0.5, 0.25]])


def test_adaptive_and_global_pools() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(op("nn.adaptive_avg_pool2d", x, output_size=[2])[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    np.testing.assert_array_equal(op("nn.adaptive_max_pool2d", x, output_size=[1, 2])[0, 0], [[13, 15]])
    assert op("nn.global_avg_pool2d", x).item() == 7.5 and op("nn.global_max_pool2d", x).item() == 15


# reshape, slicing, indexing -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape, newshape, result",
    [
        ((2, 3, 4), [6, 1, -1], (6, 1, 4)),
        ((2, 3, 4), [3, -1, 8], (3, 1, 8)),
        ((2, 3, 4), [-1], (24,)),
        ((2, 3, 4), [0, -1], (2, 12)),
        ((2, 3, 4), [-2], (2, 3, 4)),
        ((2, 3, 4, 5), [-3, -3], (6, 20)),
        ((2, 3, 4), [-4, 1, 2, -2], (1, 2, 3, 4)),
        ((2, 3, 4), [2, -4, -1, 3, -2], (2, 1, 3, 4)),
    ],
)
def test_reshape_codes_as_relay_documents_them(shape: tuple, newshape: list, result: tuple) -> None:
    x = np.arange(np.prod(shape)).reshape(shape)
    out = op("reshape", x, newshape=newshape)
    assert out.shape == result and (out.reshape(-1) == x.reshape(-1)).all()


def test_strided_slice_is_python_slicing() -> None:
    x = np.arange(60).reshape(3, 4, 5)
    np.testing.assert_array_equal(op("strided_slice", x, begin=[1, -1], end=[3, 0], strides=[1, -2]), x[1:3, -1:0:-2])
    np.testing.assert_array_equal(op("strided_slice", x, begin=[1], end=[2**31 - 1], axes=[2]), x[:, :, 1:])
    np.testing.assert_array_equal(op("strided_slice", x, begin=[0, 1], end=[-1, 2], slice_mode="size"), x[:, 1:3])


def test_take_modes() -> None:
    x = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(op("take", x, np.array([0, 5, -1]), axis=1), x[:, [0, 3, 0]])
    np.testing.assert_array_equal(op("take", x, np.array([0, 5, -1]), axis=1, mode="wrap"), x[:, [0, 1, 3]])
    np.testing.assert_array_equal(op("take", x, np.array([[1], [11]])), [[1], [11]])
    batched = op("take", x, np.array([[0, 1], [2, 3], [1, 1]]), axis=1, batch_dims=1)
    np.testing.assert_array_equal(batched, [[0, 1], [6, 7], [9, 9]])


def test_one_hot_topk_unique() -> None:
    np.testing.assert_array_equal(
        op("one_hot", np.array([0, 2]), np.array(5.0), np.array(-1.0), depth=3, axis=0), [[5, -1], [-1, -1], [-1, 5]]
    )
    values, indices = op("topk", np.array([[3, 1, 4, 1, 5]]), k=2)
    np.testing.assert_array_equal(values, [[5, 4]])
    np.testing.assert_array_equal(indices, [[4, 2]])
    out = op("unique", np.array([3, 1, 3, 2, 1], np.int32), sorted=False, return_counts=True)
    assert [o.tolist() for o in out] == [[3, 1, 2, 0, 0], [0, 1, 3, 0, 0], [0, 1, 0, 2, 1], [3], [2, 2, 1, 0, 0]]
    out = op("unique", np.array([3, 1, 3, 2, 1], np.int32))
    assert [o.tolist() for o in out] == [[1, 2, 3, 0, 0], [1, 3, 0, 0, 0], [2, 0, 2, 1, 0], [3]]


def test_split_tile_repeat_reverse() -> None:
    x = np.arange(6)
    assert [p.tolist() for p in op("split", x, indices_or_sections=[2, 5])] == [[0, 1], [2, 3, 4], [5]]
    np.testing.assert_array_equal(op("tile", x.reshape(2, 3), reps=[2]), np.tile(x.reshape(2, 3), 2))
    np.testing.assert_array_equal(op("repeat", x, repeats=2, axis=0), np.repeat(x, 2))
    np.testing.assert_array_equal(op("reverse", x.reshape(2, 3), axis=1), [[2, 1, 0], [5, 4, 3]])


# reductions and arithmetic ----------------------------------------------------------------------
def test_reductions_with_exclude_and_multiple_axes() -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(op("sum", x, axis=[1], exclude=True), x.sum(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(op("mean", x, axis=[], keepdims=True), x.mean(keepdims=True), rtol=1e-5)
    flat = x.transpose(1, 0, 2).reshape(3, 8)
    np.testing.assert_array_equal(op("argmax", x, axis=[0, 2]), flat.argmax(axis=1))
    ties = np.array([[1, 3, 3]])
    assert op("argmax", ties, axis=[1], select_last_index=True).tolist() == [2]
    assert op("argmin", ties, axis=[1]).tolist() == [0]


def test_integer_divide_and_mod_truncate_toward_zero() -> None:
    a, b = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    assert op("divide", a, b).tolist() == [3, -3, -3, 3]
    assert op("mod", a, b).tolist() == [1, -1, 1, -1]
    assert op("floor_divide", a, b).tolist() == [3, -4, -4, 3]


def test_unary_maps_keep_the_dtype() -> None:
    x = np.array([-1.5, 0.0, 0.5], np.float32)
    np.testing.assert_allclose(op("erf", x), [math.erf(v) for v in x], rtol=1e-6)
    root = op("sqrt", np.array([4, 9], np.float16))
    assert root.dtype == np.float16 and root.tolist() == [2, 3]
    np.testing.assert_allclose(op("sigmoid", x), 1 / (1 + np.exp(-x)), rtol=1e-6)
    assert op("round", np.array([0.5, 1.5, 2.5])).tolist() == [0, 2, 2]


# normalization, padding, resizing ----------------------------------------------------------------
def test_batch_norm_and_layer_norm() -> None:
    x = rand(2, 3, 4)
    gamma, beta, mean, var = rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    out, m, v = op("nn.batch_norm", x, gamma, beta, mean, var, axis=1, epsilon=1e-3)
    expect = (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-3) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(out, expect)
    assert (m == mean).all() and (v == var).all()
    g, b = rand(4), rand(4)
    normed = op("nn.layer_norm", x, g, b)
    np.testing.assert_allclose(
        normed, (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b
    )


def test_pad_modes_and_negative_widths() -> None:
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(op("nn.pad", x, np.array(9), pad_width=[[1, 0], [0, -1]]), [[9, 9], [0, 1], [3, 4]])
    np.testing.assert_array_equal(
        op("nn.pad", x, np.array(0), pad_width=[[0, 0], [2, 1]], pad_mode="reflect"),
        np.pad(x, [(0, 0), (2, 1)], mode="reflect"),
    )


def test_resize2d_methods() -> None:
    x = np.array([[[[0.0, 1.0], [2.0, 3.0]]]])
    same = op("image.resize2d", x, size=[2, 2])
    np.testing.assert_allclose(same, x)
    nearest = op(
        "image.resize2d", x, size=[4, 4], method="nearest_neighbor", coordinate_transformation_mode="asymmetric"
    )
    np.testing.assert_array_equal(nearest[0, 0], np.repeat(np.repeat(x[0, 0], 2, 0), 2, 1))
    corners = op("image.resize2d", x, size=[3, 3], coordinate_transformation_mode="align_corners")
    np.testing.assert_allclose(corners[0, 0], [[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]])
    cubic = op("image.resize2d", x, size=[2, 2], method="cubic")
    np.testing.assert_allclose(cubic, x, atol=1e-12)
