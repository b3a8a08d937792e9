"""Reading ONNX models without the `onnx` package (gradual/frontends/onnx/proto.py, schemas.py,
fold.py, ranks.py): each part gives what `onnx` itself gives, and bad bytes are a diagnostic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402

from gradual.frontends import onnx as gonnx  # noqa: E402
from gradual.frontends.onnx import fold, proto, ranks, schemas  # noqa: E402
from gradual.frontends.onnx.types import info_of_type  # noqa: E402

DATA = Path(__file__).parent / "data" / "onnx"
MODELS = sorted(DATA.glob("*/*.onnx")) + sorted(DATA.glob("*/*/*.onnx"))


def test_there_are_models_to_read() -> None:
    assert len(MODELS) > 80


@pytest.mark.parametrize("path", MODELS, ids=lambda p: str(p.relative_to(DATA)))
def test_a_model_reads_as_onnx_reads_it(path: Path) -> None:
    """The same fields, values and unknown fields: serialized again, the bytes are onnx's."""
    data = path.read_bytes()
    ours = proto.ModelProto.FromString(data)
    theirs = onnx.load_model_from_string(data)
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert proto.to_onnx(ours) == theirs
    assert len(ours.graph.node) == len(theirs.graph.node)


def test_fields_the_subset_leaves_out_are_kept() -> None:
    """A training_info (not in proto.py's schema) survives a read and a write."""
    m = helper.make_model(
        helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [], []),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    m.training_info.add().algorithm.name = "train"
    again = proto.to_onnx(proto.ModelProto.FromString(m.SerializeToString()))
    assert again.training_info[0].algorithm.name == "train"


def _model_bytes() -> bytes:
    return (DATA / "exported" / "attention.ts.onnx").read_bytes()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_bytes_are_a_diagnostic_never_a_traceback(data: st.DataObject) -> None:
    """Truncated, overwritten or spliced bytes of a real model: a LoadError (an
    `input-error` at the file) or an imported model whose check reports what is wrong."""
    original = _model_bytes()
    kind = data.draw(st.sampled_from(["truncate", "overwrite", "insert", "garbage"]))
    if kind == "truncate":
        damaged = original[: data.draw(st.integers(0, len(original) - 1))]
    elif kind == "garbage":
        damaged = data.draw(st.binary(max_size=300))
    else:
        at = data.draw(st.integers(0, len(original) - 1))
        junk = data.draw(st.binary(min_size=1, max_size=16))
        damaged = original[:at] + junk + original[at + (len(junk) if kind == "overwrite" else 0) :]
    try:
        imported = gonnx.import_model(damaged, path="m.onnx")
    except gonnx.LoadError as failure:
        assert failure.diagnostic.code == "input-error"
        assert failure.diagnostic.span.describe().startswith("m.onnx")
        return
    result = imported.check()
    assert all(d.span is not None for d in result.diagnostics)


def test_bytes_that_are_no_model_say_why() -> None:
    with pytest.raises(gonnx.LoadError) as raised:
        gonnx.import_model(b"\x0a\xff\xff\xff\xff\x0f", path="m.onnx")
    assert "onnx.ModelProto" in raised.value.diagnostic.message


# schemas ---------------------------------------------------------------------------------------
def _theirs(op: str, opset: int) -> object:
    try:
        s = onnx.defs.get_schema(op, opset, "")
    except Exception:  # noqa: BLE001 - no schema at this opset
        return None
    attributes = {name: (int(a.type), bool(a.required)) for name, a in s.attributes.items()}
    required = tuple(name for name, (_, needed) in attributes.items() if needed)
    return schemas.Schema(attributes, (s.min_input, s.max_input), (s.min_output, s.max_output), required)


def test_the_schema_table_answers_as_onnx_defs() -> None:
    ops = sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in ("", "ai.onnx")})
    top = onnx.defs.onnx_opset_version() + 2
    for op in ops:
        assert schemas.known_operator(op) == bool(onnx.defs.has(op))
        for opset in range(top):
            assert schemas.schema(op, opset) == _theirs(op, opset), (op, opset)
    assert not schemas.known_operator("NoSuchOperator") and schemas.schema("NoSuchOperator", 17) is None


# folds -----------------------------------------------------------------------------------------
def _reference(node: object, arrays: list, opset: int) -> list:
    return fold._reference(node, arrays, [helper.make_opsetid("", opset)])


def _compare(node: object, arrays: list, opset: int = 18) -> None:
    attributes = {a.name: a for a in node.attribute}
    local = fold._LOCAL[node.op_type]
    try:
        ours = local([None if a is None else np.asarray(a) for a in arrays], attributes, opset)
    except (ValueError, IndexError, TypeError, OverflowError):
        return  # left to the reference evaluator
    theirs = _reference(node, arrays, opset)
    assert theirs is not None, node
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape, (node, a, b)
        np.testing.assert_array_equal(a, b)


_DTYPES = [np.int64, np.int32, np.float32]
small = st.integers(-40, 40)


