"""Products of `jaxc.numpy`: dot, matmul, vdot, inner, outer, tensordot,
einsum, kron, cross, and the diagonal helpers trace and diagonal.

Every contraction is one `lax.dot_general` (result dims: batch, lhs free,
rhs free). dtypes follow JAX: operands are promoted together; ints stay
ints (and wrap like JAX's); bool products are bool (computed as int32
counts, then ``!= 0``); float16 and bfloat16 accumulate in float32
(``preferred_element_type``) and are rounded back, which is what XLA does
on the CPU.
"""
from __future__ import annotations

import math
import string
from typing import Any, Sequence

import numpy as np

from .. import dtypes, lax
from ._reductions import sum as _sum
from ._util import asarray, canonicalize_axis, promote_args, promote_dtypes

__all__ = ["dot", "matmul", "vdot", "vecdot", "inner", "outer", "tensordot", "einsum", "trace", "diagonal",
           "kron", "cross"]


# ---------------------------------------------------------------------------
# dtype policy shared by every contraction
# ---------------------------------------------------------------------------

def _accumulation_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a product of `dtype` operands is accumulated in."""
    if dtype == np.bool_:
        return dtypes.default_int()
    if dtypes.is_float(dtype) and dtype.itemsize == 2:
        return np.dtype(np.float32)
    return dtype


def _finish(result: Any, dtype: np.dtype) -> Any:
    """An accumulated result back in the operands' dtype (bools: nonzero)."""
    if dtype == np.bool_:
        return lax.ne(result, lax.full_like(result, 0))
    return lax.convert_element_type(result, dtype)


def _dot_general(a: Any, b: Any, contracting: tuple[Sequence[int], Sequence[int]],
                 batch: tuple[Sequence[int], Sequence[int]] = ((), ()), preferred: Any = None) -> Any:
    """`lax.dot_general` of same-dtype operands with the policy above; a
    `preferred` element type is the result dtype."""
    dimension_numbers = (tuple(map(tuple, contracting)), tuple(map(tuple, batch)))
    weak = a.weak_type and b.weak_type
    if preferred is not None:
        return _dot_general_preferred(a, b, dimension_numbers, dtypes.canonicalize(preferred))
    dtype = a.dtype
    accumulate = _accumulation_dtype(dtype)
    if dtype == np.bool_:
        a, b = (lax.convert_element_type(x, accumulate) for x in (a, b))
        return _finish(lax.dot_general(a, b, dimension_numbers), dtype)
    if accumulate != dtype:
        result = lax.dot_general(a, b, dimension_numbers, preferred_element_type=accumulate)
        return lax.convert_element_type(result, dtype, weak)
    result = lax.dot_general(a, b, dimension_numbers)
    return lax._with_weak(result, True) if weak else result


def _dot_general_preferred(a: Any, b: Any, dimension_numbers: Any, preferred: np.dtype) -> Any:
    """A product whose result dtype the caller chose: operands of another
    kind (ints or bools for a float result) are converted first; a wider
    type of the same kind is the accumulation type; a narrower one is a
    rounding of the result."""
    same_kind = dtypes.is_float(a.dtype) == dtypes.is_float(preferred) and a.dtype != np.bool_
    if not same_kind:
        a, b = (lax.convert_element_type(x, preferred) for x in (a, b))
        return lax.dot_general(a, b, dimension_numbers)
    if preferred.itemsize < a.dtype.itemsize:
        return lax.convert_element_type(lax.dot_general(a, b, dimension_numbers), preferred)
    return lax.dot_general(a, b, dimension_numbers, preferred_element_type=preferred)


def _multiply(fn: str, a: Any, b: Any) -> Any:
    """Elementwise product with broadcasting (bools: logical and)."""
    a, b = promote_args(fn, a, b)
    return lax.mul(a, b)


def _ravel(x: Any) -> Any:
    return x if x.ndim == 1 else lax.reshape(x, (x.size,))


def _check_sizes(fn: str, a: Any, b: Any, a_axes: Sequence[int], b_axes: Sequence[int]) -> None:
    """The contracted dims of `a` and `b` agree (else NumPy's "not aligned" error)."""
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] != b.shape[j]:
            raise TypeError(f"jnp.{fn}: shapes {a.shape} and {b.shape} not aligned: {a.shape[i]} (dim {i}) "
                             f"!= {b.shape[j]} (dim {j})")


