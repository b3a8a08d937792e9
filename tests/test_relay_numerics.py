"""The kernels of Relay's scatter, scan, image, vision and nn operators compute what Relay
computes: each compared with a direct NumPy reference or an example from Relay's own tests
(shapes are covered for every operator by test_runtime_kernels.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradual.ops.registry import default_registry
from gradual.runtime import kernels  # noqa: F401
from gradual.runtime.operators import run_operator
from gradual.syntax.source import generated_span

SPAN = generated_span("<relay numerics>")
RNG = np.random.default_rng(11)


def op(name: str, *args: Any, **attrs: Any) -> Any:
    """Run an operator as the runtime does (rule, kernel, agreement) with default attributes."""
    operator = default_registry().get(name)
    values = {k: spec.default for k, spec in operator.attrs.items() if spec.has_default}
    values.update(attrs)
    return run_operator(operator, [a if isinstance(a, tuple) else np.asarray(a) for a in args], values, SPAN)


# scatter ----------------------------------------------------------------------------------------
def test_scatter_elements_is_put_along_axis() -> None:
    data = RNG.standard_normal((3, 4)).astype(np.float32)
    indices = np.array([[2, 0, 1, 0], [1, 2, 0, 1]])
    updates = RNG.standard_normal((2, 4)).astype(np.float32)
    expected = data.copy()
    np.put_along_axis(expected, indices, updates, axis=0)
    np.testing.assert_array_equal(op("scatter_elements", data, indices, updates, axis=0), expected)


def test_scatter_elements_adds_repeated_indices() -> None:
    out = op("scatter_elements", np.zeros(3), np.array([0, 0, -1]), np.array([1.0, 2.0, 5.0]), reduction="add")
    np.testing.assert_array_equal(out, [3.0, 0.0, 5.0])


def test_scatter_nd_writes_slices() -> None:
    # Relay's docstring: data (2, 2), indices (2, 3) -> three (row, column) pairs
    out = op("scatter_nd", np.zeros((2, 2)), np.array([[0, 1, 1], [1, 0, 1]]), np.array([2.0, 3.0, 4.0]), mode="add")
    np.testing.assert_array_equal(out, [[0.0, 2.0], [3.0, 4.0]])
    rows = op("scatter_nd", np.zeros((3, 2)), np.array([[2, 0]]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(rows, [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]])


def test_strided_set_matches_relay_example() -> None:
    x = np.array([[1.0, 4.0, 7.0, 10.0], [2.0, 5.0, 8.0, 11.0], [3.0, 6.0, 9.0, 12.0]])
    v = np.array([[11.0, 22.0, 33.0], [44.0, 55.0, 66.0]])
    out = op("strided_set", x, v, np.array([0, 1], np.int32), np.array([2, 4], np.int32), np.array([1, 1], np.int32))
    np.testing.assert_array_equal(out, [[1, 11, 22, 33], [2, 44, 55, 66], [3, 6, 9, 12]])


def test_adv_index_is_numpy_indexing() -> None:
    x = RNG.standard_normal((5, 6, 7))
    a, b = np.array([[0], [4], [-1]]), np.array([0, 1, 5, -6])
    np.testing.assert_array_equal(op("adv_index", (x, a, b)), x[a, b])


# scans, sequences and grids ---------------------------------------------------------------------
def test_cumsum_flattens_without_an_axis_and_shifts_when_exclusive() -> None:
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(op("cumsum", x), [1, 3, 6, 10, 15, 21])
    np.testing.assert_array_equal(op("cumsum", x, axis=1, exclusive=True), [[0, 1, 3], [0, 4, 9]])
    np.testing.assert_array_equal(op("cumprod", x, axis=0, exclusive=True), [[1, 1, 1], [1, 2, 3]])
    assert op("cumsum", x, dtype="float64").dtype == np.float64


def test_reverse_sequence_matches_relay_example() -> None:
    x = np.arange(16, dtype=np.int32).reshape(4, 4)
    out = op("reverse_sequence", x, np.array([1, 2, 3, 4]), seq_axis=0, batch_axis=1)
    np.testing.assert_array_equal(out, [[0, 5, 10, 15], [4, 1, 6, 11], [8, 9, 2, 7], [12, 13, 14, 3]])
    # a length past the dim reverses all of it (topi clamps it)
    out = op("reverse_sequence", x, np.array([9, 0, 1, 2]))
    np.testing.assert_array_equal(out, [[3, 2, 1, 0], [4, 5, 6, 7], [8, 9, 10, 11], [13, 12, 14, 15]])


def test_trilu_is_triu_and_tril() -> None:
    x = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(op("trilu", x, np.array(1)), np.triu(x, 1))
    np.testing.assert_array_equal(op("trilu", x, np.array(-1), upper=False), np.tril(x, -1))


def test_stft_matches_relay_example() -> None:
    data = np.array([1, 2, 3, 4, 5, 6], np.float32)
    out = op("stft", data, np.array([4, 3, 2], np.int32), n_fft=3, hop_length=3, win_length=3)
    np.testing.assert_allclose(out, [[[16.0, 0.0], [43.0, 0.0]], [[-2.0, 0.0], [2.5, -2.5981]]], atol=1e-4)


def test_searchsorted_per_row() -> None:
    sequence = np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    values = np.array([[3.0, 6.0], [1.0, 4.0]])
    np.testing.assert_array_equal(op("searchsorted", sequence, values), [[1, 3], [0, 1]])
    np.testing.assert_array_equal(op("searchsorted", sequence, values, right=True), [[2, 3], [0, 2]])


def test_meshgrid_and_sliding_window_follow_numpy() -> None:
    a, b = np.arange(3), np.arange(2)
    for got, want in zip(op("meshgrid", (a, b), indexing="xy"), np.meshgrid(a, b, indexing="xy")):
        np.testing.assert_array_equal(got, want)
    x = np.arange(24).reshape(2, 3, 4)
    out = op("sliding_window", x, axis=1, window_shape=[2, 2], strides=[1, 2])
    assert out.shape == (2, 2, 2, 2, 2)
    np.testing.assert_array_equal(out[1, 1, 1], x[1, 1:3, 2:4])


def test_collapse_sum_to_sums_the_broadcast_dims() -> None:
    x = RNG.standard_normal((2, 3, 4))
    np.testing.assert_allclose(op("collapse_sum_to", x, np.array([3, 1])), x.sum(axis=(0, 2)).reshape(3, 1))


# image sampling ---------------------------------------------------------------------------------
def test_grid_sample_at_the_pixel_centres_is_the_image() -> None:
    x = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), indexing="ij")
    grid = np.stack([xs, ys])[None].astype(np.float32)  # (1, 2, h, w): x first
    np.testing.assert_allclose(op("image.grid_sample", x, grid), x, atol=1e-5)


def test_affine_grid_of_the_identity_spans_minus_one_to_one() -> None:
    theta = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], np.float32)
    out = op("image.affine_grid", theta, target_shape=[3, 5])
    np.testing.assert_allclose(out[0, 0, 0], np.linspace(-1, 1, 5), atol=1e-6)
    np.testing.assert_allclose(out[0, 1, :, 0], np.linspace(-1, 1, 3), atol=1e-6)


def test_dilation2d_is_the_largest_sum_over_the_window() -> None:
    x = RNG.standard_normal((1, 2, 5, 5))
    w = RNG.standard_normal((2, 2, 3))
    out = op("image.dilation2d", x, w)
    expected = np.array(
        [
            [
                [
                    [max(x[0, c, i + a, j + b] + w[c, a, b] for a in range(2) for b in range(3)) for j in range(3)]
                    for i in range(4)
                ]
                for c in range(2)
            ]
        ]
    )
    np.testing.assert_allclose(out, expected)


def test_crop_and_resize_of_the_whole_image_is_the_image() -> None:
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    boxes = np.array([[0.0, 0.0, 1.0, 1.0]], np.float32)
    out = op("image.crop_and_resize", x, boxes, np.array([1], np.int32), crop_size=[4, 5])
    np.testing.assert_allclose(out[0], x[1], atol=1e-5)
    half = op(
        "image.crop_and_resize",
        x,
        np.array([[0.0, 0.0, 2.0, 1.0]], np.float32),
        np.array([0]),
        crop_size=[3, 5],
        extrapolation_value=7.0,
    )
    np.testing.assert_allclose(half[0, :, 0], x[0, :, 0], atol=1e-5)
    assert (half[0, :, 2] == 7.0).all()


# block rearrangements, dilation, mirror padding -------------------------------------------------
def test_space_to_batch_and_back_match_tensorflow_examples() -> None:
    # TensorFlow's documented example: [1, 4, 4, 1] by blocks [2, 2] -> [4, 2, 2, 1]
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1)
    out = op("nn.space_to_batch_nd", x, block_shape=[2, 2], paddings=[[0, 0], [0, 0]])
    np.testing.assert_array_equal(
        out[:, :, :, 0], [[[1, 3], [9, 11]], [[2, 4], [10, 12]], [[5, 7], [13, 15]], [[6, 8], [14, 16]]]
    )
    back = op("nn.batch_to_space_nd", out, block_shape=[2, 2], crops=[[0, 0], [0, 0]])
    np.testing.assert_array_equal(back, x)
    padded = op("nn.space_to_batch_nd", x, block_shape=[2, 2], paddings=[[1, 1], [0, 2]])
    np.testing.assert_array_equal(op("nn.batch_to_space_nd", padded, block_shape=[2, 2], crops=[[1, 1], [0, 2]]), x)


def test_dilate_and_mirror_pad() -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(op("nn.dilate", x, strides=[2, 1], dilation_value=9.0), [[1, 2], [9, 9], [3, 4]])
    np.testing.assert_array_equal(op("nn.mirror_pad", np.array([1, 2, 3]), pad_width=[[2, 1]]), [2, 1, 1, 2, 3, 3])
    np.testing.assert_array_equal(
        op("nn.mirror_pad", np.array([1, 2, 3]), pad_width=[[2, 1]], mode="REFLECT"), [3, 2, 1, 2, 3, 2]
    )
