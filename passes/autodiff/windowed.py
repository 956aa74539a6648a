"""Derivative rules of convolutions (reverse mode) and cumulative ops (both
modes).

    conv_general_dilated  bilinear (forward mode is in reductions.py). The
                  adjoint of each operand is one more convolution, as in
                  XLA/JAX: for the lhs, the cotangent convolved with the
                  spatially reversed kernel (strides and lhs dilation
                  swap); for the rhs, the lhs convolved with the cotangent
                  (strides and rhs dilation swap). Feature groups become
                  batch groups in the rhs adjoint and the other way round.
    cumulative    sum is linear (the op on the tangent; its transpose runs
                  the other way). prod, max and min are
                  solved as first-order linear recurrences
                  h[i] = a[i] * h[i-1] + b[i] along the axis (in scan
                  order, so `reverse` only flips the direction), with a
                  log-depth scan of pads, muls and adds:
                    prod     a = x, b = (product of the earlier x) * t: only
                             products, so zeros are handled exactly
                    max/min  a = 1 while the running extreme stays the same
                             and 0 where it changes (a segmented sum), b =
                             t where x attains the running extreme: the
                             derivative of y[i] is the mean of the tangents
                             of the elements j <= i with x[j] == y[i], shared
                             equally between ties as reduce max is. (JAX
                             agrees up to ties of two; its associative scan
                             splits more ties unequally, by its tree.)
                  The adjoint of b -> h is the same recurrence run the
                  other way with a shifted one place.

A 1-d convolution's adjoints (after jaxc-cleanup; the attributes not shown
are those of the forward op, all 1 or 0):

    %y = jaxc.conv_general_dilated %x, %w, ... : (tensor<1x1x5xf32>, tensor<1x1x2xf32>) -> tensor<1x1x4xf32>
  -> vjp
    %0 = jaxc.reverse %w, dims = [2] : tensor<1x1x2xf32>
    %dx = jaxc.conv_general_dilated %ct, %0, ..., padding = [1, 1], ...,
            lhs_spec = [0, 1, 2], rhs_spec = [1, 0, 2], out_spec = [0, 1, 2], ...
            : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x5xf32>
    %dw = jaxc.conv_general_dilated %x, %ct, ..., padding = [0, 0], ...,
            lhs_spec = [1, 0, 2], rhs_spec = [1, 0, 2], out_spec = [1, 0, 2], ...
            : (tensor<1x1x5xf32>, tensor<1x1x4xf32>) -> tensor<1x1x2xf32>

The tangent of a 2-element cumprod (one scan step; %1 is 1.0, %0 is 0.0):

    %y = jaxc.cumulative prod %x, axis = 0 : tensor<2xf32>
  -> jvp
    %3 = jaxc.pad %y, %1, low = [1], high = [-1], interior = [0]   // b = [1, x0] * t
    %4 = jaxc.mul %3, %t : tensor<2xf32>
    %5 = jaxc.pad %4, %0, low = [1], high = [-1], interior = [0]   // b + a * shift(b)
    %6 = jaxc.mul %x, %5 : tensor<2xf32>
    %7 = jaxc.add %4, %6 : tensor<2xf32>                           // [t0, x0 t1 + x1 t0]
"""
from __future__ import annotations

from jaxc import lax

from ..ir import integer, ints, is_inexact
from . import reductions
from .jvp import JVP, apply_op
from .vjp import VJP

# --- conv_general_dilated --------------------------------------------------

def _conv_params(op):
    pads = ints(op, "padding")
    return dict(strides=ints(op, "window_strides"), padding=list(zip(pads[::2], pads[1::2])),
                lhs_dilation=ints(op, "lhs_dilation"), rhs_dilation=ints(op, "rhs_dilation"),
                specs=(ints(op, "lhs_spec"), ints(op, "rhs_spec"), ints(op, "out_spec")),
                groups=integer(op, "feature_group_count") if "feature_group_count" in op.attributes else 1,
                batch_groups=integer(op, "batch_group_count") if "batch_group_count" in op.attributes else 1)


def _swap(spec):
    """A spec with its first two entries (batch/feature, out/in) swapped."""
    return [spec[1], spec[0], *spec[2:]]


def _dilated(sizes, dilation):
    return [0 if n == 0 else (n - 1) * d + 1 for n, d in zip(sizes, dilation)]


