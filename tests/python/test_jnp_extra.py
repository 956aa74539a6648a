"""The jnp functions of numpy/_index_tricks.py, _functional.py, _numerics.py
and _io.py (issue #17) against NumPy and hand-computed values (eager, under
jit, JAX's result dtypes), vmap against a Python loop, float64
finite-difference gradients, and their errors. JAX is not needed."""
import io

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import core
from jaxc.test_util import check_grads

F = rand((3, 5))
V = rand((7,))


def f64(*shape, low=-1.0, high=1.0, seed=1):
    return np.random.default_rng(seed).uniform(low, high, size=shape)



# ---------------------------------------------------------------------------
# Index tricks: r_, c_, s_, index_exp, mgrid, ogrid, ix_, mask_indices, fill_diagonal
# ---------------------------------------------------------------------------

def test_r_and_c():
    a = np.array([1, 2], np.int32)
    out = jnp.r_[jnp.asarray(a), 0:5:2, 7]
    assert_close(out, np.array([1, 2, 0, 2, 4, 7]))
    assert out.dtype == np.int32
    out = jnp.r_[jnp.asarray(a), 3, 4.0]  # int32 array with weak scalars: float32
    assert_close(out, np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    assert out.dtype == np.float32
    weak = jnp.r_[1, 2]
    assert weak.dtype == np.int32 and weak.weak_type
    assert_close(jnp.r_[0:1:5j], np.linspace(0, 1, 5).astype(np.float32))
    assert jnp.r_[0:1:5j].dtype == np.float32
    assert_close(jnp.r_[0:1:0.25], np.r_[0:1:0.25].astype(np.float32))
    assert_close(jnp.r_[5:0:-2], np.r_[5:0:-2])
    assert_close(jnp.r_[[1, 2], [3]], np.array([1, 2, 3]))
    ones, zeros = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
    assert_close(jnp.r_["-1", ones, zeros], np.r_["-1", ones, zeros])
    for directive in ["0,2", "0,2,0", "0,3,-1", "0,3,1", "1,2"]:
        assert_close(jnp.r_[directive, [1, 2], [3, 4]], np.r_[directive, [1, 2], [3, 4]], what=directive)
    assert_close(jnp.r_["r", [1, 2, 3]], np.array([[1, 2, 3]]))
    assert_close(jnp.r_["c", [1, 2, 3]], np.array([[1], [2], [3]]))
    b = np.array([4, 5, 6], np.int32)
    assert_close(jnp.c_[jnp.asarray(b - 3), jnp.asarray(b)], np.c_[b - 3, b])
    assert_close(jnp.c_[ones, zeros], np.c_[ones, zeros])
    assert_close(jnp.c_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])],
                 np.c_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])])
    assert_close(jnp.c_[0:3, 3:6], np.c_[0:3, 3:6])
    traced = jaxc.jit(lambda x: jnp.r_[x, 0:2, 9.0])(np.array([5.0, 6.0], np.float32))
    assert_close(traced, np.array([5.0, 6.0, 0.0, 1.0, 9.0], np.float32))
    with pytest.raises(ValueError, match="directive"):
        jnp.r_["foo", [1, 2]]
    with pytest.raises(ValueError, match="beginning"):
        jnp.r_[[1, 2], "0"]
    with pytest.raises(ValueError, match="at least one"):
        jnp.r_["0"]


def test_s_and_index_exp():
    assert jnp.s_[1:2, ::3] == (slice(1, 2), slice(None, None, 3))
    assert jnp.s_[1] == 1
    assert jnp.index_exp[1] == (1,)
    assert jnp.index_exp[::2] == (slice(None, None, 2),)
    assert_close(jnp.arange(10)[jnp.s_[2:8:3]], np.array([2, 5]))


def test_mgrid_and_ogrid():
    for key in [(slice(0, 3), slice(0, 2)), (slice(0, 1, 3j), slice(0, 2)), (slice(0, 2), slice(0.0, 1, 0.5))]:
        out = jnp.mgrid[key]
        assert_close(out, np.mgrid[key].astype(out.dtype), what=str(key))
        opened = jnp.ogrid[key]
        assert isinstance(opened, list) and len(opened) == 2
        for mine, ref in zip(opened, np.ogrid[key]):
            assert_close(mine, ref.astype(mine.dtype), what=str(key))
    assert jnp.mgrid[0:3, 0:2].dtype == np.int32
    assert jnp.mgrid[0:1:3j, 0:2].dtype == np.float32
    assert jnp.mgrid[0:2, 0.0:1:0.5].dtype == np.float32  # one float slice makes all float
    assert_close(jnp.mgrid[-1:1:5j], np.linspace(-1, 1, 5).astype(np.float32))
    assert_close(jnp.mgrid[0:4], np.arange(4))
    assert jnp.mgrid[0:0, 0:2].shape == (2, 0, 2)
    assert_close(jnp.ogrid[0:3], np.arange(3))
    with pytest.raises(TypeError, match="slices"):
        jnp.mgrid[3]


def test_ix():
    rows, cols = np.array([0, 2], np.int32), np.array([1, 3, 4], np.int32)
    out = jnp.ix_(jnp.asarray(rows), cols)
    assert isinstance(out, tuple)
    for mine, ref in zip(out, np.ix_(rows, cols)):
        assert_close(mine, ref)
        assert mine.dtype == np.int32
    assert_close(jnp.asarray(F)[jnp.ix_(rows, cols)], F[np.ix_(rows, cols)])
    assert jnp.ix_() == ()
    with pytest.raises(NotImplementedError, match="Boolean"):
        jnp.ix_(np.array([True, False]))
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.ix_(np.ones((2, 2), np.int32))
    with pytest.raises(TypeError):
        jnp.ix_([0, 1])


