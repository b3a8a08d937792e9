"""ONNX Runtime is the reference for gradual's `onnx.*` operators.

For every operator declared in stdlib/onnx.rly and stdlib/onnx_models.rly that is an ONNX node
(tests/onnx_reference.py says which node, with ONNX's operand order and attribute names; the
few of gradual's own are listed in NO_NODE with the reason), a call drawn by its generator
(tests/kernel_inputs_onnx*.py, inside its contract) must check clean, ONNX Runtime must run the
same node on the same inputs, and gradual's outputs must equal ONNX Runtime's: the shapes, the
dtypes and the values (floats to a tolerance of their width, integers and booleans exactly);
the type gradual inferred must have ONNX Runtime's static dims.

Calls drawn just outside the contract (tests/domains.py: an operand of another rank or dtype,
an attribute out of its domain, ...) that gradual checks clean and runs must be calls ONNX
Runtime runs too, to the same outputs: where the reference refuses, gradual refuses, statically
or by a check at the call.

An ONNX Runtime that has no kernel for a dtype (its registered type lists are narrower than the
standard's) is not a disagreement: such draws are skipped. `REFERENCE_GAPS` lists the calls
(a predicate per operator) where gradual follows the ONNX standard and ONNX Runtime deviates,
where gradual is wider than a type list the contract language cannot state, or where the
difference is not yet resolved, each with the reason; test_the_reference_gaps_still_disagree
holds each to a disagreement, so a fixed one leaves. `ORT_CRASHES` lists calls that kill ONNX
Runtime's process: they are never handed to it. GRADUAL_REFERENCE_EXAMPLES sets the draws per
operator (docs/contracts.md, "Agreeing with ONNX Runtime").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

import kernel_inputs_onnx  # noqa: F401  (registers the ONNX operators' generators)
import kernel_inputs_onnx_models  # noqa: F401  (registers the generators of ONNX's model operators)
import numpy as np
import pytest
from domains import Call, draw_call
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_inputs import GENERATORS

import gradual
from gradual.ops.registry import default_registry
from gradual.runtime.api import run_elaborated
from gradual.runtime.errors import CheckFailure, RunFailure
from gradual.types import TensorType, TupleType

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from onnx_reference import NO_NODE, NODES, NoKernel, NoNode, compare, node_for, ort_outputs  # noqa: E402

EXAMPLES = int(os.environ.get("GRADUAL_REFERENCE_EXAMPLES", "3"))

DECLARED = sorted(
    name
    for path in ("stdlib/onnx.rly", "stdlib/onnx_models.rly")
    for name in (
        line.split("(")[0].split("[")[0][len("def ") :]
        for line in open(os.path.join(os.path.dirname(__file__), "..", path), encoding="utf-8")
        if line.startswith("def onnx.")
    )
)


@dataclass(frozen=True)
class Gap:
    """Calls (those `when` holds of) on which gradual and ONNX Runtime differ, and why."""

    reason: str
    when: Callable[[Call], bool]
    #: a call the gap describes (operands, attributes), for the gaps random draws seldom reach
    witness: Any = None


def _arg(call: Call, i: int) -> np.ndarray:
    return np.asarray(call.args[i])


def _ellipses_differ(call: Call) -> bool:
    terms = str(call.attrs.get("equation", "")).split("->")[0].split(",")
    dots = {a.ndim - len(t.replace("...", "")) for t, a in zip(terms, call.args[0]) if "..." in t}
    return len(dots) > 1


def _seeded_instance_norm(seed: int) -> tuple:
    """An instance_norm call of one spatial element (values from a seed ONNX Runtime's residue shows on)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((1, 4, 1)) * 2).astype(np.float32)
    scale, bias = ((rng.standard_normal(4) * 2).astype(np.float32) for _ in range(2))
    return [x, scale, bias], {"epsilon": float(np.float32(1e-5))}


def _same_dilated(call: Call) -> bool:
    return str(call.attrs.get("auto_pad")).startswith("SAME") and any(d != 1 for d in call.attrs.get("dilations") or [])


def _pool_gap(call: Call) -> bool:
    """SAME with dilations, or an input without elements but a batch (ONNX Runtime refuses it)."""
    data = _arg(call, 0)
    return _same_dilated(call) or (data.size == 0 and data.ndim > 0 and data.shape[0] != 0)


def _constant_slice(call: Call) -> bool:
    data = _arg(call, 0).astype(np.float64)
    axes = tuple(a % data.ndim for a in call.attrs.get("axes", [0, 2, 3]))
    return bool(data.size) and bool((np.var(data, axis=axes) == 0).any())


#: calls that crash ONNX Runtime's process (a signal, not an error it reports): never handed to it
ORT_CRASHES: dict[str, Gap] = {
    "onnx.einsum": Gap(
        "an operand without elements: ONNX Runtime's Einsum dies of a floating point exception (SIGFPE) where"
        " the standard's sum over no elements is 0, as gradual gives",
        lambda c: any(np.asarray(a).size == 0 for a in c.args[0]) if isinstance(c.args[0], tuple) else False,
    ),
    "onnx.unique": Gap(
        "an input without elements: ONNX Runtime's Unique aborts the process (SIGABRT); the standard's result is"
        " four empty tensors, as gradual gives",
        lambda c: _arg(c, 0).size == 0,
    ),
}

#: where gradual follows the ONNX standard (its text, and its reference implementation,
#: onnx.reference) and ONNX Runtime deviates, or where gradual is deliberately wider
REFERENCE_GAPS: dict[str, Gap] = {
    "onnx.slice": Gap(
        "a negative step with an end of the largest int32 or int64: ONNX Runtime reads it as 'through element 0'"
        " ([0:INT_MAX:-1] of 3 elements is [x0]); the standard clamps the end to d - 1, an empty slice, as gradual does",
        lambda c: (
            bool((_arg(c, 4) < 0).any() if _arg(c, 4).size else False)
            and bool((_arg(c, 2) >= np.iinfo(np.int32).max).any())
        ),
    ),
    "onnx.max_pool": Gap(
        "auto_pad SAME_UPPER or SAME_LOWER with dilations: ONNX Runtime's output size and windows differ from the"
        " standard's (ceil(d / stride) windows over the dilated kernel), which gradual follows; and it refuses an"
        " input without elements unless its batch is 0 (gradual gives the empty result)",
        _pool_gap,
    ),
    "onnx.conv_transpose": Gap(
        "ONNX Runtime refuses input spatial dims of 0 (the standard's output size formula covers them), gives"
        " SAME_UPPER and SAME_LOWER with dilations another size than the standard's input * stride, and refuses an"
        " output_padding not below the stride; the standard bounds it by neither, PyTorch by"
        " max(stride, dilation), as gradual's generator draws it",
        lambda c: (
            0 in _arg(c, 0).shape[2:]
            or _same_dilated(c)
            or any(p >= s for p, s in zip(c.attrs.get("output_padding") or [], c.attrs.get("strides") or [1] * 8))
        ),
    ),
    "onnx.rnn": Gap(
        "ONNX Runtime refuses layout 1 (batch first: 'Batchwise recurrent operations are not supported'); the"
        " standard defines it and gradual runs it. Not yet resolved: an activation that takes an alpha or beta"
        " (ScaledTanh, Affine, HardSigmoid, ...) where activation_alpha or activation_beta is left out: ONNX"
        " Runtime reads 0, gradual the activation's own default (ONNX names none)",
        lambda c: (
            c.attrs.get("layout") == 1
            or (
                bool(c.attrs.get("activations"))
                and (c.attrs.get("activation_alpha") is None or c.attrs.get("activation_beta") is None)
            )
        ),
    ),
    "onnx.quantize": Gap(
        "float64 operands or precision, an int64 x: ONNX's type lists for x (float, float16, bfloat16, int32),"
        " y_scale and precision omit them and ONNX Runtime refuses them; gradual's [T: number, S: float] admit them"
        " (the contract language has no dtype sets narrower than a class);"
        " and block_size with a scale of one element, as onnx.dequantize",
        lambda c: (
            str(_arg(c, 0).dtype) not in ("float32", "float16", "int32")
            or "float64" in (str(_arg(c, 1).dtype), c.attrs.get("precision"))
            or (int(c.attrs.get("block_size", 0)) > 0 and _arg(c, 1).size == 1)
        ),
    ),
    "onnx.dequantize": Gap(
        "block_size with a scale of one element: ONNX Runtime reads such a scale as per tensor and refuses the"
        " block size; the standard's blocked form (a scale of x's rank, ceil(d / block_size) along axis) covers it",
        lambda c: int(c.attrs.get("block_size", 0)) > 0 and _arg(c, 1).size == 1,
        witness=(
            [np.ones(2, np.int8), np.ones(1, np.float32), np.zeros(0, np.int64)],
            {"dtype": "float32", "axis": 0, "block_size": 3},
        ),
    ),
    "onnx.cast": Gap(
        "not yet resolved: a cast to float8_e8m0fnu gives other values under ONNX Runtime than gradual's (round_mode"
        " up, down, nearest); which of the two reads the standard right is still to be settled",
        lambda c: c.attrs.get("dtype") == "float8_e8m0fnu",
    ),
    "onnx.cast_like": Gap(
        "as onnx.cast: to float8_e8m0fnu", lambda c: len(c.args) > 1 and str(_arg(c, 1).dtype) == "float8_e8m0fnu"
    ),
    "onnx.pad": Gap(
        "a constant value of another dtype than data's: ONNX names one type T for both and ONNX Runtime refuses it;"
        " gradual casts the value (the frontend passes an absent value as an empty int64 vector, so the declaration"
        " cannot tie the two dtypes, and the contract language cannot compare dtypes)",
        lambda c: len(c.args) > 2 and _arg(c, 2).size > 0 and _arg(c, 2).dtype != _arg(c, 0).dtype,
        witness=(
            [np.ones(2, np.float64), np.array([1, 1]), np.array(2, np.int32), np.zeros(0, np.int64)],
            {"mode": "constant"},
        ),
    ),
    "onnx.instance_norm": Gap(
        "a single spatial element: ONNX Runtime's variance leaves a float32 rounding residue that 1 / sqrt(epsilon)"
        " magnifies; the standard's (x - mean) is 0 there, as gradual's",
        lambda c: int(np.prod(_arg(c, 0).shape[2:])) == 1,
        witness=_seeded_instance_norm(30),
    ),
    "onnx.layer_norm": Gap(
        "normalized dims without elements: ONNX Runtime refuses them; the standard's function body gives an empty"
        " result, as gradual does",
        lambda c: 0 in _arg(c, 0).shape[int(c.attrs.get("axis", -1)) % max(_arg(c, 0).ndim, 1) :],
    ),
    "onnx.rms_norm": Gap(
        "normalized dims without elements: ONNX Runtime refuses them; the standard's function body gives an empty"
        " result, as gradual does",
        lambda c: _arg(c, 0).size == 0,
    ),
    "onnx.rotary_embedding": Gap(
        "float64: ONNX's type list for T is float, float16 and bfloat16; gradual's [T: float] admits float64"
        " (the contract language has no dtype sets narrower than a class)",
        lambda c: _arg(c, 0).dtype == np.float64,
    ),
    "onnx.max_pool_indices": Gap("as onnx.max_pool", _pool_gap),
    "onnx.avg_pool": Gap("as onnx.max_pool", _pool_gap),
    "onnx.lp_pool": Gap("as onnx.max_pool", _pool_gap),
    "onnx.global_lp_pool": Gap(
        "as onnx.max_pool: an input without elements unless its batch is 0",
        _pool_gap,
        witness=([np.zeros((1, 0, 1), np.float32)], {"p": 1}),
    ),
    "onnx.dynamic_quantize": Gap(
        "an input without elements: ONNX Runtime gives the scale 1; the standard's formula (the range of x and 0,"
        " over 255) gives 0, as gradual does",
        lambda c: _arg(c, 0).size == 0,
    ),
    "onnx.max_unpool": Gap(
        "an output_shape larger than the unpooled shape: ONNX Runtime reads the indices as flat positions in"
        " output_shape; ONNX's reference implementation (and gradual) keeps their coordinates in the unpooled shape",
        lambda c: _arg(c, 2).size > 0,
    ),
    "onnx.conv": Gap(
        "ONNX Runtime refuses dilations with auto_pad SAME_UPPER or SAME_LOWER; the standard defines them"
        " (the pads cover the dilated window) and gradual computes them",
        _same_dilated,
        witness=(
            [np.ones((1, 1, 5, 5), np.float32), np.ones((1, 1, 3, 3), np.float32)],
            {"auto_pad": "SAME_UPPER", "dilations": [2, 2]},
        ),
    ),
    "onnx.affine_grid": Gap(
        "align_corners with a spatial size of 1: ONNX Runtime places the one position at +1; ONNX's reference"
        " (and PyTorch) at -1, as gradual does",
        lambda c: bool(c.attrs.get("align_corners")) and 1 in [int(v) for v in _arg(c, 1)[2:]],
    ),
    "onnx.dft": Gap(
        "an inverse one-sided DFT: ONNX Runtime's result differs from the standard's (its reference implementation's),"
        " which gradual's equals",
        lambda c: bool(c.attrs.get("inverse")) and bool(c.attrs.get("onesided")),
    ),
    "onnx.col2im": Gap(
        "more than two spatial dims: ONNX Runtime's kernel places the blocks elsewhere than ONNX's reference"
        " implementation, which gradual's equals",
        lambda c: _arg(c, 1).size != 2,
    ),
    "onnx.grid_sample": Gap(
        "ONNX Runtime samples 2-D and 3-D grids only (4-D and 5-D inputs), cubic only 2-D; opset 22 defines any"
        " number of spatial dims in every mode",
        lambda c: _arg(c, 0).ndim not in (4, 5) or (_arg(c, 0).ndim == 5 and c.attrs.get("mode") == "cubic"),
    ),
    "onnx.resize": Gap(
        "ONNX Runtime's linear and cubic modes take only 2-D inputs, or inputs whose outer dims keep their size"
        " (bilinear, trilinear, bicubic), exclude_outside only in cubic mode, antialias only in linear and cubic, cubic only of"
        " floats, and keep_aspect_ratio_policy with negative axes gives another size;"
        " the standard resizes any dims and reads those attributes where they apply",
        lambda c: (
            (c.attrs.get("mode") != "nearest" and _arg(c, 0).ndim != 2)
            or (bool(c.attrs.get("exclude_outside")) and c.attrs.get("mode") != "cubic")
            or (bool(c.attrs.get("antialias")) and c.attrs.get("mode") == "nearest")
            or (c.attrs.get("mode") == "cubic" and _arg(c, 0).dtype.kind != "f")
            or (
                c.attrs.get("keep_aspect_ratio_policy", "stretch") != "stretch"
                and any(a < 0 for a in c.attrs.get("axes") or [])
            )
        ),
    ),
    "onnx.lrn": Gap(
        "ONNX Runtime refuses an even size, alpha 0 and inputs of other ranks than 4; the standard defines them (the window is floor((size - 1) / 2)"
        " before and ceil((size - 1) / 2) after the channel)",
        lambda c: (
            int(c.attrs.get("size", 1)) % 2 == 0 or np.float32(c.attrs.get("alpha", 1e-4)) == 0 or _arg(c, 0).ndim != 4
        ),
    ),
    "onnx.mean_variance_norm": Gap(
        "a slice of zero variance: ONNX Runtime divides 0 by 0 (NaN); the standard's function body adds an epsilon"
        " of 1e-9 to the deviation, giving 0, as gradual does",
        _constant_slice,
    ),
    "onnx.einsum": Gap(
        "an ellipsis standing for different numbers of dims in different operands: ONNX Runtime's shape inference"
        " refuses it; the standard broadcasts them, as NumPy (and gradual) do",
        _ellipses_differ,
        witness=([(np.ones((3, 2), np.float32), np.ones((2, 1), np.float32))], {"equation": "...j,...jk->...j"}),
    ),
}


#: operators whose float64 results ONNX Runtime computes in float32 where the standard lets it (an
#: attribute says so): compared to float32's tolerance there
TOLERANCE_OF: dict[str, Callable[[Call], Any]] = {
    "onnx.attention": lambda c: np.float32 if c.attrs.get("softmax_precision") in ("float32", "float16") else None,
}


def _outputs(value: Any) -> list:
    return list(value) if isinstance(value, tuple) else [value]


def _gradual(call: Call) -> tuple:
    """("value", outputs), ("static", message), ("check", message) or ("error", message)."""
    result = gradual.check(call.program())
    if not result.ok:
        return "static", "; ".join(d.message for d in result.errors)[:300], None
    try:
        value = run_elaborated(gradual.elaborate(result), call.inputs())
    except CheckFailure as failure:
        return "check", failure.diagnostic().message[:300], None
    except RunFailure as failure:
        message = failure.diagnostic().message
        return "limit" if "the runtime's limit" in message else "error", message[:300], None
    return "value", _outputs(value), result.functions["main"].type.ret


def _inferred_dims(inferred: Any, j: int) -> Any:
    if isinstance(inferred, TupleType):
        inferred = inferred.fields[j] if j < len(inferred.fields) else None
    return inferred.dims if isinstance(inferred, TensorType) else None


def disagreement(call: Call, inside: bool) -> str:
    """How gradual and ONNX Runtime differ on one call ("" where they agree, where ONNX Runtime
    has no kernel for its types, or, outside the contract, where gradual refuses it)."""
    how, ours, inferred = _gradual(call)
    if how != "value":
        if inside and how == "static":
            return f"{call.describe()}: a call drawn inside the contract does not check: {ours}"
        if how == "error":
            return f"{call.describe()}: gradual stopped inside the operator: {ours}"
        return ""
    crash = ORT_CRASHES.get(call.op)
    if crash is not None and crash.when(call):
        return ""
    try:
        node = node_for(call.op, list(call.args), dict(call.attrs))
    except NoNode:
        return ""
    except Exception:  # an attribute of another kind no ONNX node can carry
        if inside:
            raise
        return ""
    try:
        theirs = ort_outputs(node, tuple(str(np.asarray(o).dtype) for o in ours))
    except NoKernel:
        return ""
    except AssertionError as exc:
        return f"{call.describe()}: gradual runs it, {exc}"
    if len(theirs) > len(ours):
        return f"{call.describe()}: {len(ours)} outputs vs ONNX Runtime's {len(theirs)}"
    for j, (a, b) in enumerate(zip(ours, theirs)):
        problem = compare(a, b, TOLERANCE_OF.get(call.op, lambda c: None)(call))
        if problem:
            return f"{call.describe()}: output {j}: {problem}"
        dims = _inferred_dims(inferred, j)
        if dims is not None and (
            len(dims) != b.ndim
            or any(getattr(d, "is_static", False) and d.get_length() != s for d, s in zip(dims, b.shape))
        ):
            return f"{call.describe()}: output {j}: inferred {dims}, ONNX Runtime gave {b.shape}"
    return ""


def _float32(value: Any) -> Any:
    """An attribute as an ONNX model holds it: its floats are float32."""
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, list):
        return [_float32(v) for v in value]
    return value


