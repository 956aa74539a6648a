"""jaxc's jnp, jnp.linalg and jnp.fft functions have JAX 0.10.2's signatures
(issue #17): the same parameter names, in the same order, of the same
kinds (positional-only, keyword-only, ``*args``), so that every call JAX
accepts binds the same way here and every call JAX rejects is rejected.

The comparison runs where JAX is installed; the tests after it check the
calls the changed signatures allow or reject. Names jaxc lacks are test_jax_names.py's
business (data/names/left_out.json); classes (dtypes, `ufunc`) are left
out here (test_jnp_ufunc.py checks the ufunc methods).
"""
import inspect
import warnings

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp


def namespaces():
    """{JAX namespace: (JAX's module, jaxc's)}; skips where JAX is not installed."""
    return {"jax.numpy": (pytest.importorskip("jax.numpy"), jnp),
            "jax.numpy.linalg": (pytest.importorskip("jax.numpy.linalg"), jnp.linalg),
            "jax.numpy.fft": (pytest.importorskip("jax.numpy.fft"), jnp.fft)}


SPACES = ["jax.numpy", "jax.numpy.fft", "jax.numpy.linalg"]

# Parameters compared as if absent: JAX's sharding-in-types option (jaxc has
# no sharded types) and einsum's JAX-internal hook for its dot_general.
IGNORED_PARAMETERS = {"out_sharding", "_dot_general"}

# Deliberate differences, "namespace.name": reason. None at present.
ALLOWED = {}


def parameters(fn):
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature (a builtin): nothing to compare
        return None
    return [(p.name, p.kind.name) for p in signature.parameters.values() if p.name not in IGNORED_PARAMETERS]


@pytest.mark.parametrize("space", SPACES)
def test_signatures_match_jax(space):
    theirs, ours = namespaces()[space]
    mismatches = []
    for name in sorted(dir(theirs)):
        fn = getattr(theirs, name)
        if name.startswith("_") or not callable(fn) or isinstance(fn, type) or not hasattr(ours, name):
            continue
        if f"{space}.{name}" in ALLOWED:
            continue
        expected, actual = parameters(fn), parameters(getattr(ours, name))
        if expected != actual:
            mismatches.append(f"{space}.{name}: JAX {expected}, jaxc {actual}")
    assert not mismatches, "\n".join(mismatches)


def test_allowed_differences_are_still_differences():
    namespaces()
    for key in ALLOWED:
        space, name = key.rsplit(".", 1)
        theirs, ours = namespaces()[space]
        assert parameters(getattr(theirs, name)) != parameters(getattr(ours, name)), f"{key} now matches"


# ---------------------------------------------------------------------------
# What the signatures changed for (JAX 0.10.2's behaviour)
# ---------------------------------------------------------------------------

def close(actual, expected, **kwargs):
    """assert_close, with a list as one array (not a pytree)."""
    assert_close(actual, np.asarray(expected) if isinstance(expected, list) else expected, **kwargs)


F = rand((3, 4))
FN = F.copy()
FN[0, 1] = np.nan


def test_binary_parameter_names():
    close(jnp.fmax(x1=np.array([1.0, np.nan]), x2=np.array([np.nan, 3.0])), [1.0, 3.0])
    assert int(jnp.fmin(x2=1, x1=2)) == 1 and jnp.fmin(x2=1, x1=2).weak_type
    close(jnp.trunc(x=np.array([1.5, -1.5])), [1.0, -1.0])
    with pytest.raises(TypeError):
        jnp.divide(x1=1, x2=2)  # positional-only, as in JAX
    with pytest.raises(TypeError):
        jnp.real(val=1)


