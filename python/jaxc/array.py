"""`jaxc.Array`: an immutable, possibly not yet computed, array on a device.

An Array is either *ready* (it holds a read-only NumPy array) or *pending*
(it holds the `Task` that will produce it). Operations return pending Arrays
at once; `block_until_ready()`, `np.asarray(x)`, `repr`, `.item()`,
`.tolist()`, `float()`/`int()`/`bool()` wait. An error raised while the task
ran is raised there, naming the operation and the line that launched it.

An Array lives on one device (`.device`, `.devices()`, `.sharding`, a
`SingleDeviceSharding`), as a JAX array on one device does, or on several:
the results of `pmap` and `shard_map` and arrays `device_put` on a
`NamedSharding` hold their global value in one buffer, and each of their
`addressable_shards` is a view of its part (docs/parallel.md).

    >>> x = jnp.arange(3.0)
    >>> x * 2
    Array([0., 2., 4.], dtype=float32)
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from . import _operators, core, dtypes
from .core import ArrayBase, ShapedArray
from .profiler import traces as _profile
from .runtime._fastcall import traceback as _where_created
from .sharding import Sharding, SingleDeviceSharding, replica_ids

if TYPE_CHECKING:
    from .dispatch import Device, Task

_operators.attach()  # Arrays have operators even before jaxc.lax is imported (lax attaches them too)


class _Deleted:
    """The task of a deleted Array: reading it raises JAX's RuntimeError."""

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def check(self) -> None:
        raise RuntimeError(f"Array has been deleted with shape={self.aval.str_short()}.")

    def is_done(self) -> bool:
        return True


