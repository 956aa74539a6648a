"""The NVIDIA GPU path: passes that take bufferized loops to kernels, the
table of supported chips, and PTX serialization (docs/gpu.md).

Importing this package registers its passes.
"""
from . import host_shared_memory  # noqa: F401  jaxc-gpu-host-shared-memory
from . import device_memory  # noqa: F401  jaxc-gpu-device-memory
from . import sync_host_shared_allocs  # noqa: F401  jaxc-gpu-sync-host-shared-allocs
from . import copy_kernels  # noqa: F401  jaxc-gpu-copy-kernels
from . import parallel_dims_outer  # noqa: F401  jaxc-gpu-parallel-dims-outer
from . import linearize_parallel_loops  # noqa: F401  jaxc-gpu-linearize-parallel-loops
from . import sequential_kernels  # noqa: F401  jaxc-gpu-sequential-kernels
