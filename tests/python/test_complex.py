"""Complex numbers end to end (issue #18): complex64/complex128 arrays and
Python complex scalars, JAX's promotion, the elementwise functions,
reductions and products against NumPy (eager and jit), JAX's derivative
conventions against finite differences, vmap against a loop, and JAX itself
where it is installed."""
from __future__ import annotations

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.test_util import check_grads

try:
    import jax
    import jax.numpy as jax_numpy
except ImportError:  # pragma: no cover - JAX is an optional extra
    jax = jax_numpy = None

C64 = np.complex64
Z = rand((3, 4), C64, -2.0, 2.0)
W = rand((3, 4), C64, -2.0, 2.0)


# -- dtypes and promotion ------------------------------------------------------

# JAX's lattice (jax.numpy.promote_types) for the complex types.
PROMOTIONS = [
    (np.float32, np.complex64, np.complex64), (np.float64, np.complex64, np.complex128),
    (np.float16, np.complex64, np.complex64), (np.int32, np.complex64, np.complex64),
    (np.int64, np.complex64, np.complex64), (np.uint8, np.complex128, np.complex128),
    (np.bool_, np.complex64, np.complex64), (np.complex64, np.complex128, np.complex128),
]


@pytest.mark.parametrize("a, b, expected", PROMOTIONS)
def test_promote_types_follows_jax(x64, a, b, expected):
    assert jnp.promote_types(a, b) == np.dtype(expected)
    assert jnp.promote_types(b, a) == np.dtype(expected)
    if jax_numpy is not None:
        assert jax_numpy.promote_types(a, b) == np.dtype(expected)


def test_python_complex_is_weak():
    x = jnp.ones(3, jnp.float32)
    assert (x * 1j).dtype == np.complex64  # weak complex + float32
    assert (jnp.ones(3, jnp.float16) * 1j).dtype == np.complex64
    assert (jnp.asarray(2, jnp.int32) * (1 + 1j)).dtype == np.complex64
    assert jnp.asarray(1 + 2j).dtype == np.complex64
    assert (jnp.asarray(Z) + 2j).dtype == np.complex64


def test_x64_complex_defaults(x64):
    assert jnp.asarray(1 + 2j).dtype == np.complex128
    assert (jnp.ones(3, jnp.float32) * 1j).dtype == np.complex64
    assert (jnp.ones(3) * 1j).dtype == np.complex128
    assert jnp.zeros(2, complex).dtype == np.complex128


def test_scalar_types_and_categories():
    assert jnp.complex64(1 + 2j).dtype == np.complex64
    assert jnp.csingle is jnp.complex64 and jnp.cdouble is jnp.complex128
    assert jnp.issubdtype(jnp.complex64, jnp.complexfloating)
    assert jnp.issubdtype(jnp.complex64, jnp.inexact)
    assert jnp.iscomplexobj(jnp.asarray(Z)) and not jnp.iscomplexobj(jnp.ones(2))


def test_round_trip_and_creation():
    x = jnp.asarray(Z)
    np.testing.assert_array_equal(np.asarray(x), Z)
    assert jnp.array([1 + 2j, 3]).dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(jnp.array([[1 + 2j, 3], [0, -1j]])), [[1 + 2j, 3], [0, -1j]])
    np.testing.assert_array_equal(np.asarray(jnp.full((70,), 1 - 2j)), np.full((70,), 1 - 2j, C64))
    np.testing.assert_array_equal(np.asarray(jnp.zeros_like(x)), np.zeros_like(Z))
    assert complex(jnp.asarray(1 + 2j)) == 1 + 2j


# -- elementwise ------------------------------------------------------------------

UNARY = ["negative", "conj", "conjugate", "real", "imag", "abs", "sign", "angle", "square",
         "reciprocal", "sqrt", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10",
         "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
         "arcsinh", "arccosh", "arctanh", "isfinite", "isnan", "isinf", "isreal", "iscomplex"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_against_numpy(name):
    rtol = 2e-5 if name in ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh") else 1e-5
    check(getattr(jnp, name), getattr(np, name), Z, rtol=rtol, atol=2e-5)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "arcsinh", "arctan", "sinh"])
