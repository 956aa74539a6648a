"""The rest of JAX's `jax.lax` names that compose from jaxc's lax ops (no
ops of their own): shape helpers, scatter variants, integer and float
helpers, implicit differentiation (`custom_linear_solve`, `custom_root`),
convolution shape arithmetic, the option enums, random bits, two
collectives and a few small conveniences.

    lax.split(x, (2, 3), axis=1)          -> two `slice_in_dim`s
    lax.mulhi(x, y)                       -> half-word partial products
    lax.custom_linear_solve(mv, b, solve) -> custom_jvp / custom_vjp whose
                                             rules call the solvers again

`custom_linear_solve` and `custom_root` differentiate through the values
`matvec` / `f` close over (JAX closure-converts them): the function is
traced once into a private function of the module being traced, and called
with those values as explicit arguments, so the derivative rules can
differentiate with respect to them. What `solve`, `transpose_solve` and
`tangent_solve` close over gets no derivative, as in JAX.
"""
from __future__ import annotations

import builtins
import enum
import functools
import itertools
from collections.abc import Sequence as _Sequence
from typing import Any, Callable, Sequence, Union

import numpy as np

from .. import core, dtypes, tree_util
from . import _more as M, _ops as L, _parallel as P
from ._bit_generator import RandomAlgorithm, rng_bit_generator  # noqa: F401 -- exported here

__all__ = [
    "split", "tile", "stack", "unstack", "empty", "broadcast_like",
    "scatter_sub", "scatter_apply", "index_take",
    "mulhi", "reduce_precision", "optimization_barrier", "dtype",
    "custom_linear_solve", "custom_root",
    "conv_general_permutations", "conv_general_shape_tuple", "conv_shape_tuple",
    "conv_transpose_shape_tuple", "reduce_window_shape_tuple", "conv_general_dilated_local",
    "ConvGeneralDilatedDimensionNumbers", "DotDimensionNumbers", "GatherScatterMode", "Precision",
    "PrecisionLike", "RandomAlgorithm",
    "rng_uniform", "rng_bit_generator",
    "psum_scatter", "axis_size", "with_sharding_constraint",
    "approx_max_k", "approx_min_k", "platform_dependent", "ragged_dot",
    "composite", "stage", "dce_sink", "shape_as_value",
]


# ---------------------------------------------------------------------------
# Shapes and indexing
# ---------------------------------------------------------------------------

def _in_range(axis: Any, ndim: int) -> int:
    """A static axis in [-ndim, ndim) as a non-negative int (JAX's ValueError)."""
    axis = int(L.operator_index(axis))
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list[Any]:
    """`operand` cut along `axis` into consecutive pieces of `sizes` (which
    must add up to the axis' size): a list of arrays."""
    x = L._array(operand, "split")
    axis = _in_range(axis, x.ndim)
    sizes = L._ints(sizes, "split", "sizes")
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand "
                         f"shape {list(x.shape)}")
    out, start = [], 0
    for size in sizes:
        out.append(L.slice_in_dim(x, start, start + size, 1, axis))
        start += size
    return out


def tile(operand: Any, reps: Sequence[int]) -> Any:
    """`operand` repeated reps[i] times along each dimension i (one entry
    per dimension): a broadcast to (reps[0], n0, reps[1], n1, ...) and a
    reshape."""
    x = L._array(operand, "tile")
    reps = L._ints(reps, "tile", "reps")
    if len(reps) != x.ndim:
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and "
                        f"x.ndim={x.ndim}.")
    if any(r < 0 for r in reps):
        raise ValueError(f"lax.tile: reps must be non-negative, got {reps}")
    if all(r == 1 for r in reps):
        return x
    wide = tuple(d for pair in zip(reps, x.shape) for d in pair)
    out = L.broadcast_in_dim(x, wide, tuple(range(1, 2 * x.ndim, 2)))
    return L.reshape(out, tuple(r * n for r, n in zip(reps, x.shape)))


def _shape_of(x: Any) -> tuple[int, ...]:
    return tuple(x.shape) if isinstance(x, core.ArrayBase) else np.shape(x)


def stack(operands: Sequence[Any], axis: int = 0) -> Any:
    """Arrays of one shape and dtype stacked along a new dimension `axis`
    (in [-ndim - 1, ndim])."""
    operands = list(operands)
    if not operands:
        raise IndexError("lax.stack needs at least one operand")
    shapes = [_shape_of(x) for x in operands]
    if any(s != shapes[0] for s in shapes[1:]):
        raise ValueError(f"All input arrays must have the same shape. Got "
                         f"{', '.join(str(tuple(s)) for s in shapes)}.")
    xs = L._same("stack", *operands)
    axis = _in_range(axis, xs[0].ndim + 1)
    return L.concatenate([L.expand_dims(x, (axis,)) for x in xs], axis)


def unstack(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """The slices of `x` along `axis` (that dimension removed), as a tuple."""
    x = L._array(x, "unstack")
    axis = _in_range(axis, x.ndim)
    return tuple(L.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis]))


def empty(shape: Any, dtype: Any, *, out_sharding: Any = None) -> Any:
    """An array of `shape` and `dtype` whose contents are unspecified (JAX
    leaves them uninitialized); jaxc fills it with zeros."""
    if out_sharding is not None:
        raise NotImplementedError("lax.empty: out_sharding is not supported (jaxc has no sharding)")
    dtype = dtypes.default_float() if dtype is None else L._dtype(dtype, "empty")
    return L.full(L._shape(shape, "lax.empty"), 0, dtype)


def broadcast_like(arr: Any, like_arr: Any) -> Any:
    """`arr` broadcast (NumPy's rules: trailing dimensions aligned, sizes
    equal or 1) to the shape of `like_arr`; `arr` keeps its dtype."""
    x = L._array(arr, "broadcast_like")
    shape = _shape_of(like_arr)
    extra = len(shape) - x.ndim
    if extra < 0 or any(n not in (1, m) for n, m in zip(x.shape, shape[extra:])):
        raise ValueError(f"Incompatible types for broadcasting: input type={x.aval.str_short()} and "
                         f"requested type={_shape_str(x.dtype, shape)}")
    keep = tuple(i for i, (n, m) in enumerate(zip(x.shape, shape[extra:])) if n == m)
    if len(keep) != x.ndim:  # size-1 dimensions that grow: drop them first
        x = L.reshape(x, tuple(x.shape[i] for i in keep))
    return L.broadcast_in_dim(x, shape, tuple(extra + i for i in keep))


def _shape_str(dtype: Any, shape: Sequence[int]) -> str:
    return core.ShapedArray(tuple(shape), np.dtype(dtype)).str_short()


# ---------------------------------------------------------------------------
# Scatter variants
# ---------------------------------------------------------------------------

