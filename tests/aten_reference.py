"""Calling PyTorch's ATen operator for a call of gradual's (tests/test_aten_reference.py).

A call is an operator's operands (NumPy arrays; `()` for an absent optional tensor; a tuple for
a SymInt list or a list of tensors) and attributes, as tests/kernel_inputs_aten.py draws them.
`torch_call` runs `torch.ops.aten.<name>` on the same values: arrays become tensors, a tuple of
int64 scalars an int list, `()` None, attributes keywords (dtype names torch dtypes). Where
gradual's declaration merges several ATen overloads or spells an argument its own way
(`aten.max_dim` is `aten.max.dim`; `aten.split`'s `count`), `ADAPTERS` says how torch is called.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

TORCH_DTYPES = {
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "bfloat16": torch.bfloat16,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}


class NoCounterpart(Exception):
    """gradual's operator has no torch call for these arguments (a form of gradual's own)."""


def tensor(value: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.array(value, copy=True))


def operand(value: Any, form: str = "") -> Any:
    """A gradual operand as torch takes it: `()` is None for an optional tensor, [] for a list."""
    if isinstance(value, tuple):
        if not value:
            return [] if form == "list" else None
        if all(isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iu" for v in value):
            return [int(v) for v in value]  # a SymInt list
        return [tensor(v) for v in value]
    return tensor(np.asarray(value))


def attribute(name: str, value: Any) -> Any:
    if name == "dtype":
        return TORCH_DTYPES[value] if value else None
    if isinstance(value, tuple):
        return list(value)
    return value


def _scalar(value: Any) -> Any:
    """A 0-d operand as the Python number torch's `Scalar` arguments take."""
    return None if isinstance(value, tuple) else np.asarray(value).item()


def _ints(value: Any) -> list:
    return [int(v) for v in value]


def _default(op: Any) -> Callable:
    """torch's operator of the same name, every argument given by its name (gradual's
    declarations use ATen's names)."""

    def call(args: list, attrs: dict) -> Any:
        fn = getattr(torch.ops.aten, op.name.split(".", 1)[1])
        forms = op.forms or ("",) * len(args)
        kwargs = {n: operand(a, f) for n, a, f in zip(op.param_names, args, forms)}
        kwargs.update({k: attribute(k, v) for k, v in attrs.items() if not (k == "dtype" and not v)})
        return fn(**kwargs)

    return call


def _like(args: list, attrs: dict, fn: Callable) -> Any:
    dtype = attribute("dtype", attrs.get("dtype", ""))
    return fn(*[operand(a) for a in args], dtype=dtype) if dtype is not None else fn(*[operand(a) for a in args])


def _reduce(fn: Callable, *names: str) -> Callable:
    def call(args: list, attrs: dict) -> Any:
        kwargs = {n: attribute(n, attrs[n]) for n in names if n in attrs and not (n == "dtype" and not attrs[n])}
        dim = attrs.get("dim")
        if dim is not None:
            kwargs["dim"] = list(dim) if isinstance(dim, (list, tuple)) else dim
        return fn(operand(args[0]), **kwargs)

    return call


def _split(args: list, attrs: dict) -> Any:
    x = operand(args[0])
    if attrs.get("chunks"):
        return torch.ops.aten.chunk(x, attrs["chunks"], attrs.get("dim", 0))
    return torch.ops.aten.split.Tensor(x, attrs["split_size"], attrs.get("dim", 0))


def _index(args: list, attrs: dict) -> Any:
    x = operand(args[0])
    slots: list = [None] * x.dim()
    for at, index in zip(attrs["dims"], args[1]):
        slots[at] = tensor(index)
    while slots and slots[-1] is None:
        slots.pop()
    return x, slots


def _index_op(args: list, attrs: dict) -> Any:
    x, slots = _index(args, attrs)
    return torch.ops.aten.index.Tensor(x, slots)


def _index_put(args: list, attrs: dict) -> Any:
    x, slots = _index(args, attrs)
    return torch.ops.aten.index_put(x, slots, operand(args[2]), attrs.get("accumulate", False))


def _upsample(args: list, attrs: dict) -> Any:
    raise NoCounterpart("aten.upsample merges torch's upsample_* operators")


