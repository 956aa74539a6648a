"""jnp shape functions against NumPy (eager, under jit, result dtypes) and
their error messages."""
import jnp_check
import numpy as np
import pytest
from jnp_check import assert_close, check, check_jax, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import core
from jaxc.test_util import check_grads

A = rand((2, 3, 4))
B = rand((2, 3, 4))
I = rand((2, 3, 4), np.int32)
S = np.float32(2.5)  # 0-d
E = np.zeros((0, 3), np.float32)  # size 0


# ---------------------------------------------------------------------------
# Reshaping and transposing
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("x, shape", [(A, (6, 4)), (A, (-1,)), (A, (4, -1, 2)), (S, ()), (S, (1, 1)),
                                      (E, (3, 0)), (E, (-1, 3)), (I, 24)])
def test_reshape(x, shape):
    check(jnp.reshape, np.reshape, x, shape=shape, dtype=x.dtype)


def test_reshape_method_forms_and_ravel():
    x = jnp.asarray(A)
    assert_close(x.reshape(4, 6), A.reshape(4, 6))
    assert_close(x.reshape((4, -1)), A.reshape(4, -1))
    assert_close(x.reshape(-1, 12, order="C"), A.reshape(-1, 12))
    assert_close(x.reshape(4, 6, order="F"), A.reshape(4, 6, order="F"))
    check(lambda a: jnp.reshape(a, (6, -1), "F"), lambda a: np.reshape(a, (6, -1), order="F"), A)
    check(jnp.ravel, np.ravel, A)
    assert_close(x.flatten(), A.ravel())
    assert jnp.ravel(S).shape == (1,)
    # column-major: the first axis varies fastest
    check(lambda a: jnp.ravel(a, order="F"), lambda a: np.ravel(a, order="F"), A)
    check(lambda a: jnp.ravel(a, "F"), lambda a: np.ravel(a, "F"), I)
    assert_close(x.ravel(order="F"), A.ravel(order="F"))
    assert_close(x.flatten(order="F"), A.flatten(order="F"))
    assert_close(jaxc.vmap(lambda a: jnp.ravel(a, order="F"))(x), np.stack([a.ravel(order="F") for a in A]))
    assert jnp.ravel(E, order="F").shape == (0,) and jnp.ravel(S, order="F").shape == (1,)
    with pytest.raises(NotImplementedError, match="order='K'"):
        jnp.ravel(A, order="K")
    with pytest.raises(NotImplementedError, match="order='A'"):
        x.flatten(order="A")
    with pytest.raises(ValueError, match="'order' argument: X"):
        jnp.ravel(A, order="X")


def test_reshape_errors():
    with pytest.raises(TypeError, match=r"jnp.reshape: cannot reshape array of shape \(2, 3, 4\) \(size 24\) "
                                         r"into shape \(5, 5\)"):
        jnp.reshape(A, (5, 5))
    with pytest.raises(TypeError, match="only specify one unknown dimension"):
        jnp.reshape(A, (-1, -1))
    with pytest.raises(TypeError, match=r"into shape \(7, -1\)"):
        jnp.reshape(A, (7, -1))
    with pytest.raises(NotImplementedError, match="order='A'"):
        jnp.reshape(A, (24,), order="A")
    with pytest.raises(ValueError, match="'order' argument: 4"):  # JAX 0.10: a third positional is the order
        jnp.reshape(A, 24, 4)
    with pytest.raises(TypeError, match=r"into shape \(2,\)"):
        jnp.reshape(A, 2, 12)
    with pytest.raises(TypeError, match="newshape"):
        jnp.reshape(A, newshape=(24,))
    with pytest.raises(TypeError):
        jnp.transpose(A, 2, 0, 1)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda x, n: jnp.reshape(x, (n, -1)))(jnp.asarray(A), 2)


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (-1, 0, 1)])
def test_transpose(axes):
    check(jnp.transpose, np.transpose, A, axes=axes, dtype=np.float32)


