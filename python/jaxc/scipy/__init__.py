"""`jaxc.scipy`: the parts of SciPy's API that JAX provides (``jaxc.scipy.special``,
``stats``, ``linalg``)."""
from . import linalg  # noqa: F401
from . import special  # noqa: F401
from . import stats  # noqa: F401
