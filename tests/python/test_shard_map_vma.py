"""shard_map's check_vma (JAX's varying-manual-axes typing, passes/infer_vma.py).

With check_vma (the default) a shard_map body is typed as JAX 0.10 types
it: the derivative of a value replicated over the devices sums their
contributions (the transpose of the implicit pvary), psum's transpose is the
identity, and an output its out_specs replicate over an axis it may vary
over is JAX's ValueError. Each program runs on the devices and under jit
(nested vmaps, whose requests are derived before the mesh axes are batched);
values are checked against NumPy, finite differences, and (when JAX is
installed) JAX itself in a subprocess with 4 CPU devices.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.sharding import Mesh, PartitionSpec as P


@pytest.fixture(autouse=True)
def four_devices():
    before = jaxc.config.jax_num_cpu_devices
    jaxc.config.update("jax_num_cpu_devices", 4)
    yield
    jaxc.config.update("jax_num_cpu_devices", before)


@pytest.fixture
def mesh():
    return Mesh(np.array(jaxc.devices()[:4]).reshape(2, 2), ("x", "y"))


X = np.arange(16.0, dtype=np.float32).reshape(4, 4) / 8 - 1
W = np.linspace(0.5, 1.5, 4, dtype=np.float32).reshape(2, 2)


def blocks(x):
    """The (2, 2) blocks of a 4x4 array split by P('x', 'y'), device order."""
    return x.reshape(2, 2, 2, 2).transpose(0, 2, 1, 3).reshape(4, 2, 2)


def both(f, *args):
    """On the devices and under jit: the two must agree."""
    eager = np.asarray(f(*args))
    traced = np.asarray(jaxc.jit(f)(*args))
    np.testing.assert_allclose(eager, traced, rtol=1e-6, atol=1e-6)
    return eager


def grads(mesh, check_vma=True):
    """Programs whose derivatives JAX's typing changes, by name."""
    def sm(f, in_specs, out_specs):
        return jaxc.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_vma)
    return {
        "grad of a replicated w": sm(lambda a, w: jaxc.grad(lambda w: lax.psum(jnp.sum(w * a), "y"))(w),
                                     (P("x", "y"), P()), P("x", "y")),
        "grad of a split w": sm(lambda a, w: jaxc.grad(lambda w: lax.psum(jnp.sum(w * a), "y"))(a * w),
                                (P("x", "y"), P("x", "y")), P("x", "y")),
        "grad without a collective": sm(lambda a, w: jaxc.grad(lambda w: jnp.sum(w * a))(w),
                                        (P("x", "y"), P()), P("x", "y")),
        "grad of a pmean": sm(lambda a, w: jaxc.grad(lambda w: lax.pmean(jnp.sum(jnp.sin(w * a)), ("x", "y")))(w),
                              (P("x", "y"), P()), P()),
        "value_and_grad over x": sm(lambda a, w: jaxc.value_and_grad(
            lambda w: lax.pmean(jnp.sum(jnp.sin(w * a)), "x"))(w)[1], (P("x", "y"), P()), P(None, "y")),
    }


def test_derivatives_sum_over_the_devices_a_value_is_replicated_on(mesh):
    got = {name: both(f, X, W) for name, f in grads(mesh).items()}
    b = blocks(X)
    # w is the same on all four devices: each device's cotangent of it is summed
    np.testing.assert_allclose(got["grad of a replicated w"], np.tile(b.sum(0), (2, 2)), rtol=1e-6)
    np.testing.assert_allclose(got["grad without a collective"], np.tile(b.sum(0), (2, 2)), rtol=1e-6)
    # psum's transpose is the identity: each device's own derivative
    np.testing.assert_allclose(got["grad of a split w"], X, rtol=1e-6)
    # pmean over the 4 devices: each device's a cos(w a) / 4 (pmean's transpose), summed by w's
    # pvary: the derivative of the mean
    terms = b * np.cos(W * b)
    np.testing.assert_allclose(got["grad of a pmean"], terms.sum(0) / 4, rtol=1e-5, atol=1e-6)
    # pmean over x only (/ 2), still summed over all 4 devices; the same on every y block
    np.testing.assert_allclose(got["value_and_grad over x"], np.tile(terms.sum(0) / 2, (1, 2)),
                               rtol=1e-5, atol=1e-6)


