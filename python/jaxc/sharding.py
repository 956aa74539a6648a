"""`jaxc.sharding`: where the parts of an Array live, as `jax.sharding`.

    mesh = jaxc.make_mesh((2, 4), ("x", "y"))            # 8 CPU devices
    s = NamedSharding(mesh, P("x", None))                 # rows split over x, replicated over y
    a = jaxc.device_put(np.arange(32.0).reshape(8, 4), s)
    a.addressable_shards[5].index                         # (slice(4, 8), slice(None))

jaxc's CPU devices share the host's memory, so a sharded Array holds its
global value in one buffer and each shard is a view of its block: nothing
is copied to put an array on a mesh or to read a shard. `shard_map`
(jaxc._shard_map) runs a function on every block at once, one thread per
device, and a `jit` with `in_shardings`/`out_shardings` is split into one
device's program through MLIR's shard dialect where its passes can
(jaxc._partitioned_jit; docs/parallel.md).
"""
from __future__ import annotations

import enum
import math
import threading
from typing import Any, Sequence

import numpy as np

__all__ = ["Sharding", "SingleDeviceSharding", "NamedSharding", "PmapSharding", "Mesh", "Shard",
           "PartitionSpec", "AxisType", "use_mesh", "get_abstract_mesh"]


class AxisType(enum.Enum):
    """How a mesh axis is sharded (JAX's explicit-sharding modes); jaxc
    records the type and treats every axis alike."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()


class Sharding:
    """The base class: which device holds which part of an array."""

    memory_kind = "device"
    is_fully_addressable = True

    @property
    def device_set(self) -> set:
        raise NotImplementedError

    @property
    def addressable_devices(self) -> set:
        return self.device_set

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        """Device -> the index (a tuple of slices/ints) of its part."""
        raise NotImplementedError

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        raise NotImplementedError

    def is_equivalent_to(self, other: "Sharding", ndim: int) -> bool:
        shape = (1,) * ndim
        try:
            return self.devices_indices_map(shape) == other.devices_indices_map(shape)
        except ValueError:
            return False


class SingleDeviceSharding(Sharding):
    """All of an array on one device."""

    is_fully_replicated = True

    def __init__(self, device: Any, *, memory_kind: str | None = None) -> None:
        self._device = device

    @property
    def device_set(self) -> set:
        return {self._device}

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        return {self._device: (slice(None),) * len(global_shape)}

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(global_shape)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SingleDeviceSharding) and other._device is self._device

    def __hash__(self) -> int:
        return hash(("SingleDeviceSharding", id(self._device)))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class PmapSharding(Sharding):
    """A pmap result: slice i of the mapped axis (`sharded_dim`) on device i."""

    is_fully_replicated = False

    def __init__(self, devices: Sequence[Any], sharded_dim: int = 0) -> None:
        self.devices = np.array(list(devices), dtype=object)
        self.sharded_dim = sharded_dim

    @property
    def device_set(self) -> set:
        return set(self.devices.tolist())

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        """A shard's shape: the global shape without the mapped dimension."""
        shape = tuple(global_shape)
        return shape[:self.sharded_dim] + shape[self.sharded_dim + 1:]

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        rank = len(global_shape)
        return {d: tuple(i if k == self.sharded_dim else slice(None) for k in range(rank))
                for i, d in enumerate(self.devices.tolist())}

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, PmapSharding) and self.sharded_dim == other.sharded_dim
                and self.devices.tolist() == other.devices.tolist())

    def __hash__(self) -> int:
        return hash(("PmapSharding", self.sharded_dim, tuple(map(id, self.devices.tolist()))))

    def __repr__(self) -> str:
        return (f"PmapSharding(sharded_dim={self.sharded_dim}, device_ids="
                f"{[d.id for d in self.devices.tolist()]}, device_platform=CPU, "
                f"device_shape=({len(self.devices)},))")


# ---------------------------------------------------------------------------
# Meshes and partition specs
# ---------------------------------------------------------------------------

