"""`jaxc.lu`, `jaxc.triangular_solve`, `jaxc.cholesky`, `jaxc.qr`,
`jaxc.eigh` and `jaxc.svd`: `lax.linalg`'s functions as ops. On the CPU an
f32/f64 one is a call of the compiled library (lu.c, triangular_solve.c,
cholesky.c, qr.c, eigh.c, svd.c: their own tests in test_library_*.py);
`jaxc-expand-linalg` makes the others (complex, and all of them without
library calls, as on the GPU) the programs of `lax._linalg_ops`,
`lax._decomposition_programs` and `lax._svd_program`. Both routes against
NumPy (a getf2 with the same pivots, solves of the triangles) and against
each other, under jit, vmap (against a Python loop) and grad (check_grads
in float64: JAX's rules in passes/autodiff/linalg.py, forward and reverse),
and in an exported program."""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from mlir import ir
from test_linalg_decompositions import np_lu

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.dialect import make_context
from jaxc.passes import host, stages
from jaxc.test_util import check_grads


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.fixture(params=["library", "program"])
def route(request):
    """The library call (the CPU's default) or the expanded program."""
    if request.param == "library":
        yield request.param
    else:
        with host.override(library_calls=False):
            yield request.param


def _with_zero_column_and_equal_rows(a):
    a = a.copy()
    a[..., min(40, a.shape[-1] - 1)] = 0  # no pivot in that column: the step leaves it
    a[..., min(50, a.shape[-2] - 1), :] = a[..., 1, :]
    return a


@pytest.mark.parametrize("dtype, call", [(np.float32, "jaxc_lu_f32"), (np.float64, "jaxc_lu_f64")])
def test_the_cpu_calls_the_compiled_lu(dtype, call, x64):
    lowered = jaxc.jit(lax.linalg.lu).lower(rand(100, 100).astype(dtype))
    assert "jaxc.lu" in lowered.as_text(stage="traced")
    assert "jaxc.lu" in lowered.as_text(stage="optimized") and "jaxc.while" not in lowered.as_text(stage="optimized")
    assert f"call @{call}(" in lowered.as_text(stage="loops")


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_without_the_library_lu_is_a_program(dtype):
    """Complex everywhere, and f32 without library calls (as on the GPU)."""
    def program_text(x):
        lowered = jaxc.jit(lax.linalg.lu).lower(x)
        return lowered.as_text(stage="optimized"), lowered.as_text(stage="loops")

    x = rand(70, 70).astype(dtype)
    if dtype == np.float32:
        with host.override(library_calls=False):
            optimized, loops = program_text(x)
    else:
        optimized, loops = program_text(x)
    assert "jaxc.lu" not in optimized and "jaxc.dot_general" in optimized
    assert "jaxc_lu" not in loops


def test_the_gpu_stages_expand_linalg():
    text = jaxc.jit(lax.linalg.lu).lower(rand(70, 70).astype(np.float32)).as_text(stage="transformed")
    module = ir.Module.parse(text, make_context())
    stages.run_stages(module, "optimized", target="cuda", first="transformed")
    assert "jaxc.lu" not in str(module) and "jaxc.dot_general" in str(module)


@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (5, 3), (3, 5), (100, 100), (130, 70), (70, 130), (3, 40, 40),
                                   (2, 2, 70, 90)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_routes_match_getf2(shape, dtype, route, x64):
    a = _with_zero_column_and_equal_rows(rand(*shape)) if min(shape[-2:]) > 2 else rand(*shape)
    factors, pivots, permutation = (np.asarray(r) for r in jaxc.jit(lax.linalg.lu)(a.astype(dtype)))
    assert factors.dtype == dtype and pivots.dtype == permutation.dtype == np.int32
    assert pivots.shape == (*shape[:-2], min(shape[-2:])) and permutation.shape == shape[:-1]
    tolerance = 2e-4 if dtype == np.float32 else 1e-11
    for i in np.ndindex(*shape[:-2]):
        want = np_lu(a.astype(dtype).astype(np.float64)[i])
        np.testing.assert_array_equal(pivots[i], want[1])
        np.testing.assert_array_equal(permutation[i], want[2])
        np.testing.assert_allclose(factors[i], want[0], rtol=tolerance, atol=tolerance * np.abs(want[0]).max())