def _dims(attrs: dict) -> list:
    dim = attrs.get("dim")
    return [] if dim is None else list(dim) if isinstance(dim, (list, tuple)) else [dim]


def _reduce_all(fn: Callable, *, dtype: bool = True) -> Callable:
    """A reduction whose `dim` may be None or [] (every dim): torch's dim-list overloads."""

    def call(args: list, attrs: dict) -> Any:
        kwargs: dict = {"keepdim": attrs.get("keepdim", False)}
        if dtype and attrs.get("dtype"):
            kwargs["dtype"] = TORCH_DTYPES[attrs["dtype"]]
        x = operand(args[0])
        dims = _dims(attrs) if attrs.get("dim") is not None else list(range(x.dim()))
        return fn(x, dims, **kwargs)

    return call


def _prod(args: list, attrs: dict) -> Any:
    x = operand(args[0])
    dtype = TORCH_DTYPES[attrs["dtype"]] if attrs.get("dtype") else None
    dims = _dims(attrs)
    if len(dims) == 1:
        return torch.ops.aten.prod.dim_int(x, dims[0], attrs.get("keepdim", False), dtype=dtype)
    if dims:
        raise NoCounterpart("torch's prod reduces one dim or all of them")
    out = torch.ops.aten.prod(x, dtype=dtype)
    return out.reshape([1] * x.dim()) if attrs.get("keepdim") else out


def _pool_indices(args: list, attrs: dict) -> Any:
    """gradual's max_pool2d_with_indices also stands for torch's 1-d and 3-d pools (their window
    lists' length says which); torch's 1-d pool has no indices form."""
    k = len(attrs["kernel_size"])
    fn = {2: torch.ops.aten.max_pool2d_with_indices, 3: torch.ops.aten.max_pool3d_with_indices}.get(k)
    if fn is None:
        raise NoCounterpart("torch's 1-d max pool returns no indices")
    lists = {n: list(attrs.get(n, d)) for n, d in (("stride", []), ("padding", [0]), ("dilation", [1]))}
    return fn(operand(args[0]), list(attrs["kernel_size"]), **lists, ceil_mode=attrs.get("ceil_mode", False))


def _pool(args: list, attrs: dict) -> Any:
    k = len(attrs["kernel_size"])
    fn = {1: torch.ops.aten.avg_pool1d, 2: torch.ops.aten.avg_pool2d, 3: torch.ops.aten.avg_pool3d}[k]
    kwargs = {"stride": list(attrs.get("stride", [])), "padding": list(attrs.get("padding", [0]))}
    kwargs["ceil_mode"] = attrs.get("ceil_mode", False)
    kwargs["count_include_pad"] = attrs.get("count_include_pad", True)
    if k > 1:
        kwargs["divisor_override"] = attrs.get("divisor_override")
    elif attrs.get("divisor_override") is not None:
        raise NoCounterpart("torch's 1-d average pool has no divisor_override")
    return fn(operand(args[0]), list(attrs["kernel_size"]), **kwargs)


def _class_loss(forward: bool) -> Callable:
    """nll_loss over (n, c) or (c,), nll_loss2d over (n, c, h, w) (gradual's nll_loss is both);
    other ranks: torch's nll_loss_nd reshapes to these."""

    def call(args: list, attrs: dict) -> Any:
        x, target, weight = operand(args[0]), operand(args[1]), operand(args[2])
        rest = (attrs.get("reduction", 1), attrs.get("ignore_index", -100))
        if x.dim() <= 2:
            fn = torch.ops.aten.nll_loss_forward if forward else torch.ops.aten.nll_loss
        elif x.dim() == 4:
            fn = torch.ops.aten.nll_loss2d_forward if forward else torch.ops.aten.nll_loss2d
        elif not forward:
            return torch.ops.aten.nll_loss_nd(x, target, weight, *rest)
        else:
            raise NoCounterpart("torch's nll_loss_forward takes (n, c) or (c,) only")
        return fn(x, target, weight, *rest)

    return call


def _softmax(fn: Callable) -> Callable:
    return lambda a, k: fn(operand(a[0]), k["dim"], k.get("half_to_float", False))


