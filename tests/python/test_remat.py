"""Rematerialization: `jaxc.checkpoint` under grad recomputes what its
policy does not save (passes/autodiff/remat.py), the IR shows it, and the
values and derivatives stay those of the function (finite differences in
float64, the function without checkpoint, a Python loop for vmap, JAX
where installed)."""
import re

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import checkpoint_policies as cp, lax
from jaxc.test_util import check_grads

RNG = np.random.default_rng(7)
WS = [(RNG.normal(size=(6, 6)) / 3).astype(np.float32) for _ in range(3)]
X = RNG.normal(size=(4, 6)).astype(np.float32)


def layer(w, x):
    h = jaxc.ad_checkpoint.checkpoint_name(jnp.tanh(x @ w), "h")
    return x + jnp.sin(h) @ w


def loss(ws, x, wrap=lambda f: f):
    step = wrap(layer)
    for w in ws:
        x = step(w, x)
    return jnp.sum(x ** 2)


def _ops(text: str, name: str) -> int:
    return len(re.findall(rf"= jaxc\.{name} ", text))


def _optimized(fun, *args, **kw):
    return jaxc.jit(fun, **kw).lower(*args).as_text(stage="optimized")


POLICIES = {
    "default": None,
    "nothing": cp.nothing_saveable,
    "everything": cp.everything_saveable,
    "dots": cp.dots_saveable,
    "dots_no_batch": cp.dots_with_no_batch_dims_saveable,
    "only_h": cp.save_only_these_names("h"),
    "names_but_h": cp.save_any_names_but_these("h"),
    "anything_but_h": cp.save_anything_except_these_names("h"),
    "both": cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("h")),
    "custom": lambda prim, *avals, **params: prim.name == "tanh",
    "offload": cp.save_and_offload_only_these_names(names_which_can_be_saved=[], names_which_can_be_offloaded=["h"]),
}


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_gradient_is_the_functions_for_every_policy(name):
    wrap = lambda f: jaxc.checkpoint(f, policy=POLICIES[name])  # noqa: E731
    expected = jaxc.jit(jaxc.grad(loss))(WS, X)
    ours = jaxc.jit(jaxc.grad(lambda ws, x: loss(ws, x, wrap)))(WS, X)
    for a, b in zip(ours, expected):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-6, atol=2e-6)


def test_gradient_against_finite_differences_in_float64():
    with jaxc.enable_x64(True):
        ws = [w.astype(np.float64) for w in WS[:2]]
        x = X.astype(np.float64)
        for policy in (None, cp.dots_saveable, cp.save_only_these_names("h")):
            f = lambda ws, x: loss(ws, x, lambda g: jaxc.checkpoint(g, policy=policy))  # noqa: E731
            check_grads(f, (ws, x), order=2, modes=["rev"])
            check_grads(jaxc.jit(f), (ws, x), order=1, modes=["rev", "fwd"])


def test_recomputation_is_in_the_ir():
    """Without a policy each layer's forward ops run again behind a barrier;
    dots_saveable recomputes no product; everything_saveable and
    prevent_cse=False change nothing after the cleanup."""
    def grad_of(wrap):
        return _optimized(jaxc.grad(lambda ws, x: loss(ws, x, wrap)), WS, X)
    plain = grad_of(lambda f: f)
    nothing = grad_of(jaxc.checkpoint)
    dots = grad_of(lambda f: jaxc.checkpoint(f, policy=cp.dots_saveable))
    everything = grad_of(lambda f: jaxc.checkpoint(f, policy=cp.everything_saveable))
    merged = grad_of(lambda f: jaxc.checkpoint(f, prevent_cse=False))
    assert _ops(plain, "optimization_barrier") == 0
    assert _ops(nothing, "optimization_barrier") == 3  # one per layer
    assert _ops(nothing, "tanh") == _ops(plain, "tanh") + 3
    assert _ops(nothing, "dot_general") == _ops(plain, "dot_general") + 3  # x @ w again (sin(h) @ w is not needed)
    assert _ops(dots, "optimization_barrier") == 3
    assert _ops(dots, "dot_general") == _ops(plain, "dot_general")
    assert _ops(dots, "tanh") == _ops(plain, "tanh") + 3
    for text in (everything, merged):
        assert _ops(text, "optimization_barrier") == 0
        assert _ops(text, "tanh") == _ops(plain, "tanh")
        assert _ops(text, "dot_general") == _ops(plain, "dot_general")


