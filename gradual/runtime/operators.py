"""One operator call at runtime: shape rule first, then the kernel, then agreement (spec §3.10).

Before a kernel runs, the operator's rule (or signature) runs on the concrete inputs through
`ConcreteContext`: a violated constraint stops the program with `check-failed` at the call
(this is how two unknown dims that do not broadcast are caught). The kernel's output must then
have exactly the shape, dtype and shape values the rule computed, or the run stops with
`internal-error`: the kernel and the rule disagree, which is a bug in gradual.
"""

from __future__ import annotations

import inspect
import os
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from gradual.diagnostics.codes import INTERNAL_ERROR, RUNTIME_ERROR
from gradual.ops.context import RuleFailure
from gradual.ops.registry import Operator
from gradual.ops.signature import apply_operator
from gradual.ops.tables import KERNELS
from gradual.runtime import messages
from gradual.runtime.context import ConcreteContext, RTensor, RTuple, Unknown
from gradual.runtime.errors import KernelFailure, OperatorCheckFailure
from gradual.runtime.values import Frame, describe_value, dtype_name
from gradual.syntax.source import Span
from gradual.types import DYN_DTYPE, Type


def run_operator(op: Operator, args: Sequence[Any], attrs: dict, span: Span, frame: Optional[Frame] = None) -> Any:
    """Run one call of `op`: rule, kernel, agreement check (see the module docstring)."""
    expected = expected_result(op, args, attrs, span, frame)
    kernel = op.kernel or KERNELS.get(op.name)
    if kernel is None:
        raise KernelFailure(RUNTIME_ERROR, span, op.name, messages.runtime_no_kernel_detail(op.name), _inputs(args))
    needed = result_bytes(expected)
    if needed > tensor_byte_limit():
        raise KernelFailure(
            RUNTIME_ERROR,
            span,
            op.name,
            messages.runtime_too_large(needed, tensor_byte_limit()),
            _inputs(args),
            help=messages.runtime_too_large_help(LIMIT_VARIABLE),
        )
    if result_bytes(expected, skip_zeros=True) > INDEX_LIMIT:
        raise KernelFailure(
            RUNTIME_ERROR,
            span,
            op.name,
            messages.runtime_beyond_indexing(INDEX_LIMIT),
            _inputs(args),
            help=messages.runtime_beyond_indexing_help(),
        )
    if result_rank(expected) > RANK_LIMIT:
        raise KernelFailure(
            RUNTIME_ERROR,
            span,
            op.name,
            messages.runtime_beyond_rank(result_rank(expected), RANK_LIMIT),
            _inputs(args),
            help=messages.runtime_beyond_rank_help(),
        )
    try:
        output = call_kernel(kernel, op.name, args, attrs, span)
    except RuleFailure as failure:  # the kernel's own check of data no contract can state
        raise OperatorCheckFailure(
            span, op.name, failure.code, failure.facts, _inputs(args), op.signature_text
        ) from None
    problem = disagreement(expected, output)
    if problem is not None:
        raise KernelFailure(INTERNAL_ERROR, span, op.name, problem, _inputs(args))
    return output


def expected_result(op: Operator, args: Sequence[Any], attrs: dict, span: Span, frame: Optional[Frame] = None) -> Any:
    """The rule's result on the concrete inputs (RTensor / RTuple / Type); a violated
    constraint raises OperatorCheckFailure blamed at the call."""
    ctx = ConcreteContext(op.name, args, attrs, frame)
    try:
        return apply_operator(ctx, op)
    except RuleFailure as failure:
        raise OperatorCheckFailure(
            span, op.name, failure.code, failure.facts, _inputs(args), op.signature_text
        ) from None
    except ZeroDivisionError:  # sizes divided by a size that is 0 on these inputs
        raise OperatorCheckFailure(
            span, op.name, "bad-divisor", {"divisor": 0}, _inputs(args), op.signature_text
        ) from None
    except Exception as exc:  # noqa: BLE001 - a rule that crashes on concrete sizes is a bug in gradual
        raise KernelFailure(INTERNAL_ERROR, span, op.name, messages.runtime_rule_crash(exc), _inputs(args)) from None


LIMIT_VARIABLE = "GRADUAL_MAX_TENSOR_BYTES"
DEFAULT_LIMIT = 1 << 30


def tensor_byte_limit() -> int:
    """The largest tensor an operator may produce, in bytes: 1 GiB unless the environment
    variable GRADUAL_MAX_TENSOR_BYTES says otherwise (a program that doubles a tensor a
    million times stops with a diagnostic instead of exhausting the machine's memory)."""
    text = os.environ.get(LIMIT_VARIABLE, "")
    return int(text) if text.isdigit() else DEFAULT_LIMIT


#: NumPy's largest extent (elements times item size) of an array, even an empty one: it
#: multiplies the nonzero dims first, so a (2**62, 4, 0) tensor is "too big" though it holds nothing
INDEX_LIMIT = np.iinfo(np.intp).max


#: NumPy's largest number of dims (64 since NumPy 2; 32 before)
RANK_LIMIT = getattr(np, "MAXDIMS", None) or (64 if int(np.__version__.split(".")[0]) >= 2 else 32)


def result_rank(expected: Any) -> int:
    """The largest rank among a rule's results (0 where unknown)."""
    if isinstance(expected, RTuple):
        return max((result_rank(f) for f in expected.fields), default=0)
    if not isinstance(expected, RTensor) or expected.dims is None:
        return 0
    return len(expected.dims)


