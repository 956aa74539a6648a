"""jaxc-batch rules of reduce, argmax/argmin, cumulative, sort
(passes/batching/reductions.py) and conv_general_dilated
(passes/batching/linalg.py): vmap(f) against stacking f over a loop, for
several mapped axes and out_axes, and one op per vmapped op in the IR."""
from __future__ import annotations

import numpy as np
import pytest
from batching_util import check_vmap

import jaxc
from jaxc import lax, numpy as jnp

RNG = np.random.RandomState(0)


def _floats(*shape):
    return RNG.randn(*shape).astype(np.float32)


def _ints(*shape, high=4):
    return RNG.randint(0, high, size=shape).astype(np.int32)


def _vmapped_ir(f, args, in_axes=0, out_axes=0) -> str:
    """The public function's text after jaxc-batch (the request inlined)."""
    text = jaxc.jit(jaxc.vmap(f, in_axes=in_axes, out_axes=out_axes)).lower(*args).as_text("transformed")
    start = text.index("func.func @")
    return text[start:text.index("\n  }", start)]


# ---------------------------------------------------------------------------
# reduce
# ---------------------------------------------------------------------------

X = _floats(4, 3, 5)  # mapped axis of size 4, 3 or 5 depending on in_axes


@pytest.mark.parametrize("in_axis,out_axis", [(0, 0), (1, 0), (-1, 1), (2, 1), (3, -1)])
def test_sum_over_several_axes(in_axis, out_axis):
    x = _floats(4, 3, 5, 2)
    check_vmap(lambda x: jnp.sum(x, axis=(0, 2)), [x], in_axis, out_axis, rtol=1e-5)
    check_vmap(lambda x: jnp.sum(x, axis=(0, 1, 2)), [x], in_axis, 0, rtol=1e-5)


@pytest.mark.parametrize("reduce", [
    lambda x: jnp.max(x, axis=0),
    lambda x: jnp.min(x, axis=(0, 1), keepdims=True),
    lambda x: jnp.prod(x, axis=1),
    lambda x: lax.reduce_max(x, (0, 1)),
], ids=["max", "min_keepdims", "prod", "reduce_max_all"])
def test_reduce_kinds(reduce):
    check_vmap(reduce, [X], 1, 0, rtol=1e-5)


def test_reduce_logical_and_integer():
    flags = RNG.rand(3, 4, 2) > 0.3
    check_vmap(lambda b: jnp.all(b, axis=0), [flags], -1, 0)
    check_vmap(lambda b: jnp.any(b, axis=(0, 1)), [flags], 1, 0)
    check_vmap(lambda i: jnp.sum(i, axis=1), [_ints(3, 4, 2, high=100)], 2, 1)


def test_reduce_of_an_unbatched_and_a_batched_operand():
    w = _floats(3, 5)
    check_vmap(lambda x, w: jnp.sum(x * w, axis=1) + jnp.sum(w), [X, w], (0, None), 1, rtol=1e-5)


def test_nested_vmap_of_a_reduce():
    inner = jaxc.vmap(lambda x: jnp.max(x, axis=0), in_axes=1)
    check_vmap(inner, [X], 2, 1)


# ---------------------------------------------------------------------------
# argmax / argmin
# ---------------------------------------------------------------------------

TIES = _ints(4, 3, 6, high=3)  # many ties: the first index must win


@pytest.mark.parametrize("in_axis,out_axis", [(0, 0), (1, 1), (-1, 0)])
def test_argmax_with_ties(in_axis, out_axis):
    check_vmap(lambda x: jnp.argmax(x, axis=-1), [TIES], in_axis, out_axis)


def test_argmin_and_argmax_variants():
    check_vmap(lambda x: jnp.argmin(x, axis=0), [TIES], 2, 1)
    check_vmap(lambda x: jnp.argmax(x, axis=1, keepdims=True), [TIES], -1, 0)
    check_vmap(lambda x: jnp.argmax(x), [TIES], 1, 0)  # flattened
    nan = X.copy()
    nan[1, 2, 3] = np.nan
    check_vmap(lambda x: lax.argmin(x, 1, np.int32), [nan], 0, 1)


