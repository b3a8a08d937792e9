"""A JAX model for `gradual check examples/jax_mlp.py:mlp --arg ...` (docs/cli.md)."""

import jax
import jax.numpy as jnp


def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.log_softmax(h @ w2 + b2, axis=-1)


def classify(x, w1, b1, w2, b2):
    logits = mlp(x, w1, b1, w2.T, b2)  # w2 is already (10, 128): transposing it is the bug
    return jnp.argmax(logits, axis=-1)
