"""x[idx] and x.at[idx] against NumPy: basic and advanced indexing, dynamic
indices under jit, boolean masks, and the update methods."""
import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import core

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
XJ = jnp.asarray(X)
M = X % 7 < 3  # a boolean mask of X's shape

BASIC = [
    0, -1, 2, (1, 2), (-1, -4, 3), slice(None), slice(1, None), slice(None, None, -1),
    slice(None, None, 2), slice(5, -5, -1), (slice(None), slice(1, 3)), (slice(None), slice(3, 0, -2)),
    (..., 1), (1, ...), (..., slice(None, None, -2)), (None,), (None, 0, None, slice(1, 3), None),
    (..., None), (1, slice(2, 2)), (slice(10, 20),), (), ..., (slice(None), -1, slice(None, None, 3)),
]


@pytest.mark.parametrize("index", BASIC, ids=repr)
def test_basic_indexing(index):
    check(lambda x: x[index], lambda x: x[index], XJ, dtype=np.float32)


ADVANCED = [
    np.array([2, 0, -1]),
    (np.array([[0, 1], [2, 0]]),),
    (slice(None), np.array([3, -4, 1])),
    (np.array([0, 2]), np.array([1, 3])),
    (np.array([[0], [2]]), np.array([1, 3, 0])),  # broadcast to (2, 3)
    (0, slice(None), np.array([1, 2])),  # not adjacent (the int counts): (2, 4)
    (slice(None), 1, np.array([1, 2])),  # adjacent: (3, 2)
    (np.array([1, 2]), slice(None), 0),  # not adjacent
    (np.array([1]), None, np.array([2])),  # None separates them
    (slice(1, None), np.array([0, 0, 3]), slice(None, None, -2)),
    (..., np.array([4, 0])),
    (np.array([0, 1]), ..., np.array([2, 3])),
    ([0, 2], [1, 1]),  # lists inside a tuple are index arrays
    (np.array([], np.int32),),
    (np.array(1), np.array([0, 3])),  # a 0-d index array acts as an int
    (M,),
    (slice(None), M[0]),
    (slice(None), M[0, :, 0]),
    (M[:, 0, 0], 1, slice(None, 3)),
    (True,),
    (False,),
    (slice(None), True),
    (np.array([0, 2]), True),
    (np.uint8(2), np.array([3], np.uint8)),
]


@pytest.mark.parametrize("index", ADVANCED, ids=repr)
def test_advanced_indexing_eager(index):
    assert_close(jnp.asarray(X)[index], X[index], what=repr(index))


@pytest.mark.parametrize("index", ADVANCED[:14], ids=repr)
def test_advanced_indexing_jit(index):
    check(lambda x: x[index], lambda x: x[index], XJ, dtype=np.float32)


def test_index_arrays_traced_under_jit():
    i = np.array([[2, -1], [0, 1]], np.int32)
    j = np.array([4, 0], np.int32)
    i, j = jnp.asarray(i), jnp.asarray(j)
    check(lambda x, i, j: x[i, :, j], lambda x, i, j: x[i, :, j], XJ, i, j)
    check(lambda x, i, j: x[1:, i[0], ::2], lambda x, i, j: x[1:, i[0], ::2], XJ, i, j)


def test_dynamic_int_indices_wrap_and_clamp():
    f = jaxc.jit(lambda x, i: (x[i], x[:, i, 1:], x[i, -1, i]))
    for i in (0, 2, -1, -3):
        got = f(jnp.asarray(X), i)
        assert_close(got, (X[i], X[:, i, 1:], X[i, -1, i]), what=f"i={i}")
    # out of range: clamped (JAX's default for reads)
    got = f(jnp.asarray(X), 7)
    assert_close(got, (X[2], X[:, 3, 1:], X[2, -1, 4]))
    got = f(jnp.asarray(X), -10)
    assert_close(got, (X[0], X[:, 0, 1:], X[0, -1, 0]))


def test_zero_d_array_index_eager():
    x = jnp.asarray(X)
    assert_close(x[jnp.asarray(1)], X[1])
    assert_close(x[jnp.asarray(-1), jnp.asarray(2)], X[-1, 2])
    assert_close(x[jnp.asarray(9)], X[2])  # clamped, as under jit
    assert_close(x[jnp.asarray([0, -1])], X[[0, -1]])


def test_zero_d_and_empty_arrays():
    s = jnp.asarray(np.float32(5.0))
    assert s[()].shape == () and float(s[...]) == 5.0
    assert_close(s[None], np.array([5.0], np.float32))
    assert_close(s[True], np.array([5.0], np.float32))
    e = jnp.zeros((0, 3))
    assert e[:, 1].shape == (0,)
    assert e[np.array([], np.int32)].shape == (0, 3)
    assert jnp.asarray(X)[np.zeros((0, 2), np.int32)].shape == (0, 2, 4, 5)


