"""Words every frontend shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradual.diagnostics import Diagnostic, codes

if TYPE_CHECKING:
    from gradual.frontends.limits import Limit
    from gradual.syntax.source import Span


#: what a frontend's unsupported-dtype diagnostic says the runtime holds
RUNNABLE_DTYPES = "gradual runs bool, int8 to int64, uint8 to uint64, float16, bfloat16, float32 and float64"


def model_unknown_input(name: str, available: list) -> str:
    """An input given by a name that is not one of an imported model's inputs."""
    have = ", ".join(f"`{a}`" for a in available) or "none"
    return f"the model has no input `{name}` (inputs: {have})"


def onnx_not_installed(under_pre_commit: bool = False) -> str:
    """The `onnx` package is missing (the frontend is an optional extra); under pre-commit,
    whose hook environment the user does not install into, what to write in its config."""
    if under_pre_commit:
        return (
            "reading ONNX models needs the `onnx` package, which the `gradual-check` hook leaves out: "
            "use the hook `gradual-check-models` instead (it installs onnx), or give this hook "
            '`additional_dependencies: ["onnx>=1.14"]` in .pre-commit-config.yaml'
        )
    return "reading ONNX models needs the `onnx` package: pip install 'gradual[onnx]'"


def past_limit(span: Span, reading: str, detail: str, limit: Limit, label: str = "this file") -> Diagnostic:
    """A part of a model file past one of the import limits (gradual/frontends/limits.py):
    `reading` says as what the file was read, `detail` names the part and the limit."""
    from gradual.frontends.limits import how_to_raise

    return Diagnostic(
        codes.INPUT_ERROR,
        f"cannot read the file as {reading}: {detail}",
        span,
        label=label,
        help=how_to_raise(limit),
        facts={"limit": limit.variable},
    )
