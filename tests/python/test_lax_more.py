"""The jax.lax names of jaxc/lax/_more.py (built from other lax ops):
reduce_window, reduce, reduce_xor, the conv wrappers, the *_in_dim slicing
helpers, select_n, top_k, associative_scan, cumlogsumexp and the special
functions, each against a NumPy reference written here (loops, float64),
eagerly and under `jaxc.jit`; vmap against a Python loop and gradients
(`check_grads`, float64) for a representative subset; and, where JAX is
installed, against jax.lax itself.
"""
from __future__ import annotations

import itertools
import math
import sys
import zlib

import numpy as np
import pytest
from jnp_check import assert_close

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.test_util import check_grads

RNG = np.random.default_rng(7)


def check(fn, expected, *args, rtol=1e-5, atol=1e-5, dtype=None):
    """fn(*args) eagerly and under jit (array arguments traced) equals `expected`
    (an array, a list of numbers, or a tuple/dict of arrays)."""
    if isinstance(expected, list):
        expected = np.asarray(expected)
    for mode, out in (("eager", fn(*args)), ("jit", jaxc.jit(fn)(*args))):
        assert_close(out, expected, rtol, atol, mode)
        if dtype is not None:
            for leaf in jaxc.tree_util.tree_leaves(out):
                assert leaf.dtype == np.dtype(dtype), f"{mode}: dtype {leaf.dtype}"


def floats(*shape, dtype=np.float32):
    return RNG.normal(size=shape).astype(dtype)


# ---------------------------------------------------------------------------
# reduce_window
# ---------------------------------------------------------------------------