def test_the_derivative_matches_finite_differences_of_the_replicated_loss(mesh):
    """The typed gradient of a replicated w is the gradient of the loss the
    devices compute together (pmean over all of them), in float64."""
    with jaxc.enable_x64(True):
        x, w = X.astype(np.float64), W.astype(np.float64)
        f = jaxc.shard_map(lambda a, w: lax.pmean(jnp.sum(jnp.sin(w * a) ** 2), ("x", "y")), mesh=mesh,
                           in_specs=(P("x", "y"), P()), out_specs=P())
        g = np.asarray(jaxc.shard_map(lambda a, w: jaxc.grad(
            lambda w: lax.pmean(jnp.sum(jnp.sin(w * a) ** 2), ("x", "y")))(w), mesh=mesh,
            in_specs=(P("x", "y"), P()), out_specs=P())(x, w))
        eps = 1e-6
        fd = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            up, down = w.copy(), w.copy()
            up[i] += eps
            down[i] -= eps
            fd[i] = (float(f(x, up)) - float(f(x, down))) / (2 * eps)
    # each device's derivative / 4 (pmean's transpose), summed by w's pvary: the derivative
    # of the mean the devices compute together
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


def test_check_vma_false_keeps_each_devices_own_derivative(mesh):
    got = {name: both(f, X, W) for name, f in grads(mesh, check_vma=False).items() if "pmean" not in name
           and "over x" not in name}
    # psum transposes to psum (2 devices along y), w's cotangent is not summed
    np.testing.assert_allclose(got["grad of a replicated w"], 2 * X, rtol=1e-6)
    np.testing.assert_allclose(got["grad of a split w"], 2 * X, rtol=1e-6)
    np.testing.assert_allclose(got["grad without a collective"], X, rtol=1e-6)
    old = jaxc.shard_map(lambda a, w: jaxc.grad(lambda w: lax.psum(jnp.sum(w * a), "y"))(w), mesh=mesh,
                         in_specs=(P("x", "y"), P()), out_specs=P("x", "y"), check_rep=False)
    np.testing.assert_allclose(both(old, X, W), 2 * X, rtol=1e-6)


MESSAGE = ("shard_map applied to the function '{name}' was given out_specs which require replication which "
           "can't be statically inferred given the mesh:\n\nThe mesh given has shape (2, 2) with corresponding "
           "axis names ('x', 'y').\n\n{detail}\n\nCheck if these output values are meant to be replicated over "
           "those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider "
           "disabling the check by passing the check_vma=False argument to `jax.shard_map`.")
REPLICATED_Y = ("out_specs is P('x', None) which implies that the corresponding output value is replicated "
                "across mesh axis 'y', but could not infer replication over any axes")


def rejected(mesh):
    """(body, in_specs, out_specs) that JAX 0.10 rejects: an output varies
    over an axis its out_spec does not name."""
    def identity(a):
        return a
    return {
        "an argument returned as replicated": (identity, P("x", "y"), P()),
        "all_gather's result varies": (lambda a: lax.all_gather(a, "y", axis=1, tiled=True), P("x", "y"),
                                       P("x", None)),
        "axis_index varies": (lambda a: a * lax.axis_index("y"), P("x", None), P("x", None)),
        "psum_scatter varies": (lambda a: lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
                                P("x", None), P("x", None)),
        "ppermute varies": (lambda a: lax.ppermute(a, "y", [(0, 1), (1, 0)]), P("x", None), P("x", None)),
        "pcast to varying": (lambda a: a + lax.pcast(jnp.ones((2, 4)), "y", to="varying"), P("x", None),
                             P("x", None)),
        "a loop carry that becomes varying": (lambda a: lax.fori_loop(
            0, 3, lambda i, c: c + a, lax.pcast(jnp.zeros((2, 2)), ("x", "y"), to="varying")),
            P("x", "y"), P("x", None)),
    }