def test_routes_agree_on_singular_and_nan_matrices(x64):
    """The all-zero matrix (no pivot divides), a rank-1 one, a NaN: the
    library gives what the program gives."""
    cases = [np.zeros((6, 6)), np.outer(np.arange(1.0, 9.0), np.arange(1.0, 9.0)), rand(5, 5)]
    cases[2][2, 1] = np.nan
    for a in cases:
        library = [np.asarray(r) for r in jaxc.jit(lax.linalg.lu)(a)]
        with host.override(library_calls=False):
            program = [np.asarray(r) for r in jaxc.jit(lax.linalg.lu)(a)]
        np.testing.assert_array_equal(library[1], program[1])
        np.testing.assert_array_equal(library[2], program[2])
        np.testing.assert_allclose(library[0], program[0], rtol=1e-12, atol=1e-12, equal_nan=True)


def test_vmap_against_a_loop(route):
    a = rand(2, 4, 9, 7).astype(np.float32)
    got = jaxc.vmap(jaxc.vmap(lax.linalg.lu))(a)
    for i in range(2):
        for j in range(4):
            want = lax.linalg.lu(a[i, j])
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g)[i, j], np.asarray(w), rtol=1e-6, atol=1e-6)
    swapped = jaxc.vmap(lax.linalg.lu, in_axes=2)(np.moveaxis(a[0], 0, 2))  # the batch axis last
    for j in range(4):
        np.testing.assert_allclose(np.asarray(swapped[0])[j], np.asarray(lax.linalg.lu(a[0, j])[0]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 5), (70, 70)], ids=str)
def test_gradients(shape, route, x64):
    a = rand(*shape, seed=3)
    weights = rand(*shape, seed=4)
    check_grads(lambda x: (lax.linalg.lu(x)[0] * weights).sum(), (a,), order=1, modes=("fwd", "rev"))


def test_second_order_and_what_rests_on_lu(x64):
    a, b = rand(5, 5, seed=5) + 3 * np.eye(5), rand(5, 2, seed=6)
    check_grads(lambda x: (lax.linalg.lu(x)[0] ** 2).sum(), (a,), order=2, modes=("fwd", "rev"))
    check_grads(jnp.linalg.det, (a,), order=1, modes=("fwd", "rev"))
    check_grads(jnp.linalg.solve, (a, b), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: jnp.linalg.inv(x).sum(), (a,), order=1, modes=("rev",))


def test_complex_gradients_use_the_same_rule(x64):
    a = rand(4, 4, seed=7) + 1j * rand(4, 4, seed=8)
    check_grads(lambda x: jnp.real(lax.linalg.lu(x)[0] * (1 + 2j)).sum(), (a,), order=1, modes=("fwd", "rev"))


def test_lu_in_an_exported_program(tmp_path):
    """The exported program carries lu.c (and gemm.c, which it calls)."""
    import jaxc_aot as aot_loader

    from jaxc.runtime.aot import export_module

    module = """
    func.func @factor(%a: tensor<80x80xf32>) -> (tensor<80x80xf32>, tensor<80xi32>, tensor<80xi32>) {
      %f, %p, %q = jaxc.lu %a : tensor<80x80xf32> -> (tensor<80x80xf32>, tensor<80xi32>, tensor<80xi32>)
      return %f, %p, %q : tensor<80x80xf32>, tensor<80xi32>, tensor<80xi32>
    }
    """
    path = tmp_path / "lu.jaxc"
    export_module(module, path)
    a = rand(80, 80, seed=9).astype(np.float32)
    factors, pivots, permutation = aot_loader.load(path)["factor"](a)
    want = np_lu(a.astype(np.float64))
    np.testing.assert_array_equal(pivots, want[1])
    np.testing.assert_array_equal(permutation, want[2])
    np.testing.assert_allclose(factors, want[0], rtol=1e-4, atol=1e-4 * np.abs(want[0]).max())


# ------------------------------------------------------------ triangular solve