# ---------------------------------------------------------------------------
# cumulative
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("in_axis,out_axis", [(0, 0), (1, 1), (-1, 0), (2, 2)])
def test_cumsum(in_axis, out_axis):
    check_vmap(lambda x: jnp.cumsum(x, axis=1), [X], in_axis, out_axis, rtol=1e-5)


@pytest.mark.parametrize("cumulative", [
    lambda x: lax.cumprod(x, axis=0, reverse=True),
    lambda x: lax.cummax(x, axis=1),
    lambda x: lax.cummin(x, axis=1, reverse=True),
    lambda x: lax.cumsum(x, axis=0, reverse=True),
], ids=["cumprod_reverse", "cummax", "cummin_reverse", "cumsum_reverse"])
def test_cumulative_kinds(cumulative):
    check_vmap(cumulative, [X], 1, 0, rtol=1e-5)


def test_cumsum_integer_flattened():
    check_vmap(lambda i: jnp.cumsum(i), [_ints(3, 2, 4, high=50)], -1, 1)


# ---------------------------------------------------------------------------
# sort
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("in_axis,out_axis,axis", [(0, 0, -1), (1, 0, 0), (-1, 1, 1), (2, 1, -1)])
def test_jnp_sort(in_axis, out_axis, axis):
    check_vmap(lambda x: jnp.sort(x, axis=axis), [X], in_axis, out_axis)


def test_sort_several_operands_some_batched():
    keys = _ints(4, 5, high=2)                   # batched along 0
    keys2 = _ints(5, high=3)                     # unbatched
    values = np.arange(5 * 4, dtype=np.float32).reshape(5, 4)  # batched along 1

    def f(k1, k2, v):
        return lax.sort((k1, k2, v), dimension=0, num_keys=2)
    check_vmap(f, [keys, keys2, values], (0, None, 1), 0)
    check_vmap(f, [keys, keys2, values], (0, None, 1), 1)


def test_sort_unbatched_keys_batched_values():
    keys = _ints(6, high=3)  # ties: stability decides among equal keys
    values = _floats(3, 6)
    check_vmap(lambda k, v: lax.sort_key_val(k, v), [keys, values], (None, 0), 1)


def test_sort_one_key_stable_and_unstable():
    keys = _ints(2, 5, 3, high=3)  # mapped along -1
    values = _floats(3, 2, 5)      # mapped along 0
    check_vmap(lambda k, v: lax.sort((k, v), dimension=1, is_stable=True), [keys, values], (-1, 0), 0)
    distinct = RNG.permutation(30).reshape(2, 3, 5).astype(np.float32)  # no ties: any order is the order
    check_vmap(lambda k, v: lax.sort((k, v), dimension=0, is_stable=False), [distinct, _floats(2, 3, 5)],
               (1, 1), 1)


def test_argsort_broadcasts_its_iota():
    check_vmap(lambda x: jnp.argsort(x, axis=0), [TIES], 2, 0)


# ---------------------------------------------------------------------------
# conv_general_dilated
# ---------------------------------------------------------------------------

def _conv(dimension_numbers=None, strides=(1, 1), padding="SAME", groups=1, batch_groups=1, **kw):
    def f(lhs, rhs):
        return lax.conv_general_dilated(lhs, rhs, strides, padding, dimension_numbers=dimension_numbers,
                                        feature_group_count=groups, batch_group_count=batch_groups, **kw)
    return f


def _stacked(x, size, axis):
    """`size` different copies of `x` stacked along `axis` (None: `x`)."""
    if axis is None:
        return x
    return np.stack([x + _floats(*x.shape) for _ in range(size)], axis=axis % (x.ndim + 1))


CONV_TOL = dict(rtol=1e-4, atol=1e-4)
NHWC = ("NHWC", "HWIO", "NHWC")


