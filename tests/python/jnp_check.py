"""Checking jaxc.numpy functions against NumPy, eagerly and under jit.

    check(jnp.sin, np.sin, x)                 # eager == jit == NumPy (values)
    check(jnp.sum, np.sum, x, axis=1, dtype="float32")   # and the result dtype

`check` runs the jaxc function eagerly and under `jaxc.jit` (array
arguments traced, keyword arguments static), compares both with the NumPy
reference (NaNs equal, shapes exact), and, when `dtype` is given, checks the
result dtype (JAX's rules, which differ from NumPy's: float32/int32
defaults, weak Python scalars). When JAX is installed, `check_jax` compares
with JAX too.
"""
from __future__ import annotations

import platform
from typing import Any, Callable

import numpy as np

import jaxc
from jaxc import tree_util

try:  # optional: compare against JAX where it is installed
    import jax  # noqa: F401
    import jax.numpy as _jax_numpy
except ImportError:  # pragma: no cover - JAX is an optional extra
    _jax_numpy = None

RNG = np.random.default_rng(0)

# Compiled code flushes subnormals to zero on x86 hosts, as XLA does for JAX
# (docs/semantics.md, *Floating point*); references must do the same there.
FLUSHES_SUBNORMALS = platform.machine() in ("x86_64", "AMD64", "i686")


def numerical_gradient(fn: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The gradient of the scalar `fn` at `x` by central differences (use float64)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (fn(up) - fn(down)) / (2 * eps)
    return grad


def flushed(x: Any, dtype: Any = None) -> np.ndarray:
    """`x` with the values that are subnormal in `dtype` (default: x's own)
    replaced by zeros of their sign, where compiled code flushes them."""
    x = np.asarray(x)
    if not FLUSHES_SUBNORMALS:
        return x
    tiny = np.finfo(x.dtype if dtype is None else dtype).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros_like(x), x), x)


def rand(shape: tuple[int, ...], dtype: Any = np.float32, low: float = -3.0, high: float = 3.0) -> np.ndarray:
    """Random values of `shape` and `dtype` (ints in [low, high), bools 50/50;
    both parts of a complex number in [low, high))."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (RNG.uniform(low, high, size=shape) + 1j * RNG.uniform(low, high, size=shape)).astype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if dtype.kind in "iu":
        lo = max(low, np.iinfo(dtype).min)
        return RNG.integers(int(lo), int(high), size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


def to_numpy(x: Any) -> Any:
    return tree_util.tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, jaxc.Array) else leaf, x)


def assert_close(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-6, what: str = "") -> None:
    actual_leaves = tree_util.tree_leaves(to_numpy(actual))
    expected_leaves = tree_util.tree_leaves(expected)
    assert len(actual_leaves) == len(expected_leaves), f"{what}: {len(actual_leaves)} results, expected {len(expected_leaves)}"
    for a, e in zip(actual_leaves, expected_leaves):
        a = np.asarray(a)
        e = np.asarray(e)
        assert a.shape == e.shape, f"{what}: shape {a.shape}, expected {e.shape}"
        if e.dtype == np.bool_ or e.dtype.kind in "iu":
            np.testing.assert_array_equal(a, e, err_msg=what)
        else:
            wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64
            np.testing.assert_allclose(a.astype(wide), e.astype(wide), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=what)


def check(jnp_fn: Callable, np_fn: Callable | None, *args: Any, dtype: Any = None, rtol: float = 1e-5,
          atol: float = 1e-6, jit: bool = True, expected: Any = None, **kwargs: Any) -> Any:
    """jnp_fn(*args, **kwargs) eagerly and under jit equals np_fn(...) (or
    `expected`); `dtype`: the expected result dtype. Returns the eager result."""
    if expected is None:
        np_args = [np.asarray(a) if isinstance(a, jaxc.Array) else a for a in args]
        expected = np_fn(*np_args, **kwargs)
    eager = jnp_fn(*args, **kwargs)
    name = getattr(jnp_fn, "__name__", "fn")
    assert_close(eager, expected, rtol, atol, f"{name} eager")
    if dtype is not None:
        for leaf in tree_util.tree_leaves(eager):
            assert leaf.dtype == np.dtype(dtype), f"{name}: dtype {leaf.dtype}, expected {np.dtype(dtype)}"
    if jit:
        array_positions = [i for i, a in enumerate(args) if isinstance(a, (np.ndarray, jaxc.Array))]

        def traced(*arrays: Any) -> Any:
            full = list(args)
            for i, a in zip(array_positions, arrays):
                full[i] = a
            return jnp_fn(*full, **kwargs)
        traced.__name__ = name
        jitted = jaxc.jit(traced)(*[args[i] for i in array_positions])
        assert_close(jitted, to_numpy(eager), rtol, atol, f"{name} jit vs eager")
        if dtype is not None:
            for leaf in tree_util.tree_leaves(jitted):
                assert leaf.dtype == np.dtype(dtype), f"{name} jit: dtype {leaf.dtype}, expected {np.dtype(dtype)}"
    return eager


def check_jax(jnp_fn: Callable, jax_fn_name: str, *args: Any, rtol: float = 1e-5, atol: float = 1e-6,
              **kwargs: Any) -> None:
    """Compare values and dtypes with ``jax.numpy.<jax_fn_name>`` when JAX is
    installed (no-op otherwise). Array arguments go to JAX as NumPy arrays;
    other arguments (dtypes, axes, scalars) as they are."""
    if _jax_numpy is None:
        return
    ours = tree_util.tree_leaves(to_numpy(jnp_fn(*args, **kwargs)))
    jax_args = [np.asarray(a) if isinstance(a, jaxc.Array) else a for a in args]
    theirs = [np.asarray(leaf) for leaf in tree_util.tree_leaves(
        getattr(_jax_numpy, jax_fn_name)(*jax_args, **kwargs),
        is_leaf=lambda x: not isinstance(x, (tuple, list, dict)))]
    assert_close(ours, theirs, rtol, atol, f"{jax_fn_name} vs JAX")
    for mine, other in zip(ours, theirs):
        assert np.asarray(mine).dtype == other.dtype, f"{jax_fn_name}: dtype {np.asarray(mine).dtype}, JAX {other.dtype}"
