"""A fixed sample of ONNX's backend node tests (tests/data/onnx/, as ONNX lays them out):
each model is imported, checked, its inferred output types compared with the real shapes, run
on the test's inputs and its outputs compared. The full run is bench/onnx_conformance.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import numpy_helper  # noqa: E402

from gradual.frontends import onnx as gonnx  # noqa: E402
from gradual.types import FLOAT_DTYPES, TensorType, TupleType  # noqa: E402

DATA = Path(__file__).parent / "data" / "onnx"
CASES = sorted(p.name for p in DATA.iterdir() if (p / "model.onnx").exists())

#: outputs whose size depends on the data itself: the inferred type, not the shape
DATA_DEPENDENT = {
    "test_nonzero_example": ["Tensor[(2, 0..4), int64]"],
    "test_unique_not_sorted_without_axis": [
        "Tensor[(0..6,), float32]",
        "Tensor[(0..6,), int64]",
        "Tensor[(6,), int64]",
        "Tensor[(0..6,), int64]",
    ],
}
#: what the frontend does not import, and says so
UNSUPPORTED: dict = {}


def load(name: str) -> tuple:
    """(model, inputs, outputs, rtol, atol) of one sample test."""
    folder = DATA / name
    model = onnx.load(str(folder / "model.onnx"))
    tol = json.loads((folder / "tolerance.json").read_text())
    return model, tensors(folder, "input"), tensors(folder, "output"), tol["rtol"], tol["atol"]


def tensors(folder: Path, kind: str) -> list:
    files = sorted((folder / "test_data_set_0").glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
    out = []
    for f in files:
        t = onnx.TensorProto()
        t.ParseFromString(f.read_bytes())
        out.append(numpy_helper.to_array(t))
    return out


def graph_inputs(model: object, arrays: list) -> dict:
    """The test's inputs by graph input name (initializers are not inputs)."""
    inits = {i.name for i in model.graph.initializer}  # type: ignore[attr-defined]
    names = [vi.name for vi in model.graph.input if vi.name not in inits]  # type: ignore[attr-defined]
    return dict(zip(names, arrays))


def shape_inputs(inputs: dict) -> dict:
    """Vectors and scalars: frozen, as the conformance script freezes shape inputs."""
    return {k: v for k, v in inputs.items() if v.dtype.kind in "iuf" and v.ndim <= 1 and v.size <= 64}


def result_types(result: object) -> list:
    t = result.function_type("main").ret  # type: ignore[attr-defined]
    return list(t.fields) if isinstance(t, TupleType) else [t]


def assert_close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f" or want.dtype.name in FLOAT_DTYPES:  # ml_dtypes' floats are kind "V"
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=max(atol, 1e-6))
    else:
        np.testing.assert_array_equal(got, want)


def test_the_sample_is_small_and_varied() -> None:
    size = sum(f.stat().st_size for name in CASES for f in (DATA / name).rglob("*") if f.is_file())
    assert len(CASES) >= 40 and size < 1_000_000


@pytest.mark.parametrize("name", CASES)
def test_declared_types_agree(name: str) -> None:
    """Imported with the graph outputs' declared types as @main's annotation: no errors."""
    model, *_ = load(name)
    result = gonnx.import_model(model, path=f"{name}.onnx").check()
    assert result.ok, [d.message for d in result.diagnostics]


@pytest.mark.parametrize("name", CASES)
def test_inferred_shapes_are_the_real_ones(name: str) -> None:
    model, inputs, outputs, *_ = load(name)
    options = gonnx.ImportOptions(declared_outputs=False, freeze=shape_inputs(graph_inputs(model, inputs)))
    result = gonnx.import_model(model, options, path=f"{name}.onnx").check()
    assert result.ok, [d.message for d in result.diagnostics]
    types = result_types(result)
    if name in DATA_DEPENDENT:
        assert [str(t) for t in types] == DATA_DEPENDENT[name]
        return
    for t, want in zip(types, outputs):
        assert isinstance(t, TensorType) and t.dims is not None, str(t)
        assert [d.get_length() if d.is_static else str(d) for d in t.dims] == list(want.shape)


@pytest.mark.parametrize("name", CASES)
def test_outputs_match(name: str) -> None:
    """Run with every input given at runtime (nothing frozen): the outputs of the test."""
    model, inputs, outputs, rtol, atol = load(name)
    imported = gonnx.import_model(model, gonnx.ImportOptions(declared_outputs=False), path=f"{name}.onnx")
    got = imported.run(graph_inputs(model, inputs))
    assert len(got) == len(outputs)
    for g, want in zip(got, outputs):
        assert_close(g, want, rtol, atol)
