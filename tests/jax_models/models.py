"""Small JAX models for the JAX frontend's tests (their lines are what diagnostics name)."""

import jax
import jax.numpy as jnp
from jax import lax


def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.log_softmax(h @ w2 + b2, axis=-1)


def convnet(x, k1, k2, w):
    h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jax.nn.relu(h)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = lax.conv_general_dilated(h, k2, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jnp.mean(jax.nn.gelu(h), axis=(1, 2))
    return h @ w


def attention(x, wq, wk, wv, wo, gamma):
    b, s, d = x.shape
    heads = 4
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    h = (x - mean) * lax.rsqrt(var + 1e-5) * gamma
    q = (h @ wq).reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)
    k = (h @ wk).reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)
    v = (h @ wv).reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d // heads).astype(jnp.float32)
    causal = jnp.arange(s)[:, None] >= jnp.arange(s)[None, :]
    scores = jnp.where(causal, scores, -jnp.inf)
    attended = jax.nn.softmax(scores, axis=-1) @ v
    out = attended.transpose(0, 2, 1, 3).reshape(b, s, d)
    return x + out @ wo


def convnet_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def buggy(x, w1, w2):
    h = jnp.tanh(x @ w1)
    return h @ w2  # w2 has the wrong number of rows


def looped(x):
    def body(carry):
        i, acc = carry
        return i + 1, acc * 0.5 + x

    _, out = lax.while_loop(lambda c: c[0] < 3, body, (0, x))
    return lax.cond(out.sum() > 0, lambda v: v * 2.0, lambda v: -v, out)


def cumulative(x):
    return jnp.cumsum(x, axis=0) * 2.0


def unconverted(x):
    return jnp.linalg.cholesky(x.T @ x)


def unconverted_forms(x):
    return lax.reduce_window(x, 1.0, lax.mul, (2, 1), (1, 1), "VALID"), lax.cumlogsumexp(x, axis=0)


def calls_buggy(x, w1, w2):
    return buggy(x, w1, w2) * 2.0
