"""Real exported models: small torchvision, transformers and hand-written models exported
by both of PyTorch's exporters with dynamic axes (tests/data/onnx/exported/, made by
bench/export_corpus.py). Each must check as expected.json pins it (output type, symbolic dims,
checks, warnings), run on concrete sizes and agree with onnxruntime; sizes that break a
constraint the model places on its dynamic dims must fail the inserted check, not compute."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import gradual  # noqa: E402
from gradual.frontends import onnx as gonnx  # noqa: E402

CORPUS = Path(__file__).parent / "data" / "onnx" / "exported"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text()) if (CORPUS / "manifest.json").exists() else {}
EXPECTED = json.loads((CORPUS / "expected.json").read_text()) if (CORPUS / "expected.json").exists() else {}
NAMES = sorted(n for n in MANIFEST if (CORPUS / n).exists())
BUDGET_BYTES = 20_000_000


def _import(name: str) -> object:
    return gonnx.import_model(str(CORPUS / name))


@functools.lru_cache(maxsize=None)
def _checked(name: str) -> tuple:
    """(imported model, check result), once per model for the tests below."""
    imported = _import(name)
    assert imported.ok, [d.message for d in imported.diagnostics]
    return imported, imported.check()


def _summary(result: object) -> dict:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from onnx_corpus import summary

    return summary(result)


def _inputs(name: str, run: int) -> dict:
    """Seeded random inputs of the manifest's `run`-th sizes."""
    rng = np.random.default_rng(run)
    out = {}
    for spec in MANIFEST[name]["inputs"]:
        shape = spec["runs"][run]
        if spec["dtype"] == "int64":
            out[spec["name"]] = rng.integers(0, spec.get("high", 100), shape).astype(np.int64)
        else:
            out[spec["name"]] = rng.standard_normal(shape).astype(np.float32)
    return out


def test_the_corpus_is_there_and_small() -> None:
    assert len(NAMES) >= 20
    assert sum((CORPUS / n).stat().st_size for n in NAMES) < BUDGET_BYTES
    assert set(NAMES) == set(EXPECTED)


@pytest.mark.parametrize("name", NAMES)
def test_an_exported_model_checks_as_expected(name: str) -> None:
    _, result = _checked(name)
    assert _summary(result) == EXPECTED[name]
    assert result.ok


@pytest.mark.parametrize("name", NAMES)
def test_an_exported_model_runs_and_agrees_with_onnxruntime(name: str) -> None:
    imported, result = _checked(name)
    session = ort.InferenceSession(str(CORPUS / name), providers=["CPUExecutionProvider"])
    for run in range(len(MANIFEST[name]["inputs"][0]["runs"])):
        inputs = _inputs(name, run)
        ours = imported.run(inputs, checked=result)
        theirs = session.run(None, inputs)
        assert len(ours) == len(theirs)
        for mine, reference in zip(ours, theirs):
            assert mine.shape == reference.shape and mine.dtype == reference.dtype
            np.testing.assert_allclose(mine, reference, rtol=1e-3, atol=1e-4)


BROKEN = [(n, spec) for n in NAMES for spec in MANIFEST[n].get("breaks", [])]


@pytest.mark.parametrize("name, shapes", BROKEN)
def test_a_size_the_model_cannot_take_fails_the_inserted_check(name: str, shapes: dict) -> None:
    imported, result = _checked(name)
    rng = np.random.default_rng(0)
    dtypes = {spec["name"]: spec["dtype"] for spec in MANIFEST[name]["inputs"]}
    inputs = {
        k: (rng.integers(0, 2, v) if dtypes[k] == "int64" else rng.standard_normal(v)).astype(dtypes[k])
        for k, v in shapes.items()
    }
    with pytest.raises(gradual.CheckFailure):
        imported.run(inputs, checked=result)
