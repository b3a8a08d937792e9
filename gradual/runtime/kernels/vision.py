"""Vision kernels: Relay's roi_align, roi_pool, yolo_reorg, multibox_prior,
multibox_transform_loc, get_valid_counts, non_max_suppression, all_class_non_max_suppression
and proposal, as topi computes them (its Python references and hybrid scripts).

Entries a topi kernel leaves unwritten (rows past a count) are -1 where topi's own outputs use
-1 for "no box", else 0. A region index outside the batch stops the kernel (index values are
data); so does a region so large that adaptive sampling would take more than MAX_SAMPLES
samples per bin.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradual.runtime.kernels.registration import kernel

#: the most samples adaptive roi_align takes per bin side (a larger region stops the kernel)
MAX_SAMPLES = 4096


def _batch_index(value: Any, batch: int) -> int:
    """A region's batch index (its first entry, truncated as topi's int cast): inside the batch."""
    if not np.isfinite(value) or not 0 <= int(value) < batch:
        raise IndexError(f"region batch index {value} is out of range for a batch of {batch}")
    return int(value)


def _nchw(data: np.ndarray, layout: str) -> np.ndarray:
    return data if layout == "NCHW" else data.transpose(0, 3, 1, 2)


def _layout_out(out: np.ndarray, layout: str) -> np.ndarray:
    return out if layout == "NCHW" else out.transpose(0, 2, 3, 1)


# regions of interest ----------------------------------------------------------------------------
def _bilinear(image: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Samples of image (c, h, w) at every (y, x) of the grids ys (m,) by xs (p,): (c, m, p);
    a point more than a pixel outside the image is 0 (topi's roi_align)."""
    c, h, w = image.shape
    out = np.zeros((c, len(ys), len(xs)), np.float64)
    if h == 0 or w == 0 or not len(ys) or not len(xs):
        return out
    iy = (ys >= -1) & (ys <= h)
    ix = (xs >= -1) & (xs <= w)
    y = np.clip(np.where(iy, ys, 0), 0, h - 1)
    x = np.clip(np.where(ix, xs, 0), 0, w - 1)
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    wy1, wx1 = y - y0, x - x0
    for yy, wy in ((y0, 1 - wy1), (y0 + 1, wy1)):
        for xx, wx in ((x0, 1 - wx1), (x0 + 1, wx1)):
            inside = (yy < h)[:, None] & (xx < w)[None, :]
            values = image[:, np.minimum(yy, h - 1)][:, :, np.minimum(xx, w - 1)]
            out += np.where(inside, wy[:, None] * wx[None, :] * values, 0.0)
    return np.where(iy[:, None] & ix[None, :], out, 0.0)


