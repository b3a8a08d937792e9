"""Conversions of jaxpr primitives into gradual's operators (see converter.py).

Each takes the converter, the equation, its operands as expressions and the equation's
location, and returns an expression (a list of them for several outputs), or None where it
cannot convert this use (the checker then reports the primitive at the equation's line).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from gradual import builder as gb
from gradual.frontends.jax import dims
from gradual.frontends.jax.converter import PRIMITIVES, Converter, dtype_of

Loc = Optional[gb.Loc]

UNARY = {
    "neg": "negative",
    "exp": "exp",
    "log": "log",
    "tanh": "tanh",
    "logistic": "sigmoid",
    "sqrt": "sqrt",
    "rsqrt": "rsqrt",
    "abs": "abs",
    "sign": "sign",
    "floor": "floor",
    "ceil": "ceil",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "sinh": "sinh",
    "cosh": "cosh",
    "asinh": "asinh",
    "acosh": "acosh",
    "atanh": "atanh",
    "erf": "erf",
    "erf_inv": "aten.erfinv",
    "log1p": "aten.log1p",
    "expm1": "aten.expm1",
    "is_finite": "isfinite",
    "copy": "copy",
    "copy_p": "copy",
}

BINARY = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
    "rem": "mod",
    "max": "maximum",
    "min": "minimum",
    "pow": "power",
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
    "shift_left": "left_shift",
    "shift_right_arithmetic": "right_shift",
}

LOGICAL = {
    "and": ("logical_and", "bitwise_and"),
    "or": ("logical_or", "bitwise_or"),
    "xor": ("logical_xor", "bitwise_xor"),
}

#: primitives that only annotate a value (sharding, precision, the end of a scope)
IDENTITY = ("sharding_constraint", "mesh_cast", "pvary", "reduce_precision", "optimization_barrier", "stop_gradient")

REDUCE = {"reduce_sum": "sum", "reduce_max": "max", "reduce_min": "min", "reduce_prod": "prod"}


def _register() -> None:
    for prim, op in UNARY.items():
        PRIMITIVES[prim] = _unary(op)
    for prim, op in BINARY.items():
        PRIMITIVES[prim] = _binary(op)
    for prim, ops in LOGICAL.items():
        PRIMITIVES[prim] = _logical(*ops)
    for prim in IDENTITY:
        PRIMITIVES[prim] = _identity
    for prim, op in REDUCE.items():
        PRIMITIVES[prim] = _reduce(op)
    PRIMITIVES.update(
        {
            "not": _not,
            "shift_right_logical": _shift_right_logical,
            "exp2": lambda c, e, x, loc: gb.call("power", _full_like(e, 2.0), x[0], loc=loc),
            "square": lambda c, e, x, loc: gb.call("multiply", x[0], x[0], loc=loc),
            "integer_pow": _integer_pow,
            "convert_element_type": _convert,
            "select_n": _select_n,
            "clamp": _clamp,
            "dot_general": _dot_general,
            "reduce_and": _reduce("all"),
            "reduce_or": _reduce("any"),
            "argmax": _arg("argmax"),
            "argmin": _arg("argmin"),
            "reshape": _reshape,
            "broadcast_in_dim": _broadcast_in_dim,
            "transpose": lambda c, e, x, loc: gb.call("transpose", x[0], axes=list(e.params["permutation"]), loc=loc),
            "squeeze": lambda c, e, x, loc: gb.call("squeeze", x[0], axis=list(e.params["dimensions"]), loc=loc),
            "expand_dims": _expand_dims,
            "concatenate": lambda c, e, x, loc: gb.call(
                "concatenate", gb.tuple_(*x, loc=loc), axis=int(e.params["dimension"]), loc=loc
            ),
            "slice": _slice,
            "split": _split,
            "iota": _iota,
            "dim_as_value": _dim_as_value,
            "conv_general_dilated": _conv,
            "reduce_window_max": _max_pool,
            "cond": _cond,
            "while": _while,
            "scan": _scan,
            "add_any": _binary("add"),
            "atan2": _binary("aten.atan2"),
            "round": _round,
            "cumsum": _cumulative("cumsum"),
            "cumprod": _cumulative("cumprod"),
            "cummax": _cumulative("aten.cummax"),
            "cummin": _cumulative("aten.cummin"),
            "rev": _rev,
            "stack": lambda c, e, x, loc: gb.call("stack", gb.tuple_(*x, loc=loc), axis=int(e.params["axis"]), loc=loc),
            "tile": lambda c, e, x, loc: gb.call("tile", x[0], reps=[int(r) for r in e.params["reps"]], loc=loc),
            "erfc": lambda c, e, x, loc: gb.call("subtract", _one(e), gb.call("erf", x[0], loc=loc), loc=loc),
            "pad": _pad,
            "sort": _sort,
            "top_k": _top_k,
            "reduce_window_sum": _sum_pool,
            "select_and_scatter_add": _max_pool_grad,
            "gather": _gather,
            "dynamic_slice": _dynamic_slice,
            "dynamic_update_slice": _dynamic_update_slice,
            "scatter": _scatter("update"),
            "scatter-add": _scatter("add"),
            "scatter_add": _scatter("add"),
        }
    )


def _dtype(eqn: Any, index: int = 0) -> str:
    return dtype_of(eqn.outvars[index].aval)


def _one(eqn: Any) -> Any:
    return gb.const(1, _dtype(eqn))


def _full_like(eqn: Any, value: float) -> Any:
    return gb.const(value, _dtype(eqn))


def _unary(op: str) -> Any:
    return lambda c, e, x, loc: gb.call(op, x[0], loc=loc)


def _binary(op: str) -> Any:
    return lambda c, e, x, loc: gb.call(op, x[0], x[1], loc=loc)


def _logical(boolean: str, bitwise: str) -> Any:
    return lambda c, e, x, loc: gb.call(boolean if _dtype(e) == "bool" else bitwise, *x, loc=loc)


def _not(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    return gb.call("logical_not" if _dtype(eqn) == "bool" else "bitwise_not", x[0], loc=loc)


def _shift_right_logical(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """A logical right shift is NumPy's of an unsigned dtype (of a signed one: not converted)."""
    return gb.call("right_shift", x[0], x[1], loc=loc) if _dtype(eqn).startswith("uint") else None


