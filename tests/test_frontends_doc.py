"""docs/frontends.md runs: its Python blocks are executed in order in one namespace, compiled
under the document's own path at their own lines (so the worked example's layers are located
in the document, whose lines its diagnostics show)."""

from __future__ import annotations

import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "frontends.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list:
    text = DOC.read_text(encoding="utf-8")
    return [(text[: m.start(1)].count("\n"), m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_worked_example_runs() -> None:
    blocks = _blocks()
    assert len(blocks) >= 4
    namespace: dict = {"__name__": "frontends_doc"}
    for offset, code in blocks:
        if "gradual.frontends import jax" in code:
            pytest.importorskip("jax")
        exec(compile("\n" * offset + code, str(DOC), "exec"), namespace)
    assert namespace["error"].path == str(DOC)