FLAG_SETS = [dict(zip(("left_side", "lower", "transpose_a", "unit_diagonal"), bits))
             for bits in itertools.product((True, False), repeat=4)]


def _solve_reference(a, b, left_side, lower, transpose_a, unit_diagonal, conjugate_a=False):
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        np.fill_diagonal(t, 1)
    t = t.T if transpose_a else t
    t = np.conj(t) if conjugate_a else t
    return np.linalg.solve(t, b) if left_side else np.linalg.solve(t.T, b.T).T


def _triangular_operands(k, rhs, left_side, seed=0, dtype=np.float64):
    a = rand(k, k, seed=seed) / k + 2 * np.eye(k)  # well conditioned, with its diagonal or ones
    b = rand(k, rhs, seed=seed + 1) if left_side else rand(rhs, k, seed=seed + 1)
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("dtype, call", [(np.float32, "jaxc_triangular_solve_f32"),
                                         (np.float64, "jaxc_triangular_solve_f64")])
def test_the_cpu_calls_the_compiled_triangular_solve(dtype, call, x64):
    a, b = _triangular_operands(100, 8, True, dtype=dtype)
    lowered = jaxc.jit(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)).lower(a, b)
    assert "jaxc.triangular_solve" in lowered.as_text(stage="optimized")
    assert f"call @{call}(" in lowered.as_text(stage="loops")
    with host.override(library_calls=False):
        lowered = jaxc.jit(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)).lower(a, b)
        assert "jaxc.triangular_solve" not in lowered.as_text(stage="optimized")
        assert "jaxc_triangular_solve" not in lowered.as_text(stage="loops")


@pytest.mark.parametrize("flags", FLAG_SETS, ids=lambda f: "-".join(k for k, v in f.items() if v) or "none")
@pytest.mark.parametrize("k, rhs", [(5, 3), (70, 8)], ids=str)
def test_triangular_solve_routes_match_numpy(flags, k, rhs, route, x64):
    """Every flag combination; NaN in the triangle the solve must not read
    (and on the diagonal when unit_diagonal)."""
    for dtype, tolerance in ((np.float32, 2e-4), (np.float64, 1e-11)):
        a, b = _triangular_operands(k, rhs, flags["left_side"], dtype=dtype)
        want = _solve_reference(a.astype(np.float64), b.astype(np.float64), **flags)
        poisoned = a.copy()
        unread = np.triu(np.ones((k, k), bool), 1) if flags["lower"] else np.tril(np.ones((k, k), bool), -1)
        poisoned[unread] = np.nan
        if flags["unit_diagonal"]:
            np.fill_diagonal(poisoned, np.nan)
        got = np.asarray(jaxc.jit(lambda a, b: lax.linalg.triangular_solve(a, b, **flags))(poisoned, b))
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * np.abs(want).max())


def test_complex_triangular_solves_conjugate(x64):
    a = rand(6, 6, seed=2) + 1j * rand(6, 6, seed=3) + 6 * np.eye(6)
    b = rand(6, 2, seed=4) + 1j * rand(6, 2, seed=5)
    for conjugate in (False, True):
        got = jaxc.jit(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True, transpose_a=True,
                                                                 conjugate_a=conjugate))(a, b)
        want = _solve_reference(a, b, True, True, True, False, conjugate_a=conjugate)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
    check_grads(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=False, conjugate_a=True),
                (a, b), order=1, modes=("fwd", "rev"))


