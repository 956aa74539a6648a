"""`jax.experimental.multihost_utils`: exchanging host values among the
processes of `jaxc.distributed` (MPI).

    jaxc.distributed.initialize()                       # under mpiexec -n 2
    multihost_utils.process_allgather(np.float32(rank)) # [0., 1.] in every process
    multihost_utils.broadcast_one_to_all(params)        # process 0's params everywhere
    multihost_utils.sync_global_devices("saved")        # every process waits for the others

The exchanges go through the MPI communicator that jaxc.distributed
joined (one allgather per call); in a single process they return the value
as JAX does then (NumPy arrays); an array spanning the processes
(`_global_array.GlobalArray`) comes back as its global value.
`host_local_array_to_global_array` makes each process's values the parts
of arrays on a mesh of every process's devices (split over the processes
by the mesh's first axis where the spec names it, else replicated), and
`global_array_to_host_local_array` gives back this process's part; in one
process they place values with `NamedSharding(mesh, pspec)`.
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import optree

from .. import tree_util

__all__ = ["assert_equal", "broadcast_one_to_all", "global_array_to_host_local_array",
           "host_local_array_to_global_array", "process_allgather", "sync_global_devices"]


def _process_count() -> int:
    from jaxc import distributed
    return distributed.process_count()


def _allgather(value: Any) -> list:
    """`value` from every process, by process index (an MPI allgather)."""
    from jaxc import distributed
    return distributed._STATE["comm"].allgather(value)


def _same_shapes(what: str, parts: list[np.ndarray]) -> None:
    kinds = {(p.shape, p.dtype) for p in parts}
    if len(kinds) > 1:
        described = ", ".join(f"process {i}: {p.dtype}{list(p.shape)}" for i, p in enumerate(parts))
        raise ValueError(f"{what}: every process must pass arrays of the same shape and dtype, got {described}")


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Every process's values of the leaves of `in_tree` (same shapes in
    every process), as NumPy arrays: stacked on a new leading axis, or with
    `tiled` concatenated along axis 0 (a scalar is always stacked). In a
    single process: the value, with the new axis unless `tiled`."""
    from jaxc._global_array import GlobalArray
    leaves, tree = tree_util.tree_flatten(in_tree)
    values = [x._local if isinstance(x, GlobalArray) else np.asarray(x) for x in leaves]
    if _process_count() == 1:
        return tree_util.tree_unflatten(tree, [v if tiled else v[np.newaxis] for v in values])
    gathered = _allgather(values)
    out = []
    for i, (x, value) in enumerate(zip(leaves, values)):
        parts = [process_values[i] for process_values in gathered]
        if isinstance(x, GlobalArray):  # an array spanning the processes: its global value, as JAX
            out.append(np.concatenate(parts, axis=x._dim))
            continue
        _same_shapes("process_allgather", parts)
        out.append(np.concatenate(parts) if tiled and value.ndim else np.stack(parts))
    return tree_util.tree_unflatten(tree, out)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """The leaves of `in_tree` of the source process (process 0 unless
    `is_source` says which), in every process, as NumPy arrays. As in JAX
    the processes' contributions are summed, the others giving zeros, so
    several sources add up and none gives zeros."""
    leaves, tree = tree_util.tree_flatten(in_tree)
    values = [np.asarray(x) for x in leaves]
    if _process_count() == 1:
        return tree_util.tree_unflatten(tree, values)
    if is_source is None:
        from jaxc import distributed
        is_source = distributed.process_index() == 0
    gathered = _allgather((bool(is_source), values))
    out = []
    for i, value in enumerate(values):
        _same_shapes("broadcast_one_to_all", [process_values[i] for _, process_values in gathered])
        sent = [process_values[i] for source, process_values in gathered if source]
        out.append(np.sum(np.stack(sent) if sent else np.zeros((0, *value.shape), value.dtype), axis=0,
                          dtype=value.dtype))
    return tree_util.tree_unflatten(tree, out)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
    """An AssertionError unless every process passes the same values."""
    gathered = process_allgather(in_tree, tiled=True)
    count = _process_count()
    expected = tree_util.tree_map(lambda x: np.concatenate([np.atleast_1d(np.asarray(x))] * count), in_tree)
    same = [bool(np.all(np.equal(a, b))) for a, b in zip(tree_util.tree_leaves(expected),
                                                          tree_util.tree_leaves(gathered))]
    if not all(same):
        raise AssertionError(f"{fail_message}. Expected: {gathered}; got: {in_tree}.")


def sync_global_devices(name: str) -> None:
    """A barrier: returns once every device of this process has finished
    the work enqueued so far and every process has called it; an
    AssertionError when the processes passed different names."""
    from jaxc import dispatch
    dispatch.wait_for_all()
    assert_equal(np.uint32(zlib.crc32(name.encode())), f"sync_global_devices name mismatch ('{name}')")


def _place(what: str, inputs: Any, mesh: Any, pspecs: Any, keep_arrays: bool) -> Any:
    """The leaves of `inputs` on `mesh` per `pspecs`; a traced value (and
    with `keep_arrays` a jaxc Array) as it is."""
    from jaxc import core
    from jaxc._global_array import GlobalArray
    from jaxc._toplevel import make_array_from_process_local_data
    from jaxc.api import device_put
    from jaxc.array import Array
    from jaxc.numpy import asarray
    from jaxc.sharding import Mesh, NamedSharding

    if not isinstance(mesh, Mesh):
        raise TypeError(f"{what}: expected a jax.sharding.Mesh, got {type(mesh).__name__}")
    several = _process_count() > 1
    # None leaves on both sides, so that the specs line up with the inputs; an input None stays None
    leaves, tree = optree.tree_flatten(inputs, none_is_leaf=True, namespace=tree_util.NAMESPACE)
    try:
        specs = optree.broadcast_prefix(pspecs, inputs, none_is_leaf=True, namespace=tree_util.NAMESPACE)
    except ValueError as error:
        raise ValueError(f"{what}: pspecs must be a tree prefix of the inputs: {error}") from None
    out: list[Any] = []
    for x, spec in zip(leaves, specs):
        if x is None:
            out.append(None)
            continue
        if spec is None:
            raise ValueError("`None` is not a valid input to the pspecs argument. Please use "
                             "jax.sharding.PartitionSpec() if you wanted to replicate your input.")
        if isinstance(x, core.Tracer) or (keep_arrays and isinstance(x, Array)):
            out.append(x)
        elif several and keep_arrays:  # this process's part of a global array (a GlobalArray's own)
            out.append(asarray(x._local) if isinstance(x, GlobalArray) else asarray(x))
        elif several:
            out.append(make_array_from_process_local_data(NamedSharding(mesh, spec), x))
        else:
            out.append(device_put(x, NamedSharding(mesh, spec)))
    return optree.tree_unflatten(tree, out)


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Any, pspecs: Any) -> Any:
    """This process's values as Arrays on `global_mesh`, each laid out per
    its PartitionSpec (`pspecs`: a pytree prefix of `local_inputs`). In one
    process the global array is the local value, placed with
    `NamedSharding(global_mesh, pspec)`. Under jit, grad or vmap the value
    passes through unchanged, as JAX lowers it."""
    return _place("host_local_array_to_global_array", local_inputs, global_mesh, pspecs, keep_arrays=False)


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Any, pspecs: Any) -> Any:
    """The part of each global Array that this process holds. In one
    process every Array is whole here and comes back as it is (as in JAX);
    another value (a NumPy array) is placed with `NamedSharding(global_mesh, pspec)`."""
    return _place("global_array_to_host_local_array", global_inputs, global_mesh, pspecs, keep_arrays=True)
