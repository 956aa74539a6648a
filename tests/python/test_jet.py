"""jaxc.experimental.jet (JAX's Taylor-mode API): the derivatives of
fun(x(t)) at t = 0 along x(t) = x0 + x1 t + x2 t²/2 + x3 t³/6, checked
against Faà di Bruno's formula with closed-form derivatives, and against
JAX where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.experimental.jet import jet

# f, f', f'', f''' in closed form
FUNCTIONS = {
    "sin": (jnp.sin, np.sin, np.cos, lambda x: -np.sin(x), lambda x: -np.cos(x)),
    "exp": (jnp.exp, np.exp, np.exp, np.exp, np.exp),
    "cube": (lambda x: x ** 3, lambda x: x ** 3, lambda x: 3 * x ** 2, lambda x: 6 * x, lambda x: 6 + 0 * x),
    "log": (jnp.log, np.log, lambda x: 1 / x, lambda x: -1 / x ** 2, lambda x: 2 / x ** 3),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_three_orders_follow_faa_di_bruno(name, x64):
    fun, f0, f1, f2, f3 = FUNCTIONS[name]
    x0, x1, x2, x3 = np.array([0.7, 1.9]), np.array([1.0, -0.5]), np.array([0.3, 2.0]), np.array([-1.0, 0.25])
    out, (y1, y2, y3) = jet(fun, (x0,), ((x1, x2, x3),))
    np.testing.assert_allclose(out, f0(x0), rtol=1e-12)
    np.testing.assert_allclose(y1, f1(x0) * x1, rtol=1e-12)
    np.testing.assert_allclose(y2, f2(x0) * x1 ** 2 + f1(x0) * x2, rtol=1e-12)
    np.testing.assert_allclose(y3, f3(x0) * x1 ** 3 + 3 * f2(x0) * x1 * x2 + f1(x0) * x3, rtol=1e-12)


def test_several_primals_pytree_results_and_jit():
    def f(x, y):
        return {"p": jnp.sin(x) * y, "q": (x + y,)}
    out, series = jaxc.jit(lambda a, b: jet(f, (a, b), ((1.0, 0.5), (0.0, 1.0))))(1.0, 2.0)
    assert float(out["p"]) == pytest.approx(np.sin(1.0) * 2.0, rel=1e-6)
    p1, p2 = series["p"]
    # d/dt sin(x) y = cos(x) x' y + sin(x) y';  second: -sin x x'^2 y + cos x x'' y + 2 cos x x' y' + sin x y''
    assert float(p1) == pytest.approx(np.cos(1.0) * 2.0, rel=1e-5)
    assert float(p2) == pytest.approx(-np.sin(1.0) * 2.0 + np.cos(1.0) * 0.5 * 2.0 + np.sin(1.0) * 1.0, rel=1e-5)
    assert [float(v) for v in series["q"][0]] == [1.0, 1.5]


def test_bad_series():
    with pytest.raises(ValueError, match="1 primals but 2 series"):
        jet(jnp.sin, (1.0,), ((1.0,), (2.0,)))
    with pytest.raises(ValueError, match="same number of terms"):
        jet(lambda a, b: a * b, (1.0, 2.0), ((1.0,), (1.0, 2.0)))
    with pytest.raises(ValueError, match="primal value at position 0 is not an array"):
        jet(lambda d: d["a"], ({"a": 1.0},), ((1.0,),))
    with pytest.raises(TypeError, match=r"series term of shape \(3,\) for a primal of shape \(2,\)"):
        jet(jnp.sin, (jnp.ones(2),), ((jnp.ones(3),),))


def test_equal_to_jax():
    jax = pytest.importorskip("jax")
    from jax.experimental.jet import jet as jax_jet
    cases = [(lambda np_: lambda x: np_.tanh(x).sum(), (np.arange(3.0, dtype=np.float32),),
              ([np.ones(3, np.float32), np.full(3, 0.5, np.float32), np.zeros(3, np.float32)],)),
             (lambda np_: lambda x, y: np_.exp(x) / (1 + y * y), (np.float32(0.3), np.float32(-1.2)),
              ((1.0, 2.0), (0.5, -1.0)))]
    for make, primals, series in cases:
        ours = jet(make(jnp), primals, series)
        theirs = jax_jet(make(jax.numpy), primals, series)
        for a, b in zip(jaxc.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)