def test_triangular_solve_under_vmap(route):
    a = np.stack([_triangular_operands(6, 1, True, seed=s, dtype=np.float32)[0] for s in range(4)])
    b = rand(4, 6, 3, seed=9).astype(np.float32)
    solve = functools.partial(lax.linalg.triangular_solve, left_side=True, lower=True)
    both = jaxc.vmap(solve)(a, b)
    only_a = jaxc.vmap(solve, in_axes=(0, None))(a, b[0])
    only_b = jaxc.vmap(solve, in_axes=(None, 2), out_axes=2)(a[0], np.moveaxis(b, 0, 2))
    for i in range(4):
        np.testing.assert_allclose(np.asarray(both)[i], np.asarray(solve(a[i], b[i])), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(only_a)[i], np.asarray(solve(a[i], b[0])), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(only_b)[..., i], np.asarray(solve(a[0], b[i])), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("flags", FLAG_SETS[::3], ids=lambda f: "-".join(k for k, v in f.items() if v) or "none")
def test_triangular_solve_gradients(flags, route, x64):
    a, b = _triangular_operands(5, 2, flags["left_side"], seed=11)
    check_grads(lambda a, b: lax.linalg.triangular_solve(a, b, **flags), (a, b), order=1, modes=("fwd", "rev"))


def test_bad_operands_name_the_function(x64):
    with pytest.raises(ValueError, match="lax.linalg.lu: the argument must have at least 2 dimensions"):
        jaxc.jit(lax.linalg.lu)(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="lax.linalg.lu: the argument must be a floating-point or complex array"):
        jaxc.jit(lax.linalg.lu)(np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="lax.linalg.triangular_solve: a of shape .* does not fit b of shape"):
        jaxc.jit(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True))(np.eye(3, dtype=np.float32),
                                                                                 np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="lax.linalg.triangular_solve: a and b must have one dtype"):
        lax.linalg.triangular_solve(np.eye(2, dtype=np.float32), np.ones((2, 2), np.float64))


# ------------------------------------------------------------------- Cholesky

def _spd(n, seed=0, batch=()):
    a = rand(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) / n + np.eye(n)


@pytest.mark.parametrize("dtype, call", [(np.float32, "jaxc_cholesky_f32"), (np.float64, "jaxc_cholesky_f64")])
def test_the_cpu_calls_the_compiled_cholesky(dtype, call, x64):
    lowered = jaxc.jit(lax.linalg.cholesky).lower(_spd(100).astype(dtype))
    assert "jaxc.cholesky" in lowered.as_text(stage="optimized")
    assert f"call @{call}(" in lowered.as_text(stage="loops")
    with host.override(library_calls=False):
        lowered = jaxc.jit(lax.linalg.cholesky).lower(_spd(100).astype(dtype))
        assert "jaxc.cholesky" not in lowered.as_text(stage="optimized")
        assert "jaxc_cholesky" not in lowered.as_text(stage="loops")