def test_mask_indices():
    for fn, np_fn, k in [(jnp.triu, np.triu, 0), (jnp.tril, np.tril, 1), (np.triu, np.triu, -1)]:
        mine = jnp.mask_indices(4, fn, k)
        for a, b in zip(mine, np.mask_indices(4, np_fn, k)):
            assert_close(a, b)
            assert a.dtype == np.int32
    rows, cols = jaxc.jit(lambda: jnp.mask_indices(3, jnp.triu, size=8))()
    assert_close(rows, np.array([0, 0, 0, 1, 1, 2, 0, 0]))
    assert_close(cols, np.array([0, 1, 2, 1, 2, 2, 0, 0]))


def test_fill_diagonal():
    def ref(a, val):
        out = np.array(a)
        np.fill_diagonal(out, val)
        return out
    a = np.zeros((3, 4), np.float32)
    check(lambda a, v: jnp.fill_diagonal(a, v, inplace=False), ref, a, np.array([1.0, 2.0], np.float32),
          dtype=np.float32)
    assert_close(jnp.fill_diagonal(a, 5, inplace=False), ref(a, 5))
    assert_close(jnp.fill_diagonal(np.zeros((7, 3), np.float32), 5, inplace=False), ref(np.zeros((7, 3)), 5))
    assert_close(jnp.fill_diagonal(a, np.arange(10.0), inplace=False), ref(a, np.arange(10.0)))
    assert_close(jnp.fill_diagonal(np.zeros((2, 2, 2)), 1.0, inplace=False), ref(np.zeros((2, 2, 2)), 1.0))
    out = jnp.fill_diagonal(np.zeros((2, 2), np.int32), 1.7, inplace=False)  # cast to a's dtype
    assert out.dtype == np.int32 and np.asarray(out).tolist() == [[1, 0], [0, 1]]
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.fill_diagonal(a, 1.0)
    with pytest.raises(NotImplementedError, match="wrap"):
        jnp.fill_diagonal(a, 1.0, wrap=True, inplace=False)
    with pytest.raises(ValueError, match="at least 2-d"):
        jnp.fill_diagonal(np.zeros(3), 1.0, inplace=False)
    with pytest.raises(ValueError, match="equal length"):
        jnp.fill_diagonal(np.zeros((2, 3, 2)), 1.0, inplace=False)
    with pytest.raises(TypeError):
        jnp.fill_diagonal([[0.0, 0.0], [0.0, 0.0]], 1.0, inplace=False)


# ---------------------------------------------------------------------------
# vectorize, apply_along_axis, apply_over_axes, piecewise, fromfunction
# ---------------------------------------------------------------------------

def test_vectorize():
    add = jnp.vectorize(lambda a, b: a + 2 * b)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    check(add, np.vectorize(lambda a, b: a + 2 * b), F[:2, :3], b, dtype=np.float32)
    assert_close(add([1.0, 2.0], 1.0), np.array([3.0, 4.0]))  # lists are converted, as in JAX
    assert add(1, 2).dtype == np.int32

    seen = []
    jnp.vectorize(lambda a: seen.append(a.shape) or a)(F)
    assert seen == [()]  # pyfunc sees scalars

    dot = jnp.vectorize(jnp.dot, signature="(n),(n)->()")
    check(dot, lambda a, b: np.einsum("...n,...n->...", a, b), F, V[:5], rtol=1e-5, atol=1e-5)
    assert dot(np.ones((2, 1, 3)), np.ones((4, 3))).shape == (2, 4)
    outer = jnp.vectorize(lambda a: jnp.outer(a, a), signature="(n)->(n,n)")
    assert_close(outer(F), np.einsum("bi,bj->bij", F, F), rtol=1e-5)
    stats = jnp.vectorize(lambda a: (jnp.sum(a), a * 2), signature="(n)->(),(n)")
    total, doubled = stats(F)
    assert_close(total, F.sum(1), rtol=1e-5, atol=1e-5)
    assert_close(doubled, F * 2)
    scaled = jnp.vectorize(lambda a, b: a * b[0], excluded={1})
    assert_close(scaled(F, [10.0, 20.0]), F * 10)
    assert_close(jnp.vectorize(lambda a, b: a * b[0], excluded={"b"})(F, b=[10.0, 20.0]), F * 10)
    assert_close(jnp.vectorize(lambda a, b: a * b)(F[:2, :3], b=b), F[:2, :3] * b)

    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n'"):
        dot(F, np.ones(2, np.float32))
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(jnp.dot, signature="(n),(n)>()")(F, F)
    with pytest.raises(TypeError, match="wrong number of positional arguments"):
        dot(F)
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        dot(np.float32(1), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="does not match core dimensions"):
        jnp.vectorize(lambda a: a, signature="(n)->()")(F)
    with pytest.raises(TypeError, match="wrong number of output arguments"):
        jnp.vectorize(lambda a: (a, a), signature="(n)->(n)")(F)


def test_apply_along_and_over_axes():
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    for axis in (0, 1, 2, -1):
        check(lambda a: jnp.apply_along_axis(lambda v: v[::-1] * 2, axis, a),
              lambda a: np.apply_along_axis(lambda v: v[::-1] * 2, axis, a), x)
    assert_close(jnp.apply_along_axis(jnp.sum, 1, x), np.apply_along_axis(np.sum, 1, x))
    out = jnp.apply_along_axis(lambda v: jnp.outer(v, v[:2]), 1, x)
    assert_close(out, np.apply_along_axis(lambda v: np.outer(v, v[:2]), 1, x))
    assert_close(jnp.apply_along_axis(lambda v, a, b=1: v * a + b, 1, x, 2.0, b=3.0), x * 2 + 3)
    with pytest.raises(np.exceptions.AxisError):
        jnp.apply_along_axis(jnp.sum, 3, x)
    with pytest.raises(TypeError):
        jnp.apply_along_axis(jnp.sum, 0, [[1.0]])

    for axes in ([0, 2], [-1], (1,), []):
        assert_close(jnp.apply_over_axes(jnp.sum, x, axes), np.apply_over_axes(np.sum, x, axes), what=str(axes))
    check(lambda a: jnp.apply_over_axes(jnp.max, a, [0, 1]), lambda a: np.apply_over_axes(np.max, a, [0, 1]), x)
    with pytest.raises(ValueError, match="correct shape"):
        jnp.apply_over_axes(lambda a, axis: jnp.sum(a, axis).sum(), x, [0])
    with pytest.raises(TypeError, match="sequence"):
        jnp.apply_over_axes(jnp.sum, x, 1)