def test_transpose_family():
    x = jnp.asarray(A)
    assert_close(x.T, A.T)
    assert_close(x.transpose(2, 0, 1), A.transpose(2, 0, 1))
    assert_close(x.mT, np.swapaxes(A, -1, -2))
    check(jnp.swapaxes, np.swapaxes, A, axis1=0, axis2=-1)
    check(jnp.moveaxis, np.moveaxis, A, source=0, destination=-1)
    check(jnp.moveaxis, np.moveaxis, A, source=(0, 1), destination=(2, 0))
    check(jnp.permute_dims, np.permute_dims, A, axes=(1, 2, 0))
    assert jnp.transpose(S).shape == ()
    with pytest.raises(TypeError, match=r"jnp.transpose: axes \(0, 0, 1\) are not a permutation"):
        jnp.transpose(A, (0, 0, 1))
    with pytest.raises(ValueError, match=r"matrix_transpose: x must have at least 2 dimensions, got shape \(4,\)"):
        jnp.matrix_transpose(np.ones(4))
    with pytest.raises(ValueError, match="axis 3 is out of bounds for an array of dimension 3"):
        jnp.swapaxes(A, 0, 3)
    with pytest.raises(ValueError, match="same number of elements"):
        jnp.moveaxis(A, (0, 1), 2)


@pytest.mark.parametrize("axis", [0, -1, (0, 2), (-1, 1)])
def test_expand_dims(axis):
    check(jnp.expand_dims, np.expand_dims, A, axis=axis)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_squeeze(axis):
    x = rand((1, 3, 1))
    check(jnp.squeeze, np.squeeze, x, axis=axis)


def test_squeeze_and_expand_dims_errors():
    with pytest.raises(ValueError, match=r"jnp.squeeze: cannot select an axis to squeeze out which has size not "
                                         r"equal to one, got shape=\(2, 3, 4\) and dimensions=\(1,\)"):
        jnp.squeeze(A, 1)
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.expand_dims(A, (0, 0))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.expand_dims(A, 5)


# ---------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 2, -2, None])
def test_concatenate(axis):
    check(lambda a, b: jnp.concatenate([a, b, a], axis=axis),
          lambda a, b: np.concatenate([a, b, a], axis=axis), A, B, dtype=np.float32)


def test_concatenate_promotes_and_edge_cases():
    check(lambda a, b: jnp.concatenate((a, b)), lambda a, b: np.concatenate((a, b)).astype(np.float32),
          I, A, dtype=np.float32)
    u8 = rand((3,), np.uint8)
    check(lambda b, u: jnp.concatenate([b, u]), lambda b, u: np.concatenate([b, u]),
          rand((2,), np.bool_), u8, dtype=np.uint8)
    assert jnp.concatenate([np.ones(2, np.int16), jnp.asarray([3])]).dtype == np.int32  # an int32 array
    with pytest.raises(TypeError, match="jnp.concatenate requires ndarray or scalar arguments"):
        jnp.concatenate([np.ones(2, np.int16), [3]])  # a list element, as in JAX
    check(lambda a, e: jnp.concatenate([a, e]), lambda a, e: np.concatenate([a, e]), A[0], np.zeros((0, 4), np.float32))
    assert_close(jnp.concatenate(jnp.asarray(A), axis=1), np.concatenate(A, axis=1))
    assert_close(jnp.concat([A, B], axis=-1), np.concat([A, B], axis=-1))
    assert jnp.concatenate([A, B], dtype=jnp.int32).dtype == np.int32


def test_concatenate_errors():
    with pytest.raises(TypeError, match=r"jnp.concatenate: arrays must have the same shape except along axis 0, "
                                         r"got \(2, 3\) and \(2, 4\)"):
        jnp.concatenate([np.ones((2, 3)), np.ones((2, 4))])
    with pytest.raises(TypeError, match=r"same number of dimensions, got \(2, 3\) and \(3,\)"):
        jnp.concatenate([np.ones((2, 3)), np.ones(3)])
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        jnp.concatenate([S, S])
    with pytest.raises(ValueError, match="need at least one array"):
        jnp.concatenate([])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack(axis):
    check(lambda a, b: jnp.stack([a, b], axis=axis), lambda a, b: np.stack([a, b], axis=axis), A, B)


