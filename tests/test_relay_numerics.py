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


# vision -----------------------------------------------------------------------------------------
# Expected values are from TVM: its Python references (tvm.topi.testing's roi_align, roi_pool
# and reorg) and the expectations of tests/python/relay/test_op_level5.py.
def test_roi_align_matches_topis_reference() -> None:
    image = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    rois = np.array([[0, 0.5, 0.5, 3.5, 2.5]], np.float32)
    avg = op("vision.roi_align", image, rois, pooled_size=[2, 2], spatial_scale=1.0, sample_ratio=2)
    np.testing.assert_allclose(avg, [[[[6.25, 7.75], [11.25, 12.75]]]])
    top = op("vision.roi_align", image, rois, pooled_size=[2, 2], spatial_scale=1.0, mode="max")
    np.testing.assert_allclose(top, [[[[6.625, 8.125], [11.625, 13.125]]]])
    nhwc = op(
        "vision.roi_align", image.transpose(0, 2, 3, 1), rois, pooled_size=[2, 2], spatial_scale=1.0, layout="NHWC"
    )
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), avg)


def test_roi_align_of_a_linear_image_is_the_bin_centres() -> None:
    # bilinear samples of a + b*y + c*x inside the image average to its value at the bin's centre
    y, x = np.mgrid[0:8, 0:9]
    image = (1.0 + 2.0 * y + 0.5 * x).astype(np.float32)[None, None]
    rois = np.array([[0, 1.0, 1.0, 7.0, 5.0]], np.float32)
    out = op("vision.roi_align", image, rois, pooled_size=[2, 3], spatial_scale=1.0, sample_ratio=3)
    centre_y = 1.0 + (np.arange(2) + 0.5) * 2.0
    centre_x = 1.0 + (np.arange(3) + 0.5) * 2.0
    np.testing.assert_allclose(out[0, 0], 1.0 + 2.0 * centre_y[:, None] + 0.5 * centre_x[None, :], rtol=1e-6)


def test_roi_pool_matches_topis_reference_and_rounds_ties_away_from_zero() -> None:
    image = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    out = op(
        "vision.roi_pool", image, np.array([[0, 0.6, 0.4, 3.4, 2.6]], np.float32), pooled_size=[2, 2], spatial_scale=1.0
    )
    np.testing.assert_array_equal(out, [[[[7.0, 8.0], [17.0, 18.0]]]])
    # 0.5 rounds to 1 (compiled topi), not to 0 (Python's round): the region starts at x = 1
    tie = op(
        "vision.roi_pool", image, np.array([[0, 0.5, 0, 0.5, 0]], np.float32), pooled_size=[1, 1], spatial_scale=1.0
    )
    assert tie[0, 0, 0, 0] == 1.0


def test_yolo_reorg_matches_topis_reference() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    out = op("vision.yolo_reorg", x, stride=2)
    np.testing.assert_array_equal(out.reshape(-1), [0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15])
    assert op("vision.yolo_reorg", x, stride=1).tolist() == x.tolist()


def test_multibox_prior_matches_relays_reference() -> None:
    # test_op_level5's test_multibox_prior reference, for one cell: sizes then extra ratios
    x = np.zeros((1, 3, 2, 4), np.float32)
    out = op("vision.multibox_prior", x, sizes=[0.3, 1.5], ratios=[1.0, 4.0], steps=[-1.0, -1.0], offsets=[0.5, 0.5])
    assert out.shape == (1, 2 * 4 * 3, 4)
    cy, cx = 0.5 / 2, 0.5 / 4
    w0, h0 = 0.3 * 2 / 4 / 2, 0.3 / 2
    np.testing.assert_allclose(out[0, 0], [cx - w0, cy - h0, cx + w0, cy + h0], rtol=1e-6)
    w2, h2 = 0.3 * 2 / 4 * 2.0 / 2, 0.3 / 2.0 / 2
    np.testing.assert_allclose(out[0, 2], [cx - w2, cy - h2, cx + w2, cy + h2], rtol=1e-6)
    clipped = op("vision.multibox_prior", x, sizes=[1.5], clip=True)
    assert clipped.min() >= 0.0 and clipped.max() <= 1.0