def _pads(shape, window, strides, wdil, padding):
    if not isinstance(padding, str):
        return [tuple(p) for p in padding]
    pads = []
    for n, w, s, d in zip(shape, window, strides, wdil):
        w = (w - 1) * d + 1
        if padding == "VALID":
            pads.append((0, 0))
            continue
        total = max((-(-n // s) - 1) * s + w - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def np_reduce_window(x, init, op, window, strides=None, padding="VALID", base=None, wdil=None):
    """XLA's ReduceWindow by loops: init combined with every operand element
    of each window (padding and dilation holes are skipped)."""
    x = np.asarray(x)
    nd = x.ndim
    strides = strides or (1,) * nd
    base = base or (1,) * nd
    wdil = wdil or (1,) * nd
    pads = _pads(x.shape, window, strides, wdil, padding)
    dilated = [(n - 1) * b + 1 for n, b in zip(x.shape, base)]
    padded = [d + lo + hi for d, (lo, hi) in zip(dilated, pads)]
    out_shape = [max((p - ((w - 1) * d + 1)) // s + 1, 0) for p, w, d, s in zip(padded, window, wdil, strides)]
    out = np.empty(out_shape, x.dtype)
    for idx in itertools.product(*map(range, out_shape)):
        acc = x.dtype.type(init)
        for off in itertools.product(*map(range, window)):
            src = []
            for i, o, s, d, (lo, _), b, n in zip(idx, off, strides, wdil, pads, base, x.shape):
                pos = i * s + o * d - lo  # position in the dilated operand
                if pos < 0 or pos % b or pos // b >= n:
                    break
                src.append(pos // b)
            else:
                acc = op(acc, x[tuple(src)])
        out[idx] = acc
    return out


REDUCE_WINDOW_CASES = [
    # window, strides, padding, base_dilation, window_dilation
    ((1, 3, 2), (1, 2, 1), "SAME", None, None),
    ((2, 2, 3), (1, 3, 2), "VALID", None, None),
    ((1, 2, 3), (1, 1, 2), ((0, 0), (1, 2), (2, 0)), None, (1, 2, 1)),
    ((1, 3, 2), (1, 2, 1), "SAME", (1, 2, 2), (1, 2, 1)),
    ((2, 1, 2), None, ((1, 0), (0, 1), (-1, 2)), (2, 1, 1), None),
]


@pytest.mark.parametrize("case", range(len(REDUCE_WINDOW_CASES)))
@pytest.mark.parametrize("name", ["add", "max", "min", "mul"])
def test_reduce_window_monoids(name, case):
    window, strides, padding, base, wdil = REDUCE_WINDOW_CASES[case]
    x = floats(2, 7, 6)
    if name == "mul":
        x = (1 + 0.1 * x).astype(np.float32)
    init = {"add": 0.0, "max": -np.inf, "min": np.inf, "mul": 1.0}[name]
    np_op = {"add": np.add, "max": np.maximum, "min": np.minimum, "mul": np.multiply}[name]
    expected = np_reduce_window(x, init, np_op, window, strides, padding, base, wdil)
    check(lambda v: lax.reduce_window(v, init, getattr(lax, name), window, strides, padding, base, wdil),
          expected, x, dtype=np.float32)


def test_reduce_window_init_that_is_no_identity_skips_padding():
    x = np.array([3.0, 5.0, 7.0], np.float32)
    # padding is skipped, the init value combined once (as XLA does)
    check(lambda v: lax.reduce_window(v, 2.0, lax.mul, (2,), (1,), ((1, 1),)), [6.0, 30.0, 70.0, 14.0], x)
    check(lambda v: lax.reduce_window(v, 1.0, lax.add, (2,), (1,), ((1, 1),)), [4.0, 9.0, 13.0, 8.0], x)
    y = floats(5, 6)
    for args in [((2, 3), (2, 1), "SAME", (2, 1), (1, 2)), ((3, 2), (1, 2), ((2, 1), (0, 3)), None, None)]:
        expected = np_reduce_window(y, 1.5, np.add, *args)
        check(lambda v: lax.reduce_window(v, 1.5, lax.add, *args), expected, y)


def test_reduce_window_generic_computation_and_pytrees():
    x = floats(6, 5)
    fn = lambda a, b: a * 0.5 + b  # noqa: E731 -- not associative: the row-major order matters
    expected = np_reduce_window(x, 0.25, fn, (2, 3), (1, 2), "SAME")
    check(lambda v: lax.reduce_window(v, 0.25, fn, (2, 3), (1, 2), "SAME"), expected, x)

    def pair(a, b):
        return (lax.max(a[0], b[0]), a[1] + b[1])
    expected = (np_reduce_window(x, -np.inf, np.maximum, (3, 2), (2, 1), "VALID"),
                np_reduce_window(2 * x, 0.0, np.add, (3, 2), (2, 1), "VALID"))
    check(lambda v: lax.reduce_window((v, 2 * v), (-np.inf, 0.0), pair, (3, 2), (2, 1), "VALID"), expected, x)


def test_reduce_window_integers_and_empty_output():
    xi = RNG.integers(-50, 50, size=(5, 7)).astype(np.int32)
    check(lambda v: lax.reduce_window(v, 0, lax.add, (2, 3), (2, 2), "SAME"),
          np_reduce_window(xi, 0, np.add, (2, 3), (2, 2), "SAME"), xi, dtype=np.int32)
    imin = np.iinfo(np.int32).min
    check(lambda v: lax.reduce_window(v, imin, lax.max, (3, 1), (1, 3), ((1, 1), (0, 0))),
          np_reduce_window(xi, imin, np.maximum, (3, 1), (1, 3), ((1, 1), (0, 0))), xi)
    # a window larger than the operand: an empty result
    out = lax.reduce_window(jnp.ones((3, 4)), 0.0, lax.add, (4, 1), (1, 1), "VALID")
    assert out.shape == (0, 4)


def test_reduce_window_errors():
    x = jnp.arange(5.0)
    with pytest.raises(TypeError, match="wrong number of window_dimensions"):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (1,), "VALID")
    with pytest.raises(TypeError, match="inconsistent window_strides"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (1, 1), "VALID")
    with pytest.raises(TypeError, match="strictly positive"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (0,), "VALID")
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (1,), "FOO")
    with pytest.raises(ValueError, match="tree structure"):
        lax.reduce_window((x, x), 0.0, lax.add, (2,), (1,), "VALID")


def test_reduce_window_vmap_and_grads(x64):
    x = floats(3, 6, 5, dtype=np.float64)
    f = lambda v: lax.reduce_window(v, -np.inf, lax.max, (2, 3), (2, 1), "SAME")  # noqa: E731
    batched = jaxc.vmap(f)(x)
    assert_close(batched, np.stack([np_reduce_window(v, -np.inf, np.maximum, (2, 3), (2, 1), "SAME") for v in x]))
    g = lambda v: lax.reduce_window(v, 0.0, lax.add, (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 2))  # noqa: E731
    assert_close(jaxc.vmap(g, in_axes=1)(x),
                 np.stack([np_reduce_window(x[:, i], 0.0, np.add, (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 2))
                           for i in range(6)]))
    check_grads(f, (x[0],), order=1, modes=("fwd", "rev"))
    check_grads(g, (x[0],), order=1, modes=("fwd", "rev"))
    # the gradient of a window sum: how many windows each element is in
    counts = jaxc.grad(lambda v: jnp.sum(lax.reduce_window(v, 0.0, lax.add, (3,), (1,), "VALID")))(x[0, 0])
    assert_close(counts, np.array([1.0, 2.0, 3.0, 2.0, 1.0]))


# ---------------------------------------------------------------------------
# reduce, reduce_xor
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, np_op, init", [
    ("add", np.add, 0.0), ("mul", np.multiply, 1.0), ("max", np.maximum, -np.inf), ("min", np.minimum, np.inf)])
def test_reduce_monoids(name, np_op, init):
    x = (1 + 0.1 * floats(3, 4, 5)).astype(np.float32)
    check(lambda v: lax.reduce(v, init, getattr(lax, name), (0, 2)), np_op.reduce(x, axis=(0, 2)), x)
    # an init value that is no identity is combined once (XLA's Reduce)
    check(lambda v: lax.reduce(v, 2.0, getattr(lax, name), (1,)), np_op(np_op.reduce(x, axis=1), 2.0), x)


def test_reduce_bitwise_and_generic():
    xi = RNG.integers(0, 1 << 20, size=(4, 9)).astype(np.int32)
    check(lambda v: lax.reduce(v, -1, lax.bitwise_and, (1,)), np.bitwise_and.reduce(xi, axis=1), xi)
    check(lambda v: lax.reduce(v, 0, lax.bitwise_or, (0,)), np.bitwise_or.reduce(xi, axis=0), xi)
    check(lambda v: lax.reduce(v, 0, lax.bitwise_xor, (0, 1)), np.bitwise_xor.reduce(xi, axis=None), xi)
    check(lambda v: lax.reduce_xor(v, (1,)), np.bitwise_xor.reduce(xi, axis=1), xi)
    b = RNG.random((3, 5)) < 0.5
    check(lambda v: lax.reduce_xor(v, (0,)), np.logical_xor.reduce(b, axis=0), b)
    # a non-commutative (but associative) computation: order is kept
    x = floats(7, 3)
    a, c = x, floats(7, 3)
    affine = lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1])  # noqa: E731 -- compose x -> a x + c
    ea, ec = np.ones(3, np.float32), np.zeros(3, np.float32)
    for i in range(7):
        ea, ec = affine((ea, ec), (a[i], c[i]))
    check(lambda u, w: lax.reduce((u, w), (1.0, 0.0), affine, (0,)), (ea, ec), a, c)
    # an argmax as a variadic reduction
    idx = np.broadcast_to(np.arange(7, dtype=np.int32)[:, None], (7, 3)).copy()

    def argmax(p, q):
        take = lax.gt(q[0], p[0])
        return (lax.select(take, q[0], p[0]), lax.select(take, q[1], p[1]))
    check(lambda u, i: lax.reduce((u, i), (-np.inf, 0), argmax, (0,)), (x.max(0), x.argmax(0).astype(np.int32)), x, idx)


