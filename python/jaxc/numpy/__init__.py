"""`jaxc.numpy`: NumPy's API with JAX's semantics, on jaxc arrays.

    import jaxc.numpy as jnp
    x = jnp.linspace(0.0, 1.0, 5)
    jnp.sum(jnp.sin(x) ** 2, axis=0)

Defaults follow JAX: float32 and int32 unless ``jax_enable_x64`` is set;
Python scalars are weakly typed; arrays are immutable (``x.at[i].set(v)``).
"""
from typing import TYPE_CHECKING as _TYPE_CHECKING

import numpy as _np

from ..array import Array
from ..dtypes import issubdtype, promote_types, result_type  # noqa: F401
from ._scalar_types import SCALAR_TYPES as _SCALAR_TYPES
from ._util import broadcast_shapes as _broadcast_shapes
from ._creation import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import round  # noqa: F401
from ._reductions import *  # noqa: F401,F403
from ._linalg import *  # noqa: F401,F403
from ._shape import *  # noqa: F401,F403
from ._more import *  # noqa: F401,F403
from ._sets import *  # noqa: F401,F403
from ._order import *  # noqa: F401,F403
from ._index_tricks import *  # noqa: F401,F403
from ._functional import *  # noqa: F401,F403
from ._numerics import *  # noqa: F401,F403
from ._io import *  # noqa: F401,F403
from ._ufunc import *  # noqa: F401,F403 -- last: jnp.add etc. become ufuncs
from . import fft, linalg  # noqa: F401
from ._array_api import __array_api_version__, __array_namespace_info__, finfo, iinfo  # noqa: F401

ndarray = Array


if _TYPE_CHECKING:  # a type checker cannot see the functions made from tables (_elementwise, _ufunc)
    def __getattr__(name: str): ...  # unannotated on purpose (docs/architecture.md)
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None
dtype = _np.dtype
generic, number, integer, signedinteger, unsignedinteger, floating, inexact, complexfloating = (
    _np.generic, _np.number, _np.integer, _np.signedinteger, _np.unsignedinteger, _np.floating, _np.inexact,
    _np.complexfloating)
character, flexible, object_ = _np.character, _np.flexible, _np.object_  # NumPy's classes, as in JAX
ComplexWarning = _np.exceptions.ComplexWarning
globals().update(_SCALAR_TYPES)  # float32, int8, bool_, bfloat16, ...
bool = _SCALAR_TYPES["bool_"]  # noqa: A001 -- jnp.bool is NumPy 2's name for bool_
float_, int_ = _SCALAR_TYPES["float32"], _SCALAR_TYPES["int32"]


def broadcast_shapes(*shapes):
    """The shape `shapes` broadcast to (NumPy's rules)."""
    return _broadcast_shapes("broadcast_shapes", *shapes)



from .. import core as _core  # noqa: E402

_core.to_array = asarray  # noqa: F405 -- core.as_operand converts with jnp's rules from now on (lists, __jax_array__)