def test_multibox_transform_loc_then_nms_match_relays_test() -> None:
    cls_prob = np.array([[[0.2, 0.5, 0.3], [0.25, 0.3, 0.45], [0.7, 0.1, 0.2]]], np.float32)
    loc = np.array([[0.1, -0.2, 0.3, 0.2, 0.2, 0.4, 0.5, -0.3, 0.7, -0.2, -0.4, -0.8]], np.float32)
    anchors = np.array([[[-0.1, -0.1, 0.1, 0.1], [-0.2, -0.2, 0.2, 0.2], [1.2, 1.2, 1.5, 1.5]]], np.float32)
    expected = {
        True: [[2, 0.7, 0, 0, 0.10818365, 0.10008108], [0, 0.5, 0, 0, 0.22903419, 0.20435292], [1, 0.45, 1, 1, 1, 1]],
        False: [[1, 0.7, 0, 0, 0.10818365, 0.10008108], [0, 0.45, 1, 1, 1, 1], [0, 0.3, 0, 0, 0.22903419, 0.20435292]],
    }
    for keep in (True, False):
        boxes, count = op("vision.multibox_transform_loc", cls_prob, loc, anchors, keep_background=keep)
        nms = op(
            "vision.non_max_suppression",
            boxes,
            count,
            boxes,
            np.array(-1, np.int32),
            np.array(0.5, np.float32),
            return_indices=False,
        )
        np.testing.assert_allclose(nms, [expected[keep]], rtol=1e-5)


NMS_DATA = np.array(
    [
        [
            [0, 0.8, 1, 20, 25, 45],
            [1, 0.7, 30, 60, 50, 80],
            [0, 0.4, 4, 21, 19, 40],
            [2, 0.9, 35, 61, 52, 79],
            [1, 0.5, 100, 60, 70, 110],
        ]
    ],
    np.float32,
)


def test_non_max_suppression_matches_relays_test() -> None:
    valid, indices = np.array([4], np.int32), np.array([[0, 1, 3, 4, -1]], np.int32)
    args = (NMS_DATA, valid, indices, np.array(-1, np.int32), np.array(0.5, np.float32))
    boxes = op("vision.non_max_suppression", *args, force_suppress=True, top_k=2, return_indices=False)
    dropped = [-1.0] * 6
    np.testing.assert_allclose(boxes, [[[2, 0.9, 35, 61, 52, 79], [0, 0.8, 1, 20, 25, 45], dropped, dropped, dropped]])
    kept, count = op("vision.non_max_suppression", *args, force_suppress=True, top_k=2)
    np.testing.assert_array_equal(kept, [[4, 0, -1, -1, -1]])
    assert count.tolist() == [[2]]
    # without force_suppress boxes of other classes do not suppress each other
    by_class = op("vision.non_max_suppression", *args, top_k=-1, return_indices=False)
    assert (by_class[0, :, 0] >= 0).sum() == 4


def test_get_valid_counts_moves_the_valid_boxes_to_the_front() -> None:
    counts, boxes, where = op("vision.get_valid_counts", NMS_DATA, np.array(0.6, np.float32))
    assert counts.tolist() == [3]
    np.testing.assert_array_equal(boxes[0, :3], NMS_DATA[0, [0, 1, 3]])
    assert (boxes[0, 3:] == -1).all() and where.tolist() == [[0, 1, 3, -1, -1]]
    # a negative class id is invalid, unless id_index is negative
    marked = NMS_DATA.copy()
    marked[0, 0, 0] = -1
    assert op("vision.get_valid_counts", marked, np.array(0.6, np.float32))[0].tolist() == [2]
    assert op("vision.get_valid_counts", marked, np.array(0.6, np.float32), id_index=-1)[0].tolist() == [3]


def test_all_class_non_max_suppression_matches_relays_test() -> None:
    boxes = np.array(
        [
            [
                [0.0, 0.0, 0.3, 0.3],
                [0.0, 0.0, 0.4, 0.4],
                [0.0, 0.0, 0.5, 0.5],
                [0.5, 0.5, 0.9, 0.9],
                [0.5, 0.5, 1.0, 1.0],
            ],
            [
                [0.0, 0.0, 0.3, 0.3],
                [0.0, 0.0, 0.4, 0.4],
                [0.5, 0.5, 0.95, 0.95],
                [0.5, 0.5, 0.96, 0.96],
                [0.5, 0.5, 1.0, 1.0],
            ],
        ],
        np.float32,
    )
    scores = np.tile(np.array([0.1, 0.2, 0.6, 0.3, 0.9], np.float32), (2, 2, 1))
    limits = (np.array(2, np.int32), np.array(0.8, np.float32), np.array(0.0, np.float32))
    rows, count = op("vision.all_class_non_max_suppression", boxes, scores, *limits)
    expected = [[0, 0, 4], [0, 0, 2], [0, 1, 4], [0, 1, 2], [1, 0, 4], [1, 0, 1], [1, 1, 4], [1, 1, 1]]
    assert rows.shape == (20, 3) and count.tolist() == [8]
    np.testing.assert_array_equal(rows[:8], expected)
    pairs, kept, per_batch = op(
        "vision.all_class_non_max_suppression", boxes, scores, *limits, output_format="tensorflow"
    )
    assert per_batch.tolist() == [4, 4]
    np.testing.assert_array_equal(pairs[1, :4], [[0, 4], [0, 1], [1, 4], [1, 1]])
    np.testing.assert_allclose(kept[0, :4], [0.9, 0.6, 0.9, 0.6])