def test_reduce_errors():
    x = jnp.arange(5.0)
    with pytest.raises(ValueError, match="out-of-bounds"):
        lax.reduce(x, 0.0, lax.add, (1,))
    with pytest.raises(ValueError, match="tree structure"):
        lax.reduce((x, x), 0.0, lax.add, (0,))
    with pytest.raises(TypeError, match="logical reduction"):
        lax.reduce_xor(x, (0,))


# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------

def np_conv(lhs, rhs, strides, pads, lhs_dil=None, rhs_dil=None, groups=1):
    """conv_general_dilated in NCHW/OIHW/NCHW by loops, float64."""
    lhs, rhs = np.asarray(lhs, np.float64), np.asarray(rhs, np.float64)
    nsp = lhs.ndim - 2
    lhs_dil = lhs_dil or (1,) * nsp
    rhs_dil = rhs_dil or (1,) * nsp
    # dilate, then pad (negative pads crop)
    dil_shape = lhs.shape[:2] + tuple((n - 1) * d + 1 for n, d in zip(lhs.shape[2:], lhs_dil))
    x = np.zeros(dil_shape)
    x[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dil)] = lhs
    for ax, (lo, hi) in enumerate(pads):
        axis = ax + 2
        x = np.concatenate([np.zeros(x.shape[:axis] + (max(lo, 0),) + x.shape[axis + 1:]), x,
                            np.zeros(x.shape[:axis] + (max(hi, 0),) + x.shape[axis + 1:])], axis)
        x = np.take(x, range(max(-lo, 0), x.shape[axis] - max(-hi, 0)), axis=axis)
    k_shape = tuple((k - 1) * d + 1 for k, d in zip(rhs.shape[2:], rhs_dil))
    w = np.zeros(rhs.shape[:2] + k_shape)
    w[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in rhs_dil)] = rhs
    out_sp = [(n - k) // s + 1 for n, k, s in zip(x.shape[2:], k_shape, strides)]
    out = np.zeros((lhs.shape[0], rhs.shape[0], *out_sp))
    per_group = rhs.shape[0] // groups
    for pos in itertools.product(*map(range, out_sp)):
        spans = tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, strides, k_shape))
        window = x[(slice(None), slice(None)) + spans]
        for g in range(groups):
            cin = slice(g * rhs.shape[1], (g + 1) * rhs.shape[1])
            cout = slice(g * per_group, (g + 1) * per_group)
            out[(slice(None), cout) + pos] = np.tensordot(window[:, cin], w[cout], axes=(range(1, nsp + 2),
                                                                                          range(1, nsp + 2)))
    return out