def accepted(mesh):
    """Programs JAX 0.10 accepts, with what they compute."""
    b = blocks(X)
    return {
        "psum over y": ((lambda a: lax.psum(a, "y")), P("x", "y"), P("x", None), X.reshape(4, 2, 2).sum(1)),
        "a psum in a nested jit": ((lambda a: jaxc.jit(lambda c: lax.psum(c, "y"))(a)), P("x", "y"),
                                   P("x", None), X.reshape(4, 2, 2).sum(1)),
        "all_gather to='invarying'": ((lambda a: lax.all_gather(a, "y", axis=1, tiled=True, to="invarying")),
                                      P("x", "y"), P("x", None), X),
        "a loop with a psum": ((lambda a: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(a, ("x", "y")),
                                                        jnp.zeros((2, 2)))), P("x", "y"), P(), 3 * b.sum(0)),
        "nested loops with a psum": ((lambda a: lax.fori_loop(0, 2, lambda i, c: lax.fori_loop(
            0, 3, lambda j, d: d + lax.psum(a, ("x", "y")), c), jnp.zeros((2, 2)))), P("x", "y"), P(),
            6 * b.sum(0)),
        "a scan carrying a pmax": ((lambda a: lax.scan(lambda c, r: (jnp.maximum(c, lax.pmax(r, "y")), None),
                                                       lax.pcast(jnp.full((2,), -9.0), "x", to="varying"), a)[0]),
                                   P("x", "y"), P("x"), X.reshape(2, 2, 2, 2).max((1, 2)).reshape(4)),
        "a carry started from zeros_like": ((lambda a: lax.fori_loop(0, 3, lambda i, c: c + a, jnp.zeros_like(a))),
                                            P("x", "y"), P("x", "y"), 3 * X),
        "cond branches typed alike": ((lambda a: lax.cond(jnp.sum(a) > 0, lambda: a, lambda: jnp.ones_like(a))),
                                      P("x", "y"), P("x", "y"),
                                      np.where(np.repeat(np.repeat(blocks(X).sum((1, 2)).reshape(2, 2) > 0, 2, 0),
                                                         2, 1), X, 1.0)),
        "psum of an invariant value": ((lambda a: a + lax.psum(jnp.ones((2, 2)), "y")), P("x", "y"), P("x", "y"),
                                       X + 2),
        "ppermute of an invariant value": ((lambda a: lax.ppermute(a, "y", [(0, 1)])), P("x"), P("x", "y"),
                                           np.concatenate([np.zeros((4, 4)), X], 1)),
        "cond on a varying predicate": ((lambda a: lax.cond(lax.axis_index("y") > 0, lambda: jnp.ones((2, 2)),
                                                            lambda: jnp.zeros((2, 2)))),
                                        P("x", "y"), P("x", None), np.zeros((4, 2))),
    }


@pytest.mark.parametrize("case", ["an argument returned as replicated", "all_gather's result varies",
                                  "axis_index varies", "psum_scatter varies", "ppermute varies",
                                  "pcast to varying", "a loop carry that becomes varying"])
def test_an_output_replicated_over_a_varying_axis_is_a_value_error(mesh, case):
    body, in_specs, out_specs = rejected(mesh)[case]
    f = jaxc.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
    x = X if in_specs == P("x", "y") else np.ones((4, 4), np.float32)
    for run in (f, jaxc.jit(f)):
        with pytest.raises(ValueError, match="was given out_specs which require replication") as info:
            run(x)
        assert "test_shard_map_vma.py" in str(info.value)  # the user's line
    # the check off, the first device's value along the replicated axes
    np.asarray(jaxc.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)(x))