class Array(ArrayBase):
    # `_traceback`: where the Array was created, (code, line, ...) innermost
    # first (jaxc.profiler.device_memory_profile shows it).
    # `_sharding`: a pmap result's PmapSharding (unset: all of it on `device`).
    __slots__ = ("aval", "_value", "_task", "_cell", "device", "_traceback", "_sharding",
                 "__weakref__")

    aval: ShapedArray
    device: Device | None
    _sharding: Sharding | None
    _value: np.ndarray | None  # None while pending
    _task: Task | _Deleted | None  # the task that computes a pending Array's value (None once ready)
    # A pending Array's result cell, `[value]`, which its task fills: the Array
    # holds its own result and the task keeps none, so a pending Array (a loss
    # nobody has read) keeps no other result of its call alive. None for an
    # Array made ready (a pending one keeps it, holding the same value).
    _cell: list[np.ndarray | None] | None
    _traceback: Any

    if TYPE_CHECKING:  # attached by _operators.attach()
        def astype(self, dtype: Any) -> Array: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("jaxc.Array cannot be constructed directly; use jnp.asarray(x) or "
                        "jaxc.device_put(x)")

    # -- construction ------------------------------------------------------

    @classmethod
    def _ready(cls, value: np.ndarray, aval: ShapedArray, device: Any = None) -> "Array":
        self = object.__new__(cls)
        self.aval = aval
        self._value = value
        self._task = None
        self._cell = None
        self.device = device
        self._traceback = _where_created()
        return self

    @classmethod
    def _pending(cls, aval: ShapedArray, task: Task | None, cell: list[np.ndarray | None] | None,
                 device: Any) -> "Array":
        self = object.__new__(cls)
        self.aval = aval
        self._value = None
        self._task = task
        self._cell = cell
        self.device = device
        self._traceback = _where_created()
        return self

    @classmethod
    def _from_value(cls, x: Any, dtype: Any = None, device: Any = None) -> "Array":
        """An Array holding a copy of `x` (NumPy array or scalar, Python
        scalar) with `dtype` or the canonical dtype of `x`."""
        if isinstance(x, Array):
            return x if dtype is None or np.dtype(dtype) == x.dtype else x.astype(dtype)
        if isinstance(x, core.Tracer):
            raise core.TracerLeakError(f"{core.where()}: a traced value cannot become a concrete Array")
        weak = False
        if dtype is None:
            if isinstance(x, (bool, int, float, complex)):
                dtype, weak = dtypes.scalar_dtype(x)
            else:
                x = np.asarray(x)
                if x.dtype == object:
                    raise TypeError(f"cannot convert {type(x).__name__} of Python objects to a jaxc array")
                dtype = dtypes.canonicalize(x.dtype)
        else:
            dtype = dtypes.canonicalize(dtype)
        if isinstance(x, int) and not isinstance(x, bool) and np.dtype(dtype).kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= x <= info.max:
                raise OverflowError(f"Python int {x} is too large for {np.dtype(dtype).name}")
        value = np.array(x, dtype=dtype, copy=True, order="C")
        from .dispatch import default_device, transfer
        device = device or default_device()
        value = transfer(value, device)
        return cls._ready(value, ShapedArray(value.shape, dtype, weak), device)

    # -- synchronization ---------------------------------------------------

    def _ready_value(self) -> np.ndarray:
        value = self._value
        if value is None:
            task = self._task
            if task is None:  # another thread made it ready meanwhile
                value = self._value
                assert value is not None
                return value
            task.check()  # waits; raises the task's error
            cell = self._cell
            assert cell is not None and cell[0] is not None  # the task filled it
            value = cell[0]
            self._value = value
            self._task = None
        return value

    def block_until_ready(self) -> "Array":
        self._ready_value()
        return self

    # -- the buffer ----------------------------------------------------------

    def delete(self) -> None:
        """Free the array's buffer now (JAX's Array.delete); any later use
        raises RuntimeError ("Array has been deleted")."""
        self._value, self._cell, self._task = None, None, _Deleted(self.aval)

    def is_deleted(self) -> bool:
        return isinstance(self._task, _Deleted)

    def unsafe_buffer_pointer(self) -> int:
        """The address of the host buffer (valid while the Array lives)."""
        value = self._ready_value()
        if not isinstance(value, np.ndarray):
            raise NotImplementedError(f"unsafe_buffer_pointer of an array on {self.device}: its buffer is "
                                      "device memory")
        return int(value.ctypes.data)

    def on_device_size_in_bytes(self) -> int:
        return int(self.nbytes)

    def is_ready(self) -> bool:
        task = self._task
        return self._value is not None or (task is not None and task.is_done())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """NumPy 2's protocol: the read-only value (copy=None), a fresh
        writable copy (copy=True), or ValueError when copy=False and `dtype`
        needs a conversion (as NumPy's own arrays do)."""
        session = _profile.SESSION
        if session is not None:
            with _profile.span("transfer to host", "transfer", {"bytes": self.nbytes}):
                value = self._ready_value()
        else:
            value = self._ready_value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            if copy is False:
                raise ValueError(f"Unable to avoid copy while creating an array as requested: a "
                                 f"jaxc.Array of dtype {value.dtype.name} converted to "
                                 f"{np.dtype(dtype).name} (use copy=None to allow the copy)")
            return value.astype(dtype)
        if copy:
            return value.copy()
        return value

    def copy_to_host_async(self) -> None:
        pass

    # -- conversions -------------------------------------------------------

    def item(self, *args: Any) -> Any:
        return self._ready_value().item(*args)

    def tolist(self) -> Any:
        return self._ready_value().tolist()

    def __bool__(self) -> bool:
        return bool(self._ready_value())

    def __float__(self) -> float:
        return float(self._ready_value())

    def __int__(self) -> int:
        return int(self._ready_value())

    def __complex__(self) -> complex:
        return complex(self._ready_value())

    def __index__(self) -> int:
        if not dtypes.is_int(self.dtype):  # bool too, as in JAX
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype.name}")
        return int(self._ready_value())

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        value = self._ready_value()
        aval = ShapedArray(self.shape[1:], self.dtype, self.weak_type)
        # value[i, ...], not the rows of `for row in value`: a 1-d array's are NumPy
        # scalars, and an Array holds an ndarray (np.asarray of an element needs one).
        return (Array._ready(value[i, ...], aval, self.device) for i in range(len(value)))

    def __hash__(self) -> NoReturn:
        raise TypeError("unhashable type: 'jaxc.Array' (arrays are mutable-looking values; "
                        "use a tuple, or mark a jit argument static only if it is hashable)")

    def __format__(self, spec: str) -> str:
        if not self.shape:
            return format(self._ready_value().item(), spec)
        return format(self._ready_value(), spec)

    def __repr__(self) -> str:
        value = self._ready_value()
        prefix = "Array("
        body = np.array2string(value, separator=", ", prefix=prefix)
        shape = f", shape={self.shape}" if value.size == 0 and self.ndim > 1 else ""
        weak = ", weak_type=True" if self.weak_type else ""
        return f"{prefix}{body}{shape}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        return str(self._ready_value())

    def __reduce__(self):
        return (_reconstruct, (self._ready_value(), self.weak_type))

    def __deepcopy__(self, memo: Any) -> "Array":
        return self

    def __copy__(self) -> "Array":
        return self

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        """The DLPack capsule of the read-only value (host memory), for
        ``np.from_dlpack`` and other DLPack consumers. A consumer of DLPack
        before 1.0 (no `max_version`), which cannot be told that the data is
        read-only, gets a copy unless copy=False."""
        if max_version is None or tuple(max_version) < (1, 0):
            copy = True if copy is None else copy
        kwargs = {name: value for name, value in (("max_version", max_version), ("dl_device", dl_device),
                                                  ("copy", copy)) if value is not None}
        return self._ready_value().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._ready_value().__dlpack_device__()

    def devices(self) -> set:
        """The set of devices holding this array."""
        return self.sharding.device_set

    @property
    def sharding(self) -> Any:
        """A `SingleDeviceSharding`, or a pmap result's `PmapSharding`."""
        sharding = getattr(self, "_sharding", None)
        return SingleDeviceSharding(self.device) if sharding is None else sharding

    @property
    def is_fully_replicated(self) -> bool:
        return self.sharding.is_fully_replicated

    is_fully_addressable = True

    @property
    def addressable_shards(self) -> list:
        """One `Shard` per device: its index in the array and its data (a view:
        jaxc's devices share the host's memory)."""
        from .sharding import Shard
        sharding = getattr(self, "_sharding", None)
        if sharding is None:
            return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]
        value = self._ready_value()
        aval = ShapedArray(sharding.shard_shape(self.shape), self.dtype, self.weak_type)
        replicas = replica_ids(sharding, self.shape)
        return [Shard(device, index, replicas[device], Array._ready(value[index], aval, device))
                for device, index in sharding.devices_indices_map(self.shape).items()]

    def addressable_data(self, index: int) -> "Array":
        """The data of shard `index` (a one-device array has one: itself)."""
        shards = self.addressable_shards
        index = operator.index(index)
        if not -len(shards) <= index < len(shards):
            raise IndexError(f"addressable_data: shard index {index} out of range (this jaxc.Array has "
                             f"{len(shards)} shard{'s' if len(shards) != 1 else ''})")
        return shards[index].data

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize


