"""The NVIDIA GPU path: passes that take bufferized loops to kernels, the
table of supported chips, and PTX serialization (docs/gpu.md).

Importing this package registers its passes.
"""
from . import host_shared_memory  # noqa: F401  jaxc-gpu-host-shared-memory
from . import copy_kernels  # noqa: F401  jaxc-gpu-copy-kernels
from . import linearize_parallel_loops  # noqa: F401  jaxc-gpu-linearize-parallel-loops
from . import sequential_kernels  # noqa: F401  jaxc-gpu-sequential-kernels