def test_out_arguments_and_complex_infinities():
    close(jnp.isposinf(np.array([np.inf, 1.0]), None), [True, False])
    close(jnp.modf(np.array([1.5]), None), (np.array([0.5]), np.array([1.0])))
    for fn in (jnp.isposinf, jnp.isneginf, jnp.modf):
        with pytest.raises(NotImplementedError, match="out"):
            fn(np.array([1.0]), out=np.array([1.0]))
    with pytest.raises(ValueError, match="complex"):
        jnp.isposinf(np.array([1j]))
    with pytest.raises(ValueError, match="complex"):
        jnp.isneginf(np.array([1j]))


def test_clip_arguments():
    x = np.arange(6)
    check(jnp.clip, np.clip, x, 1, 3, dtype=np.int32)  # positional calls are unchanged
    check(lambda a: jnp.clip(a, max=3), lambda a: np.clip(a, None, 3), x)
    close(jnp.clip(x, 3, 1), np.full(6, 1))  # min > max gives max
    with pytest.raises(ValueError, match="no input"):
        jnp.clip()
    for kwargs in ({"a_min": 1}, {"a_max": 1}):
        with pytest.raises(TypeError):  # JAX 0.10 dropped NumPy 1's keywords
            jnp.clip(x, **kwargs)
    with pytest.raises(TypeError):
        jnp.clip(arr=x, min=1)
    close(jnp.asarray(x).clip(max=2), np.clip(x, None, 2))


def test_sort_keywords():
    x = np.array([3, 1, 2])
    close(jnp.argsort(x, dtype=np.int8), [1, 2, 0])
    assert jnp.argsort(x, dtype=np.int8).dtype == np.int8
    assert jnp.argsort(x, descending=True, dtype=np.uint16).dtype == np.uint16
    assert jaxc.jit(lambda v: jnp.argsort(v, dtype=np.int16))(x).dtype == np.int16
    for fn in (jnp.sort, jnp.argsort):
        with pytest.raises(TypeError, match="kind"):
            fn(x, kind="stable")
        with pytest.raises(TypeError, match="order"):
            fn(x, order="x")
        with pytest.raises(TypeError):
            fn(x, 0, "stable")  # kind is keyword-only


def test_var_std_with_a_precomputed_mean():
    for axis in (0, 1, None):
        mean = F.mean(axis=axis, keepdims=True)
        shifted = mean + 0.5  # any mean: the squares are taken around it
        for fn in ("var", "std"):
            check(lambda a, m: getattr(jnp, fn)(a, axis, mean=m), lambda a, m: getattr(np, fn)(a, axis, mean=m),
                  F, mean, rtol=1e-4)
            check(lambda a, m: getattr(jnp, fn)(a, axis, ddof=1, mean=m),
                  lambda a, m: getattr(np, fn)(a, axis, ddof=1, mean=m), F, shifted, rtol=1e-4)
            nan_mean = np.nanmean(FN, axis=axis, keepdims=True)
            check(lambda a, m: getattr(jnp, "nan" + fn)(a, axis, None, None, 0, False, None, m),
                  lambda a, m: getattr(np, "nan" + fn)(a, axis, mean=m), FN, nan_mean, rtol=1e-4)
    where = F > 0
    check(lambda a, w: jnp.nanmean(a, 1, None, None, False, w), lambda a, w: np.nanmean(a, 1, where=w), FN, where)
    close(jaxc.grad(lambda a: jnp.var(a, mean=jnp.mean(a)))(F), 2 * (F - F.mean()) / F.size, rtol=1e-4)