def _inside(name: str, draw: Any) -> Call:
    args, attrs = GENERATORS[name](draw)
    args = [tuple(np.asarray(v) for v in a) if isinstance(a, (tuple, list)) else np.asarray(a) for a in args]
    return Call(name, args, {k: _float32(v) for k, v in attrs.items()}, "none", ["static"] * len(args))


def _outside(name: str, draw: Any) -> Call:
    call = draw_call(draw, default_registry().get(name), GENERATORS[name])
    call.written = ["static"] * len(call.args)
    call.attrs = {k: _float32(v) for k, v in call.attrs.items()}
    return call


MAPPED = sorted(NODES)


def test_every_onnx_operator_is_mapped_or_has_no_node() -> None:
    assert set(DECLARED) == set(NODES) | set(NO_NODE), set(DECLARED) ^ (set(NODES) | set(NO_NODE))
    assert not set(NODES) & set(NO_NODE)
    assert set(REFERENCE_GAPS) <= set(NODES)
    missing = [name for name in NODES if name not in GENERATORS]
    assert not missing, f"no input generator: {missing}"


@pytest.mark.parametrize("name", MAPPED)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_onnxruntime_agrees_inside_the_contract(name: str, data: st.DataObject) -> None:
    call = _inside(name, data.draw)
    problem = disagreement(call, inside=True)
    if name in REFERENCE_GAPS and REFERENCE_GAPS[name].when(call) and "inside the" not in problem:
        return
    assert not problem, problem