def test_stack_family():
    v, w = rand((3,)), rand((3,))
    for jfn, nfn in [(jnp.hstack, np.hstack), (jnp.vstack, np.vstack), (jnp.dstack, np.dstack),
                     (jnp.column_stack, np.column_stack)]:
        check(lambda a, b: jfn([a, b]), lambda a, b: nfn([a, b]), v, w)
        check(lambda a, b: jfn((a, b)), lambda a, b: nfn((a, b)), A[0], B[0])
    check(lambda s: jnp.stack([s, s]), lambda s: np.stack([s, s]), S)
    assert_close(jnp.hstack([S, S]), np.hstack([S, S]))
    assert_close(jnp.stack(jnp.asarray(A), axis=1), np.stack(list(A), axis=1))
    # jnp.asarray of a list mixing arrays and Python scalars goes through stack
    mixed = jnp.asarray([jnp.asarray(1.5), 2.0, 3])
    assert mixed.dtype == np.float32 and np.asarray(mixed).tolist() == [1.5, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"jnp.stack: all input arrays must have the same shape, got \(3,\) and \(2,\)"):
        jnp.stack([np.ones(3), np.ones(2)])


@pytest.mark.parametrize("sections, axis", [(2, 0), (3, 1), ([1, 3], 2), ([2, 1, 3], -1), (1, 0)])
def test_split(sections, axis):
    check(lambda a: jnp.split(a, sections, axis), lambda a: np.split(a, sections, axis), A)


def test_split_with_several_empty_pieces():
    # Eager only: under jit, returning two empty slices of one shape crashes
    # the compiler's bufferization (reported to the lead).
    check(lambda a: jnp.split(a, [2, 1, 5], -1), lambda a: np.split(a, [2, 1, 5], -1), A, jit=False)


def test_array_split_and_errors():
    x = rand((7, 2))
    for sections in (3, 5, 7):
        check(lambda a: jnp.array_split(a, sections), lambda a: np.array_split(a, sections), x)
    check(lambda a: jnp.array_split(a, 9), lambda a: np.array_split(a, 9), x, jit=False)  # see above
    with pytest.raises(ValueError, match="jnp.split: array split does not result in an equal division: 7 "
                                         "elements into 3 sections"):
        jnp.split(x, 3)
    with pytest.raises(ValueError, match="number of sections must be larger than 0"):
        jnp.array_split(x, 0)


# ---------------------------------------------------------------------------
# Repeating, flipping, rolling, rotating
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("reps", [2, (2, 1), (1, 2, 1, 3), (0, 2)])
def test_tile(reps):
    check(jnp.tile, np.tile, A[0], reps=reps)


def test_tile_scalar_and_bool():
    check(jnp.tile, np.tile, S, reps=(2, 3))
    check(jnp.tile, np.tile, rand((3,), np.bool_), reps=2, dtype=np.bool_)


@pytest.mark.parametrize("repeats, axis", [(2, None), (3, 1), (0, 0), ([1, 0, 2], 1), ([2], -1),
                                           (np.array([0, 3]), 0)])
def test_repeat(repeats, axis):
    check(jnp.repeat, np.repeat, A, repeats=repeats, axis=axis, dtype=np.float32)


