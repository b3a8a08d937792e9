"""ONNX sequences as tuples: a sequence whose length is known where it is made (SplitToSequence
by constant sizes of a static dim, SequenceConstruct, SequenceEmpty, SequenceInsert at a constant
position) is a tuple of tensors; SequenceAt at a constant position is a field of it,
SequenceLength a constant, ConcatFromSequence a concatenate (or stack). The dynamo exporter
writes these for split / chunk with optimize=False. A sequence a Loop starts empty and appends
to (TorchScript's `outs.append(h)` in a loop) is one tensor of its stacked items
(`Importer.sequence_rows`, convert/loops.py): SequenceInsert at its end appends a row,
SequenceAt takes one, SequenceLength counts them, ConcatFromSequence along axis 0 stacks or
concatenates them. Other sequences of a length known only when the model runs (the legacy
exporter's tensor_split, insertion at a position in a loop) are not supported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradual import builder as gb
from gradual.frontends.onnx import messages
from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import KNOWN, Node, Unsupported
from gradual.frontends.onnx.types import gradual_dtype


def _lengths(node: Node) -> dict:
    """The length of each sequence value the import has made, by value name (a sequence is a
    tuple of tensors whose length is known where it is made)."""
    return node.importer.sequence_lengths


def _made(node: Node, expr: Any, count: int) -> Any:
    """A sequence of `count` tensors: the tuple `expr`, its length remembered."""
    _lengths(node)[node.outputs[0]] = count
    return expr


def _unsupported(node: Node, what: str) -> Unsupported:
    op = node.op_type
    return Unsupported(lambda span: messages.onnx_sequence_unsupported(span, op, what))


def _length(node: Node, i: int) -> int:
    """The length of input i, a sequence made by a converter of this module."""
    count = _lengths(node).get(node.inputs[i])
    if count is None:
        raise _unsupported(node, f"the length of the sequence `{node.inputs[i]}` is not known where it is made")
    return count


@converts("SplitToSequence")
def split_to_sequence(node: Node) -> Any:
    """SplitToSequence into parts of constant sizes: a scalar split cuts a dim of known size into
    parts of that size (the last smaller), a vector into parts of its sizes; without split,
    parts of 1 (squeezed unless keepdims). A sequence is a tuple, its length known here; the
    parts of a split computed at runtime (the legacy exporter's tensor_split) are not."""
    axis = int(node.attr("axis", 0))
    if not node.has(1):
        dims = node.info(0).dims
        size = dims[axis] if dims is not None and -len(dims) <= axis < len(dims) else None
        if not isinstance(size, int):
            raise _unsupported(
                node, f"without split, dim {axis} of the input must be static (it is the count of parts)"
            )
        parts = node.call("split", node.x(0), indices_or_sections=size, axis=axis)
        if int(node.attr("keepdims", 1)):
            return _made(node, parts, size)
        fields = [node.call("squeeze", gb.proj(parts, j, loc=node.loc), axis=[axis]) for j in range(size)]
        return _made(node, gb.tuple_(*fields, loc=node.loc), size)
    given = node.value(1)
    if given is None:
        return _split_by_values(node, axis)
    split = node.required_ints(1, "split")
    if given.ndim == 0:
        dims = node.info(0).dims
        size = dims[axis] if dims is not None and -len(dims) <= axis < len(dims) else None
        if not isinstance(size, int):
            raise _unsupported(
                node, f"a scalar split needs dim {axis} of the input to be static (it decides the count of parts)"
            )
        step = split[0]
        split = [step] * (size // step) + ([size % step] if size % step else [])
    call = node.call("onnx.split_sizes", node.x(0), node.int64s(split), num_outputs=len(split), axis=axis)
    return _made(node, call, len(split))


def _split_by_values(node: Node, axis: int) -> Any:
    """SplitToSequence by a split vector computed at runtime whose length the model gives (the
    TorchScript exporter's `x.split([t // 2, t - t // 2], 1)`): that many parts, their sizes
    the vector's values (`onnx.split_sizes`, whose rule reads them as shape values). A scalar
    or a vector of unknown length is not supported: the count of parts decides the tuple."""
    dims = node.info(1).dims
    if dims is None or len(dims) != 1 or not isinstance(dims[0], int):
        raise _unsupported(
            node, "a split computed when the model runs needs a length the model gives (the count of parts)"
        )
    call = node.call("onnx.split_sizes", node.x(0), node.x(1), num_outputs=dims[0], axis=axis)
    return _made(node, call, dims[0])


@converts("SequenceConstruct")
def sequence_construct(node: Node) -> Any:
    """SequenceConstruct: the tuple of its inputs (their dtype remembered for a loop that
    appends to it and does not declare its element type)."""
    dtype = node.importer.known(node.inputs[0]).dtype if node.inputs else None
    if dtype is not None:
        node.importer.sequence_dtypes[node.outputs[0]] = dtype
    return _made(node, gb.tuple_(*node.args(), loc=node.loc), len(node.inputs))


@converts("SequenceEmpty")
def sequence_empty(node: Node) -> Any:
    """SequenceEmpty: the empty tuple (its items' dtype remembered for a loop that appends to
    it and does not declare its element type)."""
    dtype = gradual_dtype(int(node.attr("dtype", 1)))
    if dtype is not None:
        node.importer.sequence_dtypes[node.outputs[0]] = dtype
    return _made(node, gb.tuple_(loc=node.loc), 0)


def _position(node: Node, count: int, i: int, inserting: bool = False) -> int:
    position = node.required_ints(i, "position")[0]
    top = count + 1 if inserting else count
    if not -top <= position < top:
        raise _unsupported(node, f"position {position} is outside the sequence of {count} tensors")
    return position % top if top else 0


def _rows(node: Node) -> bool:
    """Whether input 0 is a sequence a loop appended to, held as its stacked items (one tensor
    whose rows are the sequence's tensors: convert/loops.py); the output of a node that
    appends to one is one too."""
    return node.inputs[0] in node.importer.sequence_rows


@converts("SequenceAt")
def sequence_at(node: Node) -> Any:
    """SequenceAt at a constant position: that field of the tuple (that row of stacked rows,
    at any position)."""
    if _rows(node):
        return node.call("take", node.x(0), node.x(1), axis=0, mode="fast")
    count = _length(node, 0)
    return gb.proj(node.x(0), _position(node, count, 1), loc=node.loc)


@converts("SequenceLength")
def sequence_length(node: Node) -> Any:
    """SequenceLength: the length known where the sequence was made (the rows of stacked rows)."""
    if _rows(node):
        return node.call(
            "take", node.call("shape_of", node.x(0), dtype="int64"), gb.const(0, "int64", loc=node.loc), axis=0
        )
    node.importer.record_constant(node.outputs[0], np.asarray(_length(node, 0), np.int64), node.loc)
    return KNOWN


@converts("SequenceInsert")
def sequence_insert(node: Node) -> Any:
    """SequenceInsert of a tensor at a constant position (the end without one); appended to
    stacked rows, another row."""
    if _rows(node):
        if node.has(2):
            raise _unsupported(node, "a loop's sequence takes tensors at its end only")
        node.importer.sequence_rows.add(node.outputs[0])
        ranks = node.importer.sequence_row_ranks
        ranks[node.outputs[0]] = ranks.get(node.inputs[0])
        return node.call("onnx.scan_append", node.x(0), node.x(1))
    count = _length(node, 0)
    where = _position(node, count, 2, inserting=True) if node.has(2) else count
    fields = [gb.proj(node.x(0), j, loc=node.loc) for j in range(count)]
    fields.insert(where, node.x(1))
    return _made(node, gb.tuple_(*fields, loc=node.loc), count + 1)


@converts("ConcatFromSequence")
def concat_from_sequence(node: Node) -> Any:
    """ConcatFromSequence: concatenate (stack with new_axis) the tuple's tensors. Stacked rows
    are already stacked along axis 0 (stacked along axis 0 of each item, or concatenated
    there: the first two dims merged)."""
    if _rows(node):
        return _concat_rows(node, int(node.attr("axis", 0)), bool(int(node.attr("new_axis", 0))))
    count = _length(node, 0)
    if count == 0:
        raise _unsupported(node, "the sequence is empty (there is nothing to concatenate)")
    fields = gb.tuple_(*[gb.proj(node.x(0), j, loc=node.loc) for j in range(count)], loc=node.loc)
    axis = int(node.attr("axis", 0))
    if int(node.attr("new_axis", 0)):
        return node.call("stack", fields, axis=axis)
    return node.call("concatenate", fields, axis=axis)


def _concat_rows(node: Node, axis: int, new_axis: bool) -> Any:
    """ConcatFromSequence of stacked rows: along axis 0 they are the result (stacked) or their
    first two dims merged (concatenated); along another axis (TorchScript's `torch.stack(path,
    1)`) the rows' axis moves there first, which needs the items' rank."""
    if axis == 0:
        return node.x(0) if new_axis else node.call("reshape", node.x(0), newshape=[-3, -2])
    rank = node.importer.sequence_row_ranks.get(node.inputs[0])
    if rank is None:
        raise _unsupported(node, "a loop's sequence of items of unknown rank is joined along axis 0 only")
    top = rank + 1 if new_axis else rank
    if not -top <= axis < top:
        raise _unsupported(node, f"axis {axis} is outside the items' {top} axes")
    axis %= top
    order = list(range(1, rank + 1))
    order.insert(axis, 0)
    moved = node.call("transpose", node.x(0), axes=order)
    return moved if new_axis else node.call("reshape", moved, newshape=[0] * axis + [-3, -2])
