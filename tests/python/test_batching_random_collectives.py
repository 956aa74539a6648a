"""vmap of random_bits (batched keys) and of the collectives over the named
axis (passes/batching/random.py, passes/batching/collectives.py,
jaxc.lax psum/pmax/pmin/pmean/all_gather/all_to_all/ppermute/axis_index).

random_bits is checked against the Python loop (batching_util.check_vmap);
the collectives cannot run in the loop, so they are checked against NumPy
references written out per lane."""
from __future__ import annotations

import numpy as np
import pytest
from batching_util import check_vmap
from mlir import ir

import jaxc
from jaxc import lax
from jaxc.dialect import make_context
from jaxc.passes import stages

RNG = np.random.default_rng(0)
KEYS = np.array([[0, 1], [5, 7], [0x12345678, 1701], [0xFFFFFFFF, 3]], np.uint32)


def transformed(f, *args) -> str:
    """The module of jit(f)(*args) after the transformed stage."""
    module = ir.Module.parse(str(jaxc.make_ir(f)(*args)), make_context())
    return str(stages.run_stages(module, "transformed"))


# ---------------------------------------------------------------------------
# random_bits
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("width", [8, 16, 32, 64])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_random_bits_per_lane_key(width, shape):
    check_vmap(lambda k: lax.random_bits(k, width, shape), [KEYS], exact=True)


def test_random_bits_keys_on_axis_1_out_axis_1():
    check_vmap(lambda k: lax.random_bits(k, 32, (4,)), [KEYS.T.copy()], in_axes=1, out_axes=1, exact=True)


def test_random_bits_uint64(x64):
    check_vmap(lambda k: lax.random_bits(k, 64, (2, 3)), [KEYS], exact=True)


def test_random_bits_wide_counter_path(x64, monkeypatch):
    """Results of 2**32 or more elements split a 64-bit counter into words;
    forced on a small result, that path gives the same bits."""
    from jaxc.passes.batching import random as rule
    monkeypatch.setattr(rule, "WIDE_COUNTER_ELEMENTS", 0)
    f = lambda k: lax.random_bits(k, 16, (3, 1, 2))  # noqa: E731
    assert "tensor<6xui64>" in transformed(jaxc.vmap(f), KEYS)
    check_vmap(f, [KEYS], exact=True)


def test_random_bits_no_loop_over_lanes():
    text = transformed(jaxc.vmap(lambda k: lax.random_bits(k, 32, (3,))), KEYS)
    text = text.split("func.func private")[0]  # the jitted function (the callees stay behind)
    assert "jaxc.random_bits" not in text and text.count("jaxc.threefry2x32") == 1


def _uniform(key, shape):
    """[0, 1) floats from 23 random mantissa bits."""
    bits = lax.shift_right_logical(lax.random_bits(key, 32, shape), np.uint32(9))
    one = lax.bitcast_convert_type(lax.bitwise_or(bits, np.uint32(0x3F800000)), np.float32)
    return one - np.float32(1)


def _normal(key, shape):
    u = _uniform(key, shape) * np.float32(2) - np.float32(1 - 1e-7)
    return np.float32(np.sqrt(2)) * lax.erf_inv(u)


def test_random_functions_built_on_random_bits():
    check_vmap(lambda k: _normal(k, (3,)), [KEYS], rtol=1e-6, atol=1e-6)
    check_vmap(lambda k, x: x + _uniform(k, (2,)), [KEYS, RNG.normal(size=(2,)).astype(np.float32)],
               in_axes=(0, None))


def test_random_bits_nested_vmap():
    keys = np.stack([KEYS, KEYS[::-1] + np.uint32(9)])  # (2, 4, 2)
    got = jaxc.vmap(jaxc.vmap(lambda k: lax.random_bits(k, 32, (3,))))(keys)
    one = jaxc.jit(lambda k: lax.random_bits(k, 32, (3,)))
    want = np.array([[np.asarray(one(k)) for k in row] for row in keys])
    np.testing.assert_array_equal(np.asarray(got), want)


def test_jaxc_random_under_vmap():
    random = pytest.importorskip("jaxc.random")
    keys = random.split(random.PRNGKey(0), 3)
    got = jaxc.vmap(lambda k: random.normal(k, (3,)))(keys)
    want = np.stack([np.asarray(random.normal(k, (3,))) for k in keys])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

X = RNG.normal(size=(4, 3)).astype(np.float32)
XI = RNG.integers(-5, 5, size=(4, 3)).astype(np.int32)


