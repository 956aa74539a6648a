"""JAX's exception types and index semantics (issue #18, item 4).

Every expectation here is what JAX 0.10.2 does (checked against the
installed JAX, and compared with it directly where it is importable):
shape errors of binary ops (operands of equal rank), dot, matmul, reshape
and concatenate are TypeError, those of where/stack/broadcast_* and of
binary ops whose operands' ranks differ ValueError; static
out-of-range integer indices clamp; out-of-range updates are dropped;
lists are refused where JAX's `check_arraylike` refuses them; integers
cannot be raised to negative static powers.
"""
import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax


def _assert_equal(actual, expected):
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


# ---------------------------------------------------------------------------
# 1. Shape errors
# ---------------------------------------------------------------------------

SHAPE_ERRORS = [
    # (what, call, JAX's exception type, a piece of jaxc's message)
    ("x + y", lambda: jnp.ones(3) + jnp.ones(4), TypeError, r"jnp.add: incompatible shapes .* \(3,\), \(4,\)"),
    ("add", lambda: jnp.add(jnp.ones(3), jnp.ones(4)), TypeError, "jnp.add: incompatible shapes"),
    # ranks that differ: jnp's rank promotion raises ValueError in JAX
    ("add ranks", lambda: jnp.add(jnp.ones((3, 4)), jnp.ones(3)), ValueError, "jnp.add: incompatible shapes"),
    ("x * y ranks", lambda: jnp.ones((2, 1, 3)) * jnp.ones((4, 2)), ValueError, "jnp.multiply: incompatible"),
    ("ldexp ranks", lambda: jnp.ldexp(jnp.ones((3, 4)), jnp.ones(3, np.int32)), ValueError, "jnp.ldexp"),
    ("ldexp", lambda: jnp.ldexp(jnp.ones(3), jnp.ones(4, np.int32)), TypeError, "jnp.ldexp"),
    ("dynamic_slice starts", lambda: lax.dynamic_slice(jnp.ones((3, 4)), (0,), (2,)), ValueError,
     r"length of slice indices must match number of operand dimensions \(1 vs \(3, 4\)\)"),
    ("dynamic_update_slice starts", lambda: lax.dynamic_update_slice(jnp.ones((3, 4)), jnp.ones((3, 4)), (0,)),
     ValueError, "lax.dynamic_update_slice: length of slice indices"),
    ("isclose", lambda: jnp.isclose(jnp.ones(3), jnp.ones(4)), TypeError, "jnp.isclose: incompatible"),
    ("clip", lambda: jnp.clip(jnp.ones(3), jnp.ones(4)), TypeError, "incompatible shapes"),
    ("ldexp", lambda: jnp.ldexp(jnp.ones(3), jnp.ones(4, np.int32)), TypeError, "jnp.ldexp: incompatible"),
    ("dot", lambda: jnp.dot(jnp.ones((2, 3)), jnp.ones((4, 2))), TypeError, r"jnp.dot: shapes \(2, 3\) and \(4, 2\)"),
    ("matmul", lambda: jnp.ones((2, 3)) @ jnp.ones((4, 2)), TypeError, "jnp.matmul: contracting dimensions differ"),
    ("vdot", lambda: jnp.vdot(jnp.ones(3), jnp.ones(4)), TypeError, "jnp.vdot: operands must have the same size"),
    ("inner", lambda: jnp.inner(jnp.ones(3), jnp.ones(4)), TypeError, "jnp.inner: shapes"),
    ("tensordot", lambda: jnp.tensordot(jnp.ones(3), jnp.ones(4), 1), TypeError, "jnp.tensordot: shapes"),
    ("reshape", lambda: jnp.ones(6).reshape(4), TypeError, r"jnp.reshape: cannot reshape array of shape \(6,\)"),
    ("reshape -1 -1", lambda: jnp.ones(6).reshape(-1, -1), TypeError, "one unknown dimension"),
    ("reshape negative", lambda: jnp.ones(6).reshape(-2, -3), TypeError, "negative dimension"),
    ("concatenate", lambda: jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))]), TypeError,
     "jnp.concatenate: arrays must have the same shape except along axis 0"),
    ("concatenate ranks", lambda: jnp.concatenate([jnp.ones((2, 3)), jnp.ones(3)]), TypeError,
     "same number of dimensions"),
    ("hstack", lambda: jnp.hstack([jnp.ones((2, 3)), jnp.ones((3, 3))]), TypeError, "except along axis 1"),
    ("lax.add", lambda: lax.add(jnp.ones(3), jnp.ones(4)), TypeError, r"lax.add got incompatible shapes"),
    ("lax.select", lambda: lax.select(jnp.ones(3) > 0, jnp.ones(3), jnp.ones(4)), TypeError, "lax.select"),
    ("lax.dot_general", lambda: lax.dot_general(jnp.ones(3), jnp.ones(4), (((0,), (0,)), ((), ()))),
     TypeError, "contracting dimension"),
    ("lax.concatenate", lambda: lax.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))], 0), TypeError,
     "concatenate"),
    ("lax.reshape", lambda: lax.reshape(jnp.ones(6), (4,)), TypeError, "lax.reshape: cannot reshape"),
    # ValueError in JAX: the broadcasting of where, select, stack, broadcast_*
    ("where", lambda: jnp.where(jnp.ones(3) > 0, jnp.ones(4), 0.0), ValueError,
     "jnp.where: incompatible shapes"),
    ("where x y", lambda: jnp.where(True, jnp.ones(3), jnp.ones(4)), ValueError, "jnp.where: incompatible"),
    ("stack", lambda: jnp.stack([jnp.ones(3), jnp.ones(4)]), ValueError, "jnp.stack: all input arrays"),
    ("broadcast_to", lambda: jnp.broadcast_to(jnp.ones(3), (4,)), ValueError, "jnp.broadcast_to"),
    ("broadcast_shapes", lambda: jnp.broadcast_shapes((3,), (4,)), ValueError, "incompatible shapes"),
    ("broadcast_arrays", lambda: jnp.broadcast_arrays(jnp.ones(3), jnp.ones(4)), ValueError,
     "incompatible shapes"),
    ("vecdot", lambda: jnp.vecdot(jnp.ones(3), jnp.ones(4)), ValueError, "jnp.vecdot: the sizes along axis=-1"),
    ("matmul batch", lambda: jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))), ValueError,
     "batch dimensions"),
    ("index arrays", lambda: jnp.zeros((3, 3))[jnp.array([0, 1]), jnp.array([0, 1, 2])], ValueError,
     r"shape mismatch: .* \(2,\) \(3,\)"),
]