def _regroup(x, src, dst, groups):
    """Split dimension `src` of x as (groups, rest) and merge the groups
    factor into dimension `dst`, as its major part."""
    shape = list(x.shape)
    split = lax.reshape(x, shape[:src] + [groups, shape[src] // groups] + shape[src + 1:])
    perm = [d for d in range(x.ndim + 1) if d != src]  # the original dims, in order
    perm.insert(dst, src)
    shape[src] //= groups
    shape[dst] *= groups
    return lax.reshape(lax.transpose(split, perm), shape)


def _as(x, dtype):
    return x if x.dtype == dtype else lax.convert_element_type(x, dtype)


def _conv(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, specs, groups, batch_groups):
    return lax.conv_general_dilated(
        lhs, rhs, strides, [(int(lo), int(hi)) for lo, hi in padding], lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=lax.ConvDimensionNumbers(*map(tuple, specs)),
        feature_group_count=groups, batch_group_count=batch_groups)


def _conv_transpose_lhs(ct, lhs, rhs, p):
    """The cotangent of lhs: ct convolved with the reversed kernel, whose
    in and out features swap (the groups move into its out features)."""
    ls, rs, os_ = p["specs"]
    groups, batch_groups = p["groups"], p["batch_groups"]
    if groups > 1 or batch_groups > 1:
        rhs = _regroup(rhs, rs[0], rs[1], max(groups, batch_groups))
    lhs_sizes = [lhs.shape[d] for d in ls[2:]]
    window = _dilated([rhs.shape[d] for d in rs[2:]], p["rhs_dilation"])
    before = [w - lo - 1 for w, (lo, _) in zip(window, p["padding"])]
    after = [n + w - 1 - o - b for n, w, o, b in zip(
        _dilated(lhs_sizes, p["lhs_dilation"]), window,
        _dilated([ct.shape[d] for d in os_[2:]], p["strides"]), before)]
    kernel = _as(lax.rev(rhs, rs[2:]), ct.dtype)
    out = _conv(ct, kernel, p["lhs_dilation"], list(zip(before, after)), p["strides"], p["rhs_dilation"],
                (os_, _swap(rs), ls), max(groups, batch_groups), 1)
    if batch_groups > 1:
        out = _regroup(out, ls[1], ls[0], batch_groups)
    return _as(out, lhs.dtype)


def _conv_transpose_rhs(ct, lhs, rhs, p):
    """The cotangent of rhs: lhs (batch and features swapped) convolved with
    ct as the kernel (its batch is the contracted dimension)."""
    ls, rs, os_ = p["specs"]
    in_sizes = _dilated([lhs.shape[d] for d in ls[2:]], p["lhs_dilation"])
    window = _dilated([rhs.shape[d] for d in rs[2:]], p["rhs_dilation"])
    out_sizes = _dilated([ct.shape[d] for d in os_[2:]], p["strides"])
    padding = [(lo, o - n + w - lo - 1) for (lo, _), n, w, o in zip(p["padding"], in_sizes, window, out_sizes)]
    out = _conv(_as(lhs, ct.dtype), ct, p["rhs_dilation"], padding, p["lhs_dilation"], p["strides"],
                (_swap(ls), _swap(os_), _swap(rs)), p["batch_groups"], p["groups"])
    return _as(out, rhs.dtype)


def _conv_vjp(op, xs, ys, cts):
    lhs, rhs = xs
    ct, p = cts[0], _conv_params(op)
    if 0 in lhs.shape or 0 in rhs.shape or 0 in ct.shape:  # an empty sum, or nothing to differentiate
        return [_zeros_if_float(lhs), _zeros_if_float(rhs)]
    return [_conv_transpose_lhs(ct, lhs, rhs, p) if is_inexact(lhs.value.type) else None,
            _conv_transpose_rhs(ct, lhs, rhs, p) if is_inexact(rhs.value.type) else None]


def _zeros_if_float(x):
    return lax.full(x.shape, 0, x.dtype) if is_inexact(x.value.type) else None


# --- cumulative prod, max, min ----------------------------------------------

def _shift(v, axis, k, fill, reverse):
    """v moved k places along `axis` in scan order (k < 0: backwards), the
    vacated places set to `fill`: out[i] = v[i - k]."""
    config = [(0, 0, 0)] * v.ndim
    config[axis] = (-k, k, 0) if reverse else (k, -k, 0)
    return lax.pad(v, lax.full((), fill, v.dtype), config)


def _recurrence(a, b, axis, reverse):
    """h with h[i] = a[i] * h[i-1] + b[i] along `axis` in scan order (h[-1]
    = 0, so a[0] is never used): log2(n) steps that each compose a pair
    with the pair d places earlier (Hillis-Steele)."""
    d = 1
    while d < a.shape[axis]:
        b = b + a * _shift(b, axis, d, 0, reverse)
        a = a * _shift(a, axis, d, 1, reverse)
        d *= 2
    return b


def _recurrence_transpose(a, u, axis, reverse):
    """The adjoint of b -> _recurrence(a, b): g[j] = u[j] + a[j+1] * g[j+1],
    the recurrence run the other way."""
    return _recurrence(_shift(a, axis, -1, 0, reverse), u, axis, not reverse)


def _extreme_terms(x, y, axis, reverse):
    """For cummax/cummin: (a, attains, count) with a = 1 where y equals its
    predecessor (0 starts a new run of equal values), attains = 1 where x
    is the running extreme, count = how many elements share y[i] so far."""
    a = lax.convert_element_type(lax.eq(y, _shift(y, axis, 1, 0, reverse)), x.dtype)
    attains = lax.convert_element_type(lax.eq(x, y), x.dtype)
    return a, attains, _recurrence(a, attains, axis, reverse)


def _cumulative_jvp(op, xs, ys, ts):
    kind = reductions.kind_of(op)
    if kind == "sum":  # linear
        return apply_op(op, [ts[0]])
    x, y, t = xs[0], ys[0], ts[0]
    axis, reverse = integer(op, "axis"), "reverse" in op.attributes
    if kind == "prod":
        return [_recurrence(x, _shift(y, axis, 1, 1, reverse) * t, axis, reverse)]
    a, attains, count = _extreme_terms(x, y, axis, reverse)
    return [_recurrence(a, attains * t, axis, reverse) / count]


def _cumulative_vjp(op, xs, ys, cts):
    kind = reductions.kind_of(op)
    if kind == "sum":  # the transpose of a running sum runs the other way
        return [lax.cumsum(cts[0], integer(op, "axis"), reverse="reverse" not in op.attributes)]
    x, y, ct = xs[0], ys[0], cts[0]
    axis, reverse = integer(op, "axis"), "reverse" in op.attributes
    if kind == "prod":
        return [_shift(y, axis, 1, 1, reverse) * _recurrence_transpose(x, ct, axis, reverse)]
    a, attains, count = _extreme_terms(x, y, axis, reverse)
    return [attains * _recurrence_transpose(a, ct / count, axis, reverse)]


JVP["jaxc.cumulative"] = _cumulative_jvp
VJP.update({"jaxc.cumulative": _cumulative_vjp, "jaxc.conv_general_dilated": _conv_vjp})
