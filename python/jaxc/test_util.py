"""`jaxc.test_util`: check derivatives against finite differences, as
`jax.test_util` does.

    from jaxc.test_util import check_grads
    check_grads(jnp.sin, (x,), order=2)

`check_jvp` compares `jvp` with central differences along a random
direction t: ``(f(x + eps t) - f(x - eps t)) / (2 eps)``. `check_vjp`
checks the dot-product identity ``<vjp(ct), t> == <ct, jvp(t)>`` for random
t and ct, with jvp(t) from central differences (so a function with only a
custom reverse rule can be checked). `check_grads` does both, recursively to
`order`. Finite differences are only as good as the dtype: check in float64
(``jaxc.config.update("jax_enable_x64", True)``) where you can.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from . import dtypes, tree_util
from ._autodiff import jvp, vjp

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4

# atol and rtol per dtype (JAX's default gradient tolerances)
_TOLERANCE = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
              np.dtype(np.complex64): 2e-3, np.dtype(np.complex128): 1e-5}
if dtypes.bfloat16 is not None:
    _TOLERANCE[np.dtype(dtypes.bfloat16)] = 1e-1


def _dtype(x: Any) -> np.dtype:
    dtype = getattr(x, "dtype", None)
    return dtypes.canonicalize(dtype if dtype is not None else np.asarray(x).dtype)


def _tolerance(dtype: np.dtype, given: Any) -> float:
    if given is not None and not isinstance(given, dict):
        return float(given)
    table = dict(_TOLERANCE)
    table.update({np.dtype(k): v for k, v in (given or {}).items()})
    return table.get(np.dtype(dtype), 0.0)


def _is_python_scalar(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _map(f: Callable[..., Any], *trees: Any) -> Any:
    """`f` leaf by leaf; a Python scalar leaf stays a Python scalar."""
    def g(*leaves: Any) -> Any:
        out = f(*leaves)
        return out.item() if _is_python_scalar(leaves[0]) else out
    return tree_util.tree_map(g, *trees)


def _rand_like(rng: np.random.RandomState, x: Any) -> Any:
    """Standard normal values of x's shape and dtype (both parts, for complex)."""
    dtype = _dtype(x)
    values = rng.randn(*np.shape(x))
    if dtypes.is_complex(dtype):
        values = values + 1j * rng.randn(*np.shape(x))
    return np.asarray(values, dtype=dtype)


def _numerical_jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], eps: float) -> Any:
    """Central differences of `f` at `primals` along `tangents`."""
    def shifted(sign: float) -> Any:
        args = _map(lambda x, t: np.asarray(np.asarray(x) + sign * eps * np.asarray(t), _dtype(x)),
                    tuple(primals), tuple(tangents))
        return tree_util.tree_map(np.asarray, f(*args))
    up, down = shifted(1.0), shifted(-1.0)
    return tree_util.tree_map(lambda a, b: np.asarray((a - b) / (2 * eps), a.dtype), up, down)


def _inner(xs: Any, ys: Any) -> np.ndarray:
    """Sum over the leaves of re(<x, y>) (x conjugated) of the flattened
    arrays, in double precision, as a 0-d array of the least precise real leaf
    dtype of `xs` (whose tolerance the comparison uses)."""
    total = sum(float(np.real(np.vdot(np.asarray(x, np.complex128).ravel(), np.asarray(y, np.complex128).ravel())))
                for x, y in zip(tree_util.tree_leaves(xs), tree_util.tree_leaves(ys)))
    leaf_dtypes = [_dtype(x) for x in tree_util.tree_leaves(xs)] or [dtypes.default_float()]
    return np.asarray(total, dtypes.real_dtype(max(leaf_dtypes, key=lambda d: _tolerance(d, None))))


