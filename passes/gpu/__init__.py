"""The NVIDIA GPU path: passes that take bufferized loops to kernels, the
table of supported chips, and PTX serialization (docs/gpu.md).

Importing this package registers its passes.
"""
from . import (
    copy_kernels,  # noqa: F401  jaxc-gpu-copy-kernels
    device_memory,  # noqa: F401  jaxc-gpu-device-memory
    host_shared_memory,  # noqa: F401  jaxc-gpu-host-shared-memory
    linearize_parallel_loops,  # noqa: F401  jaxc-gpu-linearize-parallel-loops
    parallel_dims_outer,  # noqa: F401  jaxc-gpu-parallel-dims-outer
    sequential_kernels,  # noqa: F401  jaxc-gpu-sequential-kernels
    sync_host_shared_allocs,  # noqa: F401  jaxc-gpu-sync-host-shared-allocs
)