def scatter_sub(operand: Any, scatter_indices: Any, updates: Any, dimension_numbers: Any, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None) -> Any:
    """`scatter` subtracting the updates (a scatter-add of their negation;
    integers wrap). Out-of-range windows are skipped, as jaxc's scatter does."""
    x = L._array(operand, "scatter_sub")
    u = L._like(updates, "scatter_sub", x.dtype)
    if u.dtype != x.dtype:
        raise TypeError(f"lax.scatter_sub requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {u.dtype.name}.")
    if x.dtype == np.bool_:
        raise TypeError("lax.scatter_sub does not accept dtype bool")
    return L.scatter_add(x, scatter_indices, L.neg(u), dimension_numbers, indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices, mode=mode)


def scatter_apply(operand: Any, scatter_indices: Any, func: Callable[[Any], Any], dimension_numbers: Any, *,
                  update_shape: Sequence[int] = (), indices_are_sorted: bool = False,
                  unique_indices: bool = False, mode: Any = None) -> Any:
    """`func` applied to the elements of `operand` that the scatter windows
    cover, once per window that covers them (a repeated index applies it
    repeatedly); `update_shape` is the shape the updates of such a scatter
    would have. `func` is called on whole arrays, so it must be elementwise
    (JAX calls it on scalars): a scatter-add counts the windows at each
    element, then a `while_loop` applies `func` where the count is not yet
    reached (as in JAX, not differentiable in reverse mode)."""
    from ._control_flow import while_loop
    if not callable(func):
        raise TypeError(f"lax.scatter_apply: func must be callable, got {type(func).__name__}")
    x = L._array(operand, "scatter_apply")
    shape = L._shape(update_shape, "lax.scatter_apply")
    ones = L.full(shape, 1, np.int32)
    counts = L.scatter_add(L.full(x.shape, 0, np.int32), scatter_indices, ones, dimension_numbers,
                           indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    if x.size == 0:
        return x
    most = L.reduce_max(counts, tuple(range(x.ndim)))

    def body(carry: tuple) -> tuple:
        i, value = carry
        new = L._array(func(value), "scatter_apply")
        if new.shape != value.shape or new.dtype != value.dtype:
            raise TypeError(f"lax.scatter_apply: func must keep the operand's shape and dtype "
                            f"({value.aval.str_short()}), got {new.aval.str_short()}")
        return L.add(i, np.int32(1)), L.select(L.gt(counts, i), new, value)
    return while_loop(lambda carry: L.lt(carry[0], most), body, (L.full((), 0, np.int32), x))[1]


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """src[idxs[0], idxs[1], ...] along the (sorted) dimensions `axes`: the
    i-th result row takes index idxs[k][i] on axis axes[k] (indices wrap
    modulo the size, so negative ones count from the end); the other
    dimensions follow, in order."""
    x = L._array(src, "index_take")
    axes = L._ints(axes, "index_take", "axes")
    idxs = list(idxs)
    if len(idxs) != len(axes):
        raise ValueError(f"lax.index_take: one index array per axis, got {len(idxs)} index arrays for "
                         f"axes {axes}")
    if list(axes) != sorted(set(axes)):
        raise TypeError(f"collapsed_slice_dims in gather op must be sorted; got {axes}")
    for a in axes:
        _in_range(a, x.ndim)
    if not axes:
        raise ValueError("lax.index_take needs at least one axis")
    columns = []
    for i, a in zip(idxs, axes):
        if isinstance(i, (list, tuple)):
            raise TypeError(f"Argument '{i}' of type '{type(i)}' is not a valid JAX type")
        i = L._array(i, "index_take")
        if not dtypes.is_int(i.dtype) or i.ndim != 1:
            raise TypeError(f"lax.index_take: indices must be 1-d integer arrays, got {i.aval.str_short()}")
        columns.append(i)
    if any(c.shape != columns[0].shape for c in columns[1:]):
        raise ValueError(f"lax.index_take: the index arrays must have one length, got "
                         f"{[c.shape[0] for c in columns]}")
    wrapped = []
    for c, a in zip(columns, axes):
        c = L.convert_element_type(c, np.int32) if c.dtype != np.int32 else c
        size = np.int32(builtins.max(x.shape[a], 1))
        wrapped.append(L.expand_dims(L.rem(L.add(L.rem(c, size), size), size), (1,)))
    indices = L.concatenate(wrapped, 1)
    rest = x.ndim - len(axes)
    dn = L.GatherDimensionNumbers(offset_dims=tuple(range(1, 1 + rest)), collapsed_slice_dims=axes,
                                  start_index_map=axes)
    sizes = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
    return L.gather(x, indices, dn, sizes)


# ---------------------------------------------------------------------------
# Integer and float helpers
# ---------------------------------------------------------------------------

_UNSIGNED: dict[int, np.dtype] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
                                  8: np.dtype(np.uint64)}


def _mulhi_unsigned(u: Any, v: Any) -> Any:
    """The high half of the product of two unsigned arrays, from half-word
    partial products (each fits in the word)."""
    dtype = u.dtype
    half = dtype.itemsize * 4
    mask, shift = dtype.type((1 << half) - 1), dtype.type(half)
    u0, u1 = L.bitwise_and(u, mask), L.shift_right_logical(u, shift)
    v0, v1 = L.bitwise_and(v, mask), L.shift_right_logical(v, shift)
    low = L.mul(u0, v0)
    t = L.add(L.mul(u1, v0), L.shift_right_logical(low, shift))
    mid = L.add(L.mul(u0, v1), L.bitwise_and(t, mask))
    return L.add(L.add(L.mul(u1, v1), L.shift_right_logical(t, shift)), L.shift_right_logical(mid, shift))