def test_integer_dtypes_and_weak_type_kept():
    for dtype in (np.int32, np.uint8, np.bool_):
        a = rand((4, 5), dtype)
        check(lambda x: x[1:3, np.array([0, 4])], lambda x: x[1:3, np.array([0, 4])], jnp.asarray(a), dtype=dtype)
    weak = jnp.broadcast_to(2.0, (3, 2))  # a weakly typed float32 array
    assert weak.weak_type
    assert weak[1].weak_type and weak[np.array([0, 2])].weak_type
    assert weak.at[0].set(1.0).weak_type and weak.at[np.array([0])].add(1.0).weak_type


def test_indexing_errors():
    x = jnp.asarray(X)
    # Static out-of-range ints clamp as in JAX (not an IndexError): see test_jax_errors.py.
    np.testing.assert_array_equal(np.asarray(x[3]), X[2])
    np.testing.assert_array_equal(np.asarray(x[0, 0, -6]), X[0, 0, 0])
    with pytest.raises(IndexError, match="too many indices for array: array is 3-dimensional, but 4"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(TypeError, match="integer or boolean type, got indexer with type float32"):
        x[np.array([1.0], np.float32)]
    with pytest.raises(TypeError, match="integer or boolean type"):
        x[jnp.asarray([0.5])]
    with pytest.raises(TypeError, match="non-tuple sequence"):
        x[[0, 1]]
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 0; size "
                                         "of axis is 3 but size of corresponding boolean axis is 4"):
        x[np.ones(4, bool)]
    with pytest.raises(ValueError, match=r"shape mismatch: .* \(2,\) \(3,\)"):
        x[np.array([0, 1]), np.array([0, 1, 2])]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 1.0


def test_boolean_mask_under_jit_is_a_concretization_error():
    f = jaxc.jit(lambda x, m: x[m])
    with pytest.raises(core.ConcretizationTypeError, match="Array boolean indices must be concrete"):
        f(jnp.asarray(X), jnp.asarray(M))
    with pytest.raises(IndexError, match="boolean indices must be concrete"):
        f(jnp.asarray(X), jnp.asarray(M))
    # a static NumPy mask is fine under jit
    check(lambda x: x[:, M[0]], lambda x: x[:, M[0]], XJ)


def test_traced_slice_bound_is_a_concretization_error():
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda x, i: x[i:])(jnp.asarray(X), 1)


# ---------------------------------------------------------------------------
# x.at[...]
# ---------------------------------------------------------------------------

def reference_update(x, index, values, kind):
    """NumPy's answer: assignment for set, the ufunc's .at (unbuffered:
    repeated indices accumulate) for the others."""
    out = x.copy()
    if kind == "set":
        out[index] = values
    else:
        ufunc = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}[kind]
        ufunc.at(out, index, values)
    return out


def apply_update(x, index, values, kind):
    ref = x.at[index]
    return {"set": ref.set, "add": ref.add, "mul": ref.mul, "min": ref.min, "max": ref.max}[kind](values)


UPDATE_CASES = [
    (1, 7.0),
    ((0, -1), np.arange(5, dtype=np.float32)),
    ((slice(1, 3), slice(None), 2), 3.0),
    ((..., slice(None, None, 2)), -2.0),
    ((slice(None, None, -1), 1), np.arange(15, dtype=np.float32).reshape(3, 5)),
    ((None, 2, slice(1, 4)), np.ones((1, 3, 5), np.float32)),
    (np.array([2, 0]), 5.0),
    ((np.array([0, 0, 2, 0]), slice(None), np.array([1, 1, 4, 1])), np.arange(16, dtype=np.float32).reshape(4, 4)),
    ((0, slice(None), np.array([1, 2])), np.arange(8, dtype=np.float32).reshape(2, 4)),
    ((slice(None), np.array([[0], [3]]), np.array([1, 2])), 2.5),
    (M, 10.0),
    ((1, M[0, :, 0]), -1.0),
    ((slice(None), slice(0, 4, 3), np.array([-1, 0])), np.arange(4, dtype=np.float32).reshape(2, 2)),
]


@pytest.mark.parametrize("kind", ["set", "add", "mul", "min", "max"])
@pytest.mark.parametrize("case", range(len(UPDATE_CASES)))
def test_at_updates_eager(kind, case):
    index, values = UPDATE_CASES[case]
    got = apply_update(jnp.asarray(X), index, values, kind)
    assert got.dtype == np.float32
    assert_close(got, reference_update(X, index, values, kind), what=f"{kind} {index!r}")


