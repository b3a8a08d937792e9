"""Conversions of jaxpr primitives into gradual's operators (see convert.py).

Each takes the converter, the equation, its operands as expressions and the equation's
location, and returns an expression (a list of them for several outputs), or None where it
cannot convert this use (the checker then reports the primitive at the equation's line).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from gradual import builder as gb
from gradual.frontends.jax import dims
from gradual.frontends.jax.convert import PRIMITIVES, Converter, dtype_of

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
            "log1p": lambda c, e, x, loc: gb.call("log", gb.call("add", x[0], _one(e), loc=loc), loc=loc),
            "expm1": lambda c, e, x, loc: gb.call("subtract", gb.call("exp", x[0], loc=loc), _one(e), loc=loc),
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
    params = eqn.params
    spatial = len(params["window_strides"])
    if spatial not in (1, 2) or any(d != 1 for d in params["lhs_dilation"]) or params["batch_group_count"] != 1:
        return None
    numbers = params["dimension_numbers"]
    spatial_letters = "HW" if spatial == 2 else "W"
    data = _layout(tuple(numbers.lhs_spec), "NC" + spatial_letters)
    kernel = _layout(tuple(numbers.rhs_spec), "OI" + spatial_letters)
    out = _layout(tuple(numbers.out_spec), "NC" + spatial_letters)
    padding = [(int(lo), int(hi)) for lo, hi in params["padding"]]
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
    result = gb.call(op, x[0], x[1], loc=loc, **attrs)
    wanted = _dtype(eqn)
    return result if wanted == dtype_of(eqn.invars[0].aval) else gb.call("cast", result, dtype=wanted, loc=loc)


def _max_pool(c: Converter, eqn: Any, x: list, loc: Loc) -> Any:
    """`reduce_window_max` of a rank-4 value over two spatial axes: batch is axis 0, the
    channels axis 3 where it is untouched (NHWC, flax's), else axis 1 (NCHW)."""
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
        "nn.max_pool2d",
        x[0],
        pool_size=[window[a] for a in axes],
        strides=[strides[a] for a in axes],
        padding=[padding[a][0] for a in axes] + [padding[a][1] for a in axes],
        layout="".join(letters),
        loc=loc,
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


_register()