def test_repeat_traced_counts():
    counts = np.array([2, 0, 3], np.int32)
    expected = np.repeat(A, counts, axis=1)
    f = jaxc.jit(lambda a, r: jnp.repeat(a, r, axis=1, total_repeat_length=5))
    assert_close(f(A, counts), expected)
    g = jaxc.jit(lambda a, r: jnp.repeat(a, r, axis=1, total_repeat_length=7))
    assert_close(g(A, counts), np.concatenate([expected, expected[:, -1:], expected[:, -1:]], axis=1))
    assert_close(g(A, np.array([0, 4, 1], np.int32))[:, :5], np.repeat(A, [0, 4, 1], axis=1))
    assert_close(jnp.repeat(A, counts, axis=1, total_repeat_length=3), expected[:, :3])
    with pytest.raises(core.ConcretizationTypeError, match="total_repeat_length"):
        jaxc.jit(lambda a, r: jnp.repeat(a, r, axis=1))(A, counts)
    with pytest.raises(ValueError, match="negative"):
        jnp.repeat(A, -1)
    with pytest.raises(ValueError, match=r"repeats of shape \(2,\) do not match axis 1 of size 3"):
        jnp.repeat(A, [1, 2], axis=1)
    assert_close(jnp.asarray(A[0]).repeat(2, axis=0), np.repeat(A[0], 2, axis=0))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_flip(axis):
    check(jnp.flip, np.flip, A, axis=axis)


def test_fliplr_flipud():
    check(jnp.fliplr, np.fliplr, A)
    check(jnp.flipud, np.flipud, A)
    with pytest.raises(ValueError, match="at least 2-d"):
        jnp.fliplr(np.ones(3))


@pytest.mark.parametrize("shift, axis", [(2, None), (-7, None), (1, 0), (5, -1), ((1, -2), (1, 2)),
                                         ((1, 1), (2, 2)), (0, 1)])
def test_roll(shift, axis):
    check(jnp.roll, np.roll, A, shift=shift, axis=axis)


def test_roll_traced_shift():
    f = jaxc.jit(lambda a, s: jnp.roll(a, s, axis=2))
    for s in (0, 3, -1, 9, -10):
        assert_close(f(A, s), np.roll(A, s, axis=2), what=f"shift {s}")
    assert_close(jaxc.jit(lambda a, s: jnp.roll(a, s))(A, 5), np.roll(A, 5))
    assert_close(jnp.roll(E, 2, axis=0), E)


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1, 5])
def test_rot90(k):
    check(jnp.rot90, np.rot90, A, k=k, axes=(2, 0))


def test_rot90_errors():
    with pytest.raises(ValueError, match="axes must be different"):
        jnp.rot90(A, 1, (1, 1))
    with pytest.raises(ValueError, match="at least 2-d"):
        jnp.rot90(np.ones(3))


# ---------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------

PAD_WIDTHS = [2, (1, 3), ((1, 0), (0, 2), (3, 1)), ((0, 7), (1, 1), (9, 2))]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("width", range(len(PAD_WIDTHS)))
def test_pad_modes(mode, width):
    check(jnp.pad, np.pad, A, pad_width=PAD_WIDTHS[width], mode=mode, dtype=np.float32)


PAD_KEYWORDS = {
    "linear_ramp": [{}, {"end_values": (2.0, -1.0)}, {"end_values": ((1, 2), (3, 4), (-5, 6))}],
    "maximum": [{}, {"stat_length": 2}], "minimum": [{}, {"stat_length": ((1, 2), (3, 1), (2, 9))}],
    "mean": [{}, {"stat_length": (1, 3)}], "median": [{}, {"stat_length": 2}],
    "reflect": [{"reflect_type": "odd"}], "symmetric": [{"reflect_type": "odd"}],
}


@pytest.mark.parametrize("mode,keywords", [(m, k) for m, ks in PAD_KEYWORDS.items() for k in ks])
@pytest.mark.parametrize("width", range(len(PAD_WIDTHS)))
def test_pad_ramps_statistics_and_odd_reflections(mode, keywords, width):
    """NumPy's other modes (JAX has them all), widths past the axis length too.
    Odd reflections of long pads grow linearly, chunk by chunk; NumPy takes
    its chunks in another order, so float32 rounding differs by ~1e-5."""
    rtol = 1e-4 if keywords.get("reflect_type") == "odd" else 1e-5
    check(jnp.pad, np.pad, A, pad_width=PAD_WIDTHS[width], mode=mode, dtype=np.float32, rtol=rtol, **keywords)


