"""The ONNX frontend's registration: `.onnx` files, read by `gradual.frontends.onnx`.

Importing this module does not import the `onnx` package: loading a model does, and without
it loading says how to install it (`pip install 'gradual[onnx]'`).
"""

from __future__ import annotations

import os
from typing import Any

from gradual.frontends import (
    STRICT_DIMS,
    Frontend,
    FrontendOption,
    FrontendUnavailable,
    LoadedModel,
    dim_name,
    register_frontend,
)
from gradual.frontends import messages as frontend_messages

OPTIONS = (
    FrontendOption(
        "batch", "name the first dim of every graph input (a symbolic batch)", metavar="NAME", parse=dim_name
    ),
    FrontendOption(
        "batch-reshapes",
        "with --batch: Reshape targets that hard-code the batch size copy it instead",
        flag=True,
        needs="batch",
    ),
    STRICT_DIMS,
)


def _frontend() -> Any:
    try:  # the package looks for the optional extra without importing it (a check may not need it)
        from gradual.frontends import onnx as frontend
    except ImportError:
        # pre-commit sets PRE_COMMIT=1 for its hooks: their environment is its to install
        under_pre_commit = os.environ.get("PRE_COMMIT") == "1"
        raise FrontendUnavailable(frontend_messages.onnx_not_installed(under_pre_commit)) from None
    return frontend


def load(path: str, options: dict) -> LoadedModel:
    """Import a model file: its program and what running it needs (an unreadable file is a
    model whose only diagnostic says why)."""
    frontend = _frontend()
    settings = frontend.ImportOptions(
        batch=options.get("batch"),
        batch_reshapes=bool(options.get("batch_reshapes")),
        strict_dims=bool(options.get("strict_dims")),
    )
    try:
        imported = frontend.import_model(path, settings)
    except frontend.LoadError as failure:
        return LoadedModel(path, None, [failure.diagnostic])
    return LoadedModel(
        path,
        imported.module,
        list(imported.diagnostics),
        _header(imported),
        inputs={spec.name: spec.param for spec in imported.inputs},
        outputs=tuple(imported.outputs),
        constants=dict(imported.constants),
        read_tensor=read_tensor_file,
        tensor_suffixes=(".pb",),
        check=imported.check,
    )


def _header(imported: Any) -> tuple:
    from gradual.frontends.onnx import messages  # the frontend is loaded by now

    lines = [messages.onnx_import_header(imported.path, imported.opset, imported.node_count)]
    if imported.constants:
        lines.append(messages.onnx_constants_header(sorted(imported.constants)))
    if imported.renamed_dims:
        lines.append(messages.onnx_renamed_dims_header(imported.renamed_dims))
    return tuple(lines)


def read_tensor_file(path: str) -> Any:
    """An ONNX TensorProto file (`.pb`) as a NumPy array; raises InputError when unreadable."""
    from onnx import TensorProto, numpy_helper

    from gradual.frontends.onnx import messages  # reading a tensor file needs onnx, as a model does
    from gradual.runtime.errors import InputError

    try:
        with open(path, "rb") as handle:
            tensor = TensorProto()
            tensor.ParseFromString(handle.read())
        return numpy_helper.to_array(tensor)
    except Exception as exc:  # noqa: BLE001 - I/O and protobuf errors alike
        raise InputError(messages.onnx_unreadable_tensor(path, str(exc) or type(exc).__name__)) from None


register_frontend(Frontend("onnx", (".onnx",), load, OPTIONS))