def test_take_along_axis_negative_indices():
    a = np.array([[10.0, 11.0, 12.0], [20.0, 21.0, 22.0]], np.float32)
    i = np.array([[-1, 0, 5]])
    nan = np.nan
    expected = {  # JAX 0.10.2's results
        (None, None): [[12, 10, nan], [22, 20, nan]], (None, False): [[nan, 10, nan], [nan, 20, nan]],
        ("clip", True): [[12, 10, 12], [22, 20, 22]], ("clip", False): [[10, 10, 12], [20, 20, 22]],
    }
    for (mode, wrap), values in expected.items():
        got = jnp.take_along_axis(a, i, axis=1, mode=mode, wrap_negative_indices=wrap)
        close(got, np.array(values, np.float32), what=f"{mode} {wrap}")
    for wrap, values in ((None, [[10, 10, 11]]), (True, [[12, 10, 11]]), (False, [[10, 10, 11]])):
        got = jnp.take_along_axis(a[:1], np.array([[-1, 0, 1]]), axis=1, mode="promise_in_bounds",
                                  wrap_negative_indices=wrap)
        close(got, np.array(values, np.float32), what=f"promise_in_bounds {wrap}")
    traced = jaxc.jit(lambda x, j: jnp.take_along_axis(x, j, axis=1, wrap_negative_indices=False))(a, i)
    close(traced, np.array(expected[None, False], np.float32))


def test_array_positional_arguments():
    with pytest.warns(DeprecationWarning, match="positionally"):
        assert jnp.array([1, 2], None, True, "K", 2).shape == (1, 2)
    with pytest.raises(TypeError, match="at most 5"):
        jnp.array([1], None, True, "K", 0, 1)
    with pytest.raises(TypeError, match="multiple values"):
        jnp.array([1], None, False, copy=False)
    with pytest.raises(NotImplementedError, match="order='K'"):
        jnp.array([1], order="C")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jnp.array([1], order=None, ndmin=2).shape == (1, 1)


def test_positional_only_and_renamed_parameters():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError):
        jnp.astype(x=x, dtype=np.int32)
    with pytest.raises(TypeError):
        jnp.astype(x, np.int32, True)  # copy is keyword-only
    assert jnp.asarray(x).astype(np.int32, False).dtype == np.int32  # the method takes it positionally
    with pytest.raises(TypeError):
        jnp.matrix_transpose(x=x)
    with pytest.raises(TypeError):
        jnp.permute_dims(x)  # axes are required
    assert jnp.permute_dims(x, axes=(1, 0)).shape == (3, 2)
    with pytest.raises(TypeError):
        jnp.einsum(subscripts="i->", operands=np.ones(3))
    assert jnp.issubdtype(arg1=np.float32, arg2=jnp.floating)
    assert jnp.empty_like(prototype=x).shape == (2, 3)


def test_linalg_array_api_products():
    a, b = rand((2, 3)), rand((3, 4))
    v, w = rand((3,)), rand((4,))
    close(jnp.linalg.matmul(a, b), a @ b, rtol=1e-5)
    close(jnp.linalg.tensordot(a, b, axes=1), a @ b, rtol=1e-5)
    close(jnp.linalg.outer(v, w), np.outer(v, w))
    close(jnp.linalg.cross(a, a[::-1], axis=-1), np.cross(a, a[::-1]), rtol=1e-5)
    close(jnp.linalg.cross(a.T, a[::-1].T, axis=0), np.cross(a.T, a[::-1].T, axis=0), rtol=1e-5)
    with pytest.raises(TypeError):
        jnp.linalg.tensordot(a, b, 1)  # axes is keyword-only
    with pytest.raises(TypeError):
        jnp.linalg.matmul(x1=a, x2=b)
    with pytest.raises(ValueError, match="one-dimensional"):
        jnp.linalg.outer(a, v)  # jnp.outer flattens; linalg.outer does not
    with pytest.raises(ValueError, match="3-dimensional"):
        jnp.linalg.cross(a[:, :2], a[:, :2])


def test_matrix_rank_hermitian():
    m = rand((4, 2))
    sym = (m @ m.T).astype(np.float32)  # rank 2, symmetric
    assert int(jnp.linalg.matrix_rank(sym, hermitian=True)) == 2
    assert int(jnp.linalg.matrix_rank(-sym, hermitian=True)) == 2
    assert int(jnp.linalg.matrix_rank(sym)) == 2
    with pytest.raises(ValueError, match="only one of tol or rtol"):
        jnp.linalg.matrix_rank(sym, 1e-3, tol=1e-3)