def _same_pads(shape, window, strides):
    out = []
    for n, w, s in zip(shape, window, strides):
        total = max((-(-n // s) - 1) * s + w - n, 0)
        out.append((total // 2, total - total // 2))
    return out


def test_conv_and_conv_with_general_padding():
    lhs, rhs = floats(2, 3, 9, 8), floats(4, 3, 3, 2)
    check(lambda a, b: lax.conv(a, b, (2, 1), "SAME"),
          np_conv(lhs, rhs, (2, 1), _same_pads((9, 8), (3, 2), (2, 1))), lhs, rhs, rtol=1e-4, atol=1e-4)
    check(lambda a, b: lax.conv(a, b, (1, 3), "VALID"), np_conv(lhs, rhs, (1, 3), [(0, 0), (0, 0)]), lhs, rhs,
          rtol=1e-4, atol=1e-4)
    pads = ((1, 0), (2, -1))
    check(lambda a, b: lax.conv_with_general_padding(a, b, (2, 1), pads, (1, 2), (2, 1)),
          np_conv(lhs, rhs, (2, 1), pads, (1, 2), (2, 1)), lhs, rhs, rtol=1e-4, atol=1e-4)


def np_conv_transpose(lhs, rhs, strides, padding, rhs_dil=None, transpose_kernel=False):
    """conv_transpose in NHWC/HWIO by the definition: a unit-stride conv of
    the input dilated by `strides`; "SAME"/"VALID" padding of the forward
    conv turned into the dilated input's padding (JAX's rule)."""
    nsp = lhs.ndim - 2
    rhs_dil = rhs_dil or (1,) * nsp
    if transpose_kernel:
        rhs = np.flip(rhs, tuple(range(nsp))).swapaxes(-1, -2)
    kernel = [(k - 1) * d + 1 for k, d in zip(rhs.shape[:nsp], rhs_dil)]
    if isinstance(padding, str):
        pads = []
        for k, s in zip(kernel, strides):
            if padding == "SAME":
                total = k + s - 2
                before = k - 1 if s > k - 1 else math.ceil(total / 2)
            else:
                total = k + s - 2 + max(k - s, 0)
                before = k - 1
            pads.append((before, total - before))
    else:
        pads = padding
    out = np_conv(np.moveaxis(lhs, -1, 1), np.moveaxis(rhs, (-1, -2), (0, 1)), (1,) * nsp, pads, strides, rhs_dil)
    return np.moveaxis(out, 1, -1)


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 2), (0, 1))])
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose(padding, transpose_kernel):
    lhs = floats(2, 5, 6, 3)
    rhs = floats(3, 2, 4, 3) if transpose_kernel else floats(3, 2, 3, 4)
    check(lambda a, b: lax.conv_transpose(a, b, (2, 3), padding, transpose_kernel=transpose_kernel),
          np_conv_transpose(lhs, rhs, (2, 3), padding, transpose_kernel=transpose_kernel), lhs, rhs,
          rtol=1e-4, atol=1e-4)


def test_conv_transpose_dilation_1d_and_layouts():
    lhs, rhs = floats(2, 5, 6, 3), floats(3, 2, 3, 4)
    check(lambda a, b: lax.conv_transpose(a, b, (2, 1), "SAME", rhs_dilation=(2, 1)),
          np_conv_transpose(lhs, rhs, (2, 1), "SAME", (2, 1)), lhs, rhs, rtol=1e-4, atol=1e-4)
    l1, r1 = floats(2, 7, 3), floats(4, 3, 2)
    check(lambda a, b: lax.conv_transpose(a, b, (3,), "VALID"), np_conv_transpose(l1, r1, (3,), "VALID"), l1, r1,
          rtol=1e-4, atol=1e-4)
    # NCHW/OIHW layouts give the NHWC result transposed
    expected = np.moveaxis(np_conv_transpose(lhs, rhs, (2, 2), "SAME"), -1, 1)
    check(lambda a, b: lax.conv_transpose(a, b, (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")),
          expected, np.moveaxis(lhs, -1, 1).copy(), np.transpose(rhs, (3, 2, 0, 1)).copy(), rtol=1e-4, atol=1e-4)


def test_conv_transpose_vmap_and_grads(x64):
    lhs, rhs = floats(3, 1, 4, 5, 2, dtype=np.float64), floats(2, 3, 2, 3, dtype=np.float64)
    f = lambda a, b: lax.conv_transpose(a, b, (2, 1), "SAME")  # noqa: E731
    assert_close(jaxc.vmap(f, in_axes=(0, None))(lhs, rhs),
                 np.stack([np_conv_transpose(a, rhs, (2, 1), "SAME") for a in lhs]))
    check_grads(f, (lhs[0], rhs), order=1, modes=("fwd", "rev"))


def np_patches(lhs, filter_shape, strides, pads, rhs_dil=None):
    """NCHW patches: out[n, c * prod(filter) + flat(k), *pos] by loops."""
    nsp = lhs.ndim - 2
    rhs_dil = rhs_dil or (1,) * nsp
    size = math.prod(filter_shape)
    x = np.pad(np.asarray(lhs, np.float64), [(0, 0), (0, 0)] + list(pads))
    out_sp = [(n - ((k - 1) * d + 1)) // s + 1 for n, k, d, s in zip(x.shape[2:], filter_shape, rhs_dil, strides)]
    out = np.zeros((lhs.shape[0], lhs.shape[1] * size, *out_sp))
    for c in range(lhs.shape[1]):
        for flat, k in enumerate(itertools.product(*map(range, filter_shape))):
            for pos in itertools.product(*map(range, out_sp)):
                src = tuple(p * s + kk * d for p, s, kk, d in zip(pos, strides, k, rhs_dil))
                out[(slice(None), c * size + flat) + pos] = x[(slice(None), c) + src]
    return out


def test_conv_general_dilated_patches():
    lhs = floats(2, 3, 6, 5)
    check(lambda a: lax.conv_general_dilated_patches(a, (2, 3), (1, 2), "SAME"),
          np_patches(lhs, (2, 3), (1, 2), _same_pads((6, 5), (2, 3), (1, 2))), lhs)
    check(lambda a: lax.conv_general_dilated_patches(a, (3, 2), (2, 1), ((1, 0), (0, 2)), rhs_dilation=(1, 2)),
          np_patches(lhs, (3, 2), (2, 1), ((1, 0), (0, 2)), (1, 2)), lhs)
    nhwc = np.moveaxis(lhs, 1, -1).copy()
    check(lambda a: lax.conv_general_dilated_patches(a, (2, 2), (2, 1), "VALID",
                                                     dimension_numbers=("NHWC", "HWIO", "NHWC")),
          np.moveaxis(np_patches(lhs, (2, 2), (2, 1), ((0, 0), (0, 0))), 1, -1), nhwc)


def test_batch_matmul():
    a, b = floats(3, 4, 5), floats(3, 5, 2)
    check(lax.batch_matmul, np.einsum("bij,bjk->bik", a, b), a, b, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="same ndim"):
        lax.batch_matmul(jnp.ones((2, 3)), jnp.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="at least 2D"):
        lax.batch_matmul(jnp.ones(3), jnp.ones(3))


# ---------------------------------------------------------------------------
# Slicing and shape conveniences
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("start", [2, -3, 8, -20])
def test_dynamic_in_dim_helpers(start):
    x = floats(4, 10)
    n = 10
    wrapped = start + n if start < 0 else start
    clamped = min(max(wrapped, 0), n - 3)
    for index in (start, np.int32(start)):
        check(lambda v: lax.dynamic_slice_in_dim(v, index, 3, axis=1), x[:, clamped:clamped + 3], x)
    check(lambda v, i: lax.dynamic_slice_in_dim(v, i, 3, 1), x[:, clamped:clamped + 3], x, np.int32(start))
    expected = x.copy()
    c2 = min(max(wrapped, 0), n - 2)
    expected[:, c2:c2 + 2] = 1.0
    check(lambda v, i: lax.dynamic_update_slice_in_dim(v, jnp.ones((4, 2)), i, 1), expected, x, np.int32(start))
    c1 = min(max(wrapped, 0), n - 1)
    check(lambda v, i: lax.dynamic_index_in_dim(v, i, 1, keepdims=False), x[:, c1], x, np.int32(start))
    check(lambda v, i: lax.dynamic_index_in_dim(v, i, -1), x[:, c1:c1 + 1], x, np.int32(start))


def test_existing_static_in_dim_helpers():
    x = floats(4, 10)
    check(lambda v: lax.slice_in_dim(v, 1, -2, 3, axis=1), x[:, 1:-2:3], x)
    check(lambda v: lax.index_in_dim(v, -1, 0, keepdims=False), x[-1], x)


def test_square_reciprocal_erfc(x64):
    x = floats(3, 4)
    check(lax.square, x * x, x, dtype=np.float32)
    check(lax.square, np.arange(5, dtype=np.int32) ** 2, np.arange(5, dtype=np.int32), dtype=np.int32)
    check(lax.reciprocal, 1 / x, x, dtype=np.float32)
    t = np.linspace(-3, 6, 19)
    check(lax.erfc, [math.erfc(v) for v in t], t, rtol=1e-13, atol=0, dtype=np.float64)
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        lax.reciprocal(jnp.arange(3))
    with pytest.raises(TypeError, match="erfc does not accept dtype int"):
        lax.erfc(jnp.arange(3))


def test_collapse_broadcast_to_rank_broadcast_shapes():
    x = floats(2, 3, 4, 5)
    check(lambda v: lax.collapse(v, 1, 3), x.reshape(2, 12, 5), x)
    check(lambda v: lax.collapse(v, -2), x.reshape(2, 3, 20), x)
    check(lambda v: lax.collapse(v, 0, -1), x.reshape(24, 5), x)
    with pytest.raises(ValueError, match="Invalid dimension range"):
        lax.collapse(x, 3, 1)
    check(lambda v: lax.broadcast_to_rank(v, 6), x.reshape(1, 1, 2, 3, 4, 5), x)
    check(lambda v: lax.broadcast_to_rank(v, 2), x, x)
    assert lax.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert lax.broadcast_shapes((5, 1, 4), (1, 3, 1), ()) == (5, 3, 4)
    with pytest.raises(ValueError):
        lax.broadcast_shapes((2,), (3,))


def test_select_n():
    cases = [floats(3, 5) for _ in range(5)]
    which = RNG.integers(0, 5, size=(3, 5)).astype(np.int32)
    expected = np.choose(which, cases)
    check(lambda w, *c: lax.select_n(w, *c), expected, which, *cases)
    check(lambda w, *c: lax.select_n(w, *c), np.choose(which.astype(np.uint8) % 3, cases[:3]),
          (which % 3).astype(np.uint8), *cases[:3])
    pred = cases[0] > 0
    check(lambda p, a, b: lax.select_n(p, a, b), np.where(pred, cases[1], cases[0]), pred, cases[0], cases[1])
    check(lambda a, b: lax.select_n(np.int32(1), a, b), cases[1], cases[0], cases[1])
    check(lambda a: lax.select_n(which, a), cases[0], cases[0])
    with pytest.raises(ValueError, match="at least one case"):
        lax.select_n(True)
    with pytest.raises(TypeError, match="cannot have > 2 cases"):
        lax.select_n(pred, *cases[:3])
    with pytest.raises(TypeError, match="boolean or integer"):
        lax.select_n(cases[0], cases[0], cases[1])
    with pytest.raises(TypeError, match="same shape as cases"):
        lax.select_n(which[0], cases[0], cases[1])


# ---------------------------------------------------------------------------
# top_k, associative_scan, cumlogsumexp
# ---------------------------------------------------------------------------

def np_top_k(x, k, axis=-1):
    x = np.moveaxis(np.asarray(x), axis, -1)
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]  # ties: lower index first
    return (np.moveaxis(np.take_along_axis(x, order, -1), -1, axis),
            np.moveaxis(order.astype(np.int32), -1, axis))


@pytest.fixture(params=["library", "program"])
def top_k_route(request):
    """The call of top_k.c (f32 and f64 on the CPU, the default) or the
    expanded program (`jaxc-expand-top-k`: every other element type, the
    GPU, library calls off)."""
    from jaxc.passes import host
    with host.override(library_calls=request.param == "library"):
        yield request.param


def test_top_k(top_k_route):
    x = floats(4, 9)
    check(lambda v: lax.top_k(v, 4), np_top_k(x, 4), x)
    check(lambda v: lax.top_k(v, 2, axis=0), np_top_k(x, 2, axis=0), x)
    ties = np.array([[3, 1, 3, 2, 3, 1], [0, 0, 0, 0, 0, 0]], np.int32)
    check(lambda v: lax.top_k(v, 4), np_top_k(ties, 4), ties, dtype=None)
    u = np.array([1, 5, 5, 2], np.uint32)
    check(lambda v: lax.top_k(v, 3), (np.array([5, 5, 2], np.uint32), np.array([1, 2, 3], np.int32)), u)
    # NaN ranks first and 0.0 above -0.0 (as JAX's top_k)
    s = np.array([1.0, np.nan, -0.0, 0.0, 3.0, 1.0], np.float32)
    values, indices = lax.top_k(s, 6)
    assert_close(indices, np.array([1, 4, 0, 5, 3, 2], np.int32))
    assert np.signbit(np.asarray(values)[-1]) and not np.signbit(np.asarray(values)[-2])
    # a NaN with the sign bit set ranks below -inf (the order of the bits; JAX 0.10.2's indices)
    s = np.array([-np.inf, -np.nan, 0.0, -0.0, np.inf, np.nan, 2.0], np.float32)
    assert_close(lax.top_k(s, 7)[1], np.array([5, 4, 6, 2, 3, 0, 1], np.int32))
    assert_close(lax.top_k(np.array([1.0, 3.0, np.nan, -np.nan], np.float32), 4)[1], np.array([2, 1, 0, 3], np.int32))
    check(lambda v: lax.top_k(v, 0)[0], np.zeros((4, 0), np.float32), x)
    with pytest.raises(ValueError, match="nonnegative"):
        lax.top_k(x, -1)
    with pytest.raises(ValueError, match="no larger than size"):
        lax.top_k(x, 10)


def test_top_k_vmap_and_grads(x64, top_k_route):
    x = floats(3, 7, dtype=np.float64)
    values, indices = jaxc.vmap(lambda v: lax.top_k(v, 3))(x)
    expected = [np_top_k(v, 3) for v in x]
    assert_close((values, indices), (np.stack([e[0] for e in expected]), np.stack([e[1] for e in expected])))
    check_grads(lambda v: lax.top_k(v, 3)[0], (x,), order=1, modes=("fwd", "rev"))


def special_values(shape, dtype, rng):
    """`shape` of `dtype` with many ties, both zeros, both infinities and
    NaNs of both signs (floats), or the extremes (integers)."""
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, info.min + 1, 7, 7, 7], dtype)
        return np.where(rng.random(shape) < 0.3, rng.choice(pool, shape),
                        rng.integers(info.min, int(info.max) + 1, shape, dtype=np.int64).astype(dtype))
    pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, 1.5, -2.0], np.float64)
    values = np.where(rng.random(shape) < 0.3, rng.choice(pool, shape), rng.normal(size=shape))
    return values.astype(dtype)