@kernel("vision.roi_align")
def roi_align(
    data: np.ndarray,
    rois: np.ndarray,
    *,
    pooled_size: tuple,
    spatial_scale: float,
    sample_ratio: int,
    layout: str,
    mode: str,
) -> np.ndarray:
    """Each bin of each region: the mean (or largest) of a grid of bilinear samples."""
    image = _nchw(data, layout).astype(np.float64)
    ph, pw = (int(v) for v in pooled_size)
    out = np.zeros((len(rois), image.shape[1], ph, pw), np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        for r, roi in enumerate(rois.astype(np.float64)):
            if not out[r].size:
                continue
            n = _batch_index(roi[0], image.shape[0])
            x1, y1, x2, y2 = roi[1:] * spatial_scale
            roi_h, roi_w = np.fmax(y2 - y1, 1.0), np.fmax(x2 - x1, 1.0)
            bin_h, bin_w = roi_h / ph, roi_w / pw
            if sample_ratio > 0:
                gh = gw = int(sample_ratio)
            else:
                gh, gw = _grid(roi_h / ph), _grid(roi_w / pw)
            ys = y1 + np.add.outer(np.arange(ph) * bin_h, (np.arange(gh) + 0.5) * bin_h / gh).reshape(-1)
            xs = x1 + np.add.outer(np.arange(pw) * bin_w, (np.arange(gw) + 0.5) * bin_w / gw).reshape(-1)
            samples = _bilinear(image[n], ys, xs).reshape(image.shape[1], ph, gh, pw, gw)
            if mode == "max":
                out[r] = samples.max(axis=(2, 4)) if gh and gw else -np.inf
            else:
                out[r] = samples.sum(axis=(2, 4)) / (gh * gw) if gh and gw else np.nan
    return _layout_out(out, layout).astype(data.dtype)


def _grid(extent: float) -> int:
    """Adaptive samples along a bin of this extent: ceil(extent), at most MAX_SAMPLES."""
    if not np.isfinite(extent) or np.ceil(extent) > MAX_SAMPLES:
        raise ValueError(f"a region bin of {extent} pixels needs more than {MAX_SAMPLES} samples per side")
    return int(np.ceil(extent))


@kernel("vision.roi_pool")
def roi_pool(
    data: np.ndarray, rois: np.ndarray, *, pooled_size: tuple, spatial_scale: float, layout: str
) -> np.ndarray:
    """Each bin of each region (rounded to whole pixels): its largest value, 0 when empty."""
    image = _nchw(data, layout)
    _, c, h, w = image.shape
    ph, pw = (int(v) for v in pooled_size)
    out = np.zeros((len(rois), c, ph, pw), data.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        for r, roi in enumerate(rois.astype(np.float64)):
            if not out[r].size:
                continue
            n = _batch_index(roi[0], image.shape[0])
            corners = roi[1:] * spatial_scale
            rounded = np.sign(corners) * np.floor(np.abs(corners) + 0.5)  # ties away from 0, as compiled topi
            scaled = np.nan_to_num(rounded, nan=0.0, posinf=2.0**40, neginf=-(2.0**40))
            x1, y1, x2, y2 = (int(v) for v in scaled)
            bin_h, bin_w = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
            for i in range(ph):
                top = min(max(int(np.floor(i * bin_h)) + y1, 0), h)
                bottom = min(max(int(np.ceil((i + 1) * bin_h)) + y1, 0), h)
                for j in range(pw):
                    left = min(max(int(np.floor(j * bin_w)) + x1, 0), w)
                    right = min(max(int(np.ceil((j + 1) * bin_w)) + x1, 0), w)
                    if bottom > top and right > left:
                        out[r, :, i, j] = image[n, :, top:bottom, left:right].max(axis=(1, 2))
    return _layout_out(out, layout)


@kernel("vision.yolo_reorg")
def yolo_reorg(data: np.ndarray, *, stride: int) -> np.ndarray:
    """Darknet's reorg (topi's reorg_python): data read as (n, c / s^2, h * s, w * s) and its
    s x s blocks moved to channels, then laid out as (n, c * s^2, h / s, w / s)."""
    n, c, h, w = data.shape
    s = stride
    view = data.reshape(n, c // (s * s), h, s, w, s)
    return view.transpose(0, 3, 5, 1, 2, 4).reshape(n, c * s * s, h // s, w // s)


# anchor boxes -----------------------------------------------------------------------------------
@kernel("vision.multibox_prior")
def multibox_prior(
    data: np.ndarray, *, sizes: tuple, ratios: tuple, steps: tuple, offsets: tuple, clip: bool
) -> np.ndarray:
    """Boxes [x1, y1, x2, y2] per cell: one per size at the first ratio, then one per further
    ratio at the first size."""
    h, w = data.shape[2], data.shape[3]
    per_cell = len(sizes) + len(ratios) - 1
    out = np.zeros((1, h * w * per_cell, 4), np.float64)
    if not out.size:
        return out.astype(data.dtype)
    with np.errstate(all="ignore"):
        step_h = steps[0] if steps[0] > 0 else 1.0 / h
        step_w = steps[1] if steps[1] > 0 else 1.0 / w
        half_w = [s * h / w / 2.0 for s in sizes] + [sizes[0] * h / w * np.sqrt(r) / 2.0 for r in ratios[1:]]
        half_h = [s / 2.0 for s in sizes] + [sizes[0] / np.sqrt(r) / 2.0 for r in ratios[1:]]
        cy = (np.arange(h) + offsets[0]) * step_h
        cx = (np.arange(w) + offsets[1]) * step_w
        y = np.broadcast_to(cy[:, None, None], (h, w, per_cell))
        x = np.broadcast_to(cx[None, :, None], (h, w, per_cell))
        boxes = np.stack([x - np.array(half_w), y - np.array(half_h), x + np.array(half_w), y + np.array(half_h)], -1)
    out[0] = boxes.reshape(-1, 4)
    if clip:
        out = np.clip(out, 0.0, 1.0)
    return out.astype(data.dtype)


@kernel("vision.multibox_transform_loc")
def multibox_transform_loc(
    cls_prob: np.ndarray,
    loc_pred: np.ndarray,
    anchor: np.ndarray,
    *,
    clip: bool,
    threshold: float,
    variances: tuple,
    keep_background: bool,
) -> tuple:
    """Per anchor its best class and decoded box; the valid anchors' rows first (the rest -1)."""
    b, classes, n = cls_prob.shape
    out = np.full((b, n, 6), -1.0, np.float64)
    counts = np.zeros(b, np.int32)
    first = 0 if keep_background else 1
    vx, vy, vw, vh = variances
    with np.errstate(all="ignore"):
        for i in range(b):
            for j in range(n):
                score, cls_id = -1.0, 0
                for k in range(first, classes):
                    value = float(cls_prob[i, k, j])
                    cls_id = k if value > score else cls_id
                    score = max(value, score)
                if cls_id > 0 and score < threshold:
                    cls_id = 0
                if not (keep_background or cls_id > 0):
                    continue
                left, top, right, bottom = anchor[0, j].astype(np.float64)
                px, py, pw, ph = loc_pred[i, 4 * j : 4 * j + 4].astype(np.float64)
                aw, ah = right - left, bottom - top
                ox, oy = px * vx * aw + (left + right) / 2, py * vy * ah + (top + bottom) / 2
                ow, oh = np.exp(pw * vw) * aw / 2, np.exp(ph * vh) * ah / 2
                box = np.array([ox - ow, oy - oh, ox + ow, oy + oh])
                if clip:
                    box = np.clip(box, 0.0, 1.0)
                out[i, counts[i]] = [cls_id if keep_background else cls_id - 1, score, *box]
                counts[i] += 1
    return out.astype(cls_prob.dtype), counts


# suppression ------------------------------------------------------------------------------------
@kernel("vision.get_valid_counts")
def get_valid_counts(data: np.ndarray, threshold: np.ndarray, *, id_index: int, score_index: int) -> tuple:
    """The boxes scoring above the threshold with a class id not negative, moved to the front."""
    b, n, k = data.shape
    keep = data[:, :, score_index] > threshold
    if id_index >= 0:
        keep &= data[:, :, id_index] >= 0
    counts = keep.sum(axis=1).astype(np.int32)
    out = _as_dtype(np.full(data.shape, -1.0), data.dtype)
    indices = np.full((b, n), -1, np.int32)
    for i in range(b):
        chosen = np.flatnonzero(keep[i])
        out[i, : len(chosen)] = data[i, chosen]
        indices[i, : len(chosen)] = chosen
    return counts, out, indices


def _as_dtype(values: np.ndarray, dtype: Any) -> np.ndarray:
    """Float values in an operand's dtype; -1 in an unsigned one wraps, as topi's `-one`."""
    if np.dtype(dtype).kind in "iu":
        return values.astype(np.int64).astype(dtype)
    return values.astype(dtype)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boxes given by two opposite corners (either order)."""
    a_l, a_t, a_r, a_b = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    b_l, b_t, b_r, b_b = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    w = max(0.0, min(a_r, b_r) - max(a_l, b_l))
    h = max(0.0, min(a_b, b_b) - max(a_t, b_t))
    area = w * h
    union = (a_r - a_l) * (a_b - a_t) + (b_r - b_l) * (b_b - b_t) - area
    return 0.0 if not union > 0 else area / union


@kernel("vision.non_max_suppression")
def non_max_suppression(
    data: np.ndarray,
    valid_count: np.ndarray,
    indices: np.ndarray,
    max_output_size: np.ndarray,
    iou_threshold: np.ndarray,
    *,
    force_suppress: bool,
    top_k: int,
    coord_start: int,
    score_index: int,
    id_index: int,
    return_indices: bool,
    invalid_to_bottom: bool,
) -> Any:
    """topi's hybrid_nms: the valid boxes by descending score, each suppressed by a kept one of
    its class (any class with force_suppress) it overlaps by iou_threshold or more."""
    b, n, _ = data.shape
    limit, threshold = int(max_output_size), float(iou_threshold)
    out = np.full(data.shape, -1.0, np.float64)
    box_indices = np.full((b, n), -1, np.int64)
    boxes = data.astype(np.float64)
    for i in range(b):
        count = int(valid_count[i])
        if not 0 <= count <= n:
            raise IndexError(f"valid count {count} is out of range for {n} boxes")
        if threshold > 0:
            order = np.argsort(-boxes[i, :count, score_index], kind="stable")
            keep = top_k if 0 < top_k < count else count
            out[i, :keep] = boxes[i, order[:keep]]
            box_indices[i, :keep] = order[:keep]
            kept = 0
            for j in range(count):
                if kept == limit:
                    out[i, j], box_indices[i, j] = -1.0, -1
                    continue
                if not out[i, j, score_index] > 0:
                    continue
                corners = out[i, j, coord_start : coord_start + 4]
                for m in range(j):
                    if not (out[i, m, score_index] > 0 and (id_index < 0 or out[i, m, id_index] >= 0)):
                        continue
                    if not (force_suppress or id_index < 0 or out[i, j, id_index] == out[i, m, id_index]):
                        continue
                    if _iou(corners, out[i, m, coord_start : coord_start + 4]) >= threshold:
                        out[i, j], box_indices[i, j] = -1.0, -1
                        break
                else:
                    kept += 1
        else:
            out[i, :count] = boxes[i, :count]
            box_indices[i, :count] = np.arange(count)
        if return_indices:
            for j in range(count):
                if box_indices[i, j] >= 0:
                    box_indices[i, j] = indices[i, box_indices[i, j]]
    if return_indices:
        front = np.full((b, n), -1, np.int32)
        counts = np.zeros((b, 1), np.int32)
        for i in range(b):
            chosen = box_indices[i][box_indices[i] >= 0]
            front[i, : len(chosen)] = chosen
            counts[i, 0] = len(chosen)
        return front, counts
    if invalid_to_bottom:
        moved = np.full(out.shape, -1.0)
        for i in range(b):
            chosen = out[i][out[i, :, 0] >= 0]
            moved[i, : len(chosen)] = chosen
        out = moved
    return _as_dtype(out, data.dtype)


@kernel("vision.all_class_non_max_suppression")
def all_class_non_max_suppression(
    boxes: np.ndarray,
    scores: np.ndarray,
    max_output_boxes_per_class: np.ndarray,
    iou_threshold: np.ndarray,
    score_threshold: np.ndarray,
    *,
    output_format: str,
) -> tuple:
    """Per batch and class, the boxes scoring above score_threshold by descending score, each
    kept unless it overlaps a kept one by more than iou_threshold, at most
    max_output_boxes_per_class (all when not positive); none when iou_threshold is not positive."""
    b, classes, n = scores.shape
    limit, iou_limit, floor = int(max_output_boxes_per_class), float(iou_threshold), float(score_threshold)
    chosen: list = []
    for i in range(b):
        for k in range(classes):
            row = scores[i, k].astype(np.float64)
            order = np.argsort(-row, kind="stable")
            valid = int((row > floor).sum())
            cap = limit if limit > 0 else valid
            selected: list = []
            if iou_limit > 0:
                for j in order[:valid]:
                    if len(selected) >= cap:
                        break
                    if all(
                        _iou(boxes[i, j].astype(np.float64), boxes[i, s].astype(np.float64)) < iou_limit
                        for s in selected
                    ):
                        selected.append(int(j))
            chosen.append((i, k, selected, [float(row[j]) for j in selected]))
    if output_format == "onnx":
        rows = [(i, k, j) for i, k, selected, _ in chosen for j in selected]
        out = np.zeros((b * classes * n, 3), np.int64)
        out[: len(rows)] = np.asarray(rows, np.int64).reshape(-1, 3)
        return out, np.array([len(rows)], np.int64)
    indices = np.zeros((b, classes * n, 2), np.int64)
    kept_scores = np.zeros((b, classes * n), np.float32)
    counts = np.zeros(b, np.int64)
    for i, k, selected, values in chosen:
        at = int(counts[i])
        indices[i, at : at + len(selected)] = [(k, j) for j in selected] or np.zeros((0, 2))
        kept_scores[i, at : at + len(selected)] = values
        counts[i] += len(selected)
    return indices, kept_scores, counts


# region proposals -------------------------------------------------------------------------------
def _anchors(scales: tuple, ratios: tuple, base: int) -> np.ndarray:
    """Faster R-CNN's base anchors [x1, y1, x2, y2], scale fastest (topi's generate_anchor)."""
    size = float(base) * base
    centre = 0.5 * (base - 1.0)
    out = []
    with np.errstate(all="ignore"):
        for ratio in ratios:
            for scale in scales:
                new_w = np.floor(np.sqrt(np.floor(size / np.float64(ratio))) + 0.5) * scale
                new_h = np.floor(new_w / scale * ratio + 0.5) * scale
                out.append(
                    [
                        centre - 0.5 * (new_w - 1),
                        centre - 0.5 * (new_h - 1),
                        centre + 0.5 * (new_w - 1),
                        centre + 0.5 * (new_h - 1),
                    ]
                )
    return np.array(out, np.float64)


@kernel("vision.proposal")
def proposal(
    cls_prob: np.ndarray,
    bbox_pred: np.ndarray,
    im_info: np.ndarray,
    *,
    scales: tuple,
    ratios: tuple,
    feature_stride: int,
    threshold: float,
    rpn_pre_nms_top_n: int,
    rpn_post_nms_top_n: int,
    rpn_min_size: int,
    iou_loss: bool,
) -> np.ndarray:
    """topi's proposal: anchors moved by the deltas and clipped to the image, too-small ones and
    those off the image's real cells scored -1; the best rpn_pre_nms_top_n by score suppressed
    where they overlap an earlier one by more than threshold; the rest repeated in order to fill
    rpn_post_nms_top_n rows [batch, x1, y1, x2, y2] (0 where none is left)."""
    batch, _, height, width = cls_prob.shape
    count = len(scales) * len(ratios)
    total = height * width * count
    pre = min(rpn_pre_nms_top_n, total) if rpn_pre_nms_top_n > 0 else total
    base = _anchors(scales, ratios, feature_stride)
    out = np.zeros((batch * rpn_post_nms_top_n, 5), np.float64)
    with np.errstate(all="ignore"):
        for b in range(batch):
            im_h, im_w, im_scale = (float(v) for v in im_info[b])
            bbox = np.zeros((height, width, count, 5))
            hh, ww = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
            shift = np.stack([ww, hh, ww, hh], -1)[:, :, None, :] * feature_stride
            corners = base[None, None] + shift
            delta = bbox_pred[b].astype(np.float64).reshape(count, 4, height, width).transpose(2, 3, 0, 1)
            if iou_loss:
                pred = corners + delta
            else:
                bw = corners[..., 2] - corners[..., 0] + 1.0
                bh = corners[..., 3] - corners[..., 1] + 1.0
                cx = corners[..., 0] + 0.5 * (bw - 1.0) + delta[..., 0] * bw
                cy = corners[..., 1] + 0.5 * (bh - 1.0) + delta[..., 1] * bh
                pw, ph = np.exp(delta[..., 2]) * bw, np.exp(delta[..., 3]) * bh
                pred = np.stack(
                    [cx - 0.5 * (pw - 1), cy - 0.5 * (ph - 1), cx + 0.5 * (pw - 1), cy + 0.5 * (ph - 1)], -1
                )
            pred[..., 0::2] = np.fmax(np.fmin(pred[..., 0::2], im_w - 1.0), 0.0)
            pred[..., 1::2] = np.fmax(np.fmin(pred[..., 1::2], im_h - 1.0), 0.0)
            score = cls_prob[b, count:].astype(np.float64).transpose(1, 2, 0).copy()
            real_h, real_w = _truncate(im_h / feature_stride), _truncate(im_w / feature_stride)
            score[(hh >= real_h) | (ww >= real_w)] = -1.0
            min_size = im_scale * rpn_min_size
            small = (pred[..., 2] - pred[..., 0] + 1.0 < min_size) | (pred[..., 3] - pred[..., 1] + 1.0 < min_size)
            pred[small] += np.array([-1, -1, 1, 1]) * (min_size / 2.0)
            score[small] = -1.0
            bbox[..., :4], bbox[..., 4] = pred, score
            flat = bbox.reshape(total, 5)
            order = np.argsort(-flat[:, 4], kind="stable")[:pre]
            ranked = flat[order]
            removed = np.zeros(pre, bool)
            for first in range(pre - 1):
                if removed[first]:
                    continue
                for later in range(first + 1, pre):
                    if _overlap(ranked[first], ranked[later]) > threshold:
                        removed[later] = True
            kept = ranked[~removed]
            if len(kept):
                rows = np.resize(np.arange(len(kept)), rpn_post_nms_top_n)
                block = out[b * rpn_post_nms_top_n : (b + 1) * rpn_post_nms_top_n]
                block[:, 0] = b
                block[:, 1:] = kept[rows, :4]
    return out.astype(cls_prob.dtype)


def _truncate(value: float) -> float:
    """An int32 cast of a size (topi truncates; a size that is not finite is no limit)."""
    return float(int(value)) if np.isfinite(value) else (np.inf if value > 0 else 0.0)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Proposal's IoU of two boxes in pixels (inclusive corners)."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]) + 1.0)
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]) + 1.0)
    inter = w * h
    union = (a[2] - a[0] + 1.0) * (a[3] - a[1] + 1.0) + (b[2] - b[0] + 1.0) * (b[3] - b[1] + 1.0) - inter
    with np.errstate(all="ignore"):
        return float(inter / union) if union else 0.0