def test_the_message_is_jaxs(mesh):
    def gather(a):
        return lax.all_gather(a, "y", axis=1, tiled=True)
    f = jaxc.shard_map(gather, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", None))
    with pytest.raises(ValueError) as info:
        f(X)
    text = str(info.value)
    assert text[text.index("shard_map applied"):] == MESSAGE.format(name="gather", detail=REPLICATED_Y)
    g = jaxc.shard_map(lambda a: a, mesh=mesh, in_specs=P("x", "y"), out_specs=P())
    with pytest.raises(ValueError, match=r"out_specs is P\(\) which implies that the corresponding output value "
                                         r"is only varying across mesh axes \{\} and not \{x,y\}, but it was "
                                         r"inferred to be possibly varying over \{x,y\}"):
        g(X)
    two = jaxc.shard_map(lambda a: (a, lax.psum(a, "y"), a), mesh=mesh, in_specs=P("x", "y"),
                         out_specs=(P("x", "y"), P("x", None), P("x", None)))
    with pytest.raises(ValueError, match=r"\n\nout_specs\[2\] is P\('x', None\) which implies"):
        two(X)


@pytest.mark.parametrize("case", ["psum over y", "a psum in a nested jit", "all_gather to='invarying'",
                                  "a loop with a psum", "nested loops with a psum", "a scan carrying a pmax",
                                  "cond on a varying predicate", "a carry started from zeros_like",
                                  "cond branches typed alike",
                                  "psum of an invariant value", "ppermute of an invariant value"])
def test_outputs_typed_invariant_are_accepted(mesh, case):
    body, in_specs, out_specs, expected = accepted(mesh)[case]
    f = jaxc.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
    np.testing.assert_allclose(both(f, X), expected, rtol=1e-6)


def body_type_errors():
    """(body, in_specs, exception, message fragment): JAX 0.10's errors inside
    a body, at the line of the loop, cond or pcast (each lambda's line)."""
    z = jnp.zeros
    return {
        "while_loop carry": (lambda a: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + a),
                                                      (0, z((2, 2))))[1], P("x", "y"), TypeError,
                             "while_loop body function carry input and carry output must have equal types, but "
                             "they differ:\n\nThe input carry component 1 has type float32[2,2] but the "
                             "corresponding output carry component has type float32[2,2]{V:(x,y)}, so the manual "
                             "axis types do not match.\n\nThis might be fixed by applying `jax.lax.pcast(..., "
                             "('x', 'y'), to='varying')`, to the initial carry value corresponding to the input "
                             "carry component 1."),
        "fori_loop carry": (lambda a: lax.fori_loop(0, 3, lambda i, c: c + a, lax.psum(a, "y")), P("x", "y"),
                            TypeError, "scan body function carry input and carry output must have equal types"),
        "fori_loop over traced bounds": (lambda a: lax.fori_loop(0, lax.axis_index("x") + 1, lambda i, c: c + a,
                                                                 z((2, 2))), P("x", "y"), TypeError,
                                         "while_loop body function carry input"),
        "scan carry": (lambda a: lax.scan(lambda c, r: (c + r, None), z(2), a)[0][None], P("x", "y"), TypeError,
                       "The input carry component 0 has type float32[2] but the corresponding output carry "
                       "component has type float32[2]{V:(x,y)}"),
        "cond branches": (lambda a: lax.cond(lax.psum(jnp.sum(a), ("x", "y")) > 0, lambda: a,
                                             lambda: lax.psum(a, "y")), P("x", "y"), TypeError, "cond branches must have equal output types but they differ.\n\nThe output of "
                          "true_fun has type float32[2,2]{V:(x,y)} but the corresponding output of false_fun has "
                          "type float32[2,2]{V:x}, so the manual axis types do not match.\n\nThis might be fixed "
                          "by applying `jax.lax.pcast(..., ('y',), to='varying')` to the output of false_fun."),
        "switch branches": (lambda a: lax.switch(1, [lambda: a, lambda: a * 2, lambda: z((2, 2))]), P("x", "y"),
                            TypeError, "switch branches must have equal output types but they differ.\n\nThe "
                            "output of branch 0 has type float32[2,2]{V:(x,y)} but the corresponding output of "
                            "branch 2 has type float32[2,2]"),
        "pcast of a varying value": (lambda a: lax.pcast(a, "x", to="varying"), P("x", "y"), ValueError,
                                     "Unsupported pcast from=varying, to='varying'"),
        "pcast of a partly varying value": (lambda a: lax.pcast(a, ("x", "y"), to="varying"), P("x"), ValueError,
                                            "Got input type: float32[2,4]{V:x}, axes: ('x', 'y') and input state: "
                                            "{'invarying', 'varying'}"),
        "a loop in a nested jit": (lambda a: jaxc.jit(lambda b: lax.fori_loop(0, 2, lambda i, c: c * b,
                                                                               jnp.ones((2, 2))))(a),
                                   P("x", "y"), TypeError, "scan body function carry input"),
    }