def _array(draw: st.DrawFn, dtype: type, shape: tuple) -> np.ndarray:
    count = int(np.prod(shape))
    return np.asarray(draw(st.lists(small, min_size=count, max_size=count)), dtype=dtype).reshape(shape)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_local_folds_give_what_the_reference_evaluator_gives(data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(sorted(fold._LOCAL)))
    dtype = data.draw(st.sampled_from(_DTYPES))
    shape = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    x = _array(data.draw, dtype, shape)
    if op in ("Add", "Sub", "Mul", "Mod"):
        y = _array(data.draw, dtype, shape[data.draw(st.integers(0, len(shape))) :])
        if op == "Mod":
            y = np.where(y == 0, 3, y).astype(dtype)
        attrs = {"fmod": 1} if op == "Mod" and dtype == np.float32 or data.draw(st.booleans()) and op == "Mod" else {}
        _compare(helper.make_node(op, ["x", "y"], ["z"], **attrs), [x, y])
    elif op == "Neg":
        _compare(helper.make_node(op, ["x"], ["z"]), [x])
    elif op == "Cast":
        to = data.draw(st.sampled_from([TensorProto.INT64, TensorProto.INT32, TensorProto.FLOAT, TensorProto.BOOL]))
        _compare(helper.make_node(op, ["x"], ["z"], to=to), [x])
    elif op == "ConstantOfShape":
        value = helper.make_tensor("v", TensorProto.INT64, [1], [data.draw(small)])
        _compare(helper.make_node(op, ["x"], ["z"], value=value), [np.abs(_array(data.draw, np.int64, (2,))) % 4])
    elif op == "Unsqueeze":
        axes = np.asarray([data.draw(st.integers(-len(shape) - 1, len(shape)))], dtype=np.int64)
        _compare(helper.make_node(op, ["x", "a"], ["z"]), [x, axes])
    elif op == "Squeeze":
        ones = x.reshape(shape + (1,))
        _compare(helper.make_node(op, ["x", "a"], ["z"]), [ones, np.asarray([-1], dtype=np.int64)])
        _compare(helper.make_node(op, ["x"], ["z"]), [ones])
    elif op == "Concat":
        axis = data.draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1)) if shape else 0
        _compare(helper.make_node(op, ["x", "y"], ["z"], axis=axis), [x, x])
    elif op == "Gather" and shape:
        axis = data.draw(st.integers(-len(shape), len(shape) - 1))
        size = shape[axis]
        index = np.asarray(data.draw(st.integers(-size, size - 1)), dtype=np.int64)
        _compare(helper.make_node(op, ["x", "i"], ["z"], axis=axis), [x, index])
    elif op == "Reshape":
        target = np.asarray([-1] + ([0] if shape and data.draw(st.booleans()) else []), dtype=np.int64)
        _compare(helper.make_node(op, ["x", "s"], ["z"]), [x, target])


# ranks -----------------------------------------------------------------------------------------
RANKED = [p for p in MODELS if "exported" in p.parts or "examples" in p.parts]


@pytest.mark.parametrize("path", RANKED, ids=lambda p: p.name)
def test_derived_ranks_and_dtypes_agree_with_onnx_inference(path: Path) -> None:
    """Every node output a rule of ranks.py derives has the element type and rank ONNX's shape
    inference gives it, and each static dim the rule gives is ONNX's."""
    model = onnx.load(str(path))
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    theirs = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output) + list(inferred.graph.input):
        info = info_of_type(vi.type)
        if info is not None:
            theirs[vi.name] = info
    ours: dict = {}
    for init in model.graph.initializer:
        ours[init.name] = theirs.get(init.name) or ranks.TensorInfo(None, tuple(init.dims), init.data_type)
    for vi in model.graph.input:
        if info_of_type(vi.type) is not None:
            ours[vi.name] = info_of_type(vi.type)
    values = {init.name: onnx.numpy_helper.to_array(init) for init in model.graph.initializer}
    compared = 0
    for node in model.graph.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.name == "value":
                    values[node.output[0]] = onnx.numpy_helper.to_array(a.t)
                    ours[node.output[0]] = ranks.TensorInfo(None, tuple(a.t.dims), a.t.data_type)
            continue
        found = ranks.rule(
            node.op_type,
            [ours.get(i) if i else None for i in node.input],
            {a.name: a for a in node.attribute},
            [values.get(i) if i else None for i in node.input],
            model.opset_import[0].version,
            len(node.output),
        )
        for name, info in zip(node.output, found):
            if info is None:
                continue
            ours[name] = info  # derived from derived infos, as the importer derives them
            if name not in theirs or theirs[name].dims is None:
                continue
            want = theirs[name]
            assert (info.elem_type, info.rank) == (want.elem_type, want.rank), (node.op_type, name, info, want)
            for ours_dim, their_dim in zip(info.dims, want.dims):
                if isinstance(ours_dim, int):
                    assert ours_dim == their_dim, (node.op_type, name, info, want)
            compared += 1
    assert compared > 0 or len(model.graph.node) < 30


def test_subgraphs_are_looked_for_only_where_an_attribute_is_typed_graph() -> None:
    """The importer walks every node's attributes for subgraphs only when the model's bytes
    hold an attribute's type GRAPH (`importer._may_hold_graphs`): a node 160 bytes long whose
    first field is an input serializes as the bytes of a GRAPHS type (`a0 01 0a`) and is none."""
    from gradual.frontends.onnx.importer import _may_hold_graphs

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    long_input = "x" + "_" * 120  # a node of 160 bytes: its length's varint is a0 01
    relu = helper.make_node("Relu", [long_input], ["y"], name="r" * 26)
    identity = helper.make_node("Identity", ["x"], [long_input])
    flat = helper.make_model(
        helper.make_graph([identity, relu], "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    )
    assert len(relu.SerializeToString()) == 160 and b"\xa0\x01\x0a" in flat.SerializeToString()
    assert not _may_hold_graphs(flat.SerializeToString())
    branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["b"])],
        "b",
        [],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])],
    )
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    nested = helper.make_model(
        helper.make_graph(
            [helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
            "g",
            [cond, x],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        )
    )
    assert _may_hold_graphs(nested.SerializeToString())
    assert _may_hold_graphs(None)  # a model given as a message is walked