def test_psum_normalizes():
    got = jaxc.vmap(lambda v: v / lax.psum(v, "i"), axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), X / X.sum(0), rtol=1e-5)


@pytest.mark.parametrize("name,ref", [("psum", np.sum), ("pmax", np.max), ("pmin", np.min),
                                      ("pmean", np.mean)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_all_reduce(name, ref, dtype):
    x = (X * 10 if dtype == np.float32 else XI).astype(dtype)
    op = getattr(lax, name)
    got = np.asarray(jaxc.vmap(lambda v: op(v, "i"), axis_name="i", out_axes=None)(x))
    want = ref(x, axis=0)
    if name == "pmean":
        assert got.dtype == np.float32  # integers give floats, as JAX
    else:
        assert got.dtype == dtype
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=1e-5)
    # every lane sees it
    lanes = np.asarray(jaxc.vmap(lambda v: op(v, "i"), axis_name="i", out_axes=1)(x))
    np.testing.assert_allclose(lanes, np.stack([want.astype(got.dtype)] * 4, axis=1), rtol=1e-5)


def test_psum_in_axes_1_and_pytree():
    xt = X.T.copy()  # (3, 4): mapped along axis 1
    got = jaxc.vmap(lambda v, w: lax.psum({"a": v, "b": (w, v * 2)}, "i"), in_axes=(1, 0),
                    axis_name="i", out_axes=None)(xt, XI)
    np.testing.assert_allclose(np.asarray(got["a"]), X.sum(0), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(got["b"][0]), XI.sum(0))
    np.testing.assert_allclose(np.asarray(got["b"][1]), 2 * X.sum(0), rtol=1e-5)


def test_psum_of_unbatched_value_is_size_times_it():
    w = np.array([1.5, -2.0], np.float32)
    got = jaxc.vmap(lambda v, w: (lax.psum(w, "i"), lax.pmax(w, "i"), lax.pmean(w, "i")),
                    in_axes=(0, None), axis_name="i", out_axes=None)(X, w)
    np.testing.assert_allclose(np.asarray(got[0]), 4 * w)
    np.testing.assert_allclose(np.asarray(got[1]), w)
    np.testing.assert_allclose(np.asarray(got[2]), w)


def test_psum_of_python_scalar_is_concrete():
    sizes = []

    def f(v):
        n = lax.psum(1, "i")
        sizes.append(n)
        return v * lax.pmean(2.0, "i") / n
    got = jaxc.vmap(f, axis_name="i")(X)
    assert sizes == [4] and type(sizes[0]) is int
    np.testing.assert_allclose(np.asarray(got), X / 2, rtol=1e-6)


def test_psum_of_bools_counts():
    got = jaxc.vmap(lambda v: lax.psum(v > 0, "i"), axis_name="i", out_axes=None)(X)
    assert np.asarray(got).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), (X > 0).sum(0))


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------

Y = RNG.normal(size=(4, 2, 3)).astype(np.float32)  # 4 lanes of (2, 3)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("tiled", [False, True])
def test_all_gather(axis, tiled):
    if tiled and axis == 2:
        pytest.skip("tiled: the axis must exist")
    got = np.asarray(jaxc.vmap(lambda v: lax.all_gather(v, "i", axis=axis, tiled=tiled), axis_name="i",
                               out_axes=None)(Y))
    lanes = list(Y)
    want = np.concatenate(lanes, axis=axis) if tiled else np.stack(lanes, axis=axis)
    np.testing.assert_array_equal(got, want)


def test_all_gather_of_unbatched_value_and_batched_output():
    w = np.arange(3, dtype=np.float32)
    got = jaxc.vmap(lambda v, w: v.sum() + lax.all_gather(w, "i"), in_axes=(0, None), axis_name="i")(X, w)
    want = X.sum(1)[:, None, None] + np.stack([w] * 4)[None]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def _all_to_all_ref(x, split, concat, tiled):
    size = x.shape[0]
    out = []
    for i in range(size):
        if tiled:
            pieces = [np.split(x[j], size, axis=split)[i] for j in range(size)]
            out.append(np.concatenate(pieces, axis=concat))
        else:
            out.append(np.stack([np.take(x[j], i, axis=split) for j in range(size)], axis=concat))
    return np.stack(out)


