"""`jaxc.scipy`: the parts of SciPy's API that JAX provides (``jaxc.scipy.special``,
``stats``, ``linalg``, ``signal``, ``integrate``, ``optimize``, ``fft``, ``ndimage``,
``interpolate``, ``cluster``, ``spatial``, ``sparse``)."""
from . import (
    cluster,  # noqa: F401
    fft,  # noqa: F401
    integrate,  # noqa: F401
    interpolate,  # noqa: F401
    linalg,  # noqa: F401
    ndimage,  # noqa: F401
    optimize,  # noqa: F401
    signal,  # noqa: F401
    sparse,  # noqa: F401
    spatial,  # noqa: F401
    special,  # noqa: F401
    stats,  # noqa: F401
)
