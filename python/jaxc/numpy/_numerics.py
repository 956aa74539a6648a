"""Numerical `jaxc.numpy` functions (issue #17): `gradient` (finite
differences, edge_order 1 or 2), `unwrap`, the Bessel function `i0` and
the `kaiser` window, `histogram2d`/`histogramdd`, the polynomial helpers
`poly`, `polydiv` and `polyfit`, and `angle` for real input.

    jnp.gradient(f, dx, axis=0, edge_order=2)
    counts, edges = jnp.histogramdd(sample, bins=(4, 8), range=[(0, 1), None])
    coeffs, cov = jnp.polyfit(x, y, 2, cov=True)

Built from jnp/lax operations with JAX's dtype rules; differentiable where
the values are (`i0`'s derivative is i1, as in JAX). `poly` of a square
matrix and `roots` go through the complex eigenvalues (lax/_eig.py).
"""
from __future__ import annotations

from typing import Any, Sequence, cast

import numpy as np

from .. import core, dtypes, lax
from .._autodiff import custom_jvp
from ..core import ArrayBase
from . import _creation, _elementwise as _ew, _linalg, _more, _reductions as _red, _shape, linalg
from ._util import asarray, canonicalize_axis, check_arraylike, promote_dtypes, promote_dtypes_inexact

__all__ = ["gradient", "unwrap", "i0", "kaiser", "histogram2d", "histogramdd", "poly", "polydiv", "polyfit", "roots",
           "angle"]


def _strong(x: Any) -> Any:
    return lax._with_weak(x, False) if x.weak_type else x


def _along(x: Any, start: int, stop: int | None, axis: int) -> Any:
    """x[..., start:stop, ...] along `axis` (static bounds)."""
    n = x.shape[axis]
    start, stop, _ = slice(start, stop).indices(n)
    return lax.slice_in_dim(x, start, max(start, stop), 1, axis)


def _on_axis(v: Any, ndim: int, axis: int) -> Any:
    """A 1-d `v` shaped to broadcast along `axis` of an ndim-d array."""
    return lax.reshape(v, tuple(v.shape[0] if d == axis else 1 for d in range(ndim)))


# ---------------------------------------------------------------------------
# gradient, unwrap
# ---------------------------------------------------------------------------

def _gradient_axis(f: Any, h: Any, axis: int, edge_order: int) -> Any:
    """The derivative of `f` along `axis`: second-order central differences
    inside, one-sided differences of order `edge_order` at the ends. `h` is
    a 0-d spacing or the 1-d coordinates along the axis."""
    ndim = f.ndim
    f0, f1, f2 = _along(f, 0, 1, axis), _along(f, 1, 2, axis), _along(f, 2, 3, axis)
    g0, g1, g2 = _along(f, -1, None, axis), _along(f, -2, -1, axis), _along(f, -3, -2, axis)
    if h.ndim == 0:
        inner = (_along(f, 2, None, axis) - _along(f, 0, -2, axis)) / (2 * h)
        if edge_order == 1:
            first, last = (f1 - f0) / h, (g0 - g1) / h
        else:
            first = (-1.5 * f0 + 2 * f1 - 0.5 * f2) / h
            last = (0.5 * g2 - 2 * g1 + 1.5 * g0) / h
    else:
        dx = _more.diff(h)
        d1, d2 = _on_axis(dx[:-1], ndim, axis), _on_axis(dx[1:], ndim, axis)
        a = -d2 / (d1 * (d1 + d2))
        b = (d2 - d1) / (d1 * d2)
        c = d1 / (d2 * (d1 + d2))
        inner = a * _along(f, 0, -2, axis) + b * _along(f, 1, -1, axis) + c * _along(f, 2, None, axis)
        if edge_order == 1:
            first, last = (f1 - f0) / dx[0], (g0 - g1) / dx[-1]
        else:
            p, q = dx[0], dx[1]
            first = (-(2 * p + q) / (p * (p + q)) * f0 + (p + q) / (p * q) * f1 - p / (q * (p + q)) * f2)
            p, q = dx[-2], dx[-1]
            last = (q / (p * (p + q)) * g2 - (q + p) / (p * q) * g1 + (2 * q + p) / (q * (p + q)) * g0)
    return _shape.concatenate([first, inner, last], axis=axis)