@pytest.mark.parametrize("what, call, error, message", SHAPE_ERRORS, ids=[c[0] for c in SHAPE_ERRORS])
def test_shape_errors_have_jax_types(what, call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    if error is ValueError:
        assert not isinstance(info.value, TypeError)


def test_shape_errors_under_jit():
    with pytest.raises(TypeError, match="jnp.add: incompatible shapes"):
        jaxc.jit(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match="jnp.reshape: cannot reshape"):
        jaxc.jit(lambda a: a.reshape(4))(jnp.ones(6))


def test_shape_error_types_match_jax():
    jax = pytest.importorskip("jax")
    jjnp = jax.numpy
    for what, call, error, _ in SHAPE_ERRORS:
        if what.startswith("lax.reshape"):
            continue  # JAX 0.10.2 reports this one from its MLIR verifier (ValueError)
        jax_call = call.__code__
        namespace = {"jnp": jjnp, "lax": jax.lax, "np": np, "jaxc": jax}
        with pytest.raises(error):
            eval(jax_call, namespace)


# ---------------------------------------------------------------------------
# 2. Static out-of-range integer indices clamp
# ---------------------------------------------------------------------------

X = np.arange(12, dtype=np.int32).reshape(3, 4)


@pytest.mark.parametrize("index, expected", [
    (11, 9), (-11, 0), (-100, 0), (np.int32(11), 9), (10, 9), (-10, 0),
])
def test_static_int_out_of_range_clamps(index, expected):
    x = jnp.arange(10)
    assert int(x[index]) == expected
    assert int(jaxc.jit(lambda v: v[index])(x)) == expected


def test_static_int_clamps_with_other_indices():
    x = jnp.asarray(X)
    assert int(x[1, 10]) == X[1, 3]
    _assert_equal(x[5, 1:3], X[2, 1:3])
    _assert_equal(x[1:3, -9], X[1:3, 0])
    _assert_equal(x[7, jnp.array([0, 1])], X[2, [0, 1]])
    _assert_equal(x[..., 9], X[:, 3])
    _assert_equal(x[5], X[2])
    _assert_equal(jnp.arange(10)[8:20], np.arange(10)[8:20])  # slices clamp as in NumPy
    _assert_equal(jnp.arange(10)[-20:3], np.arange(10)[-20:3])
    with pytest.raises(IndexError, match="size 0"):
        jnp.zeros((0,))[0]  # nothing to clamp to (IndexError in JAX too)


def test_static_int_clamps_like_jax():
    jax = pytest.importorskip("jax")
    for index in [(11,), (-11,), (5, -9), (1, 10), (7, slice(1, 3)), (Ellipsis, 9)]:
        _assert_equal(jnp.asarray(X)[index], jax.numpy.asarray(X)[index])


# ---------------------------------------------------------------------------
# 3. .at[...] with out-of-range indices and modes
# ---------------------------------------------------------------------------

def test_out_of_range_updates_are_dropped():
    x = jnp.arange(5)
    for update in ("set", "add", "multiply", "min", "max"):
        for index in (7, -7, 5, -6):
            _assert_equal(getattr(x.at[index], update)(9), np.arange(5))
    _assert_equal(x.at[-5].set(9), [9, 1, 2, 3, 4])
    _assert_equal(x.at[jnp.array([1, 7, -7, -1])].add(9), [0, 10, 2, 3, 13])
    _assert_equal(jnp.zeros((2, 3)).at[1, 5].set(1), np.zeros((2, 3)))
    _assert_equal(jnp.zeros((2, 3)).at[5].set(1), np.zeros((2, 3)))
    _assert_equal(jaxc.jit(lambda v: v.at[7].set(9))(x), np.arange(5))


def test_update_modes():
    x = jnp.arange(5)
    _assert_equal(x.at[7].set(9, mode="clip"), [0, 1, 2, 3, 9])
    _assert_equal(x.at[-7].set(9, mode="clip"), [9, 1, 2, 3, 4])  # -7 + 5 = -2, clamped to 0
    _assert_equal(x.at[jnp.array([7, -7])].add(9, mode="clip"), [9, 1, 2, 3, 13])
    _assert_equal(x.at[jnp.array([7, -7, -1])].set(9, mode="drop"), [0, 1, 2, 3, 9])
    _assert_equal(x.at[jnp.array([7, -7, -1])].set(9, mode="fill"), [0, 1, 2, 3, 9])
    _assert_equal(x.at[jnp.array([1, -1])].set(9, mode="promise_in_bounds"), [0, 9, 2, 3, 9])


def test_get_modes():
    x = jnp.arange(5.0)
    nan = np.nan
    _assert_equal(x.at[jnp.array([1, 7, -7, -1])].get(mode="fill", fill_value=nan), [1, nan, nan, 4])
    _assert_equal(x.at[7].get(mode="fill", fill_value=-1), -1.0)
    _assert_equal(x.at[-7].get(mode="fill", fill_value=-1), -1.0)
    _assert_equal(x.at[-5].get(mode="fill", fill_value=-1), 0.0)
    _assert_equal(x.at[7].get(mode="drop"), nan)  # drop reads as fill with the default NaN
    _assert_equal(x.at[7].get(mode="clip"), 4.0)
    _assert_equal(x.at[7].get(), 4.0)  # the default clamps
    _assert_equal(x.at[3].get(mode="promise_in_bounds"), 3.0)
    ints = jnp.arange(5)
    _assert_equal(ints.at[jnp.array([1, 7])].get(mode="fill"), [1, np.iinfo(np.int32).min])
    _assert_equal(ints.at[jnp.array([1, 7, -7, -1])].get(mode="clip"), [1, 4, 0, 4])
    _assert_equal(jaxc.jit(lambda v: v.at[7].get(mode="fill", fill_value=-1))(x), -1.0)


@pytest.mark.parametrize("mode", ["foo", "wrap", "raise"])
def test_bad_modes_are_value_errors(mode):
    x = jnp.arange(5)
    with pytest.raises(ValueError, match=f"x.at\\[idx\\].get: unknown mode '{mode}'"):
        x.at[1].get(mode=mode)
    with pytest.raises(ValueError, match=f"x.at\\[idx\\].set: unknown mode '{mode}'"):
        x.at[1].set(3, mode=mode)


# ---------------------------------------------------------------------------
# 4. Lists where an array is required
# ---------------------------------------------------------------------------

LIST_ERRORS = [
    ("sum", lambda: jnp.sum([1, 2, 3])),
    ("sum", lambda: jnp.sum((1, 2, 3))),
    ("mean", lambda: jnp.mean([1, 2, 3])),
    ("max", lambda: jnp.max([1, 2])),
    ("argmax", lambda: jnp.argmax([1, 2])),
    ("cumsum", lambda: jnp.cumsum([1, 2])),
    ("add", lambda: jnp.add([1, 2], [3, 4])),
    ("add", lambda: jnp.add(jnp.ones(2), [3, 4])),
    ("add", lambda: jnp.ones(2) + [1, 2]),
    ("sin", lambda: jnp.sin([1.0, 2.0])),
    ("reshape", lambda: jnp.reshape([1, 2, 3, 4], (2, 2))),
    ("transpose", lambda: jnp.transpose([[1, 2]])),
    ("concatenate", lambda: jnp.concatenate([[1, 2], [3]])),
    ("stack", lambda: jnp.stack([[1, 2], [3, 4]])),
    ("where", lambda: jnp.where([True, False], 1, 2)),
    ("dot", lambda: jnp.dot([1, 2], [3, 4])),
    ("take", lambda: jnp.take([1, 2], 0)),
    ("take", lambda: jnp.take(jnp.ones(3), [1, 2])),
    ("sort", lambda: jnp.sort([1, 2])),
    ("clip", lambda: jnp.clip([1, 2], 0, 1)),
    ("zeros_like", lambda: jnp.zeros_like([1, 2])),
    ("full", lambda: jnp.full(2, [1, 2])),
    ("diag", lambda: jnp.diag([1, 2])),
    ("isin", lambda: jnp.isin(jnp.ones(3), [1, 2])),
    ("interp", lambda: jnp.interp(jnp.ones(3), [0, 1, 2], jnp.ones(3))),
    ("linalg.norm", lambda: jnp.linalg.norm([1.0, 2.0])),
]


@pytest.mark.parametrize("fn, call", LIST_ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LIST_ERRORS)])
def test_lists_are_refused(fn, call):
    with pytest.raises(TypeError, match=f"jnp.{fn} requires ndarray or scalar arguments, got <class '(list|tuple)'>"):
        call()


