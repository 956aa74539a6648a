"""Host callbacks: Python functions that compiled programs call while they run.

`jax.debug.callback`, `jax.debug.print` and `jax.pure_callback` register a
host function under a process-wide id and, under a trace, emit

    jaxc.callback 7 (%x) : (tensor<3xf32>) -> ()
    %y = jaxc.callback 8 (%x) : (tensor<3xf32>) -> tensor<3xf32>

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
batching rule adds them): the function runs once per index, in row-major
order, and the results are stacked, as JAX's sequential vmap of a callback.
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

def _build(*values: ir.Value, callback_id: int, result_avals: tuple) -> Any:
    import jaxc.dialect as jd
    types = [core.ir_type(a.shape, a.dtype) for a in result_avals]
    op = jd.CallbackOp(types, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), callback_id),
                       list(values))
    return list(op.results)


CALLBACK = core.Primitive("callback", _build, multiple_results=True)


def emit(host: Callable[..., Sequence[np.ndarray]], operands: Sequence[Any],
         result_avals: Sequence[ShapedArray]) -> list[Any]:
    """Under a trace: the `jaxc.callback` op calling `host`; its results."""
    callback_id = register(host)
    return core.bind(CALLBACK, *operands, callback_id=callback_id, result_avals=tuple(result_avals))


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


def _call(what: str, callback: Callable, args: tuple, kwargs: dict,
          result_shape_dtypes: Any) -> Any:
    """Run `callback(*args, **kwargs)` on the host, now (no trace) or when a
    compiled program reaches it; `result_shape_dtypes`: None for a callback
    without results, else the pytree of its results' shapes and dtypes."""
    if not callable(callback):
        raise TypeError(f"{what}: expected a callable, got {type(callback).__name__} {callback!r}")
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    # Array leaves travel through the program; anything else (a string, a
    # config object) is static: the host function gets it as it is.
    static = {i: x for i, x in enumerate(leaves) if not _is_array_like(x)}
    operands = [core.as_operand(x, what) for i, x in enumerate(leaves) if i not in static]
    if result_shape_dtypes is None:
        result_avals, out_tree = [], None
    else:
        shapes, out_tree = tree_util.tree_flatten(result_shape_dtypes)
        from .dtypes import canonicalize
        result_avals = [ShapedArray(s.shape, canonicalize(s.dtype)) for s in shapes]

    def host(*values: np.ndarray) -> list[np.ndarray]:
        arrays = iter(_as_arrays(values))
        full = [static[i] if i in static else next(arrays) for i in range(len(leaves))]
        call_args, call_kwargs = tree_util.tree_unflatten(in_tree, full)
        out = callback(*call_args, **call_kwargs)
        if out_tree is None:
            return []
        return _checked_results(what, out, result_avals, out_tree)

    if core.current_scope() is None:
        from .array import Array
        outs = host(*[np.asarray(x) for x in operands])
        results = [Array._from_value(v) for v in outs]
    else:
        results = emit(host, operands, result_avals)
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
            for index in np.ndindex(*batch):  # () once when nothing is vmapped
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