def _reconstruct(value: np.ndarray, weak_type: bool) -> Array:
    array = Array._from_value(value)
    if weak_type:
        array.aval = ShapedArray(array.shape, array.dtype, True)
    return array


# ---------------------------------------------------------------------------
# jax_array_garbage_collection_guard
# ---------------------------------------------------------------------------
# An Array freed by the cyclic garbage collector (not by reference counting)
# held its buffer until a collection ran. With the option at "log" such an
# Array logs an error (logger "jaxc") with where it was created; at "fatal"
# the process then aborts, as JAX's does. Arrays have a finalizer only while
# the option asks for one; a gc callback tells a collection apart.

_collecting = False  # a cyclic collection is running


def _collection_phase(phase: str, info: dict) -> None:
    global _collecting
    _collecting = phase == "start"


def _freed(self: Array) -> None:
    """Array.__del__ while the guard is on: speak only inside a collection."""
    if not _collecting:
        return
    import logging
    import os

    from ._config import config
    from .profiler.memory import _frames
    frames = _frames(self._traceback, {}) if self._traceback else []
    where = "\n".join(f"{file}:{line} ({function})" for function, file, _, line in frames)
    logging.getLogger("jaxc").error(
        "`jaxc.Array` %s was deleted by the Python garbage collector instead of reference counting. Break "
        "the reference cycle that delays the deletion of this `jaxc.Array` to avoid hogging memory. "
        "Traceback: \n%s", self.aval.str_short(), where)
    if config.jax_array_garbage_collection_guard == "fatal":
        for handler in logging.getLogger("jaxc").handlers + logging.getLogger().handlers:
            handler.flush()
        os.abort()


def _apply_collection_guard(name: str, value: Any) -> None:
    """Give Arrays their finalizer while the guard logs or aborts."""
    import gc
    if name != "jax_array_garbage_collection_guard":
        return
    if value in ("log", "fatal"):
        if _collection_phase not in gc.callbacks:
            gc.callbacks.append(_collection_phase)
        Array.__del__ = _freed  # type: ignore[attr-defined]
    else:
        if _collection_phase in gc.callbacks:
            gc.callbacks.remove(_collection_phase)
        if "__del__" in Array.__dict__:
            del Array.__del__  # type: ignore[attr-defined]


def _install_collection_guard() -> None:
    from ._config import config
    config.on_update(_apply_collection_guard)
    _apply_collection_guard("jax_array_garbage_collection_guard", config.jax_array_garbage_collection_guard)


_install_collection_guard()