def result_bytes(expected: Any, skip_zeros: bool = False) -> int:
    """The bytes a rule's result will occupy at least: a data-dependent size counts as its
    lower bound (`bincount`'s minlength: a result of 10^9 counts was allocated, 8 GB, not
    stopped); `skip_zeros`: of its nonzero dims (the largest tensor's, for a tuple), which
    NumPy must be able to index."""
    if isinstance(expected, RTuple):
        sizes = [result_bytes(f, skip_zeros) for f in expected.fields]
        return max(sizes, default=0) if skip_zeros else sum(sizes)
    if not isinstance(expected, RTensor) or expected.dims is None:
        return 0
    count = 1
    for d in expected.dims:
        if isinstance(d, Unknown):
            d = d.lo
        elif not isinstance(d, int):
            return 0
        if d or not skip_zeros:
            count *= d
    return count * _itemsize(expected.dtype)


def _itemsize(dtype: Any) -> int:
    try:
        return np.dtype(dtype).itemsize if isinstance(dtype, str) else 1
    except (TypeError, ValueError):
        return 1


def call_kernel(kernel: Callable[..., Any], name: str, args: Sequence[Any], attrs: dict, span: Span) -> Any:
    """Call a kernel with the tensor arguments positionally and the attributes it names by
    keyword; NumPy failures become `runtime-error` diagnostics."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "mean of empty slice" is no failure
            output = kernel(*args, **kernel_attrs(kernel, attrs))
    except RuleFailure:
        raise  # a kernel that checks its data (`data_index`): a check failure, blamed at the call
    except (ArithmeticError, ValueError, TypeError, IndexError, MemoryError) as exc:
        raise KernelFailure(RUNTIME_ERROR, span, name, messages.runtime_kernel_exception(exc), _inputs(args)) from None
    except Exception as exc:  # noqa: BLE001 - a kernel that crashes otherwise is a bug in gradual, still no traceback
        raise KernelFailure(INTERNAL_ERROR, span, name, messages.runtime_kernel_crash(exc), _inputs(args)) from None
    return as_value(output)


def as_value(output: Any) -> Any:
    """A kernel's output as a runtime value (NumPy scalars become 0-d arrays)."""
    if isinstance(output, tuple):
        return tuple(as_value(o) for o in output)
    if isinstance(output, list):
        return tuple(as_value(o) for o in output)
    return np.asarray(output)


_ACCEPTED: dict = {}


def kernel_attrs(kernel: Callable[..., Any], attrs: dict) -> dict:
    """The attributes a kernel accepts: those it names, or all of them if it takes **kwargs."""
    accepted = _ACCEPTED.get(kernel)
    if accepted is None:
        accepted = _ACCEPTED[kernel] = _accepted_names(kernel)
    if accepted is all:
        return dict(attrs)
    return {k: v for k, v in attrs.items() if k in accepted}


def _accepted_names(kernel: Callable[..., Any]) -> Any:
    try:
        params = inspect.signature(kernel).parameters.values()
    except (TypeError, ValueError):
        return all
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return all
    return frozenset(
        p.name for p in params if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    )


# agreement -------------------------------------------------------------------------------------
def disagreement(expected: Any, output: Any, where: str = "") -> Optional[str]:
    """Why a kernel's output differs from the rule's result, or None when they agree."""
    if isinstance(expected, RTuple):
        if not isinstance(output, tuple) or len(output) != len(expected.fields):
            return messages.runtime_disagreement(where, "a tuple of %d" % len(expected.fields), describe_value(output))
        for i, (e, o) in enumerate(zip(expected.fields, output)):
            problem = disagreement(e, o, f"{where}field {i} of ")
            if problem is not None:
                return problem
        return None
    if isinstance(expected, RTensor):
        return _tensor_disagreement(expected, output, where)
    if isinstance(expected, Type):
        return None
    return messages.runtime_disagreement(where, repr(expected), describe_value(output))


def _tensor_disagreement(expected: RTensor, output: Any, where: str) -> Optional[str]:
    if not isinstance(output, np.ndarray):
        return messages.runtime_disagreement(where, "a tensor", describe_value(output))
    if not _same_shape(expected.dims, output.shape) or not _same_dtype(expected.dtype, output):
        return messages.runtime_disagreement(where, format_rule_tensor(expected), describe_value(output))
    return _value_disagreement(expected, output, where)


def _same_shape(dims: Optional[list], shape: tuple) -> bool:
    if dims is None:
        return True
    if len(dims) != len(shape):
        return False
    return all(d.contains(size) if isinstance(d, Unknown) else int(d) == size for d, size in zip(dims, shape))


def _same_dtype(dtype: Any, output: np.ndarray) -> bool:
    return not isinstance(dtype, str) or dtype in (DYN_DTYPE, "") or dtype == dtype_name(output)


def _value_disagreement(expected: RTensor, output: np.ndarray, where: str) -> Optional[str]:
    """Shape values the rule computed must be the kernel's elements (integer outputs only)."""
    if expected.value is None or output.dtype.kind not in "iu" or output.size != len(expected.value):
        return None
    if any(isinstance(v, Unknown) for v in expected.value):
        return None
    computed = [int(v) for v in expected.value]
    produced = [int(v) for v in output.reshape(-1)]
    if computed != produced:
        return messages.runtime_value_disagreement(where, computed, produced)
    return None


def format_rule_tensor(t: RTensor) -> str:
    """A rule's concrete result as a type: `Tensor[(2, 0..12), int64]`."""
    dtype = t.dtype if isinstance(t.dtype, str) and t.dtype else "?"
    if t.dims is None:
        return f"Tensor[*, {dtype}]"
    shown = [repr(d) if isinstance(d, Unknown) else str(int(d)) for d in t.dims]
    if not shown and dtype != "?":
        return dtype
    inner = ", ".join(shown) + ("," if len(shown) == 1 else "")
    return f"Tensor[({inner}), {dtype}]"


def _inputs(args: Sequence[Any]) -> str:
    return ", ".join(describe_value(a) for a in args)