def mulhi(x: Any, y: Any, /) -> Any:
    """The upper N bits of the 2N-bit product of N-bit integers (signed or
    unsigned, as the dtype). Signed: the unsigned high half corrected by
    subtracting y where x < 0 and x where y < 0 (modulo 2**N)."""
    x, y = L._same("mulhi", x, y)
    for position, v in enumerate((x, y)):
        if not dtypes.is_int(v.dtype):
            raise TypeError(f"mulhi does not accept dtype {v.dtype.name} at position {position}. Accepted "
                            f"dtypes at position {position} are subtypes of integer.")
    if dtypes.is_unsigned(x.dtype):
        return _mulhi_unsigned(x, y)
    unsigned = _UNSIGNED[x.dtype.itemsize]
    ux, uy = L.bitcast_convert_type(x, unsigned), L.bitcast_convert_type(y, unsigned)
    high = _mulhi_unsigned(ux, uy)
    zero = unsigned.type(0)
    high = L.sub(high, L.select(L.lt(x, x.dtype.type(0)), uy, L.full_like(uy, zero)))
    high = L.sub(high, L.select(L.lt(y, y.dtype.type(0)), ux, L.full_like(ux, zero)))
    return L.bitcast_convert_type(high, x.dtype)


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """`operand` rounded to a float format with `exponent_bits` and
    `mantissa_bits`, in its own dtype, as XLA's ReducePrecision: the
    mantissa rounded to nearest, ties to even; exponents beyond the format
    become infinities and those below its normal range signed zeros
    (denormals are flushed); NaNs are kept as they are."""
    exponent_bits = L._int(exponent_bits, "reduce_precision", "exponent_bits")
    mantissa_bits = L._int(mantissa_bits, "reduce_precision", "mantissa_bits")
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}")
    x = L._array(operand, "reduce_precision")
    if not dtypes.is_float(x.dtype):
        raise TypeError(f"reduce_precision does not accept dtype {x.dtype.name}. Accepted dtypes are "
                        "subtypes of floating.")
    info = dtypes.finfo(x.dtype)
    src_mantissa, nbits = int(info.nmant), x.dtype.itemsize * 8
    src_exponent = nbits - 1 - src_mantissa
    if mantissa_bits >= src_mantissa and exponent_bits >= src_exponent:
        return x
    unsigned = _UNSIGNED[x.dtype.itemsize]

    def c(value: int) -> Any:
        return unsigned.type(value % (1 << nbits))
    bits = L.bitcast_convert_type(x, unsigned)
    if mantissa_bits < src_mantissa:
        drop = src_mantissa - mantissa_bits
        last = 1 << drop
        last_bit = L.shift_right_logical(L.bitwise_and(bits, c(last)), c(drop))
        bits = L.add(bits, L.add(last_bit, c((last >> 1) - 1)))
        bits = L.bitwise_and(bits, c(~(last - 1)))
    if exponent_bits < src_exponent:
        exponent_mask = ((1 << src_exponent) - 1) << src_mantissa
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = L.bitwise_and(bits, c(exponent_mask))
        overflows = L.gt(exponent, c((bias + reduced_bias) << src_mantissa))
        underflows = L.le(exponent, c((bias - reduced_bias) << src_mantissa))
        signed_zero = L.bitwise_and(bits, c(1 << (nbits - 1)))
        signed_inf = L.bitwise_or(signed_zero, c(exponent_mask))
        bits = L.select(overflows, signed_inf, bits)
        bits = L.select(underflows, signed_zero, bits)
    out = L.select(L.ne(x, x), x, L.bitcast_convert_type(bits, x.dtype))
    return L._with_weak(out, True) if x.weak_type and not out.weak_type else out


def optimization_barrier(operand: Any, /) -> Any:
    """The pytree `operand`, its leaves as arrays. Traced, one
    `jaxc.optimization_barrier` over all leaves: nothing computed from the
    results is merged (CSE) or fused with what is computed from the
    operands (the lowering copies them). Eagerly, the arrays themselves."""
    from .. import core
    leaves, tree = tree_util.tree_flatten(operand)
    arrays = [L._array(leaf, "optimization_barrier") for leaf in leaves]
    if core.current_scope() is None or not arrays:
        return tree_util.tree_unflatten(tree, arrays)
    from .._autodiff import _emit_optimization_barrier
    return tree_util.tree_unflatten(tree, _emit_optimization_barrier(arrays))


def dtype(x: Any) -> np.dtype:
    """The canonical dtype of a value or of a dtype-like: Python scalars
    and types give the default int/float (32-bit without x64), NumPy
    values their dtype canonicalized."""
    try:
        return dtypes.dtype_and_weak(x)[0]
    except TypeError:
        raise TypeError(f"Cannot determine dtype of {x}") from None


# ---------------------------------------------------------------------------
# Implicit differentiation: custom_linear_solve and custom_root
# ---------------------------------------------------------------------------

def _ad() -> Any:
    from .. import _autodiff  # imported late: it imports jaxc.lax
    return _autodiff


def _differentiated() -> str:
    """"fwd" or "rev" where an autodiff request differentiates this call
    (the innermost one being traced around it; "rev" also covers vjp's
    forward pass and pullbacks), "" where nothing does (no trace, no
    request, or a custom rule's own level)."""
    if core.current_scope() is None:
        return ""
    ad = _ad()
    kind = ad._kind(ad._levels())
    if kind in ("", "none"):
        return ""
    return "fwd" if kind == "fwd" else "rev"


class _Converted:
    """`fun` (on pytrees like `tree`) traced once into a private function of
    the module being traced; calling it with (leaves, consts) emits a
    `func.call` passing the values `fun` closed over (`consts`) as explicit
    arguments, so derivatives can be taken with respect to them."""

    def __init__(self, fun: Callable, tree: Any, leaves: Sequence[Any], what: str) -> None:
        ad = _ad()
        callee = ad._Callee(lambda *xs: fun(tree_util.tree_unflatten(tree, list(xs))),
                            [x.aval for x in leaves], ad._name(fun), what)
        self.symbol = callee.symbol
        self.out_tree, self.out_avals = callee.out_tree, callee.out_avals
        self.consts = list(callee.captured)

    def __call__(self, xs: Sequence[Any], consts: Sequence[Any]) -> list[Any]:
        from mlir.dialects import func as func_d
        return _ad()._emit(lambda v, t: func_d.CallOp(t, self.symbol, v), [*xs, *consts], self.out_avals)


def _check_like(what: str, name: str, tree: Any, shapes: Sequence[tuple[int, ...]], expected_tree: Any,
                expected_shapes: Sequence[tuple[int, ...]], arg: str, *, shapes_first: bool = False) -> None:
    """`name`'s output must have the structure (TypeError) and shapes
    (ValueError) of `arg`; checked in JAX's order (custom_linear_solve:
    the shapes first, custom_root: the structure first)."""
    got, expected = [tuple(s) for s in shapes], [tuple(s) for s in expected_shapes]
    if shapes_first and got != expected:
        raise ValueError(f"{name}() output shapes must match {arg}, got {got} and {expected}")
    if tree != expected_tree:
        raise TypeError(f"{name}() output pytree structure must match {arg}, got {tree} and {expected_tree}.")
    if got != expected:
        raise ValueError(f"{name}() output shapes must match {arg}, got {got} and {expected}")


def _split_aux(out: Any, has_aux: bool, name: str) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError(f"{name}() produced a pytree with structure {tree_util.tree_structure(out)}, but a "
                         "pytree tuple with auxiliary output was expected because has_aux was set to True.")
    return out[0], out[1]


def _float_positions(consts: Sequence[Any]) -> list[int]:
    return [i for i, c in enumerate(consts) if dtypes.is_float(c.dtype)]


def _with(consts: Sequence[Any], positions: Sequence[int], values: Sequence[Any]) -> list[Any]:
    out = list(consts)
    for i, v in zip(positions, values):
        out[i] = v
    return out


def _zeros_like(tree: Any) -> Any:
    return tree_util.tree_map(lambda a: L.full_like(L._array(a, "custom_linear_solve"), 0), tree)