def gradient(f: Any, *varargs: Any, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Any:
    """The gradient of the sampled function `f`: second-order central
    differences in the interior, first- (`edge_order` 1, the default) or
    second-order (2) one-sided differences at the boundaries, as NumPy.
    `varargs` are the spacings: none (1), one scalar for every axis, or one
    per axis, each a scalar or the 1-d coordinates along that axis. One
    array per axis in `axis` (default all), a list when there are several.
    JAX itself rejects `edge_order`; jaxc implements NumPy's."""
    check_arraylike("gradient", f)
    (f,) = promote_dtypes_inexact("gradient", asarray(f, fn="gradient"))
    if f.ndim == 0:
        return []
    order = 1 if edge_order is None else _shape._static_int(edge_order, "edge_order", "gradient")
    if order not in (1, 2):
        raise ValueError(f"jnp.gradient: edge_order must be 1 or 2, got {edge_order!r}")
    if axis is None:
        axes = list(range(f.ndim))
    else:
        axes = [canonicalize_axis(a, f.ndim, "gradient")
                for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        if len(set(axes)) != len(axes):
            raise ValueError(f"jnp.gradient: repeated axis in {axis!r}")
    if not varargs:
        spacings = [asarray(1.0, fn="gradient")] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        check_arraylike("gradient", varargs[0])
        spacings = [asarray(varargs[0], fn="gradient")] * len(axes)
    elif len(varargs) == len(axes):
        spacings = []
        for v in varargs:
            check_arraylike("gradient", v)
            spacings.append(asarray(v, fn="gradient"))
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(varargs)} for axis={axis}")
    out = []
    for ax, h in zip(axes, spacings):
        if h.ndim > 1:
            raise ValueError("Spacing arrays must be 1D arrays or scalars.")
        if h.ndim == 1 and h.shape[0] != f.shape[ax]:
            raise ValueError(f"Spacing arrays must have the same length as the dimension along which the "
                             f"gradient is calculated (axis {ax}: {f.shape[ax]}, got {h.shape[0]})")
        if f.shape[ax] < order + 1:
            raise ValueError(f"Shape of array too small to calculate a numerical gradient, at least "
                             f"(edge_order + 1) = {order + 1} elements are required (axis {ax} of shape {f.shape})")
        if h.ndim == 1 or not dtypes.is_float(h.dtype):
            (h,) = promote_dtypes_inexact("gradient", h)
        out.append(_strong(_gradient_axis(f, h, ax, order)))
    return out[0] if len(out) == 1 else out


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
    """`p` with the jumps between neighbours along `axis` that exceed
    max(discont, period/2) (default period/2) replaced by their equivalent
    modulo `period` (phase unwrapping, as NumPy). Integer `p` and `period`
    stay integers."""
    check_arraylike("unwrap", p)
    check_arraylike("unwrap", period)
    if discont is not None:
        check_arraylike("unwrap", discont)
    p = asarray(p, fn="unwrap")
    if p.dtype == np.bool_:
        (p,) = promote_dtypes_inexact("unwrap", p)
    p, period = promote_dtypes("unwrap", p, period)
    axis = canonicalize_axis(axis, p.ndim, "unwrap")
    if p.shape[axis] < 2:
        return _strong(p)
    dd = _more.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    if dtypes.is_int(p.dtype):
        high, rem = _ew.floor_divide(period, 2), _ew.remainder(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _ew.remainder(dd - low, period) + low
    ddmod = _ew.where(ambiguous & (ddmod == low) & (dd > 0), high, ddmod)
    correction = _ew.where(_ew.abs(dd) < discont, 0, ddmod - dd)
    head = _along(p, 0, 1, axis)
    tail = _along(p, 1, None, axis) + _red.cumsum(correction, axis=axis).astype(p.dtype)
    return _strong(_shape.concatenate([head, tail.astype(p.dtype)], axis=axis))


# ---------------------------------------------------------------------------
# i0, kaiser, angle
# ---------------------------------------------------------------------------

@custom_jvp
def _i0(x: Any) -> Any:
    from ..scipy import special
    return special.i0(x)


@_i0.defjvp
def _i0_jvp(primals: Any, tangents: Any) -> Any:
    from ..scipy import special
    (x,), (t,) = primals, tangents
    return _i0(x), special.i1(x) * t


def i0(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 0, in floats;
    its derivative is i1 (jaxc.scipy.special)."""
    check_arraylike("i0", x)
    (x,) = promote_dtypes_inexact("i0", asarray(x, fn="i0"))
    return _i0(x)


def kaiser(M: int, beta: Any) -> Any:
    """The Kaiser window of M points (static) with shape parameter `beta`:
    i0(beta sqrt(1 - (2n/(M-1) - 1)**2)) / i0(beta), in the default float."""
    if isinstance(M, core.Tracer):
        M = core.concrete(M, "the M argument of jnp.kaiser")
    M = int(M)
    check_arraylike("kaiser", beta)
    dtype = dtypes.default_float()
    if M <= 0:
        return _creation.zeros((0,), dtype)
    if M == 1:
        return _creation.ones((1,), dtype)
    beta = _strong(asarray(beta, fn="kaiser").astype(dtype))
    n = _creation.arange(M, dtype=dtype)
    alpha = (M - 1) / 2.0
    ratio = (n - alpha) / alpha
    return i0(beta * _ew.sqrt(_ew.maximum(1 - ratio * ratio, 0))) / i0(beta)


def angle(z: Any, deg: bool = False) -> Any:
    """The argument of `z`, atan2(imag, real) (real input: 0 for z >= +0,
    pi for z < 0 and -0.0, NaN for NaN), in degrees with `deg`; ints
    become floats."""
    check_arraylike("angle", z)
    (z,) = promote_dtypes_inexact("angle", asarray(z, fn="angle"))
    z = _strong(z)
    if dtypes.is_complex(z.dtype):
        out = lax.atan2(lax.imag(z), lax.real(z))
    else:
        out = lax.atan2(lax.full_like(z, 0), z)
    if deg:
        out = lax.mul(out, lax.full_like(out, 180.0 / np.pi))
    return out


# ---------------------------------------------------------------------------
# Histograms
# ---------------------------------------------------------------------------

def histogramdd(sample: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, list[Any]]:
    """(counts, edges) of the N points of the (N, D) `sample` in a D-dimensional
    grid of bins, as NumPy: `bins` is an int, a sequence of D ints or edge
    arrays; `range` a sequence of D (low, high) pairs or Nones; the last bin
    of every dimension includes its right edge, points outside are not
    counted. Counts are the default int without `weights` or `density`,
    else in the (promoted) float of sample and weights."""
    fn = "histogramdd"
    check_arraylike(fn, sample)
    sample = asarray(sample, fn=fn)
    if sample.ndim != 2:
        raise ValueError(f"jnp.histogramdd: sample must be a 2-d array of shape (N, D), got shape {sample.shape}")
    n, d = sample.shape
    if weights is None:
        (sample,) = promote_dtypes_inexact(fn, sample)
    else:
        check_arraylike(fn, weights)
        weights = asarray(weights, fn=fn)
        if weights.shape != (n,):
            raise ValueError(f"should have one weight for each sample (weights of shape {weights.shape} for "
                             f"sample of shape {sample.shape})")
        sample, weights = promote_dtypes_inexact(fn, sample, weights)
    if isinstance(bins, str):
        raise ValueError(f"jnp.histogramdd: string bins are not supported, got {bins!r}; there should be a "
                         "bin for each dimension")
    if isinstance(bins, (list, tuple)) or (isinstance(bins, (ArrayBase, np.ndarray)) and bins.ndim > 0):
        if len(bins) != d:
            raise ValueError(f"should be a bin for each dimension: got {len(bins)} bins for {d} dimensions")
        bins = list(cast(Any, bins))  # (cast: ArrayBase does not declare the iteration jnp attaches)
    else:
        bins = [bins] * d
    if range is None:
        range = [None] * d
    elif len(range) != d:
        raise ValueError(f"For sample.shape={sample.shape}, range must be a sequence of {d} pairs or Nones; "
                         f"got range={range}")
    edges = []
    for i, (b, r) in enumerate(zip(bins, range)):
        if np.ndim(b) == 0 and not isinstance(b, core.Tracer):
            count = _shape._static_int(b, "bins", fn)
            if count < 1:
                raise ValueError(f"jnp.histogramdd: bins[{i}] must be positive, got {count}")
        edges.append(_more.histogram_bin_edges(sample[:, i], b, r))
    flat = _creation.zeros((n,), dtypes.default_int())
    stride = 1
    sizes = [e.shape[0] + 1 for e in edges]  # bins plus one outlier bin at each end
    for i in reversed([int(k) for k in np.arange(d)]):  # (`range` is an argument here)
        values, e = sample[:, i], edges[i]
        index = _more.searchsorted(e, values, side="right")
        index = _ew.where(values == e[-1], e.shape[0] - 1, index)  # the last edge closes the last bin
        flat = flat + index.astype(flat.dtype) * stride
        stride *= sizes[i]
    total = int(np.prod(sizes))
    if weights is None:
        counts = _creation.zeros((total,), dtypes.default_int()).at[flat].add(1)
    else:
        counts = _creation.zeros((total,), weights.dtype).at[flat].add(weights)
    counts = counts.reshape(sizes)[tuple(slice(1, -1) for _ in edges)]
    if density:
        counts = counts.astype(sample.dtype)
        total_count = counts.sum()
        for i, e in enumerate(edges):
            counts = counts / _on_axis(_more.diff(e), d, i)
        counts = counts / total_count
    return counts, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, Any, Any]:
    """(counts, x_edges, y_edges): `histogramdd` of the points (x[i], y[i]);
    `bins` is an int, a pair of ints or edge arrays, or one edge array for
    both."""
    check_arraylike("histogram2d", x)
    check_arraylike("histogram2d", y)
    x, y = promote_dtypes_inexact("histogram2d", asarray(x, fn="histogram2d"), asarray(y, fn="histogram2d"))
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [bins, bins]
    counts, edges = histogramdd(_shape.stack([x, y], axis=1), bins, range, weights, density)
    return counts, edges[0], edges[1]


# ---------------------------------------------------------------------------
# Polynomials
# ---------------------------------------------------------------------------

def poly(seq_of_zeros: Any) -> Any:
    """The coefficients (highest power first) of the monic polynomial with
    the given roots (a 1-d array; 0-d is one root), in the roots' inexact
    dtype; of a square matrix, its characteristic polynomial (from its
    eigenvalues: complex, as in JAX)."""
    check_arraylike("poly", seq_of_zeros)
    (roots,) = promote_dtypes_inexact("poly", asarray(seq_of_zeros, fn="poly"))
    roots = _strong(_shape.atleast_1d(roots))
    if roots.ndim == 2 and roots.shape[0] == roots.shape[1] and roots.shape[0] != 0:
        from .linalg import eigvals
        roots = eigvals(roots)
    if roots.ndim != 1:
        raise ValueError(f"input must be 1d or non-empty square 2d array, got shape {roots.shape}")
    if roots.shape[0] == 0:
        return _creation.ones((), roots.dtype)
    coeffs = _creation.ones((1,), roots.dtype)
    zero = _creation.zeros((1,), roots.dtype)
    for k in range(roots.shape[0]):
        coeffs = _shape.concatenate([coeffs, zero]) - roots[k] * _shape.concatenate([zero, coeffs])
    return coeffs


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """The roots of the polynomial with coefficients `p` (highest power
    first): the eigenvalues of its companion matrix, complex. With
    `strip_zeros` (concrete `p` only), leading zeros are dropped and
    trailing ones give zero roots (listed first), as JAX; without it, a
    leading zero makes the undefined roots NaN (jit-compatible)."""
    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact("roots", asarray(p, fn="roots"))
    if p.ndim != 1:
        raise ValueError(f"jnp.roots: input must be a rank-1 array, got shape {p.shape}")
    zero_roots = 0
    if strip_zeros:
        values = (core.concrete(p, "the coefficients of jnp.roots with strip_zeros=True (pass "
                                "strip_zeros=False under jit)")
                  if isinstance(p, core.Tracer) else np.asarray(p))
        nonzero = np.flatnonzero(values)
        if nonzero.size == 0:
            return _creation.zeros((0,), dtypes.complex_dtype(p.dtype))
        zero_roots = p.shape[0] - 1 - int(nonzero[-1])
        p = p[int(nonzero[0]):int(nonzero[-1]) + 1]
    n = p.shape[0] - 1
    dtype = dtypes.complex_dtype(p.dtype)
    if n < 1:
        found = _creation.zeros((0,), dtype)
    else:
        companion = _creation.eye(n, k=-1, dtype=p.dtype)
        companion = companion.at[0, :].set(-p[1:] / p[0])
        from .linalg import eigvals
        found = eigvals(companion).astype(dtype)
    return _shape.concatenate([_creation.zeros((zero_roots,), dtype), found])


def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """(quotient, remainder) of the polynomial division u / v (coefficient
    arrays, highest power first), in floats. As in JAX the remainder keeps
    u's length (leading zeros) unless `trim_leading_zeros`, which drops
    leading entries below sqrt(eps) (needs concrete values)."""
    check_arraylike("polydiv", u)
    check_arraylike("polydiv", v)
    u, v = promote_dtypes_inexact("polydiv", asarray(u, fn="polydiv"), asarray(v, fn="polydiv"))
    u, v = _strong(u), _strong(v)
    for name, a in (("u", u), ("v", v)):
        if a.ndim == 0:
            raise TypeError(f"jnp.polydiv: {name} must be a 1-d coefficient array, got a 0-d array")
        if a.ndim != 1:
            raise ValueError(f"jnp.polydiv: {name} must be a 1-d coefficient array, got shape {a.shape}")
    m, n = u.shape[0] - 1, v.shape[0] - 1
    if n < 0:
        raise ValueError("jnp.polydiv: v must have at least one coefficient")
    scale = 1.0 / v[0]
    quotient = []
    rem = u
    for k in range(max(m - n + 1, 0)):
        d = scale * rem[k]
        quotient.append(d)
        rem = rem.at[k:k + n + 1].add(-d * v)
    q = _shape.stack(quotient) if quotient else _creation.zeros((1,), u.dtype)
    if trim_leading_zeros:
        if isinstance(rem, core.Tracer):
            rem_values = core.concrete(rem, "trim_leading_zeros=True of jnp.polydiv")
        else:
            rem_values = np.asarray(rem)
        tol = np.sqrt(np.finfo(rem.dtype).eps)
        big = np.flatnonzero(~(np.abs(rem_values) < tol))  # NaNs are kept
        rem = rem[int(big[0]) if big.size else rem.shape[0]:]
    return q, rem


def polyfit(x: Any, y: Any, deg: int, rcond: float | None = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """The least-squares polynomial of degree `deg` (static) through (x, y)
    (y 1-d, or 2-d: one fit per column), coefficients highest power first,
    by `jnp.linalg.lstsq` on the column-scaled Vandermonde matrix (with the
    weights `w` applied to the rows). `full=True` returns (coefficients,
    residuals, rank, singular_values, rcond); `cov=True` (or 'unscaled')
    also the covariance of the coefficients, as NumPy."""
    fn = "polyfit"
    check_arraylike(fn, x)
    check_arraylike(fn, y)
    x, y = asarray(x, fn=fn), asarray(y, fn=fn)
    deg = _shape._static_int(deg, "deg", fn)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError(f"expected 1D vector for x, got shape {x.shape}")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError(f"expected 1D or 2D array for y, got shape {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(f"expected x and y to have same length, got {x.shape[0]} and {y.shape[0]}")
    if rcond is None:
        if not dtypes.is_float(x.dtype):
            raise ValueError(f"jnp.polyfit: data type {x.dtype} of x not inexact (the default rcond, "
                             "len(x) * eps, needs a float x; pass rcond or a float x)")
        rcond = x.shape[0] * float(np.finfo(x.dtype).eps)
    scaled_cov = cov and not full and not (isinstance(cov, str) and cov == "unscaled")
    if scaled_cov and x.shape[0] <= order:
        raise ValueError("the number of data points must exceed order to scale the covariance matrix")
    x, y = promote_dtypes_inexact(fn, x, y)
    x, y = _strong(x), _strong(y)
    lhs = _more.vander(x, order)
    rhs = y
    if w is not None:
        check_arraylike(fn, w)
        w = asarray(w, fn=fn)
        if w.ndim != 1:
            raise TypeError(f"expected a 1-d array for weights, got shape {w.shape}")
        if w.shape[0] != y.shape[0]:
            raise TypeError(f"expected w and y to have the same length, got {w.shape[0]} and {y.shape[0]}")
        (w,) = promote_dtypes_inexact(fn, w)
        w = w.astype(lhs.dtype)
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    scale = _ew.sqrt(_red.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, asarray(rcond, fn=fn)
    if cov:
        base = linalg.inv(lhs.T @ lhs) / _linalg.outer(scale, scale)
        factor = resids / (x.shape[0] - order) if scaled_cov else _creation.ones((), base.dtype)
        if y.ndim == 1:
            return c, base * factor
        return c, base[:, :, None] * factor
    return c
