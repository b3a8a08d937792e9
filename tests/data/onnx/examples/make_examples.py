"""Regenerate the example models of the README's ONNX section (deterministic):

    python tests/data/onnx/examples/make_examples.py

* mlp.onnx — x (batch, 16) -> Gemm 16->8 -> Relu -> Gemm 8->4 -> Softmax, weights as initializers;
* mlp_transposed.onnx — the same with the second weight stored transposed (a shape error);
* cnn_batch1.onnx — Conv -> Relu -> Reshape to [1, -1]: exported with a fixed batch of 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
F = TensorProto.FLOAT


def _model(nodes: list, inputs: list, outputs: list, initializers: dict, name: str) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, F, s) for n, s in outputs],
        initializer=[numpy_helper.from_array(v, k) for k, v in initializers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gradual-examples")
    onnx.checker.check_model(model)
    return model


def mlp(transposed: bool) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w2 = rng.standard_normal((4, 8)).astype(np.float32)
    weights = {
        "fc1.weight": rng.standard_normal((8, 16)).astype(np.float32), "fc1.bias": np.zeros(8, np.float32),
        "fc2.weight": w2.T.copy() if transposed else w2, "fc2.bias": np.zeros(4, np.float32),
    }
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["a"], name="relu"),
        helper.make_node("Gemm", ["a", "fc2.weight", "fc2.bias"], ["logits"], name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    return _model(nodes, [("x", ["batch", 16])], [("probs", ["batch", 4])], weights, "mlp")


def cnn_batch1() -> onnx.ModelProto:
    rng = np.random.default_rng(1)
    weights = {"conv.weight": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
               "flat.shape": np.array([1, -1], np.int64)}
    nodes = [
        helper.make_node("Conv", ["image", "conv.weight"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "flat.shape"], ["features"], name="flatten"),
    ]
    return _model(nodes, [("image", [1, 3, 8, 8])], [("features", [1, 256])], weights, "cnn")


def main() -> None:
    onnx.save(mlp(False), str(HERE / "mlp.onnx"))
    onnx.save(mlp(True), str(HERE / "mlp_transposed.onnx"))
    onnx.save(cnn_batch1(), str(HERE / "cnn_batch1.onnx"))


if __name__ == "__main__":
    main()
