"""Importing this module registers every GPU pass (one import per pass module)."""
from . import (
    copy_kernels,  # noqa: F401  jaxc-gpu-copy-kernels
    device_memory,  # noqa: F401  jaxc-gpu-device-memory
    host_shared_memory,  # noqa: F401  jaxc-gpu-host-shared-memory
    linearize_parallel_loops,  # noqa: F401  jaxc-gpu-linearize-parallel-loops
    one_kernel_module,  # noqa: F401  jaxc-gpu-one-kernel-module
    parallel_dims_outer,  # noqa: F401  jaxc-gpu-parallel-dims-outer
    sequential_kernels,  # noqa: F401  jaxc-gpu-sequential-kernels
    sync_host_shared_allocs,  # noqa: F401  jaxc-gpu-sync-host-shared-allocs
)