class _LinearSystem:
    """A linear system for the custom functions: `matvec(x_leaves, consts)`
    (a `_Converted` or its transpose), its transpose `vecmat`, and the
    solvers, called on pytrees like `tree`."""

    def __init__(self, matvec: Callable, vecmat: Callable, solve: Callable, transpose_solve: Callable | None,
                 tree: Any, has_aux: bool) -> None:
        self.matvec, self.vecmat = matvec, vecmat
        self.solve, self.transpose_solve = solve, transpose_solve
        self.tree, self.has_aux = tree, has_aux

    def transpose(self) -> "_LinearSystem":
        assert self.transpose_solve is not None  # checked by _linear_bwd, the caller
        return _LinearSystem(self.vecmat, self.matvec, self.transpose_solve, self.solve, self.tree, self.has_aux)

    def function(self, consts: Sequence[Any]) -> Callable:
        """The matvec on pytrees, the constants bound."""
        return lambda x: tree_util.tree_unflatten(self.tree, self.matvec(tree_util.tree_leaves(x), consts))


def _run_solve(problem: Any, start: list, consts: list, fn: str, arg: str) -> tuple[list, Any]:
    """(solution leaves, aux) of `problem.solve` on its function (constants
    bound) from `start`, checked to have the structure and shapes of `arg`."""
    tree = problem.tree
    out = problem.solve(problem.function(consts), tree_util.tree_unflatten(tree, start))
    x, aux = _split_aux(out, problem.has_aux, "solve")
    leaves, x_tree = tree_util.tree_flatten(x)
    leaves = [core.as_operand(v, fn) for v in leaves]
    _check_like(fn, "solve", x_tree, [v.shape for v in leaves], tree, [v.shape for v in start], arg)
    return leaves, aux


def _linear_primal(system: _LinearSystem, b: list, consts: list) -> tuple[list, Any]:
    return _run_solve(system, b, consts, "custom_linear_solve", "b")


def _linear_solve(system: _LinearSystem, b: list, consts: list) -> tuple[list, Any]:
    """x (leaves) with matvec(x) = b, and the solver's aux: the solver
    itself where nothing differentiates the call, else the custom_jvp
    (forward mode) or custom_vjp (reverse mode) function, whose rules call
    this again (so higher derivatives are implicit too)."""
    mode = _differentiated()
    if not mode:
        return _linear_primal(system, b, consts)
    return _linear_customs()[0 if mode == "fwd" else 1](system, b, consts)


def _linear_jvp_rule(system: _LinearSystem, primals: tuple, tangents: tuple) -> tuple:
    # A x = b  =>  A dx = db - dA x
    b, consts = primals
    b_dot, consts_dot = tangents
    x, aux = _linear_solve(system, b, consts)
    rhs = list(b_dot)
    floats = _float_positions(consts)
    if floats:
        _, dax = _ad().jvp(lambda *fc: system.matvec(x, _with(consts, floats, fc)),
                           [consts[i] for i in floats], [consts_dot[i] for i in floats])
        rhs = [L.sub(t, d) for t, d in zip(rhs, dax)]
    x_dot, _ = _linear_solve(system, rhs, consts)
    return (x, aux), (x_dot, _zeros_like(aux))


def _linear_fwd(system: _LinearSystem, b: list, consts: list) -> tuple:
    out = _linear_solve(system, b, consts)
    return out, (out[0], consts)


def _linear_bwd(system: _LinearSystem, residuals: tuple, ct: tuple) -> tuple:
    # b_bar = A^-T x_bar;  consts_bar = -(d(A x)/d consts)^T b_bar
    x, consts = residuals
    if system.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic differentiation of "
                        "custom_linear_solve")
    b_bar, _ = _linear_solve(system.transpose(), list(ct[0]), consts)
    floats = _float_positions(consts)
    consts_bar: list[Any] = [None] * len(consts)
    if floats:
        _, pull = _ad().vjp(lambda *fc: system.matvec(x, _with(consts, floats, fc)), *[consts[i] for i in floats])
        for i, g in zip(floats, pull([L.neg(v) for v in b_bar])):
            consts_bar[i] = g
    return b_bar, consts_bar


@functools.lru_cache(maxsize=None)
def _linear_customs() -> tuple[Any, Any]:
    """The custom_jvp and custom_vjp functions (made on first use: jaxc._autodiff imports jaxc.lax)."""
    ad = _ad()
    jvp_fn = ad.custom_jvp(_linear_primal, nondiff_argnums=(0,))
    jvp_fn.defjvp(_linear_jvp_rule)
    vjp_fn = ad.custom_vjp(_linear_primal, nondiff_argnums=(0,))
    vjp_fn.defvjp(_linear_fwd, _linear_bwd)
    return jvp_fn, vjp_fn




def _operand_leaves(tree: Any, what: str) -> tuple[list[Any], Any]:
    leaves, treedef = tree_util.tree_flatten(tree)
    return [core.as_operand(x, what) for x in leaves], treedef


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable[[Callable, Any], Any],
                        transpose_solve: Callable[[Callable, Any], Any] | None = None, symmetric: bool = False,
                        has_aux: bool = False) -> Any:
    """x = solve(matvec, b), for a linear `matvec` (pytree to pytree like
    `b`), differentiated implicitly: dx = solve(matvec, db - dmatvec(x)),
    where dmatvec is the derivative through the values `matvec` closes
    over; reverse mode solves the transposed system with
    `transpose_solve(vecmat, ct)` (`solve` itself when `symmetric`), so the
    solvers' own code (a while loop, say) is never differentiated. With
    `has_aux`, the solvers return (x, aux) and so does this (aux gets no
    derivative)."""
    what = "custom_linear_solve"
    b_leaves, tree = _operand_leaves(b, what)
    mode = _differentiated()
    if not mode:
        from .._api_more import eval_shape
        out = eval_shape(matvec, tree_util.tree_unflatten(tree, b_leaves))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        _check_like(what, "matvec", out_tree, [v.shape for v in out_leaves], tree, [v.shape for v in b_leaves], "b",
                    shapes_first=True)
        out = solve(matvec, b)
        x, _ = _split_aux(out, has_aux, "solve")
        x_leaves, x_tree = tree_util.tree_flatten(x)
        _check_like(what, "solve", x_tree, [np.shape(v) for v in x_leaves], tree, [v.shape for v in b_leaves], "b",
                    shapes_first=True)
        return out
    mv = _Converted(matvec, tree, b_leaves, "matvec")
    _check_like(what, "matvec", mv.out_tree, [a.shape for a in mv.out_avals], tree, [v.shape for v in b_leaves], "b",
                shapes_first=True)
    vecmat: Callable[[Sequence[Any], Sequence[Any]], Any]
    if symmetric:
        vecmat, transpose_solve = mv, solve
    else:
        def pullback(y: Sequence[Any], consts: Sequence[Any]) -> list[Any]:
            # the transpose of the linear map x -> A x: its pullback (at zeros)
            zeros = [L.full_like(v, 0) for v in b_leaves]
            _, pull = _ad().vjp(lambda *xs: mv(list(xs), consts), *zeros)
            return list(pull(list(y)))
        vecmat = pullback
    system = _LinearSystem(mv, vecmat, solve, transpose_solve, tree, has_aux)
    x, aux = _linear_solve(system, b_leaves, mv.consts)
    x = tree_util.tree_unflatten(tree, x)
    return (x, aux) if has_aux else x