def test_named_policy_saves_the_named_value():
    text = _optimized(jaxc.grad(lambda ws, x: loss(ws, x, lambda f: jaxc.checkpoint(
        f, policy=cp.save_only_these_names("h")))), WS, X)
    plain = _optimized(jaxc.grad(loss), WS, X)
    assert _ops(text, "tanh") == _ops(plain, "tanh")  # h is saved: its tanh is not recomputed
    assert _ops(text, "sin") == _ops(plain, "sin") + 3  # sin(h) is
    assert _ops(text, "checkpoint_name") >= 3


def test_custom_policy_names_what_it_saves():
    text = jaxc.jit(jaxc.grad(lambda ws, x: loss(ws, x, lambda f: jaxc.checkpoint(
        f, policy=POLICIES["custom"])))).lower(WS, X).as_text(stage="traced")
    assert 'policy = "save_only_these_names" names = ["jaxc_saved_0"]' in text
    assert 'jaxc.checkpoint_name' in text and 'name = "jaxc_saved_0"' in text


def test_lowering_keeps_the_recomputation_apart():
    """The barrier is an allocation with a copy: CSE and fusion leave the
    recomputed tanh apart from the forward one down to the loops."""
    def count(wrap, stage):
        text = jaxc.jit(jaxc.grad(lambda ws, x: loss(ws, x, wrap))).lower(WS, X).as_text(stage=stage)
        return len(re.findall(r"math\.tanh", text)), text.count("bufferization.alloc_tensor")
    plain, _ = count(lambda f: f, "linalg")
    remat, copies = count(jaxc.checkpoint, "linalg")
    assert remat == plain + 3 and copies >= 3
    assert count(jaxc.checkpoint, "loops")[0] > count(lambda f: f, "loops")[0]


def test_temporaries_are_freed_after_their_last_use():
    """`jaxc-free-at-last-use`: a dealloc follows the last use of its buffer,
    not the end of the function."""
    def chain(w, x):
        for _ in range(4):
            x = jnp.tanh(x @ w)
        return x
    text = jaxc.jit(chain).lower(WS[0], X).as_text(stage="bufferized")
    body = text[text.index("func.func @jit_chain"):].splitlines()
    deallocs = [i for i, line in enumerate(body) if "memref.dealloc" in line]
    last_kernel = max(i for i, line in enumerate(body) if "scf.for" in line or "linalg." in line)
    assert deallocs and min(deallocs) < last_kernel


def test_vmap_of_grad_matches_a_loop():
    f = jaxc.grad(lambda x, w: loss([w], x, jaxc.checkpoint))
    xs = RNG.normal(size=(3, 4, 6)).astype(np.float32)
    batched = jaxc.jit(jaxc.vmap(f, (0, None)))(xs, WS[0])
    for i in range(3):
        np.testing.assert_allclose(np.asarray(batched[i]), np.asarray(f(xs[i], WS[0])), rtol=1e-5, atol=1e-6)


def test_checkpoint_of_a_vmapped_function_and_forward_mode():
    g = jaxc.checkpoint(jaxc.vmap(lambda x: jnp.sin(x) * x))
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jaxc.grad(lambda x: g(x).sum())(x)),
                               np.sin(x) + x * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxc.jacfwd(g)(x)), np.diag(np.sin(x) + x * np.cos(x)),
                               rtol=1e-6, atol=1e-7)
    hess = jaxc.hessian(lambda x: jaxc.checkpoint(lambda v: jnp.sum(jnp.sin(v) ** 2))(x))(x)
    np.testing.assert_allclose(np.asarray(hess), np.diag(2 * np.cos(2 * x)), rtol=1e-5, atol=1e-6)


