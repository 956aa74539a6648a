"""vmap of the shape and indexing ops (passes/batching/shape.py) against a
Python loop: every op with its operands batched or not in each combination,
the mapped axis first, in the middle and last, results at out_axes 0 and 1.
Indexing cases include out-of-range starts (gather and dynamic_slice clamp,
dynamic_update_slice clamps, scatter drops), duplicate indices for
scatter-add, and index vectors before, inside and after the indices."""
from __future__ import annotations

import numpy as np
import pytest
from batching_util import check_vmap

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.lax import _ops

B = 3  # the batch size
U = None  # an unbatched operand


def _shape(shape, axis):
    """`shape` with the batch dimension inserted at `axis` (None: not at all)."""
    if axis is None:
        return tuple(shape)
    pos = axis % (len(shape) + 1)
    return (*shape[:pos], B, *shape[pos:])


def _floats(rng, shape, axis, dtype=np.float32):
    return rng.standard_normal(_shape(shape, axis)).astype(dtype)


def _ints(rng, shape, axis, low, high, dtype=np.int32):
    return rng.integers(low, high, _shape(shape, axis)).astype(dtype)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def _axes_cases(n):
    """in_axes for n array operands: each alone batched at 0, 1 and -1, and all batched."""
    cases = []
    for k in range(n):
        for axis in (0, 1, -1):
            cases.append(tuple(axis if j == k else U for j in range(n)))
    cases.append(tuple([1] * n))
    cases.append(tuple([-1] * n))
    return cases


# ---------------------------------------------------------------------------
# Ops of one operand
# ---------------------------------------------------------------------------

ONE_OPERAND = {
    "broadcast_in_dim": ((2, 4), lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2))),
    "broadcast_size1": ((1, 4), lambda x: jnp.broadcast_to(x, (2, 3, 4))),
    "reshape": ((2, 6), lambda x: jnp.reshape(x, (4, 1, 3))),
    "reshape_flat": ((2, 3, 2), lambda x: lax.reshape(x, (12,))),
    "transpose": ((2, 3, 4), lambda x: lax.transpose(x, (2, 0, 1))),
    "matrix_T": ((2, 3), lambda x: x.T),
    "reverse": ((2, 3, 4), lambda x: lax.rev(x, (0, 2))),
    "flip": ((4,), lambda x: jnp.flip(x)),
    "slice": ((5, 6), lambda x: lax.slice(x, (0, 1), (4, 5), (2, 2))),
    "slice_jnp": ((5, 6), lambda x: x[1:4, ::-2]),
    "squeeze": ((3, 1, 4, 1), lambda x: lax.squeeze(x, (1, 3))),
    "squeeze_jnp": ((1, 4), lambda x: jnp.squeeze(x, 0)),
    "expand_dims": ((3, 4), lambda x: lax.expand_dims(x, (0, 2))),
    "expand_dims_last": ((3,), lambda x: jnp.expand_dims(x, -1)),
}


@pytest.mark.parametrize("name", list(ONE_OPERAND))
@pytest.mark.parametrize("in_axis,out_axis", [(0, 0), (1, 1), (-1, 0), (0, 1)])
def test_one_operand(rng, name, in_axis, out_axis):
    shape, f = ONE_OPERAND[name]
    check_vmap(f, [_floats(rng, shape, in_axis)], in_axis, out_axis)


def test_one_operand_int_and_bool(rng):
    x = _ints(rng, (2, 3), 1, -5, 5)
    check_vmap(lambda a: lax.transpose(a, (1, 0)), [x], 1, 0)
    check_vmap(lambda a: jnp.reshape(a > 0, (3, 2)), [x], 1, 1)


def test_broadcast_of_a_scalar(rng):
    check_vmap(lambda a: lax.broadcast_in_dim(a, (2, 3), ()), [_floats(rng, (), 0)], 0, 1)


# ---------------------------------------------------------------------------
# concatenate
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("in_axes", _axes_cases(3))
@pytest.mark.parametrize("dim", [0, 1])
def test_concatenate(rng, in_axes, dim):
    shapes = [(2, 3), (1, 3), (3, 3)] if dim == 0 else [(2, 1), (2, 3), (2, 2)]
    args = [_floats(rng, s, a) for s, a in zip(shapes, in_axes)]
    check_vmap(lambda a, b, c: jnp.concatenate([a, b, c], axis=dim), args, in_axes, 1 if dim else 0)


def test_concatenate_lax_bool(rng):
    args = [_ints(rng, (2,), 0, 0, 2).astype(bool), _ints(rng, (3,), U, 0, 2).astype(bool)]
    check_vmap(lambda a, b: lax.concatenate([b, a, b], 0), args, (0, U), 1)


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------