def _scatter(args: list, attrs: dict) -> Any:
    x, index, src = operand(args[0]), operand(args[1]), operand(args[2])
    reduce = attrs.get("reduce", "none")
    if reduce == "none":
        return torch.ops.aten.scatter.src(x, attrs["dim"], index, src)
    return torch.ops.aten.scatter_reduce.two(
        x, attrs["dim"], index, src, reduce, include_self=attrs.get("include_self", True)
    )


def _count_nonzero(args: list, attrs: dict) -> Any:
    """torch's count_nonzero keeps no dims; gradual's keepdim keeps the counted ones as 1."""
    x = operand(args[0])
    dims = [d % max(x.dim(), 1) for d in _dims(attrs)] or list(range(x.dim()))
    out = torch.ops.aten.count_nonzero.dim_IntList(x, list(attrs.get("dim") or []))
    if attrs.get("keepdim"):
        for d in sorted(dims):
            out = out.unsqueeze(d) if x.dim() else out
    return out


ADAPTERS: dict = {
    "aten.max_dim": lambda a, k: torch.ops.aten.max.dim(operand(a[0]), k["dim"], k.get("keepdim", False)),
    "aten.min_dim": lambda a, k: torch.ops.aten.min.dim(operand(a[0]), k["dim"], k.get("keepdim", False)),
    "aten.median_dim": lambda a, k: torch.ops.aten.median.dim(operand(a[0]), k["dim"], k.get("keepdim", False)),
    "aten.split": _split,
    "aten.unbind": lambda a, k: torch.ops.aten.unbind(operand(a[0]), k.get("dim", 0)),
    "aten.index": _index_op,
    "aten.index_put": _index_put,
    "aten.clamp": lambda a, k: (
        torch.ops.aten.clamp(operand(a[0]), _scalar(a[1]), _scalar(a[2]))
        if all(isinstance(v, tuple) or np.ndim(v) == 0 for v in a[1:])
        else torch.ops.aten.clamp.Tensor(operand(a[0]), operand(a[1]), operand(a[2]))
    ),
    "aten.var": _reduce(torch.ops.aten.var.correction, "correction", "keepdim"),
    "aten.std": _reduce(torch.ops.aten.std.correction, "correction", "keepdim"),
    "aten.any": _reduce(torch.ops.aten.any.dims, "keepdim"),
    "aten.all": _reduce(torch.ops.aten.all.dims, "keepdim"),
    "aten.count_nonzero": _count_nonzero,
    "aten._to_copy": lambda a, k: _like(a, k, torch.ops.aten._to_copy),
    "aten.zeros_like": lambda a, k: _like(a, k, torch.ops.aten.zeros_like),
    "aten.ones_like": lambda a, k: _like(a, k, torch.ops.aten.ones_like),
    "aten.upsample": _upsample,
    "aten.view": lambda a, k: torch.ops.aten.view(operand(a[0]).contiguous(), _ints(a[1])),
    "aten.repeat_sized": lambda a, k: torch.ops.aten.repeat(operand(a[0]), _ints(a[1])),
    "aten.pad_sized": lambda a, k: torch.ops.aten.pad(
        operand(a[0]),
        _ints(a[1]),
        k.get("mode", "constant"),
        k.get("value", 0.0) if k.get("mode", "constant") == "constant" else None,
    ),
    "aten.pad": lambda a, k: torch.ops.aten.pad(
        operand(a[0]),
        list(k["pad"]),
        k.get("mode", "constant"),
        k.get("value", 0.0) if k.get("mode", "constant") == "constant" else None,
    ),
    "aten.layer_norm_sized": lambda a, k: torch.ops.aten.layer_norm(
        operand(a[0]), _ints(a[3]), operand(a[1]), operand(a[2]), k.get("eps", 1e-5)
    ),
    "aten.layer_norm": lambda a, k: torch.ops.aten.layer_norm(
        operand(a[0]), list(k["normalized_shape"]), operand(a[1]), operand(a[2]), k.get("eps", 1e-5)
    ),
    "aten.native_layer_norm": lambda a, k: torch.ops.aten.native_layer_norm(
        operand(a[0]), list(k["normalized_shape"]), operand(a[1]), operand(a[2]), k.get("eps", 1e-5)
    ),
    "aten.native_layer_norm_sized": lambda a, k: torch.ops.aten.native_layer_norm(
        operand(a[0]), _ints(a[3]), operand(a[1]), operand(a[2]), k.get("eps", 1e-5)
    ),
    "aten.rms_norm_sized": lambda a, k: torch.ops.aten.rms_norm(
        operand(a[0]), _ints(a[2]), operand(a[1]), k.get("eps")
    ),
    "aten.rms_norm": lambda a, k: torch.ops.aten.rms_norm(
        operand(a[0]), list(np.atleast_1d(k["normalized_shape"])), operand(a[1]), k.get("eps")
    ),  # a list attribute given one int is that int's list in gradual, as in torch's IntList
    "aten.col2im_sized": lambda a, k: torch.ops.aten.col2im(
        operand(a[0]), _ints(a[1]), list(k["kernel_size"]), list(k["dilation"]), list(k["padding"]), list(k["stride"])
    ),
    "aten.repeat_interleave_by": lambda a, k: torch.ops.aten.repeat_interleave.self_Tensor(
        operand(a[0]), operand(a[1]), k.get("dim")
    ),
    "aten.repeat_interleave": lambda a, k: torch.ops.aten.repeat_interleave.self_int(
        operand(a[0]), k["repeats"], k.get("dim")
    ),
    "aten.sym_size": lambda a, k: torch.tensor(operand(a[0]).size(k["dim"])),
    "aten.sym_numel": lambda a, k: torch.tensor(operand(a[0]).numel()),
    "aten.item": lambda a, k: torch.tensor(torch.ops.aten.item(operand(a[0])), dtype=operand(a[0]).dtype),
    "aten.amax": _reduce_all(torch.ops.aten.amax, dtype=False),
    "aten.amin": _reduce_all(torch.ops.aten.amin, dtype=False),
    "aten.logsumexp": _reduce_all(torch.ops.aten.logsumexp, dtype=False),
    "aten.sum": _reduce_all(torch.ops.aten.sum.dim_IntList),
    "aten.mean": _reduce_all(torch.ops.aten.mean.dim),
    "aten.prod": _prod,
    "aten.round": lambda a, k: (
        torch.ops.aten.round.decimals(operand(a[0]), decimals=k["decimals"])
        if k.get("decimals")
        else torch.ops.aten.round(operand(a[0]))
    ),
    "aten.squeeze": lambda a, k: (
        torch.ops.aten.squeeze(operand(a[0]))
        if k.get("dim") is None
        else torch.ops.aten.squeeze.dims(operand(a[0]), _dims(k))
    ),
    "aten.broadcast_tensors": lambda a, k: torch.ops.aten.broadcast_tensors([tensor(v) for v in a[0]]),
    "aten.einsum": lambda a, k: torch.ops.aten.einsum(k["equation"], [tensor(v) for v in a[0]]),
    "aten.stack": lambda a, k: torch.ops.aten.stack([tensor(v) for v in a[0]], k.get("dim", 0)),
    "aten.cat": lambda a, k: torch.ops.aten.cat([tensor(v) for v in a[0]], k.get("dim", 0)),
    "aten.max_pool2d": lambda a, k: getattr(torch.ops.aten, f"max_pool{len(k['kernel_size'])}d")(
        operand(a[0]),
        list(k["kernel_size"]),
        list(k.get("stride", [])),
        list(k.get("padding", [0])),
        list(k.get("dilation", [1])),
        k.get("ceil_mode", False),
    ),
    "aten.arange": lambda a, k: torch.ops.aten.arange.start_step(
        *[_scalar(v) for v in a], dtype=TORCH_DTYPES[k["dtype"]] if k.get("dtype") else None
    ),
    "aten.max_pool2d_with_indices": _pool_indices,
    "aten.avg_pool2d": _pool,
    "aten.batch_norm": lambda a, k: torch.ops.aten.batch_norm(
        *[operand(v) for v in a], k.get("training", False), k.get("momentum", 0.1), k.get("eps", 1e-5), True
    ),
    "aten.instance_norm": lambda a, k: torch.ops.aten.instance_norm(
        operand(a[0]), operand(a[1]), operand(a[2]), None, None, True, 0.1, k.get("eps", 1e-5), False
    ),
    "aten.native_group_norm": lambda a, k: torch.ops.aten.native_group_norm(
        operand(a[0]),
        operand(a[1]),
        operand(a[2]),
        a[0].shape[0],
        a[0].shape[1],
        int(np.prod(a[0].shape[2:])),
        k["group"],
        k.get("eps", 1e-5),
    ),
    "aten.eye": lambda a, k: (
        torch.ops.aten.eye(int(a[0]), dtype=TORCH_DTYPES[k.get("dtype", "float32")])
        if isinstance(a[1], tuple)
        else torch.ops.aten.eye.m(int(a[0]), int(a[1]), dtype=TORCH_DTYPES[k.get("dtype", "float32")])
    ),
    "aten.softmax": _softmax(torch.ops.aten._softmax),
    "aten.log_softmax": _softmax(torch.ops.aten._log_softmax),
    "aten.scatter": _scatter,
    "aten.nll_loss": _class_loss(False),
    "aten.nll_loss_forward": _class_loss(True),
    "aten.batch_norm_batch_stats": lambda a, k: _no(a, k, "a form of gradual's own (instance norm's core)"),
}