def test_unary_complex128(x64, name):
    z = rand((7,), np.complex128, -2.0, 2.0)
    check(getattr(jnp, name), getattr(np, name), z, rtol=1e-12, atol=1e-13, dtype=np.complex128)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power", "equal", "not_equal"])
def test_binary_against_numpy(name):
    check(getattr(jnp, name), getattr(np, name), Z, W, rtol=3e-5, atol=1e-5)


def test_division_special_values():
    # Smith's algorithm: no overflow in |b|^2, inf / 0 and x / 0 as NumPy.
    a = np.array([1e30 + 1e30j, 1 + 1j, 2 - 1j], C64)
    b = np.array([1e30 - 1e30j, 0j, 1e-30 + 1e-30j], C64)
    out = np.asarray(jnp.asarray(a) / jnp.asarray(b))
    np.testing.assert_allclose(out[0], a[0] / b[0], rtol=1e-6)
    assert np.isnan(out[1]) or np.isinf(out[1])
    np.testing.assert_allclose(out[2], a[2] / b[2], rtol=1e-5)


def test_mixed_real_and_complex_operands():
    x = rand((3, 4), np.float32)
    check(jnp.add, np.add, x, Z, dtype=C64)
    check(lambda a, b: a * b + 2.5, lambda a, b: a * b + 2.5, x, Z, dtype=C64)
    check(lambda a: a * 1j, lambda a: (a * 1j).astype(C64), x, dtype=C64)


def test_lexicographic_order_as_jax():
    a = np.array([1 + 2j, 2 + 1j, 1 + 3j, 1 + 3j, -1j], C64)
    b = np.array([2 + 1j, 2 + 0j, 1 + 3j, 1 + 2j, -2j], C64)
    key = lambda z: (z.real, z.imag)  # noqa: E731 -- Python's tuple order is the reference
    expected = {
        "less": [key(x) < key(y) for x, y in zip(a, b)],
        "less_equal": [key(x) <= key(y) for x, y in zip(a, b)],
        "greater": [key(x) > key(y) for x, y in zip(a, b)],
        "greater_equal": [key(x) >= key(y) for x, y in zip(a, b)],
    }
    for name, want in expected.items():
        check(getattr(jnp, name), None, a, b, expected=np.array(want))
    check(jnp.maximum, None, a, b, expected=np.where(np.array(expected["greater"]), a, b))
    check(jnp.minimum, None, a, b, expected=np.where(np.array(expected["less"]), a, b))
    ordered = sorted(a, key=key)
    check(jnp.sort, None, a, expected=np.array(ordered, C64))
    check(jnp.argsort, None, a, expected=np.array(sorted(range(len(a)), key=lambda i: key(a[i])), np.int32))
    check(lambda x: jnp.unique(x, size=4), None, a, expected=np.array(sorted(set(a), key=key), C64), jit=False)
    check(jnp.max, None, a, expected=np.array(max(a, key=key)))


def test_sort_complex():
    a = np.array([3, 1 + 2j, 1 - 1j, -2j], C64)
    check(jnp.sort_complex, np.sort_complex, a, dtype=C64)
    check(jnp.sort_complex, None, np.array([3.0, 1.0, 2.0], np.float32),
          expected=np.array([1, 2, 3], C64), dtype=C64)


def test_scipy_dft_matrix():
    import jaxc.scipy.linalg as jsl
    x = rand((6,), C64)
    for scale, divisor in ((None, 1), ("n", 6), ("sqrtn", np.sqrt(6))):
        assert_close(jsl.dft(6, scale) @ jnp.asarray(x), np.fft.fft(x) / divisor, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="scale must be None, 'n' or 'sqrtn'"):
        jsl.dft(3, "m")


def test_random_complex_samplers():
    z = np.asarray(jaxc.random.normal(jaxc.random.PRNGKey(0), (20000,), jnp.complex64))
    assert z.dtype == np.complex64
    assert abs(np.mean(z)) < 0.03 and abs(np.var(z) - 1) < 0.03  # E|z|^2 = 1
    assert abs(np.var(z.real) - 0.5) < 0.02 and abs(np.mean(z.real * z.imag)) < 0.02
    with pytest.raises(NotImplementedError, match="complex QR"):
        jaxc.random.orthogonal(jaxc.random.PRNGKey(0), 3, dtype=jnp.complex64)
    with pytest.raises(ValueError, match="dtype argument to `exponential` must be a float dtype"):
        jaxc.random.exponential(jaxc.random.PRNGKey(0), (2,), jnp.complex64)