def test_piecewise():
    x = np.array([-1.5, -0.5, 0.0, 0.5, 1.0, 2.5], np.float32)

    def run(x):
        return jnp.piecewise(x, [x < 0, x > 1], [lambda v: v ** 2, lambda v: -v, 7.0])

    def ref(x):
        return np.piecewise(x, [x < 0, x > 1], [lambda v: v ** 2, lambda v: -v, 7.0])
    check(run, ref, x, dtype=np.float32)
    assert_close(jnp.piecewise(x, [x < 1, x < 2], [1, 2]), np.piecewise(x, [x < 1, x < 2], [1, 2]))  # last wins
    assert_close(jnp.piecewise(x, [x < 0], [lambda v, a, b=0: v * a + b, 0], 3.0, b=1.0),
                 np.where(x < 0, x * 3 + 1, 0))
    ints = np.array([1, 2, 3], np.int32)
    out = jnp.piecewise(ints, [np.array([True, False, True])], [lambda v: v * 1.5])
    assert out.dtype == np.int32 and np.asarray(out).tolist() == [1, 0, 4]  # cast to x's dtype, as JAX
    assert_close(jnp.piecewise(np.float32(2.0), [True], [lambda v: v * 3]), np.float32(6.0))
    assert_close(jnp.piecewise(x, [np.array([1, 0, 0, 0, 0, 2])], [5.0]), np.array([5, 0, 0, 0, 0, 5]))
    seen = []
    jnp.piecewise(x, [x < 0], [lambda v: seen.append(v.shape) or v])
    assert seen == [()]  # functions see x's elements
    with pytest.raises(ValueError, match="either 1 or 2 functions"):
        jnp.piecewise(x, [x < 0], [1, 2, 3])
    with pytest.raises(ValueError, match="broadcast"):
        jnp.piecewise(x, [np.array([True, False])], [1.0])
    with pytest.raises(TypeError):
        jnp.piecewise([1.0, 2.0], [True], [1.0])


def test_fromfunction():
    check(lambda: jnp.fromfunction(lambda i, j: i + 10 * j, (2, 3)), None,
          expected=np.fromfunction(lambda i, j: i + 10 * j, (2, 3)).astype(np.float32), dtype=np.float32)
    out = jnp.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)
    assert out.dtype == np.bool_ and np.array_equal(np.asarray(out), np.eye(3, dtype=bool))
    assert jnp.fromfunction(lambda i, j: i + j, (2, 2), dtype=int).dtype == np.int32
    assert_close(jnp.fromfunction(lambda i, j: 1, (2, 3)), np.ones((2, 3)))  # broadcast, as JAX's vmap
    assert_close(jnp.fromfunction(lambda i: i * 2, 3), np.array([0.0, 2.0, 4.0]))
    assert_close(jnp.fromfunction(lambda i, j, a: i + a * j, (2, 3), a=2), np.fromfunction(
        lambda i, j: i + 2 * j, (2, 3)))
    assert jnp.fromfunction(lambda i: i, (0,)).shape == (0,)


# ---------------------------------------------------------------------------
# choose, put_along_axis, resize, block
# ---------------------------------------------------------------------------

def test_choose():
    choices = [np.arange(4, dtype=np.int32) * s for s in (1, 10, 100)]
    a = np.array([0, 1, 2, 1], np.int32)
    check(lambda a: jnp.choose(a, choices), lambda a: np.choose(a, choices), a, jit=False, dtype=np.int32)
    b = np.array([0, 4, -1, 5], np.int32)
    for mode in ("wrap", "clip"):
        check(lambda b: jnp.choose(b, choices, mode=mode), lambda b: np.choose(b, choices, mode=mode), b,
              dtype=np.int32)
    assert_close(jnp.choose(np.array([[0], [1]], np.int32), [np.arange(3), 5]),
                 np.choose(np.array([[0], [1]]), [np.arange(3), 5]))
    out = jnp.choose(np.array([0, 1], np.int32), [np.arange(2, dtype=np.int32), 2.5])
    assert out.dtype == np.float32 and not out.weak_type
    assert_close(jnp.choose(np.array([0, 1], np.int32), np.array([[1, 2], [3, 4]])), np.array([1, 4]))
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.choose(np.array([0, 3], np.int32), [np.arange(2), np.arange(2) + 5])
    with pytest.raises(core.ConcretizationTypeError):
        jaxc.jit(lambda i: jnp.choose(i, choices))(a)
    with pytest.raises(ValueError, match="integer"):
        jnp.choose(np.array([0.0]), choices)
    with pytest.raises(ValueError, match="mode"):
        jnp.choose(a, choices, mode="foo")
    with pytest.raises(NotImplementedError):
        jnp.choose(a, choices, out=np.zeros(4))
    with pytest.raises(TypeError):
        jnp.choose([0, 1], choices)


