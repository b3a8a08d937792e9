"""Python shape rules for what a signature cannot say, one module per operator family.

Every rule is written against `gradual.ops.context.ShapeContext`, so the same function runs in
the checker (symbolic dims) and in the runtime (concrete sizes). Importing this package
registers them all, with the wording of the failures they report.

| module | operators |
| --- | --- |
| elementwise | broadcasting binary operators (with shape-value arithmetic), where, cast, copy |
| reduce | sum mean max min prod argmax argmin |
| shape | reshape (Relay codes), reshape_like, dyn.reshape, transpose, expand_dims, squeeze, reverse, broadcast_to |
| combine | concatenate, stack, split, tile, repeat |
| index | take, strided_slice, one_hot |
| data | shape_of, ndarray_size, arange, argwhere, unique, topk, zeros/ones/full and their dyn. forms |
| nn | nn.dense, nn.matmul, nn.batch_matmul, nn.bias_add, softmax axes, batch_flatten, norms, nn.pad |
| conv | convolution (1-D, 2-D, 3-D, transposed) and pooling, in any layout, packed ones too |
| qnn | the quantized operators (`qnn.*`), with the float operators' shapes |
| sparse | sparse_to_dense, sparse_reshape, sparse_fill_empty_rows, unravel_index |
| scatter | scatter_elements, scatter_nd, strided_set, adv_index |
| sequence | cumsum, cumprod, reverse_sequence, trilu, stft, searchsorted, meshgrid, sliding_window, collapse_sum_to |
| image | image.resize2d |
| sampling | image.grid_sample, image.affine_grid, image.dilation2d, image.crop_and_resize, dyn.image.resize2d |
| rearrange | nn.dilate, nn.mirror_pad, nn.space_to_batch_nd, nn.batch_to_space_nd, dyn.expand_dims |
| bitserial | nn.bitpack, nn.bitserial_dense, nn.bitserial_conv2d |
| vision | vision.roi_align, roi_pool, yolo_reorg, multibox_prior, non_max_suppression, all_class_non_max_suppression, proposal (their contracts say the rest) |
| aten | the torch.export frontend's operators (stdlib/aten.rly), mostly the rules above under ATen's names |
| aten_index | ATen's advanced indexing, gather and scatter, searching sorted values |
| aten_nn | ATen's resampling, recurrent layers, group/instance/RMS norms, losses, distances (stdlib/aten_nn.rly) |
| onnx | the ONNX frontend's operators (stdlib/onnx.rly): matmul, expand, N-d conv and pools, slice/pad/tile with tensor inputs, ... |
"""

# Importing each family registers it; the ONNX (onnx*) and torch.export (aten*) frontends' operators too.
from gradual.ops.rules import (  # each family registers its operators when imported
    aten,
    aten_index,
    aten_nn,
    bitserial,
    combine,
    conv,
    data,
    elementwise,
    image,
    index,
    nn,
    onnx,
    onnx_models,
    qnn,
    rearrange,
    reduce,
    sampling,
    scatter,
    sequence,
    shape,
    sparse,
    vision,
)

__all__ = [
    "aten",
    "aten_index",
    "aten_nn",
    "bitserial",
    "combine",
    "conv",
    "data",
    "elementwise",
    "image",
    "index",
    "nn",
    "onnx",
    "onnx_models",
    "qnn",
    "rearrange",
    "reduce",
    "sampling",
    "scatter",
    "sequence",
    "shape",
    "sparse",
    "vision",
]