@pytest.mark.parametrize("case", [0, 2, 4, 7, 9, 12])
def test_at_updates_jit(case):
    index, values = UPDATE_CASES[case]
    for kind in ("set", "add"):
        check(lambda x: apply_update(x, index, values, kind), None, XJ,
              expected=reference_update(X, index, values, kind), dtype=np.float32)


def test_at_with_traced_indices_and_values():
    def f(x, i, v):
        return x.at[i].add(v), x.at[:, i[0]].set(v[:, 0]), x.at[i[1], 1:3].max(v[0, 1:3])
    i = np.array([2, 0, 2], np.int32)
    v = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    expected = (reference_update(X, i, v, "add"), reference_update(X, (slice(None), 2), v[:, 0], "set"),
                reference_update(X, (0, slice(1, 3)), v[0, 1:3], "max"))
    check(f, None, XJ, jnp.asarray(i), jnp.asarray(v), expected=expected)


def test_at_subtract_divide_power_and_apply():
    """The other update methods, against a loop over the updates (repeated
    indices act again, out-of-range ones are dropped), eagerly and under jit."""
    x = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    index = np.array([0, 2, 0, 5])   # row 0 twice, row 5 out of range
    values = np.array([2.0, 3.0, 4.0, 5.0], np.float32)[:, None]

    def looped(step):
        out = x.copy()
        for i, v in zip(index, values):
            if 0 <= i < x.shape[0]:
                out[i] = step(out[i], v)
        return out
    ref = x.T  # index the columns: shape (3, 2), rows 0..2
    cases = {"subtract": (np.subtract, lambda r: r.subtract(values)),
             "divide": (np.divide, lambda r: r.divide(values)),
             "power": (np.power, lambda r: r.power(values))}
    for name, (step, method) in cases.items():
        out = ref.copy()
        for i, v in zip(index, values[:, 0]):
            if 0 <= i < ref.shape[0]:
                out[i] = step(out[i], v)
        got = method(jnp.asarray(ref).at[index])
        assert_close(got, out, what=name)
        assert_close(jaxc.jit(lambda a: method(a.at[index]))(jnp.asarray(ref)), out, what=f"jit {name}")
    # apply: once per time an index names the element
    expected = looped(lambda row, v: row * 2 + 1)
    assert_close(jnp.asarray(x).at[index[:3]].apply(lambda e: e * 2 + 1), expected)
    assert_close(jaxc.jit(lambda a, i: a.at[i].apply(lambda e: e * 2 + 1))(x, index), expected)
    assert_close(jnp.asarray(x).at[0, 1].apply(jnp.exp, unique_indices=True),
                 np.where(np.arange(6).reshape(2, 3) == 1, np.exp(x), x))
    # integer division is true division; integer powers stay integers
    i = jnp.arange(6).reshape(2, 3)
    assert_close(i.at[0].divide(2), np.array([[0, 0.5, 1], [3, 4, 5]], np.float32))
    got = i.at[0].power(2)
    assert got.dtype == np.int32 and np.array_equal(got, [[0, 1, 4], [3, 4, 5]])
    with pytest.raises(TypeError, match="func must be callable"):
        i.at[0].apply(3)


def test_at_out_of_range_updates_are_dropped():
    x = jnp.arange(5.0)
    assert_close(x.at[np.array([1, 5, -1, -6])].set(9.0), np.array([0, 9, 2, 3, 9], np.float32))
    assert_close(x.at[np.array([7])].add(1.0), np.arange(5.0))
    f = jaxc.jit(lambda x, i: x.at[i].add(100.0))
    assert_close(f(x, 10), np.arange(5.0))
    assert_close(f(x, -1), np.array([0, 1, 2, 3, 104], np.float32))
    assert_close(x.at[np.array([7, -9])].set(1.0, mode="clip"), np.array([1, 1, 2, 3, 1], np.float32))


def test_at_dtype_cast_and_broadcast():
    x = jnp.zeros((3, 4), jnp.int32)
    out = x.at[1].set(2.7)
    assert out.dtype == np.int32
    assert_close(out, np.array([[0] * 4, [2] * 4, [0] * 4], np.int32))
    b = jnp.zeros((2, 3), jnp.bool_).at[:, 1].set(True)
    assert_close(b, np.array([[False, True, False]] * 2))
    u = jnp.full((4,), 250, jnp.uint8).at[np.array([0, 0])].add(3)
    assert u.dtype == np.uint8 and np.asarray(u).tolist() == [0, 250, 250, 250]  # 250 + 3 + 3 wraps
    assert_close(jnp.zeros((2, 3)).at[0].set(np.ones((1, 3))), np.array([[1, 1, 1], [0, 0, 0]], np.float32))
    with pytest.raises(ValueError, match=r"x.at\[idx\].set: cannot broadcast updates of shape \(2,\) to "
                                         r"the indexed shape \(3,\)"):
        jnp.zeros((2, 3)).at[0].set(np.ones(2))


