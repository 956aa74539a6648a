"""`jaxc-pad-sums-to-updates` (passes/pad_sums_to_updates.py): the gradient
of a program that reads slices of an array sums zero-padded blocks; where
the blocks do not overlap, they are written into one array instead. The
gradients are checked against their closed forms in float64."""
from __future__ import annotations

import numpy as np

import jaxc
import jaxc.numpy as jnp

RNG = np.random.default_rng(7)
X = RNG.standard_normal((6, 5, 4)).astype(np.float32)
WEIGHTS = np.arange(1, 7, dtype=np.float32)


def optimized(f, *args) -> str:
    return jaxc.jit(jaxc.grad(f)).lower(*args).as_text(stage="optimized")


def rows_loss(x):
    return sum(WEIGHTS[i] * jnp.sum(jnp.sin(x[i])) for i in range(x.shape[0]))


def test_rows_read_one_by_one():
    text = optimized(rows_loss, X)
    assert text.count("jaxc.dynamic_update_slice") == X.shape[0] - 1
    assert "jaxc.add" not in text
    got = np.asarray(jaxc.jit(jaxc.grad(rows_loss))(X))
    want = WEIGHTS[:, None, None] * np.cos(X.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_columns_and_blocks():
    def loss(x):
        return jnp.sum(x[:, 0] ** 2) + 3 * jnp.sum(x[:, 2:4]) + jnp.sum(jnp.cos(x[1:3, 4]))

    x = np.ascontiguousarray(X[:, :, 0])  # 6 x 5
    text = optimized(loss, x)
    assert text.count("jaxc.dynamic_update_slice") == 2  # three blocks: one pad, two writes
    assert "jaxc.add" not in "".join(line for line in text.splitlines() if "tensor<6x5xf32>" in line)
    want = np.zeros(x.shape)
    want[:, 0] = 2 * x[:, 0]
    want[:, 2:4] = 3
    want[1:3, 4] = -np.sin(x[1:3, 4].astype(np.float64))
    np.testing.assert_allclose(np.asarray(jaxc.jit(jaxc.grad(loss))(x)), want, rtol=1e-5, atol=1e-6)


def test_overlapping_slices_still_add():
    def loss(x):
        return jnp.sum(jnp.sin(x[0:4])) + jnp.sum(x[2:6] ** 2)

    assert "jaxc.dynamic_update_slice" not in optimized(loss, X)
    want = np.cos(X.astype(np.float64))
    want[2:4] += 2 * X[2:4]
    want[4:6] = 2 * X[4:6]
    np.testing.assert_allclose(np.asarray(jaxc.jit(jaxc.grad(loss))(X)), want, rtol=1e-5, atol=1e-6)


def test_unrolled_recurrence_over_time_steps():
    """h_t = tanh(h_{t-1} W + x_t): the gradient with respect to the
    sequence, against backpropagation through time by hand."""
    steps, width = 7, 16
    xs = RNG.standard_normal((steps, 3, width)).astype(np.float32)
    w = (RNG.standard_normal((width, width)) / 4).astype(np.float32)

    def loss(xs, w):
        h = jnp.zeros((3, width), jnp.float32)
        for t in range(steps):
            h = jnp.tanh(h @ w + xs[t])
        return jnp.sum(h)

    assert "jaxc.dynamic_update_slice" in optimized(loss, xs, w)
    got = np.asarray(jaxc.jit(jaxc.grad(loss))(xs, w))
    w64, hs = w.astype(np.float64), [np.zeros((3, width))]
    for t in range(steps):
        hs.append(np.tanh(hs[-1] @ w64 + xs[t]))
    want, g = np.zeros(xs.shape), np.ones((3, width))
    for t in reversed(range(steps)):
        g = g * (1 - hs[t + 1] ** 2)
        want[t] = g
        g = g @ w64.T
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_complex_rows():
    """Complex cotangents: the pads' zero is a complex constant, which the
    pass leaves alone (it cannot read it), and the gradient is still right."""
    z = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64)

    def loss(z):
        return sum(jnp.sum(jnp.real(z[i] * z[i])) * (i + 1) for i in range(3))

    got = np.asarray(jaxc.jit(jaxc.grad(loss))(z))
    # JAX's gradient of a real f of z = x + iy is df/dx - i df/dy; Re(z^2) = x^2 - y^2
    want = 2 * z.astype(np.complex128) * np.arange(1, 4)[:, None]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