class PartitionSpec(tuple):
    """How each dimension of an array is split over mesh axes: an entry per
    dimension (leading ones; missing trailing entries are None), each None
    (not split), an axis name, or a tuple of axis names (split over their
    product, the first major). `P("x", None)`, `P(("x", "y"))`, `P()`."""

    def __new__(cls, *partitions: Any) -> "PartitionSpec":
        for entry in partitions:
            names = entry if isinstance(entry, tuple) else (entry,)
            if not all(n is None or isinstance(n, str) for n in names) or \
                    (isinstance(entry, tuple) and None in entry):
                raise TypeError(f"PartitionSpec entries must be None, an axis name or a tuple of axis "
                                f"names, got {entry!r}")
        return super().__new__(cls, partitions)

    def __repr__(self) -> str:
        return f"P{tuple(self)!r}" if len(self) != 1 else f"P({self[0]!r},)"  # JAX 0.10's: P('a',), P('a', 'b')

    def __reduce__(self):
        return (PartitionSpec, tuple(self))

    def axes_of(self, dim: int) -> tuple[str, ...]:
        """The mesh axes dimension `dim` is split over, major first."""
        if dim >= len(self) or self[dim] is None:
            return ()
        return self[dim] if isinstance(self[dim], tuple) else (self[dim],)


class Mesh:
    """Devices laid out on named axes: `Mesh(np.array(devices).reshape(2, 4), ("x", "y"))`.
    `with mesh:` makes it the mesh of `shard_map` calls that name none."""

    def __init__(self, devices: Any, axis_names: Sequence[str] | str,
                 axis_types: Any = None) -> None:
        devices = np.array(devices, dtype=object)
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if devices.ndim != len(names):
            raise ValueError(f"Mesh: the devices array has {devices.ndim} dimensions but "
                             f"{len(names)} axis names were given: {names}")
        if len(set(names)) != len(names):
            raise ValueError(f"Mesh: axis names must be distinct, got {names}")
        flat = devices.ravel().tolist()
        if len(set(map(id, flat))) != len(flat):
            raise ValueError("Mesh: a device appears twice")
        self.devices = devices
        self.axis_names = names
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(names)
        self.axis_types = tuple(axis_types)

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        return tuple(self.devices.shape)

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.axis_names, self.devices.shape))

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self) -> list:
        return self.devices.ravel().tolist()

    @property
    def empty(self) -> bool:
        return self.devices.size == 0

    def __enter__(self) -> "Mesh":
        _mesh_stack().append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _mesh_stack().pop()

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, Mesh) and self.axis_names == other.axis_names
                and self.devices.shape == other.devices.shape
                and all(a is b for a, b in zip(self.devices.ravel(), other.devices.ravel())))

    def __hash__(self) -> int:
        return hash((self.axis_names, self.devices.shape, tuple(map(id, self.devices.ravel()))))

    def __repr__(self) -> str:
        axes = ", ".join(f"'{n}': {s}" for n, s in self.shape.items())
        return f"Mesh({axes}, axis_types={tuple(t.name for t in self.axis_types)})"


_MESHES = threading.local()


def _mesh_stack() -> list:
    if not hasattr(_MESHES, "stack"):
        _MESHES.stack = []
    return _MESHES.stack


_GLOBAL_MESH: list[Mesh] = []  # set_mesh's


def current_mesh() -> Mesh | None:
    """The innermost `with mesh:` / `use_mesh(mesh)`, else `set_mesh`'s, else None."""
    stack = _mesh_stack()
    if stack:
        return stack[-1]
    return _GLOBAL_MESH[-1] if _GLOBAL_MESH else None


class use_mesh:
    """`with jaxc.sharding.use_mesh(mesh):` (also `jaxc.set_mesh(mesh)` as a
    context manager): the mesh of shard_map calls inside."""

    def __init__(self, mesh: Mesh) -> None:
        if not isinstance(mesh, Mesh):
            raise TypeError(f"use_mesh: expected a Mesh, got {type(mesh).__name__}")
        self.mesh = mesh

    def __enter__(self) -> Mesh:
        _mesh_stack().append(self.mesh)
        return self.mesh

    def __exit__(self, *exc: Any) -> None:
        _mesh_stack().pop()


class set_mesh(use_mesh):
    """`jaxc.set_mesh(mesh)`: the mesh from now on (or inside a `with`)."""

    def __init__(self, mesh: Mesh) -> None:
        super().__init__(mesh)
        self._previous = list(_GLOBAL_MESH)
        _GLOBAL_MESH[:] = [mesh]

    def __enter__(self) -> Mesh:
        return self.mesh

    def __exit__(self, *exc: Any) -> None:
        _GLOBAL_MESH[:] = self._previous


