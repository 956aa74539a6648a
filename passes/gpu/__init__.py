"""The NVIDIA GPU path: passes that take bufferized loops to kernels, the
table of supported chips, and PTX serialization (docs/gpu.md).

Importing this package registers nothing: its passes (`register`) register
when a pipeline first names a ``jaxc-gpu-*`` flag (`registry.lookup`), so a
CPU compilation does not import them (25 ms).
"""