class _RootProblem:
    def __init__(self, f: _Converted, solve: Callable, tangent_solve: Callable, tree: Any, has_aux: bool) -> None:
        self.f, self.solve, self.tangent_solve = f, solve, tangent_solve
        self.tree, self.has_aux = tree, has_aux

    def function(self, consts: Sequence[Any]) -> Callable:
        return lambda x: tree_util.tree_unflatten(self.tree, self.f(tree_util.tree_leaves(x), consts))


def _root_primal(problem: _RootProblem, guess: list, consts: list) -> tuple[list, Any]:
    return _run_solve(problem, guess, consts, "custom_root", "initial_guess")


def _root_jvp_rule(problem: _RootProblem, primals: tuple, tangents: tuple) -> tuple:
    # f(x*(c), c) = 0  =>  dx* = -(df/dx)^-1 (df/dc dc), df/dx applied by tangent_solve
    guess, consts = primals
    _, consts_dot = tangents
    ad = _ad()
    x, aux = _ROOT(problem, guess, consts)
    floats = _float_positions(consts)
    if floats:
        _, rhs = ad.jvp(lambda *fc: problem.f(x, _with(consts, floats, fc)),
                        [consts[i] for i in floats], [consts_dot[i] for i in floats])
    else:
        rhs = [L.full_like(v, 0) for v in x]
    tree = problem.tree

    def jacobian_times(v: Any) -> Any:
        _, out = ad.jvp(lambda *xs: problem.f(list(xs), consts), x, tree_util.tree_leaves(v))
        return tree_util.tree_unflatten(tree, out)
    solved = problem.tangent_solve(jacobian_times, tree_util.tree_unflatten(tree, rhs))
    x_dot = [L.neg(core.as_operand(v, "custom_root")) for v in tree_util.tree_leaves(solved)]
    return (x, aux), (x_dot, _zeros_like(aux))


@functools.lru_cache(maxsize=None)
def _root_custom() -> Any:
    fn = _ad().custom_jvp(_root_primal, nondiff_argnums=(0,))
    fn.defjvp(_root_jvp_rule)
    return fn


def _ROOT(problem: _RootProblem, guess: list, consts: list) -> tuple[list, Any]:  # noqa: N802
    return _root_custom()(problem, guess, consts)


def custom_root(f: Callable, initial_guess: Any, solve: Callable[[Callable, Any], Any],
                tangent_solve: Callable[[Callable, Any], Any], has_aux: bool = False) -> Any:
    """A root x* = solve(f, initial_guess) of `f` (f(x*) = 0; pytree to
    pytree like the guess), differentiated implicitly with respect to the
    values `f` closes over: dx* = -tangent_solve(J, df(x*)), where J is
    the Jacobian of f at x* (a linear function) and `tangent_solve(g, y)`
    solves g(v) = y. The guess and `solve` get no derivative; reverse mode
    transposes `tangent_solve` (it must be linear in y). With `has_aux`,
    `solve` returns (x*, aux) and so does this (aux gets no derivative)."""
    what = "custom_root"
    leaves, tree = _operand_leaves(initial_guess, what)
    if not _differentiated():
        from .._api_more import eval_shape
        out = eval_shape(f, tree_util.tree_unflatten(tree, leaves))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        _check_like(what, "f", out_tree, [v.shape for v in out_leaves], tree, [v.shape for v in leaves],
                    "initial_guess")
        out = solve(f, initial_guess)
        x, _ = _split_aux(out, has_aux, "solve")
        x_leaves, x_tree = tree_util.tree_flatten(x)
        _check_like(what, "solve", x_tree, [np.shape(v) for v in x_leaves], tree, [v.shape for v in leaves],
                    "initial_guess")
        return out
    fc = _Converted(f, tree, leaves, "f")
    _check_like(what, "f", fc.out_tree, [a.shape for a in fc.out_avals], tree, [v.shape for v in leaves],
                "initial_guess")
    problem = _RootProblem(fc, solve, tangent_solve, tree, has_aux)
    x, aux = _ROOT(problem, leaves, fc.consts)
    x = tree_util.tree_unflatten(tree, x)
    return (x, aux) if has_aux else x


# ---------------------------------------------------------------------------
# Option enums and type aliases
# ---------------------------------------------------------------------------

class Precision(enum.Enum):
    """Precision of a contraction on accelerators (`precision=` of
    dot_general, conv_general_dilated, jnp.dot, ...): DEFAULT, HIGH,
    HIGHEST, or a name ("highest", "float32", "bfloat16", ...). jaxc's CPU
    code always computes in the operands' dtype, so it is accepted and
    has no effect."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: Any) -> "Precision | None":
        names = {"default": cls.DEFAULT, "fastest": cls.DEFAULT, "bfloat16": cls.DEFAULT, "high": cls.HIGH,
                 "bfloat16_3x": cls.HIGH, "tensorfloat32": cls.HIGH, "highest": cls.HIGHEST,
                 "float32": cls.HIGHEST}
        return names.get(value.lower()) if isinstance(value, str) else None

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Precision.{self.name}"


class GatherScatterMode(enum.Enum):
    """What gather/scatter do with out-of-range windows: CLIP (clamp them
    in), FILL_OR_DROP (gather fills, scatter drops), PROMISE_IN_BOUNDS,
    ONE_HOT. jaxc's gather clamps and its scatter drops; the `mode=`
    arguments take these members or their names."""
    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3
    ONE_HOT = 4

    @staticmethod
    def from_any(s: "str | GatherScatterMode | None") -> "GatherScatterMode":
        if isinstance(s, GatherScatterMode):
            return s
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "clip":
            return GatherScatterMode.CLIP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], L.ConvDimensionNumbers, None]
DotDimensionNumbers = tuple[tuple[_Sequence[int], _Sequence[int]], tuple[_Sequence[int], _Sequence[int]]]
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision]]


# ---------------------------------------------------------------------------
# Convolution and window shape arithmetic
# ---------------------------------------------------------------------------

_CONV_LETTERS = (("N", "C"), ("O", "I"), ("N", "C"))


def conv_general_permutations(dimension_numbers: Any) -> tuple[tuple[int, ...], ...]:
    """For string `dimension_numbers` (lhs, rhs, out), the positions of
    (batch, feature, *spatial) in lhs and out and of (out feature, in
    feature, *spatial) in rhs, the spatial dimensions in the rhs order."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    for k, (spec, (a, b)) in enumerate(zip((lhs_spec, rhs_spec, out_spec), _CONV_LETTERS)):
        if not isinstance(spec, str) or spec.count(a) != 1 or spec.count(b) != 1:
            raise TypeError(f"convolution dimension_numbers[{k}] must contain the characters '{a}' and '{b}' "
                            f"exactly once, got {spec}.")
        if len(set(spec)) != len(spec):
            raise TypeError(f"convolution dimension_numbers[{k}] cannot have duplicate characters, got {spec}.")
    spatial = [c for c in rhs_spec if c not in "OI"]
    if not ({c for c in lhs_spec if c not in "NC"} == set(spatial) == {c for c in out_spec if c not in "NC"}):
        raise TypeError(f"convolution dimension_numbers elements must each have the same set of spatial "
                        f"characters, got {tuple(dimension_numbers)}.")
    return tuple((spec.index(a), spec.index(b), *(spec.index(c) for c in spatial))
                 for spec, (a, b) in zip((lhs_spec, rhs_spec, out_spec), _CONV_LETTERS))


