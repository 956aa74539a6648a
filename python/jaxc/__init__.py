"""jaxc: JAX rebuilt on MLIR.

The foundation provides the dialect (`jaxc.dialect`), the passes
(`jaxc.passes`) and `jaxc-opt` (`jaxc.tools`). The NumPy-style front end
(`jit`, `grad`, `vmap`, `jaxc.numpy`) arrives with the front-end issue.
"""

__version__ = "0.1.0"