def test_pad_statistics_of_integers_round_and_single_elements_reflect_onto_themselves():
    ints = np.array([[1, 2, 7], [4, 4, 9]], np.int32)
    check(jnp.pad, np.pad, ints, pad_width=2, mode="mean", dtype=np.int32)  # 10/3 -> 3, 17/3 -> 6
    check(jnp.pad, np.pad, ints, pad_width=(1, 2), mode="median", stat_length=2, dtype=np.int32)
    check(jnp.pad, np.pad, ints, pad_width=1, mode="maximum", dtype=np.int32)
    one = np.array([3.0], np.float32)
    for mode in ("reflect", "symmetric"):
        check(jnp.pad, np.pad, one, pad_width=(2, 3), mode=mode, reflect_type="odd")


@pytest.mark.parametrize("mode,keywords", [("mean", {}), ("linear_ramp", {"end_values": 1.0}),
                                           ("reflect", {"reflect_type": "odd"}), ("maximum", {"stat_length": 2})])
def test_pad_modes_under_grad_and_vmap(mode, keywords, x64):
    a = np.random.default_rng(0).standard_normal((3, 4))
    check_grads(lambda x: jnp.pad(x, ((1, 2), (3, 1)), mode=mode, **keywords), (a,), order=2)
    rows = jaxc.vmap(lambda x: jnp.pad(x, (2, 3), mode=mode, **keywords))(a)
    assert_close(rows, np.stack([np.pad(r, (2, 3), mode=mode, **keywords) for r in a]), rtol=1e-12)


def test_pad_with_a_function():
    """JAX's form of NumPy's callable mode: f(vector, (before, after), axis,
    kwargs) returns the padded vector, applied along each axis."""
    def fill(vector, widths, axis, kwargs):
        before, after = widths
        return vector.at[:before].set(-1.0 - axis).at[vector.shape[0] - after:].set(kwargs.get("value", 9.0))

    got = jnp.pad(A[0], ((1, 2), (2, 1)), fill, value=5.0)
    expected = np.pad(np.asarray(A[0]), ((1, 2), (2, 1)))
    expected[:1, :], expected[-2:, :] = -1.0, 5.0
    expected[:, :2], expected[:, -1:] = -2.0, 5.0
    assert_close(got, expected)


def test_pad_constant_values_and_dtypes():
    check(jnp.pad, np.pad, I, pad_width=1, constant_values=7, dtype=np.int32)
    check(jnp.pad, np.pad, A, pad_width=((1, 2), (2, 1), (0, 1)), constant_values=((1, 2), (3, 4), (5, 6)))
    check(jnp.pad, np.pad, A, pad_width=1, constant_values=(-1, 1))
    check(jnp.pad, np.pad, rand((3,), np.bool_), pad_width=2, constant_values=True, dtype=np.bool_)
    check(jnp.pad, np.pad, S, pad_width=0)
    check(jnp.pad, np.pad, E, pad_width=1)
    assert_close(jaxc.jit(lambda a, v: jnp.pad(a, 1, constant_values=v))(A[0, 0], 9.0),
                 np.pad(A[0, 0], 1, constant_values=9.0))
    assert jnp.pad(A[0], 1, mode="empty").shape == (5, 6)


def test_pad_errors():
    with pytest.raises(ValueError, match="pad_width must be non-negative"):
        jnp.pad(A, -1)
    with pytest.raises(ValueError, match=r"pad_width of shape \(2, 3\) cannot be broadcast to \(3, 2\)"):
        jnp.pad(A, [[1, 2, 3], [1, 2, 3]])
    with pytest.raises(TypeError, match="pad_width must be integers"):
        jnp.pad(A, 1.5)
    with pytest.raises(NotImplementedError, match="Unimplemented padding mode 'middle'"):
        jnp.pad(A, 1, mode="middle")
    with pytest.raises(ValueError, match="stat_length of 0 yields no value"):
        jnp.pad(A, 1, mode="mean", stat_length=0)
    with pytest.raises(ValueError, match="reflect_type must be 'even' or 'odd'"):
        jnp.pad(A, 1, mode="reflect", reflect_type="mirror")
    with pytest.raises(ValueError, match=r"end_values of shape \(3,\) cannot be broadcast"):
        jnp.pad(A, 1, mode="linear_ramp", end_values=(1, 2, 3))
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        jnp.pad(E, 1, mode="mean")
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        jnp.pad(E, 1, mode="edge")
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        jnp.pad(A, 1, mode="edge", constant_values=3)