def _pairs(padding: Any, n: int, what: str) -> list[tuple[int, int]]:
    try:
        pads = [(int(L.operator_index(lo)), int(L.operator_index(hi))) for lo, hi in padding]
    except (TypeError, ValueError):
        raise TypeError(f"{what}: padding must be a string or (low, high) pairs, got {padding!r}") from None
    if len(pads) != n:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {n}, got {len(pads)}.")
    return pads


def _per_dim(values: Any, n: int, what: str, name: str) -> tuple[int, ...]:
    values = L._ints(values, what, name)
    if len(values) != n:
        raise ValueError(f"{what}: {name} has {len(values)} entries for {n} spatial dimensions: {values}")
    return values


def conv_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], strides: Sequence[int], pads: Any,
                     batch_group_count: int = 1) -> tuple[int, ...]:
    """The output shape (N, O, *spatial) of a convolution of an (N, C,
    *spatial) lhs with an (O, I, *window) rhs: floor((n + lo + hi - k) /
    s) + 1 per spatial dimension (at least 0)."""
    what = "conv_shape_tuple"
    lhs_shape, rhs_shape = L._ints(lhs_shape, what, "lhs_shape"), L._ints(rhs_shape, what, "rhs_shape")
    n = len(lhs_shape) - 2
    strides = _per_dim(strides, n, what, "strides")
    if any(s <= 0 for s in strides):
        raise ValueError(f"{what}: strides must be positive, got {strides}")
    if isinstance(pads, str):
        pads = L.padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    pads = _pairs(pads, n, what)
    batch_group_count = L._int(batch_group_count, what, "batch_group_count")
    if batch_group_count <= 0 or lhs_shape[0] % batch_group_count:
        raise ValueError(f"{what}: batch_group_count {batch_group_count} must divide the batch size "
                         f"{lhs_shape[0]}")
    spatial = tuple(builtins.max((i + lo + hi - k) // s + 1, 0)
                    for i, k, s, (lo, hi) in zip(lhs_shape[2:], rhs_shape[2:], strides, pads))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + spatial


def _conv_permutations(dimension_numbers: Any) -> tuple[tuple[int, ...], ...]:
    if isinstance(dimension_numbers, L.ConvDimensionNumbers):
        return tuple(dimension_numbers)
    if dimension_numbers is None:
        raise TypeError("conv shape tuples need dimension_numbers: strings such as ('NHWC', 'HWIO', 'NHWC') "
                        "or a ConvDimensionNumbers")
    return conv_general_permutations(dimension_numbers)


def _to_layout(logical: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    """A shape given in the logical order (N/O, C/I, *spatial) laid out by `perm`."""
    out = [0] * len(perm)
    for size, position in zip(logical, perm):
        out[position] = size
    return tuple(out)


def conv_general_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
                             padding: Any, dimension_numbers: Any) -> tuple[int, ...]:
    """`conv_shape_tuple` for operands and output in the layouts of
    `dimension_numbers` (strings or a ConvDimensionNumbers)."""
    lhs_perm, rhs_perm, out_perm = _conv_permutations(dimension_numbers)
    lhs = tuple(lhs_shape[i] for i in lhs_perm)
    rhs = tuple(rhs_shape[i] for i in rhs_perm)
    return _to_layout(conv_shape_tuple(lhs, rhs, window_strides, padding), out_perm)


def conv_transpose_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
                               padding: Any, dimension_numbers: Any) -> tuple[int, ...]:
    """The output shape of `conv_transpose` in the layouts of
    `dimension_numbers`: (n - 1) * s - k + 2 plus the total padding per
    spatial dimension, where "SAME"/"VALID" give conv_transpose's padding
    and (low, high) pairs are used as they are."""
    what = "conv_transpose_shape_tuple"
    lhs_perm, rhs_perm, out_perm = _conv_permutations(dimension_numbers)
    lhs = tuple(lhs_shape[i] for i in lhs_perm)
    rhs = tuple(rhs_shape[i] for i in rhs_perm)
    n = len(lhs) - 2
    strides = _per_dim(window_strides, n, what, "window_strides")
    if isinstance(padding, str):
        totals = [sum(M._conv_transpose_padding(k, s, padding)) for k, s in zip(rhs[2:], strides)]
    else:
        totals = [lo + hi for lo, hi in _pairs(padding, n, what)]
    spatial = tuple((i - 1) * s - k + 2 + t for i, k, s, t in zip(lhs[2:], rhs[2:], strides, totals))
    return _to_layout((lhs[0], rhs[0]) + spatial, out_perm)


