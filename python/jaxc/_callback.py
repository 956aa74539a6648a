"""Host callbacks: Python functions that compiled programs call while they run.

`jax.debug.callback`, `jax.debug.print`, `jax.pure_callback` and
`jax.experimental.io_callback` register a host function under a
process-wide id and, under a trace, emit

    jaxc.callback 7 (%x) : (tensor<3xf32>) -> ()
    %y = jaxc.callback 8 (%x) : (tensor<3xf32>) -> tensor<3xf32>
    %z = jaxc.callback 9 (%x) {jaxc.io_callback, jaxc.ordered} : (tensor<3xf32>) -> tensor<3xf32>

The op has side effects, so no callback is removed or reordered, whether or
not its results are used. An io_callback carries the unit attribute
`jaxc.io_callback` (and `jaxc.ordered` when asked for): the autodiff and
batching rules read them to refuse what JAX refuses.

Outside any trace they call the function at once, as JAX does. The op lowers
(passes/lowering/callback.py) to a call of an external function
``@jaxc_callback_<id>_<n>(memref..., out memref...)``; the runtime resolves
that symbol to a ctypes trampoline (`register_trampolines`), which reads the
operands from their memref descriptors, calls the host function with jaxc
Arrays, and writes its results into the result buffers. An exception there
cannot unwind through compiled code: the trampoline keeps it (per thread) and
`raise_pending` raises it when the compiled call returns, so it surfaces like
any runtime error, at the next synchronization.

The leading `batch_rank` dims of every operand are vmapped axes (the
batching rule adds them, the outermost vmap's first): the function runs once
per index and the results are stacked, as JAX's sequential vmap of a
callback, visiting the indices in JAX's order: the innermost vmap's axis
slowest (JAX loops over the inner axis outside, as `lax.map` nests).
"""
from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any, Callable, Sequence

import numpy as np
from mlir import ir

from . import core, tree_util
from .core import ShapedArray

# id -> host function: takes one NumPy array per operand, returns one per result.
_HOSTS: dict[int, Callable[..., Sequence[np.ndarray]]] = {}
_IDS = itertools.count(1)
_LOCK = threading.Lock()


def register(host: Callable[..., Sequence[np.ndarray]]) -> int:
    """Keep `host` for the life of the process (compiled code may call it
    as long as it exists); its id."""
    with _LOCK:
        callback_id = next(_IDS)
        _HOSTS[callback_id] = host
    return callback_id


# --- the op ---------------------------------------------------------------------

IO_ATTRIBUTE = "jaxc.io_callback"  # unit attribute: the op is an io_callback
ORDERED_ATTRIBUTE = "jaxc.ordered"  # unit attribute: an io_callback with ordered=True


def _build(*values: ir.Value, callback_id: int, result_avals: tuple, io: str | None = None) -> Any:
    import jaxc.dialect as jd
    types = [core.ir_type(a.shape, a.dtype) for a in result_avals]
    op = jd.CallbackOp(types, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), callback_id),
                       list(values))
    if io is not None:
        op.operation.attributes[IO_ATTRIBUTE] = ir.UnitAttr.get()
        if io == "ordered":
            op.operation.attributes[ORDERED_ATTRIBUTE] = ir.UnitAttr.get()
    return list(op.results)


# results are never weakly typed: they have the dtypes of result_shape_dtypes (as in JAX)
CALLBACK = core.Primitive("callback", _build, multiple_results=True, weak=lambda in_avals, **params: False)


def emit(host: Callable[..., Sequence[np.ndarray]], operands: Sequence[Any],
         result_avals: Sequence[ShapedArray], io: str | None = None) -> list[Any]:
    """Under a trace: the `jaxc.callback` op calling `host`; its results.
    `io`: None, or "unordered" / "ordered" for an io_callback."""
    callback_id = register(host)
    return core.bind(CALLBACK, *operands, callback_id=callback_id, result_avals=tuple(result_avals), io=io)


# --- the functions users call ---------------------------------------------------------

def _as_arrays(values: Sequence[np.ndarray]) -> list[Any]:
    from .array import Array
    return [Array._from_value(np.asarray(v)) for v in values]


def _is_array_like(x: Any) -> bool:
    return isinstance(x, (core.ArrayBase, np.ndarray, np.generic, bool, int, float))


def _checked_results(what: str, out: Any, result_avals: Sequence[ShapedArray], tree: Any) -> list[np.ndarray]:
    """`out` (a pytree like `tree`) as NumPy arrays of `result_avals`; a
    TypeError naming the first mismatch."""
    leaves, out_tree = tree_util.tree_flatten(out)
    if out_tree != tree:
        raise TypeError(f"{what}: the callback returned {tree_util.treedef_str(out_tree)}, expected "
                        f"{tree_util.treedef_str(tree)} (result_shape_dtypes)")
    arrays = []
    for i, (leaf, aval) in enumerate(zip(leaves, result_avals)):
        value = np.asarray(leaf)
        if value.shape != aval.shape:
            raise TypeError(f"{what}: result {i} of the callback has shape {value.shape}, expected "
                            f"{aval.shape} (result_shape_dtypes)")
        if value.dtype != aval.dtype:
            if not np.can_cast(value.dtype, aval.dtype, "same_kind"):
                raise TypeError(f"{what}: result {i} of the callback has dtype {value.dtype}, "
                                f"expected {aval.dtype} (result_shape_dtypes)")
            value = value.astype(aval.dtype)
        arrays.append(value)
    return arrays