# (shape, k): chunked rounds (the last chunk padded, or not), plain rounds, and
# a k large enough for the sort
TOP_K_CASES = [((3, 1000), 3), ((2, 4099), 7), ((5, 64), 8), ((4, 50), 1), ((2, 100), 60), ((1, 1), 1)]


@pytest.mark.parametrize("shape,k", TOP_K_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, "bfloat16", np.int32, np.uint8, np.int8,
                                   np.bool_], ids=str)
def test_top_k_in_the_order_of_the_bits(shape, k, dtype, x64, top_k_route):
    """Every path of top_k (chunk filter, rounds, sort) against NumPy in
    top_k's total order: bits of the values and indices exact."""
    import ml_dtypes
    from fuzz_programs import np_top_k as np_top_k_total
    dtype = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    if dtype == np.bool_ and k > 1:
        k = 1 if shape[-1] == 1 else 2
    rng = np.random.default_rng(zlib.crc32(repr((shape, k, str(dtype))).encode()))
    x = special_values(shape, dtype, rng)
    values, indices = jaxc.jit(lambda v: lax.top_k(v, k))(x)
    want_values, want_indices = np_top_k_total(x, k)
    np.testing.assert_array_equal(np.asarray(indices), want_indices)
    assert np.asarray(indices).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(values).view(np.uint8), want_values.view(np.uint8))
    if dtype != np.bool_:
        tied = np.full(shape, 3, dtype)  # all equal: the first k indices
        np.testing.assert_array_equal(np.asarray(lax.top_k(tied, k)[1]), np.broadcast_to(np.arange(k), shape[:-1] + (k,)))


