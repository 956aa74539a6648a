"""`jaxc.scipy`: the parts of SciPy's API that JAX provides (``jaxc.scipy.special``,
``stats``, ``linalg``, ``signal``, ``integrate``, ``optimize``)."""
from . import (
    integrate,  # noqa: F401
    linalg,  # noqa: F401
    optimize,  # noqa: F401
    signal,  # noqa: F401
    special,  # noqa: F401
    stats,  # noqa: F401
)
