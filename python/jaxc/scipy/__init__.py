"""`jaxc.scipy`: the parts of SciPy's API that JAX provides (``jaxc.scipy.special``,
``stats``, ``linalg``, ``signal``, ``integrate``, ``optimize``)."""
from . import integrate  # noqa: F401
from . import linalg  # noqa: F401
from . import optimize  # noqa: F401
from . import signal  # noqa: F401
from . import special  # noqa: F401
from . import stats  # noqa: F401