def _result_avals(what: str, result_shape_dtypes: Any) -> tuple[list[ShapedArray], Any]:
    """The avals and tree of `result_shape_dtypes`; JAX's ValueError for a
    64-bit dtype while jax_enable_x64 is off."""
    from .dtypes import canonicalize
    shapes, out_tree = tree_util.tree_flatten(result_shape_dtypes)
    avals = []
    for s in shapes:
        if not (hasattr(s, "shape") and hasattr(s, "dtype")):
            raise TypeError(f"{what}: result_shape_dtypes leaves must have .shape and .dtype "
                            f"(e.g. jax.ShapeDtypeStruct), got {type(s).__name__} {s!r}")
        dtype = np.dtype(s.dtype)
        if canonicalize(dtype) != dtype:
            raise ValueError("result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled")
        avals.append(ShapedArray(tuple(s.shape), dtype))
    return avals, out_tree


def _call(what: str, callback: Callable, args: tuple, kwargs: dict,
          result_shape_dtypes: Any, io: str | None = None) -> Any:
    """Run `callback(*args, **kwargs)` on the host, now (no trace) or when a
    compiled program reaches it; `result_shape_dtypes`: the pytree of its
    results' shapes and dtypes, or None for a callback whose results are
    ignored (debug.callback; an io_callback's None is an empty pytree).
    `io`: None, or "unordered" / "ordered" for an io_callback (marked on
    the op)."""
    if not callable(callback):
        raise TypeError(f"{what}: expected a callable, got {type(callback).__name__} {callback!r}")
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    # Array leaves travel through the program; anything else (a string, a
    # config object) is static: the host function gets it as it is.
    static = {i: x for i, x in enumerate(leaves) if not _is_array_like(x)}
    operands = [core.as_operand(x, what) for i, x in enumerate(leaves) if i not in static]
    result_avals: list[ShapedArray]
    if result_shape_dtypes is None and io is None:
        result_avals, out_tree = [], None
    else:
        result_avals, out_tree = _result_avals(what, result_shape_dtypes)

    def host(*values: np.ndarray) -> list[np.ndarray]:
        arrays = iter(_as_arrays(values))
        full = [static[i] if i in static else next(arrays) for i in range(len(leaves))]
        call_args, call_kwargs = tree_util.tree_unflatten(in_tree, full)
        out = callback(*call_args, **call_kwargs)
        if out_tree is None:
            return []
        return _checked_results(what, out, result_avals, out_tree)

    results: list[Any]  # Arrays, or tracers under a trace
    if core.current_scope() is None:
        from .array import Array
        outs = host(*[np.asarray(x) for x in operands])
        results = [Array._from_value(v) for v in outs]
    else:
        results = emit(host, operands, result_avals, io=io)
        if io is not None:
            # no value while tracing: evaluating the call then (an eager grad's Python
            # control flow) would repeat its side effects when the program runs
            for tracer in results:
                tracer.recipe = None
    return None if out_tree is None else tree_util.tree_unflatten(out_tree, results)


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                  vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Call a pure Python function on the values of `args` (JAX's
    `jax.pure_callback`): `result_shape_dtypes` (a pytree of
    `ShapeDtypeStruct`s, or anything with .shape and .dtype) says what it
    returns. Under vmap it runs once per lane ("sequential"); it has no
    derivative (wrap it in custom_jvp or custom_vjp)."""
    if vmap_method not in (None, "sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                           "legacy_vectorized"):
        raise ValueError(f"pure_callback: vmap_method must be one of 'sequential', "
                         f"'sequential_unrolled', 'expand_dims', 'broadcast_all', got {vmap_method!r}")
    if result_shape_dtypes is None:
        result_shape_dtypes = ()
    return _call("pure_callback", callback, args, kwargs, result_shape_dtypes)


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any, sharding: Any = None,
                ordered: bool = False, **kwargs: Any) -> Any:
    """Call a Python function with side effects on the values of `args`
    (JAX's `jax.experimental.io_callback`). Outside a trace it runs at once;
    in a compiled program it runs when the program gets there, also when
    its results are unused (it is never removed). `result_shape_dtypes`: a
    pytree of `ShapeDtypeStruct`s (or None) matching what it returns.

    jaxc runs every callback in program order, so `ordered=True` changes
    nothing at run time; as in JAX, an ordered io_callback cannot be
    vmapped, and no io_callback can be differentiated (ValueError). An
    unordered one under vmap runs once per lane. `sharding` (a Sharding, or
    None) is accepted: jaxc calls the function on the host thread running
    the program."""
    from .sharding import Sharding
    if sharding is not None and not isinstance(sharding, Sharding):
        raise TypeError(f"io_callback: sharding must be a jax.sharding.Sharding or None, "
                        f"got {type(sharding).__name__}")
    return _call("io_callback", callback, args, kwargs, result_shape_dtypes,
                 io="ordered" if ordered else "unordered")


# --- compiled code calling back -----------------------------------------------------------

# symbol -> (callback id, operand avals, result avals, batch rank): filled by the lowering.
SIGNATURES: dict[str, tuple[int, tuple, tuple, int]] = {}
_SYMBOLS = itertools.count()
_TRAMPOLINES: dict[str, Any] = {}  # symbol -> ctypes function (must outlive the JIT)
_PENDING = threading.local()  # .error: an exception a trampoline caught on this thread
SYMBOL_PREFIX = "jaxc_callback_"


def new_symbol(callback_id: int, operand_avals: Sequence[ShapedArray],
               result_avals: Sequence[ShapedArray], batch_rank: int) -> str:
    """A fresh external function name for one lowered callback op, with its
    signature recorded for `register_trampolines`."""
    symbol = f"{SYMBOL_PREFIX}{callback_id}_{next(_SYMBOLS)}"
    SIGNATURES[symbol] = (callback_id, tuple(operand_avals), tuple(result_avals), batch_rank)
    return symbol


def _descriptor_array(address: int, aval: ShapedArray) -> np.ndarray:
    """A NumPy view of the buffer of the memref descriptor at `address`
    (``{allocated, aligned, offset, sizes[rank], strides[rank]}``, identity layout)."""
    words = (ctypes.c_int64 * 3).from_address(address)
    start = words[1] + words[2] * aval.dtype.itemsize
    nbytes = aval.size * aval.dtype.itemsize
    if nbytes == 0:
        return np.empty(aval.shape, aval.dtype)
    buffer = (ctypes.c_char * nbytes).from_address(start)
    return np.frombuffer(buffer, dtype=aval.dtype).reshape(aval.shape)


def _lanes(batch: tuple[int, ...]) -> Any:
    """The indices of the vmapped dims `batch` (outermost vmap first), in
    the order JAX's sequential vmap visits them: the innermost vmap's axis
    slowest."""
    return (index[::-1] for index in np.ndindex(*batch[::-1]))


def _trampoline(symbol: str) -> Callable[..., None]:
    callback_id, operand_avals, result_avals, batch_rank = SIGNATURES[symbol]
    host = _HOSTS.get(callback_id)
    batch = (operand_avals + result_avals)[0].shape[:batch_rank] if batch_rank else ()

    def call(*descriptors: int) -> None:
        try:
            if host is None:
                raise RuntimeError(f"host callback {callback_id} is not registered in this process "
                                   "(the module was compiled elsewhere)")
            operands = [_descriptor_array(d, a).copy() for d, a in zip(descriptors, operand_avals)]
            outputs = [_descriptor_array(d, a) for d, a in zip(descriptors[len(operand_avals):], result_avals)]
            for index in _lanes(batch):  # () once when nothing is vmapped
                results = host(*[x[index] for x in operands])
                for out, value in zip(outputs, results):
                    out[index] = value
        except BaseException as error:  # noqa: BLE001 -- it cannot unwind through compiled code
            if getattr(_PENDING, "error", None) is None:
                _PENDING.error = error
    return call


def register_trampolines(engine: Any, module: ir.Module) -> bool:
    """Resolve the callback symbols that the LLVM-dialect `module` calls to
    trampolines in `engine` (before its first lookup); whether there were any."""
    found = False
    for op in module.body.operations:
        if op.operation.name != "llvm.func":
            continue
        name = ir.StringAttr(op.operation.attributes["sym_name"]).value
        symbol = name.removeprefix("_mlir_ciface_")
        if symbol == name or symbol not in SIGNATURES:
            continue
        _, operand_avals, result_avals, _ = SIGNATURES[symbol]
        function = _TRAMPOLINES.get(symbol)
        if function is None:
            kind = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * (len(operand_avals) + len(result_avals)))
            function = _TRAMPOLINES[symbol] = kind(_trampoline(symbol))
        engine.register_runtime(symbol, function)
        found = True
    return found


def raise_pending(what: str) -> None:
    """Raise the exception a callback of this thread's last compiled call
    caught, if any (then forget it)."""
    error = getattr(_PENDING, "error", None)
    if error is not None:
        _PENDING.error = None
        raise RuntimeError(f"{what}: a host callback raised {type(error).__name__}: {error}") from error


def reset_pending() -> None:
    _PENDING.error = None