def reduce_window_shape_tuple(operand_shape: Sequence[int], window_dimensions: Sequence[int],
                              window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
                              base_dilation: Sequence[int] | None = None,
                              window_dilation: Sequence[int] | None = None) -> tuple[int, ...]:
    """The output shape of `reduce_window` with (low, high) `padding`:
    per dimension, the operand dilated and padded, minus the dilated
    window, over the stride, plus one (at least 0)."""
    what = "reduce_window_shape_tuple"
    shape = L._ints(operand_shape, what, "operand_shape")
    n = len(shape)
    window = _per_dim(window_dimensions, n, what, "window_dimensions")
    strides = _per_dim(window_strides, n, what, "window_strides")
    base = (1,) * n if base_dilation is None else _per_dim(base_dilation, n, what, "base_dilation")
    wdil = (1,) * n if window_dilation is None else _per_dim(window_dilation, n, what, "window_dilation")
    if isinstance(padding, str):
        raise ValueError(f"{what}: padding must be (low, high) pairs (use lax.padtype_to_pads for "
                         f"{padding!r})")
    pads = [(int(L.operator_index(lo)), int(L.operator_index(hi))) for lo, hi in padding]
    if len(pads) != n:
        raise ValueError(f"{what}: {len(pads)} (low, high) pairs for {n} dimensions")
    if any(s <= 0 for s in strides):
        raise ZeroDivisionError(f"{what}: window_strides must be positive, got {strides}")
    out = []
    for size, w, s, b, d, (lo, hi) in zip(shape, window, strides, base, wdil, pads):
        padded = (0 if size == 0 else (size - 1) * b + 1) + lo + hi
        dilated = 0 if w == 0 else (w - 1) * d + 1
        out.append(builtins.max((padded - dilated) // s + 1, 0) if padded >= dilated else 0)
    return tuple(out)


def conv_general_dilated_local(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                               filter_shape: Sequence[int], lhs_dilation: Sequence[int] | None = None,
                               rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                               precision: Any = None) -> Any:
    """An unshared (locally connected) convolution: a different kernel at
    each output position. `rhs` has the output's spatial dimensions where a
    convolution kernel has its window, and its I dimension holds the input
    features times the `filter_shape` window (channel-major, then the window
    in the rhs layout's spatial order). Built as `conv_general_dilated_patches`
    and one `dot_general` batched over the output positions."""
    what = "conv_general_dilated_local"
    lhs = L._array(lhs, what)
    rhs = L._array(rhs, what)
    filter_shape = L._ints(filter_shape, what, "filter_shape")
    patches = M.conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation,
                                             rhs_dilation, dimension_numbers, precision=precision)
    dn = L.conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    n = lhs.ndim - 2
    out_spatial = tuple(patches.shape[d] for d in dn.out_spec[2:])
    rhs_spatial = tuple(rhs.shape[d] for d in dn.rhs_spec[2:])
    features = patches.shape[dn.out_spec[1]]
    if rhs_spatial != out_spatial or rhs.shape[dn.rhs_spec[1]] != features:
        raise ValueError(f"lax.{what}: rhs must have the output's spatial shape {out_spatial} and "
                         f"{features} input features (channels x filter window), got rhs spatial shape "
                         f"{rhs_spatial} and {rhs.shape[dn.rhs_spec[1]]} input features")
    if patches.dtype != rhs.dtype:
        raise TypeError(f"lax.{what} requires arguments to have the same dtypes, got {lhs.dtype.name}, "
                        f"{rhs.dtype.name}")
    p = L.transpose(patches, (dn.out_spec[0], *dn.out_spec[2:], dn.out_spec[1]))  # N, *S, I
    k = L.transpose(rhs, (*dn.rhs_spec[2:], dn.rhs_spec[1], dn.rhs_spec[0]))  # *S, I, O
    spatial = tuple(range(n))
    out = L.dot_general(p, k, (((n + 1,), (n,)), (tuple(range(1, n + 1)), spatial)), precision=precision)
    out = L.transpose(out, (n, n + 1, *spatial))  # N, O, *S
    return L.transpose(out, tuple(int(i) for i in np.argsort(dn.out_spec)))


# ---------------------------------------------------------------------------
# Random bits
# ---------------------------------------------------------------------------

_UNIFORM_SEED = 0x6A09E667
_UNIFORM_COUNTER = itertools.count()


def rng_uniform(a: Any, b: Any, shape: Sequence[int]) -> Any:
    """Uniform values in [a, b) (0-d `a` and `b` of one float or integer
    dtype). JAX's comes from a stateful generator whose bits are XLA's;
    jaxc's are jaxc.random's threefry, keyed by a counter that advances at
    each call as it is traced (or run eagerly): a jitted function gives the
    same values at every run."""
    from .. import random as jr
    x, y = L._array(a, "rng_uniform"), L._array(b, "rng_uniform")
    if x.dtype != y.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {x.dtype.name} and "
                         f"{y.dtype.name}.")
    if x.shape != () or y.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {x.shape} and {y.shape}.")
    shape = L._shape(shape, "lax.rng_uniform")
    key = L.constant(np.array([_UNIFORM_SEED, next(_UNIFORM_COUNTER) % (1 << 32)], np.uint32))
    if dtypes.is_float(x.dtype):
        out = jr.uniform(key, shape, x.dtype, minval=x, maxval=y)
    elif dtypes.is_int(x.dtype):
        out = jr.randint(key, shape, x, y, x.dtype)
    else:
        raise TypeError(f"rng_uniform does not accept dtype {x.dtype.name}")
    return L._with_weak(out, True) if x.weak_type and y.weak_type else out


# ---------------------------------------------------------------------------
# Collectives
# ---------------------------------------------------------------------------

def axis_size(axis_name: Any) -> int:
    """The size of the named axis bound by an enclosing vmap (for a tuple
    of names, the product), as a Python int."""
    return P._group_size(P._names(axis_name, "axis_size"))


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """`x` with the parts of its arrays where `shardings` (a Sharding, a
    PartitionSpec of the current mesh, or a pytree prefix of them) puts them.
    Values never change: outside a trace the arrays get that sharding
    (`device_put`); inside one it is a no-op, as jaxc does not partition
    programs (docs/parallel.md)."""
    from .. import sharding as S
    from ..api import device_put

    def resolve(s: Any) -> Any:
        if isinstance(s, S.PartitionSpec):
            mesh = S.current_mesh()
            if mesh is None:
                raise ValueError(f"{core.where()}: with_sharding_constraint: a PartitionSpec needs a mesh "
                                 "(jaxc.set_mesh or `with mesh:`); or pass a NamedSharding")
            return S.NamedSharding(mesh, s)
        if s is not None and not isinstance(s, S.Sharding):
            raise TypeError(f"{core.where()}: with_sharding_constraint: expected a Sharding or a "
                            f"PartitionSpec, got {s!r}")
        return s
    shardings = tree_util.tree_map(resolve, shardings, is_leaf=lambda s: isinstance(s, S.PartitionSpec))
    leaves = tree_util.tree_leaves(x)
    if core.current_scope() is not None or any(isinstance(v, core.Tracer) for v in leaves):
        for leaf, s in zip(leaves, _prefix_leaves(shardings, x)):
            if isinstance(s, S.Sharding):
                s.shard_shape(np.shape(leaf))  # the parts must divide the shape
        return x
    return device_put(x, shardings)


def _prefix_leaves(prefix: Any, tree: Any) -> list:
    import optree
    return optree.broadcast_prefix(prefix, tree, none_is_leaf=True, namespace=tree_util.NAMESPACE)


def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0, axis_index_groups: Any = None,
                 tiled: bool = False) -> Any:
    """This member's part of psum(x): psum(x) indexed along
    `scatter_dimension` by the member's axis_index (that dimension must
    have the axis size; it goes away), or, when `tiled`, its
    axis_index-th chunk of size n / axis size (the dimension stays). Built
    from psum, axis_index and a dynamic slice; with `axis_index_groups`, the
    group's sum and the member's position in its group."""
    names = P._names(axis_name, "psum_scatter")
    groups = P._groups(axis_index_groups, names, "psum_scatter")
    size = P._group_size(names) if groups is None else len(groups[0])

    def one(leaf: Any) -> Any:
        leaf = P._operand(leaf, "psum_scatter")
        if leaf.ndim == 0:
            raise ValueError(f"{core.where()}: lax.psum_scatter needs an operand of rank >= 1, got "
                             f"{leaf.aval.str_short()}")
        dim = P._canonical_axis(scatter_dimension, leaf.ndim, "psum_scatter", "scatter_dimension")
        length = leaf.shape[dim]
        if tiled and length % size:
            raise ValueError(f"{core.where()}: lax.psum_scatter: the size of scatter_dimension ({length}) "
                             f"must be divisible by the size of the named axis {'/'.join(names)} ({size})")
        if not tiled and length != size:
            raise ValueError(f"{core.where()}: lax.psum_scatter requires the size of the named axis "
                             f"{'/'.join(names)} ({size}) to equal x.shape[scatter_dimension] ({length})")
        total = P.psum(leaf, names, axis_index_groups=groups)
        index = P.axis_index(names) if groups is None else P._mine(P._place_in_group(groups), names)
        if not tiled:
            return L.dynamic_index_in_dim(total, index, dim, keepdims=False)
        chunk = length // size
        starts = [np.int32(0)] * leaf.ndim
        starts[dim] = L.mul(index, np.int32(chunk))
        sizes = list(leaf.shape)
        sizes[dim] = chunk
        return L.dynamic_slice(total, starts, sizes)
    return P._tree_map(one, x)


