"""`jaxc.scipy`: the parts of SciPy's API that JAX provides (``jaxc.scipy.special``)."""
from . import special  # noqa: F401
from . import stats  # noqa: F401
