"""make_jaxpr, eval_shape, ShapeDtypeStruct, typeof, device_get; the device
attributes of Array; tracer reprs; NumPy 2's __array__ protocol. Expected
values are JAX 0.10.2's (checked against JAX itself where it is installed)."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.core import ShapedArray

S = jaxc.ShapeDtypeStruct


# -- ShapeDtypeStruct ---------------------------------------------------------

def test_shape_dtype_struct_fields_repr_and_equality() -> None:
    s = S([3, 4], "float32")
    assert s.shape == (3, 4) and s.dtype == np.float32 and isinstance(s.dtype, np.dtype)
    assert (s.ndim, s.size, len(s), s.sharding, s.weak_type) == (2, 12, 3, None, False)
    assert repr(s) == str(s) == "ShapeDtypeStruct(shape=(3, 4), dtype=float32)"
    assert repr(S((), np.float32, weak_type=True)) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert repr(S((), np.float64)) == "ShapeDtypeStruct(shape=(), dtype=float64)"  # not canonicalized
    assert s == S((3, 4), np.float32) and hash(s) == hash(S((3, 4), np.float32))
    assert s != S((3, 4), np.float32, weak_type=True) and s != S((3, 4), np.int32) and s != (3, 4)
    assert len({s, S((3, 4), np.float32), S((4,), np.float32)}) == 2
    assert s.update(shape=(5,)) == S((5,), np.float32)


def test_shape_dtype_struct_bad_inputs() -> None:
    with pytest.raises(ValueError, match="dtype must be specified"):
        S((3,), None)
    with pytest.raises(TypeError, match="not iterable"):
        S(3, np.float32)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(S((), np.float32))
    with pytest.raises(TypeError, match="unknown field"):
        S((3,), np.float32).update(size=3)


# -- eval_shape ---------------------------------------------------------------

def test_eval_shape_pytrees_weak_types_and_x64_canonicalization() -> None:
    out = jaxc.eval_shape(lambda x, y: (x + y, x.sum()), S((3,), jnp.float32), 1.0)
    assert out == (S((3,), np.float32), S((), np.float32))
    assert jaxc.eval_shape(lambda x: x * 2, 1.0) == S((), np.float32, weak_type=True)
    assert jaxc.eval_shape(lambda x: x, True) == S((), np.bool_)
    assert jaxc.eval_shape(lambda x: x, 3) == S((), np.int32, weak_type=True)
    assert jaxc.eval_shape(lambda x: x, S((3,), np.float64)) == S((3,), np.float32)  # x64 off
    assert jaxc.eval_shape(lambda x: {"a": x.T}, np.ones((2, 5))) == {"a": S((5, 2), np.float32)}
    assert jaxc.eval_shape(lambda x, n: x * n, S((3,), np.int32), n=2) == S((3,), np.int32)


def test_eval_shape_takes_duck_typed_arguments_and_runs_nothing() -> None:
    class Duck:
        shape = (2,)
        dtype = np.dtype("int32")

    calls = []

    def f(x):
        calls.append(x)
        return jnp.matmul(x[:, None], x[None, :])
    assert jaxc.eval_shape(f, Duck()) == S((2, 2), np.int32)
    assert isinstance(calls[0], jaxc.core.Tracer)  # traced on an abstract value
    big = S((1 << 20, 1 << 20), np.float32)  # 4 TiB: nothing is allocated
    assert jaxc.eval_shape(lambda a: a @ a, big) == big


def test_eval_shape_inside_jit_closes_over_outer_tracers() -> None:
    seen = []

    @jaxc.jit
    def f(x):
        seen.append(jaxc.eval_shape(lambda y: {"s": y + x, "g": jaxc.grad(lambda z: (z * x).sum())(y)}, 1.0))
        return x * 2
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(3))), np.full(3, 2.0, np.float32))
    assert seen == [{"s": S((3,), np.float32), "g": S((), np.float32, weak_type=True)}]
    text = str(jaxc.make_ir(f)(jnp.ones(3)))
    assert "private" not in text  # the grad inside eval_shape left no function behind


def test_eval_shape_bad_inputs() -> None:
    with pytest.raises(TypeError, match="eval_shape\\(<lambda>\\): argument of type str"):
        jaxc.eval_shape(lambda x: x, "a")
    with pytest.raises(TypeError, match="eval_shape\\(<lambda>\\).*str 'a' is not an array"):
        jaxc.eval_shape(lambda x: "a", 1.0)
    with pytest.raises(TypeError, match="eval_shape: expected a function, got int"):
        jaxc.eval_shape(3, 1.0)


# -- make_jaxpr ---------------------------------------------------------------

def test_make_jaxpr_prints_the_ir_and_has_avals_and_consts() -> None:
    closed_over = jnp.ones(3)
    jp = jaxc.make_jaxpr(lambda y: y + closed_over)(1.0)
    text = str(jp)
    assert repr(jp) == text == str(jp.jaxpr) and "jaxc.add" in text and "func.func" in text
    assert jp.in_avals == [ShapedArray((), np.float32, True)]
    assert jp.out_avals == [ShapedArray((3,), np.float32)]
    assert len(jp.consts) == 1 and jp.consts[0] is closed_over
    assert "loc(" in jp.as_text(debug_info=True) and "loc(" not in text


def test_make_jaxpr_static_argnums_and_return_shape() -> None:
    jp, shape = jaxc.make_jaxpr(lambda y, n: {"a": y * n}, static_argnums=1, return_shape=True)(jnp.ones(3), 3)
    assert shape == {"a": S((3,), np.float32)}
    assert jp.in_avals == [ShapedArray((3,), np.float32)] and jp.consts == []
    assert "3.000000e+00" in str(jp)  # the static 3 is a constant of the IR
    jp = jaxc.make_jaxpr(lambda x: x + 1)(S((2,), np.float32))
    assert jp.in_avals == [ShapedArray((2,), np.float32)] and "tensor<2xf32>" in str(jp)
    with pytest.raises(TypeError, match="make_jaxpr\\(<lambda>\\): argument of type object"):
        jaxc.make_jaxpr(lambda x: x)([object()])
    with pytest.raises(TypeError, match="make_jaxpr: expected a function, got str"):
        jaxc.make_jaxpr("f")(1.0)


def test_make_jaxpr_matches_jax_avals() -> None:
    jax = pytest.importorskip("jax")
    f = lambda x, y: ((x * y).sum(), x)  # noqa: E731
    args = (np.ones(3, np.float32), 2.0)
    ours, theirs = jaxc.make_jaxpr(f)(*args), jax.make_jaxpr(f)(*args)
    assert [repr(a) for a in ours.in_avals] == [repr(a) for a in theirs.in_avals]
    assert [repr(a) for a in ours.out_avals] == [repr(a) for a in theirs.out_avals]
    s = jax.ShapeDtypeStruct((3,), np.float32, weak_type=True)
    assert repr(S((3,), np.float32, weak_type=True)) == repr(s)
    assert repr(jaxc.eval_shape(f, *args)) == repr(jax.eval_shape(f, *args))


# -- jit(f).lower with ShapeDtypeStruct -----------------------------------------

def test_lower_accepts_shape_dtype_struct() -> None:
    f = jaxc.jit(lambda x, n: x * n, static_argnums=1)
    lowered = f.lower(S((3,), jnp.float32), 2)
    assert "tensor<3xf32>" in lowered.as_text()
    compiled = lowered.compile()
    np.testing.assert_array_equal(np.asarray(compiled(jnp.ones(3))), np.full(3, 2.0, np.float32))  # dynamic args only
    f(jnp.ones(3), 2)
    assert f.trace_count == 1  # the lowered signature is the call's
    with pytest.raises(TypeError, match="ShapeDtypeStruct is not a valid jaxc type"):
        jaxc.jit(lambda x: x)(S((3,), jnp.float32))  # only traced, never called with one


# -- typeof, device_get -------------------------------------------------------

def test_typeof() -> None:
    assert jaxc.typeof(jnp.ones(3)) == ShapedArray((3,), np.float32)
    assert repr(jaxc.typeof(1.0)) == "ShapedArray(float32[], weak_type=True)"
    assert jaxc.typeof(np.float64(1)) == ShapedArray((), np.float32)  # canonicalized, not weak
    assert jaxc.typeof(np.arange(4, dtype=np.int8)) == ShapedArray((4,), np.int8)
    seen = []
    jaxc.jit(lambda x: seen.append(jaxc.typeof(x)) or x)(jnp.ones((2, 3)))
    assert seen == [ShapedArray((2, 3), np.float32)]
    with pytest.raises(TypeError, match="typeof: str 'a' is not an array"):
        jaxc.typeof("a")
    with pytest.raises(TypeError, match="typeof: list"):
        jaxc.typeof([1.0])


def test_device_get() -> None:
    x = jnp.arange(3.0)
    out = jaxc.device_get({"a": x, "b": 1, "c": "s", "d": None, "e": (np.ones(2), x * 2)})
    assert type(out["a"]) is np.ndarray and out["a"].dtype == np.float32
    np.testing.assert_array_equal(out["a"], [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(out["e"][1], [0.0, 2.0, 4.0])
    assert (out["b"], out["c"], out["d"]) == (1, "s", None) and type(out["e"][0]) is np.ndarray
    assert type(jaxc.device_get(jnp.float32(1))) is np.ndarray
    with pytest.raises(TypeError, match="needs a concrete value"):
        jaxc.jit(lambda x: jaxc.device_get(x))(x)


# -- tracer reprs -------------------------------------------------------------

def test_tracer_repr_like_jax_jit_tracers() -> None:
    seen = []

    def f(x):
        seen.append((repr(x), str(x), f"{x}"))
        return x * 2
    jaxc.jit(f)(jnp.ones(3))
    jaxc.jit(f)(2.0)
    jaxc.jit(f)(jnp.int32(2))
    assert seen == [("JitTracer(float32[3])",) * 3, ("JitTracer(~float32[])",) * 3,
                    ("JitTracer(int32[])",) * 3]
    seen.clear()
    jaxc.grad(lambda x: f(x).sum())(jnp.ones(3))
    jaxc.vmap(f)(jnp.ones((2, 3)))
    assert [s[0] for s in seen] == ["JitTracer(float32[3])"] * 2


def test_tracer_iteration() -> None:
    seen = []

    def f(x):
        rows = list(x)
        seen.append(repr(rows[0]))
        with pytest.raises(TypeError, match="iteration over a 0-d array"):
            iter(list(rows[0])[0])
        return rows[1]
    np.testing.assert_array_equal(np.asarray(jaxc.jit(f)(jnp.arange(6.0).reshape(3, 2))), [2.0, 3.0])
    assert seen == ["JitTracer(float32[2])"]


# -- Array: devices, sharding, NumPy interop ----------------------------------

def test_array_devices_and_sharding() -> None:
    device = jaxc.devices()[0]
    x = jnp.arange(3.0)
    assert x.devices() == {device} and x.device is device
    assert x.is_fully_replicated is True and x.is_fully_addressable is True
    sharding = x.sharding
    assert sharding.device_set == {device} and sharding.addressable_devices == {device}
    assert sharding == jnp.ones(2).sharding and hash(sharding) == hash(jnp.ones(2).sharding)
    assert repr(sharding) == f"SingleDeviceSharding(device={device!r}, memory_kind=device)"
    assert x.addressable_data(0) is x
    with pytest.raises(IndexError, match="shard index 1 out of range"):
        x.addressable_data(1)


def test_elements_of_an_iterated_array_convert_to_numpy() -> None:
    elements = list(jnp.arange(3.0))
    assert all(isinstance(e, jaxc.Array) and e.shape == () for e in elements)
    value = np.asarray(elements[1])
    assert type(value) is np.ndarray and value.shape == () and value == 1.0
    assert np.asarray(list(jnp.ones((2, 3)))[1]).shape == (3,)
    assert float(elements[2]) == 2.0 and repr(elements[0]) == "Array(0., dtype=float32)"


def test_array_protocol_follows_numpy_2() -> None:
    x = jnp.arange(3.0)
    shared = np.asarray(x)
    assert not shared.flags.writeable  # the Array's own (immutable) value
    assert np.asarray(x, copy=False) is shared  # no copy needed: none made
    fresh = np.array(x, copy=True)
    assert fresh.flags.writeable and not np.shares_memory(fresh, shared)
    fresh[0] = 7.0
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])
    converted = np.asarray(x, dtype=np.int32)
    assert converted.dtype == np.int32 and converted.tolist() == [0, 1, 2]
    assert x.__array__(np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="Unable to avoid copy.*float32 converted to int32"):
        np.asarray(x, dtype=np.int32, copy=False)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        x.__array__(np.int32, copy=False)