@pytest.mark.parametrize("split,concat", [(0, 0), (0, 1), (1, 0), (1, 2), (2, 0)])
@pytest.mark.parametrize("tiled", [True, False])
def test_all_to_all(split, concat, tiled):
    shape = [2, 3, 5]
    if tiled:
        shape[split] = 8
    else:
        shape[split] = 4
        if concat > 1:  # untiled: concat_axis counts in the output's rank
            concat = 1
    x = RNG.normal(size=(4, *shape)).astype(np.float32)
    got = jaxc.vmap(lambda v: lax.all_to_all(v, "i", split, concat, tiled=tiled), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(got), _all_to_all_ref(x, split, concat, tiled))


def test_all_to_all_out_axis_1_of_unbatched_value():
    w = RNG.normal(size=(4, 2)).astype(np.float32)
    got = jaxc.vmap(lambda v, w: lax.all_to_all(w, "i", 0, 1), in_axes=(0, None), axis_name="i",
                    out_axes=1)(X, w)
    want = _all_to_all_ref(np.stack([w] * 4), 0, 1, False)
    np.testing.assert_array_equal(np.asarray(got), np.moveaxis(want, 0, 1))


@pytest.mark.parametrize("perm", [[(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 1), (1, 2), (2, 3)],
                                  [(3, 0)], [], [(0, 0), (1, 1), (2, 2), (3, 3)]])
def test_ppermute(perm):
    got = np.asarray(jaxc.vmap(lambda v: lax.ppermute(v, "i", perm), axis_name="i")(XI))
    want = np.zeros_like(XI)
    for s, d in perm:
        want[d] = XI[s]
    np.testing.assert_array_equal(got, want)


def test_ppermute_of_unbatched_value():
    w = np.array([1.0, 2.0], np.float32)
    f = lambda perm: jaxc.vmap(lambda v, w: lax.ppermute(w, "i", perm), in_axes=(0, None),  # noqa: E731
                               axis_name="i")(X, w)
    np.testing.assert_array_equal(np.asarray(f([(0, 1), (1, 0), (2, 3), (3, 2)])), np.stack([w] * 4))
    np.testing.assert_array_equal(np.asarray(f([(0, 2)])), np.array([[0, 0], [0, 0], [1, 2], [0, 0]]))


def test_axis_index():
    got = jaxc.vmap(lambda v: v * lax.axis_index("i"), axis_name="i", in_axes=1, out_axes=1)(XI.T)
    np.testing.assert_array_equal(np.asarray(got), XI.T * np.arange(4))
    idx = jaxc.vmap(lambda v: lax.axis_index("i"), axis_name="i")(X)
    assert np.asarray(idx).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(idx), np.arange(4))


def test_collectives_inside_jit_inside_vmap():
    f = jaxc.jit(lambda v: v - lax.pmean(v, "i"))
    got = jaxc.vmap(f, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), X - X.mean(0), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Nested vmaps: two names
# ---------------------------------------------------------------------------

Z = RNG.normal(size=(2, 3, 4)).astype(np.float32)  # outer i (2), inner j (3)


def nested(f, z=Z, **kw):
    return np.asarray(jaxc.vmap(jaxc.vmap(f, axis_name="j", **kw), axis_name="i")(z))


def test_nested_psum_over_each_name_and_both():
    np.testing.assert_allclose(nested(lambda v: lax.psum(v, "i")), np.broadcast_to(Z.sum(0), Z.shape),
                               rtol=1e-5)
    np.testing.assert_allclose(nested(lambda v: lax.psum(v, "j")),
                               np.broadcast_to(Z.sum(1, keepdims=True), Z.shape), rtol=1e-5)
    np.testing.assert_allclose(nested(lambda v: lax.psum(v, ("i", "j"))),
                               np.broadcast_to(Z.sum((0, 1)), Z.shape), rtol=1e-5)
    np.testing.assert_allclose(nested(lambda v: lax.pmax(v, ("j", "i"))),
                               np.broadcast_to(Z.max((0, 1)), Z.shape))


def test_nested_axis_index():
    got = nested(lambda v: lax.axis_index("i") * 10 + lax.axis_index("j"))
    np.testing.assert_array_equal(got, np.arange(2)[:, None] * 10 + np.arange(3))
    np.testing.assert_array_equal(nested(lambda v: lax.axis_index(("i", "j"))), np.arange(6).reshape(2, 3))


def test_nested_all_gather_and_ppermute_over_the_outer_name():
    got = nested(lambda v: lax.all_gather(v, "i"))  # (2, 3, 2, 4): lane (i, j) holds Z[:, j]
    np.testing.assert_array_equal(got, np.broadcast_to(np.moveaxis(Z, 0, 1)[None], (2, 3, 2, 4)))
    got = nested(lambda v: lax.ppermute(v, "i", [(0, 1)]))
    np.testing.assert_array_equal(got, np.stack([np.zeros_like(Z[0]), Z[0]]))