def test_put_along_axis():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)

    def ref(arr, idx, values, axis):
        out = np.array(arr)
        np.put_along_axis(out, idx, values, axis)
        return out
    idx = np.array([[0], [2]], np.int32)
    check(lambda x, i: jnp.put_along_axis(x, i, 9.0, axis=1, inplace=False), lambda x, i: ref(x, i, 9.0, 1),
          x, idx, dtype=np.float32)
    idx2 = np.array([[1, 0, 1]], np.int32)
    vals = np.array([[7.0, 8.0, 9.0]], np.float32)
    assert_close(jnp.put_along_axis(x, idx2, vals, axis=0, inplace=False), ref(x, idx2, vals, 0))
    assert_close(jnp.put_along_axis(x, np.array([0, 5]), np.array([7.0, 8.0]), axis=None, inplace=False),
                 ref(x, np.array([0, 5]), np.array([7.0, 8.0]), None))
    assert_close(jnp.put_along_axis(x, np.array([[0, 1]]), 9.0, axis=1, inplace=False),
                 ref(x, np.array([[0, 1]]), 9.0, 1))  # indices broadcast over rows
    assert_close(jnp.put_along_axis(x, np.array([[-1], [0]]), 9.0, axis=1, inplace=False),
                 ref(x, np.array([[-1], [0]]), 9.0, 1))
    dropped = jnp.put_along_axis(x, np.array([[5], [0]]), 9.0, axis=1, inplace=False)  # out of range: dropped
    assert_close(dropped, np.array([[0.0, 1.0, 2.0], [9.0, 4.0, 5.0]]))
    clipped = jnp.put_along_axis(x, np.array([[5], [0]]), 9.0, axis=1, inplace=False, mode="clip")
    assert_close(clipped, np.array([[0.0, 1.0, 9.0], [9.0, 4.0, 5.0]]))
    assert jnp.put_along_axis(np.arange(3, dtype=np.int32), np.array([0]), 9.7, axis=0,
                              inplace=False).dtype == np.int32
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.put_along_axis(x, idx, 9.0, axis=1)
    with pytest.raises(ValueError, match="same ndim"):
        jnp.put_along_axis(x, np.array([0]), 9.0, axis=1, inplace=False)
    with pytest.raises(ValueError, match="broadcastable"):
        jnp.put_along_axis(x, np.array([[0, 1]]), np.ones((2, 1)), axis=1, inplace=False)
    with pytest.raises(TypeError):
        jnp.put_along_axis(x, [[0], [2]], 9.0, axis=1, inplace=False)


def test_resize():
    a = np.arange(3, dtype=np.int32)
    check(lambda a: jnp.resize(a, (2, 4)), lambda a: np.resize(a, (2, 4)), a, dtype=np.int32)
    assert_close(jnp.resize(a, 5), np.resize(a, 5))
    assert_close(jnp.resize(np.arange(6).reshape(2, 3), (3, 3)), np.resize(np.arange(6).reshape(2, 3), (3, 3)))
    assert jnp.resize(a, (0,)).shape == (0,)
    assert_close(jnp.resize(np.zeros((0,), np.float32), (3,)), np.zeros(3))
    scalar = jnp.resize(3.0, (3,))
    assert scalar.weak_type and np.asarray(scalar).tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(ValueError, match="non-negative"):
        jnp.resize(a, (-1,))
    with pytest.raises(TypeError):
        jnp.resize([1, 2], (3,))


def test_block():
    A, B = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
    C, D = np.zeros((1, 2), np.float32), np.ones((1, 1), np.float32)
    check(lambda A, B, C, D: jnp.block([[A, B], [C, D]]), lambda A, B, C, D: np.block([[A, B], [C, D]]),
          A, B, C, D, dtype=np.float32)
    assert_close(jnp.block([np.ones(2), np.zeros(3)]), np.block([np.ones(2), np.zeros(3)]))
    assert_close(jnp.block([[1, 2], [3, 4]]), np.block([[1, 2], [3, 4]]))
    assert_close(jnp.block([[np.ones(3)], [np.zeros(3)]]), np.block([[np.ones(3)], [np.zeros(3)]]))
    mixed = jnp.block([1, 2.0])
    assert mixed.dtype == np.float32 and mixed.weak_type
    assert_close(jnp.block(np.ones(2)), np.ones(2))
    with pytest.raises(ValueError, match="tuples"):
        jnp.block((np.ones(2),))
    with pytest.raises(ValueError, match="Mismatched list depths"):
        jnp.block([[np.ones(2)], np.ones(2)])
    with pytest.raises(ValueError, match="empty"):
        jnp.block([])


# ---------------------------------------------------------------------------
# gradient, unwrap
# ---------------------------------------------------------------------------