def _identity(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    return x if len(x) > 1 else x[0]


def _reduce(op: str) -> Any:
    return lambda c, e, x, loc: gb.call(op, x[0], axis=list(e.params["axes"]), loc=loc)


def _arg(op: str) -> Any:
    def convert(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
        result = gb.call(op, x[0], axis=list(eqn.params["axes"]), loc=loc)
        wanted = _dtype(eqn)
        return result if wanted == "int32" else gb.call("cast", result, dtype=wanted, loc=loc)

    return convert


def _integer_pow(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    y = int(eqn.params["y"])
    if y == 0:
        return gb.call("ones_like", x[0], loc=loc)
    result = x[0]
    for _ in range(abs(y) - 1):
        result = gb.call("multiply", result, x[0], loc=loc)
    return result if y > 0 else gb.call("divide", _one(eqn), result, loc=loc)


def _convert(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    wanted = _dtype(eqn)
    if dtype_of(eqn.invars[0].aval) == wanted:
        return gb.call("copy", x[0], loc=loc)
    return gb.call("cast", x[0], dtype=wanted, loc=loc)


def _select_n(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    which, cases = x[0], x[1:]
    if len(cases) == 1:
        return gb.call("copy", cases[0], loc=loc)
    if dtype_of(eqn.invars[0].aval) == "bool" and len(cases) == 2:
        return gb.call("where", which, cases[1], cases[0], loc=loc)
    index_dtype = dtype_of(eqn.invars[0].aval)
    result = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        chosen = gb.call("equal", which, gb.const(i, index_dtype), loc=loc)
        result = gb.call("where", chosen, cases[i], result, loc=loc)
    return result


def _clamp(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    low, value, high = x
    return gb.call("maximum", gb.call("minimum", value, high, loc=loc), low, loc=loc)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _dot_general(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`dot_general` as an einsum: batch dims, then the left's free dims, then the right's."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lrank, rrank = len(eqn.invars[0].aval.shape), len(eqn.invars[1].aval.shape)
    if lrank + rrank > len(_LETTERS):
        return None
    letters = iter(_LETTERS)
    left = [""] * lrank
    right = [""] * rrank
    for i, j in zip(lb, rb):
        left[i] = right[j] = next(letters)
    for i, j in zip(lc, rc):
        left[i] = right[j] = next(letters)
    for i in range(lrank):
        left[i] = left[i] or next(letters)
    for j in range(rrank):
        right[j] = right[j] or next(letters)
    out = [left[i] for i in lb] + [left[i] for i in range(lrank) if i not in lb and i not in lc]
    out += [right[j] for j in range(rrank) if j not in rb and j not in rc]
    equation = f"{''.join(left)},{''.join(right)}->{''.join(out)}"
    result = gb.call("onnx.einsum", gb.tuple_(x[0], x[1], loc=loc), equation=equation, loc=loc)
    wanted = _dtype(eqn)
    if wanted != dtype_of(eqn.invars[0].aval):
        result = gb.call("cast", result, dtype=wanted, loc=loc)
    return result


def _static_shape(shape: tuple) -> Optional[list]:
    values = [dims.static_value(d) for d in shape]
    return None if any(v is None for v in values) else values


def _reshape(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    if eqn.params.get("dimensions") is not None:
        return None
    new_sizes = tuple(eqn.params["new_sizes"])
    static = _static_shape(new_sizes)
    if static is not None:
        return gb.call("reshape", x[0], newshape=static, loc=loc)
    return gb.call("dyn.reshape", x[0], c.shape_value(new_sizes, loc, c.function), loc=loc)


def _broadcast_in_dim(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    shape = tuple(eqn.params["shape"])
    kept = tuple(eqn.params["broadcast_dimensions"])
    value = x[0]
    for axis in range(len(shape)):
        if axis not in kept:
            value = gb.call("expand_dims", value, axis=axis, loc=loc)
    source = tuple(eqn.invars[0].aval.shape)
    if len(source) == len(shape) and all(str(a) == str(b) for a, b in zip(source, shape)):
        return gb.call("copy", value, loc=loc)
    static = _static_shape(shape)
    if static is not None:
        return gb.call("broadcast_to", value, shape=static, loc=loc)
    return gb.call("dyn.broadcast_to", value, c.shape_value(shape, loc, c.function), loc=loc)


def _expand_dims(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    value = x[0]
    for axis in sorted(eqn.params["dimensions"]):
        value = gb.call("expand_dims", value, axis=int(axis), loc=loc)
    return value


#: an end past every dim: strided_slice clips it to the dim
_END = 2**62


def _slice(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    starts = [dims.static_value(d) for d in eqn.params["start_indices"]]
    if any(s is None for s in starts):
        return None
    source = eqn.invars[0].aval.shape
    ends = []
    for limit, size in zip(eqn.params["limit_indices"], source):
        value = dims.static_value(limit)
        if value is None:
            if str(limit) != str(size):
                return None
            value = _END  # to the end of a symbolic dim
        ends.append(value)
    strides = eqn.params.get("strides")
    attrs: dict = {"begin": starts, "end": ends}
    if strides is not None:
        attrs["strides"] = [int(s) for s in strides]
    return gb.call("strided_slice", x[0], loc=loc, **attrs)


def _split(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    sizes = [dims.static_value(s) for s in eqn.params["sizes"]]
    if any(s is None for s in sizes):
        return None
    indices = [int(i) for i in np.cumsum([int(s) for s in sizes[:-1] if s is not None])]
    whole = gb.call("split", x[0], indices_or_sections=indices, axis=int(eqn.params["axis"]), loc=loc)
    return whole


def _iota(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    shape = tuple(eqn.params["shape"])
    axis = int(eqn.params["dimension"])
    dtype = dtype_of(eqn.outvars[0].aval)
    length = shape[axis]
    stop = dims.static_value(length)
    zero, one = gb.const(0, dtype), gb.const(1, dtype)
    if stop is not None:
        end: Any = gb.const(stop, dtype)
    else:
        size = c.dim_value(length, loc, c.function)
        end = gb.call("cast", gb.call("squeeze", size, axis=[0], loc=loc), dtype=dtype, loc=loc)
    line = gb.call("arange", zero, end, one, dtype=dtype, loc=loc)
    if len(shape) == 1:
        return line
    for i in range(len(shape)):
        if i != axis:
            line = gb.call("expand_dims", line, axis=i, loc=loc)
    static = _static_shape(shape)
    if static is not None:
        return gb.call("broadcast_to", line, shape=static, loc=loc)
    return gb.call("dyn.broadcast_to", line, c.shape_value(shape, loc, c.function), loc=loc)


def _dim_as_value(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    size = c.dim_value(eqn.params["dim"], loc, c.function)
    return gb.call("cast", gb.call("squeeze", size, axis=[0], loc=loc), dtype=_dtype(eqn), loc=loc)


def _layout(spec: tuple, letters: str) -> Optional[str]:
    """A Relay layout string from JAX's dimension spec (which axis is batch, feature, spatial)."""
    if len(spec) != len(letters):
        return None
    out = [""] * len(spec)
    for letter, axis in zip(letters, spec):
        out[axis] = letter
    return "".join(out)


def _conv(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`conv_general_dilated`, 1-D or 2-D, in any layout: `nn.conv2d` / `nn.conv1d`. An input
    dilation (`lhs_dilation`: the transposed convolutions of a gradient) is made explicit, and
    a negative padding (a gradient's crop) crops the input first."""
    params = eqn.params
    spatial = len(params["window_strides"])
    if spatial not in (1, 2) or params["batch_group_count"] != 1:
        return None
    numbers = params["dimension_numbers"]
    spatial_letters = "HW" if spatial == 2 else "W"
    data = _layout(tuple(numbers.lhs_spec), "NC" + spatial_letters)
    kernel = _layout(tuple(numbers.rhs_spec), "OI" + spatial_letters)
    out = _layout(tuple(numbers.out_spec), "NC" + spatial_letters)
    padding = [(int(lo), int(hi)) for lo, hi in params["padding"]]
    value = x[0]
    rank = spatial + 2
    axes = list(numbers.lhs_spec)[2:]  # the input's spatial axes, in the window's order
    for axis, factor in zip(axes, params["lhs_dilation"]):
        if int(factor) != 1:
            value = _dilate(value, axis, int(factor), rank, gb.const(0, _dtype(eqn)), loc)
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        begin, end = [0] * rank, [_END] * rank
        for axis, (lo, hi) in zip(axes, padding):
            begin[axis] = max(-lo, 0)
            end[axis] = hi if hi < 0 else _END
        value = gb.call("strided_slice", value, begin=begin, end=end, loc=loc)
        padding = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    attrs = {
        "strides": [int(s) for s in params["window_strides"]],
        "padding": [lo for lo, _ in padding] + [hi for _, hi in padding],
        "dilation": [int(d) for d in params["rhs_dilation"]],
        "groups": int(params["feature_group_count"]),
        "data_layout": data,
        "kernel_layout": kernel,
        "out_layout": out if out != data else "",
    }
    op = "nn.conv2d" if spatial == 2 else "nn.conv1d"
    result = gb.call(op, value, x[1], loc=loc, **attrs)
    wanted = _dtype(eqn)
    return result if wanted == dtype_of(eqn.invars[0].aval) else gb.call("cast", result, dtype=wanted, loc=loc)


def _dilate(value: Any, axis: int, factor: int, rank: int, fill: Any, loc: Loc) -> Any:
    """`factor - 1` fills (a scalar expression) between neighbours along `axis` (n becomes
    (n - 1) * factor + 1): a new axis after it padded to `factor`, the two merged (reshape's
    -3), the trailing fills cut."""
    value = gb.call("expand_dims", value, axis=axis + 1, loc=loc)
    widths = [[0, 0] for _ in range(rank + 1)]
    widths[axis + 1] = [0, factor - 1]
    value = gb.call("nn.pad", value, fill, pad_width=widths, loc=loc)
    value = gb.call("reshape", value, newshape=[0] * axis + [-3] + [0] * (rank - axis - 1), loc=loc)
    end = [_END] * rank
    end[axis] = -(factor - 1)
    return gb.call("strided_slice", value, begin=[0] * rank, end=end, loc=loc)


def _max_pool_grad(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`select_and_scatter_add` of `ge` (a max pool's gradient): each window's gradient to its
    largest element, as `nn.max_pool2d_grad`."""
    if getattr(eqn.params.get("select_prim"), "name", None) != "ge":
        return None
    return _pool("nn.max_pool2d_grad", eqn, x, loc)


def _max_pool(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`reduce_window_max` of a rank-4 value over two spatial axes: batch is axis 0, the
    channels axis 3 where it is untouched (NHWC, flax's), else axis 1 (NCHW)."""
    return _pool("nn.max_pool2d", eqn, x, loc)


def _sum_pool(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`reduce_window_sum` (an average pool before its division): an average pool that counts
    the padding, times the window's size, for floats."""
    if _dtype(eqn)[:5] not in ("float", "bfloa"):
        return None
    pooled = _pool("nn.avg_pool2d", eqn, x, loc, count_include_pad=True)
    if pooled is None:
        return None
    size = int(np.prod([int(w) for w in eqn.params["window_dimensions"]]))
    return gb.call("multiply", pooled, gb.const(float(size), _dtype(eqn)), loc=loc)


def _pool(op: str, eqn: Any, x: list, loc: Loc, **extra: Any) -> Any:
    params = eqn.params
    window = [int(w) for w in params["window_dimensions"]]
    strides = [int(s) for s in params["window_strides"]]
    padding = [(int(lo), int(hi)) for lo, hi in params["padding"]]
    dilated = [d for key in ("base_dilation", "window_dilation") for d in params.get(key, ())]
    if len(window) != 4 or any(d != 1 for d in dilated):
        return None
    untouched = [i for i in range(4) if window[i] == 1 and strides[i] == 1 and padding[i] == (0, 0)]
    channel = 3 if 3 in untouched else 1
    if 0 not in untouched or channel not in untouched:
        return None
    axes = [i for i in range(4) if i not in (0, channel)]
    letters = [""] * 4
    letters[0], letters[channel], letters[axes[0]], letters[axes[1]] = "N", "C", "H", "W"
    return gb.call(
        op,
        *x,
        pool_size=[window[a] for a in axes],
        strides=[strides[a] for a in axes],
        padding=[padding[a][0] for a in axes] + [padding[a][1] for a in axes],
        layout="".join(letters),
        loc=loc,
        **extra,
    )


def _cond(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`cond(index, *operands)`: branch i of `branches` where index is i (the last past the end)."""
    branches = eqn.params["branches"]
    index, operands = x[0], x[1:]
    index_dtype = dtype_of(eqn.invars[0].aval)
    bodies = []
    for branch in branches:
        block = gb.Block()
        outs = c.closed(branch, operands, block)
        bodies.append(block.body(outs[0] if len(outs) == 1 else gb.tuple_(*outs, loc=loc)))
    result: Any = bodies[-1]
    for i in range(len(bodies) - 2, -1, -1):
        chosen = gb.call("equal", index, gb.const(i, index_dtype), loc=loc)
        result = gb.if_(chosen, bodies[i], result, loc=loc)
    return result


def _while(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`while`: a recursive closure over the carried values, `if (cond) { loop(body) } else { carry }`."""
    params = eqn.params
    cond_n, body_n = int(params["cond_nconsts"]), int(params["body_nconsts"])
    cond_consts, body_consts, init = x[:cond_n], x[cond_n : cond_n + body_n], x[cond_n + body_n :]
    carried = [v.aval for v in eqn.invars[cond_n + body_n :]]
    types = [dims.shape_type(tuple(a.shape), dtype_of(a)) for a in carried]
    c.loop_count += 1
    loop = f"loop{c.loop_count}"
    names = [c.fresh("carry") for _ in carried]
    block = gb.Block()
    state = [gb.Var(n, loc) for n in names]
    (go,) = c.closed(params["cond_jaxpr"], list(cond_consts) + state, block)
    step = gb.Block()
    new = c.closed(params["body_jaxpr"], list(body_consts) + [gb.Var(n, loc) for n in names], step)
    again = step.body(gb.call_value(gb.Var(loop, loc), *new, loc=loc))
    done = gb.tuple_(*[gb.Var(n, loc) for n in names], loc=loc)
    branch = gb.if_(go, again, done, loc=loc)
    ret = gb.TupleOf(*types)
    fn = gb.closure(list(zip(names, types)), block.body(branch), ret=ret, loc=loc)
    recur = c.function.let(loop, fn, loc=loc)
    result = gb.call_value(recur, *init, loc=loc)
    return gb.proj(result, 0, loc=loc) if len(carried) == 1 else result


def _round(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`round`: half to even (jnp.round's) is NumPy's; half away from zero is
    sign(x) * floor(|x| + 0.5)."""
    if int(eqn.params.get("rounding_method", 0)) == 1:
        return gb.call("round", x[0], loc=loc)
    half = gb.call("add", gb.call("abs", x[0], loc=loc), gb.const(0.5, _dtype(eqn)), loc=loc)
    return gb.call("multiply", gb.call("sign", x[0], loc=loc), gb.call("floor", half, loc=loc), loc=loc)


def _cumulative(op: str) -> Any:
    """`cumsum` / `cumprod` / `cummax` / `cummin` along `axis`; `reverse` runs from the end
    (the reversed value's scan, reversed back)."""

    def convert(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
        axis = int(eqn.params["axis"])
        value = x[0]
        backwards = bool(eqn.params.get("reverse"))
        if backwards:
            value = gb.call("reverse", value, axis=axis, loc=loc)
        result: Any
        if op.startswith("aten."):
            result = gb.proj(gb.call(op, value, dim=axis, loc=loc), 0, loc=loc)
        else:
            result = gb.call(op, value, axis=axis, dtype=_dtype(eqn), loc=loc)
        return gb.call("reverse", result, axis=axis, loc=loc) if backwards else result

    return convert


def _rev(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    value = x[0]
    for axis in eqn.params["dimensions"]:
        value = gb.call("reverse", value, axis=int(axis), loc=loc)
    return value if eqn.params["dimensions"] else gb.call("copy", value, loc=loc)


def _pad(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`pad(x, value, [(lo, hi, interior)...])`: `interior` values between neighbours (the
    dilation of `_dilate`, filled with the value), then the edges: `nn.pad` where they are
    zero or more, a crop where they are negative."""
    config = [tuple(int(v) for v in edge) for edge in eqn.params["padding_config"]]
    value, fill = x[0], x[1]
    rank = len(config)
    for axis, (_, _, interior) in enumerate(config):
        if interior > 0:
            value = _dilate(value, axis, interior + 1, rank, fill, loc)
    if any(lo > 0 or hi > 0 for lo, hi, _ in config):
        value = gb.call("nn.pad", value, fill, pad_width=[[max(lo, 0), max(hi, 0)] for lo, hi, _ in config], loc=loc)
    if any(lo < 0 or hi < 0 for lo, hi, _ in config):
        begin = [max(-lo, 0) for lo, _, _ in config]
        end = [hi if hi < 0 else _END for _, hi, _ in config]
        value = gb.call("strided_slice", value, begin=begin, end=end, loc=loc)
    return value if value is not x[0] else gb.call("copy", value, loc=loc)


def _sort(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`sort` along `dimension` by its first operand (ascending, stable): one operand is
    `sort`; more (jnp.argsort sorts the keys with an iota) are each gathered by the keys'
    argsort."""
    axis = int(eqn.params["dimension"])
    if int(eqn.params.get("num_keys", 1)) != 1:
        return None
    if len(x) == 1:
        return gb.call("sort", x[0], axis=axis, is_ascend=True, loc=loc)
    order = gb.call("argsort", x[0], axis=axis, is_ascend=True, dtype="int64", loc=loc)
    return [gb.call("gather", value, order, axis=axis, loc=loc) for value in x]


def _top_k(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`top_k` along the last axis: the k largest values and their indices."""
    k = dims.static_value(eqn.params["k"])
    if k is None or eqn.params.get("axis", -1) not in (-1, len(eqn.invars[0].aval.shape) - 1):
        return None
    both = gb.call("topk", x[0], k=int(k), axis=-1, ret_type="both", is_ascend=False, dtype=_dtype(eqn, 1), loc=loc)
    return [gb.proj(both, 0, loc=loc), gb.proj(both, 1, loc=loc)]


def _same_dim(a: Any, b: Any) -> bool:
    return str(a) == str(b)


def _gather(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`gather` of whole slices along one axis (what `x[i]`, `x[:, i]` and an embedding lookup
    emit): `take` along the axis, its axes moved to where JAX puts them."""
    numbers = eqn.params["dimension_numbers"]
    operand = tuple(eqn.invars[0].aval.shape)
    indices = tuple(eqn.invars[1].aval.shape)
    sizes = tuple(eqn.params["slice_sizes"])
    rank = len(operand)
    mapped = tuple(numbers.start_index_map)
    index_dtype = dtype_of(eqn.invars[1].aval)
    if (
        len(indices) == 1
        and dims.static_value(indices[0]) == len(mapped)
        and not numbers.collapsed_slice_dims
        and not numbers.operand_batching_dims
        and tuple(numbers.offset_dims) == tuple(range(rank))
        and all(_same_dim(sizes[d], operand[d]) for d in range(rank) if d not in mapped)
    ):  # one window at a vector of starts (`x[:, 2:5]` on a symbolic dim): a dynamic slice
        static = _static_window(c, eqn, mapped, loc)
        if static is not None:
            return static
        starts = [
            gb.call("take", x[1], gb.const(mapped.index(d), "int32"), axis=0, loc=loc) if d in mapped else None
            for d in range(rank)
        ]
        return _slices(c, eqn, x[0], starts, [index_dtype] * rank, sizes, loc)
    batch = len(indices) - 1
    depth = dims.static_value(indices[-1])
    if (
        len(mapped) == 1
        and tuple(numbers.collapsed_slice_dims) == mapped
        and tuple(numbers.operand_batching_dims) == tuple(d for d in range(rank) if d != mapped[0])
        and tuple(numbers.start_indices_batching_dims) == tuple(numbers.operand_batching_dims)
        and not numbers.offset_dims
        and batch == rank
        and depth == 1
    ):  # one index per position along one axis (`jnp.take_along_axis`): gather along it
        index = gb.call("squeeze", x[1], axis=[batch], loc=loc)
        return gb.call("gather", x[0], index, axis=mapped[0], loc=loc)
    if (
        not numbers.operand_batching_dims
        and depth is not None
        and depth > 1
        and mapped == tuple(range(depth)) == tuple(numbers.collapsed_slice_dims)
        and tuple(numbers.offset_dims) == tuple(range(batch, batch + rank - depth))
        and all(_same_dim(sizes[d], operand[d]) for d in range(depth, rank))
    ):  # points (or rows) at index tuples over the leading axes (`x[jnp.arange(b), i]`): gather_nd
        moved = gb.call("transpose", x[1], axes=[batch, *range(batch)], loc=loc) if batch else x[1]
        return gb.call("gather_nd", x[0], moved, loc=loc)
    if numbers.operand_batching_dims or len(numbers.start_index_map) != 1 or dims.static_value(indices[-1]) != 1:
        return None
    axis = int(numbers.start_index_map[0])
    if tuple(numbers.collapsed_slice_dims) != (axis,) or dims.static_value(sizes[axis]) != 1:
        return None
    if any(not _same_dim(sizes[d], operand[d]) for d in range(len(operand)) if d != axis):
        return None
    index = gb.call("squeeze", x[1], axis=[batch], loc=loc)
    taken = gb.call("take", x[0], index, axis=axis, mode="clip", loc=loc)
    offsets = list(numbers.offset_dims)
    kept = [d for d in range(len(operand)) if d != axis]
    perm, next_batch = [], 0
    for position in range(batch + len(kept)):
        if position in offsets:
            d = kept[offsets.index(position)]
            perm.append(d if d < axis else d - 1 + batch)
        else:
            perm.append(axis + next_batch)
            next_batch += 1
    return taken if perm == sorted(perm) else gb.call("transpose", taken, axes=perm, loc=loc)


def _static_window(c: Converter, eqn: Any, mapped: tuple, loc: Loc) -> Any:
    """A window gather whose starts are known while converting (`x[:, 1:]`, `x[:, :-1]`): a
    `strided_slice`, to the end of a symbolic dim where the window reaches it (so the type
    keeps `s - 1`); None where a start is unknown or a symbolic size does not reach the end."""
    known = c.known_value(eqn.invars[1])
    if known is None or known.shape != (len(mapped),):
        return None
    operand = tuple(eqn.invars[0].aval.shape)
    sizes = tuple(eqn.params["slice_sizes"])
    begin, end = [0] * len(operand), []
    for d, (size, dim) in enumerate(zip(sizes, operand)):
        start = int(known[mapped.index(d)]) if d in mapped else 0
        static_dim, static_size = dims.static_value(dim), dims.static_value(size)
        if static_dim is not None and static_size is not None:
            start = min(max(start, 0), static_dim - static_size)  # JAX's clamp
            begin[d] = start
            end.append(start + static_size)
            continue
        if start < 0:
            return None
        begin[d] = start
        if _same_dim(size, dim - start if start else dim):
            end.append(_END)
        elif static_size is not None:
            end.append(start + static_size)
        else:
            return None
    return gb.call("strided_slice", c.read(eqn.invars[0]), begin=begin, end=end, loc=loc)


def _dynamic_slice(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`dynamic_slice(x, *starts)`: along each axis sliced, `take` of `start + arange(size)`
    with the start clamped into the dim as JAX clamps it."""
    index_dtypes = [dtype_of(v.aval) for v in eqn.invars[1:]]
    return _slices(c, eqn, x[0], x[1:], index_dtypes, tuple(eqn.params["slice_sizes"]), loc)


def _slices(c: Converter, eqn: Any, value: Any, starts: list, index_dtypes: list, sizes: tuple, loc: Loc) -> Any:
    """`value` sliced from `starts` (scalars, clamped into each dim as JAX clamps them) to
    `sizes`: `take` of `start + arange(size)` along each axis not taken whole."""
    shape = tuple(eqn.invars[0].aval.shape)
    for axis, (size, dim) in enumerate(zip(sizes, shape)):
        if _same_dim(size, dim):
            continue
        span = _window(c, starts[axis], index_dtypes[axis], size, dim, loc)
        value = gb.call("take", value, span, axis=axis, mode="clip", loc=loc)
    return value


def _window(c: Converter, start: Any, index_dtype: str, size: Any, dim: Any, loc: Loc) -> Any:
    """The positions `start + arange(size)` of a window along a dim, the start clamped into
    [0, dim - size] as JAX clamps it."""
    length = _dim_scalar(c, size, index_dtype, loc)
    room = gb.call("subtract", _dim_scalar(c, dim, index_dtype, loc), length, loc=loc)
    start = gb.call("minimum", gb.call("maximum", start, gb.const(0, index_dtype), loc=loc), room, loc=loc)
    span = gb.call("arange", gb.const(0, index_dtype), length, gb.const(1, index_dtype), dtype=index_dtype, loc=loc)
    return gb.call("add", span, start, loc=loc)


def _dynamic_update_slice(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`dynamic_update_slice(x, update, *starts)` of a static update: `scatter_nd` of the
    update at the index tuples of its window (each start clamped as JAX clamps it)."""
    value, update, starts = x[0], x[1], x[2:]
    shape = tuple(eqn.invars[0].aval.shape)
    sizes = _static_shape(tuple(eqn.invars[1].aval.shape))
    if sizes is None or not sizes:
        return None
    rank = len(sizes)
    grids = []
    for axis, size in enumerate(sizes):
        index_dtype = dtype_of(eqn.invars[2 + axis].aval)
        span = _window(c, starts[axis], index_dtype, size, shape[axis], loc)
        span = gb.call("cast", span, dtype="int64", loc=loc)
        span = gb.call("reshape", span, newshape=[1] + [size if d == axis else 1 for d in range(rank)], loc=loc)
        grids.append(gb.call("broadcast_to", span, shape=[1, *sizes], loc=loc))
    where = grids[0] if rank == 1 else gb.call("concatenate", gb.tuple_(*grids, loc=loc), axis=0, loc=loc)
    return gb.call("scatter_nd", value, where, update, mode="update", loc=loc)


def _dim_scalar(c: Converter, dim: Any, dtype: str, loc: Loc) -> Any:
    """A dim's size as a scalar of `dtype`."""
    static = dims.static_value(dim)
    if static is not None:
        return gb.const(static, dtype)
    size = c.dim_value(dim, loc, c.function)
    return gb.call("cast", gb.call("squeeze", size, axis=[0], loc=loc), dtype=dtype, loc=loc)


def _scatter(mode: str) -> Any:
    """`scatter` / `scatter_add` of whole rows along axis 0 (what `x.at[i].set(v)` and
    `.add(v)` emit): `scatter_nd` with the indices as its (1, k) index tuples."""

    def convert(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
        numbers = eqn.params["dimension_numbers"]
        operand = tuple(eqn.invars[0].aval.shape)
        indices = tuple(eqn.invars[1].aval.shape)
        updates = tuple(eqn.invars[2].aval.shape)
        batch = len(indices) - 1
        if (
            numbers.operand_batching_dims
            or tuple(numbers.inserted_window_dims) != (0,)
            or tuple(numbers.scatter_dims_to_operand_dims) != (0,)
            or dims.static_value(indices[-1]) != 1
            or tuple(numbers.update_window_dims) != tuple(range(batch, len(updates)))
            or any(not _same_dim(a, b) for a, b in zip(updates[batch:], operand[1:]))
        ):
            return None
        index = gb.call("squeeze", x[1], axis=[batch], loc=loc)
        index = gb.call("expand_dims", index, axis=0, loc=loc)
        return gb.call("scatter_nd", x[0], index, x[2], mode=mode, loc=loc)

    return convert


def _scan(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`scan` (lax.scan, fori_loop of a static trip count): a recursive closure over the step
    `i`, the carried values and the stacked outputs, each step's slice of the scanned inputs
    taken at `i` (from the end when `reverse`) and its outputs written there."""
    params = eqn.params
    n_consts, n_carry, length = int(params["num_consts"]), int(params["num_carry"]), params["length"]
    steps = _dim_scalar(c, length, "int32", loc)  # a symbolic length: bound before the loop
    if dims.static_value(length) is None:
        steps = c.function.let(c.fresh(), steps, loc=loc)
    body = params["jaxpr"]
    consts, init, xs = x[:n_consts], x[n_consts : n_consts + n_carry], x[n_consts + n_carry :]
    carried = [v.aval for v in eqn.invars[n_consts : n_consts + n_carry]]
    stacked = [v.aval for v in eqn.outvars[n_carry:]]
    types = [dims.shape_type(tuple(a.shape), dtype_of(a)) for a in carried + stacked]
    c.loop_count += 1
    loop = f"loop{c.loop_count}"
    step = c.fresh("i")
    names = [c.fresh("carry") for _ in carried + stacked]
    index_type = dims.shape_type((), "int32")
    block = gb.Block()
    i = gb.Var(step, loc)
    go = gb.call("less", i, steps, loc=loc)
    inner = gb.Block()
    last = gb.call("subtract", steps, gb.const(1, "int32"), loc=loc)
    at = gb.call("subtract", last, i, loc=loc) if params.get("reverse") else i
    at = inner.let(c.fresh(), at, loc=loc)
    slices = [inner.let(c.fresh(), gb.call("take", v, at, axis=0, mode="clip", loc=loc), loc=loc) for v in xs]
    state = [gb.Var(n, loc) for n in names]
    outs = c.closed(body, list(consts) + state[:n_carry] + slices, inner)
    where = gb.call("reshape", at, newshape=[1, 1], loc=loc)
    written = [
        gb.call("scatter_nd", old, where, gb.call("expand_dims", new, axis=0, loc=loc), mode="update", loc=loc)
        for old, new in zip(state[n_carry:], outs[n_carry:])
    ]
    following = gb.call("add", i, gb.const(1, "int32"), loc=loc)
    again = inner.body(gb.call_value(gb.Var(loop, loc), following, *outs[:n_carry], *written, loc=loc))
    done = gb.tuple_(*state, loc=loc)
    branch = gb.if_(go, again, done, loc=loc)
    ret = gb.TupleOf(*types)
    params_typed = [(step, index_type)] + list(zip(names, types))
    fn = gb.closure(params_typed, block.body(branch), ret=ret, loc=loc)
    recur = c.function.let(loop, fn, loc=loc)
    empties = [_zeros(c, a, loc) for a in stacked]
    result = c.function.let(c.fresh(), gb.call_value(recur, gb.const(0, "int32"), *init, *empties, loc=loc), loc=loc)
    return [gb.proj(result, k, loc=loc) for k in range(len(types))]


def _zeros(c: Converter, aval: Any, loc: Loc) -> Any:
    """Zeros of an abstract value's shape and dtype (a scan's stacked outputs before its steps)."""
    shape = tuple(aval.shape)
    static = _static_shape(shape)
    if static is not None:
        return gb.call("zeros", shape=static, dtype=dtype_of(aval), loc=loc)
    return gb.call("dyn.zeros", c.shape_value(shape, loc, c.function), dtype=dtype_of(aval), loc=loc)


_register()