def get_abstract_mesh() -> Mesh | None:
    return current_mesh()


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types: Any = None, *,
              devices: Sequence[Any] | None = None) -> Mesh:
    """A Mesh of the first prod(axis_shapes) devices (`jaxc.devices()`: under
    jaxc.distributed every process's, by process), row-major."""
    from .dispatch import global_devices as cpu_devices
    shape = tuple(int(s) for s in axis_shapes)
    names = tuple(axis_names)
    if len(shape) != len(names):
        raise ValueError(f"make_mesh: {len(shape)} axis sizes but {len(names)} axis names")
    pool = list(cpu_devices() if devices is None else devices)
    count = math.prod(shape)
    if count > len(pool):
        raise ValueError(f"Number of devices {len(pool)} must be >= the product of mesh_shape "
                         f"{shape} ({count}); set jax_num_cpu_devices before first use")
    return Mesh(np.array(pool[:count], dtype=object).reshape(shape), names, axis_types)


class NamedSharding(Sharding):
    """An array split over a mesh by a PartitionSpec."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec, *, memory_kind: str | None = None) -> None:
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding: expected a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec) if isinstance(spec, (tuple, list)) else spec
            if not isinstance(spec, PartitionSpec):
                raise TypeError(f"NamedSharding: expected a PartitionSpec, got {spec!r}")
        used = [n for d in range(len(spec)) for n in spec.axes_of(d)]
        for name in used:
            if name not in mesh.axis_names:
                raise ValueError(f"Resource axis: {name} of {spec} is not found in mesh: "
                                 f"{mesh.axis_names}.")
        if len(set(used)) != len(used):
            raise ValueError(f"A mesh axis appears twice in {spec}")
        self.mesh = mesh
        self.spec = spec

    @property
    def device_set(self) -> set:
        return set(self.mesh.devices.ravel().tolist())

    @property
    def is_fully_replicated(self) -> bool:
        return all(self.mesh.shape[n] == 1 for d in range(len(self.spec)) for n in self.spec.axes_of(d))

    def _check_rank(self, global_shape: Sequence[int]) -> None:
        if len(self.spec) > len(global_shape):  # JAX's wording
            raise ValueError(f"Sharding {self!r} is only valid for values of rank at least "
                             f"{len(self.spec)}, but was applied to a value of rank {len(global_shape)}")

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        self._check_rank(global_shape)
        shape = []
        for d, n in enumerate(global_shape):
            parts = math.prod(self.mesh.shape[a] for a in self.spec.axes_of(d))
            if n % parts:  # JAX's wording
                raise ValueError(f"The sharding {self!r} implies that the global size of dimension "
                                 f"{d} should be divisible by {parts}, but it is equal to {n} (full "
                                 f"shape: {tuple(global_shape)})")
            shape.append(n // parts)
        return tuple(shape)

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        block = self.shard_shape(global_shape)
        names = self.mesh.axis_names
        result = {}
        for coords in np.ndindex(*self.mesh.devices.shape):
            where = dict(zip(names, coords))
            index = []
            for d in range(len(global_shape)):
                axes = self.spec.axes_of(d)
                if not axes:
                    index.append(slice(None))
                    continue
                position = 0
                for a in axes:  # the first axis major
                    position = position * self.mesh.shape[a] + where[a]
                index.append(slice(position * block[d], (position + 1) * block[d]))
            result[self.mesh.devices[coords]] = tuple(index)
        return result

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NamedSharding) and self.mesh == other.mesh and \
            _normalized(self.spec) == _normalized(other.spec)

    def __hash__(self) -> int:
        return hash((self.mesh, _normalized(self.spec)))

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"


def _normalized(spec: PartitionSpec) -> tuple:
    entries = [spec.axes_of(d) for d in range(len(spec))]
    while entries and not entries[-1]:
        entries.pop()
    return tuple(entries)


class Shard:
    """One device's part of an Array (`Array.addressable_shards`)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device: Any, index: tuple, replica_id: int, data: Any) -> None:
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self) -> str:
        return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
                f"data={self.data!r})")


def replica_ids(sharding: Sharding, global_shape: Sequence[int]) -> dict:
    """Device -> its replica number among the devices holding the same part."""
    seen: dict = {}
    ids = {}
    for device, index in sharding.devices_indices_map(global_shape).items():
        key = tuple((s.start, s.stop) if isinstance(s, slice) else s for s in index)
        ids[device] = seen.get(key, 0)
        seen[key] = ids[device] + 1
    return ids
