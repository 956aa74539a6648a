"""`jaxc.lax`: the primitives (one per `jaxc` op) and structured control flow.

    from jaxc import lax
    lax.add(x, y); lax.dot_general(a, b, (((1,), (0,)), ((), ())))
    lax.cond(pred, true_fun, false_fun, x); lax.scan(f, init, xs)
    lax.linalg.cholesky(x)   # decompositions (imported on first use: it builds on jaxc.numpy)
"""
from ._ops import *  # noqa: F401,F403
from ._ops import GatherDimensionNumbers, ScatterDimensionNumbers, _with_weak, complex, pow, round, slice  # noqa: F401
from ._control_flow import *  # noqa: F401,F403
from ._fft import FftType, fft  # noqa: F401
from ._parallel import (all_gather, all_to_all, axis_index, pcast,  # noqa: F401
                        pmax, pmean, pmin, ppermute, psum, pvary)
from ._more import *  # noqa: F401,F403
from ._special import *  # noqa: F401,F403
from ._extra import *  # noqa: F401,F403


def __getattr__(name: str):
    if name == "linalg":
        import importlib
        module = importlib.import_module(".linalg", __name__)
        globals()["linalg"] = module
        return module
    raise AttributeError(f"module 'jaxc.lax' has no attribute '{name}'")

from .. import _operators, core as _core  # noqa: E402 -- attached from above core
from . import _ops  # noqa: E402

_operators.attach()
_core.to_array = _ops._array_of  # core.as_operand's conversion until jaxc.numpy replaces it by jnp.asarray