def test_top_k_chunked_along_every_axis_vmap_and_grads(x64, top_k_route):
    """The chunk filter along a middle axis and under vmap (a loop as
    reference), gradients (float64 finite differences) and JAX itself."""
    from fuzz_programs import np_top_k as np_top_k_total
    x = floats(3, 700, 4, dtype=np.float64)
    x[1, 650:, 2] = x[1, 0, 2] = 9.0  # ties in the first and the last chunk
    values, indices = jaxc.jit(lambda v: lax.top_k(v, 5, axis=1))(x)
    want = np_top_k_total(x, 5, axis=1)
    np.testing.assert_array_equal(np.asarray(indices), want[1])
    np.testing.assert_array_equal(np.asarray(values), want[0])
    batched = jaxc.vmap(lambda v: lax.top_k(v, 4), in_axes=2, out_axes=0)(x)
    for j in range(x.shape[2]):
        loop = np_top_k_total(x[:, :, j], 4)
        np.testing.assert_array_equal(np.asarray(batched[1][j]), loop[1])
        np.testing.assert_array_equal(np.asarray(batched[0][j]), loop[0])
    check_grads(lambda v: lax.top_k(v, 3)[0], (floats(2, 300, dtype=np.float64),), order=1, modes=("fwd", "rev"))
    jax = pytest.importorskip("jax")
    y = special_values((6, 2000), np.float32, np.random.default_rng(3))
    theirs = jax.lax.top_k(y, 9)
    ours = lax.top_k(y, 9)
    np.testing.assert_array_equal(np.asarray(ours[1]), np.asarray(theirs[1]))
    np.testing.assert_array_equal(np.asarray(ours[0]).view(np.uint32), np.asarray(theirs[0]).view(np.uint32))


@pytest.mark.parametrize("dtype, call", [(np.float32, "jaxc_top_k_f32"), (np.float64, "jaxc_top_k_f64")])
def test_the_cpu_calls_the_compiled_top_k(dtype, call, x64):
    lowered = jaxc.jit(lambda v: lax.top_k(v, 4, axis=0)).lower(floats(50, 3, dtype=dtype))
    assert "jaxc.top_k %" in lowered.as_text(stage="traced")
    assert "jaxc.top_k %" in lowered.as_text(stage="optimized")
    assert "jaxc.scan" not in lowered.as_text(stage="optimized")
    assert f"call @{call}(%c3, %c50, %c4, " in lowered.as_text(stage="loops")


@pytest.mark.parametrize("dtype", [np.int32, np.float16])
def test_top_k_of_other_elements_is_a_program(dtype):
    lowered = jaxc.jit(lambda v: lax.top_k(v, 4)).lower(floats(3, 50).astype(dtype))
    assert "jaxc.top_k %" in lowered.as_text(stage="traced")
    optimized = lowered.as_text(stage="optimized")
    assert "jaxc.top_k %" not in optimized and "jaxc.scan" in optimized
    assert "jaxc_top_k" not in lowered.as_text(stage="loops")


def test_the_gpu_stages_expand_top_k():
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages
    text = jaxc.jit(lambda v: lax.top_k(v, 4)).lower(floats(3, 50)).as_text(stage="transformed")
    module = ir.Module.parse(text, make_context())
    stages.run_stages(module, "optimized", target="cuda", first="transformed")
    assert "jaxc.top_k %" not in str(module) and "jaxc.scan" in str(module)