PAD_CONFIG = [(1, 2, 1), (0, -1, 0)]  # interior padding, and a crop


@pytest.mark.parametrize("in_axes", [(0, U), (1, U), (-1, U), (U, 0), (0, 0), (2, 0)])
@pytest.mark.parametrize("out_axis", [0, 1])
def test_pad(rng, in_axes, out_axis):
    x, value = _floats(rng, (3, 4), in_axes[0]), _floats(rng, (), in_axes[1])
    check_vmap(lambda a, v: lax.pad(a, v, PAD_CONFIG), [x, value], in_axes, out_axis)


def test_pad_int_batched_value_negative_edges(rng):
    x, value = _ints(rng, (5,), 0, 1, 9), _ints(rng, (), 0, -9, -1)
    check_vmap(lambda a, v: lax.pad(a, v, [(-2, 1, 2)]), [x, value], (0, 0), 0)
    check_vmap(lambda a, v: lax.pad(a, v, [(2, -3, 1)]), [x[0], value], (U, 0), 1)


def test_pad_jnp(rng):
    check_vmap(lambda a: jnp.pad(a, ((1, 0), (2, 1))), [_floats(rng, (2, 3), 1)], 1, 1)


# ---------------------------------------------------------------------------
# dynamic_slice
# ---------------------------------------------------------------------------

# in_axes of (x, i, j): x alone, starts alone, some starts, everything
DS_AXES = [(0, U, U), (-1, U, U), (U, 0, U), (U, 0, 0), (U, U, 0), (0, 0, U), (1, 0, 0), (-1, U, 0)]


@pytest.mark.parametrize("in_axes", DS_AXES)
@pytest.mark.parametrize("out_axis", [0, 1])
def test_dynamic_slice(rng, in_axes, out_axis):
    x = _floats(rng, (5, 4), in_axes[0])
    i, j = (_ints(rng, (), a, -2, 7) for a in in_axes[1:])  # some out of range: clamped
    check_vmap(lambda a, s, t: lax.dynamic_slice(a, (s, t), (2, 3)), [x, i, j], in_axes, out_axis)


@pytest.mark.parametrize("in_axes", [(0, 0), (U, 0), (1, U), (-1, 0)])
def test_dynamic_index_jnp(rng, in_axes):
    """x[i] with a traced scalar i is a dynamic_slice and a reshape."""
    x, i = _floats(rng, (4, 3), in_axes[0]), _ints(rng, (), in_axes[1], -4, 4)
    check_vmap(lambda a, k: a[k], [x, i], in_axes, 0)
    check_vmap(lambda a, k: lax.dynamic_index_in_dim(a, k, axis=1, keepdims=False), [x, i], in_axes, 1)


def test_dynamic_slice_mixed_index_dtypes(rng):
    x, i = _floats(rng, (5, 4), 0), _ints(rng, (), 0, 0, 5, np.uint8)
    j = np.int32(1)
    check_vmap(lambda a, s, t: lax.dynamic_slice(a, (s, t), (2, 2)), [x, i, j], (0, 0, U), 0)
    check_vmap(lambda a, s, t: lax.dynamic_slice(a, (t, s), (2, 2)), [x[0], i, j], (U, 0, U), 1)