@pytest.mark.parametrize("in_axes,out_axis", [((0, None), 0), ((1, None), 1), ((-1, None), 0)])
def test_conv_lhs_batched_nchw(in_axes, out_axis):
    lhs, rhs = _floats(2, 3, 6, 5), _floats(4, 3, 3, 2)
    f = _conv(strides=(2, 1), padding=((1, 0), (0, 1)), rhs_dilation=(1, 2))
    check_vmap(f, [_stacked(lhs, 3, in_axes[0]), rhs], in_axes, out_axis, **CONV_TOL)


@pytest.mark.parametrize("in_axes,out_axis,groups", [((None, 0), 0, 1), ((None, -1), 1, 2),
                                                     ((None, 2), 0, 4)])
def test_conv_rhs_batched_nhwc_feature_groups(in_axes, out_axis, groups):
    lhs, rhs = _floats(2, 5, 4, 4), _floats(3, 2, 4 // groups, 8)
    check_vmap(_conv(NHWC, groups=groups), [lhs, _stacked(rhs, 3, in_axes[1])], in_axes, out_axis,
               **CONV_TOL)


@pytest.mark.parametrize("in_axes,out_axis,groups", [((0, 0), 0, 1), ((1, -1), 1, 2), ((0, 3), 0, 2)])
def test_conv_both_batched_nhwc(in_axes, out_axis, groups):
    lhs, rhs = _floats(2, 5, 4, 4), _floats(3, 2, 4 // groups, 6)
    check_vmap(_conv(NHWC, groups=groups), [_stacked(lhs, 3, in_axes[0]), _stacked(rhs, 3, in_axes[1])],
               in_axes, out_axis, **CONV_TOL)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 1), (2, 0)])
def test_conv_batch_groups(in_axes):
    # lhs batch 4 in 2 groups; rhs output features 6 in 2 groups
    lhs, rhs = _floats(4, 3, 5, 5), _floats(6, 3, 2, 2)
    f = _conv(padding="VALID", batch_groups=2)
    check_vmap(f, [_stacked(lhs, 2, in_axes[0]), _stacked(rhs, 2, in_axes[1])], in_axes, 1, **CONV_TOL)


def test_conv_1d_dilated_lhs_batched_and_rhs_batched():
    lhs, rhs = _floats(2, 7, 3), _floats(3, 3, 4)  # NWC, WIO
    f = _conv(("NWC", "WIO", "NWC"), strides=(2,), padding=((2, 1),), lhs_dilation=(2,))
    check_vmap(f, [_stacked(lhs, 3, 1), rhs], (1, None), 0, **CONV_TOL)
    check_vmap(f, [lhs, _stacked(rhs, 3, 0)], (None, 0), 1, **CONV_TOL)


def test_nested_vmap_of_conv():
    lhs, rhs = _floats(2, 5, 4, 4), _floats(3, 2, 2, 4)
    inner = jaxc.vmap(_conv(NHWC, groups=2), in_axes=(0, None))
    check_vmap(inner, [_stacked(_stacked(lhs, 2, 0), 3, 1), _stacked(rhs, 3, 0)], (1, 0), 0, **CONV_TOL)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_conv_is_one_conv_for_the_whole_batch(in_axes):
    lhs, rhs = _floats(2, 5, 4, 4), _floats(3, 2, 2, 4)
    args = [_stacked(lhs, 3, in_axes[0]), _stacked(rhs, 3, in_axes[1])]
    body = _vmapped_ir(_conv(NHWC, groups=2), args, in_axes)
    assert body.count("jaxc.conv_general_dilated") == 1, body
    groups = "feature_group_count = 6" if in_axes == (0, 0) else "feature_group_count = 2"
    assert groups in body, body


def test_reductions_and_sort_are_one_op_each():
    body = _vmapped_ir(lambda x: (jnp.sum(x, axis=0), jnp.argmax(x, axis=1), jnp.cumsum(x, axis=0),
                                  jnp.sort(x, axis=0)), [X], 2)
    for name in ("jaxc.reduce", "jaxc.argmax", "jaxc.cumulative", "jaxc.sort"):
        assert body.count(name) == 1, (name, body)
