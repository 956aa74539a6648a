"""jaxc.scipy.interpolate.RegularGridInterpolator against
scipy.interpolate.RegularGridInterpolator (with bounds_error=False, the only
setting JAX supports) and, when installed, JAX 0.10's: linear and nearest on
non-uniform 1-3 dimensional grids, trailing value dimensions, points outside
the grid (NaN, a fill value, or extrapolation with fill_value=None), the forms
of xi, dtypes, the pytree, jit, vmap against a loop, derivatives against
finite differences, and the errors. (A decreasing axis is unsupported in JAX,
which gives wrong results silently, so it is not tested.)"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.interpolate

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.interpolate as interpolate
from jaxc import tree_util
from jaxc.test_util import check_grads

RGI = interpolate.RegularGridInterpolator
SHAPES = [(7,), (5, 6), (4, 5, 3)]
FILLS = {"nan": np.nan, "none": None, "2.5": 2.5}


def _grid(shape, dtype, seed=0, trailing=()):
    """Non-uniform increasing axes, values of shape + trailing, and sample
    points inside, on the nodes and edges, and outside on both sides."""
    rng = np.random.default_rng(seed)
    grid = tuple(np.sort(rng.uniform(-2.0, 3.0, s)).astype(dtype) for s in shape)
    values = rng.standard_normal(shape + trailing).astype(dtype)
    xi = np.stack([rng.uniform(g[0] - 1.5, g[-1] + 1.5, 24) for g in grid], -1)
    xi[:4] = np.stack([g[[0, -1, 1, len(g) // 2]] for g in grid], -1)
    xi[4:14] = np.stack([rng.uniform(g[0], g[-1], 10) for g in grid], -1)
    return grid, values, xi.astype(dtype)


def _scipy(grid, values, xi, method="linear", fill_value=np.nan):
    return scipy.interpolate.RegularGridInterpolator(grid, values, method=method, bounds_error=False,
                                                     fill_value=fill_value)(xi)


def _tol(dtype):
    return dict(rtol=5e-5, atol=5e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{len(s)}d")
def test_matches_scipy(shape, method, fill, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    grid, values, xi = _grid(shape, dtype)
    got = RGI(grid, values, method=method, fill_value=FILLS[fill])(xi)
    want = _scipy(grid, values, xi, method, FILLS[fill])
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, **_tol(dtype))
    if fill == "nan":
        outside = np.any([(xi[:, k] < g[0]) | (xi[:, k] > g[-1]) for k, g in enumerate(grid)], axis=0)
        assert outside.any() and np.all(np.isnan(np.asarray(got)[outside]))
        assert not np.any(np.isnan(np.asarray(got)[~outside]))


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_trailing_dimensions_and_xi_forms(method):
    grid, values, xi = _grid((5, 6), np.float32, seed=1, trailing=(2, 3))
    interp = RGI(grid, values, method=method, fill_value=None)
    want = _scipy(grid, values, xi, method, None)
    np.testing.assert_allclose(np.asarray(interp(xi)), want, **_tol(np.float32))
    assert interp(xi).shape == (24, 2, 3)
    # (a, b, ndim) points; a tuple of arrays broadcast together; a 1-d array of consecutive points
    got = interp(xi.reshape(4, 6, 2))
    np.testing.assert_allclose(np.asarray(got), want.reshape(4, 6, 2, 3), **_tol(np.float32))
    a, b = xi[:4, 0], xi[:3, 1]
    got = interp((a[:, None], b[None, :]))
    np.testing.assert_allclose(np.asarray(got), _scipy(grid, values, (a[:, None], b[None, :]), method, None),
                               **_tol(np.float32))
    np.testing.assert_allclose(np.asarray(interp(xi.ravel())), want, **_tol(np.float32))
    np.testing.assert_allclose(np.asarray(interp((xi,))), want, **_tol(np.float32))
    assert interp((float(a[0]), float(b[0]))).shape == (2, 3)
    # fewer point arrays than value dimensions: the rest are carried along
    one = RGI(grid[:1], values[:, 0], method=method)
    np.testing.assert_allclose(np.asarray(one(xi[:, :1])), _scipy(grid[:1], values[:, 0], xi[:, :1], method),
                               **_tol(np.float32))


def test_worked_values_and_method_override():
    grid = (jnp.array([0.0, 1.0, 3.0]), jnp.array([0.0, 2.0]))
    values = jnp.arange(6.0).reshape(3, 2)
    pts = jnp.array([[0.5, 1.0], [4.0, 1.0], [-1.0, 0.0], [2.0, 1.0], [3.0, 2.0]])
    np.testing.assert_allclose(np.asarray(RGI(grid, values)(pts)), [1.5, np.nan, np.nan, 3.5, 5.0])
    np.testing.assert_allclose(np.asarray(RGI(grid, values, fill_value=None)(pts)), [1.5, 5.5, -2.0, 3.5, 5.0])
    np.testing.assert_allclose(np.asarray(RGI(grid, values, fill_value=-1)(pts)), [1.5, -1, -1, 3.5, 5.0])
    interp = RGI(grid, values)
    # nearest: ties (distance exactly 0.5 of a cell) go to the lower node
    np.testing.assert_allclose(np.asarray(interp(pts, method="nearest")), [0.0, np.nan, np.nan, 2.0, 5.0])
    assert interp.method == "linear"
    # the docstring example
    example = RGI((jnp.array([1, 2, 3]), jnp.array([4, 5, 6])), jnp.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]]))
    got = example(jnp.array([[1.5, 4.5], [2.2, 5.8]]))
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), [30.0, 64.0], rtol=1e-6)


def test_attributes_and_dtypes(x64):
    grid, values, xi = _grid((5, 6), np.float32, seed=2)
    interp = RGI(grid, values)
    assert interp.method == "linear" and interp.bounds_error is False
    assert np.isnan(float(interp.fill_value)) and interp.fill_value.weak_type
    assert all(g.dtype == np.float32 for g in interp.grid) and interp.values.dtype == np.float32
    assert interp(xi).dtype == np.float32
    assert interp(xi.astype(np.float64)).dtype == np.float64        # float64 points promote the result
    assert interp(xi.astype(np.float64), method="nearest").dtype == np.float32   # nearest: the values' dtype
    assert interp((xi[:, 0], xi[:, 1])).dtype == np.float64           # a tuple of arrays: the default float
    assert RGI(grid, values, fill_value=np.float64(1.0))(xi).dtype == np.float64
    assert RGI(grid, np.arange(30).reshape(5, 6)).values.dtype == np.float64
    assert RGI(grid, values.astype(np.float16), fill_value=np.float32(0)).values.dtype == np.float16
    int_grid = (np.array([0, 1, 3]), np.array([0, 2]))
    got = RGI(int_grid, np.arange(6.0, dtype=np.float32).reshape(3, 2))(np.array([[0, 1], [2, 2]]))
    assert got.dtype == np.float64                                      # int / int: the default float
    np.testing.assert_allclose(np.asarray(got), [0.5, 4.0])


def test_pytree_jit_and_tree_map():
    grid, values, xi = _grid((4, 5, 3), np.float32, seed=3)
    interp = RGI(grid, values, method="nearest", fill_value=0.0)
    leaves, treedef = tree_util.tree_flatten(interp)
    assert len(leaves) == 5                      # three axes, the values, the fill value
    assert len(tree_util.tree_leaves(RGI(grid, values, fill_value=None))) == 4
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    assert isinstance(rebuilt, RGI) and rebuilt.method == "nearest"
    np.testing.assert_array_equal(np.asarray(rebuilt(xi)), np.asarray(interp(xi)))
    doubled = tree_util.tree_map(lambda a: a * 2, interp)
    np.testing.assert_allclose(np.asarray(doubled(2 * xi)), 2 * np.asarray(interp(xi)), rtol=1e-6)
    # the interpolator as a jit argument, and made inside jit
    got = jaxc.jit(lambda r, x: r(x))(interp, xi)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(interp(xi)))
    got = jaxc.jit(lambda v, x: RGI(grid, v, fill_value=None)(x))(values, xi)
    np.testing.assert_allclose(np.asarray(got), _scipy(grid, values, xi, fill_value=None), **_tol(np.float32))
    got = jaxc.jit(lambda g0, x: RGI((g0,) + grid[1:], values)(x))(grid[0], xi)
    np.testing.assert_allclose(np.asarray(got), _scipy(grid, values, xi), **_tol(np.float32))


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_vmap_matches_loop(method):
    grid, values, xi = _grid((5, 6), np.float32, seed=4)
    interp = RGI(grid, values, method=method)
    batches = xi.reshape(4, 6, 2)
    got = jaxc.vmap(lambda r, x: r(x), in_axes=(None, 0))(interp, batches)
    np.testing.assert_array_equal(np.asarray(got), np.stack([np.asarray(interp(b)) for b in batches]))
    stacked = np.stack([values, 2 * values, -values])
    fn = lambda v: RGI(grid, v, method=method, fill_value=None)(xi)   # noqa: E731
    got = jaxc.vmap(fn)(stacked)
    np.testing.assert_allclose(np.asarray(got), np.stack([np.asarray(fn(v)) for v in stacked]), rtol=1e-6, atol=1e-6)
    # both batched: each set of values at its own points
    got = jaxc.vmap(lambda v, x: RGI(grid, v, method=method)(x))(stacked, batches[:3])
    np.testing.assert_allclose(np.asarray(got), np.stack([np.asarray(RGI(grid, v, method=method)(x))
                                                          for v, x in zip(stacked, batches[:3])]), rtol=1e-6)


def test_vmap_returns_a_batch_of_interpolators():
    grid, values, _ = _grid((5, 6), np.float32, seed=4)
    batch = jaxc.vmap(lambda v: RGI(grid, v))(np.stack([values, 2 * values]))
    assert isinstance(batch, RGI) and batch.values.shape == (2, 5, 6) and batch.grid[0].shape == (2, 5)


@pytest.mark.parametrize("fill", ["nan", "none"])
def test_gradients(fill, x64):
    """Linear interpolation is linear in the values and, away from the grid
    nodes, smooth in the sample points and the grid; so is extrapolation."""
    rng = np.random.default_rng(6)
    grid = (np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0.0, 1.0, 1.5, 3.0, 4.5]))   # non-uniform
    values = rng.standard_normal((4, 5))
    cells = [rng.integers(0, len(g) - 1, 6) for g in grid]
    t = rng.uniform(0.2, 0.8, (6, 2))
    xi = np.stack([g[c] + tk * (g[c + 1] - g[c]) for g, c, tk in zip(grid, cells, t.T)], -1)
    if fill == "none":
        xi[0] = [grid[0][0] - 0.7, grid[1][-1] + 0.4]           # outside: extrapolated
    fill_value = FILLS[fill]
    check_grads(lambda v, x: RGI(grid, v, fill_value=fill_value)(x), (values, xi), order=1, modes=("fwd", "rev"))
    check_grads(lambda g0: RGI((g0, grid[1]), values, fill_value=fill_value)(xi), (grid[0],), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda v: RGI(grid, v, method="nearest", fill_value=fill_value)(xi), (values,), order=1,
                modes=("fwd", "rev"))
    # d/dx on one cell of a 1-d grid is the cell's slope
    slope = jaxc.grad(lambda x: RGI((jnp.array([0.0, 1.0, 3.0]),), jnp.array([1.0, 2.0, 6.0]))(x)[0])(
        jnp.array([1.5]))
    np.testing.assert_allclose(np.asarray(slope), [2.0])


def test_errors():
    grid = (jnp.array([0.0, 1.0, 3.0]), jnp.array([0.0, 2.0]))
    values = jnp.arange(6.0).reshape(3, 2)
    with pytest.raises(ValueError, match="method 'cubic' is not defined"):
        RGI(grid, values, method="cubic")
    with pytest.raises(ValueError, match="method 'cubic' is not defined"):
        RGI(grid, values)(jnp.zeros((1, 2)), method="cubic")
    with pytest.raises(NotImplementedError, match="bounds_error"):
        RGI(grid, values, bounds_error=True)
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        RGI(grid, [[1.0, 2.0]] * 3)
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        RGI(([0.0, 1.0, 3.0], [0.0, 2.0]), values)
    with pytest.raises(TypeError):
        RGI(grid, values, fill_value=[3.0])
    with pytest.raises(ValueError, match="3 point arrays, but values has 2 dimensions"):
        RGI(grid + (jnp.arange(2.0),), values)
    with pytest.raises(ValueError, match="fill_value must be either 'None' or of a type compatible"):
        RGI(grid, values, fill_value=1j)
    interp = RGI(grid, values)
    with pytest.raises(ValueError, match="have dimension 3, but this RegularGridInterpolator has dimension 2"):
        interp(jnp.zeros((4, 3)))
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        interp([[0.5, 1.0]])
    with pytest.raises(TypeError):
        interp(jnp.zeros(3))                    # three coordinates are not whole 2-d points
    with pytest.raises(IndexError):
        interp(jnp.array(0.5))


_G = ((0.0, 1.0, 3.0), (0.0, 2.0))
BAD_CALLS = [
    ("method", lambda R, np_: R(_g(np_), np_.ones((3, 2)), method="cubic")),
    ("call method", lambda R, np_: R(_g(np_), np_.ones((3, 2)))(np_.zeros((1, 2)), method="spline")),
    ("bounds_error", lambda R, np_: R(_g(np_), np_.ones((3, 2)), bounds_error=True)),
    ("method and bounds_error", lambda R, np_: R(_g(np_), np_.ones((3, 2)), method="x", bounds_error=True)),
    ("list values", lambda R, np_: R(_g(np_), [[1.0, 2.0]] * 3)),
    ("list points", lambda R, np_: R(([0.0, 1.0, 3.0], [0.0, 2.0]), np_.ones((3, 2)))),
    ("list fill", lambda R, np_: R(_g(np_), np_.ones((3, 2)), fill_value=[1.0])),
    ("string fill", lambda R, np_: R(_g(np_), np_.ones((3, 2)), fill_value="fill")),
    ("complex fill", lambda R, np_: R(_g(np_), np_.ones((3, 2)), fill_value=1j)),
    ("too many points", lambda R, np_: R(_g(np_) + (np_.ones(2),), np_.ones((3, 2)))),
    ("xi dimension", lambda R, np_: R(_g(np_), np_.ones((3, 2)))(np_.zeros((4, 3)))),
    ("xi 1-d ragged", lambda R, np_: R(_g(np_), np_.ones((3, 2)))(np_.zeros(3))),
    ("xi 0-d", lambda R, np_: R(_g(np_), np_.ones((3, 2)))(np_.array(0.5))),
    ("xi list", lambda R, np_: R(_g(np_), np_.ones((3, 2)))([[0.5, 1.0]])),
    ("xi tuple of lists", lambda R, np_: R(_g(np_), np_.ones((3, 2)))(([0.5], [1.0]))),
]


def _g(np_):
    return tuple(np_.array(a) for a in _G)


@pytest.mark.parametrize("name,call", BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_error_types_match_jax(name, call):
    pytest.importorskip("jax")
    import jax.scipy.interpolate

    with pytest.raises(Exception) as theirs:
        call(jax.scipy.interpolate.RegularGridInterpolator, jax.numpy)
    with pytest.raises(Exception) as ours:
        call(RGI, jnp)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)


def _both(build):
    """`build(cls)` with jaxc's class and with JAX's."""
    import jax.scipy.interpolate

    return build(RGI), build(jax.scipy.interpolate.RegularGridInterpolator)


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_matches_jax(method):
    pytest.importorskip("jax")
    for seed, shape in enumerate(SHAPES):
        grid, values, xi = _grid(shape, np.float32, seed=seed, trailing=(2,) if seed == 1 else ())
        xi = np.concatenate([xi, np.full((1, len(shape)), np.nan, np.float32)])
        # ties of nearest: midpoints of cells
        xi[14:17] = np.stack([(g[:-1] + g[1:])[:3] / 2 if len(g) > 3 else np.full(3, g[0]) for g in grid], -1)
        for fill_value in (np.nan, None, 2, np.float32(-1.5)):
            ours, theirs = _both(lambda R: R(grid, values, method=method, fill_value=fill_value))
            for points in (xi, (xi[:5, :1], xi[:4].T[1:]) if len(shape) > 1 else xi[:, 0]):
                if isinstance(points, tuple) and len(shape) == 3:
                    points = (xi[:5, :1], xi[:4, 1], xi[:4, 2])
                got, want = ours(points), theirs(points)
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6,
                                           err_msg=f"{shape} {method} {fill_value}")


def test_matches_jax_dtypes_x64(jax_x64, x64):
    grid, values, xi = _grid((5, 6), np.float64, seed=7)
    int_grid = tuple(np.round(g * 4).astype(np.int32) + np.arange(len(g)) * 20 for g in grid)
    cases = [
        (grid, values, xi, np.nan),
        (grid, values.astype(np.float32), xi, np.nan),
        (grid, values.astype(np.float32), xi.astype(np.float32), np.float64(2.0)),
        (tuple(g.astype(np.float32) for g in grid), values.astype(np.float32), xi.astype(np.float32), None),
        (int_grid, np.arange(30).reshape(5, 6), np.round(xi * 10).astype(np.int64), None),
        (int_grid, values.astype(np.float16), np.round(xi * 10).astype(np.int32), np.float32(0.5)),
    ]
    for k, (g, v, x, fill) in enumerate(cases):
        for method in ("linear", "nearest"):
            ours, theirs = _both(lambda R: R(g, v, method=method, fill_value=fill))
            for points in (x, (x[:, 0], x[:, 1])):
                got, want = ours(points), theirs(points)
                assert got.dtype == want.dtype and got.shape == want.shape, (k, method)
                tol = 1e-3 if want.dtype == np.float16 else 1e-6 if want.dtype == np.float32 else 1e-12
                np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol,
                                           err_msg=f"case {k} {method}")