def test_gradient():
    f = np.array([1.0, 2.0, 4.0, 7.0, 11.0, 16.0], np.float32)
    xs = np.array([0.0, 1.0, 1.5, 3.5, 4.0, 6.0], np.float32)
    check(jnp.gradient, np.gradient, f, dtype=np.float32)
    check(lambda f, x: jnp.gradient(f, x, edge_order=2), lambda f, x: np.gradient(f, x, edge_order=2), f, xs,
          dtype=np.float32, rtol=1e-5, atol=1e-5)
    for args, kwargs in [((2.0,), {}), ((xs,), {}), ((), dict(edge_order=2)), ((2.0,), dict(edge_order=2)),
                         ((xs,), dict(edge_order=1))]:
        assert_close(jnp.gradient(f, *args, **kwargs), np.gradient(f, *args, **kwargs), rtol=1e-5, atol=1e-5,
                     what=str(kwargs))
    assert jnp.gradient(np.array([1, 2, 4, 7], np.int32)).dtype == np.float32
    assert_close(jnp.gradient(np.array([1, 2, 4, 7], np.int32), np.array([0, 1, 3, 4], np.int32)),
                 np.gradient(np.array([1.0, 2, 4, 7]), np.array([0.0, 1, 3, 4])))
    g = rand((4, 5))
    mine = jnp.gradient(g)
    assert isinstance(mine, list) and len(mine) == 2
    assert_close(mine, list(np.gradient(g)), rtol=1e-5, atol=1e-5)
    assert_close(jnp.gradient(g, axis=(1, 0)), list(np.gradient(g, axis=(1, 0))), rtol=1e-5, atol=1e-5)
    assert_close(jnp.gradient(g, axis=-1), np.gradient(g, axis=-1), rtol=1e-5, atol=1e-5)
    assert_close(jnp.gradient(g, axis=(0,)), np.gradient(g, axis=0), rtol=1e-5, atol=1e-5)
    ys = np.array([0.0, 1.0, 3.0, 3.5, 5.0], np.float32)
    assert_close(jnp.gradient(g, 2.0, ys, edge_order=2), list(np.gradient(g, 2.0, ys, edge_order=2)),
                 rtol=1e-5, atol=1e-5)
    assert jnp.gradient(np.float32(1.0)) == []
    assert jnp.gradient(f.astype(np.float16)).dtype == np.float16
    with pytest.raises(TypeError, match="Invalid number of spacing arguments"):
        jnp.gradient(g, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="too small"):
        jnp.gradient(np.array([1.0]))
    with pytest.raises(ValueError, match="too small"):
        jnp.gradient(np.array([1.0, 2.0]), edge_order=2)
    with pytest.raises(ValueError, match="same length"):
        jnp.gradient(f, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="1D arrays or scalars"):
        jnp.gradient(f, np.ones((2, 3)))
    with pytest.raises(ValueError, match="edge_order"):
        jnp.gradient(f, edge_order=3)
    with pytest.raises(TypeError):
        jnp.gradient([1.0, 2.0])


def test_unwrap():
    p = np.array([0.0, 3.0, 6.5, 10.0, -3.0], np.float32)
    check(jnp.unwrap, lambda p: np.unwrap(p).astype(np.float32), p, dtype=np.float32, rtol=1e-5, atol=1e-5)
    for kwargs in [dict(discont=4.0), dict(discont=1.0), dict(period=4.0)]:
        assert_close(jnp.unwrap(p, **kwargs), np.unwrap(p.astype(np.float64), **kwargs), rtol=1e-5, atol=1e-5,
                     what=str(kwargs))
    ints = np.array([0, 1, 2, -1, 0, 4, 5, 7, -8], np.int32)
    for period in (4, 5):
        out = jnp.unwrap(ints, period=period)
        assert out.dtype == np.int32
        assert_close(out, np.unwrap(ints, period=period), what=f"period={period}")
    assert jnp.unwrap(ints).dtype == np.float32  # the default period is a float
    assert_close(jnp.unwrap(ints), np.unwrap(ints), rtol=1e-5, atol=1e-5)
    m = np.array([[0.0, 3.0, 6.5], [10.0, -3.0, 2.0]], np.float32)
    assert_close(jnp.unwrap(m, axis=0), np.unwrap(m, axis=0), rtol=1e-5, atol=1e-5)
    assert jnp.unwrap(np.zeros((0,), np.float32)).shape == (0,)
    with pytest.raises(TypeError):
        jnp.unwrap([1.0, 2.0])
    with pytest.raises(ValueError):
        jnp.unwrap(np.float32(1.0))


# ---------------------------------------------------------------------------
# i0, kaiser, angle
# ---------------------------------------------------------------------------

def test_i0_and_kaiser():
    x = np.array([-30.0, -2.5, -0.3, 0.0, 0.7, 3.0, 19.0, 21.0, 50.0], np.float32)
    check(jnp.i0, np.i0, x, dtype=np.float32, rtol=2e-5)
    assert jnp.i0(np.array([1, 2], np.int32)).dtype == np.float32
    assert jnp.i0(np.array([1.0], np.float16)).dtype == np.float16
    assert jnp.i0(1.0).weak_type
    assert float(jaxc.grad(jnp.i0)(0.0)) == 0.0
    assert_close(jaxc.grad(jnp.i0)(1.0), np.float32(0.5651591))  # i1(1)
    for M, beta in [(5, 2.0), (8, 6.5), (1, 3.0), (0, 3.0)]:
        out = jnp.kaiser(M, beta)
        assert out.dtype == np.float32 and out.shape == (M,)
        assert_close(out, np.kaiser(M, beta), rtol=2e-5, what=f"kaiser({M}, {beta})")
    traced = jaxc.jit(lambda b: jnp.kaiser(6, b))(np.float32(4.0))
    assert_close(traced, np.kaiser(6, 4.0), rtol=2e-5)
    with pytest.raises(TypeError):
        jnp.i0([1.0])


def test_angle():
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.nan], np.float32)
    check(jnp.angle, lambda x: np.angle(x).astype(np.float32), x, dtype=np.float32)
    assert_close(jnp.angle(x, deg=True), np.angle(x, deg=True).astype(np.float32))
    ints = jnp.angle(np.array([-1, 0, 2], np.int32))
    assert ints.dtype == np.float32 and np.allclose(np.asarray(ints), [np.pi, 0, 0])
    scalar = jnp.angle(-1.0)
    assert scalar.dtype == np.float32 and not scalar.weak_type
    assert jnp.angle(np.array([-1.0], np.float16)).dtype == np.float16
    assert jnp.angle(np.array([True])).dtype == np.float32
    with pytest.raises(TypeError):
        jnp.angle([-1.0])


# ---------------------------------------------------------------------------
# histogram2d, histogramdd
# ---------------------------------------------------------------------------

XS = np.array([0.1, 0.5, 0.9, 0.3, 1.0, 0.65, 0.2], np.float32)
YS = np.array([0.2, 0.2, 0.8, 0.7, 0.0, 0.95, 0.45], np.float32)