def _check_close(actual: Any, expected: Any, atol: Any, rtol: Any, what: str) -> None:
    a_leaves, a_tree = tree_util.tree_flatten(actual)
    e_leaves, e_tree = tree_util.tree_flatten(expected)
    if a_tree != e_tree:
        raise AssertionError(f"{what}: structure {a_tree} differs from the expected {e_tree}")
    for a, e in zip(a_leaves, e_leaves):
        a, e = np.asarray(a), np.asarray(e)
        if a.shape != e.shape:
            raise AssertionError(f"{what}: shape {a.shape} differs from the expected {e.shape}")
        dtype = max((_dtype(a), _dtype(e)), key=lambda d: _tolerance(d, None))
        wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64
        np.testing.assert_allclose(a.astype(wide), e.astype(wide),
                                   atol=_tolerance(dtype, atol) * max(a.size, 1),
                                   rtol=_tolerance(dtype, rtol) * max(e.size, 1), err_msg=what)


def check_jvp(f: Callable, f_jvp: Callable, args: Sequence[Any], atol: Any = None, rtol: Any = None,
              eps: float = EPS, err_msg: str = "") -> None:
    """`f_jvp(args, tangents)` (like ``partial(jvp, f)``) against `f` and
    central differences along a random tangent."""
    rng = np.random.RandomState(0)
    tangents = _map(functools.partial(_rand_like, rng), tuple(args))
    out, out_dot = f_jvp(tuple(args), tangents)
    label = err_msg or "JVP"
    _check_close(out, f(*args), atol, rtol, f"check_grads: {label}: primal output of jvp differs "
                 "from calling the function")
    expected = _numerical_jvp(f, args, tangents, eps)
    _check_close(out_dot, expected, atol, rtol, f"check_grads: {label}: tangent output differs from "
                 f"central finite differences (eps={eps})")


def check_vjp(f: Callable, f_vjp: Callable, args: Sequence[Any], atol: Any = None, rtol: Any = None,
              eps: float = EPS, err_msg: str = "") -> None:
    """`f_vjp(*args)` (like ``partial(vjp, f)``) against `f`, and the
    identity ``<vjp(ct), t> == <ct, jvp(t)>`` for random t and ct, jvp(t)
    from central differences. For complex values the vjp (a transpose, as
    in JAX) is conjugated around, ``conj(vjp(conj(ct)))``, to make it the adjoint."""
    rng = np.random.RandomState(0)
    out, vjp_fn = f_vjp(*args)
    label = err_msg or "VJP"
    _check_close(out, f(*args), atol, rtol, f"check_grads: {label}: primal output of vjp differs "
                 "from calling the function")
    tangents = _map(functools.partial(_rand_like, rng), tuple(args))
    out_dot = _numerical_jvp(f, args, tangents, eps)
    ct = _map(functools.partial(_rand_like, rng), tree_util.tree_map(np.asarray, out))
    x_bar = _map(np.conj, vjp_fn(_map(np.conj, ct)))
    inner, expected = _inner(tangents, x_bar), _inner(out_dot, ct)
    _check_close(inner, expected, atol, rtol, f"check_grads: {label}: <vjp(ct), t> = {inner} but "
                 f"<ct, jvp(t)> = {expected} with jvp(t) from central finite differences (eps={eps})")


def check_grads(f: Callable, args: Sequence[Any], order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol: Any = None, rtol: Any = None, eps: float | None = None) -> None:
    """Check forward (``"fwd"``) and reverse (``"rev"``) derivatives of `f`
    at `args` up to `order`, as `jax.test_util.check_grads`: each order
    checks the jvp (and the vjp) of the previous order's jvp (and vjp).
    Raises AssertionError naming the mode chain and the comparison."""
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"check_grads: unknown modes {sorted(unknown)} (use 'fwd' and/or 'rev')")
    args = tuple(args)
    eps = eps or EPS

    def check(f: Callable, args: tuple, order: int, label: str) -> None:
        if "fwd" in modes:
            fwd_label = f"JVP of {label}" if label else "JVP"
            check_jvp(f, functools.partial(jvp, f), args, atol, rtol, eps, fwd_label)
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, fwd_label)
        if "rev" in modes:
            rev_label = f"VJP of {label}" if label else "VJP"
            check_vjp(f, functools.partial(vjp, f), args, atol, rtol, eps, rev_label)
            if order > 1:
                def f_vjp(*primals: Any) -> Any:
                    out, vjp_fn = vjp(f, *primals)
                    return vjp_fn(out)
                check(f_vjp, args, order - 1, rev_label)

    check(f, args, order, "")