@pytest.mark.parametrize("shape, k", [((0, 5), 2), ((3, 5), 0), ((2, 0), 0)], ids=str)
def test_top_k_of_nothing_and_its_derivatives(shape, k, top_k_route):
    """No rows, or k = 0: empty results, and zero (or empty) derivatives."""
    x = np.ones(shape, np.float32)
    values, indices = jaxc.jit(lambda v: lax.top_k(v, k))(x)
    assert values.shape == indices.shape == shape[:-1] + (k,)
    grad = jaxc.grad(lambda v: lax.top_k(v, k)[0].sum())(x)
    np.testing.assert_array_equal(np.asarray(grad), np.zeros(shape, np.float32))
    tangent = jaxc.jvp(lambda v: lax.top_k(v, k)[0], (x,), (x,))[1]
    assert tangent.shape == shape[:-1] + (k,)


def test_top_k_rejects_complex_as_jax():
    with pytest.raises(ValueError, match="top_k is not compatible with complex inputs"):
        lax.top_k(np.ones(4, np.complex64), 2)


def np_scan(fn, xs, reverse=False):
    out, acc = [], None
    for x in (xs[::-1] if reverse else xs):
        acc = x if acc is None else fn(acc, x)
        out.append(acc)
    return np.stack(out[::-1] if reverse else out)


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_add(n, reverse):
    x = floats(3, n)
    expected = np.moveaxis(np_scan(np.add, list(x.T.astype(np.float64)), reverse), 0, 1)
    check(lambda v: lax.associative_scan(lax.add, v, reverse=reverse, axis=1), expected, x)
    check(lambda v: lax.associative_scan(jnp.add, v, reverse, -1), expected, x)


def test_associative_scan_pytrees_and_noncommutative():
    a, c = floats(11, 2), floats(11, 2)

    def affine(p, q):  # x -> a x + c, then the next one
        return {"a": p["a"] * q["a"], "c": p["c"] * q["a"] + q["c"]}
    for reverse in (False, True):
        seq = list(zip(a, c))
        acc, outs = None, []
        for pair in (seq[::-1] if reverse else seq):
            acc = pair if acc is None else (acc[0] * pair[0], acc[1] * pair[0] + pair[1])
            outs.append(acc)
        outs = outs[::-1] if reverse else outs
        expected = {"a": np.stack([o[0] for o in outs]), "c": np.stack([o[1] for o in outs])}
        check(lambda u, w: lax.associative_scan(affine, {"a": u, "c": w}, reverse=reverse), expected, a, c)
    # matrix products: associative, not commutative
    m = (np.eye(2) + 0.3 * floats(6, 2, 2)).astype(np.float32)
    check(lambda v: lax.associative_scan(lambda p, q: jnp.matmul(p, q), v),
          np_scan(np.matmul, list(m.astype(np.float64))), m, rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="should be callable"):
        lax.associative_scan(3, a)
    with pytest.raises(ValueError, match="same first dimension"):
        lax.associative_scan(lax.add, (a, a[:3]))


def test_associative_scan_vmap_and_grads(x64):
    x = floats(4, 9, dtype=np.float64)
    f = lambda v: lax.associative_scan(lax.add, v, reverse=True)  # noqa: E731
    assert_close(jaxc.vmap(f)(x), np.stack([np.cumsum(v[::-1])[::-1] for v in x]))
    check_grads(f, (x[0],), order=1, modes=("fwd", "rev"))
    g = lambda v: lax.associative_scan(lax.mul, v, axis=1)  # noqa: E731
    check_grads(g, (x,), order=1, modes=("fwd", "rev"))


def test_cumlogsumexp(x64):
    x = floats(3, 8)
    check(lambda v: lax.cumlogsumexp(v, 1), np.logaddexp.accumulate(x.astype(np.float64), axis=1), x,
          dtype=np.float32)
    big = 50 * x  # exp overflows float32: the scan must not
    expected = np.logaddexp.accumulate(big.astype(np.float64)[:, ::-1], axis=1)[:, ::-1]
    check(lambda v: lax.cumlogsumexp(v, axis=1, reverse=True), expected, big, rtol=1e-5, atol=1e-4)
    edges = np.array([-np.inf, 0.0, np.inf, 1.0, -np.inf], np.float32)
    check(lax.cumlogsumexp, [-np.inf, 0.0, np.inf, np.inf, np.inf], edges)
    check(lambda v: lax.cumlogsumexp(v, 0), np.logaddexp.accumulate(x.astype(np.float64), axis=0), x)
    x64v = floats(3, 6, dtype=np.float64)
    assert_close(jaxc.vmap(lambda v: lax.cumlogsumexp(v))(x64v), np.logaddexp.accumulate(x64v, axis=1), rtol=1e-12)
    check_grads(lambda v: lax.cumlogsumexp(v, 1), (x64v,), order=1, modes=("fwd", "rev"))
    with pytest.raises(TypeError):
        lax.cumlogsumexp(jnp.arange(4))


# ---------------------------------------------------------------------------
# Special functions
# ---------------------------------------------------------------------------

def np_zeta(x, q, terms=20000):
    """Hurwitz zeta: a direct sum and the first Euler-Maclaurin corrections (float64)."""
    n = np.arange(terms, dtype=np.float64)
    w = q + terms
    return np.sum((n + q) ** -x) + w ** (1 - x) / (x - 1) + 0.5 * w ** -x + x * w ** (-x - 1) / 12