def test_proposal_matches_relays_test() -> None:
    cls_prob = np.array(
        [[[[0.3, 0.6, 0.2], [0.4, 0.7, 0.5], [0.1, 0.4, 0.3]], [[0.7, 0.5, 0.3], [0.6, 0.4, 0.8], [0.9, 0.2, 0.5]]]],
        np.float32,
    )
    bbox_pred = np.array(
        [
            [
                [[0.5, 1.0, 0.6], [0.8, 1.2, 2.0], [0.9, 1.0, 0.8]],
                [[0.5, 1.0, 0.7], [0.8, 1.2, 1.6], [2.1, 1.5, 0.7]],
                [[1.0, 0.5, 0.7], [1.5, 0.9, 1.6], [1.4, 1.5, 0.8]],
                [[1.0, 0.5, 0.6], [1.5, 0.9, 2.0], [1.8, 1.0, 0.9]],
            ]
        ],
        np.float32,
    )
    im_info = np.array([[48.0, 48.0, 1.0]], np.float32)
    attrs: dict[str, Any] = {
        "scales": [0.5],
        "ratios": [0.5],
        "feature_stride": 16,
        "rpn_min_size": 16,
        "threshold": 0.7,
        "rpn_pre_nms_top_n": 200,
        "rpn_post_nms_top_n": 4,
    }
    out = op("vision.proposal", cls_prob, bbox_pred, im_info, **attrs)
    expected = [
        [0.0, 0.0, 2.8451548, 28.38012, 18.154846],
        [0.0, 0.0, 15.354933, 41.96971, 41.245064],
        [0.0, 18.019852, 1.0538368, 51.98015, 25.946163],
        [0.0, 27.320923, -1.266357, 55.0, 24.666357],
    ]
    np.testing.assert_allclose(out, expected, rtol=1e-4)
    with_iou = op("vision.proposal", cls_prob, bbox_pred, im_info, iou_loss=True, **attrs)
    expected_iou = [
        [0.0, -5.25, -2.5, 21.75, 19.0],
        [0.0, 11.25, -2.0, 37.25, 18.5],
        [0.0, 26.849998, -2.3000002, 53.45, 18.6],
        [0.0, -4.95, 13.799999, 22.25, 35.5],
    ]
    np.testing.assert_allclose(with_iou, expected_iou, rtol=1e-4)


# pooling gradients ------------------------------------------------------------------------------
def test_pool2d_gradients_match_tvm() -> None:
    # the values TVM 0.16's compiled pool_grad gives for these inputs
    x = np.array([[[[1, 5, 2], [4, 3, 9], [0, 8, 7]]]], np.float32)
    g = np.array([[[[1, 2], [3, 4]]]], np.float32)
    window = {"pool_size": [2, 2], "strides": [2, 2]}
    top = op("nn.max_pool2d_grad", g, x, ceil_mode=True, **window)
    np.testing.assert_array_equal(top, [[[[0, 1, 0], [0, 0, 2], [0, 3, 4]]]])
    padded = op("nn.max_pool2d_grad", g, x, padding=[1, 1], **window)
    np.testing.assert_array_equal(padded, [[[[1, 2, 0], [3, 0, 4], [0, 0, 0]]]])
    # count_include_pad divides by the whole window even where ceil_mode's window overhangs
    whole = op("nn.avg_pool2d_grad", g, x, ceil_mode=True, count_include_pad=True, **window)
    np.testing.assert_allclose(whole, [[[[0.25, 0.25, 0.5], [0.25, 0.25, 0.5], [0.75, 0.75, 1.0]]]])
    inside = op("nn.avg_pool2d_grad", g, x, ceil_mode=True, **window)
    np.testing.assert_allclose(inside, [[[[0.25, 0.25, 1.0], [0.25, 0.25, 1.0], [1.5, 1.5, 4.0]]]])


