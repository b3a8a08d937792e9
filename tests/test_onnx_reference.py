"""ONNX Runtime is the reference for the ONNX operators declared with contracts: a call drawn
inside an operator's contract (its kernel-input generator, tests/kernel_inputs_onnx*.py) checks
clean, ONNX Runtime runs the same node on the same inputs, and its output has the shape gradual
inferred (where the type has static dims) and the shape gradual's run gives.

An ONNX Runtime that has no kernel for a dtype (its registered type lists are narrower than the
standard's) is not a disagreement: such draws are skipped. Anything else ONNX Runtime refuses
is one: the contract accepted a call the reference cannot run.
"""

from __future__ import annotations

import os
from typing import Any

import kernel_inputs_onnx  # noqa: F401  (registers the ONNX operators' generators)
import kernel_inputs_onnx_models  # noqa: F401  (registers the generators of ONNX's model operators)
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from kernel_inputs import ABSENT, GENERATORS

import gradual
from gradual.runtime.api import run_elaborated
from gradual.types import TensorType

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

EXAMPLES = int(os.environ.get("GRADUAL_REFERENCE_EXAMPLES", "10"))
OPSET = 21

#: gradual operator -> the ONNX node it is (operands in ONNX's order; attributes of the same
#: names, booleans as ints)
NODES = {
    "onnx.flatten": "Flatten",
    "onnx.unsqueeze": "Unsqueeze",
    "onnx.squeeze": "Squeeze",
    "onnx.expand": "Expand",
    "onnx.slice": "Slice",
    "onnx.tile": "Tile",
    "onnx.pad": "Pad",
    "onnx.depth_to_space": "DepthToSpace",
    "onnx.space_to_depth": "SpaceToDepth",
    "onnx.trilu": "Trilu",
    "onnx.gather_elements": "GatherElements",
    "onnx.gather_nd": "GatherND",
    "onnx.scatter_elements": "ScatterElements",
    "onnx.scatter_nd": "ScatterND",
    "onnx.topk": "TopK",
    "onnx.one_hot": "OneHot",
    "onnx.hardmax": "Hardmax",
    "onnx.compress": "Compress",
    "onnx.reverse_sequence": "ReverseSequence",
    "onnx.center_crop_pad": "CenterCropPad",
}

#: an absent optional operand: an empty name in the node (gradual writes an empty vector)
_OPTIONAL = {("onnx.pad", 2), ("onnx.pad", 3), ("onnx.slice", 3), ("onnx.slice", 4), ("onnx.trilu", 1)}

#: a deliberate widening: gradual takes any integer dtype for an index operand (`I: index`)
#: where ONNX names int64 alone, or one index type for several operands; ONNX Runtime is given
#: them as int64
_INT64_ONLY = {"onnx.unsqueeze", "onnx.squeeze", "onnx.reverse_sequence", "onnx.expand", "onnx.tile", "onnx.slice"}
_INT64_ONLY |= {"onnx.center_crop_pad"}  # ONNX Runtime's function body mixes its int64 with the shape's type

#: attributes gradual's declaration has that ONNX's node does not (the shape does not depend on them)
_NOT_ONNX = {"onnx.space_to_depth": ("mode",)}


def _ort_attrs(attrs: dict) -> dict:
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        if value is None:
            continue
        out[name] = int(value) if isinstance(value, bool) else value
    return out


def _program(name: str, args: list, attrs: dict) -> str:
    from domains import Call

    return Call(name, args, attrs, "none", ["static"] * len(args)).program()


def _reference(name: str, args: list, attrs: dict) -> list:
    """ONNX Runtime's outputs, or None where it has no kernel for these dtypes."""
    from onnx import helper

    inputs, feeds, values = [], {}, []
    attrs = {k: v for k, v in attrs.items() if k not in _NOT_ONNX.get(name, ())}
    for i, a in enumerate(args):
        if i > 0 and name in _INT64_ONLY and a.dtype.kind in "iu":
            a = a.astype(np.int64)
        if (name, i) in _OPTIONAL and (a is ABSENT or a.size == 0):
            inputs.append("")
            continue
        inputs.append(f"a{i}")
        feeds[f"a{i}"] = a
        values.append(helper.make_tensor_value_info(f"a{i}", helper.np_dtype_to_tensor_dtype(a.dtype), a.shape))
    count = 2 if name == "onnx.topk" else 1
    outputs = [helper.make_empty_tensor_value_info(f"y{j}") for j in range(count)]
    node = helper.make_node(NODES[name], inputs, [o.name for o in outputs], **_ort_attrs(attrs))
    graph = helper.make_graph([node], "g", values, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - ONNX Runtime's errors have no common base class
        if "NOT_IMPLEMENTED" in str(exc) or "Could not find an implementation" in str(exc):
            return []
        raise AssertionError(f"{name}: ONNX Runtime refused the model: {exc}") from None
    try:
        return session.run(None, feeds)
    except Exception as exc:  # noqa: BLE001 - as above
        raise AssertionError(f"{name}: ONNX Runtime refused the inputs: {exc}") from None


#: where gradual and ONNX Runtime disagree: Slice with a negative step and an end of the largest
#: int32 or int64 (ONNX Runtime reads it as "through element 0": [0:INT_MAX:-1] of 3 elements
#: is [x0]; the ONNX standard clamps the end to d - 1, an empty slice, as gradual does)
DISAGREEMENTS = {"onnx.slice"}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True)) if n in DISAGREEMENTS else n for n in sorted(NODES)],
)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_onnxruntime_runs_what_the_contract_accepts(name: str, data: st.DataObject) -> None:
    args, attrs = GENERATORS[name](data.draw)
    program = _program(name, args, attrs)
    result = gradual.check(program)
    assert result.ok, f"{name}: a generated call does not check:\n{program}\n{result.diagnostics[0].message}"
    expected = _reference(name, args, attrs)
    assume(expected)  # no ONNX Runtime kernel for these dtypes
    mine = run_elaborated(gradual.elaborate(result), {f"a{i}": a for i, a in enumerate(args)})
    first = mine[0] if isinstance(mine, tuple) else mine
    assert first.shape == expected[0].shape, f"{name}: gradual ran {first.shape}, ONNX Runtime {expected[0].shape}"
    inferred = result.functions["main"].type.ret
    if isinstance(inferred, TensorType) and inferred.dims is not None:
        assert len(inferred.dims) == expected[0].ndim, f"{name}: inferred {inferred}, ONNX Runtime {expected[0].shape}"
        for size, dim in zip(expected[0].shape, inferred.dims):
            if getattr(dim, "is_static", False):
                assert dim.get_length() == size, f"{name}: inferred {inferred}, ONNX Runtime {expected[0].shape}"