@pytest.mark.parametrize("case", list(body_type_errors()))
def test_body_type_errors_are_jaxs(mesh, case):
    body, in_specs, kind, fragment = body_type_errors()[case]
    line = body.__code__.co_firstlineno
    f = jaxc.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=P("x", "y"))
    for run in (f, jaxc.jit(f)):
        with pytest.raises(kind) as info:
            run(X)
        assert type(info.value) is kind
        assert fragment in str(info.value)
        assert str(info.value).startswith(f"{__file__}:{line}: ")  # the body's line
    # without check_vma the body runs (pmap's per-device rules)
    np.asarray(jaxc.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=P("x", "y"), check_vma=False)(X))


def test_a_carry_the_body_makes_less_varying_is_joined(mesh):
    """JAX raises here (its zeros_like and friends may type a yield wider than
    jaxc's data flow does, so jaxc joins rather than guess): the value is
    the body's."""
    f = jaxc.shard_map(lambda a: lax.fori_loop(0, 2, lambda i, c: lax.psum(a, "y"), a), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", "y"))
    np.testing.assert_allclose(both(f, X), np.tile(X.reshape(4, 2, 2).sum(1), (1, 2)), rtol=1e-6)


def test_zeros_like_is_typed_as_its_argument(mesh):
    """jnp.zeros_like(a) (and ones_like, full_like, lax.full_like) vary as `a`,
    as in JAX; in the IR the marker is gone and a pvary remains."""
    for like in (jnp.zeros_like, jnp.ones_like, lambda a: jnp.full_like(a, 2.0), lambda a: lax.full_like(a, 2.0)):
        g = jaxc.shard_map(lambda a: like(a), mesh=mesh, in_specs=P("x", "y"), out_specs=P())
        with pytest.raises(ValueError, match="require replication"):
            g(X)
    f = jaxc.shard_map(lambda a: lax.fori_loop(0, 2, lambda i, c: c + a, jnp.full_like(a, 1.0)), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", "y"))
    np.testing.assert_allclose(both(f, X), 2 * X + 1, rtol=1e-6)
    text = jaxc.jit(f).lower(X).as_text()
    assert "jaxc.vma_like" not in text and 'jaxc.pvary' in text


def test_the_typed_body_in_the_ir(mesh):
    """Under jit the body gets explicit pvarys and invariant psums."""
    f = jaxc.shard_map(lambda a, w: lax.psum(a * w, "y"), mesh=mesh, in_specs=(P("x", "y"), P()),
                       out_specs=P("x", None))
    text = jaxc.jit(f).lower(X, W).as_text()
    assert 'jaxc.pvary %arg1, axes = ["x", "y"]' in text
    assert 'axes = ["y"] invariant' in text
    assert "jaxc.vma_results = [[\"x\"]]" in text
    off = jaxc.shard_map(lambda a, w: lax.psum(a * w, "y"), mesh=mesh, in_specs=(P("x", "y"), P()),
                         out_specs=P("x", None), check_vma=False)
    assert "pvary" not in jaxc.jit(off).lower(X, W).as_text()


def test_pcast_arguments(mesh):
    f = jaxc.shard_map(lambda a: lax.pcast(a, "y", to="varying"), mesh=mesh, in_specs=P("x"), out_specs=P("x", "y"))
    np.testing.assert_allclose(both(f, X), np.concatenate([X, X], 1))
    with pytest.raises(ValueError, match="Allowed `to` values"):
        jaxc.shard_map(lambda a: lax.pcast(a, "y", to="sideways"), mesh=mesh, in_specs=P("x"),
                       out_specs=P("x", "y"))(X)
    for call in (lambda a: lax.pcast(a, "y", to="reduced"), lambda a: lax.pcast(a, "y", to="unreduced"),
                 lambda a: lax.all_gather(a, "y", to="reduced")):
        with pytest.raises(NotImplementedError, match="not supported: jaxc types a shard_map body by varying") as info:
            jaxc.shard_map(call, mesh=mesh, in_specs=P("x"), out_specs=P("x", "y"))(X)
        assert "test_shard_map_vma.py" in str(info.value)
    assert lax.pcast(X, (), to="sideways") is X  # no axes: x itself, as JAX (before checking `to`)
    with pytest.raises(NameError, match="unbound axis name: z"):
        jaxc.shard_map(lambda a: lax.pcast(a, "z", to="varying"), mesh=mesh, in_specs=P("x"),
                       out_specs=P("x", "y"))(X)
    # the gradient of a pcast is a psum over its axes
    g = jaxc.shard_map(lambda a: jaxc.grad(lambda v: jnp.sum(lax.pcast(v, "y", to="varying") * a))(a * 0),
                       mesh=mesh, in_specs=P("x", None), out_specs=P("x", None))
    np.testing.assert_allclose(both(g, X), X * 2, rtol=1e-6)  # the 2 devices along y, summed


# ---------------------------------------------------------------------------
# Against JAX itself
# ---------------------------------------------------------------------------

JAX_SCRIPT = r"""
import json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P
sys.path.insert(0, os.path.dirname(sys.argv[1]))
mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
X = np.asarray(json.loads(sys.argv[2]), np.float32)
W = np.asarray(json.loads(sys.argv[3]), np.float32)
out = {}
for name, body, in_specs, out_specs, args in PROGRAMS(jax, jnp, lax, P):
    try:
        out[name] = np.asarray(jax.jit(jax.shard_map(body, mesh=mesh, in_specs=in_specs,
                                                     out_specs=out_specs))(*args)).tolist()
    except (TypeError, ValueError) as e:
        out[name] = "ValueError" if "require replication" in str(e) else \
            f"error {type(e).__name__}: {str(e).splitlines()[0]}"
print(json.dumps(out))
"""


def programs(jax, jnp, lax, P):
    """The same programs for JAX and jaxc (module-level names only)."""
    return [
        ("grad replicated", lambda a, w: jax.grad(lambda w: lax.psum(jnp.sum(w * a), "y"))(w),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("grad split", lambda a, w: jax.grad(lambda w: lax.psum(jnp.sum(w * a), "y"))(a * w),
         (P("x", "y"), P("x", "y")), P("x", "y"), (X, W)),
        ("grad pmean sin", lambda a, w: jax.grad(lambda w: lax.pmean(jnp.sum(jnp.sin(w * a)), ("x", "y")))(w),
         (P("x", "y"), P()), P(), (X, W)),
        ("grad through all_gather", lambda a, w: jax.grad(
            lambda w: jnp.sum(jnp.cos(lax.all_gather(w * a, "y", axis=1, tiled=True))))(w),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("grad through invariant all_gather", lambda a, w: jax.grad(
            lambda w: jnp.sum(jnp.cos(lax.all_gather(w * a, "y", axis=1, tiled=True, to="invarying"))))(w),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("all_gather over x and y", lambda a, w: lax.all_gather(a, ("x", "y"), axis=0, tiled=True, to="invarying"),
         (P("x", "y"), P()), P(), (X, W)),
        ("ppermute over x and y", lambda a, w: lax.ppermute(a, ("x", "y"), [(0, 1), (1, 2), (2, 3), (3, 0)]),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("all_to_all over y and x", lambda a, w: lax.all_to_all(a.reshape(4, 1), ("y", "x"), 0, 1, tiled=True),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("grad through ppermute over x and y", lambda a, w: jax.grad(lambda a: jnp.sum(
            lax.ppermute(a, ("x", "y"), [(0, 2), (2, 1), (1, 0)]) * jnp.cos(a)))(a),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("grad through all_gather over y and x", lambda a, w: jax.grad(lambda a: jnp.sum(jnp.sin(
            lax.all_gather(a * w, ("y", "x"), axis=1, tiled=True)) * jnp.arange(8.0)))(a),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("returned argument", lambda a, w: a, (P("x", "y"), P()), P(), (X, W)),
        ("axis_index", lambda a, w: a * lax.axis_index("y"), (P("x", "y"), P()), P("x", None), (X, W)),
        ("carry from zeros_like", lambda a, w: lax.fori_loop(0, 3, lambda i, c: c + a * w, jnp.zeros_like(a)),
         (P("x", "y"), P()), P("x", "y"), (X, W)),
        ("carry made varying", lambda a, w: lax.fori_loop(0, 3, lambda i, c: c + a, w), (P("x", "y"), P()),
         P("x", "y"), (X, W)),
        ("cond branches differ", lambda a, w: lax.cond(jnp.sum(w) > 0, lambda: a, lambda: w), (P("x", "y"), P()),
         P("x", "y"), (X, W)),
        ("pcast of a varying value", lambda a, w: lax.pcast(a, "y", to="varying"), (P("x", "y"), P()),
         P("x", "y"), (X, W)),
    ]


def test_matches_jax(mesh, tmp_path):
    pytest.importorskip("jax")
    script = tmp_path / "vma_jax.py"
    source = open(__file__).read()
    start = source.index("def programs(")
    end = source.index("\ndef test_matches_jax")
    script.write_text("import numpy as np, json, sys\n" + source[start:end] + "\n"
                      + JAX_SCRIPT.replace("PROGRAMS", "programs"))
    run = subprocess.run([sys.executable, str(script), str(script), json.dumps(X.tolist()),
                          json.dumps(W.tolist())], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert run.returncode == 0, run.stderr[-2000:]
    expected = json.loads(run.stdout.strip().splitlines()[-1])
    for name, body, in_specs, out_specs, args in programs(jaxc, jnp, lax, P):
        want = expected[name]
        f = jaxc.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
        if want == "ValueError":
            with pytest.raises(ValueError, match="require replication"):
                jaxc.jit(f)(*args)
            continue
        if isinstance(want, str) and want.startswith("error "):  # JAX's type and first line
            kind, first = want[len("error "):].split(": ", 1)
            with pytest.raises((TypeError, ValueError)) as info:
                jaxc.jit(f)(*args)
            assert type(info.value).__name__ == kind and first in str(info.value), (name, want, info.value)
            continue
        assert not isinstance(want, str), (name, want)
        np.testing.assert_allclose(both(f, *args), np.asarray(want), rtol=1e-5, atol=1e-6, err_msg=name)