def _no(args: list, attrs: dict, why: str) -> Any:
    raise NoCounterpart(why)


def torch_call(op: Any, args: list, attrs: dict) -> Any:
    """torch's result for a call of gradual's operator `op`; NoCounterpart where none is
    defined; torch's own exception (RuntimeError, IndexError, ...) where it rejects the inputs."""
    adapter = ADAPTERS.get(op.name) or _default(op)
    return adapter(list(args), dict(attrs))


def as_arrays(value: Any) -> Any:
    """torch's result as gradual's: tensors as arrays, lists as tuples."""
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bfloat16:
            value = value.float()
        return value.detach().numpy()
    if isinstance(value, (list, tuple)):
        return tuple(as_arrays(v) for v in value)
    if isinstance(value, (bool, int, float)):
        return np.asarray(value)
    return value


def gradual_result(program: str, inputs: dict) -> tuple:
    """("value", result) where gradual checks and runs the call; ("static", message) where the
    checker rejects it; ("check", message) where a runtime check stops it; ("error", message)
    where it stops otherwise (a kernel error: never right)."""
    import gradual
    from gradual.runtime.api import run_elaborated
    from gradual.runtime.errors import CheckFailure, RunFailure

    result = gradual.check(program)
    if not result.ok:
        return ("static", "; ".join(d.message for d in result.errors)[:300])
    try:
        return ("value", run_elaborated(gradual.elaborate(result), inputs))
    except CheckFailure as failure:
        return ("check", failure.diagnostic().message[:300])
    except RunFailure as failure:
        return ("error", failure.diagnostic().message[:300])


def compare(ours: Any, theirs: Any, rtol: float = 1e-4, atol: float = 1e-5, values: bool = True) -> str:
    """Where gradual's value differs from torch's ("" where they agree): structure, shape,
    dtype, then (where `values`) the values (NaN equal to NaN; floats within tolerance, as float16 to its own)."""
    if isinstance(theirs, tuple) or isinstance(ours, tuple):
        if not (isinstance(theirs, tuple) and isinstance(ours, tuple)) or len(theirs) != len(ours):
            return f"structure: {type(ours).__name__} vs torch's {type(theirs).__name__}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            problem = compare(a, b, rtol, atol, values)
            if problem:
                return f"field {i}: {problem}"
        return ""
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.shape != b.shape:
        return f"shape {a.shape} vs torch's {b.shape}"
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} vs torch's {b.dtype}"
    if not values:
        return ""
    if a.dtype.kind in "fc":
        tol = (1e-2, 1e-2) if a.dtype == np.float16 else (rtol, atol)
        ok = np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol[0], atol=tol[1], equal_nan=True)
    else:
        ok = np.array_equal(a, b)
    if not ok:
        return f"values differ (max |diff| {np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.size else 0})"
    return ""
