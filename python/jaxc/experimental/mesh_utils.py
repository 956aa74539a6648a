"""`jax.experimental.mesh_utils`: NumPy arrays of devices shaped for a `Mesh`.

    devices = mesh_utils.create_device_mesh((2, 4))       # 8 CPU devices, row-major
    mesh = jaxc.sharding.Mesh(devices, ("data", "model"))

jaxc's devices are CPU devices with no network topology (JAX's placement
search is for TPUs), so a mesh is the devices in `jaxc.devices()` order,
reshaped, as JAX builds it for CPU devices. `device_kind_handler_dict` maps
a `device_kind` to a function that builds the mesh instead, as in JAX.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["create_device_mesh", "create_hybrid_device_mesh", "device_kind_handler_dict"]

# device_kind -> handler(mesh_shape, devices, *, contiguous_submeshes) -> np.ndarray or None (use the default)
device_kind_handler_dict: dict[str, Callable[..., np.ndarray | None]] = {}


def _axis_sizes(mesh_shape: Any) -> tuple[int, ...] | None:
    try:
        return tuple(int(s) for s in mesh_shape)
    except (TypeError, ValueError):
        return None


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False, allow_split_physical_axes: bool = False) -> np.ndarray:
    """`devices` (default: every device, `jaxc.devices()`) as an array of
    shape `mesh_shape`, for `jaxc.sharding.Mesh`. A ValueError when the
    number of devices is not the product of `mesh_shape`.
    `contiguous_submeshes` and `allow_split_physical_axes` concern physical
    topologies: CPU devices have none, so they change nothing (as in JAX)."""
    if devices is None:
        from jaxc.api import devices as all_devices
        devices = all_devices()
    shape = _axis_sizes(mesh_shape)
    if shape is None:
        raise ValueError(f"`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. "
                         f"Got {mesh_shape}")
    devices = list(devices)
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of mesh_shape {shape}")
    kind: Any = getattr(devices[-1], "device_kind", None)  # any device object may come in
    handler = device_kind_handler_dict.get(kind)
    if handler is not None:
        mesh = handler(shape, devices, contiguous_submeshes=contiguous_submeshes)
        if mesh is not None:
            return mesh
    mesh = np.empty(len(devices), dtype=object)
    mesh[:] = devices
    return mesh.reshape(shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *, process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
    """A mesh of meshes: the devices fall into granules (slices, or with
    `process_is_granule` processes); each granule becomes a
    `create_device_mesh(mesh_shape)` block and the blocks are laid out on
    `dcn_mesh_shape`. The result has shape ``mesh_shape * dcn_mesh_shape``
    elementwise. jaxc's CPU devices have no slice index, so pass
    `process_is_granule=True` (JAX's ValueError otherwise)."""
    if devices is None:
        from jaxc.api import devices as all_devices
        devices = all_devices()
    devices = list(devices)
    key = "process_index" if process_is_granule else "slice_index"
    if not hasattr(devices[0], key):
        raise ValueError(f"Device {devices[0]} does not have attribute {key}. See `process_is_granule` option.")
    granules: dict[Any, list] = {}
    for device in devices:
        granules.setdefault(getattr(device, key), []).append(device)
    order = sorted(granules) if should_sort_granules_by_key else list(granules)
    if math.prod(dcn_mesh_shape) != len(order):
        raise ValueError(f"Number of slices {len(order)} must equal the product of dcn_mesh_shape {dcn_mesh_shape}")
    blocks = [create_device_mesh(mesh_shape, granules[k], allow_split_physical_axes=allow_split_physical_axes)
              for k in order]
    grid = np.empty(len(blocks), dtype=object)
    for i, block in enumerate(blocks):  # one by one: NumPy would unpack the arrays
        grid[i] = block
    return np.block(grid.reshape(tuple(dcn_mesh_shape)).tolist())
