"""`jaxc.distributed`: several processes as one set of devices, over MPI.

    # mpiexec -n 2 python train.py        (pip install jaxc[mpi]: mpich, mpi4py)
    import jaxc
    jaxc.distributed.initialize()          # before any computation
    jaxc.process_index(), jaxc.process_count()      # the MPI rank and size
    jaxc.devices()                         # every process's CPU devices; local_devices(): this one's
    jaxc.pmap(f, axis_name="i")(x)         # x: this process's slice; psum adds over every process

As in JAX, each process passes `pmap` the slice of its own devices
(`local_device_count()` along the mapped axis) and gets back its own part;
the axis spans all processes, so `psum`, `pmean`, `pmax`, `pmin`,
`all_gather` and `axis_index` see every device. The collectives work
among a process's lanes first, then lane 0 makes one MPI call for the
process (MPI_Allreduce, MPI_Allgather) from the SPMD runtime
(`runtime/_fastcall.c`), with the MPI library mpi4py loaded. `shard_map`
on a mesh of every process's devices works the same way, on arrays split
over the processes (`make_array_from_process_local_data`,
`_global_array.py`; docs/parallel.md).
"""
from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["initialize", "shutdown", "is_initialized"]

_STATE: dict[str, Any] = {}


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids: Any = None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               coordinator_bind_address: str | None = None, **unused: Any) -> None:
    """Join the processes started by `mpiexec` (MPI's COMM_WORLD). The
    coordinator arguments are accepted for JAX compatibility: MPI already
    knows its processes; `num_processes` / `process_id`, when given, must
    match MPI's size and rank."""
    if _STATE:
        raise RuntimeError("jaxc.distributed.initialize should only be called once.")
    from . import dispatch
    if dispatch._DEVICES:
        raise RuntimeError("jaxc.distributed.initialize() must be called before any jaxc computations "
                           "(the devices exist already)")
    try:
        from mpi4py import MPI
    except ImportError:
        raise RuntimeError("jaxc.distributed needs MPI: pip install 'jaxc[mpi]' (the mpich and mpi4py "
                           "wheels), then start the processes with mpiexec -n N") from None
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    if num_processes is not None and num_processes != size:
        raise ValueError(f"jaxc.distributed.initialize: num_processes={num_processes}, but MPI started {size}")
    if process_id is not None and process_id != rank:
        raise ValueError(f"jaxc.distributed.initialize: process_id={process_id}, but this is MPI rank {rank}")
    if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
        raise RuntimeError("jaxc.distributed: MPI must allow calls from any thread (MPI_THREAD_MULTIPLE); "
                           "do not lower mpi4py.rc.thread_level")
    library = _mpi_library()
    handles = MPI._handleof
    types = [MPI.FLOAT, MPI.DOUBLE, MPI.INT8_T, MPI.INT16_T, MPI.INT32_T, MPI.INT64_T, MPI.UINT8_T,
             MPI.UINT16_T, MPI.UINT32_T, MPI.UINT64_T]  # the runtime's type codes (collectives.py)
    from .runtime import _fastcall
    _fastcall.set_mpi(ctypes.cast(library.MPI_Allreduce, ctypes.c_void_p).value,
                      ctypes.cast(library.MPI_Allgather, ctypes.c_void_p).value,
                      handles(comm), handles(MPI.BYTE), rank, size, tuple(handles(t) for t in types),
                      (handles(MPI.SUM), handles(MPI.MAX), handles(MPI.MIN)))
    _STATE.update(comm=comm, rank=rank, size=size, library=library)


def _mpi_library() -> ctypes.CDLL:
    """The MPI library mpi4py loaded (its symbols, from this process)."""
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if "/libmpi" in path and ".so" in path:
            return ctypes.CDLL(path)
    return ctypes.CDLL(None)  # linked into the process


def shutdown() -> None:
    """Leave the distributed set (MPI itself is finalized at exit by mpi4py)."""
    if _STATE:
        _STATE["comm"].Barrier()
        from .runtime import _fastcall
        _fastcall.set_mpi(0, 0, 0, 0, 0, 1, (0,) * 10, (0,) * 3)  # one process again
    _STATE.clear()


def is_initialized() -> bool:
    return bool(_STATE)


def process_index() -> int:
    return _STATE.get("rank", 0)


def process_count() -> int:
    return _STATE.get("size", 1)