def test_at_get_modes():
    x = jnp.arange(5.0)
    idx = np.array([0, 4, 5, -1, -6])
    assert_close(x.at[idx].get(), np.array([0, 4, 4, 4, 0], np.float32))
    assert_close(x.at[idx].get(mode="fill"), np.array([0, 4, np.nan, 4, np.nan], np.float32))
    assert_close(x.at[idx].get(mode="fill", fill_value=-1.0), np.array([0, 4, -1, 4, -1], np.float32))
    i = jnp.arange(5, dtype=jnp.int32)
    assert_close(i.at[idx].get(mode="fill"), np.array([0, 4, np.iinfo(np.int32).min, 4, np.iinfo(np.int32).min]))
    f = jaxc.jit(lambda x, j: x.at[j].get(mode="fill", fill_value=-2.0))
    assert_close(f(x, 9), np.float32(-2.0))
    assert_close(f(x, -2), np.float32(3.0))
    with pytest.raises(ValueError, match="unknown mode"):
        x.at[0].get(mode="bogus")


def test_at_on_zero_d_and_empty():
    s = jnp.asarray(np.float32(1.0))
    assert_close(s.at[()].set(4.0), np.float32(4.0))
    assert_close(s.at[...].add(2.0), np.float32(3.0))
    e = jnp.zeros((0, 2))
    assert e.at[:, 0].set(1.0).shape == (0, 2)
    assert_close(jnp.zeros(3).at[np.array([], np.int32)].add(1.0), np.zeros(3, np.float32))


def test_matches_jax_where_installed():
    """Out-of-range and mode semantics against JAX itself (skipped without JAX)."""
    jax_numpy = pytest.importorskip("jax.numpy")
    ours, theirs = jnp.asarray(X), jax_numpy.asarray(X)
    for index in [np.array([7, -1, -9]), (np.array([1, 5]), slice(None), np.array([-7, 2])),
                  (1, slice(None), np.array([9])), (np.array([0, 1]), True)]:
        assert_close(ours[index], np.asarray(theirs[index]), what=f"get {index!r}")
        for mode in ("fill", "clip"):
            assert_close(ours.at[index].get(mode=mode), np.asarray(theirs.at[index].get(mode=mode)))
        for method in ("set", "add", "multiply", "min", "max"):
            for mode in (None, "clip"):
                assert_close(getattr(ours.at[index], method)(2.0, mode=mode),
                             np.asarray(getattr(theirs.at[index], method)(2.0, mode=mode)),
                             what=f"{method} {mode} {index!r}")


# ---------------------------------------------------------------------------
# Gradients where indices fall outside the array
# ---------------------------------------------------------------------------

def test_gradient_of_dropped_updates_is_zero():
    """A scatter drops updates whose index is out of range: they get no
    cotangent (the transpose's gather would otherwise clamp onto the edge)."""
    weights = jnp.arange(1.0, 5.0)
    idx = jnp.array([0, 5, -1, 2])  # 5 is dropped; -1 counts from the end (3)

    def f(v):
        return (jnp.zeros(4).at[idx].add(v, mode="drop") * weights).sum()

    expected = [1.0, 0.0, 4.0, 3.0]  # weights[idx] where the index is in range
    np.testing.assert_array_equal(np.asarray(jaxc.grad(f)(jnp.ones(4))), expected)
    np.testing.assert_array_equal(np.asarray(jaxc.jit(jaxc.grad(f))(jnp.ones(4))), expected)


def test_gradient_of_clamped_reads_goes_to_the_clamped_element():
    """A gather in mode 'clip' reads index 7 of 4 elements as element 3: that
    element gets its cotangent too (a scatter-add would drop it)."""
    def f(z):
        return (z.at[jnp.array([0, 7, 3])].get(mode="clip") * jnp.array([1.0, 2.0, 3.0])).sum()

    np.testing.assert_array_equal(np.asarray(jaxc.grad(f)(jnp.ones(4))), [1.0, 0.0, 0.0, 5.0])