def test_narrow_index_types_and_a_batch_they_cannot_count(rng):
    """int8 starts and indices with 200 lanes: the lane positions need a wider type."""
    n = 200
    x, i = rng.standard_normal((n, 4)).astype(np.float32), rng.integers(-1, 5, (n,)).astype(np.int8)
    check_vmap(lambda a, k: lax.dynamic_slice(a, (k,), (2,)), [x, i], 0, 0)
    check_vmap(lambda a, k, u: lax.dynamic_update_slice(a, u, (k,)), [x, i, x[:, :2]], 0, 1)
    points = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    check_vmap(lambda a, k: lax.gather(a, jnp.stack([k, k // 2])[:, None], points, (1,)), [x, i], 0, 0)


def test_dynamic_slice_nested_vmap(rng):
    x, i = _floats(rng, (2, 6), 0), _ints(rng, (2,), 0, 0, 6)
    inner = jaxc.vmap(lambda a, k: lax.dynamic_slice(a, (k,), (2,)), in_axes=(0, 0))
    check_vmap(inner, [x, i], (0, 0), 1)


# ---------------------------------------------------------------------------
# dynamic_update_slice
# ---------------------------------------------------------------------------

# in_axes of (x, update, i, j)
DUS_AXES = [(0, U, U, U), (U, 0, U, U), (1, -1, U, U), (U, U, 0, U), (U, U, 0, 0), (0, U, U, 0),
            (U, 1, 0, U), (-1, 0, 0, 0)]


@pytest.mark.parametrize("in_axes", DUS_AXES)
@pytest.mark.parametrize("out_axis", [0, 1])
def test_dynamic_update_slice(rng, in_axes, out_axis):
    x, update = _floats(rng, (5, 4), in_axes[0]), _floats(rng, (2, 3), in_axes[1])
    i, j = (_ints(rng, (), a, -2, 7) for a in in_axes[2:])  # some out of range: clamped
    check_vmap(lambda a, u, s, t: lax.dynamic_update_slice(a, u, (s, t)), [x, update, i, j], in_axes, out_axis)


def test_dynamic_update_index_in_dim(rng):
    x, row, i = _floats(rng, (4, 3), 1), _floats(rng, (3,), U), _ints(rng, (), 0, 0, 4)
    check_vmap(lambda a, r, k: lax.dynamic_update_index_in_dim(a, r, k, 0), [x, row, i], (1, U, 0), 0)


def test_dynamic_update_slice_int(rng):
    x, update, i = _ints(rng, (6,), U, 0, 9), _ints(rng, (2,), 0, 10, 20), _ints(rng, (), 0, 0, 9)
    check_vmap(lambda a, u, s: lax.dynamic_update_slice(a, u, (s,)), [x, update, i], (U, 0, 0), 0)


# ---------------------------------------------------------------------------
# gather
# ---------------------------------------------------------------------------

# name -> (operand shape, index shape, index range, f)
GATHERS = {
    "rows": ((5, 3), (2,), (-5, 5), lambda x, i: x[i]),
    "columns": ((4, 5), (2, 2), (0, 5), lambda x, i: x[:, i]),
    "points": ((4, 5), (3,), (0, 4), lambda x, i: x[i, (i + 1) % 5]),
    "take": ((6,), (2, 2), (0, 6), lambda x, i: jnp.take(x, i)),
    # windows of 2x2 at (i, i): the last vector dim, clamped when out of range
    "windows": ((4, 5), (2, 2), (-1, 6), lambda x, i: lax.gather(
        x, i, lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                         start_index_map=(1, 0)), (2, 2))),
    # an implicit index vector (index_vector_dim = rank)
    "implicit_vector": ((5, 3), (2, 2), (0, 5), lambda x, i: _ops.GATHER.bind(
        x, i, offset_dims=(2,), collapsed=(0,), start_map=(0,), index_vector_dim=2, slice_sizes=(1, 3))),
    # the index vector first (index_vector_dim = 0)
    "leading_vector": ((4, 5), (2, 3), (0, 4), lambda x, i: _ops.GATHER.bind(
        x, i, offset_dims=(), collapsed=(0, 1), start_map=(0, 1), index_vector_dim=0, slice_sizes=(1, 1))),
}


@pytest.mark.parametrize("name", list(GATHERS))
@pytest.mark.parametrize("in_axes,out_axis", [((0, U), 0), ((1, U), 1), ((U, 0), 0), ((U, -1), 1),
                                              ((0, 0), 0), ((-1, 1), 1)])
def test_gather(rng, name, in_axes, out_axis):
    x_shape, i_shape, (low, high), f = GATHERS[name]
    x, i = _floats(rng, x_shape, in_axes[0]), _ints(rng, i_shape, in_axes[1], low, high)
    check_vmap(f, [x, i], in_axes, out_axis)


def test_gather_int_operand_nested(rng):
    x, i = _ints(rng, (2, 5), 0, 0, 100), _ints(rng, (2, 3), 1, 0, 5)
    check_vmap(jaxc.vmap(lambda a, k: a[k]), [x, i], (0, 1), 0)


# ---------------------------------------------------------------------------
# scatter
# ---------------------------------------------------------------------------

# name -> (operand shape, index shape, index range, update shape, f)
SCATTERS = {
    "set_row": ((4, 3), (), (0, 4), (3,), lambda x, i, u: x.at[i].set(u)),
    "add_duplicates": ((5,), (4,), (0, 3), (4,), lambda x, i, u: x.at[i].add(u)),
    "max_columns": ((3, 5), (2,), (0, 5), (3, 2), lambda x, i, u: x.at[:, i].max(u)),
    "mul_points": ((4, 4), (2,), (0, 4), (2,), lambda x, i, u: x.at[i, 3 - i].mul(u)),
    # 2-wide windows, out-of-range ones dropped
    "add_windows_drop": ((6,), (3, 1), (-1, 6), (3, 2), lambda x, i, u: lax.scatter_add(
        x, i, u, lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                             scatter_dims_to_operand_dims=(0,)))),
    # an implicit index vector (index_vector_dim = rank)
    "implicit_vector": ((5, 2), (3,), (0, 5), (3, 2), lambda x, i, u: _ops.SCATTER.bind(
        x, i, u, kind="add", update_window_dims=(1,), inserted=(0,), dims_map=(0,), index_vector_dim=1)),
    # the index vector first (index_vector_dim = 0), distinct points
    "leading_vector": ((3, 4), (2, 2), (0, 3), (2,), lambda x, i, u: _ops.SCATTER.bind(
        x, i * jnp.array([[1], [0]], jnp.int32) + jnp.array([[0, 1], [2, 3]], jnp.int32), u, kind="set",
        update_window_dims=(), inserted=(0, 1), dims_map=(0, 1), index_vector_dim=0)),
}

# in_axes of (x, indices, updates): each alone, pairs, all
SCATTER_AXES = [((0, U, U), 0), ((U, 0, U), 1), ((U, U, 0), 0), ((1, 0, U), 0), ((0, U, -1), 1),
                ((U, -1, 0), 0), ((-1, 0, 1), 1)]


@pytest.mark.parametrize("name", list(SCATTERS))
@pytest.mark.parametrize("in_axes,out_axis", SCATTER_AXES)
def test_scatter(rng, name, in_axes, out_axis):
    x_shape, i_shape, (low, high), u_shape, f = SCATTERS[name]
    if name == "set_row" and in_axes[1] not in (0, U):
        in_axes = (in_axes[0], 0, in_axes[2])  # a 0-d index has only axis 0
    x = _floats(rng, x_shape, in_axes[0])
    i = _ints(rng, i_shape, in_axes[1], low, high)
    u = _floats(rng, u_shape, in_axes[2])
    check_vmap(f, [x, i, u], in_axes, out_axis)


def test_scatter_set_int_into_unbatched(rng):
    x, i, u = _ints(rng, (6,), U, 0, 9), _ints(rng, (), 0, 0, 6), _ints(rng, (), U, 50, 60)
    check_vmap(lambda a, k, v: a.at[k].set(v), [x, i, u], (U, 0, U), 0)


# ---------------------------------------------------------------------------
# A chain through several rules, and the IR the pass leaves
# ---------------------------------------------------------------------------

def test_chain(rng):
    def f(x, i, v):
        y = jnp.concatenate([x, jnp.zeros((1, 3), x.dtype)], axis=0).T
        y = lax.pad(y, v, [(1, 0, 0), (0, 1, 1)])
        return lax.dynamic_slice(y, (i, i), (2, 3)).at[0].add(jnp.flip(y[1, :3]))
    args = [_floats(rng, (2, 3), 1), _ints(rng, (), 0, 0, 3), _floats(rng, (), U)]
    check_vmap(f, args, (1, 0, U), 1)


def _transformed(f, in_axes, *args):
    """The body of the jitted vmap after the transformed stage (without the
    private callee and derived functions kept beside it)."""
    text = jaxc.jit(jaxc.vmap(f, in_axes=in_axes)).lower(*args).as_text("transformed")
    return text.split("func.func private")[0]


def test_batched_starts_make_one_gather_or_scatter_not_a_loop():
    x, i = np.zeros((5, 4), np.float32), np.zeros(B, np.int32)
    text = _transformed(lambda a, k: lax.dynamic_slice(a, (k, 1), (2, 2)), (None, 0), x, i)
    assert text.count("jaxc.gather") == 1 and "jaxc.dynamic_slice" not in text, text
    text = _transformed(lambda a, k: lax.dynamic_update_slice(a, jnp.ones((2, 2)), (k, 1)), (None, 0), x, i)
    assert text.count("jaxc.scatter") == 1 and "jaxc.dynamic_update_slice" not in text, text
    assert "jaxc.while" not in text and "scf." not in text


def test_a_rule_that_cannot_build_its_ops_names_the_op_and_the_batching():
    """A lax or verifier error inside a rule becomes a RuleError (reported
    by the pass at the op's location) saying which operands were batched."""
    from types import SimpleNamespace

    from jaxc.passes.batching.interpreter import Axis, RuleError
    from jaxc.passes.batching.shape import _reported

    def failing(op, xs, batched, axis):
        raise TypeError("lax.pad: padding_config has 1 entries for a 2-d operand")
    op = SimpleNamespace(name="jaxc.pad")
    with pytest.raises(RuleError, match=r"jaxc-batch: cannot batch 'jaxc.pad' \(operands unbatched, batched; "
                                        r"batch size 3\): lax.pad: padding_config") as error:
        _reported(failing)(op, [None, None], [False, True], Axis(3))
    assert error.value.op is op