# ---------------------------------------------------------------------------
# Broadcasting and at-least-n-d
# ---------------------------------------------------------------------------

def test_broadcast_to_and_arrays():
    check(jnp.broadcast_to, np.broadcast_to, A[0, :, :1], shape=(5, 3, 4))
    check(jnp.broadcast_to, np.broadcast_to, S, shape=3)
    check(lambda a, b: jnp.broadcast_arrays(a, b), lambda a, b: np.broadcast_arrays(a, b), A[:, :1], I[0, 0])
    with pytest.raises(ValueError, match=r"jnp.broadcast_to: cannot broadcast shape \(2, 3, 4\) to \(2, 5, 4\)"):
        jnp.broadcast_to(A, (2, 5, 4))
    with pytest.raises(ValueError, match="incompatible shapes"):
        jnp.broadcast_arrays(A, np.ones(3))


@pytest.mark.parametrize("x", [S, A[0, 0], A[0], A], ids=["0d", "1d", "2d", "3d"])
def test_atleast(x):
    for jfn, nfn in [(jnp.atleast_1d, np.atleast_1d), (jnp.atleast_2d, np.atleast_2d),
                     (jnp.atleast_3d, np.atleast_3d)]:
        check(jfn, nfn, x)
    both = jnp.atleast_2d(x, S)
    assert isinstance(both, list) and both[1].shape == (1, 1)


# ---------------------------------------------------------------------------
# Taking
# ---------------------------------------------------------------------------

def test_take_in_range_matches_numpy():
    idx = np.array([[0, 3], [-1, 2]], np.int32)
    check(jnp.take, np.take, A, idx, axis=2)
    check(jnp.take, np.take, A, idx)  # axis None: flattened
    check(jnp.take, np.take, A, 1, axis=1)
    check(jnp.take, np.take, I, np.array([2, 0]), axis=1, dtype=np.int32)
    assert_close(jnp.asarray(A).take(np.array([5]), axis=None), np.take(A, [5]))


def test_take_out_of_range_modes():
    # JAX's default mode is "fill": NaN (floats), the most negative int, the
    # largest unsigned int, True; "clip" clamps; "wrap" is modulo the size.
    x = np.arange(5, dtype=np.float32)
    idx = np.array([0, 5, -1, -6, 12], np.int32)
    check(jnp.take, None, x, idx, expected=np.array([0, np.nan, 4, np.nan, np.nan], np.float32))
    check(jnp.take, None, x, idx, fill_value=-3.0, expected=np.array([0, -3, 4, -3, -3], np.float32))
    check(jnp.take, np.take, x, idx, mode="clip")  # negative indices clamp to 0, as in NumPy
    check(jnp.take, np.take, x, idx, mode="wrap")
    ints = np.arange(5, dtype=np.int32)
    assert_close(jnp.take(ints, idx), np.array([0, -2**31, 4, -2**31, -2**31]))
    assert_close(jnp.take(ints.astype(np.uint8), idx), np.array([0, 255, 4, 255, 255], np.uint8))
    assert_close(jnp.take(ints > 2, idx), np.array([False, True, True, True, True]))
    with pytest.raises(NotImplementedError, match="mode='raise' is not supported"):
        jnp.take(x, idx, mode="raise")
    with pytest.raises(TypeError, match="jnp.take: indices must be integers, got float32"):
        jnp.take(x, np.array([1.0], np.float32))