def test_nested_checkpoints_and_scan_body():
    def block(ws, x):
        for w in ws:
            x = jaxc.checkpoint(layer)(w, x)
        return x
    nested = lambda ws, x: jnp.sum(jaxc.checkpoint(block)(ws, x) ** 2)  # noqa: E731
    expected = jaxc.grad(loss)(WS, X)
    for a, b in zip(jaxc.jit(jaxc.grad(nested))(WS, X), expected):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-6, atol=2e-6)

    def scanned(w, x):
        body = jaxc.checkpoint(lambda c, _: (layer(w, c), None))
        return jnp.sum(lax.scan(body, x, None, length=3)[0] ** 2)
    np.testing.assert_allclose(np.asarray(jaxc.jit(jaxc.grad(scanned))(WS[0], X)),
                               np.asarray(jaxc.grad(loss)([WS[0]] * 3, X)[0]
                                          + jaxc.grad(loss)([WS[0]] * 3, X)[1]
                                          + jaxc.grad(loss)([WS[0]] * 3, X)[2]), rtol=1e-5, atol=1e-5)


def test_eager_grad_and_static_argnames():
    def power(x, n):
        for _ in range(n):
            x = x * jnp.cos(x)
        return x
    g = jaxc.checkpoint(power, static_argnames="n")
    assert float(jaxc.grad(lambda x: g(x, n=3))(0.5)) == pytest.approx(float(jaxc.grad(power)(0.5, 3)), rel=1e-6)


def test_checkpoint_of_closures_and_pytrees():
    scale = jnp.float32(1.5)

    @jaxc.checkpoint
    def f(params, x):
        return {"y": jnp.tanh(params["w"] @ x) * scale, "z": x.sum()}
    params = {"w": WS[0]}
    x = X[0]
    out = jaxc.grad(lambda p: f(p, x)["y"].sum() + f(p, x)["z"])(params)
    expected = jaxc.grad(lambda p: (jnp.tanh(p["w"] @ x) * scale).sum())(params)
    np.testing.assert_allclose(np.asarray(out["w"]), np.asarray(expected["w"]), rtol=1e-6)


def test_optimization_barrier_is_an_identity_with_derivatives():
    f = lambda x: jnp.sum(lax.optimization_barrier((jnp.sin(x), x))[0] * x)  # noqa: E731
    x = np.linspace(0, 1, 4, dtype=np.float32)
    text = jaxc.jit(f).lower(x).as_text()
    assert "jaxc.optimization_barrier" in text
    np.testing.assert_allclose(np.asarray(jaxc.jit(jaxc.grad(f))(x)), np.sin(x) + x * np.cos(x), rtol=1e-6)
    batched = jaxc.vmap(lambda v: lax.optimization_barrier(v * 2))(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(np.asarray(batched), 2 * np.ones((3, 2)))


def test_bad_policy_is_a_type_error():
    with pytest.raises(TypeError, match="policy must be callable"):
        jaxc.checkpoint(layer, policy="dots")


def test_against_jax():
    jax = pytest.importorskip("jax")
    for name in ("nothing", "dots", "only_h"):
        policy = {"nothing": jax.checkpoint_policies.nothing_saveable,
                  "dots": jax.checkpoint_policies.dots_saveable,
                  "only_h": jax.checkpoint_policies.save_only_these_names("h")}[name]
        theirs = jax.jit(jax.grad(lambda ws, x: _jax_loss(jax, ws, x, policy)))(WS, X)
        ours = jaxc.jit(jaxc.grad(lambda ws, x: loss(ws, x, lambda f: jaxc.checkpoint(f, policy=POLICIES[name]))))(WS, X)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def _jax_loss(jax, ws, x, policy):
    import jax.ad_checkpoint  # noqa: F401  (a submodule, not an attribute of jax)
    import jax.numpy as jjnp

    def jlayer(w, x):
        h = jax.ad_checkpoint.checkpoint_name(jjnp.tanh(x @ w), "h")
        return x + jjnp.sin(h) @ w
    step = jax.checkpoint(jlayer, policy=policy)
    for w in ws:
        x = step(w, x)
    return jjnp.sum(x ** 2)
