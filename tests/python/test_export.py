"""`jaxc.export`: export, serialize, deserialize (also in another process)
and call, as JAX's `jax.export`; the calls checked against the function
itself and, for derivatives, against finite differences."""
from __future__ import annotations

import collections
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import export

F32 = np.float32


def affine(x, p):
    return 2 * x * x + p["b"], jnp.sum(x)


def exported_affine():
    return export.export(jaxc.jit(affine))(jaxc.ShapeDtypeStruct((3,), F32), {"b": jaxc.ShapeDtypeStruct((), F32)})


X = np.arange(3, dtype=F32)
P = {"b": F32(1.5)}


def test_fields():
    ex = exported_affine()
    assert ex.fun_name == "affine" and ex.platforms == ("cpu",) and ex.nr_devices == 1
    assert ex.in_tree == jaxc.tree_util.tree_structure(((X, P), {}))
    assert [(a.shape, a.dtype) for a in ex.in_avals] == [((3,), np.float32), ((), np.float32)]
    assert [(a.shape, a.dtype) for a in ex.out_avals] == [((3,), np.float32), ((), np.float32)]
    assert "func.func @jit_affine" in ex.mlir_module() and ex.has_vjp()
    assert export.default_export_platform() == "cpu"


def test_serialize_round_trip_and_call():
    again = export.deserialize(exported_affine().serialize())
    want = affine(X, P)
    for got in (again.call(X, P), jaxc.jit(again.call)(X, P)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    assert again.in_tree == exported_affine().in_tree and again.out_avals == exported_affine().out_avals


def test_the_call_transforms_like_traced_code():
    ex = export.deserialize(exported_affine().serialize())
    g = jaxc.grad(lambda x: ex.call(x, P)[0].sum())(X)
    np.testing.assert_allclose(g, 4 * X, rtol=1e-6)
    xs = np.arange(6, dtype=F32).reshape(2, 3)
    ys, sums = jaxc.vmap(lambda x: ex.call(x, P))(xs)
    np.testing.assert_allclose(ys, 2 * xs * xs + 1.5, rtol=1e-6)
    np.testing.assert_allclose(sums, xs.sum(1), rtol=1e-6)
    # twice in one program: each copy of the module gets its own names
    np.testing.assert_allclose(jaxc.jit(lambda x: ex.call(x, P)[1] + ex.call(x + 1, P)[1])(X), 9.0)


def test_vjp_is_an_exported_function_of_the_cotangents():
    jaxc.config.update("jax_enable_x64", True)
    try:
        def f(x):
            return jnp.sin(x) * x
        ex = export.export(jaxc.jit(f))(jaxc.ShapeDtypeStruct((4,), np.float64))
        x, ct = np.linspace(-1, 1, 4), np.array([1.0, -2.0, 0.5, 3.0])
        (x_bar,) = export.deserialize(ex.vjp().serialize()).call(x, ct)
        h = 1e-6
        fd = [(np.dot(ct, f(x + h * e)) - np.dot(ct, f(x - h * e))) / (2 * h) for e in np.eye(4)]
        np.testing.assert_allclose(x_bar, fd, rtol=1e-7)
    finally:
        jaxc.config.update("jax_enable_x64", False)


def test_closed_over_arrays_and_static_arguments_are_kept():
    w = jnp.arange(3.0)
    ex = export.deserialize(export.export(jaxc.jit(lambda x, k: x * w + k, static_argnums=1))(
        jaxc.ShapeDtypeStruct((3,), F32), 10).serialize())
    np.testing.assert_allclose(ex.call(X), X * np.arange(3.0) + 10)


def test_float0_results_and_registered_pytree_nodes():
    Pair = collections.namedtuple("Pair", "value count")
    export.register_namedtuple_serialization(Pair, serialized_name="test_export.Pair")
    f = jaxc.grad(lambda p: p.value * jnp.sum(p.count), allow_int=True)
    ex = export.export(jaxc.jit(f))(Pair(jaxc.ShapeDtypeStruct((), F32), jaxc.ShapeDtypeStruct((2,), np.int32)))
    g = export.deserialize(ex.serialize()).call(Pair(F32(2.0), np.array([1, 2], np.int32)))
    assert isinstance(g, Pair)
    np.testing.assert_allclose(g.value, 3.0)
    assert g.count.dtype == jaxc.dtypes.float0 and g.count.shape == (2,)


def test_in_another_process(tmp_path):
    path = tmp_path / "affine.bin"
    path.write_bytes(exported_affine().serialize())
    code = textwrap.dedent(f"""
        import numpy as np
        from jaxc import export
        ex = export.deserialize(open({str(path)!r}, "rb").read())
        y, s = ex.call(np.arange(3, dtype=np.float32), {{"b": np.float32(1.5)}})
        print(*[float(v) for v in np.asarray(y)], float(s))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert [float(v) for v in proc.stdout.split()] == [1.5, 3.5, 9.5, 3.0]


# ---------------------------------------------------------------- errors

def test_only_jit_functions_are_exported():
    with pytest.raises(ValueError, match="must be the result of `jit`"):
        export.export(affine)
    with pytest.raises(ValueError, match="unsupported platform 'tpu'"):
        export.export(jaxc.jit(affine), platforms=["tpu"])


def test_a_call_of_another_structure_or_type_is_a_value_error():
    ex = exported_affine()
    with pytest.raises(ValueError, match="same pytree structure"):
        ex.call(X, (F32(1.0),))
    with pytest.raises(ValueError, match=r"argument 0 has type float32\[4\], but the function was exported for "
                                         r"float32\[3\]"):
        ex.call(np.zeros(4, F32), P)
    with pytest.raises(ValueError, match=r"argument 1 has type int32\[\]"):
        ex.call(X, {"b": np.int32(1)})


def test_damaged_or_foreign_bytes_are_a_value_error():
    blob = exported_affine().serialize()
    with pytest.raises(ValueError, match="not a serialized jaxc Exported"):
        export.deserialize(b"\x08\x01 a flatbuffer")
    damaged = bytearray(blob)
    damaged[len(export.MAGIC) + 10] = 0xFF  # not UTF-8
    with pytest.raises(ValueError, match="header is damaged"):
        export.deserialize(damaged)
    with pytest.raises(ValueError, match="is damaged"):
        export.deserialize(blob[:len(blob) // 2])  # truncated in the header
    with pytest.raises(ValueError, match="is damaged"):
        export.deserialize(blob[:-40])  # truncated in the arrays


def test_an_unregistered_pytree_node_is_a_value_error():
    class Box:
        def __init__(self, v):
            self.v = v

    jaxc.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(c[0]))
    ex = export.export(jaxc.jit(lambda b: b.v + 1))(Box(jaxc.ShapeDtypeStruct((), F32)))
    with pytest.raises(ValueError, match="unregistered type .*Box"):
        ex.serialize()
    export.register_pytree_node_serialization(Box, serialized_name="test_export.Box",
                                              serialize_auxdata=lambda aux: b"",
                                              deserialize_auxdata=lambda data: None)
    np.testing.assert_allclose(export.deserialize(ex.serialize()).call(Box(F32(1.0))), 2.0)


def test_against_jax():
    jax = pytest.importorskip("jax")
    ref = jax.export.export(jax.jit(lambda x, p: (2 * x * x + p["b"], jax.numpy.sum(x))))(
        jax.ShapeDtypeStruct((3,), F32), {"b": jax.ShapeDtypeStruct((), F32)})
    ex = exported_affine()
    def same(ours, theirs):  # jaxc's treedefs print as optree's PyTreeSpec(...), JAX's as PyTreeDef(...)
        return str(ours).removeprefix("PyTreeSpec") == str(theirs).removeprefix("PyTreeDef")
    assert same(ex.in_tree, ref.in_tree) and same(ex.out_tree, ref.out_tree)
    assert [(a.shape, a.dtype) for a in ex.in_avals] == [(a.shape, a.dtype) for a in ref.in_avals]
    for g, w in zip(export.deserialize(ex.serialize()).call(X, P), ref.call(X, P)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_repeated_call_compiles_once():
    from jaxc.runtime import cpu
    ex = export.deserialize(exported_affine().serialize())
    ex.call(X, P)
    before = cpu.compile_count
    ex.call(X + 1, P)
    assert cpu.compile_count == before