def test_take_along_axis():
    idx = np.argsort(A, axis=1).astype(np.int32)
    check(jnp.take_along_axis, np.take_along_axis, A, idx, axis=1)
    check(jnp.take_along_axis, np.take_along_axis, A, idx[:, :2], axis=-2)
    check(jnp.take_along_axis, np.take_along_axis, A, idx[:, :, :1], axis=2)  # broadcast along axis 2... of idx
    flat = np.array([3, 0, -1], np.int32)
    check(jnp.take_along_axis, np.take_along_axis, A, flat, axis=None)
    # broadcasting of the other dimensions (JAX allows it, NumPy does not)
    small = np.array([[[1], [0], [3]]], np.int32)  # (1, 3, 1) against A (2, 3, 4) along axis 2
    assert_close(jnp.take_along_axis(A, small, axis=2), np.take_along_axis(A, np.broadcast_to(small, (2, 3, 1)), 2))
    out_of_range = np.full((2, 1, 4), 3, np.int32)
    expected = np.full((2, 1, 4), np.nan, np.float32)
    check(jnp.take_along_axis, None, A, out_of_range, axis=1, expected=expected)
    check(jnp.take_along_axis, None, A, out_of_range, axis=1, mode="clip", expected=A[:, 2:3])
    with pytest.raises(ValueError, match="same number of dimensions"):
        jnp.take_along_axis(A, flat, axis=0)


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------

F = np.array([[3.0, np.nan, -1.0, 0.0, -0.0, 2.0], [np.inf, -np.inf, 2.0, np.nan, 1.0, 1.0]], np.float32)
T = rand((4, 9), np.int32, low=-2, high=2)  # many ties


@pytest.mark.parametrize("x", [F, T, rand((3, 5), np.uint8), rand((7,), np.bool_), rand((6,), np.float16)],
                         ids=["float32-nan", "int32-ties", "uint8", "bool", "float16"])
def test_sort_and_argsort(x):
    check(jnp.sort, np.sort, x, dtype=x.dtype)
    check(jnp.argsort, lambda a: np.argsort(a, kind="stable"), x, dtype=np.int32)
    check(jnp.sort, np.sort, x, axis=0)
    check(jnp.argsort, lambda a, axis: np.argsort(a, axis=axis, kind="stable"), x, axis=None)


def test_sort_descending_and_edge_cases():
    check(jnp.sort, lambda a, descending: -np.sort(-a), T, descending=True)
    check(jnp.argsort, lambda a, descending: np.argsort(-a, kind="stable"), T, descending=True)
    assert_close(jnp.sort(F[0], descending=True)[:1], np.array([np.nan], np.float32))
    check(jnp.sort, np.sort, E, axis=0)
    check(jnp.argsort, np.argsort, E, axis=1)
    check(jnp.sort, np.sort, A[:, :1], axis=1)
    assert_close(jnp.sort(S, axis=None), np.array([S]))
    assert_close(jnp.asarray(T).argsort(axis=0), np.argsort(T, axis=0, kind="stable"))
    with pytest.raises(ValueError, match="axis -1 is out of bounds for an array of dimension 0"):
        jnp.sort(S)


# ---------------------------------------------------------------------------
# Nonzero
# ---------------------------------------------------------------------------

def test_nonzero_concrete():
    x = rand((3, 4), np.int32, low=-1, high=2)
    check(jnp.nonzero, np.nonzero, x, jit=False, dtype=np.int32)
    check(jnp.flatnonzero, np.flatnonzero, x, jit=False)
    check(jnp.argwhere, np.argwhere, x, jit=False)
    check(jnp.argwhere, np.argwhere, S, jit=False)
    check(jnp.argwhere, np.argwhere, np.float32(0), jit=False)
    check(jnp.nonzero, np.nonzero, E, jit=False)
    assert_close(jnp.asarray(F).nonzero(), np.nonzero(F))
    with pytest.raises(ValueError, match="0-d arrays is not allowed"):
        jnp.nonzero(S)


