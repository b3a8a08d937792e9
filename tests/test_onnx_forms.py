"""The importer's fast forms (gradual/frontends/onnx/forms.py, and maps with a constant input)
make the program the converters make: every test model imported both ways prints the same
program and checks the same."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("onnx")

from gradual.frontends import onnx as gonnx
from gradual.frontends.onnx.importer import Importer

DATA = Path(__file__).parent / "data" / "onnx"
MODELS = sorted(DATA.glob("*/*.onnx")) + sorted(DATA.glob("*/*/*.onnx"))
BENCH = Path(__file__).resolve().parents[1] / "bench"


def _both(source: object, monkeypatch: pytest.MonkeyPatch, **options: object) -> tuple:
    found = []
    for fast in (False, True):
        monkeypatch.setattr(Importer, "fast_forms", fast)
        imported = gonnx.import_model(source, gonnx.ImportOptions(**options), path="m.onnx")
        result = imported.check()
        main = result.function_type("main") if result.ok else None
        found.append(
            (
                imported.text(),
                [(d.code, d.message, d.span.describe() if d.span else None) for d in result.diagnostics],
                str(main),
                result.check_count if result.ok else None,
            )
        )
    return found[0], found[1]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: str(p.relative_to(DATA)))
def test_a_model_imports_the_same_with_and_without_fast_forms(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow, fast = _both(str(path), monkeypatch)
    assert fast == slow


@pytest.mark.parametrize("options", [{}, {"batch": "N", "batch_reshapes": True}])
def test_an_exporter_style_encoder_imports_the_same(options: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import exporters
    finally:
        sys.path.remove(str(BENCH))
    model = exporters.encoder_model(400).SerializeToString()
    slow, fast = _both(model, monkeypatch, **options)
    assert fast == slow
    assert "take(" in fast[0] and "expand_dims(" in fast[0] and "dyn.reshape(" in fast[0]
