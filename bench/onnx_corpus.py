"""gradual on the corpus of exported models (tests/data/onnx/exported/, made by export_corpus.py).

    python bench/onnx_corpus.py              # the table (markdown) of README's "Exported models"
    python bench/onnx_corpus.py --update     # also rewrite tests/data/onnx/exported/expected.json

For every model and exporter: the output type gradual infers, how many of its dims are symbolic
(carried from the inputs' dynamic dims), the runtime checks inserted, the warnings (exporter
dims the model constrains, spec §6), the time to import and check, and what
`onnx.shape_inference.infer_shapes(model, data_prop=True)` says of the same output.
expected.json pins the first four for tests/test_onnx_corpus.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import onnx  # noqa: E402

from gradual.frontends import onnx as gonnx  # noqa: E402
from gradual.types import TensorType, TupleType  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "onnx" / "exported"
EXPECTED = CORPUS / "expected.json"


def models() -> list:
    """(file name, manifest entry) of every stored model, sorted."""
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    return [(name, manifest[name]) for name in sorted(manifest) if (CORPUS / name).exists()]


def checked(name: str) -> tuple:
    """(imported model, check result, seconds) of one stored model."""
    start = time.perf_counter()
    imported = gonnx.import_model(str(CORPUS / name))
    result = imported.check()
    return imported, result, time.perf_counter() - start


def summary(result: Any) -> dict:
    """What expected.json pins: the output type, symbolic output dims, checks, warnings."""
    fn = result.function_type("main") if result.ok else None
    ret = fn.ret if fn is not None else None
    outputs = list(ret.fields) if isinstance(ret, TupleType) else [ret] if ret is not None else []
    symbolic = sum(
        1
        for t in outputs
        if isinstance(t, TensorType) and t.dims is not None
        for d in t.dims
        if d.is_exact and not d.is_static
    )
    unknown = sum(
        1 for t in outputs if isinstance(t, TensorType) and t.dims is not None for d in t.dims if not d.is_exact
    )
    return {
        "output": " ".join(str(t) for t in outputs) if outputs else None,
        "symbolic_dims": symbolic,
        "unknown_dims": unknown,
        "checks": result.check_count if result.ok else None,
        "errors": [d.code for d in result.errors],
        "warnings": [d.message for d in result.warnings],
    }


def onnx_inferred(path: Path) -> str:
    """The first output's shape as onnx.shape_inference (data_prop=True) infers it, with the
    declared output shapes and value_info taken out of the model first."""
    model = onnx.load(str(path))
    del model.graph.value_info[:]
    for output in model.graph.output:
        output.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as exc:  # noqa: BLE001
        return f"fails ({type(exc).__name__})"
    out = inferred.graph.output[0].type.tensor_type
    if not out.HasField("shape"):
        return "no shape"
    dims = [
        d.dim_param if d.HasField("dim_param") else str(d.dim_value) if d.HasField("dim_value") else "?"
        for d in out.shape.dim
    ]
    return "(" + ", ".join(dims) + ")"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="rewrite expected.json")
    args = parser.parse_args()
    expected = {}
    print(
        "| model | exporter | nodes | gradual: output | symbolic dims | checks | warnings | time | onnx.shape_inference |"
    )
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for name, entry in models():
        imported, result, seconds = checked(name)
        info = summary(result)
        expected[name] = info
        shown = info["output"] or ("error: " + ", ".join(info["errors"]))
        print(
            f"| {entry['model']} | {entry['exporter']} | {imported.node_count} | `{shown}` | {info['symbolic_dims']} | "
            f"{info['checks']} | {len(info['warnings'])} | {seconds:.2f} s | `{onnx_inferred(CORPUS / name)}` |"
        )
    if args.update:
        EXPECTED.write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