def test_lists_accepted_where_jax_accepts_them():
    _assert_equal(jnp.array([1, 2, 3]), [1, 2, 3])
    _assert_equal(jnp.asarray((1, 2)), [1, 2])
    _assert_equal(jnp.float32([1, 2]), np.float32([1, 2]))
    _assert_equal(jnp.stack([jnp.ones(2), jnp.zeros(2)]), [[1, 1], [0, 0]])  # a list of arrays
    _assert_equal(jnp.concatenate((jnp.ones(1), jnp.zeros(1))), [1, 0])
    _assert_equal(jnp.zeros(3).at[jnp.array([0, 1])].set([1, 2]), [1, 2, 0])  # update values
    _assert_equal(jnp.zeros((3, 3))[[0, 1], 0], [0, 0])  # a list inside an index tuple
    _assert_equal(jnp.tile(jnp.ones(2), [2]), np.ones(4))  # shapes and reps
    _assert_equal(jnp.zeros([2]), np.zeros(2))
    assert int(jnp.sum(jnp.asarray([1, 2, 3]))) == 6


def test_lists_are_refused_like_jax():
    jax = pytest.importorskip("jax")
    for _, call in LIST_ERRORS:
        with pytest.raises(TypeError):
            eval(call.__code__, {"jnp": jax.numpy, "np": np})


# ---------------------------------------------------------------------------
# 5. Integers to negative static powers
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, shown", [
    (lambda: jnp.arange(3) ** -1, "integer_pow(int32[3], -1)"),
    (lambda: jnp.power(jnp.arange(3), -2), "integer_pow(int32[3], -2)"),
    (lambda: lax.integer_pow(jnp.arange(3), -1), "integer_pow(int32[3], -1)"),
    (lambda: jnp.arange(3, dtype=np.uint8) ** np.int32(-1), "integer_pow(uint8[3], -1)"),
    (lambda: jaxc.jit(lambda v: v ** -1)(jnp.arange(3)), "integer_pow(int32[3], -1)"),
])
def test_integer_negative_power(call, shown):
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got " +
                       shown.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        call()


def test_negative_powers_of_floats_and_arrays_compute():
    _assert_equal(jnp.arange(1.0, 3.0) ** -1, [1.0, 0.5])
    _assert_equal(jnp.arange(1, 3) ** -1.0, [1.0, 0.5])
    _assert_equal((-1) ** jnp.arange(3), [1, -1, 1])
    _assert_equal(jnp.arange(1, 3) ** jnp.array([-1, -1]), [1, 0])  # a run-time exponent: lax.pow
