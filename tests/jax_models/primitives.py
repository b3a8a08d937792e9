"""One small JAX function per primitive (or form of one) the JAX frontend converts, with the
abstract arguments it is checked on and concrete ones it is run on (tests/test_jax_frontend.py
holds each against JAX: types against the out avals, values against JAX's outputs)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tests.jax_models import models

RNG = np.random.default_rng(11)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def i32(high, *shape):
    return RNG.integers(0, high, shape).astype(np.int32)


@jax.custom_vjp
def clipped_identity(x):
    return x


def _fwd(x):
    return x, None


def _bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clipped_identity.defvjp(_fwd, _bwd)


def _loss(params, x, y):
    w1, b1, w2 = params
    h = jax.nn.gelu(x @ w1 + b1)
    logits = h @ w2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def train_step(w1, b1, w2, x, y):
    grads = jax.grad(_loss)((w1, b1, w2), x, y)
    return tuple(p - 0.1 * g for p, g in zip((w1, b1, w2), grads))


def _conv_loss(params, x):
    k1, k2, w = params
    return jnp.sum(models.convnet(x, k1, k2, w) ** 2)


def conv_train_step(k1, k2, w, x):
    grads = jax.grad(_conv_loss)((k1, k2, w), x)
    return tuple(p - 0.01 * g for p, g in zip((k1, k2, w), grads))


def _attention_loss(params, x):
    return jnp.mean(models.attention(x, *params) ** 2)


def attention_train_step(wq, wk, wv, wo, gamma, x):
    grads = jax.grad(_attention_loss)((wq, wk, wv, wo, gamma), x)
    return tuple(p - 0.01 * g for p, g in zip((wq, wk, wv, wo, gamma), grads))


def scan_cumsum(x):
    def step(carry, row):
        carry = carry + row
        return carry, carry * 2.0

    return lax.scan(step, jnp.zeros(x.shape[1:], x.dtype), x)


#: name -> (function, specs, concrete arguments)
CASES = {
    # elementwise
    "erf": (lambda x: lax.erf(x), ["b, 3"], [f32(2, 3)]),
    "logistic": (lambda x: jax.nn.sigmoid(x), ["b, 3"], [f32(2, 3)]),
    "rsqrt": (lambda x: lax.rsqrt(jnp.abs(x) + 1.0), ["b, 3"], [f32(2, 3)]),
    "integer_pow": (lambda x: x**3 + x**-2, ["b, 3"], [f32(2, 3) + 3.0]),
    "log1p expm1 exp2": (lambda x: jnp.log1p(jnp.abs(x)) + jnp.expm1(x) + jnp.exp2(x), ["n"], [f32(5)]),
    "round": (lambda x: jnp.round(x * 3.0), ["n"], [f32(6)]),
    "atan2": (lambda x, y: jnp.arctan2(x, y), ["n", "n"], [f32(4), f32(4)]),
    "rem": (lambda x, y: lax.rem(x, y), ["n", "n"], [f32(6) * 5.0, np.full(6, 2.0, np.float32)]),
    "integer div rem": (
        lambda x, y: (lax.div(x, y), lax.rem(x, y), x // y, x % y),
        ["n int32", "n int32"],
        [np.array([-7, 7, -7, 7, 0, 5], np.int32), np.array([2, 2, -2, -2, 3, 5], np.int32)],
    ),
    "erf_inv": (lambda x: lax.erf_inv(x), ["n"], [np.linspace(-0.9, 0.9, 5, dtype=np.float32)]),
    "shifts": (
        lambda x, y: (lax.shift_left(x, y), lax.shift_right_arithmetic(x, y)),
        ["n int32", "n int32"],
        [np.array([-8, 8, 3, 1], np.int32), np.array([1, 2, 0, 3], np.int32)],
    ),
    "logical shift of unsigned": (
        lambda x, y: lax.shift_right_logical(x, y),
        ["n uint32", "n uint32"],
        [np.array([8, 255, 3], np.uint32), np.array([1, 4, 0], np.uint32)],
    ),
    "log1p expm1 of tiny values": (lambda x: jnp.log1p(x * 1e-7) + jnp.expm1(x * 1e-7) * 1e7, ["n"], [f32(5)]),
    "comparisons and logic": (
        lambda x, y: ((x < y) & ~(x == y)) | (x >= 1.0) ^ (y != 0.5),
        ["n", "n"],
        [f32(6), f32(6)],
    ),
    "convert_element_type": (lambda x: (x * 4.0).astype(jnp.int32).astype(jnp.float16), ["n"], [f32(5)]),
    "stop_gradient": (lambda x: lax.stop_gradient(x) * 2.0, ["n"], [f32(5)]),
    "clamp": (lambda x: jnp.clip(x, -0.5, 0.5), ["b, 4"], [f32(3, 4)]),
    "select_n": (lambda x, y: jnp.where(x > 0, x, y), ["b, 4", "b, 4"], [f32(3, 4), f32(3, 4)]),
    "select_n of an index": (
        lambda i, x, y, z: lax.select_n(i, x, y, z),
        ["4 int32", "4", "4", "4"],
        [i32(3, 4), f32(4), f32(4), f32(4)],
    ),
    # reductions
    "reduce_max min prod": (lambda x: jnp.max(x, 0) + jnp.min(x, 0) + jnp.prod(x, 0), ["b, 4"], [f32(3, 4)]),
    "argmax argmin": (lambda x: jnp.argmax(x, axis=-1) + jnp.argmin(x, axis=1), ["3, n"], [f32(3, 5)]),
    "reduce_and or": (lambda x: jnp.all(x > 0, axis=1) | jnp.any(x > 1, axis=1), ["b, 4"], [f32(3, 4)]),
    "cumsum": (lambda x: jnp.cumsum(x, axis=0), ["n, 3"], [f32(4, 3)]),
    "cumsum reversed": (lambda x: lax.cumsum(x, axis=1, reverse=True), ["n, 3"], [f32(4, 3)]),
    "cumprod": (lambda x: jnp.cumprod(x, axis=-1), ["n, 3"], [f32(4, 3)]),
    "cummax": (lambda x: lax.cummax(x, axis=0), ["n, 3"], [f32(4, 3)]),
    # shapes
    "iota": (lambda x: x + jnp.arange(x.shape[0], dtype=jnp.float32), ["n"], [f32(5)]),
    "broadcast_in_dim": (lambda x, y: x[:, None] + y[None, :], ["n", "m"], [f32(3), f32(4)]),
    "reshape": (lambda x: x.reshape(x.shape[0] * 2, -1), ["b, 4, 3"], [f32(2, 4, 3)]),
    "squeeze expand_dims": (lambda x: jnp.expand_dims(jnp.squeeze(x, 1), 0), ["b, 1, 3"], [f32(2, 1, 3)]),
    "transpose": (lambda x: x.transpose(2, 0, 1), ["b, 4, 3"], [f32(2, 4, 3)]),
    "rev": (lambda x: jnp.flip(x, axis=(0, 1)), ["b, 4"], [f32(3, 4)]),
    "pad": (lambda x: jnp.pad(x, ((1, 2), (0, 3))), ["b, 4"], [f32(3, 4)]),
    "pad with a value": (lambda x: lax.pad(x, 1.5, ((0, 1, 0), (2, 0, 0))), ["b, 4"], [f32(3, 4)]),
    "pad interior and negative": (
        lambda x: lax.pad(x, -1.0, ((1, -1, 2), (-1, 2, 1))),
        ["b, 4"],
        [f32(3, 4)],
    ),
    "stack": (lambda x, y: jnp.stack([x, y], axis=1), ["b, 3", "b, 3"], [f32(2, 3), f32(2, 3)]),
    "tile": (lambda x: jnp.tile(x, (2, 1)), ["b, 3"], [f32(2, 3)]),
    "erfc": (lambda x: jax.nn.gelu(x, approximate=False) + lax.erfc(x), ["b, 3"], [f32(2, 3)]),
    "concatenate": (lambda x, y: jnp.concatenate([x, y, x], axis=1), ["b, 2", "b, 3"], [f32(4, 2), f32(4, 3)]),
    "slice": (lambda x: lax.slice(x, (0, 2), (x.shape[0], 5)), ["b, 6"], [f32(4, 6)]),
    "a window at a vector of starts": (lambda x: x[1:, 2:5], ["4, 6"], [f32(4, 6)]),
    "a window of a symbolic dim": (lambda x: x[:, 2:5], ["b, 6"], [f32(4, 6)]),
    "shifted windows": (lambda x: x[:, 1:] - x[:, :-1], ["b, s, 4"], [f32(2, 5, 4)]),
    "a window from a dynamic start": (
        lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=1),
        ["3, 5", "int32"],
        [f32(3, 5), np.int32(9)],
    ),
    "strided slice": (lambda x: lax.slice(x, (0, 1), (3, 6), (2, 2)), ["3, 6"], [f32(3, 6)]),
    "split": (lambda x: jnp.split(x, [1, 3], axis=1)[1], ["b, 6"], [f32(4, 6)]),
    "dynamic_slice": (lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 3)), ["5, 6", "int32"], [f32(5, 6), np.int32(2)]),
    "dynamic_update_slice": (
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 1)),
        ["5, 6", "2, 3", "int32"],
        [f32(5, 6), f32(2, 3), np.int32(4)],
    ),
    "dynamic_update_slice of a vector": (
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i,)),
        ["7", "2", "int32"],
        [f32(7), f32(2), np.int32(3)],
    ),
    # indexing: the gathers and scatters jnp emits
    "take rows": (lambda x, i: x[i], ["n, 4", "k int32"], [f32(5, 4), i32(5, 3)]),
    "take columns": (lambda x, i: x[:, i], ["n, 4", "k int32"], [f32(5, 4), i32(4, 3)]),
    "an index": (lambda x, i: x[i], ["n, 4", "int32"], [f32(5, 4), np.int32(3)]),
    "take_along_axis": (
        lambda x, i: jnp.take_along_axis(x, i, axis=1),
        ["5, 4", "5, 2 int32"],
        [f32(5, 4), i32(4, 5, 2)],
    ),
    "take_along_axis of axis 0": (
        lambda x, i: jnp.take_along_axis(x, i, axis=0),
        ["5, 4", "3, 4 int32"],
        [f32(5, 4), i32(5, 3, 4)],
    ),
    "points": (lambda x, i: x[jnp.arange(x.shape[0]), i], ["b, 6", "b int32"], [f32(4, 6), i32(6, 4)]),
    "negative and reversed indexing": (lambda x: x[-1] + x[:, -1][0] + x[::-1][0], ["b, 5"], [f32(4, 5)]),
    "cross entropy of int labels": (
        lambda x, y: -jnp.take_along_axis(jax.nn.log_softmax(x), y[:, None], axis=-1).mean(),
        ["b, 5", "b int32"],
        [f32(4, 5), np.array([0, 4, 2, 1], np.int32)],
    ),
    "embedding gradient": (
        lambda t, i: jax.grad(lambda tt: (tt[i] ** 2).sum())(t),
        ["10, 3", "4 int32"],
        [f32(10, 3), np.array([1, 1, 3, 9], np.int32)],
    ),
    "embedding": (lambda table, ids: table[ids], ["100, 8", "b, s int32"], [f32(100, 8), i32(100, 2, 5)]),
    "scatter set": (
        lambda x, i, v: x.at[i].set(v),
        ["n, 4", "k int32", "k, 4"],
        [f32(6, 4), np.array([0, 2, 5], np.int32), f32(3, 4)],
    ),
    "scatter add": (lambda x, i, v: x.at[i].add(v), ["n, 4", "k int32", "k, 4"], [f32(6, 4), i32(6, 7), f32(7, 4)]),
    "one_hot": (lambda i: jax.nn.one_hot(i, 5), ["b int32"], [i32(5, 4)]),
    # sorting
    "sort": (lambda x: jnp.sort(x, axis=-1), ["b, 5"], [f32(3, 5)]),
    "argsort": (lambda x: jnp.argsort(x, axis=0), ["n, 3"], [f32(5, 3)]),
    "top_k": (lambda x: lax.top_k(x, 2), ["b, 5"], [f32(3, 5)]),
    # contractions
    "matmul": (lambda x, w: x @ w, ["b, 4", "4, 3"], [f32(2, 4), f32(4, 3)]),
    "batched matmul": (
        lambda x, w: jnp.einsum("bij,bjk->bik", x, w),
        ["b, 2, 4", "b, 4, 3"],
        [f32(2, 2, 4), f32(2, 4, 3)],
    ),
    "contract on both firsts": (lambda x, w: jnp.einsum("ki,kj->ij", x, w), ["k, 2", "k, 3"], [f32(4, 2), f32(4, 3)]),
    "vector dot": (lambda x, y: jnp.dot(x, y), ["n", "n"], [f32(5), f32(5)]),
    "outer": (lambda x, y: jnp.einsum("i,j->ij", x, y), ["n", "m"], [f32(3), f32(2)]),
    "batch dims in the middle": (
        lambda x, y: lax.dot_general(x, y, (((2,), (0,)), ((1,), (1,)))),
        ["2, b, 4", "4, b, 3"],
        [f32(2, 3, 4), f32(4, 3, 3)],
    ),
    "int8 matmul to int32": (
        lambda x, w: lax.dot_general(x, w, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32),
        ["b, 4 int8", "4, 3 int8"],
        [i32(5, 2, 4).astype(np.int8), i32(5, 4, 3).astype(np.int8)],
    ),
    "conv NCHW strided padded": (
        lambda x, k: lax.conv_general_dilated(x, k, (2, 2), ((1, 1), (2, 0))),
        ["b, 3, 9, 9", "4, 3, 3, 3"],
        [f32(2, 3, 9, 9), f32(4, 3, 3, 3)],
    ),
    "conv NHWC dilated": (
        lambda x, k: lax.conv_general_dilated(
            x, k, (1, 1), "SAME", rhs_dilation=(2, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")
        ),
        ["b, 8, 8, 2", "3, 3, 2, 4"],
        [f32(2, 8, 8, 2), f32(3, 3, 2, 4)],
    ),
    "conv grouped": (
        lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "VALID", feature_group_count=2),
        ["b, 4, 6, 6", "6, 2, 3, 3"],
        [f32(2, 4, 6, 6), f32(6, 2, 3, 3)],
    ),
    "conv 1d": (
        lambda x, k: lax.conv_general_dilated(x, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
        ["b, 10, 3", "3, 3, 5"],
        [f32(2, 10, 3), f32(3, 3, 5)],
    ),
    "max pool NCHW": (
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"),
        ["b, 3, 6, 6"],
        [f32(2, 3, 6, 6)],
    ),
    "avg pool NHWC": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0,
        ["b, 6, 6, 3"],
        [f32(2, 6, 6, 3)],
    ),
    # calls and control flow
    "pjit": (lambda x: jax.jit(lambda y: jnp.tanh(y) * 2.0)(x), ["b, 3"], [f32(2, 3)]),
    "custom_jvp": (lambda x: jax.nn.relu(x) + jax.nn.softplus(x), ["b, 3"], [f32(2, 3)]),
    "checkpoint": (lambda x: jax.checkpoint(lambda y: jnp.sin(y) * 2.0)(x), ["b, 3"], [f32(2, 3)]),
    "vmap": (lambda x, w: jax.vmap(lambda r: r @ w)(x), ["b, 3", "3, 2"], [f32(4, 3), f32(3, 2)]),
    "custom_vjp": (lambda x: clipped_identity(x) * 3.0, ["b, 3"], [f32(2, 3)]),
    "cond": (lambda p, x: lax.cond(p > 0, jnp.sin, jnp.cos, x), ["float32", "n"], [np.float32(-1.0), f32(4)]),
    "switch": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x), ["int32", "n"], [np.int32(2), f32(4)]),
    "fori_loop": (lambda x: lax.fori_loop(0, 4, lambda i, a: a * 0.5 + x, x), ["n"], [f32(4)]),
    "scan": (scan_cumsum, ["t, 3"], [f32(5, 3)]),
    "scan reversed": (
        lambda x: lax.scan(lambda c, r: (c * r, c + r), jnp.ones(3), x, reverse=True),
        ["4, 3"],
        [f32(4, 3)],
    ),
    "transposed conv": (
        lambda x, k: lax.conv_transpose(x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        ["b, 5, 5, 3", "3, 3, 3, 4"],
        [f32(2, 5, 5, 3), f32(3, 3, 3, 4)],
    ),
    "conv with negative padding": (
        lambda x, k: lax.conv_general_dilated(x, k, (1, 1), ((-1, 0), (0, -2))),
        ["b, 2, 8, 8", "3, 2, 3, 3"],
        [f32(2, 2, 8, 8), f32(3, 2, 3, 3)],
    ),
    "max pool gradient": (
        lambda x: jax.grad(lambda v: jnp.sum(models.convnet_pool(v) ** 2))(x),
        ["b, 6, 6, 3"],
        [f32(2, 6, 6, 3)],
    ),
    "convnet training step": (
        conv_train_step,
        ["3, 3, 1, 8", "3, 3, 8, 16", "16, 10", "b, 28, 28, 1"],
        [f32(3, 3, 1, 8) * 0.3, f32(3, 3, 8, 16) * 0.3, f32(16, 10) * 0.3, f32(2, 28, 28, 1)],
    ),
    "transformer training step": (
        attention_train_step,
        ["32, 32", "32, 32", "32, 32", "32, 32", "32", "b, s, 32"],
        [f32(32, 32) * 0.2 for _ in range(4)] + [f32(32), f32(2, 5, 32)],
    ),
    "training step": (
        train_step,
        ["8, 16", "16", "16, 4", "b, 8", "b, 4"],
        [f32(8, 16), f32(16), f32(16, 4), f32(3, 8), np.eye(4, dtype=np.float32)[[0, 2, 1]]],
    ),
}