# ---------------------------------------------------------------------------
# approx top-k, ragged_dot and small conveniences
# ---------------------------------------------------------------------------

def _approx_k(what: str, operand: Any, k: int, reduction_dimension: int) -> tuple[Any, int, int]:
    x = L._array(operand, what)
    if not dtypes.is_float(x.dtype):
        raise ValueError("operand must be a floating type")
    k = L._int(k, what, "k")
    dim = L._int(reduction_dimension, what, "reduction_dimension")
    if not -x.ndim <= dim < x.ndim:
        raise IndexError(f"{what}: reduction_dimension {dim} is out of range for an operand of rank {x.ndim}")
    dim %= x.ndim
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if k > x.shape[dim]:
        raise ValueError(f"k must be smaller than the size of reduction_dim {x.shape[dim]}, got {k}")
    return x, k, dim


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True) -> tuple[Any, Any]:
    """The `k` largest values along `reduction_dimension` and their int32
    indices. JAX may return an approximation; jaxc's answer is exact (its
    `top_k`: largest first, ties in index order), so `recall_target` is
    met, and exactly k values come back even without `aggregate_to_topk`."""
    x, k, dim = _approx_k("approx_max_k", operand, k, reduction_dimension)
    return M.top_k(x, k, axis=dim)


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True) -> tuple[Any, Any]:
    """The `k` smallest values along `reduction_dimension` (smallest
    first, ties in index order) and their int32 indices: exact, from a
    stable sort."""
    x, k, dim = _approx_k("approx_min_k", operand, k, reduction_dimension)
    index = L.broadcasted_iota(np.int32, x.shape, dim)
    values, indices = L.sort((x, index), dimension=dim, is_stable=True, num_keys=1)
    return L.slice_in_dim(values, 0, k, 1, dim), L.slice_in_dim(indices, 0, k, 1, dim)


def ragged_dot(lhs: Any, rhs: Any, group_sizes: Any, precision: Any = None, preferred_element_type: Any = None,
               group_offset: Any = None, out_sharding: Any = None) -> Any:
    """lhs [m, k] times a group's rhs [k, n], rows in consecutive groups:
    the first group_sizes[0] rows use rhs[0], the next group_sizes[1]
    rhs[1], and so on; rows past the groups give zeros. Built as the
    product with every group's matrix, masked by each row's group."""
    what = "ragged_dot"
    if group_offset is not None:
        raise NotImplementedError("lax.ragged_dot: group_offset is not supported")
    if out_sharding is not None:
        raise NotImplementedError("lax.ragged_dot: out_sharding is not supported (jaxc has no sharding)")
    lhs, rhs = L._array(lhs, what), L._array(rhs, what)
    sizes = L._array(group_sizes, what)
    if lhs.ndim != 2 or rhs.ndim != 3:
        raise TypeError(f"lax.ragged_dot takes lhs [m, k] and rhs [g, k, n], got shapes {lhs.shape} and "
                        f"{rhs.shape}")
    if not dtypes.is_int(sizes.dtype):
        raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of np.integer.")
    if sizes.ndim != 1:
        raise TypeError(f"expected group_sizes to have rank 1, got {sizes.ndim}.")
    groups = rhs.shape[0]
    if sizes.shape[0] != groups:
        raise TypeError(f"expected rhs group dimension size to be {sizes.shape[0]}, got {groups}.")
    if lhs.shape[1] != rhs.shape[1]:
        raise TypeError(f"lax.ragged_dot: contracting dimensions differ: lhs {lhs.shape} and rhs {rhs.shape}")
    if preferred_element_type is not None:
        preferred = L._dtype(preferred_element_type, what)
        if not (dtypes.is_float(lhs.dtype) and dtypes.is_float(preferred)):
            # the dialect's dot_general takes a preferred type only between floats
            lhs, rhs = L.convert_element_type(lhs, preferred), L.convert_element_type(rhs, preferred)
            preferred_element_type = None
    m = lhs.shape[0]
    ends = L.cumsum(L.convert_element_type(sizes, np.int32), 0)
    rows = L.broadcasted_iota(np.int32, (m, groups), 0)
    group = L.reduce_sum(L.convert_element_type(L.le(L.broadcast_in_dim(ends, (m, groups), (1,)), rows),
                                                np.int32), (1,))
    prod = L.dot_general(lhs, rhs, (((1,), (1,)), ((), ())), precision=precision,
                         preferred_element_type=preferred_element_type)  # m, g, n
    mask = L.eq(L.broadcast_in_dim(group, prod.shape, (0,)), L.broadcasted_iota(np.int32, prod.shape, 1))
    return L.reduce_sum(L.select(mask, prod, L.full_like(prod, 0)), (1,))


_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def platform_dependent(*args: Any, default: Callable | None = None, **per_platform: Callable) -> Any:
    """The branch for the platform called on `args`: jaxc chooses when it
    traces, for its default backend ("cpu"), the `cpu` branch, else
    `default` (JAX stages them all and picks when the code runs; a jaxc
    program compiled for cuda still runs the branch chosen for cpu)."""
    if "gpu" in per_platform:
        raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    branch = per_platform.get("cpu", default)
    if branch is None:
        raise NotImplementedError(f"lax.platform_dependent: no branch for platform cpu and no default "
                                  f"(got branches for {sorted(per_platform)})")
    return branch(*args)


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
    """`decomposition` as a named composite op: XLA may replace a composite
    it recognizes by `name` and `version`; jaxc always runs the
    decomposition (its outputs as arrays)."""
    if not callable(decomposition):
        raise TypeError(f"lax.composite: decomposition must be callable, got {type(decomposition).__name__}")

    def call(*args: Any, **kwargs: Any) -> Any:
        return tree_util.tree_map(lambda leaf: L._array(leaf, "composite"), decomposition(*args, **kwargs))
    call.__name__ = getattr(decomposition, "__name__", "composite")
    call.__doc__ = getattr(decomposition, "__doc__", None)
    return call


def stage(x: Any, /) -> Any:
    """`x` as an array (a value of the trace, if one is being traced)."""
    return L._array(x, "stage")


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """Marks `val` as used so dead-code elimination keeps its computation;
    jaxc has nothing to keep alive for it. Returns None."""
    return None


def shape_as_value(shape: Sequence[int]) -> Any:
    """A static `shape` as a 1-d int32 array."""
    return L.constant(np.asarray(L._shape(tuple(shape), "lax.shape_as_value"), np.int32).reshape(len(shape)))