def _check_hist(mine, ref, counts_dtype, what=""):
    counts, *edges = mine
    ref_counts, *ref_edges = ref
    assert counts.dtype == counts_dtype, what
    assert_close(counts, ref_counts.astype(counts_dtype), rtol=1e-4, atol=1e-5, what=what)
    for e, r in zip(edges, ref_edges):
        assert e.dtype == np.float32
        assert_close(e, r.astype(np.float32), rtol=1e-6, what=what)


def test_histogram2d():
    check_cases = [dict(bins=2), dict(bins=[2, 3]), dict(bins=np.array([0.0, 0.5, 1.0])),
                   dict(bins=[np.array([0.0, 0.5, 1.0]), 3]), dict(bins=2, range=[[0, 2], [0, 1]]),
                   dict(bins=2, range=[None, [0, 0.5]])]
    for kwargs in check_cases:
        _check_hist(jnp.histogram2d(XS, YS, **kwargs), np.histogram2d(XS, YS, **kwargs), np.int32, str(kwargs))
    w = np.arange(7.0, dtype=np.float32)
    _check_hist(jnp.histogram2d(XS, YS, bins=3, weights=w), np.histogram2d(XS, YS, bins=3, weights=w),
                np.float32, "weights")
    _check_hist(jnp.histogram2d(XS, YS, bins=3, weights=np.arange(7)),
                np.histogram2d(XS, YS, bins=3, weights=np.arange(7)), np.float32, "int weights")
    _check_hist(jnp.histogram2d(XS, YS, bins=(2, 3), density=True),
                np.histogram2d(XS, YS, bins=(2, 3), density=True), np.float32, "density")
    counts, xe, ye = jaxc.jit(lambda x, y: jnp.histogram2d(x, y, bins=3))(XS, YS)
    _check_hist((counts, xe, ye), np.histogram2d(XS, YS, bins=3), np.int32, "jit")
    with pytest.raises(TypeError):
        jnp.histogram2d([0.1], [0.2])


def test_histogramdd():
    sample = np.stack([XS, YS, XS * YS], axis=1)
    for kwargs in [dict(bins=2), dict(bins=(2, 3, 4)), dict(bins=[np.array([0.0, 0.5, 1.0]), 2, 3]),
                   dict(bins=2, range=[(0.2, 0.8), None, (0, 0.5)]),
                   dict(bins=(2, 2, 3), density=True), dict(bins=2, weights=np.linspace(0.5, 2, 7))]:
        mine = jnp.histogramdd(sample, **kwargs)
        assert isinstance(mine, tuple) and isinstance(mine[1], list) and len(mine[1]) == 3
        floating = kwargs.get("density") or kwargs.get("weights") is not None
        _check_hist((mine[0], *mine[1]), (lambda r: (r[0], *r[1]))(np.histogramdd(sample, **kwargs)),
                    np.float32 if floating else np.int32, str(kwargs))
    flat = np.ones((3, 2), np.float32)  # a range of width 0 widens by 1/2 each side, as NumPy
    mine = jnp.histogramdd(flat, bins=2)
    _check_hist((mine[0], *mine[1]), (lambda r: (r[0], *r[1]))(np.histogramdd(flat, bins=2)), np.int32, "flat")
    ints = jnp.histogramdd(np.array([[1, 2], [3, 4]], np.int32), bins=2, density=True)
    assert ints[0].dtype == np.float32 and ints[1][0].dtype == np.float32
    f16 = jnp.histogramdd(sample.astype(np.float16), bins=2)
    assert f16[0].dtype == np.int32 and f16[1][0].dtype == np.float16
    with pytest.raises(ValueError, match="bin for each dimension"):
        jnp.histogramdd(sample, bins=[2, 2])
    with pytest.raises(ValueError, match="range must be a sequence"):
        jnp.histogramdd(sample, range=[[0, 1]])
    with pytest.raises(ValueError, match="one weight for each sample"):
        jnp.histogramdd(sample, weights=np.ones(3))
    with pytest.raises(ValueError, match="2-d"):
        jnp.histogramdd(XS)
    with pytest.raises(TypeError):
        jnp.histogramdd([[0.1, 0.2]])


# ---------------------------------------------------------------------------
# poly, polydiv, polyfit
# ---------------------------------------------------------------------------

def test_poly():
    roots = np.array([1.0, -2.0, 3.5, 0.25], np.float32)
    check(jnp.poly, np.poly, roots, dtype=np.float32, rtol=1e-5, atol=1e-5)
    assert_close(jnp.poly(np.array([1, 2, 3], np.int32)), np.poly([1, 2, 3]))
    assert jnp.poly(np.array([1, 2], np.int32)).dtype == np.float32
    empty = jnp.poly(np.zeros((0,), np.float32))
    assert empty.shape == () and float(empty) == 1.0
    assert_close(jnp.poly(np.float32(2.0)), np.array([1.0, -2.0]))
    matrix = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert jnp.poly(matrix).dtype == np.complex64  # from the (complex) eigenvalues, as JAX
    assert_close(jnp.poly(matrix), np.poly(matrix).astype(np.complex64), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="square"):
        jnp.poly(np.ones((2, 3)))
    with pytest.raises(TypeError):
        jnp.poly([1.0, 2.0])


