"""Mutable array references (`jaxc.new_ref`, `jaxc.ref`), as JAX's Refs:
eager reads and writes, writes carried out of jit (arguments and closures),
cond, switch, while_loop, fori_loop and scan, Refs inside grad and vmap,
and JAX's errors. Values against NumPy, and against JAX when installed."""
import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax


def _jax():
    try:
        import jax
    except ImportError:
        return None
    return jax


def test_eager_reads_and_writes():
    r = jaxc.new_ref(jnp.zeros(3))
    assert isinstance(r, jaxc.Ref) and r.shape == (3,) and r.dtype == np.float32 and len(r) == 3
    assert repr(r) == "Ref([0., 0., 0.], dtype=float32)"
    r[1] += 1.0
    r[2] = 5.0
    np.testing.assert_array_equal(r[...], [0, 1, 5])
    np.testing.assert_array_equal(r[1:], [1, 5])
    assert float(jaxc.ref.swap(r, 0, 7.0)) == 0 and float(r[0]) == 7
    jaxc.ref.addupdate(r, ..., jnp.ones(3))
    jaxc.ref.set(r, 2, 9.0)
    np.testing.assert_array_equal(jaxc.ref.get(r), [8, 2, 9])
    np.testing.assert_array_equal(jaxc.freeze(r), [8, 2, 9])
    s = jaxc.new_ref(jnp.int32(4))
    s[...] += 10
    assert int(s[...]) == 14 and s[...].dtype == np.int32
    e = jaxc.empty_ref(jaxc.ShapeDtypeStruct((2, 2), jnp.float32))
    e[...] = jnp.eye(2)
    np.testing.assert_array_equal(e[...], np.eye(2))
    assert jaxc.free_ref(e) == ()
    with pytest.raises(ValueError, match="freed"):
        e[...]


def test_jit_writes_closed_over_and_argument_refs():
    counter = jaxc.new_ref(jnp.zeros(3))

    @jaxc.jit
    def bump():
        counter[1] += 1.0

    bump()
    bump()
    np.testing.assert_array_equal(counter[...], [0, 2, 0])
    assert bump.trace_count == 1

    @jaxc.jit
    def scale_into(out, x):
        out[...] = x * 2
        return x.sum()

    a, b = jaxc.new_ref(jnp.zeros(3)), jaxc.new_ref(jnp.zeros(3))
    assert float(scale_into(a, jnp.arange(3.0))) == 3
    scale_into(b, jnp.ones(3))
    np.testing.assert_array_equal(a[...], [0, 2, 4])
    np.testing.assert_array_equal(b[...], [2, 2, 2])
    assert scale_into.trace_count == 1  # one trace for every Ref of this type


def test_jit_reads_a_closed_over_ref_at_each_call():
    r = jaxc.new_ref(jnp.float32(1))
    f = jaxc.jit(lambda x: x * r[...])
    assert float(f(2.0)) == 2
    r[...] = 5.0
    assert float(f(2.0)) == 10  # not the value seen when f was traced


def test_control_flow_carries_writes():
    total = jaxc.new_ref(0)

    def body(i, carry):
        total[...] += i
        return carry

    lax.fori_loop(0, 5, body, None)  # eager (compiled) fori_loop
    assert int(total[...]) == 10
    jaxc.jit(lambda: lax.fori_loop(0, 4, body, None))()
    assert int(total[...]) == 16

    r = jaxc.new_ref(jnp.arange(3.0))

    @jaxc.jit
    def doubling(q):
        lax.while_loop(lambda i: i < 3, lambda i: (q.__setitem__(1, q[1] * 2), i + 1)[1], 0)

    doubling(r)
    np.testing.assert_array_equal(r[...], [0, 8, 2])

    @jaxc.jit
    def running_sums(q, xs):
        def step(c, x):
            q[...] += x
            return c + 1, q[...]
        return lax.scan(step, 0, xs)

    acc = jaxc.new_ref(jnp.zeros(2))
    n, seen = running_sums(acc, jnp.ones((3, 2)))
    assert int(n) == 3
    np.testing.assert_array_equal(seen, [[1, 1], [2, 2], [3, 3]])
    np.testing.assert_array_equal(acc[...], [3, 3])


def test_cond_and_switch_write_in_some_branches():
    r = jaxc.new_ref(jnp.zeros(2))

    @jaxc.jit
    def f(p, x):
        def write(x):
            r[0] = x
            return x + 1
        return lax.cond(p, write, lambda x: x - 1, x)

    assert float(f(True, 3.0)) == 4 and float(r[0]) == 3
    assert float(f(False, 8.0)) == 7 and float(r[0]) == 3  # untouched
    lax.switch(2, [lambda: None, lambda: r.__setitem__(1, 1.0), lambda: r.__setitem__(1, 2.0)])
    np.testing.assert_array_equal(r[...], [3, 2])
    nested = jaxc.new_ref(0)
    jaxc.jit(lambda: lax.fori_loop(0, 6, lambda i, c: lax.cond(
        i % 2 == 0, lambda: nested.__setitem__(..., nested[...] + i), lambda: None), None))()
    assert int(nested[...]) == 0 + 2 + 4