def test_zeta(x64):
    xs = np.array([2.0, 4.0, 2.0, 3.0, 2.5, 6.0, 1.5, 30.0, 3.0, 2.0])
    qs = np.array([1.0, 1.0, 0.5, 1.0, 0.3, 2.7, 4.0, 2.0, 100.0, -2.5])
    expected = [np_zeta(x, q) for x, q in zip(xs, qs)]
    expected[:4] = [math.pi ** 2 / 6, math.pi ** 4 / 90, math.pi ** 2 / 2, 1.2020569031595942]
    check(lax.zeta, expected, xs, qs, rtol=1e-10, atol=0)
    check(lax.zeta, np.array(expected, np.float32), xs.astype(np.float32), qs.astype(np.float32), rtol=2e-5)
    # x < 1: NaN; x == 1: inf; q a non-positive integer: inf
    check(lax.zeta, [np.nan, np.inf, np.inf, np.inf], np.array([0.5, 1.0, 2.0, 3.0]), np.array([1.0, 1.0, 0.0, -2.0]))
    with pytest.raises(TypeError, match="subtypes of floating"):
        lax.zeta(jnp.arange(3), jnp.arange(3))


def test_polygamma(x64):
    ms = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 1.0, 4.0])
    xs = np.array([1.0, 1.0, 0.5, 1.0, 2.5, 7.3, 0.2])
    expected = [-0.5772156649015329, math.pi ** 2 / 6, math.pi ** 2 / 2, -2 * 1.2020569031595942] + [
        (-1) ** (m + 1) * math.factorial(int(m)) * np_zeta(m + 1, x) for m, x in zip(ms[4:], xs[4:])]
    check(lax.polygamma, expected, ms, xs, rtol=1e-10, atol=0)
    check(lax.polygamma, [np.nan, np.nan], np.array([1.5, -1.0]), np.array([1.0, 1.0]))


def np_igamma(a, x):
    """P(a, x) in float64 by the power series (converges for every x)."""
    if x == 0:
        return 0.0
    term, total, n = 1.0, 1.0, 0
    while term > 1e-17 * total:
        n += 1
        term *= x / (a + n)
        total += term
    return math.exp(a * math.log(x) - x - math.lgamma(a + 1)) * total


def test_igamma_igammac(x64):
    a = np.array([1.0, 0.5, 2.0, 5.0, 30.0, 100.0, 3.0, 1e-3, 0.5, 7.5, 50.0])
    x = np.array([0.3, 2.0, 0.5, 7.0, 25.0, 110.0, 0.5, 2.0, 40.0, 3.0, 49.0])
    p = np.array([np_igamma(ai, xi) for ai, xi in zip(a, x)])
    p[0] = 1 - math.exp(-0.3)
    p[1] = math.erf(math.sqrt(2.0))
    check(lax.igamma, p, a, x, rtol=1e-10, atol=1e-15)
    q = 1 - p
    q[8] = math.erfc(math.sqrt(40.0))  # tiny: the continued fraction keeps it accurate
    check(lax.igammac, q, a, x, rtol=1e-9, atol=1e-15)
    check(lax.igamma, p.astype(np.float32), a.astype(np.float32), x.astype(np.float32), rtol=5e-5, atol=1e-6)
    # edges: x == 0, a == 0, x == inf, negative arguments
    ea = np.array([1.0, 0.0, 2.0, -1.0, 2.0, 0.0])
    ex = np.array([0.0, 1.0, np.inf, 1.0, -1.0, 0.0])
    check(lax.igamma, [0.0, 1.0, 1.0, np.nan, np.nan, np.nan], ea, ex)
    check(lax.igammac, [1.0, 0.0, 0.0, np.nan, np.nan, np.nan], ea, ex)
    with pytest.raises(TypeError, match="subtypes of floating"):
        lax.igamma(1, 2)


# ---------------------------------------------------------------------------
# Against JAX itself, where it is installed
# ---------------------------------------------------------------------------

@pytest.fixture
def jax_lax():
    jax = pytest.importorskip("jax")
    yield jax.lax
    if "jax" in sys.modules:
        sys.modules["jax"].config.update("jax_enable_x64", False)


JAX_CASES = {
    "reduce_window_max": lambda L, x: L.reduce_window(x, -np.inf, L.max, (1, 3, 2), (1, 2, 1), "SAME", (1, 2, 1),
                                                      (1, 1, 2)),
    "reduce_window_mul_init": lambda L, x: L.reduce_window(x, 2.0, L.mul, (1, 2, 2), None, ((0, 0), (1, 1), (0, 1))),
    "reduce_generic": lambda L, x: L.reduce((x, x), (0.0, -np.inf), lambda a, b: (a[0] + b[0], L.max(a[1], b[1])),
                                            (1,)),
    "conv_transpose": lambda L, x: L.conv_transpose(x[None, :, :, :3], x[None, :2, :2, :3], (2, 1), "SAME",
                                                    transpose_kernel=True),
    "patches": lambda L, x: L.conv_general_dilated_patches(x[None], (2, 3), (1, 2), "SAME"),
    "top_k": lambda L, x: L.top_k(x, 3, axis=1),
    "cumlogsumexp": lambda L, x: L.cumlogsumexp(x, 2, reverse=True),
    "associative_scan": lambda L, x: L.associative_scan(lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]),
                                                        (x, x + 1), axis=1),
    "select_n": lambda L, x: L.select_n((x[0] > 0).astype(np.int32) + (x[1] > 0).astype(np.int32), x[0], x[1], x[2]),
    "zeta": lambda L, x: L.zeta(2.0 + x * x, 0.5 + x * x),
    "polygamma": lambda L, x: L.polygamma(np.float32(2.0), 0.5 + x * x),
    "igamma": lambda L, x: L.igamma(0.5 + x * x, 2 * x * x),
    "igammac": lambda L, x: L.igammac(3.0 + x, 2 * x * x),
}


@pytest.mark.parametrize("name", sorted(JAX_CASES))
def test_against_jax(name, jax_lax):
    x = floats(3, 7, 6)
    fn = JAX_CASES[name]
    expected = [np.asarray(leaf) for leaf in jaxc.tree_util.tree_leaves(fn(jax_lax, x))]
    assert_close(fn(lax, x), expected, rtol=2e-4, atol=2e-5, what=name)
