"""Frontends: importers that turn models of other formats into gradual programs.

Each builds its program through `gradual.builder` (never by formatting text), so diagnostics
point at the model (a node's name, operator and tensors) rather than at generated text.

* `onnx` — ONNX models (the optional extra `gradual[onnx]`); `onnx_cli` is its command-line
  glue, importable without the `onnx` package.
"""