def test_refs_made_inside_grad_and_vmap():
    def g(x):
        r = jaxc.new_ref(0.0)
        r[...] = jnp.sin(x)
        r[...] += x * x
        return r[...]

    assert np.isclose(float(jaxc.grad(g)(1.0)), np.cos(1.0) + 2.0)
    assert np.isclose(float(jaxc.jit(jaxc.grad(g))(1.0)), np.cos(1.0) + 2.0)
    xs = jnp.linspace(0.0, 1.0, 4)
    np.testing.assert_allclose(jaxc.vmap(g)(xs), [g(x) for x in xs], rtol=1e-6)

    def pure(x):
        r = jaxc.new_ref(x)
        r[...] = r[...] + r[...]
        return r[...]

    assert float(jaxc.jit(jaxc.grad(pure))(3.0)) == 2.0


def test_errors_are_jaxs():
    r = jaxc.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match=r"Invalid shape for `swap`. Ref shape: \(3,\). Expected shape: "
                                         r"\(3,\). Value shape: \(4,\)"):
        r[...] = jnp.ones(4)
    with pytest.raises(ValueError, match=r"Invalid shape for `swap`.*Expected shape: \(2,\). Value shape: \(\)"):
        r[:2] = 5.0  # no broadcasting, as in JAX
    with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int32"):
        r[...] = jnp.ones(3, jnp.int32)
    with pytest.raises(ValueError, match="cannot be returned"):
        jaxc.jit(lambda: jaxc.new_ref(jnp.ones(2)))()
    with pytest.raises(ValueError, match="cannot be returned"):
        jaxc.jit(lambda q: {"a": q})(r)
    with pytest.raises(ValueError, match="only one reference to a mutable array may be passed"):
        jaxc.jit(lambda a, b: None)(r, r)
    with pytest.raises(TypeError, match="Error interpreting argument to new_ref"):
        jaxc.new_ref([1.0, 2.0])
    with pytest.raises(TypeError):
        jnp.sin(r)
    with pytest.raises(TypeError):
        r + 1  # noqa: B018
    with pytest.raises(TypeError, match="not iterable"):
        list(r)
    with pytest.raises(NotImplementedError, match="memory space"):
        jaxc.new_ref(jnp.ones(2), memory_space="any")


def test_writes_from_grad_or_vmap_to_outer_refs_are_refused_and_undone():
    r = jaxc.new_ref(jnp.zeros(3))
    with pytest.raises(NotImplementedError, match="made outside it"):
        jaxc.vmap(lambda x: r.__setitem__(0, x))(jnp.ones(2))
    with pytest.raises(NotImplementedError, match="made outside it"):
        jaxc.grad(lambda x: (r.__setitem__(0, lax.stop_gradient(x)), x * x)[1])(3.0)
    np.testing.assert_array_equal(r[...], [0, 0, 0])  # still usable, unchanged
    with pytest.raises(TypeError, match="vmap over a Ref is not supported"):
        jaxc.vmap(lambda q, x: None)(r, jnp.ones(3))


def test_a_failed_trace_leaves_the_ref_as_it_was():
    r = jaxc.new_ref(jnp.ones(2))

    def bad():
        r[...] = r[...] * 3
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        jaxc.jit(bad)()
    np.testing.assert_array_equal(r[...], [1, 1])


def test_same_numbers_as_jax():
    jax = _jax()
    if jax is None:
        pytest.skip("JAX is not installed")

    def program(pkg, jnp_):
        acc = pkg.new_ref(jnp_.zeros(4))

        @pkg.jit
        def step(x):
            def body(i, c):
                acc[i] += x[i] * c
                return c * 2.0
            return pkg.lax.fori_loop(0, 4, body, 1.0)

        out = step(jnp_.arange(1.0, 5.0))
        step(jnp_.ones(4))
        return np.asarray(out), np.asarray(acc[...])

    for got, expected in zip(program(jaxc, jnp), program(jax, jax.numpy)):
        np.testing.assert_array_equal(got, expected)


def test_lower_export_and_cond_fun():
    r = jaxc.new_ref(jnp.zeros(2))
    write = jaxc.jit(lambda q: q.__setitem__(0, 1.0))
    text = write.lower(r).as_text()
    assert "func.func @jit__lambda_(%arg0: tensor<2xf32>) -> tensor<2xf32>" in text  # the Ref's value in and out
    with pytest.raises(ValueError, match="cannot export a function of Ref arguments or closed-over Refs"):
        jaxc.jit(lambda q: q[...]).lower(r).export("unused.aot")
    with pytest.raises(NotImplementedError, match="cond_fun wrote a Ref made outside it"):
        lax.while_loop(lambda i: (r.__setitem__(0, 1.0), i < 3)[1], lambda i: i + 1, 0)
    np.testing.assert_array_equal(r[...], [0, 0])
    from jaxc.experimental import checkify
    c = jaxc.new_ref(jnp.int32(0))
    checkify.checkify(lambda x: lax.fori_loop(0, 3, lambda i, v: (c.__setitem__(..., c[...] + 1), v)[1], x))(
        jnp.int32(5))
    assert int(c[...]) == 3
