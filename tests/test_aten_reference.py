"""ATen's declarations against PyTorch: what a contract accepts, torch runs, to the inferred type.

For each ATen operator with an input generator (tests/kernel_inputs_aten.py), a drawn call
(inside the generator's domain, every operand's type written static) is checked and run by
gradual, then handed to `torch.ops.aten` (tests/aten_reference.py says how). Where gradual
checks it clean and runs it to a value, torch must accept the same call (a contract wider than
torch's would let a program check clean that its exported model cannot run), and torch's
result must have the structure, shapes and dtypes of gradual's, which test_domains holds to the
inferred type. Values are compared where `VALUES` says the two agree to tolerance. For the
operators in `OUTSIDE`, half the calls are drawn just outside the generator's domain as
tests/domains.py changes them (an operand's rank or dtype, a zero dim, an attribute out of its
domain), so that a contract wider than torch's shows: what gradual checks clean and runs, torch
must run too, to the same structure, shapes and dtypes.

`REFERENCE_GAPS` lists the operators that still disagree, each with the reason; a fixed one
leaves (test_the_reference_gaps_still_disagree). GRADUAL_REFERENCE_EXAMPLES sets the draws.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import kernel_inputs_aten  # noqa: E402, F401  (registers the ATen operators' generators)
import test_runtime_kernels  # noqa: E402, F401  (registers the Relay generators ATen's aliases draw from)
from aten_reference import NoCounterpart, as_arrays, compare, gradual_result, torch_call  # noqa: E402
from domains import Call, draw_call  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from kernel_inputs import GENERATORS  # noqa: E402

from gradual.ops.registry import default_registry  # noqa: E402

EXAMPLES = int(os.environ.get("GRADUAL_REFERENCE_EXAMPLES", "4"))

#: operator -> why gradual's result still differs from torch's on calls its contract accepts
REFERENCE_GAPS: dict[str, str] = {
    "aten.arange": "gradual's result takes its operands' dtype (the frontend writes them int64 or float32, as torch"
    " infers from Python numbers); torch's Scalars give int64 or the default float dtype whatever their width",
    "aten.einsum": "torch sums integer operands in int64 where the equation reduces (a trace 'ii' of int32 is int64);"
    " gradual keeps the operands' dtype",
    "aten.embedding_bag": "torch's bookkeeping outputs for mode sum depend on which CPU kernel path it takes"
    " (offset2bag is empty or one per index); the bags themselves agree",
    "aten.full_like": "torch refuses a fill value its dtype cannot hold (-1 as uint8); gradual wraps it as NumPy"
    " casts, and a contract cannot yet relate a float attribute to a dtype's range",
    "aten.max_pool2d": "torch's 1-d max pool (max_pool1d, which gradual's max_pool2d also stands for) runs floats"
    " only; gradual pools integers in every rank",
    "aten.pixel_unshuffle": "torch returns an input with a zero dim unchanged, (n, c, h, 0) for (n, c * r^2, h / r, 0)",
}

#: operators whose values are compared too (the rest: structure, shapes and dtypes)
VALUES: frozenset = frozenset(
    {
        "aten.affine_grid_generator",
        "aten.relu",
        "aten.neg",
        "aten.abs",
        "aten.exp",
        "aten.log",
        "aten.sqrt",
        "aten.rsqrt",
        "aten.tanh",
        "aten.sigmoid",
        "aten.erf",
        "aten.floor",
        "aten.ceil",
        "aten.round",
        "aten.sign",
        "aten.sin",
        "aten.cos",
        "aten.reciprocal",
        "aten.silu",
        "aten.mish",
        "aten.hardswish",
        "aten.hardsigmoid",
        "aten.gelu",
        "aten.leaky_relu",
        "aten.hardtanh",
        "aten.elu",
        "aten.softplus",
        "aten.clamp",
        "aten.tan",
        "aten.asin",
        "aten.acos",
        "aten.atan",
        "aten.sinh",
        "aten.cosh",
        "aten.asinh",
        "aten.acosh",
        "aten.atanh",
        "aten.log2",
        "aten.log10",
        "aten.log1p",
        "aten.expm1",
        "aten.exp2",
        "aten.trunc",
        "aten.frac",
        "aten.erfinv",
        "aten.selu",
        "aten.relu6",
        "aten.log_sigmoid",
        "aten.celu",
        "aten.hardshrink",
        "aten.softshrink",
        "aten.threshold",
        "aten.logit",
        "aten.nan_to_num",
        "aten.isinf",
        "aten.isfinite",
        "aten.isneginf",
        "aten.isposinf",
        "aten.signbit",
        "aten.flip",
        "aten.roll",
        "aten.cummax",
        "aten.cummin",
        "aten.logcumsumexp",
        "aten.cumsum",
        "aten.cumprod",
        "aten.logical_not",
        "aten.isnan",
        "aten.bitwise_not",
        "aten.clone",
        "aten.dropout",
        "aten.tril",
        "aten.triu",
        "aten.zero",
        "aten.fill",
        "aten.add",
        "aten.sub",
        "aten.mul",
        "aten.div",
        "aten.floor_divide",
        "aten.remainder",
        "aten.fmod",
        "aten.pow",
        "aten.maximum",
        "aten.minimum",
        "aten.eq",
        "aten.ne",
        "aten.lt",
        "aten.le",
        "aten.gt",
        "aten.ge",
        "aten.logical_and",
        "aten.logical_or",
        "aten.logical_xor",
        "aten.bitwise_and",
        "aten.bitwise_or",
        "aten.bitwise_xor",
        "aten.bitwise_left_shift",
        "aten.bitwise_right_shift",
        "aten.atan2",
        "aten.hypot",
        "aten.heaviside",
        "aten.copysign",
        "aten.logaddexp",
        "aten.xlogy",
        "aten.where",
        "aten.as_strided_scatter",
        "aten.bucketize",
        "aten.cdist",
        "aten.col2im",
        "aten.col2im_sized",
        "aten.cosine_similarity",
        "aten.cross_entropy_loss",
        "aten.diagonal_scatter",
        "aten.dist",
        "aten.gather",
        "aten.gru",
        "aten.gru_cell",
        "aten.im2col",
        "aten.index",
        "aten.index_add",
        "aten.index_copy",
        "aten.index_fill",
        "aten.index_put",
        "aten.index_reduce",
        "aten.lstm",
        "aten.lstm_cell",
        "aten.multi_margin_loss",
        "aten.multilabel_margin_loss",
        "aten.nll_loss",
        "aten.nll_loss_forward",
        "aten.pairwise_distance",
        "aten.pdist",
        "aten.put",
        "aten.rms_norm",
        "aten.rms_norm_sized",
        "aten.rnn_relu",
        "aten.rnn_relu_cell",
        "aten.rnn_tanh",
        "aten.rnn_tanh_cell",
        "aten.scatter",
        "aten.searchsorted",
        "aten.take",
        "aten.take_along_dim",
        "aten.unique_consecutive",
        "aten.unique_dim",
    }
)

#: operators whose calls are also drawn outside their generator's domain (see the docstring)
OUTSIDE: frozenset = frozenset(
    {
        "aten.cdist",
        "aten.cosine_similarity",
        "aten.gather",
        "aten.group_norm",
        "aten.gru_cell",
        "aten.index_add",
        "aten.index_copy",
        "aten.index_fill",
        "aten.index_reduce",
        "aten.instance_norm",
        "aten.lstm_cell",
        "aten.native_group_norm",
        "aten.pairwise_distance",
        "aten.put",
        "aten.rms_norm",
        "aten.rms_norm_sized",
        "aten.rnn_relu_cell",
        "aten.rnn_tanh_cell",
        "aten.scatter",
        "aten.take",
        "aten.take_along_dim",
    }
)

OPERATORS = sorted(name for name in GENERATORS if name.startswith("aten.") and default_registry().get(name) is not None)


def disagreement(name: str, data: st.DataObject) -> str:
    """How gradual and torch differ on one drawn call ("" where they agree or either declines)."""
    op = default_registry().get(name)
    if name in OUTSIDE and data.draw(st.booleans(), label="outside the domain"):
        call = draw_call(data.draw, op, GENERATORS[name])
    else:
        args, attrs = GENERATORS[name](data.draw)
        args = [tuple(np.asarray(v) for v in a) if isinstance(a, (tuple, list)) else np.asarray(a) for a in args]
        call = Call(name, args, dict(attrs), "none", ["static"] * len(args))
    how, ours = gradual_result(call.program(), call.inputs())
    if how in ("static", "check"):
        return ""  # the contract declines the call: torch may accept more (a gradual limit)
    if how == "error":
        return f"{call.describe()}: gradual stopped inside the operator: {ours}"
    try:
        with torch.no_grad():
            theirs = as_arrays(torch_call(op, list(call.args), dict(call.attrs)))
    except NoCounterpart:
        return ""
    except Exception as exc:  # noqa: BLE001  (torch refuses with RuntimeError, IndexError, NotImplementedError, ...)
        return f"{call.describe()}: gradual runs it, torch raises {type(exc).__name__}: {str(exc)[:300]}"
    # values agree where the generator draws; outside its domain only structure, shapes and dtypes
    problem = compare(ours, theirs, values=name in VALUES and call.mutation == "none")
    return f"{call.describe()}: {problem}" if problem else ""


@pytest.mark.parametrize("name", OPERATORS)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_torch_runs_what_the_contract_accepts_to_the_same_type(name: str, data: st.DataObject) -> None:
    problem = disagreement(name, data)
    if name in REFERENCE_GAPS:
        return
    assert not problem, problem


def test_the_reference_gaps_are_aten_operators() -> None:
    assert set(REFERENCE_GAPS) <= set(OPERATORS)
    assert VALUES | OUTSIDE <= set(OPERATORS)