@pytest.mark.parametrize("name", MAPPED)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_what_onnxruntime_refuses_gradual_refuses(name: str, data: st.DataObject) -> None:
    call = _outside(name, data.draw)
    problem = disagreement(call, inside=False)
    if name in REFERENCE_GAPS and "inside the operator" not in problem:
        try:
            if REFERENCE_GAPS[name].when(call):
                return
        except Exception:  # noqa: BLE001 - a call outside the contract the predicate cannot read
            return
    assert not problem, problem


GAP_EXAMPLES = max(60, 4 * EXAMPLES)


@pytest.mark.parametrize("name", sorted(REFERENCE_GAPS))
def test_the_reference_gaps_still_disagree(name: str) -> None:
    """Some call a gap describes, drawn inside the contract or just outside it, still differs."""
    found: list = []

    @settings(
        max_examples=GAP_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    @given(data=st.data())
    def search(data: st.DataObject) -> None:
        outside = data.draw(st.booleans())
        call = _outside(name, data.draw) if outside else _inside(name, data.draw)
        try:
            described = REFERENCE_GAPS[name].when(call)
        except Exception:  # noqa: BLE001 - a call outside the contract the predicate cannot read
            return
        if described and not found and disagreement(call, inside=not outside):
            found.append(call)

    gap = REFERENCE_GAPS[name]
    if gap.witness is not None:
        args, attrs = gap.witness
        call = Call(name, list(args), dict(attrs), "none", ["static"] * len(args))
        assert gap.when(call), f"{name}: the witness is not a call the gap describes"
        assert disagreement(call, inside=False), f"{name} agrees with ONNX Runtime on its witness: remove the gap"
        return
    search()
    assert found, f"{name} agrees with ONNX Runtime on every call drawn: remove it from REFERENCE_GAPS"