def test_correlation_matches_tvm() -> None:
    # the values TVM 0.16's compiled nn.correlation gives for these inputs
    a = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
    b = np.array([[[[1, 0], [0, 2]], [[3, 1], [1, 0]]]], np.float32)
    out = op("nn.correlation", a, b, padding=[1, 1])
    assert out.shape == (1, 9, 2, 2)
    np.testing.assert_allclose(out[0, 4], [[6.0, 2.5], [3.0, 3.0]])  # no displacement: the mean product
    np.testing.assert_allclose(out[0, 0], [[0.0, 0.0], [0.0, 12.0]])  # data2 one up and left
    np.testing.assert_allclose(out[0, 8], np.zeros((2, 2)))
    diff = op("nn.correlation", a, b, kernel_size=3, max_displacement=0, padding=[1, 1], is_multiply=False)
    np.testing.assert_allclose(diff, np.full((1, 1, 2, 2), 11 / 9), rtol=1e-6)


def test_conv2d_nchwc_is_conv2d_of_the_unpacked_operands() -> None:
    # topi reads the weight (oc, ic, kh, kw, ib, ob) as OIHW channel o * ob + j, input i * ib + k
    data = RNG.standard_normal((1, 3, 6, 5)).astype(np.float32)
    weight = RNG.standard_normal((4, 3, 3, 2)).astype(np.float32)
    want = op("nn.conv2d", data, weight, padding=[1, 0], strides=[2, 1])
    packed_data = data.reshape(1, 3, 1, 6, 5).transpose(0, 1, 3, 4, 2)  # NCHW1c
    packed_weight = weight.reshape(2, 2, 3, 1, 3, 2).transpose(0, 2, 4, 5, 3, 1)  # OIHW1i2o
    got = op(
        "nn.contrib_conv2d_NCHWc",
        packed_data,
        packed_weight,
        padding=[1, 0],
        strides=[2, 1],
        channels=4,
        data_layout="NCHW1c",
        out_layout="NCHW2c",
    )
    np.testing.assert_allclose(got, want.reshape(1, 2, 2, *want.shape[2:]).transpose(0, 1, 3, 4, 2), rtol=1e-5)


# bit-serial products ----------------------------------------------------------------------------
def test_bitpack_matches_tvm() -> None:
    # TVM 0.16's nn.bitpack: plane b of 16 entries along axis 1 per uint16 word, the first highest
    x = np.zeros((1, 16, 1), np.int16)
    x[0, [0, 3, 15], 0] = [1, 3, 2]
    packed = op("nn.bitpack", x, bits=2, pack_axis=1, bit_axis=3, pack_type="uint16")
    assert packed.shape == (1, 1, 1, 2) and packed.dtype == np.uint16
    assert packed[0, 0, 0].tolist() == [(1 << 15) | (1 << 12), (1 << 12) | 1]


def test_bitserial_products_match_topis_reference() -> None:
    # topi's tests compare with conv2d / dense of the values, a weight bit 0 read as -1 when unipolar
    data = RNG.integers(0, 4, (2, 32, 5, 4)).astype(np.int16)
    weight = RNG.integers(0, 2, (3, 32, 3, 3)).astype(np.int16)
    for unipolar, w in ((True, 2 * weight - 1), (False, weight)):
        want = op("nn.conv2d", data.astype(np.float64), w.astype(np.float64), padding=[1, 0])
        got = op(
            "nn.bitserial_conv2d", data, weight, padding=[1, 0], activation_bits=2, out_dtype="int32", unipolar=unipolar
        )
        np.testing.assert_array_equal(got, want.astype(np.int32))
        nhwc = op(
            "nn.bitserial_conv2d",
            data.transpose(0, 2, 3, 1),
            weight.transpose(2, 3, 1, 0),
            padding=[1, 0],
            activation_bits=2,
            data_layout="NHWC",
            kernel_layout="HWIO",
            out_dtype="int32",
            unipolar=unipolar,
        )
        np.testing.assert_array_equal(nhwc.transpose(0, 3, 1, 2), got)
        rows, matrix = data[:, :, 0, 0], weight[:, :, 0, 0]
        dense = op("nn.bitserial_dense", rows, matrix, data_bits=2, out_dtype="int32", unipolar=unipolar)
        np.testing.assert_array_equal(dense, rows.astype(np.int64) @ (w[:, :, 0, 0].astype(np.int64)).T)