def test_shadowed_name_binds_the_innermost():
    got = np.asarray(jaxc.vmap(jaxc.vmap(lambda v: lax.psum(v, "i"), axis_name="i"), axis_name="i")(Z))
    np.testing.assert_allclose(got, np.broadcast_to(Z.sum(1, keepdims=True), Z.shape), rtol=1e-5)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_unbound_axis_name_names_the_line():
    with pytest.raises(NameError, match=r"test_batching_random_collectives.py:\d+: unbound axis name: j"):
        jaxc.vmap(lambda v: lax.psum(v, "j"), axis_name="i")(X)
    with pytest.raises(NameError, match="unbound axis name: i"):
        jaxc.jit(lambda v: lax.axis_index("i"))(X)
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.pmax(X, "i")
    with pytest.raises(NameError, match="unbound axis name: k"):
        nested(lambda v: lax.all_gather(v, ("i", "k")))


def test_unnamed_vmap_binds_no_name():
    with pytest.raises(NameError, match=r"unbound axis name: i\. .*available .*: \[\]"):
        jaxc.vmap(lambda v: lax.psum(v, "i"))(X)


def test_argument_errors():
    with pytest.raises(ValueError, match="unique"):
        jaxc.vmap(lambda v: lax.ppermute(v, "i", [(0, 1), (2, 1)]), axis_name="i")(X)
    with pytest.raises(ValueError, match="out of range"):
        jaxc.vmap(lambda v: lax.ppermute(v, "i", [(0, 4)]), axis_name="i")(X)
    with pytest.raises(ValueError, match=r"to equal x.shape\[split_axis\] \(3\)"):
        jaxc.vmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(X)
    with pytest.raises(ValueError, match="divisible"):
        jaxc.vmap(lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True), axis_name="i")(X)
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        jaxc.vmap(lambda v: lax.all_gather(v, "i", axis_index_groups=[[0, 1], [2, 3]], to="invarying"),
                  axis_name="i")(X)
    with pytest.raises(ValueError, match="axis_index_groups must cover all indices exactly once"):
        jaxc.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [1, 2]]), axis_name="i")(X)
    with pytest.raises(ValueError, match="axis_index_groups cover 2 members, but the axis i has 4"):
        jaxc.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0], [1]]), axis_name="i")(X)


def test_data_movement_over_several_names():
    """Members of ("i", "j") are numbered i-major (jaxc.lax writes these
    as single-axis collectives)."""
    flat = Z.reshape(-1, *Z.shape[2:])  # member k = (k // J, k % J)
    gathered = nested(lambda v: lax.all_gather(v, ("i", "j")))
    np.testing.assert_array_equal(gathered, np.broadcast_to(flat, Z.shape[:2] + flat.shape))
    n = flat.shape[0]
    perm = [(k, (k + 1) % n) for k in range(n)]
    moved = nested(lambda v: lax.ppermute(v, ("i", "j"), perm))
    np.testing.assert_array_equal(moved.reshape(flat.shape), np.roll(flat, 1, 0))


def _run_batch(text: str) -> str:
    module = ir.Module.parse(text, make_context())
    return str(stages.run_stages(module, "transformed"))


def test_pass_rejects_an_axis_no_vmap_binds():
    text = """
    func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
      %0 = jaxc.psum %x, axes = ["k"] : tensor<3xf32>
      return %0 : tensor<3xf32>
    }
    func.func @main(%xs: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [0] axis_size = 4 axis_name = "i"
             : (tensor<4x3xf32>) -> tensor<4x3xf32>
      return %0 : tensor<4x3xf32>
    }"""
    with pytest.raises(Exception, match="names the axis 'k', which no enclosing vmap binds"):
        _run_batch(text)


def test_pass_rejects_a_wrong_axis_size():
    text = """
    func.func private @f(%x: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = jaxc.all_gather %x, axes = ["i"], dim = 0, axis_size = 2 : tensor<3xf32> -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }
    func.func @main(%xs: tensor<4x3xf32>) -> tensor<2x3xf32> {
      %0 = jaxc.vmap @f(%xs) in_axes = [0] out_axes = [-1] axis_size = 4 axis_name = "i"
             : (tensor<4x3xf32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }"""
    with pytest.raises(Exception, match="axis_size = 2 but the vmap of axis 'i' has size 4"):
        _run_batch(text)