def test_rounding_each_part():
    z = np.array([1.5 + 2.5j, -0.5 - 1.49j, 2.675 + 0.125j], C64)
    check(jnp.round, None, z, expected=np.round(z.real) + 1j * np.round(z.imag))
    check(lambda x: jnp.round(x, 1), None, z, expected=np.round(z.real, 1) + 1j * np.round(z.imag, 1))


def test_isclose():
    b = Z + np.array(1e-7 + 1e-3j, C64)
    check(jnp.isclose, np.isclose, Z, b)
    check(lambda x, y: jnp.isclose(x, y, atol=1e-2), lambda x, y: np.isclose(x, y, atol=1e-2), Z, b)


# -- conversions ------------------------------------------------------------------

def test_conversions():
    x = rand((5,), np.float32)
    check(lambda a: a.astype(jnp.complex64), lambda a: a.astype(C64), x, dtype=C64)
    check(lambda a: lax.convert_element_type(a, jnp.float32), lambda a: a.real, Z, dtype=np.float32)
    check(lambda a: a.astype(jnp.bool_), lambda a: a != 0, np.array([0j, 1j, 2, 0], C64))
    check(lambda a: lax.complex(a, 2 * a), lambda a: a + 2j * a, x, dtype=C64)


def test_complex128_conversions(x64):
    z = rand((4,), np.complex128)
    check(lambda a: a.astype(jnp.complex64), lambda a: a.astype(C64), z, dtype=C64, rtol=1e-6)
    check(lambda a: a.astype(jnp.complex128), lambda a: a.astype(np.complex128),
          z.astype(C64), dtype=np.complex128)


# -- reductions and products ---------------------------------------------------------

@pytest.mark.parametrize("name, kwargs", [
    ("sum", {}), ("sum", {"axis": 0}), ("prod", {"axis": 1}), ("mean", {}), ("var", {"axis": 1}),
    ("std", {}), ("cumsum", {"axis": 1}), ("cumprod", {"axis": 0}), ("trace", {}),
])
def test_reductions_against_numpy(name, kwargs):
    result = check(getattr(jnp, name), getattr(np, name), Z, rtol=2e-5, atol=1e-5, **kwargs)
    expected_dtype = np.float32 if name in ("var", "std") else C64
    assert result.dtype == expected_dtype


@pytest.mark.parametrize("name, b_shape", [("matmul", (4, 5)), ("dot", (4,)), ("vdot", (3, 4)),
                                           ("inner", (2, 4)), ("outer", (3,)), ("kron", (2, 2))])
