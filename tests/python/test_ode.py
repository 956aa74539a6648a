"""jaxc.experimental.ode.odeint: values against closed forms and SciPy,
gradients (the adjoint method) against finite differences in float64 and
against analytic derivatives, eagerly and under jit, vmap against a Python
loop, errors with JAX's exception types, and, where JAX is installed, the
same numbers as JAX's odeint (the same algorithm, so in float64 the same
steps). Shapes are tiny: compiling the solver is what costs time here."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.experimental.ode import odeint
from jaxc.test_util import check_grads


def decay(y, t, k):
    return -k * y


def oscillator(state, t, omega):
    """x'' = -omega**2 x as a dict state."""
    return {"x": state["v"], "v": -omega ** 2 * state["x"]}


def forced(y, t, k):
    """A nonlinear, time-dependent right-hand side."""
    return -k * y * y + jnp.sin(t)


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------

def test_exponential_decay_float32_eager_and_jit():
    ts = jnp.linspace(0., 2., 5)
    y0 = jnp.array([1.0, -2.0])
    expected = np.exp(-0.7 * np.asarray(ts))[:, None] * np.array([1.0, -2.0])
    ys = odeint(decay, y0, ts, 0.7)
    assert ys.shape == (5, 2) and ys.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(ys), expected, rtol=2e-6)
    ys_jit = jaxc.jit(lambda y0, ts, k: odeint(decay, y0, ts, k))(y0, ts, 0.7)
    np.testing.assert_allclose(np.asarray(ys_jit), np.asarray(ys), rtol=1e-6)


def test_harmonic_oscillator_pytree_state(x64):
    ts = jnp.linspace(0., 3., 4)
    omega = 2.0
    state0 = {"x": jnp.array([1.0, 0.0]), "v": jnp.array([0.0, omega])}
    ys = odeint(oscillator, state0, ts, omega, rtol=1e-11, atol=1e-11)
    assert set(ys) == {"x", "v"} and ys["x"].shape == (4, 2) and ys["x"].dtype == jnp.float64
    t = np.asarray(ts)[:, None]
    # x(0) = (1, 0), v(0) = (0, omega): x = (cos wt, sin wt).
    np.testing.assert_allclose(np.asarray(ys["x"]), np.hstack([np.cos(omega * t), np.sin(omega * t)]), atol=1e-9)
    np.testing.assert_allclose(np.asarray(ys["v"]), omega * np.hstack([-np.sin(omega * t), np.cos(omega * t)]),
                               atol=1e-9)


def test_tuple_state_with_leaves_of_different_shapes(x64):
    ts = jnp.array([0.0, 0.5, 1.5])
    state0 = (jnp.ones((2, 2)), jnp.array(3.0))
    ys = odeint(lambda s, t: (-s[0], 2.0 * s[1]), state0, ts, rtol=1e-10, atol=1e-10)
    assert ys[0].shape == (3, 2, 2) and ys[1].shape == (3,)
    np.testing.assert_allclose(np.asarray(ys[0]), np.exp(-np.asarray(ts))[:, None, None] * np.ones((2, 2)),
                               rtol=1e-8)
    np.testing.assert_allclose(np.asarray(ys[1]), 3.0 * np.exp(2.0 * np.asarray(ts)), rtol=1e-8)


def test_against_scipy_solve_ivp_and_odeint(x64):
    integrate = pytest.importorskip("scipy.integrate")

    def lotka_volterra(y, t, a, b):
        prey, predator = y[0], y[1]
        return jnp.stack([a * prey - b * prey * predator, b * prey * predator - predator])

    ts = np.array([0.0, 0.7, 1.9, 3.0])
    y0 = np.array([1.5, 0.6])
    ys = odeint(lambda y, t, a, b: lotka_volterra(y, t, a, b), jnp.asarray(y0), jnp.asarray(ts), 1.1, 0.8,
                rtol=1e-11, atol=1e-11)

    def rhs(t, y):
        return [1.1 * y[0] - 0.8 * y[0] * y[1], 0.8 * y[0] * y[1] - y[1]]

    ref = integrate.solve_ivp(rhs, (0.0, 3.0), y0, method="DOP853", t_eval=ts, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.asarray(ys), ref.y.T, rtol=1e-8)
    lsoda = integrate.odeint(lambda y, t: rhs(t, y), y0, ts, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(ys), lsoda, rtol=1e-8)


def test_complex_state(x64):
    ts = jnp.linspace(0., 2., 3)
    ys = odeint(lambda y, t: -1j * y, jnp.array([1.0 + 0.5j]), ts, rtol=1e-10, atol=1e-10)
    assert ys.dtype == jnp.complex128
    expected = (1.0 + 0.5j) * np.exp(-1j * np.asarray(ts))[:, None]
    np.testing.assert_allclose(np.asarray(ys), expected, rtol=1e-8)


def test_scalar_state_and_single_time():
    ys = odeint(lambda y, t: -y, 1.0, jnp.array([0.0, 1.0]))
    assert ys.shape == (2,)
    np.testing.assert_allclose(np.asarray(ys), [1.0, np.exp(-1.0)], rtol=1e-6)
    one = odeint(lambda y, t: -y, jnp.array([2.0, 3.0]), jnp.array([0.5]))
    np.testing.assert_array_equal(np.asarray(one), [[2.0, 3.0]])
    # The gradient through a single time point is the identity for y0 and zero for t.
    y0_bar, t_bar = jaxc.grad(lambda y0, t: odeint(lambda y, t: -y, y0, t).sum(), argnums=(0, 1))(
        jnp.array([2.0, 3.0]), jnp.array([0.5]))
    np.testing.assert_array_equal(np.asarray(y0_bar), [1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(t_bar), [0.0])


def test_time_dependent_and_pytree_args(x64):
    # y' = a*t + b[0] - b[1] y  has  y = c + d t + C exp(-b1 t) with the constants below.
    def rhs(y, t, a, b):
        return a * t + b["shift"] - b["rate"] * y

    a, shift, rate = 0.5, 0.3, 2.0
    ts = jnp.linspace(0., 1.5, 4)
    ys = odeint(rhs, jnp.array(1.0), ts, a, {"shift": shift, "rate": rate}, rtol=1e-11, atol=1e-11)
    d = a / rate
    c = (shift - d) / rate
    t = np.asarray(ts)
    np.testing.assert_allclose(np.asarray(ys), c + d * t + (1.0 - c) * np.exp(-rate * t), rtol=1e-9)


def test_hmax_and_mxstep(x64):
    ts = jnp.array([0.0, 1.0])
    y0 = jnp.array([1.0])
    # Capping the step keeps the answer (the tolerance holds either way) ...
    capped = odeint(lambda y, t: -y, y0, ts, hmax=0.01)
    np.testing.assert_allclose(np.asarray(capped)[-1], np.exp(-1.0), rtol=1e-9)
    # ... while too few steps stop short of t = 1: the answer is then the
    # quartic of the last accepted step, extrapolated.
    short = odeint(lambda y, t: -y, y0, ts, mxstep=2)
    assert abs(float(short[-1, 0]) - np.exp(-1.0)) > 1e-4
    assert np.isfinite(np.asarray(short)).all()


# ---------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------

def test_grad_against_finite_differences(x64):
    ts = jnp.array([0.0, 0.4, 1.0])

    def loss(y0, ts, k):
        return odeint(forced, y0, ts, k, rtol=1e-12, atol=1e-12)

    check_grads(loss, (jnp.array([0.8, -0.3]), ts, jnp.array(1.3)), order=1, modes=("rev",), eps=1e-5)


def test_grad_pytree_state_against_finite_differences(x64):
    ts = jnp.array([0.0, 0.5, 1.2])

    def final_state(state0, omega):
        out = odeint(oscillator, state0, ts, omega, rtol=1e-12, atol=1e-12)
        return out["x"][1:] + 0.5 * out["v"][1:]

    state0 = {"x": jnp.array([1.0, 0.3]), "v": jnp.array([0.2, -0.4])}
    check_grads(final_state, (state0, jnp.array(1.7)), order=1, modes=("rev",), eps=1e-5)


def test_grad_against_closed_form(x64):
    # y(T) = y0 exp(-k (T - t0)).
    def final(y0, t0, t1, k):
        return odeint(decay, y0, jnp.stack([t0, t1]), k, rtol=1e-12, atol=1e-12)[-1]

    y0, t0, t1, k = 1.5, 0.2, 1.4, 0.9
    y1 = y0 * np.exp(-k * (t1 - t0))
    expected = [y1 / y0, k * y1, -k * y1, -(t1 - t0) * y1]
    for fn in (jaxc.grad(final, argnums=(0, 1, 2, 3)), jaxc.jit(jaxc.grad(final, argnums=(0, 1, 2, 3)))):
        grads = fn(jnp.array(y0), jnp.array(t0), jnp.array(t1), jnp.array(k))
        np.testing.assert_allclose([float(g) for g in grads], expected, rtol=1e-9)


def test_grad_of_closed_over_traced_value(x64):
    # `k` reaches func by closure, not through *args: it still gets its derivative.
    ts = jnp.array([0.0, 2.0])

    def final(k):
        return odeint(lambda y, t: -k * y, jnp.array([1.0]), ts, rtol=1e-12, atol=1e-12)[-1, 0]

    expected = -2.0 * np.exp(-2.0 * 0.6)
    np.testing.assert_allclose(float(jaxc.grad(final)(0.6)), expected, rtol=1e-9)
    np.testing.assert_allclose(float(jaxc.jit(jaxc.grad(final))(0.6)), expected, rtol=1e-9)
    np.testing.assert_allclose(float(jaxc.jit(final)(0.6)), np.exp(-1.2), rtol=1e-9)


# ---------------------------------------------------------------------------
# vmap
# ---------------------------------------------------------------------------

def test_vmap_against_loop():
    ts = jnp.linspace(0., 1., 3)
    y0s = jnp.array([[1.0], [2.0], [0.3]])
    ks = jnp.array([0.5, 1.0, 3.0])

    def solve(y0, k):
        return odeint(forced, y0, ts, k)

    batched = jaxc.vmap(solve)(y0s, ks)
    looped = np.stack([np.asarray(solve(y0s[i], ks[i])) for i in range(3)])
    np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-6, atol=1e-7)
    # Batched output times too, with a shared state.
    tss = jnp.array([[0.0, 0.5], [0.0, 1.0], [0.2, 0.3]])
    batched_t = jaxc.vmap(lambda t: odeint(forced, y0s[0], t, 1.0))(tss)
    looped_t = np.stack([np.asarray(odeint(forced, y0s[0], tss[i], 1.0)) for i in range(3)])
    np.testing.assert_allclose(np.asarray(batched_t), looped_t, rtol=1e-6, atol=1e-7)


def test_vmap_of_grad_against_loop():
    ts = jnp.linspace(0., 1., 3)
    ks = jnp.array([0.5, 1.0, 3.0])
    # k reaches func by closure: closure conversion under vmap and grad.
    grad_k = jaxc.grad(lambda k: odeint(lambda y, t: forced(y, t, k), jnp.array([1.0]), ts)[-1, 0])
    batched = jaxc.jit(jaxc.vmap(grad_k))(ks)
    looped = np.array([float(grad_k(k)) for k in ks])
    np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-5)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["a", lambda x: x, np.array(["a"])], ids=["str", "function", "str_array"])
def test_args_that_are_not_arrays(bad):
    with pytest.raises(TypeError, match=r"odeint: the extra arguments \*args must be arrays or scalars"):
        odeint(lambda y, t, a: y, jnp.ones(2), jnp.linspace(0., 1., 3), bad)


def test_times_that_are_not_floats():
    with pytest.raises(TypeError, match="t must be an array of floats, but got dtype int32"):
        odeint(lambda y, t: -y, jnp.ones(2), jnp.arange(3))
    with pytest.raises(AttributeError, match="t must be an array of floats, but got list"):
        odeint(lambda y, t: -y, jnp.ones(2), [0.0, 1.0])


def test_func_returning_the_wrong_shape():
    with pytest.raises(TypeError, match="incompatible shapes"):
        odeint(lambda y, t: jnp.ones(3), jnp.ones(2), jnp.linspace(0., 1., 3))


# ---------------------------------------------------------------------------
# Against JAX
# ---------------------------------------------------------------------------

def test_signature_matches_jax():
    pytest.importorskip("jax")
    from jax.experimental import ode as jax_ode

    ours = inspect.signature(odeint)
    theirs = inspect.signature(jax_ode.odeint)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.parameters.values()]


def test_error_types_match_jax():
    jax = pytest.importorskip("jax")
    from jax.experimental.ode import odeint as jax_odeint

    ts = np.linspace(0., 1., 3).astype(np.float32)
    cases = [
        (lambda y, t, a: y, np.ones(2, np.float32), ts, ("a",)),
        (lambda y, t: y, np.ones(2, np.float32), np.arange(3), ()),
        (lambda y, t: y, np.ones(2, np.float32), [0.0, 1.0], ()),
    ]
    for func, y0, t, args in cases:
        with pytest.raises(Exception) as theirs:
            jax_odeint(func, y0, jax.numpy.asarray(t) if isinstance(t, np.ndarray) else t, *args)
        with pytest.raises(type(theirs.value)):
            odeint(func, y0, jnp.asarray(t) if isinstance(t, np.ndarray) else t, *args)


def test_values_and_grads_match_jax_float64(jax_x64, x64):
    jnp_ref = jax_x64.numpy
    from jax.experimental.ode import odeint as jax_odeint

    def rhs(state, t, omega, damping):
        return {"x": state["v"], "v": -omega * state["x"] - damping * state["v"] * jnp.cos(t)}

    def rhs_ref(state, t, omega, damping):
        return {"x": state["v"], "v": -omega * state["x"] - damping * state["v"] * jnp_ref.cos(t)}

    ts = np.linspace(0., 3., 4)
    state0 = {"x": np.array([1.0, 0.5]), "v": np.array([0.0, 1.0])}
    ours = odeint(rhs, state0, jnp.asarray(ts), 2.0, 0.1, rtol=1e-9, atol=1e-9)
    theirs = jax_odeint(rhs_ref, state0, jnp_ref.asarray(ts), 2.0, 0.1, rtol=1e-9, atol=1e-9)
    # The same steps: agreement to rounding, far below the tolerance.
    for key in ("x", "v"):
        np.testing.assert_allclose(np.asarray(ours[key]), np.asarray(theirs[key]), rtol=1e-13, atol=1e-14)

    def loss(solver, cos, state0, ts, omega):
        out = solver(lambda s, t, w: {"x": s["v"], "v": -w * s["x"] - 0.1 * s["v"] * cos(t)},
                     state0, ts, omega, rtol=1e-9, atol=1e-9)
        return (out["x"] ** 2).sum()

    ours_bar = jaxc.grad(lambda *a: loss(odeint, jnp.cos, *a), argnums=(0, 1, 2))(state0, jnp.asarray(ts), 2.0)
    theirs_bar = jax_x64.grad(lambda *a: loss(jax_odeint, jnp_ref.cos, *a), argnums=(0, 1, 2))(
        state0, jnp_ref.asarray(ts), 2.0)
    for a, b in zip(jaxc.tree_util.tree_leaves(ours_bar), jax_x64.tree_util.tree_leaves(theirs_bar)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-11, atol=1e-13)


def test_step_control_matches_jax_step_for_step(jax_x64, x64):
    # With few steps allowed, a capped step or a loose tolerance, the answer
    # is far from the true solution and depends on exactly which steps were
    # taken and where the dense output evaluates it, so agreeing with JAX far
    # below that gap means taking JAX's steps. (With mxstep=3 the step sizes
    # carry a ~1e-8 relative rounding difference: the error estimate is a
    # cancelling sum whose rounding depends on the order XLA's dot adds in.)
    integrate = pytest.importorskip("scipy.integrate")
    jnp_ref = jax_x64.numpy
    from jax.experimental.ode import odeint as jax_odeint

    ts = np.array([0.0, 0.3, 2.0])
    y0 = np.array([1.0, 0.2])
    exact = integrate.solve_ivp(lambda t, y: -1.3 * y * y + np.sin(t), (0.0, 2.0), y0, method="DOP853", t_eval=ts,
                                rtol=1e-13, atol=1e-13).y.T
    cases = [({"mxstep": 3}, 1e-7, 1.0), ({"hmax": 0.07}, 1e-13, 1e-9), ({"rtol": 1e-3, "atol": 1e-6}, 1e-13, 1e-3)]
    for options, rtol, gap in cases:
        ours = np.asarray(odeint(forced, jnp.asarray(y0), jnp.asarray(ts), 1.3, **options))
        theirs = jax_odeint(lambda y, t, k: -k * y * y + jnp_ref.sin(t), jnp_ref.asarray(y0), jnp_ref.asarray(ts),
                            1.3, **options)
        assert np.abs(ours / exact - 1).max() > gap, options
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=rtol, atol=1e-14, err_msg=str(options))


def test_values_match_jax_float32():
    jax = pytest.importorskip("jax")
    from jax.experimental.ode import odeint as jax_odeint

    ts = np.linspace(0., 2., 5).astype(np.float32)
    y0 = np.array([1.0, 2.0], np.float32)
    ours = odeint(forced, jnp.asarray(y0), jnp.asarray(ts), 0.7)
    theirs = jax_odeint(lambda y, t, k: -k * y * y + jax.numpy.sin(t), jax.numpy.asarray(y0),
                        jax.numpy.asarray(ts), 0.7)
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5)