def test_polydiv():
    for u, v in [([1.0, 2, 3, 4], [1.0, 1]), ([2, 2, 3, 4], [2, 1]), ([5.0, 7, 9], [4.0, 1]),
                 ([1.0, 2], [1.0, 1, 1]), ([3.0, 1, 4, 1, 5], [2.0, 7, 1])]:
        u, v = np.asarray(u), np.asarray(v)
        q, r = jnp.polydiv(u, v)
        nq, nr = np.polydiv(u.astype(np.float64), v.astype(np.float64))
        assert q.dtype == np.float32 and r.shape == u.shape  # JAX keeps u's length
        assert_close(q, nq, rtol=1e-5, atol=1e-5, what=f"{u}/{v}")
        assert_close(r[len(u) - len(nr):], nr, rtol=1e-5, atol=1e-4, what=f"{u}/{v}")
        assert np.allclose(np.asarray(r[:len(u) - len(nr)]), 0, atol=1e-5)
    q, r = jnp.polydiv(np.array([5.0, 7, 9]), np.array([4.0, 1]), trim_leading_zeros=True)
    assert_close(r, np.array([7.5625]))
    check(lambda u, v: jnp.polydiv(u, v), None, np.array([1.0, 2, 3, 4], np.float32),
          np.array([1.0, 1], np.float32), expected=(np.array([1.0, 1, 2]), np.array([0.0, 0, 0, 2])))
    with pytest.raises(TypeError):
        jnp.polydiv([1.0, 2.0], np.array([1.0]))
    with pytest.raises(TypeError, match="1-d"):
        jnp.polydiv(np.float32(2.0), np.float32(1.0))


def test_polyfit():
    x = np.linspace(0, 1, 9).astype(np.float32)
    y = (1 + 2 * x - 3 * x ** 2 + 0.05 * np.sin(17 * x)).astype(np.float32)
    w = np.arange(1.0, 10.0, dtype=np.float32)
    x64, y64, w64 = x.astype(np.float64), y.astype(np.float64), w.astype(np.float64)
    check(lambda x, y: jnp.polyfit(x, y, 2), lambda x, y: np.polyfit(x64, y64, 2), x, y, dtype=np.float32,
          rtol=1e-4, atol=1e-4)

    def fit(x, y, deg, **kwargs):  # compiled: one program is quicker than eager SVD kernels per shape
        return jaxc.jit(lambda x, y: jnp.polyfit(x, y, deg, **kwargs))(x, y)
    assert_close(fit(x, y, 3, w=w), np.polyfit(x64, y64, 3, w=w64), rtol=1e-3, atol=1e-3)
    c, resid, rank, sv, rcond = fit(x, y, 2, full=True)
    nc, nresid, nrank, nsv, nrcond = np.polyfit(x64, y64, 2, full=True)
    assert_close(c, nc, rtol=1e-4, atol=1e-4)
    assert_close(resid, nresid, rtol=1e-2, atol=1e-5)
    assert int(rank) == nrank == 3 and rank.dtype == np.int32
    assert_close(sv, nsv, rtol=1e-4)
    assert abs(float(rcond) - len(x) * np.finfo(np.float32).eps) < 1e-12
    for cov, weights in ((True, None), ("unscaled", w)):
        c, v = fit(x, y, 2, w=weights, cov=cov)
        nc, nv = np.polyfit(x64, y64, 2, w=None if weights is None else w64, cov=cov)
        assert_close(v, nv, rtol=2e-3, atol=1e-7, what=f"cov={cov}")
    Y = np.stack([y, 2 * y], axis=1)
    c, v = fit(x, Y, 1, cov=True)  # one fit per column
    nc, nv = np.polyfit(x64, Y.astype(np.float64), 1, cov=True)
    assert v.shape == (2, 2, 2)
    assert_close(c, nc, rtol=1e-4, atol=1e-4)
    assert_close(v, nv, rtol=2e-3, atol=1e-7)
    assert_close(fit(np.arange(5), np.arange(5) * 2.0, 1, rcond=1e-3), np.array([2.0, 0.0]), atol=1e-5)
    with pytest.raises(ValueError, match="inexact"):
        jnp.polyfit(np.arange(5), np.arange(5.0), 1)  # JAX's default rcond needs a float x
    with pytest.raises(ValueError, match="deg"):
        jnp.polyfit(x, y, -1)
    with pytest.raises(TypeError, match="1D vector"):
        jnp.polyfit(Y, y, 1)
    with pytest.raises(TypeError, match="same length"):
        jnp.polyfit(x, y[:3], 1)
    with pytest.raises(TypeError, match="weights"):
        jnp.polyfit(x, y, 1, w=np.ones((9, 1)))
    with pytest.raises(ValueError, match="exceed order"):
        jnp.polyfit(x[:3], y[:3], 2, cov=True)
    with pytest.raises(TypeError):
        jnp.polyfit([1.0, 2.0], [1.0, 2.0], 1)


# ---------------------------------------------------------------------------
# I/O, printing, einsum_path, scalar type aliases
# ---------------------------------------------------------------------------

def test_frombuffer_and_fromstring():
    out = jnp.frombuffer(np.arange(4, dtype=np.float32).tobytes(), dtype=jnp.float32)
    assert out.dtype == np.float32 and np.asarray(out).tolist() == [0, 1, 2, 3]
    out = jnp.frombuffer(np.arange(4, dtype=np.float64).tobytes())  # float -> float32, as JAX
    assert out.dtype == np.float32 and np.asarray(out).tolist() == [0, 1, 2, 3]
    out = jnp.frombuffer(np.arange(4, dtype=np.int32).tobytes(), dtype=np.int32, count=2, offset=4)
    assert np.asarray(out).tolist() == [1, 2]
    assert jnp.frombuffer(b"\x01\x02", dtype=np.uint8).dtype == np.uint8
    out = jnp.fromstring("1 2 3", sep=" ")
    assert out.dtype == np.float32 and np.asarray(out).tolist() == [1, 2, 3]
    out = jnp.fromstring("1,2,3", dtype=int, sep=",")
    assert out.dtype == np.int32 and np.asarray(out).tolist() == [1, 2, 3]
    with pytest.raises(ValueError):
        jnp.fromstring("1 2 3", sep="")
    with pytest.raises(TypeError):
        jnp.fromstring("1 2 3")
    with pytest.raises(NotImplementedError, match="np.fromiter"):
        jnp.fromiter(range(3), int)
    with pytest.raises(NotImplementedError, match="np.fromfile"):
        jnp.fromfile("x.bin")