def test_products_against_numpy(name, b_shape):
    b = rand(b_shape, C64)
    check(getattr(jnp, name), getattr(np, name), Z, b, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_conjugate_as_numpy(mode):
    a, v = rand((5,), C64), rand((2,), C64)
    check(lambda x, y: jnp.convolve(x, y, mode), lambda x, y: np.convolve(x, y, mode), a, v, rtol=1e-5, atol=1e-5)
    check(lambda x, y: jnp.correlate(x, y, mode), lambda x, y: np.correlate(x, y, mode), a, v,
          rtol=1e-5, atol=1e-5)
    check(lambda x, y: jnp.correlate(x, y, mode), lambda x, y: np.correlate(x, y, mode), v, a,
          rtol=1e-5, atol=1e-5)


def test_cov_and_corrcoef():
    check(jnp.cov, np.cov, Z, rtol=1e-5, atol=1e-5)
    check(jnp.corrcoef, np.corrcoef, Z, rtol=1e-5, atol=1e-5)


def test_einsum_and_tensordot():
    b = rand((4, 5), C64)
    check(lambda x, y: jnp.einsum("ij,jk->ik", x, y), lambda x, y: np.einsum("ij,jk->ik", x, y), Z, b,
          rtol=2e-5, atol=2e-5)
    check(lambda x, y: jnp.tensordot(x, y, 1), lambda x, y: np.tensordot(x, y, 1), Z, b, rtol=2e-5, atol=2e-5)


def test_large_kernels_stay_correct():
    # Above the scheduler's size threshold, complex kernels are left as scalar loops.
    z = rand((64, 64), C64)
    check(lambda x: jnp.exp(x) * x + 1j, lambda x: np.exp(x) * x + 1j, z, rtol=1e-4, atol=1e-4)
    check(jnp.matmul, np.matmul, z, z, rtol=1e-4, atol=1e-4)


# -- linear algebra on LU ------------------------------------------------------------------

def test_lu_based_linear_algebra():
    a = rand((4, 4), C64) + 3 * np.eye(4, dtype=C64)
    b = rand((4, 2), C64)
    check(jnp.linalg.det, np.linalg.det, a, rtol=1e-4, atol=1e-4)
    check(jnp.linalg.inv, np.linalg.inv, a, rtol=1e-4, atol=1e-5)
    check(jnp.linalg.solve, np.linalg.solve, a, b, rtol=1e-4, atol=1e-5)
    sign, logabsdet = jnp.linalg.slogdet(a)
    expected_sign, expected_log = np.linalg.slogdet(a)
    assert sign.dtype == np.complex64 and logabsdet.dtype == np.float32
    assert_close(sign, expected_sign, rtol=1e-4, atol=1e-5)
    assert_close(logabsdet, expected_log, rtol=1e-5, atol=1e-5)
    lu, _, permutation = lax.linalg.lu(a)
    lower = np.tril(np.asarray(lu), -1) + np.eye(4)
    assert_close(lower @ np.triu(np.asarray(lu)), a[np.asarray(permutation)], rtol=1e-4, atol=1e-5)


def test_triangular_solve_conjugates(x64):
    a = np.triu(rand((3, 3), np.complex128)) + 2 * np.eye(3)
    b = rand((3, 2), np.complex128)
    x = lax.linalg.triangular_solve(a, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    assert_close(np.conj(a).T @ np.asarray(x), b, rtol=1e-10, atol=1e-12)


def test_lu_based_gradients(x64):
    a = rand((3, 3), np.complex128) + 2 * np.eye(3)
    check_grads(jnp.linalg.det, (a,), 1)
    check_grads(jnp.linalg.inv, (a,), 1)
    check_grads(lambda m: jnp.linalg.slogdet(m)[0], (a,), 1)
    check_grads(lambda m: jnp.linalg.slogdet(m)[1], (a,), 1)


@pytest.mark.parametrize("kwargs", [{}, {"ord": 1}, {"ord": np.inf}, {"ord": "fro"}, {"axis": 0},
                                    {"axis": 1, "ord": 3}, {"ord": -np.inf}])
def test_norms(kwargs):
    check(lambda x: jnp.linalg.norm(x, **kwargs), lambda x: np.linalg.norm(x, **kwargs), Z, rtol=1e-5)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_singular_value_norms_of_complex(ord_):
    check(lambda x: jnp.linalg.norm(x, ord=ord_), lambda x: np.linalg.norm(x, ord=ord_), Z, rtol=1e-5)


# -- derivatives ------------------------------------------------------------------------

def _wirtinger_grad(f, z, eps=1e-6):
    """JAX's gradient of a real f at complex z: df/dx - i df/dy (finite differences)."""
    dx = (f(z + eps) - f(z - eps)) / (2 * eps)
    dy = (f(z + 1j * eps) - f(z - 1j * eps)) / (2 * eps)
    return dx - 1j * dy


REAL_OF_COMPLEX = [
    (lambda z: jnp.abs(z), lambda z: np.abs(z)),
    (lambda z: jnp.abs(z) ** 2, lambda z: np.abs(z) ** 2),
    (lambda z: jnp.real(z * z), lambda z: np.real(z * z)),
    (lambda z: jnp.imag(jnp.exp(z)) + jnp.angle(z), lambda z: np.imag(np.exp(z)) + np.angle(z)),
    (lambda z: jnp.real(jnp.conj(z) * jnp.sin(z)), lambda z: np.real(np.conj(z) * np.sin(z))),
]


@pytest.mark.parametrize("index", range(len(REAL_OF_COMPLEX)))
def test_grad_of_real_function_is_conjugate_wirtinger(x64, index):
    f, reference = REAL_OF_COMPLEX[index]
    for z in (0.3 + 0.4j, -1.2 + 0.7j):
        got = jaxc.grad(f)(jnp.asarray(z))
        np.testing.assert_allclose(complex(got), _wirtinger_grad(reference, z), rtol=1e-7, atol=1e-8)


def test_abs_gradient_at_zero_is_zero(x64):
    assert complex(jaxc.grad(jnp.abs)(jnp.asarray(0j))) == 0


HOLOMORPHIC = [(jnp.sin, np.sin), (lambda z: z ** 3 - 2j * z, lambda z: z ** 3 - 2j * z),
               (lambda z: jnp.log(z) * jnp.sqrt(z), lambda z: np.log(z) * np.sqrt(z)),
               (lambda z: jnp.arctanh(z) / (1 + z), lambda z: np.arctanh(z) / (1 + z))]


@pytest.mark.parametrize("index", range(len(HOLOMORPHIC)))
def test_holomorphic_grad_is_complex_derivative(x64, index):
    f, reference = HOLOMORPHIC[index]
    z, h = 0.3 + 0.4j, 1e-6
    expected = (reference(z + h) - reference(z - h)) / (2 * h)
    np.testing.assert_allclose(complex(jaxc.grad(f, holomorphic=True)(jnp.asarray(z))), expected, rtol=1e-7)
    np.testing.assert_allclose(complex(jaxc.jacfwd(f, holomorphic=True)(jnp.asarray(z))), expected, rtol=1e-7)
    np.testing.assert_allclose(complex(jaxc.jacrev(f, holomorphic=True)(jnp.asarray(z))), expected, rtol=1e-7)


@pytest.mark.parametrize("fn", [
    lambda z: jnp.sin(z) * z, lambda z: jnp.abs(z) ** 2 + jnp.real(z),
    lambda z: jnp.exp(jnp.conj(z)) * jnp.imag(z), lambda z: jnp.sqrt(z) / jnp.log(z + 2),
    lambda z: jnp.sum(jnp.outer(z, z) @ jnp.conj(z)), lambda z: jnp.cumprod(z) / jnp.mean(z),
], ids=["sin", "abs2", "conj", "sqrt_log", "matmul", "cumprod"])
def test_check_grads_complex(x64, fn):
    # order 2 by central differences of first derivatives: about 1e-5 of noise
    check_grads(fn, (np.array([0.3 + 0.4j, -1.2 + 0.5j, 0.7 - 0.2j]),), 2, atol=1e-4, rtol=1e-4)


def test_real_to_complex_and_back(x64):
    def f(x):
        return jnp.sum(jnp.abs(lax.complex(x, x * x) * (1 + 2j)) ** 2)
    check_grads(f, (np.array([0.3, -1.1, 2.0]),), 2)


def test_derivative_dtype_errors():
    z = jnp.asarray(1 + 1j)
    with pytest.raises(TypeError, match="grad requires real-valued outputs.*holomorphic=True"):
        jaxc.grad(lambda z: z * z)(z)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        jaxc.grad(lambda x: x * x, holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex dtype"):
        jaxc.grad(lambda z: jnp.abs(z), holomorphic=True)(z)
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs.*holomorphic=True"):
        jaxc.jacfwd(jnp.abs)(z)


def test_jvp_and_vjp_carry_complex_tangents(x64):
    z = jnp.asarray([0.3 + 0.4j, 1 - 1j])
    t = jnp.asarray([1 + 0j, 0.5j])
    y, y_dot = jaxc.jvp(lambda z: z * z, (z,), (t,))
    np.testing.assert_allclose(np.asarray(y_dot), 2 * np.asarray(z) * np.asarray(t))
    _, pullback = jaxc.vjp(lambda z: z * jnp.conj(z), z)
    (z_bar,) = pullback(jnp.ones(2, jnp.complex128))
    # d(z conj z) = conj(z) dz + z conj(dz): the transpose (not adjoint) gives conj(z) + conj(z)
    np.testing.assert_allclose(np.asarray(z_bar), 2 * np.conj(np.asarray(z)))


# -- vmap and jit ---------------------------------------------------------------------------

def test_vmap_against_loop():
    def f(z, w):
        return jnp.sum(jnp.exp(z) * jnp.conj(w)) + jnp.abs(z[0])
    got = jaxc.vmap(f)(Z, W)
    expected = np.array([np.asarray(f(jnp.asarray(z), jnp.asarray(w))) for z, w in zip(Z, W)])
    assert_close(got, expected, rtol=1e-5, atol=1e-5)
    grads = jaxc.vmap(jaxc.grad(lambda z: jnp.abs(jnp.sum(z * z))))(Z)
    loop = np.array([np.asarray(jaxc.grad(lambda z: jnp.abs(jnp.sum(z * z)))(jnp.asarray(z))) for z in Z])
    assert_close(grads, loop, rtol=1e-5, atol=1e-5)


def test_jit_ir_shows_complex_ops():
    text = jaxc.jit(lambda z: jnp.abs(jnp.conj(z) * 2j)).lower(Z).as_text()
    assert "jaxc.conj" in text and "tensor<3x4xcomplex<f32>>" in text and "jaxc.abs" in text
    lowered = jaxc.jit(lambda z: jnp.abs(z)).lower(Z).as_text(stage="linalg")
    assert "complex.abs" in lowered


# -- errors as JAX's ------------------------------------------------------------------------

def test_unordered_and_real_only_operations_raise():
    z = jnp.asarray(Z)
    with pytest.raises(TypeError, match="jnp.floor does not accept dtype complex64"):
        jnp.floor(z)
    with pytest.raises(TypeError, match="jnp.fabs does not support complex"):
        jnp.fabs(z)
    with pytest.raises(ValueError, match="clip received a complex value"):
        jnp.clip(z, 0, 1)
    with pytest.raises(TypeError, match="jnp.argmax does not accept dtype complex64"):
        jnp.argmax(z)
    with pytest.raises(TypeError, match="lax.real requires a complex argument, got float32"):
        lax.real(jnp.ones(2))
    with pytest.raises(TypeError, match="lax.complex requires float32 or float64 arguments, got int32"):
        lax.complex(jnp.ones(2, jnp.int32), jnp.ones(2, jnp.int32))
    with pytest.raises(TypeError, match="rem"):
        jnp.fmod(z, z)


# -- JAX itself ----------------------------------------------------------------------------------

@pytest.mark.skipif(jax is None, reason="JAX is not installed")
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "arcsin", "arctanh", "abs", "angle", "sign", "tanh"])
def test_values_and_gradients_match_jax(name):
    mine, theirs = getattr(jnp, name), getattr(jax_numpy, name)
    assert_close(mine(Z), np.asarray(theirs(Z)), rtol=2e-5, atol=2e-5)
    if name in ("abs", "angle"):
        g_mine = jaxc.grad(lambda z: jnp.sum(mine(z)))(Z)
        g_theirs = jax.grad(lambda z: jax_numpy.sum(theirs(z)))(Z)
    else:
        g_mine = jaxc.grad(lambda z: jnp.sum(jnp.abs(mine(z))))(Z)
        g_theirs = jax.grad(lambda z: jax_numpy.sum(jax_numpy.abs(theirs(z))))(Z)
    assert_close(g_mine, np.asarray(g_theirs), rtol=1e-4, atol=1e-4)


def test_zero_size_complex_arrays_compile():
    # the lowering read the (empty) constant's attribute, which the bindings cannot wrap
    out = jaxc.jit(lambda v: v * 2)(np.zeros((0, 3), np.complex64))
    assert out.shape == (0, 3) and out.dtype == np.complex64
    assert jnp.fft.rfft(np.ones((0, 4), np.float32)).shape == (0, 3)
    assert jnp.fft.fft(np.ones((0, 4), np.complex64)).shape == (0, 4)
