"""Arrays that span the processes of `jaxc.distributed` (MPI).

    mesh = jaxc.make_mesh((jaxc.device_count(),), ("d",))     # every process's devices
    batch = jaxc.make_array_from_process_local_data(NamedSharding(mesh, P("d")), local_rows)
    batch.shape                  # the global shape: every process's rows
    batch.addressable_shards     # this process's devices' blocks
    shard_map(f, mesh=mesh, in_specs=P("d"), out_specs=P("d"))(batch)   # runs on every process's lanes
    jit(f, in_shardings=NamedSharding(mesh, P("d")))(batch)              # partitioned, the same way
    jit(f)(batch)                                                        # in_shardings: the batch's own
    multihost_utils.process_allgather(batch)                            # the global value, as NumPy

`make_array_from_callback` (called for this process's devices) and
`device_put(global_value, NamedSharding(mesh, P("d")))` make them too.
A process holds its own part only: the rows of its devices along the
dimension that the sharding splits over the mesh's first axis, which spans
the processes (`jaxc.make_mesh` orders the devices by process). jaxc
computes on such arrays in `shard_map` and in `jit` (partitioned by their
shardings, docs/parallel.md); reading the value
(`np.asarray`, `float`, operators, jnp functions) is JAX's RuntimeError, as for a JAX
array spanning processes. A result replicated over the processes is an
ordinary Array: every process holds all of it.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .core import ArrayBase, ShapedArray

__all__ = ["GlobalArray", "aval_of", "check_process_mesh", "local_axes", "local_input", "local_part", "local_shape",
           "process_dimension", "result", "spans_processes"]

NOT_ADDRESSABLE = ("Fetching value for `jax.Array` that spans non-addressable (non process local) devices is "
                   "not possible. You can use `jax.experimental.multihost_utils.process_allgather` to print "
                   "the global array or use `.addressable_shards` method of jax.Array to inspect the "
                   "addressable (process local) shards.")


def process_dimension(sharding: Any, rank: int) -> int | None:
    """The dimension `sharding` (a NamedSharding) splits over its mesh's
    first axis, the one spanning the processes; None if none does."""
    first = sharding.mesh.axis_names[0]
    for d in range(rank):
        if first in sharding.spec.axes_of(d):
            return d
    return None


def spans_processes(mesh: Any) -> bool:
    """Whether `mesh` holds devices of other processes (jaxc.distributed)."""
    from . import distributed
    if distributed.process_count() == 1:
        return False
    here = distributed.process_index()
    return any(getattr(d, "process_index", 0) != here for d in np.asarray(mesh.devices).flat)


def check_process_mesh(mesh: Any, what: str) -> str:
    """The name of `mesh`'s first axis, after checking that the processes
    split it into equal consecutive blocks (process p's devices fill block
    p along it, as `jaxc.make_mesh` orders them); else a ValueError."""
    from . import distributed
    processes = distributed.process_count()
    devices = np.asarray(mesh.devices)
    first = mesh.axis_names[0]
    rows = devices.shape[0]
    ok = rows % processes == 0
    if ok:
        step = rows // processes
        ok = all(getattr(d, "process_index", 0) == p
                 for p in range(processes) for d in devices[p * step:(p + 1) * step].flat)
    if not ok:
        layout = [[getattr(d, "process_index", 0) for d in row.flat] for row in devices.reshape(rows, -1)]
        from .core import where
        raise ValueError(f"{where()}: {what} across processes: each process's devices must fill an equal block of "
                         f"consecutive positions along the mesh's first axis {first!r} (as jaxc.make_mesh "
                         f"orders them); the processes of this mesh's devices, by row: {layout}")
    return first


def local_part(value: np.ndarray, dim: int, processes: int, rank: int, what: str) -> np.ndarray:
    """Process `rank`'s rows of a global `value` along `dim`."""
    n = value.shape[dim]
    if n % processes:
        raise ValueError(f"{what}: dimension {dim} of shape {value.shape} ({n}) is not divisible by the "
                         f"{processes} processes it is split over")
    index = [slice(None)] * value.ndim
    index[dim] = slice(rank * n // processes, (rank + 1) * n // processes)
    return value[tuple(index)]


def local_axes(axes: list[tuple[str, int]], processes: int) -> list[tuple[str, int]]:
    """A mesh's (name, size) axes as this process's devices make them: the first divided among the processes."""
    return [(name, size // processes if i == 0 else size) for i, (name, size) in enumerate(axes)]


def local_input(x: Any, dtype: Any, dim: int | None, what: str) -> np.ndarray:
    """This process's part of an argument that is split over the processes
    along `dim` (None: not split): an array spanning the processes gives its
    own part; any other value is the global value, whose rows it takes."""
    from . import distributed
    from .core import where
    if isinstance(x, GlobalArray):
        if dim != x._dim:
            raise ValueError(f"{where()}: {what} splits {'no dimension' if dim is None else f'dimension {dim}'} "
                             f"over the processes, but the argument is split over them along dimension "
                             f"{x._dim} (its sharding {x.sharding.spec})")
        return x._local
    value = np.asarray(x, dtype)
    if dim is None:
        return value
    return local_part(value, dim, distributed.process_count(), distributed.process_index(), what)


def aval_of(x: Any) -> ShapedArray:
    """The aval of an argument that may span processes (its global shape)."""
    from .api import _leaf_aval
    return x.aval if isinstance(x, GlobalArray) else _leaf_aval(x)


def local_shape(shape: Sequence[int], dim: int | None, processes: int) -> tuple[int, ...]:
    return tuple(n // processes if d == dim else n for d, n in enumerate(shape))


def result(local: np.ndarray, shape: Sequence[int], sharding: Any, dim: int | None) -> Any:
    """A result this process computed or was given its part of: split over
    the processes along `dim`, a GlobalArray; else (every process has all of
    it) an Array. Either holds the canonical dtype (float32 for float64
    without jax_enable_x64), as a jaxc Array does."""
    from . import dtypes
    from .array import Array
    if dim is None:
        return Array._from_value(local)
    return GlobalArray(np.ascontiguousarray(local, dtypes.canonicalize(local.dtype)), shape, sharding, dim)


class GlobalArray(ArrayBase):
    """An array split over the processes: this process's part (`_local`,
    the global array's slab along `_dim`) and the global shape and sharding.
    Operators, methods and jnp functions on it run as JAX runs them, each
    primitive a jit across the processes (`dispatch.apply_eager`)."""

    is_fully_addressable = False
    is_fully_replicated = False

    def __init__(self, local: np.ndarray, shape: Sequence[int], sharding: Any, dim: int) -> None:
        self._local = local
        self._aval = ShapedArray(tuple(int(n) for n in shape), local.dtype)
        self.sharding = sharding
        self._dim = dim

    @property
    def aval(self) -> ShapedArray:  # type: ignore[override]  # HasAval declares it as an attribute
        return self._aval

    @property
    def addressable_shards(self) -> list:
        """One `Shard` per device of this process: its index in the global array and its data."""
        from .array import Array
        from .dispatch import devices
        from .sharding import Shard, replica_ids
        local = {d.id for d in devices()}
        start = self._local.shape[self._dim] * _process_index()
        replicas = replica_ids(self.sharding, self.shape)
        shards = []
        for device, index in self.sharding.devices_indices_map(self.shape).items():
            if device.id not in local:
                continue
            here = list(index)
            cut = index[self._dim]
            here[self._dim] = slice(cut.start - start, cut.stop - start)
            block = np.ascontiguousarray(self._local[tuple(here)])
            shards.append(Shard(device, index, replicas[device], Array._from_value(block)))
        return shards

    def addressable_data(self, index: int) -> Any:
        return self.addressable_shards[index].data

    def block_until_ready(self) -> "GlobalArray":
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise RuntimeError(NOT_ADDRESSABLE)

    def __iter__(self) -> Any:  # rows, each a global program (JAX slices it the same way)
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))  # type: ignore[index]  # jnp attaches __getitem__

    def __repr__(self) -> str:
        return (f"jaxc.Array({self.aval.str_short()}, spanning processes, sharding={self.sharding!r}; "
                f"this process holds {self._local.shape})")


def _not_addressable(self: GlobalArray, *args: Any) -> Any:
    raise RuntimeError(NOT_ADDRESSABLE)


for _name in ("__float__", "__int__", "__index__", "__complex__", "__bool__", "item", "tolist"):
    setattr(GlobalArray, _name, _not_addressable)


def _process_index() -> int:
    from . import distributed
    return distributed.process_index()