# ---------------------------------------------------------------------------
# dot, matmul and relatives
# ---------------------------------------------------------------------------

def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """NumPy's dot: scalars multiply; otherwise the last axis of `a`
    contracts with the second-to-last (or only) axis of `b`."""
    a, b = promote_dtypes("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply("dot", a, b)
    b_axis = 0 if b.ndim == 1 else b.ndim - 2
    _check_sizes("dot", a, b, [a.ndim - 1], [b_axis])
    return _dot_general(a, b, ([a.ndim - 1], [b_axis]), preferred=preferred_element_type)


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``a @ b``: matrix products over broadcast batch dimensions; a 1-d
    operand is a row (left) or column (right) vector whose dimension is
    dropped from the result."""
    a, b = promote_dtypes("matmul", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"jnp.matmul: operands must be at least 1-d, got shapes {a.shape} @ {b.shape} "
                         "(use jnp.multiply for scalars)")
    a_vector, b_vector = a.ndim == 1, b.ndim == 1
    k_a = a.shape[-1]
    k_b = b.shape[0] if b_vector else b.shape[-2]
    if k_a != k_b:
        raise TypeError(f"jnp.matmul: contracting dimensions differ: {a.shape} @ {b.shape} "
                         f"({k_a} != {k_b})")
    a_batch = a.shape[:-2]
    b_batch = b.shape[:-2]
    nbatch = max(len(a_batch), len(b_batch))
    # Per output batch position: a dot_general batch dim when both have it
    # (same size), else a free dim of whichever operand has the real size.
    a_squeeze, b_squeeze, a_batch_dims, b_batch_dims = [], [], [], []
    out_batch, out_a_free, out_b_free = [], [], []
    for pos in range(nbatch):
        i = pos - (nbatch - len(a_batch))
        j = pos - (nbatch - len(b_batch))
        da = a_batch[i] if i >= 0 else None
        db = b_batch[j] if j >= 0 else None
        if da is not None and db is not None and da == db and da != 1:
            a_batch_dims.append(i)
            b_batch_dims.append(j)
            out_batch.append(pos)
        elif da is None or (da == 1 and db is not None):
            if da is not None:
                a_squeeze.append(i)
            out_b_free.append((j, pos))
        elif db is None or db == 1:
            if db is not None:
                b_squeeze.append(j)
            out_a_free.append((i, pos))
        else:
            raise ValueError(f"jnp.matmul: batch dimensions {a_batch} and {b_batch} do not broadcast: "
                             f"{a.shape} @ {b.shape}")
    a_contract, b_contract = a.ndim - 1, (0 if b_vector else b.ndim - 2)
    if not a_vector:
        out_a_free.append((a.ndim - 2, nbatch))
    if not b_vector:
        out_b_free.append((b.ndim - 1, nbatch + (not a_vector)))
    a, a_renumber = _squeeze(a, a_squeeze)
    b, b_renumber = _squeeze(b, b_squeeze)
    result = _dot_general(a, b, ([a_renumber[a_contract]], [b_renumber[b_contract]]),
                          ([a_renumber[d] for d in a_batch_dims], [b_renumber[d] for d in b_batch_dims]),
                          preferred_element_type)
    # dot_general's order is batch, a free (in a's order), b free (in b's order).
    emitted = out_batch + [pos for _, pos in sorted(out_a_free)] + [pos for _, pos in sorted(out_b_free)]
    permutation = tuple(int(k) for k in np.argsort(emitted))
    return result if permutation == tuple(range(len(emitted))) else lax.transpose(result, permutation)


def _squeeze(x: Any, dims: Sequence[int]) -> tuple[Any, dict[int, int]]:
    """`x` without the size-1 `dims`, and the map old dim -> new dim."""
    kept = [d for d in range(x.ndim) if d not in dims]
    return (lax.squeeze(x, tuple(dims)) if dims else x), {d: k for k, d in enumerate(kept)}


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Dot product of the flattened operands, `a` conjugated when complex."""
    a, b = promote_dtypes("vdot", a, b)
    if dtypes.is_complex(a.dtype):
        a = lax.conj(a)
    if a.size != b.size:
        raise TypeError(f"jnp.vdot: operands must have the same size, got shapes {a.shape} and {b.shape}")
    return _dot_general(_ravel(a), _ravel(b), ([0], [0]), preferred=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Dot products of vectors along `axis`, broadcasting the other
    dimensions; complex `x1` is conjugated (sum of conj(x1) x2), as JAX's and
    the Array API's."""
    s1, s2 = np.shape(x1), np.shape(x2)
    if s1 and s2 and s1[axis % len(s1)] != s2[axis % len(s2)]:
        raise ValueError(f"jnp.vecdot: the sizes along axis={axis} must match, got shapes {s1} and {s2}")
    x1, x2 = promote_args("vecdot", x1, x2)
    if dtypes.is_complex(x1.dtype):
        x1 = lax.conj(x1)
    if x1.ndim == 0:
        raise ValueError("jnp.vecdot: operands must be at least 1-d, got shapes () and ()")
    axis = canonicalize_axis(axis, x1.ndim, "vecdot")
    batch = [d for d in range(x1.ndim) if d != axis]
    return _dot_general(x1, x2, ([axis], [axis]), (batch, batch), preferred_element_type)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Sum of products over the last axes of `a` and `b` (scalars multiply)."""
    a, b = promote_dtypes("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply("inner", a, b)
    _check_sizes("inner", a, b, [a.ndim - 1], [b.ndim - 1])
    return _dot_general(a, b, ([a.ndim - 1], [b.ndim - 1]), preferred=preferred_element_type)


def outer(a: Any, b: Any, out: Any = None) -> Any:
    """``outer[i, j] = a.ravel()[i] * b.ravel()[j]``."""
    if out is not None:
        raise NotImplementedError("jnp.outer: the 'out' argument is not supported (arrays are immutable)")
    a, b = promote_dtypes("outer", a, b)
    a, b = _ravel(a), _ravel(b)
    shape = (a.shape[0], b.shape[0])
    return lax.mul(lax.broadcast_in_dim(a, shape, (0,)), lax.broadcast_in_dim(b, shape, (1,)))


def _axis_list(fn: str, axes: Any, ndim: int) -> list[int]:
    seq = axes if isinstance(axes, (tuple, list)) else [axes]
    return [canonicalize_axis(d, ndim, fn) for d in seq]


def tensordot(a: Any, b: Any, axes: Any = 2, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Contract the last `axes` dims of `a` with the first of `b`, or the
    axes listed as ``(a_axes, b_axes)``; the result has a's free dims, then b's."""
    a, b = promote_dtypes("tensordot", a, b)
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"jnp.tensordot: axes must be an int or a pair of axis lists, got {axes!r}")
        a_axes = _axis_list("tensordot", axes[0], a.ndim)
        b_axes = _axis_list("tensordot", axes[1], b.ndim)
        if len(a_axes) != len(b_axes):
            raise ValueError(f"jnp.tensordot: axes {axes!r} name {len(a_axes)} axes of a but {len(b_axes)} of b")
    else:
        try:
            n = int(lax._ops.operator_index(axes))
        except TypeError:
            raise TypeError(f"jnp.tensordot: axes must be an int or a pair of axis lists, got {axes!r}") from None
        if not 0 <= n <= min(a.ndim, b.ndim):
            raise ValueError(f"jnp.tensordot: axes={n} is out of range for shapes {a.shape} and {b.shape}")
        a_axes, b_axes = list(range(a.ndim - n, a.ndim)), list(range(n))
    if len(set(a_axes)) != len(a_axes) or len(set(b_axes)) != len(b_axes):
        raise ValueError(f"jnp.tensordot: repeated axis in {axes!r}")
    _check_sizes("tensordot", a, b, a_axes, b_axes)
    return _dot_general(a, b, (a_axes, b_axes), preferred=preferred_element_type)


def kron(a: Any, b: Any) -> Any:
    """Kronecker product: blocks ``a[i, j] * b`` (the lower rank operand gets leading 1s)."""
    a, b = promote_dtypes("kron", a, b)
    ndim = max(a.ndim, b.ndim)
    a = lax.reshape(a, (1,) * (ndim - a.ndim) + a.shape)
    b = lax.reshape(b, (1,) * (ndim - b.ndim) + b.shape)
    interleaved = tuple(d for pair in zip(a.shape, b.shape) for d in pair)
    product = lax.mul(lax.broadcast_in_dim(a, interleaved, tuple(range(0, 2 * ndim, 2))),
                      lax.broadcast_in_dim(b, interleaved, tuple(range(1, 2 * ndim, 2))))
    return lax.reshape(product, tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Any:
    """Cross product of 3-vectors (or 2-vectors, whose z component is 0)
    along `axisa`/`axisb`, broadcasting the other dimensions; two 2-vectors
    give the scalar z component."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtypes("cross", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"jnp.cross: operands must be vectors, got shapes {a.shape} and {b.shape}")
    a_axis = canonicalize_axis(axisa, a.ndim, "cross")
    b_axis = canonicalize_axis(axisb, b.ndim, "cross")
    if a.shape[a_axis] not in (2, 3) or b.shape[b_axis] not in (2, 3):
        raise ValueError(f"jnp.cross: vectors must have 2 or 3 components, got {a.shape[a_axis]} (shape "
                         f"{a.shape}, axis {axisa}) and {b.shape[b_axis]} (shape {b.shape}, axis {axisb})")
    a_parts = [lax.index_in_dim(a, i, a_axis, keepdims=False) for i in range(a.shape[a_axis])]
    b_parts = [lax.index_in_dim(b, i, b_axis, keepdims=False) for i in range(b.shape[b_axis])]
    parts = promote_args("cross", *a_parts, *b_parts)
    a_parts, b_parts = parts[:len(a_parts)], parts[len(a_parts):]

    def minus(x: Any, y: Any, u: Any, v: Any) -> Any:
        return lax.sub(lax.mul(x, y), lax.mul(u, v))
    if len(a_parts) == 2 and len(b_parts) == 2:
        return minus(a_parts[0], b_parts[1], a_parts[1], b_parts[0])
    zero = lax.full_like(a_parts[0], 0)
    ax, ay, az = a_parts + [zero] * (3 - len(a_parts))
    bx, by, bz = b_parts + [zero] * (3 - len(b_parts))
    parts = [minus(ay, bz, az, by), minus(az, bx, ax, bz), minus(ax, by, ay, bx)]
    stacked = lax.concatenate([lax.expand_dims(p, (p.ndim,)) for p in parts], parts[0].ndim)
    c_axis = canonicalize_axis(axisc, stacked.ndim, "cross")
    if c_axis == stacked.ndim - 1:
        return stacked
    permutation = list(range(stacked.ndim - 1))
    permutation.insert(c_axis, stacked.ndim - 1)
    return lax.transpose(stacked, tuple(permutation))


# ---------------------------------------------------------------------------
# Diagonals
# ---------------------------------------------------------------------------

def _diagonal_axes(fn: str, x: Any, axis1: int, axis2: int) -> tuple[int, int]:
    if x.ndim < 2:
        raise ValueError(f"jnp.{fn}: needs an array of at least 2 dimensions, got shape {x.shape}")
    axis1 = canonicalize_axis(axis1, x.ndim, fn)
    axis2 = canonicalize_axis(axis2, x.ndim, fn)
    if axis1 == axis2:
        raise ValueError(f"jnp.{fn}: axis1 and axis2 must differ, got {axis1} and {axis2}")
    return axis1, axis2


def _take_diagonal(x: Any, axis1: int, axis2: int, offset: int = 0) -> Any:
    """``x[..., i, i + offset]`` over `axis1`/`axis2`: both axes removed and
    the diagonal appended last (one gather with constant indices)."""
    n1, n2 = x.shape[axis1], x.shape[axis2]
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n1 - start1, n2 - start2))
    rest = tuple(d for i, d in enumerate(x.shape) if i not in (axis1, axis2))
    if length == 0 or math.prod(rest) == 0:
        return lax.full((*rest, length), 0, x.dtype)
    steps = np.arange(length, dtype=np.int32)
    indices = lax.constant(np.stack([start1 + steps, start2 + steps], axis=1))
    slice_sizes = tuple(1 if i in (axis1, axis2) else d for i, d in enumerate(x.shape))
    numbers = lax.GatherDimensionNumbers(offset_dims=tuple(range(len(rest))),
                                         collapsed_slice_dims=tuple(sorted((axis1, axis2))),
                                         start_index_map=(axis1, axis2))
    return lax.gather(x, indices, numbers, slice_sizes)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The diagonal ``a[..., i, i + offset]`` of the `axis1`/`axis2` planes,
    as the last dimension of the result."""
    a = asarray(a, fn="diagonal")
    axis1, axis2 = _diagonal_axes("diagonal", a, axis1, axis2)
    return _take_diagonal(a, axis1, axis2, int(lax._ops.operator_index(offset)))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> Any:
    """Sum of `diagonal(a, offset, axis1, axis2)` (dtype rules of `jnp.sum`)."""
    if out is not None:
        raise NotImplementedError("jnp.trace: the 'out' argument is not supported (arrays are immutable)")
    a = asarray(a, fn="trace")
    axis1, axis2 = _diagonal_axes("trace", a, axis1, axis2)
    return _sum(_take_diagonal(a, axis1, axis2, int(lax._ops.operator_index(offset))), -1, dtype=dtype)


# ---------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------

_ELLIPSIS_LABELS = [chr(0x2460 + i) for i in range(64)]  # stand-ins for the dims under '...'


def _einsum_parse(subscripts: str, ndims: list[int]) -> tuple[list[list[str]], list[str]]:
    """Labels of each operand's dims and of the output (explicit or NumPy's
    implicit: ellipsis dims, then the labels used once, sorted)."""
    spec = subscripts.replace(" ", "")
    if spec.count("->") > 1:
        raise ValueError(f"jnp.einsum: subscripts {subscripts!r} contain '->' more than once")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise ValueError(f"jnp.einsum: subscripts {subscripts!r} name {len(terms)} operands, got {len(ndims)}")
    ellipsis_ndim = 0
    for i, (term, ndim) in enumerate(zip(terms + [rhs], ndims + [None])):
        bare = term.replace("...", "", 1)
        bad = [c for c in bare if c not in string.ascii_letters]
        if bad:
            raise ValueError(f"jnp.einsum: invalid subscript {bad[0]!r} in {subscripts!r} (letters and one "
                             "'...' per operand only)")
        if ndim is None:
            continue
        if "..." in term:
            if len(bare) > ndim:
                raise ValueError(f"jnp.einsum: subscripts {term!r} name more dimensions than operand {i} of "
                                 f"{ndim} dimensions has")
            ellipsis_ndim = max(ellipsis_ndim, ndim - len(bare))
        elif len(term) != ndim:
            raise ValueError(f"jnp.einsum: operand {i} has {ndim} dimensions but its subscripts {term!r} "
                             f"name {len(term)}")

    def expand(term: str, ndim: int) -> list[str]:
        head, dots, tail = term.partition("...")
        if not dots:
            return list(term)
        k = ndim - len(head) - len(tail)
        return [*head, *_ELLIPSIS_LABELS[ellipsis_ndim - k:ellipsis_ndim], *tail]

    inputs = [expand(term, ndim) for term, ndim in zip(terms, ndims)]
    if arrow:
        # an output without '...' sums over the dimensions it stands for (as JAX; NumPy raises)
        output = expand(rhs, len(rhs.replace("...", "")) + ellipsis_ndim)
        seen = {label for labels in inputs for label in labels}
        for label in output:
            if output.count(label) > 1:
                raise ValueError(f"jnp.einsum: output subscript {label!r} repeated in {subscripts!r}")
            if label not in seen:
                raise ValueError(f"jnp.einsum: output subscript {label!r} does not appear in the inputs of "
                                 f"{subscripts!r}")
    else:
        counts: dict[str, int] = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        output = _ELLIPSIS_LABELS[:ellipsis_ndim] + sorted(
            label for label, n in counts.items() if n == 1 and label in string.ascii_letters)
    return inputs, output


def _einsum_sizes(subscripts: str, operands: list[Any], inputs: list[list[str]]) -> dict[str, int]:
    """The size of each label; a size-1 dim broadcasts against a larger one."""
    sizes: dict[str, int] = {}
    for i, (x, labels) in enumerate(zip(operands, inputs)):
        for label, d in zip(labels, x.shape):
            known = sizes.get(label, 1)
            if d != 1 and known != 1 and d != known:
                shown = "'...'" if label in _ELLIPSIS_LABELS else repr(label)
                raise ValueError(f"jnp.einsum: size of {shown} in {subscripts!r} differs: {known} vs {d} in "
                                 f"operand {i} of shape {x.shape}")
            sizes[label] = max(known, d)
    return sizes


def _einsum_prepare(x: Any, labels: list[str], sizes: dict[str, int], keep: set[str]) -> tuple[Any, list[str]]:
    """One operand made ready to contract: broadcast (size-1) dims dropped,
    repeated labels reduced to their diagonal, labels nobody else needs summed."""
    drop = [d for d, label in enumerate(labels) if x.shape[d] == 1 and sizes[label] != 1]
    if drop:
        x = lax.reshape(x, tuple(s for d, s in enumerate(x.shape) if d not in drop))
        labels = [label for d, label in enumerate(labels) if d not in drop]
    for label in dict.fromkeys(labels):
        while labels.count(label) > 1:
            first = labels.index(label)
            second = labels.index(label, first + 1)
            x = _take_diagonal(x, first, second)
            labels = [lb for d, lb in enumerate(labels) if d not in (first, second)] + [label]
    return _einsum_sum_out(x, labels, keep)


def _einsum_sum_out(x: Any, labels: list[str], keep: set[str]) -> tuple[Any, list[str]]:
    summed = tuple(d for d, label in enumerate(labels) if label not in keep)
    if not summed:
        return x, labels
    return lax.reduce_sum(x, summed), [label for label in labels if label in keep]


def _einsum_interleaved(args: tuple) -> tuple[str, tuple[Any, ...]]:
    """``einsum(x, [0, 1], y, [1, 2], [0, 2])`` as a subscripts string."""
    output = args[-1] if len(args) % 2 else None
    pairs = args[:-1] if len(args) % 2 else args
    operands, terms = pairs[0::2], list(pairs[1::2])

    def letters(term: Sequence[Any]) -> str:
        out = []
        for s in term:
            if s is Ellipsis:
                out.append("...")
            else:
                index = int(lax._ops.operator_index(s))
                if not 0 <= index < len(string.ascii_letters):
                    raise ValueError(f"jnp.einsum: subscript {index} out of range [0, 52)")
                out.append(string.ascii_letters[index])
        return "".join(out)
    spec = ",".join(letters(t) for t in terms)
    if output is not None:
        spec += "->" + letters(output)
    return spec, operands


def einsum(subscripts: Any, /, *operands: Any, out: Any = None, optimize: Any = "auto", precision: Any = None,
           preferred_element_type: Any = None) -> Any:
    """Einstein summation (NumPy's subscripts, '...', implicit output, and
    the interleaved ``einsum(x, [0, 1], y, [1, 2])`` form). Operands are
    contracted pairwise from left to right, one `lax.dot_general` per pair
    with the labels still needed later as batch dims; `optimize` is
    accepted and ignored (the order is always left to right)."""
    if out is not None:
        raise NotImplementedError("jnp.einsum: the 'out' argument is not supported (arrays are immutable)")
    if not isinstance(subscripts, str):
        subscripts, operands = _einsum_interleaved((subscripts, *operands))
    if not operands:
        raise ValueError("jnp.einsum: needs at least one operand")
    arrays = promote_dtypes("einsum", *operands)
    result_dtype = arrays[0].dtype if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    compute = _accumulation_dtype(result_dtype)
    arrays = [lax.convert_element_type(x, compute) for x in arrays]
    inputs, output = _einsum_parse(subscripts, [x.ndim for x in arrays])
    sizes = _einsum_sizes(subscripts, arrays, inputs)

    def needed_after(k: int) -> set[str]:
        return set(output).union(*[set(labels) for labels in inputs[k + 1:]])

    result, labels = _einsum_prepare(arrays[0], list(inputs[0]), sizes, needed_after(0))
    for k in range(1, len(arrays)):
        later = needed_after(k)
        other, other_labels = _einsum_prepare(arrays[k], list(inputs[k]), sizes, later | set(labels))
        result, labels = _einsum_sum_out(result, labels, later | set(other_labels))
        shared = [label for label in labels if label in other_labels]
        batch = [label for label in shared if label in later]
        contract = [label for label in shared if label not in later]
        result = lax.dot_general(result, other, (
            ([labels.index(lb) for lb in contract], [other_labels.index(lb) for lb in contract]),
            ([labels.index(lb) for lb in batch], [other_labels.index(lb) for lb in batch])))
        labels = batch + [lb for lb in labels if lb not in shared] + [lb for lb in other_labels if lb not in shared]
    result, labels = _einsum_sum_out(result, labels, set(output))
    permutation = tuple(labels.index(label) for label in output)
    if permutation != tuple(range(len(labels))):
        result = lax.transpose(result, permutation)
    return _finish(result, result_dtype)