@pytest.mark.parametrize("shape", [(1,), (5,), (70,), (2, 40)], ids=str)
def test_cholesky_routes_match_numpy(shape, route, x64):
    *batch, n = shape
    spd = _spd(n, batch=tuple(batch))
    want = np.linalg.cholesky(spd)
    for dtype, tolerance in ((np.float32, 1e-5), (np.float64, 1e-12)):
        poisoned = spd.astype(dtype)
        poisoned[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = np.nan  # the upper triangle is not read
        got = np.asarray(jaxc.jit(lambda x: lax.linalg.cholesky(x, symmetrize_input=False))(poisoned))
        assert got.dtype == dtype and (np.triu(got, 1) == 0).all()
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(np.asarray(jaxc.jit(lax.linalg.cholesky)(spd.astype(dtype))), want,
                                   rtol=tolerance, atol=tolerance)


def test_cholesky_of_matrices_that_are_not_positive_definite_is_nan(route, x64):
    """Each matrix of a batch on its own: a negative eigenvalue, zeros, a NaN."""
    good = _spd(4)
    bad = [good - 3 * np.eye(4), np.zeros((4, 4)), good.copy()]
    bad[2][2, 1] = bad[2][1, 2] = np.nan
    got = np.asarray(jaxc.jit(lax.linalg.cholesky)(np.stack([good, *bad])))
    np.testing.assert_allclose(got[0], np.linalg.cholesky(good), rtol=1e-12)
    assert np.isnan(got[1:]).all()


def test_cholesky_under_vmap_and_complex(route, x64):
    spd = _spd(6, batch=(3,)).astype(np.float32)
    got = jaxc.vmap(lax.linalg.cholesky, in_axes=2, out_axes=0)(np.moveaxis(spd, 0, 2))
    for i in range(3):
        np.testing.assert_allclose(np.asarray(got)[i], np.linalg.cholesky(spd[i]), rtol=1e-5, atol=1e-6)
    c = rand(5, 5, seed=3) + 1j * rand(5, 5, seed=4)
    hpd = c @ c.conj().T / 5 + np.eye(5)
    np.testing.assert_allclose(np.asarray(jaxc.jit(lax.linalg.cholesky)(hpd)), np.linalg.cholesky(hpd),
                               rtol=1e-12, atol=1e-12)
    check_grads(lax.linalg.cholesky, (hpd,), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("symmetrize_input", [True, False])
def test_cholesky_gradients(symmetrize_input, route, x64):
    check_grads(lambda x: lax.linalg.cholesky(x, symmetrize_input=symmetrize_input), (_spd(5, seed=7),), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda x: jnp.linalg.cholesky(x).sum(), (_spd(40, seed=8),), order=1, modes=("rev",))


# ------------------------------------------------------------------------ qr, eigh

@pytest.mark.parametrize("fn, op, call", [(lambda x: lax.linalg.qr(x), "jaxc.qr", "jaxc_qr_"),
                                          (lambda x: lax.linalg.eigh(x), "jaxc.eigh", "jaxc_eigh_")],
                         ids=["qr", "eigh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_cpu_calls_the_compiled_qr_and_eigh(fn, op, call, dtype, x64):
    x = _spd(60).astype(dtype)
    lowered = jaxc.jit(fn).lower(x)
    assert op in lowered.as_text(stage="optimized")
    assert f"call @{call}{np.dtype(dtype).char == 'f' and 'f32' or 'f64'}(" in lowered.as_text(stage="loops")
    with host.override(library_calls=False):
        lowered = jaxc.jit(fn).lower(x)
        assert op not in lowered.as_text(stage="optimized") and call not in lowered.as_text(stage="loops")
    complex_lowered = jaxc.jit(fn).lower(x.astype(np.complex64))
    assert op not in complex_lowered.as_text(stage="optimized")


QR_SHAPES = [(1, 1), (5, 3), (3, 5), (4, 4), (40, 40), (70, 33), (33, 70), (2, 3, 6, 4)]


@pytest.mark.parametrize("shape", QR_SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr_routes_match_lapack(shape, full_matrices, route, x64):
    """NumPy's Q and R (LAPACK's reflectors, so the same signs), a zero column
    (no reflection there) included."""
    a = rand(*shape)
    if min(shape[-2:]) > 2:
        a[..., 1] = 0
    mode = "complete" if full_matrices else "reduced"
    want_q, want_r = np.linalg.qr(a, mode=mode)
    for dtype, tolerance in ((np.float32, 2e-4), (np.float64, 1e-10), (np.complex128, 1e-10)):
        x = (a + 1j * rand(*shape, seed=1)).astype(dtype) if dtype == np.complex128 else a.astype(dtype)
        q, r = (np.asarray(v) for v in jaxc.jit(lambda x: lax.linalg.qr(x, full_matrices=full_matrices))(x))
        assert q.dtype == r.dtype == dtype
        if dtype == np.complex128:
            want_q, want_r = np.linalg.qr(x, mode=mode)
        np.testing.assert_allclose(q, want_q, rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(r, want_r, rtol=tolerance, atol=tolerance)
        assert (np.tril(r, -1) == 0).all()


@pytest.mark.parametrize("shape, full_matrices", [((6, 4), False), ((4, 4), True), ((6, 4), True), ((3, 5), True),
                                                  ((3, 5), False)], ids=str)
def test_qr_gradients_follow_jax_rule(shape, full_matrices, route, x64):
    """JAX's rule: the thin one, the wide one (dR2 = dQ^H X2 + Q^H dX2) and
    the full tall one (Z = Q_pn (Q_nn - I)^-1), forward and reverse, and a
    second order."""
    a = rand(*shape, seed=2)
    check_grads(lambda x: lax.linalg.qr(x, full_matrices=full_matrices), (a,), order=1, modes=("fwd", "rev"))
    if shape == (6, 4) and not full_matrices:
        check_grads(lambda x: jnp.sum(lax.linalg.qr(x, full_matrices=False)[1] ** 2), (a,), order=2,
                    modes=("rev",))
        c = a + 1j * rand(*shape, seed=3)
        check_grads(lambda x: lax.linalg.qr(x, full_matrices=False), (c,), order=1, modes=("fwd", "rev"))


def test_qr_under_vmap_against_a_loop(route):
    a = rand(3, 7, 5).astype(np.float32)
    q, r = jaxc.vmap(lambda x: lax.linalg.qr(x, full_matrices=False), in_axes=2, out_axes=0)(np.moveaxis(a, 0, 2))
    for i in range(3):
        want_q, want_r = np.linalg.qr(a[i].astype(np.float64))
        np.testing.assert_allclose(np.asarray(q)[i], want_q, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(r)[i], want_r, rtol=1e-4, atol=1e-5)


def test_empty_qr_and_eigh_bind_no_op(x64):
    q, r = lax.linalg.qr(np.zeros((3, 0)))
    np.testing.assert_array_equal(np.asarray(q), np.eye(3)) and np.testing.assert_array_equal(np.asarray(r).shape, (3, 0))
    q, r = lax.linalg.qr(np.zeros((2, 0, 4)), full_matrices=False)
    assert np.asarray(q).shape == (2, 0, 0) and np.asarray(r).shape == (2, 0, 4)
    v, w = lax.linalg.eigh(np.zeros((2, 0, 0)))
    assert np.asarray(v).shape == (2, 0, 0) and np.asarray(w).shape == (2, 0)


def _check_eigh(x, v, w, tolerance):
    a = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    v, w = np.asarray(v).astype(a.dtype), np.asarray(w).astype(np.float64)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=tolerance, atol=tolerance * np.abs(a).max())
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tolerance * 10 * np.abs(a).max())
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2).conj() @ v, eye, atol=tolerance * 10)


@pytest.mark.parametrize("shape", [(1,), (2,), (6,), (40,), (2, 33)], ids=str)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_routes_match_numpy(shape, lower, route, x64):
    """One triangle read (NaN in the other does not leak), ascending values,
    orthonormal vectors; f32, f64 and complex128."""
    *batch, n = shape
    for dtype, tolerance in ((np.float32, 2e-5), (np.float64, 1e-11), (np.complex128, 1e-11)):
        a = rand(*batch, n, n, seed=4)
        if dtype == np.complex128:
            a = a + 1j * rand(*batch, n, n, seed=5)
        a = (a + np.swapaxes(a, -1, -2).conj()).astype(dtype)
        poisoned = a.copy()
        rows, cols = np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)
        poisoned[..., rows, cols] = np.nan
        v, w = jaxc.jit(lambda x: lax.linalg.eigh(x, lower=lower, symmetrize_input=False))(poisoned)
        assert np.asarray(v).dtype == dtype and np.asarray(w).dtype == np.finfo(dtype).dtype
        _check_eigh(a, v, w, tolerance)


def test_eigh_nan_matrix_and_repeated_values(route, x64):
    """A NaN gives NaNs for that matrix only (the library); the identity's
    repeated eigenvalue any orthonormal basis."""
    good = _spd(5)
    v, w = jaxc.jit(lax.linalg.eigh)(np.stack([good, np.eye(5)]))
    _check_eigh(np.stack([good, np.eye(5)]), v, w, 1e-11)
    if route == "library":
        bad = good.copy()
        bad[3, 2] = bad[2, 3] = np.nan
        v, w = (np.asarray(r) for r in jaxc.jit(lax.linalg.eigh)(np.stack([good, bad])))
        assert np.isnan(w[1]).all() and np.isnan(v[1]).all() and np.isfinite(w[0]).all()


def test_eigh_under_vmap_and_gradients(route, x64):
    s = _spd(6, batch=(3,)).astype(np.float32)
    v, w = jaxc.vmap(lax.linalg.eigh, in_axes=2, out_axes=0)(np.moveaxis(s, 0, 2))
    _check_eigh(s, v, w, 2e-5)
    a = rand(4, 4, seed=6)
    check_grads(lambda x: lax.linalg.eigh(x)[1], (a + a.T,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: jnp.linalg.eigvalsh(x).sum() ** 2, (a + a.T,), order=2, modes=("rev",))


def test_bare_qr_eigh_and_svd_ops_have_no_rule():
    """jaxc-autodiff differentiates lax.linalg.qr's custom_jvp rule; an op
    outside one is an error that says what to differentiate."""
    from jaxc.passes.autodiff import jvp, linalg  # noqa: F401 -- linalg registers the entries
    assert all("custom_jvp" in jvp.NOT_DIFFERENTIABLE[f"jaxc.{name}"] for name in ("qr", "eigh", "svd"))
    text = """
    func.func private @f(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
      %q, %r = jaxc.qr %a : tensor<3x3xf32> -> (tensor<3x3xf32>, tensor<3x3xf32>)
      return %q : tensor<3x3xf32>
    }
    func.func @main(%a: tensor<3x3xf32>, %t: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
      %0:2 = jaxc.jvp @f(%a) tangents(%t) : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
      return %0#0, %0#1 : tensor<3x3xf32>, tensor<3x3xf32>
    }"""
    module = ir.Module.parse(text, make_context())
    with pytest.raises(Exception, match=r'"-":3:16: jaxc-autodiff: .jaxc.qr. has no forward-mode \(jvp\) rule: lax.linalg.qr binds it inside a '
                                         r'custom_jvp'):
        stages.run_stages(module, "transformed")


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (3, 5), (30, 30), (40, 17), (2, 3, 6, 4)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_routes_match_numpy(shape, full_matrices, route, x64):
    """Singular values against NumPy's, u and vh by reconstruction and
    orthonormality (their signs are each implementation's); a rank-1 and a
    zero matrix keep orthonormal vectors; f32, f64, complex128."""
    *batch, m, n = shape
    k = min(m, n)
    for dtype, tolerance in ((np.float32, 2e-5), (np.float64, 1e-12), (np.complex128, 1e-12)):
        a = rand(*shape, seed=7)
        if dtype == np.complex128:
            a = a + 1j * rand(*shape, seed=8)
        cases = [a, np.broadcast_to(rand(m, 1) @ rand(1, n, seed=9), shape), np.zeros(shape)]
        for x in (c.astype(dtype) for c in cases):
            u, s, vh = (np.asarray(v) for v in jaxc.jit(lambda x: lax.linalg.svd(x, full_matrices=full_matrices))(x))
            assert s.dtype == np.finfo(dtype).dtype and u.dtype == vh.dtype == dtype
            assert u.shape == (*batch, m, m if full_matrices else k) and vh.shape == (*batch, n if full_matrices else k, n)
            wide = x.astype(np.complex128 if dtype == np.complex128 else np.float64)
            scale = max(np.abs(wide).max(), 1)
            np.testing.assert_allclose(s, np.linalg.svd(wide, compute_uv=False), atol=tolerance * scale * 10)
            np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], wide,
                                       atol=tolerance * scale * 10)
            for q in (u, np.swapaxes(vh, -1, -2)):
                eye = np.broadcast_to(np.eye(q.shape[-1]), (*batch, q.shape[-1], q.shape[-1]))
                np.testing.assert_allclose(np.swapaxes(q, -1, -2).conj() @ q, eye, atol=tolerance * 10)


def test_svd_nan_vmap_and_gradients(route, x64):
    a = rand(5, 4, seed=10)
    s = jaxc.vmap(lambda x: lax.linalg.svd(x, compute_uv=False), in_axes=1)(np.stack([a, 2 * a], axis=1))
    np.testing.assert_allclose(np.asarray(s), np.stack([np.linalg.svd(a, compute_uv=False),
                                                        2 * np.linalg.svd(a, compute_uv=False)]), rtol=1e-12)
    check_grads(lambda x: lax.linalg.svd(x, compute_uv=False), (a,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: jnp.linalg.norm(x, ord="nuc"), (a,), order=2, modes=("rev",))
    if route == "library":
        bad = a.copy()
        bad[1, 2] = np.inf
        u, s, vh = (np.asarray(v) for v in jaxc.jit(lax.linalg.svd)(np.stack([a, bad])))
        assert np.isnan(s[1]).all() and np.isnan(u[1]).all() and np.isfinite(s[0]).all()