def test_save_and_load(tmp_path):
    x = jnp.arange(6.0).reshape(2, 3)
    path = tmp_path / "x.npy"
    jnp.save(path, x)
    back = jnp.load(path)
    assert isinstance(back, jaxc.Array) and back.dtype == np.float32
    assert_close(back, np.arange(6.0).reshape(2, 3))
    np.save(tmp_path / "y.npy", np.arange(3, dtype=np.int64))
    assert jnp.load(tmp_path / "y.npy").dtype == np.int32  # canonical dtype, as JAX
    buffer = io.BytesIO()
    jnp.savez(buffer, a=x, b=np.arange(2))
    buffer.seek(0)
    archive = jnp.load(buffer)
    assert sorted(archive.files) == ["a", "b"]
    assert_close(archive["a"], np.asarray(x))
    np.save(tmp_path / "s.npy", np.array(["a"]))
    assert isinstance(jnp.load(tmp_path / "s.npy"), np.ndarray)  # strings stay NumPy's


def test_printing():
    x = jnp.asarray(np.array([1.123456789, 2.0], np.float32))
    assert jnp.array_str is np.array_str and jnp.array_repr is np.array_repr  # NumPy's, as in JAX
    assert jnp.array_str(x).startswith("[1.123456") and jnp.array_str(x).endswith(" 2.       ]")
    assert jnp.array_repr(x).startswith("Array([1.123456") and jnp.array_repr(x).endswith("dtype=float32)")
    before = jnp.get_printoptions()
    assert before == np.get_printoptions()
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
        assert "1.12," in repr(x)
    assert jnp.get_printoptions() == before
    try:
        jnp.set_printoptions(precision=3)
        assert np.get_printoptions()["precision"] == 3
        assert "1.123," in repr(x)
    finally:
        np.set_printoptions(**before)


def test_einsum_path():
    a, b, c = np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))
    path, report = jnp.einsum_path("ij,jk,kl->il", a, b, c)
    assert path == np.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")[0][1:]
    assert all(isinstance(step, tuple) for step in path) and "Complete contraction" in str(report)
    greedy, _ = jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
    assert greedy == np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0][1:]
    assert jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize=False)[0] == [(0, 1), (0, 1)]
    assert jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize=[(1, 2), (0, 1)])[0] == [(1, 2), (0, 1)]
    shapes = jnp.einsum_path("ij,jk->ik", jaxc.ShapeDtypeStruct((2, 3), np.float32), jnp.ones((3, 4)))
    assert shapes[0] == [(0, 1)]
    assert jnp.einsum_path("ii", np.ones((3, 3)))[0] == [(0,)]


def test_scalar_type_aliases():
    assert jnp.single is jnp.float32 and jnp.double is jnp.float64 and jnp.uint is jnp.uint64
    assert np.dtype(jnp.uint) == np.uint64 and np.dtype(jnp.double) == np.float64
    assert jnp.single(1).dtype == np.float32
    assert jnp.uint(3).dtype == np.uint32  # canonical without x64
    assert jnp.zeros(2, jnp.double).dtype == np.float32


def test_scalar_type_aliases_x64(x64):
    assert jnp.uint(3).dtype == np.uint64
    assert jnp.double(1).dtype == np.float64


# ---------------------------------------------------------------------------
# vmap against a loop, gradients against float64 finite differences
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: jnp.gradient(x, edge_order=2),
    lambda x: jnp.unwrap(x * 4),
    jnp.i0,
    lambda x: jnp.piecewise(x, [x < 0], [lambda t: t * t, 1.0]),
    lambda x: jnp.choose(jnp.round(x).astype(jnp.int32), [x, x * 2, x * 3], mode="wrap"),
    lambda x: jnp.polyfit(jnp.linspace(0.0, 1.0, 6), x, 2),
    lambda x: jnp.histogramdd(x.reshape(3, 2), bins=2, range=[(-3, 3), (-3, 3)])[0],
    lambda x: jnp.put_along_axis(x, jnp.asarray([1, 4]), 9.0, axis=0, inplace=False),
])
def test_vmap_matches_loop(fn):
    xs = rand((3, 6))
    batched = jaxc.vmap(fn)(xs)
    looped = np.stack([np.asarray(fn(jnp.asarray(x))) for x in xs])
    assert_close(batched, looped, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, shape, order", [
    (jnp.i0, (6,), 1),
    (lambda x: jnp.gradient(x, axis=1, edge_order=2), (3, 5), 2),
    (lambda x: jnp.gradient(jnp.asarray(f64(5, seed=2)), jnp.cumsum(jnp.abs(x)) + 0.5, edge_order=2), (5,), 2),
    (lambda x: jnp.piecewise(x, [x < 0, x > 0.5], [lambda t: t ** 2, jnp.sin, 0.5]), (6,), 2),
    (lambda x: jnp.unwrap(x * 5.0), (6,), 2),
    (lambda x: jnp.kaiser(6, x[0] + 3.0), (1,), 1),
    (lambda x: jnp.poly(x), (4,), 2),
    (lambda x: jnp.polydiv(x[:4], x[4:] + 2.0)[0], (6,), 2),
    (lambda x: jnp.polyfit(jnp.linspace(0.0, 1.0, 7), x, 2), (7,), 1),
])
def test_grads(x64, fn, shape, order):
    x = f64(*shape)
    check_grads(fn, (x,), order=order, modes=("fwd", "rev"))


def test_i0_second_derivative(x64):
    # i0'' = i0 - i1 / x: through the custom jvp (i1) and i1's own derivative
    assert_close(jaxc.grad(jaxc.grad(jnp.i0))(1.0), 1.2660658777520082 - 0.5651591039924851, rtol=1e-9)
