"""`jaxc.lax`: the primitives (one per `jaxc` op) and structured control flow.

    from jaxc import lax
    lax.add(x, y); lax.dot_general(a, b, (((1,), (0,)), ((), ())))
    lax.cond(pred, true_fun, false_fun, x); lax.scan(f, init, xs)
"""
from ._ops import *  # noqa: F401,F403
from ._ops import (GatherDimensionNumbers, ScatterDimensionNumbers, _with_weak, abs, max, min, pow,  # noqa: F401
                   round, slice)
from ._control_flow import *  # noqa: F401,F403
from ._parallel import (all_gather, all_to_all, axis_index, pmax, pmean, pmin, ppermute,  # noqa: F401
                        psum)
from ._more import *  # noqa: F401,F403