def test_nonzero_with_size_under_jit():
    x = np.array([[0, 1, 0], [2, 0, 3]], np.int32)
    rows, cols = np.nonzero(x)
    check(jnp.nonzero, None, x, size=5, expected=(np.r_[rows, 0, 0], np.r_[cols, 0, 0]))
    check(jnp.nonzero, None, x, size=2, fill_value=-1, expected=(rows[:2], cols[:2]))
    check(jnp.nonzero, None, x, size=4, fill_value=(-1, -2), expected=(np.r_[rows, -1], np.r_[cols, -2]))
    check(jnp.flatnonzero, None, x, size=4, fill_value=9, expected=np.r_[np.flatnonzero(x), 9])
    check(jnp.argwhere, None, x, size=4, fill_value=-1, expected=np.r_[np.argwhere(x), [[-1, -1]]])
    check(jnp.nonzero, None, np.zeros(3, bool), size=2, expected=(np.zeros(2, np.int32),))
    with pytest.raises(core.ConcretizationTypeError, match="size="):
        jaxc.jit(jnp.nonzero)(x)
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(jnp.argwhere)(x)


# ---------------------------------------------------------------------------
# astype and shape queries
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "float16", "float32"])
def test_astype(dtype):
    x = np.array([-2.7, -0.5, 0.0, 0.3, 1.9, 200.0], np.float32)
    expected = x.astype(dtype) if dtype not in ("uint8",) else np.array([0, 0, 0, 0, 1, 200], np.uint8)
    check(lambda a: jnp.astype(a, dtype), None, x, dtype=dtype, expected=expected)
    assert jnp.asarray(x).astype(dtype).dtype == np.dtype(dtype)


def test_astype_from_int_and_bool():
    for x, dtype in [(I, np.float32), (rand((4,), np.bool_), np.int32), (I, np.bool_), (I, np.uint8)]:
        check(lambda a: jnp.astype(a, dtype), lambda a: a.astype(dtype), x, dtype=dtype)
    assert not jnp.astype(jnp.asarray(1.0), jnp.float32).weak_type


def test_ndim_shape_size():
    assert jnp.ndim(A) == 3 and jnp.ndim(jnp.asarray(A)) == 3 and jnp.ndim(1.0) == 0
    assert jnp.shape(jnp.asarray(A)) == (2, 3, 4) and jnp.shape([[1, 2]]) == (1, 2)
    assert jnp.size(jnp.asarray(A)) == 24 and jnp.size(A, -1) == 4 and jnp.size(3) == 1
    assert jnp.size(E) == 0


def test_matches_jax_where_installed():
    """JAX-specific semantics (fill modes, traced repeats, sizes, descending
    sorts, float to int casts) against JAX itself; a no-op without JAX."""
    ind = np.array([[0, 7, -1], [-8, 2, 3]], np.int32)
    for mode in (None, "clip", "wrap"):
        check_jax(jnp.take, "take", A, ind, axis=2, mode=mode)
        check_jax(jnp.take, "take", I, ind, mode=mode)
    for mode in (None, "clip"):
        check_jax(jnp.take_along_axis, "take_along_axis", A, np.array([[[0], [7], [-1]]], np.int32), axis=2,
                  mode=mode)
    check_jax(jnp.repeat, "repeat", A, np.array([2, 0, 3]), axis=1, total_repeat_length=7)
    check_jax(jnp.flatnonzero, "flatnonzero", A > 0, size=30, fill_value=-1)
    check_jax(jnp.argwhere, "argwhere", A > 0, size=5)
    check_jax(jnp.sort, "sort", F, descending=True)
    check_jax(jnp.argsort, "argsort", F, descending=True)
    if jnp_check._jax_numpy is not None:  # float -> int casts saturate; NaN -> 0
        x = np.array([-2.7, 3e10, np.nan, 300.0], np.float32)
        for dtype in (np.int32, np.uint8):
            assert_close(jnp.astype(x, dtype), np.asarray(jnp_check._jax_numpy.astype(x, dtype)))
    check_jax(jnp.pad, "pad", A, ((1, 5), (2, 0), (7, 9)), mode="symmetric")
