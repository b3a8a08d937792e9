"""Every operator over its whole domain: a call that checks clean either runs to a result of its
inferred type or stops at a check with blame, never inside an operator.

For each operator with an input generator (tests/kernel_inputs*.py), tests/domains.py draws a
call inside or just outside its contract (an operand of another rank, dtype or a zero dim, a
tuple for a tensor, an attribute out of its domain) and writes it as a program whose parameter
types are static, have `?` dims, or have unknown rank. The program is checked, then run on the
drawn values. Each run must end in one of:

* a static diagnostic (no `internal-error`),
* a failed runtime check (an inserted check, or the operator's contract or rule evaluated on
  the concrete inputs before its kernel: `check-failed`, blamed at the call),
* a resource limit the runtime states (a result larger than it allows),
* a result whose shape and dtype are those the checker inferred (where it inferred them exactly).

Never a kernel error (`runtime-error`), an internal error, or an exception. `DOMAIN_GAPS`
lists the operators that still fail; each family's move to contracts empties its part of it.
GRADUAL_DOMAIN_EXAMPLES sets the draws per operator (`-m deep` runs more).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import kernel_inputs_aten  # noqa: F401  (registers the ATen operators' generators)
import kernel_inputs_onnx  # noqa: F401  (registers the ONNX operators' generators)
import kernel_inputs_onnx_models  # noqa: F401  (registers the generators of ONNX's model operators)
import numpy as np
import pytest
import test_runtime_kernels  # noqa: F401  (registers the Relay operators' generators)
from domains import Call, draw_call
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_inputs import GENERATORS

import gradual
from gradual.ops.registry import default_registry
from gradual.runtime.api import run_elaborated
from gradual.runtime.errors import CheckFailure, KernelFailure, RunFailure
from gradual.types import TensorType

EXAMPLES = int(os.environ.get("GRADUAL_DOMAIN_EXAMPLES", "6"))
DEEP_EXAMPLES = int(os.environ.get("GRADUAL_DOMAIN_DEEP_EXAMPLES", "60"))

#: what the runtime says of a result it will not allocate (runtime/messages.py)
_LIMIT = re.compile(r"^its result")

GAPS_DIR = Path(__file__).parent / "data" / "domain_gaps"


def _gaps() -> frozenset:
    names: set = set()
    for path in sorted(GAPS_DIR.glob("*.txt")):
        names.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return frozenset(names)


#: operators whose contract or rule still lets some call through to a kernel that cannot run
#: it (or to a result of another type), one file per family in tests/data/domain_gaps/; each
#: family's move to contracts removes its names
DOMAIN_GAPS: frozenset = _gaps()


def outcome(call: Call) -> str:
    """How the call ends (see the module docstring); raises AssertionError where it must not."""
    try:
        result = gradual.check(call.program())
    except Exception as exc:  # the property: checking never raises
        raise AssertionError(f"{call.describe()}: check raised {type(exc).__name__}: {exc}") from exc
    internal = [d for d in result.diagnostics if d.code == "internal-error"]
    assert not internal, f"{call.describe()}: {internal[0].message}\n{call.program()}"
    if not result.ok:
        return "static"
    try:
        value = run_elaborated(gradual.elaborate(result), call.inputs())
    except CheckFailure:
        return "check"
    except KernelFailure as failure:
        if failure.code != "internal-error" and _LIMIT.match(failure.detail):
            return "limit"
        diag = failure.diagnostic()
        raise AssertionError(f"{call.describe()}: {diag.code}: {diag.message}\n{call.program()}") from None
    except RunFailure as failure:
        diag = failure.diagnostic()
        raise AssertionError(f"{call.describe()}: {diag.code}: {diag.message}\n{call.program()}") from None
    except Exception as exc:  # the property: running never raises anything else
        raise AssertionError(f"{call.describe()}: run raised {type(exc).__name__}: {exc}\n{call.program()}") from exc
    _same_type(call, result, value)
    return "ok"


def _same_type(call: Call, result: gradual.CheckResult, value: object) -> None:
    """A tensor result has the shape and dtype the checker inferred, where it inferred them."""
    inferred = result.functions["main"].type.ret
    if not isinstance(inferred, TensorType) or not isinstance(value, np.ndarray):
        return
    if isinstance(inferred.dtype, str) and inferred.dtype != "?":
        assert str(value.dtype) == inferred.dtype, f"{call.describe()}: dtype {value.dtype}, inferred {inferred}"
    if inferred.dims is not None:
        assert value.ndim == len(inferred.dims), f"{call.describe()}: shape {value.shape}, inferred {inferred}"
        for size, dim in zip(value.shape, inferred.dims):
            if getattr(dim, "is_static", False):
                assert size == dim.get_length(), f"{call.describe()}: shape {value.shape}, inferred {inferred}"


OPERATORS = sorted(name for name in GENERATORS if default_registry().get(name) is not None)


def _property(name: str, data: st.DataObject) -> None:
    op = default_registry().get(name)
    call = draw_call(data.draw, op, GENERATORS[name])
    if name in DOMAIN_GAPS:
        try:
            outcome(call)
        except AssertionError:
            pass
        return
    outcome(call)


@pytest.mark.parametrize("name", OPERATORS)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_a_clean_check_never_stops_inside_an_operator(name: str, data: st.DataObject) -> None:
    _property(name, data)


@pytest.mark.deep
@pytest.mark.parametrize("name", OPERATORS)
@settings(max_examples=DEEP_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_clean_check_never_stops_inside_an_operator_deep(name: str, data: st.DataObject) -> None:
    _property(name, data)


def test_the_gaps_are_operators_that_still_fail() -> None:
    """Every name in DOMAIN_GAPS is a declared operator with a generator (a fixed one leaves)."""
    assert DOMAIN_GAPS <= set(OPERATORS)
