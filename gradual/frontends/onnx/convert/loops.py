"""Loops: Loop as a recursive closure, the way Relay writes a loop (spec §3.5: recursion is
solved to a fixpoint).

    %loop = fn (%i: int64, %c: bool, %v: Tensor[(?, ?), float32], %acc: Tensor[(?, ?, ?), float32]) {
      if (logical_and(less(%i, %m), %c)) {
        <the body's nodes, its inputs bound to %i, %c, %v>
        %loop(add(%i, 1i64), %cond_out, %v_out, onnx.scan_append(%acc, %scan_out))
      } else {
        (%v, %acc)
      }
    };
    %loop(0i64, %cond, %v_initial, <no rows>)

The recursive call is the closure's tail call, so a long loop runs in constant stack. A
loop-carried value's parameter keeps the rank and dtype the model gives it, and a size only
where the model states the same one in more than one place (initial value, body input, body
output; `?` elsewhere: a carried value may change shape from one iteration to the next). What
the body says is what it declares: asking the importer ran ONNX's inference. A scan
output's rows collect in an accumulator that starts with none (`onnx.scan_append`), and so
does a carried sequence that the loop starts empty and appends to (TorchScript's list append),
held as one tensor of its stacked items. The body's nodes are imported as an If branch's are:
they see every tensor in scope at the node.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from gradual import builder as gb
from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import Node, Tuple, inline_constant, literal
from gradual.frontends.onnx.types import TensorInfo, info_of_type


@converts("Loop")
def loop(node: Node) -> Any:
    """Loop (M, cond, v_initial...) -> (v_final..., scan_outputs...): see the module docstring."""
    importer, body = node.importer, node.attr("body")
    carried = len(node.inputs) - 2
    scans = len(body.output) - 1 - carried
    if len(body.input) != carried + 2 or scans < 0:
        node.fail_attribute(
            "body",
            f"{len(body.input)} inputs and {len(body.output)} outputs",
            f"{carried + 2} inputs and at least {carried + 1} outputs",
        )
    names = [o.name for o in body.output]
    c = importer.namer.name("condition")
    stacked = _appended_sequences(node, body, carried)
    infos = [_known(node, 2 + k) if rows is None else rows for k, rows in enumerate(stacked)]
    steps = _Steps(
        node,
        body,
        [body.input[2 + k].name for k in range(carried)],
        names[1 + carried :],
        infos,
        names[1 : 1 + carried],
        extra=[(c, gb.Scalar("bool"))],
        stacked=stacked,
    )
    trip = _scalar(node, 0) if node.has(0) else None
    goes = _continues(node, steps.counter, trip, gb.Var(c, node.loc))
    bound = {
        body.input[0].name: _as_rank(node, steps.counter, steps.declared(body.input[0].name).rank),
        body.input[1].name: _as_rank(node, gb.Var(c, node.loc), steps.declared(body.input[1].name).rank),
    }

    def condition(outputs: list) -> list:
        return [_as_scalar(node, outputs[0], steps.declared(names[0]).rank)]

    cond = _scalar(node, 1) if node.has(1) else literal(True, "bool", node.loc)
    initial = [node.x(2 + k) if rows is None else _first_rows(node, 2 + k, rows) for k, rows in enumerate(stacked)]
    for k, rows in enumerate(stacked):
        if rows is not None:  # the body's input, and the loop's output, are stacked rows
            importer.sequence_rows.update((body.input[2 + k].name, node.outputs[k]))
            rank = None if rows.dims is None else len(rows.dims) - 1
            importer.sequence_row_ranks.update({body.input[2 + k].name: rank, node.outputs[k]: rank})
    call = steps.run(goes, bound, condition, 1, [cond] + initial)
    return Tuple(call, carried + scans)


def _appended_sequences(node: Node, body: Any, carried: int) -> list:
    """`_appended_sequence` of each carried value, the body's nodes indexed by output once (a
    search of the body per carried value was quadratic in a loop carrying many lists)."""
    lengths = node.importer.sequence_lengths
    if all(lengths.get(node.inputs[2 + k]) is None for k in range(carried)):
        return [None] * carried
    makers: dict = {}
    for maker in body.node:
        for out in maker.output:
            makers.setdefault(out, maker)  # the first node that writes it, as a search finds it
    return [_appended_sequence(node, body, k, makers) for k in range(carried)]


def _appended_sequence(node: Node, body: Any, k: int, makers: dict) -> Optional[TensorInfo]:
    """For a carried value that is a sequence the loop starts with (empty, or the items a
    SequenceConstruct gives: TorchScript's `path = [last]`) and the body appends one tensor to
    (`SequenceInsert(seq, item)` at the end: `outs.append(h)`), the stacked rows' information
    (rank and dtype from the sequence's declared element type): the sequence is held as one
    tensor of its items, as a scan output is. None for anything else. `makers`: the body's
    nodes by output."""
    count = node.importer.sequence_lengths.get(node.inputs[2 + k])
    if count is None or count and not _only_stacked(node, node.outputs[k]):
        return None
    inner, out = body.input[2 + k].name, body.output[1 + k].name
    maker = makers.get(out)
    if maker is None or maker.op_type != "SequenceInsert" or len(maker.input) != 2 or maker.input[0] != inner:
        return None
    element = body.input[2 + k].type.sequence_type.elem_type
    item = info_of_type(element) if element.HasField("tensor_type") else _empty_items(node, k)
    return _with_row(item) if item is not None else None


def _only_stacked(node: Node, name: str) -> bool:
    """Whether the loop's sequence `name` is only stacked after the loop (ConcatFromSequence
    with new_axis, anywhere in the loop's graph and its subgraphs): its items must then all be
    alike (onnxruntime refuses others), so a sequence that starts with a SequenceConstruct's
    items may be held as rows. Where it is concatenated (new_axis 0) its items may be ragged
    (`[x[:1]]` then rows of 2), which rows cannot hold: it stays unsupported."""
    graphs = [node.importer.graph_protos[node.key]]
    users = []
    while graphs:
        for other in graphs.pop().node:
            if name in other.input:
                users.append(other)
            for attribute in other.attribute:
                graphs.extend([attribute.g] if attribute.type == attribute.GRAPH else attribute.graphs)
    return bool(users) and all(
        u.op_type == "ConcatFromSequence" and any(a.name == "new_axis" and a.i for a in u.attribute) for u in users
    )


def _first_rows(node: Node, index: int, rows: TensorInfo) -> Any:
    """The rows a carried sequence starts with: none for an empty one, else its items stacked
    (they must be alike, as the rows appended to them must)."""
    if node.importer.sequence_lengths.get(node.inputs[index]) == 0:
        return _no_rows(node, rows)
    return node.call("stack", node.x(index), axis=0)


def _empty_items(node: Node, k: int) -> Optional[TensorInfo]:
    """The items of carried value k when the body does not declare its element type (the
    dynamo exporter's EmbeddingBag loop): the dtype its SequenceEmpty (or SequenceConstruct's
    first item) gives, of any rank."""
    dtype = node.importer.sequence_dtypes.get(node.inputs[2 + k])
    return None if dtype is None else TensorInfo(dtype, None)


@converts("Scan")
def scan(node: Node) -> Any:
    """Scan (opset 9 on: initial states..., scan inputs...) -> (final states..., scan
    outputs...): the body runs once per slice of the scan inputs along their axes (from the
    end for direction 1), each iteration's outputs stacked along the output axes (reversed for
    direction 1). The same recursive closure as Loop's, counting up to the scan inputs'
    length."""
    if node.opset < 9:
        node.fail_attribute("opset", node.opset, "Scan from opset 9 (opset 8's batched form is not imported)")
    importer, body = node.importer, node.attr("body")
    inputs = len(node.inputs)
    count = int(node.attr("num_scan_inputs", 0))
    states = inputs - count
    outputs = len(body.output) - states
    if not 0 < count <= inputs or len(body.input) != inputs or outputs < 0:
        node.fail_attribute("num_scan_inputs", count, "a body of one input per node input")
    in_axes = [
        _axis(node, a, _known(node, states + j).rank) for j, a in enumerate(_ints(node, "scan_input_axes", count))
    ]
    in_reversed = _ints(node, "scan_input_directions", count)
    names = [o.name for o in body.output]
    steps = _Steps(
        node,
        body,
        [body.input[k].name for k in range(states)],
        names[states:],
        [_known(node, k) for k in range(states)],
        names[:states],
    )
    length = node.call(
        "take", node.call("shape_of", node.x(states), dtype="int64"), literal(in_axes[0], "int64", node.loc), axis=0
    )
    length = importer.body.let(importer.namer.name(f"{node.outputs[0] or 'scan'}_length"), length, loc=node.loc)
    goes = node.call("less", steps.counter, length)
    last = node.call("subtract", length, literal(1, "int64", node.loc))
    bound = {}
    for j, axis in enumerate(in_axes):
        at = node.call("subtract", last, steps.counter) if in_reversed[j] else steps.counter
        bound[body.input[states + j].name] = node.call("take", node.x(states + j), at, axis=axis, mode="fast")
    call = steps.run(goes, bound, lambda outs: [], 0, [node.x(k) for k in range(states)])
    result = importer.body.let(importer.namer.name(f"{node.outputs[0] or 'scan'}_all"), call, loc=node.loc)
    fields = [gb.proj(result, k, loc=node.loc) for k in range(states)]
    out_axes = _ints(node, "scan_output_axes", outputs)
    for j, (axis, backwards) in enumerate(zip(out_axes, _ints(node, "scan_output_directions", outputs))):
        stacked = gb.proj(result, states + j, loc=node.loc)
        if backwards:
            stacked = node.call("reverse", stacked, axis=0)
        fields.append(_move_first_axis(node, stacked, axis, steps.row_infos[j]))
    return Tuple(gb.tuple_(*fields, loc=node.loc), states + outputs)


class _Steps:
    """A loop's recursive closure under construction: the iteration counter, the extra
    parameters (Loop's condition), the carried values' parameters and the accumulators of the
    scan outputs (see the module docstring)."""

    def __init__(
        self,
        node: Node,
        body: Any,
        carried: list,
        scanned: list,
        infos: list,
        carried_out: list,
        extra: Optional[list] = None,
        stacked: Optional[list] = None,
    ) -> None:
        """`carried`: the body's inputs of the carried values, `infos` what the model says of
        their initial values, `carried_out` the body's outputs of their next values; `scanned`:
        the body's scan outputs; `extra`: (name, type) of parameters after the counter;
        `stacked`: for each carried value, its rows' information when it is a sequence held as
        stacked rows. What the body says of its inputs and outputs is what it declares (`declared`):
        asking the importer (`Importer.info`) of a body's tensor ran ONNX's inference on the
        whole model, which on nested subgraphs grows faster than the model (4,800 Loops: 1.2 s)."""
        importer = node.importer
        self._declared = {v.name: info_of_type(v.type) for v in list(body.input) + list(body.output)}
        self.node, self.body = node, body
        self.counter = gb.Var(importer.namer.name("iteration"), node.loc)
        self.extra = extra or []
        self.state = [importer.namer.name(f"{name}_carried") for name in carried]
        self.carried_names = carried
        self.row_infos = [_with_row(self.declared(name)) for name in scanned]
        self.rows = [importer.namer.name(f"{name}_rows") for name in scanned]
        self.params = [(self.counter.name, gb.Scalar("int64"))] + self.extra
        infos = [
            info if rows is not None else _agreed(info, self.declared(inner), self.declared(out))
            for info, inner, out, rows in zip(infos, carried, carried_out, stacked or [None] * len(infos))
        ]
        self.params += [(name, _any_dims(info)) for name, info in zip(self.state, infos)]
        self.params += [(name, _any_dims(info)) for name, info in zip(self.rows, self.row_infos)]
        self.recur = importer.namer.name(f"{node.outputs[0] or node.op_type.lower()}_loop")

    def declared(self, name: str) -> TensorInfo:
        """What the body declares of one of its inputs or outputs; for one it declares no
        dtype of (an expanded function's body), what ONNX's inference says (nothing for a
        sequence)."""
        found = self._declared.get(name)
        if found is not None and found.dtype is not None:
            return found
        return self.node.importer.info(name)

    def run(self, goes: Any, bound: dict, extra_next: Any, skip: int, start: list) -> Any:
        """The closure, bound by a let, and its first call. `bound` binds the body's inputs
        other than the carried values; `extra_next(outputs)` gives the extra parameters' next
        values; `skip` body outputs come before the carried ones; `start` holds the extra
        parameters' and the carried values' initial values."""
        node, loc = self.node, self.node.loc
        bound = dict(bound)
        bound.update({name: gb.Var(var, loc) for name, var in zip(self.carried_names, self.state)})
        carried = len(self.state)

        def next_iteration(outputs: list) -> Any:
            appended = [
                node.call("onnx.scan_append", gb.Var(acc, loc), item)
                for acc, item in zip(self.rows, outputs[skip + carried :])
            ]
            step = node.call("add", self.counter, literal(1, "int64", loc))
            return gb.call_value(
                gb.Var(self.recur, loc), step, *extra_next(outputs), *outputs[skip : skip + carried], *appended, loc=loc
            )

        then = node.importer.import_block(self.body, node.key + ((node.index, "body"),), bound, next_iteration, loc)
        done = gb.tuple_(*[gb.Var(name, loc) for name in self.state + self.rows], loc=loc)
        closure = gb.closure(self.params, gb.if_(goes, then, done, loc=loc), loc=loc)
        fn = node.importer.body.let(self.recur, closure, loc=loc)
        empty = [_no_rows(node, info) for info in self.row_infos]
        return gb.call_value(fn, literal(0, "int64", loc), *start, *empty, loc=loc)


def _ints(node: Node, name: str, count: int) -> list:
    """An ints attribute of one entry per input or output (zeros when absent)."""
    values = node.attr(name)
    if values is None:
        return [0] * count
    if len(values) != count:
        node.fail_attribute(name, list(values), f"{count} entries")
    return [int(v) for v in values]


def _axis(node: Node, axis: int, rank: Optional[int]) -> int:
    """A scan axis, counted from the front (a negative one needs the rank)."""
    if axis >= 0:
        return axis
    if rank is None:
        node.fail_attribute("axis", axis, "a non-negative axis when the rank is not known")
    return axis + rank


def _move_first_axis(node: Node, stacked: Any, axis: int, info: TensorInfo) -> Any:
    """Stacked rows (axis 0) moved to `axis` of the scan output."""
    if axis == 0:
        return stacked
    rank = info.rank
    if rank is None:
        node.fail_attribute("scan_output_axes", axis, "axis 0 when the output's rank is not known")
    axis = _axis(node, axis, rank)
    order = list(range(1, rank))
    order.insert(axis, 0)
    return node.call("transpose", stacked, axes=order)


def _continues(node: Node, i: Any, trip: Optional[Any], cond: Any) -> Any:
    """Whether another iteration runs: `i < M` when M is given, and the condition. The
    condition starts true when the node gives none, and is then the body's: ONNX's table says
    the body's condition is ignored without a condition input, but onnxruntime and ONNX's
    reference evaluator both stop on it, so gradual does too."""
    return cond if trip is None else node.call("logical_and", node.call("less", i, trip), cond)


def _known(node: Node, index: int) -> TensorInfo:
    """What the import knows of input `index` without ONNX's inference (Importer.known)."""
    return node.importer.known(node.inputs[index])


def _scalar(node: Node, index: int) -> Any:
    """Input `index` (M or cond: one element) as a scalar."""
    return _as_scalar(node, node.x(index), _known(node, index).rank)


def _as_scalar(node: Node, value: Any, rank: Optional[int]) -> Any:
    return value if rank == 0 else node.call("reshape", value, newshape=[])


def _as_rank(node: Node, scalar: Any, rank: Optional[int]) -> Any:
    """A scalar as the body's input declares it: a one-element vector when it says rank 1."""
    return node.call("reshape", scalar, newshape=[1]) if rank == 1 else scalar


def _with_row(info: TensorInfo) -> TensorInfo:
    """A scan output's rows: one more dim (their count, `?`) than each iteration's item, whose
    sizes the model gives."""
    return TensorInfo(info.dtype, None if info.dims is None else (None,) + tuple(info.dims), info.elem_type)


def _agreed(initial: TensorInfo, inner: TensorInfo, out: TensorInfo) -> TensorInfo:
    """What the model says of a carried value: its initial value's (where the import knows it)
    and the body's input and output declarations. Rank and dtype are the body input's (else the
    initial value's); a size is kept where at least two of them give it and none gives another,
    `None` elsewhere: a carried value may change shape from one iteration to the next, and
    where the model says it does not, it says so more than once. A `?` or a named dim says
    nothing of the size (the TorchScript exporter names a body output's dims `Looph.4_dim_1`
    where its input says 8)."""
    base = inner if inner.dims is not None else initial
    dtype = inner.dtype or initial.dtype or out.dtype
    sources = [i for i in (initial, inner, out) if i.dims is not None]
    if base.dims is None:
        return TensorInfo(dtype, None, base.elem_type or initial.elem_type)
    rank = len(base.dims)
    if any(len(i.dims) != rank for i in sources):  # type: ignore[arg-type]
        return TensorInfo(dtype, (None,) * rank, base.elem_type or initial.elem_type)

    def kept(axis: int, d: Any) -> Any:
        stated = [i.dims[axis] for i in sources if isinstance(i.dims[axis], int)]  # type: ignore[index]
        return stated[0] if len(stated) >= 2 and len(set(stated)) == 1 else None

    return TensorInfo(
        dtype, tuple(kept(axis, d) for axis, d in enumerate(base.dims)), base.elem_type or initial.elem_type
    )


def _any_dims(info: TensorInfo) -> Optional[Any]:
    """A parameter type of the model's rank and dtype, its sizes where `info` gives an int and
    `?` elsewhere (None: the dtype is unknown)."""
    if info.dtype is None:
        return None
    if info.dims is None:
        return gb.Tensor(None, info.dtype)
    return gb.Tensor([d if isinstance(d, int) else gb.Dim.unknown() for d in info.dims], info.dtype)


def _no_rows(node: Node, rows: TensorInfo) -> Any:
    """The empty accumulator of a scan output's rows (of their rank when known)."""
    if rows.dtype is None:
        node.fail_attribute("scan output", "of unknown dtype", "a scan output whose dtype the model gives")
    shape = (0,) if rows.dims is None else (0,) + tuple(d if isinstance(d, int) else 0 for d in rows.dims[1:])
    return inline_constant(np.zeros(shape), rows.dtype, node.loc)
