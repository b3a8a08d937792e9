"""The importer's fast forms (gradual/frontends/onnx/forms.py, and maps with a constant input)
make the program the converters make: every test model imported both ways prints the same
program and checks the same."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("onnx")

from gradual.frontends import onnx as gonnx
from gradual.frontends.onnx.importer import Importer, Namer

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


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=24))
def test_namer_spells_names_as_the_pattern_does(onnx_name: str) -> None:
    """A fresh name is the ONNX name with every character but [A-Za-z0-9_] replaced by `_`
    (ASCII names through a translation table, the rest through the pattern)."""
    expected = re.sub(r"[^A-Za-z0-9_]", "_", onnx_name) or "v"
    assert Namer().name(onnx_name) == expected