def test_gradient_of_dropped_rows_in_a_windowed_scatter():
    """Whole rows (windows) dropped by a 2-D scatter-add get zero cotangent."""
    idx = jnp.array([1, 3, -4, 0])  # 3 and -4 are outside 3 rows (-4 wraps to -1: dropped)

    def f(rows):
        return (jnp.zeros((3, 2)).at[idx].add(rows, mode="drop") * jnp.array([[1.0, 2.0]])).sum()

    got = np.asarray(jaxc.grad(f)(jnp.ones((4, 2))))
    np.testing.assert_array_equal(got, [[1, 2], [0, 0], [0, 0], [1, 2]])


# ---------------------------------------------------------------------------
# jaxc.ds: windows at run-time starts (JAX's jax.ds)
# ---------------------------------------------------------------------------

def _np_window(n, start, size, stride):
    """The indices JAX reads for ds(start, size, stride) on an axis of n."""
    start = start + n if start < 0 else start
    if stride == 1:
        start = min(max(start, 0), n - size)
        return np.arange(start, start + size)
    return np.clip(np.arange(start, start + size * stride, stride), 0, n - 1)


@pytest.mark.parametrize("start, size, stride", [(2, 3, 1), (8, 3, 1), (-3, 3, 1), (0, 10, 1), (1, 3, 2),
                                                 (7, 3, 2), (-4, 2, 3)])
def test_ds_reads_a_window_at_a_traced_start(start, size, stride):
    x = np.arange(10.0, dtype=np.float32)
    f = jaxc.jit(lambda x, i: x[jaxc.ds(i, size, stride)])
    np.testing.assert_array_equal(f(x, start), x[_np_window(10, start, size, stride)])
    m = np.arange(20.0, dtype=np.float32).reshape(4, 5)
    got = jaxc.jit(lambda m, i, j: m[jaxc.ds(i, 2), jaxc.ds(j, 3)])(m, 1, start % 5)
    rows, cols = _np_window(4, 1, 2, 1), _np_window(5, start % 5, 3, 1)
    np.testing.assert_array_equal(got, m[np.ix_(rows, cols)])


def test_ds_forms_and_errors():
    x = jnp.arange(10)
    np.testing.assert_array_equal(x[jaxc.ds(4)], np.arange(4))  # ds(j): the first j
    assert jaxc.ds(None) == slice(None)
    np.testing.assert_array_equal(jaxc.vmap(lambda i: x[jaxc.ds(i, 2)])(jnp.array([0, 3, 9])),
                                  [[0, 1], [3, 4], [8, 9]])
    grad = jaxc.grad(lambda v, i: v[jaxc.ds(i, 3)].sum())(jnp.arange(6.0), 2)
    np.testing.assert_array_equal(grad, [0, 0, 1, 1, 1, 0])
    with pytest.raises(IndexError, match="longer than the axis"):
        x[jaxc.ds(0, 11)]
    with pytest.raises(ValueError, match="stride"):
        jaxc.ds(0, 2, 0)
    with pytest.raises(TypeError, match="0-d integer"):
        jaxc.jit(lambda x, i: x[jaxc.ds(i, 2)])(x, 1.5)


def test_ds_updates_drop_a_window_out_of_range():
    """As JAX's scatter of a window: a window that does not fit is dropped
    whole (mode="clip" clamps it instead); strided windows per index."""
    m = np.arange(20.0, dtype=np.float32).reshape(4, 5)
    f = jaxc.jit(lambda m, i: m.at[jaxc.ds(i, 2)].set(0.0))
    expected = m.copy()
    expected[2:4] = 0
    np.testing.assert_array_equal(f(m, 2), expected)
    np.testing.assert_array_equal(f(m, -2), expected)
    np.testing.assert_array_equal(f(m, 3), m)  # rows 3 and 4: does not fit, dropped
    clipped = jaxc.jit(lambda m, i: m.at[jaxc.ds(i, 2)].set(0.0, mode="clip"))(m, 3)
    np.testing.assert_array_equal(clipped, expected)
    np.testing.assert_array_equal(jnp.asarray(m).at[jaxc.ds(3, 2)].add(1.0), m)  # static start too
    strided = jaxc.jit(lambda m, i: m.at[:, jaxc.ds(i, 2, 2)].add(1.0))(m, 2)
    expected = m.copy()
    expected[:, [2, 4]] += 1
    np.testing.assert_array_equal(strided, expected)
    r = jaxc.new_ref(jnp.zeros(6))
    write = jaxc.jit(lambda i: r.__setitem__(jaxc.ds(i, 2), jnp.ones(2) * i))
    write(1)
    write(4)
    np.testing.assert_array_equal(r[...], [0, 1, 1, 0, 4, 4])
