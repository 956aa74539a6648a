"""`jaxc.scipy.sparse`: the part of `scipy.sparse` that JAX provides, the
iterative solvers of `jaxc.scipy.sparse.linalg` (`cg`, `bicgstab`, `gmres`).

    x, info = jaxc.scipy.sparse.linalg.cg(lambda v: A @ v, b)
"""
from . import linalg  # noqa: F401
