"""`jaxc.errors`: the exceptions a user may want to catch (JAX's names).

    try:
        jaxc.jit(lambda x: np.asarray(x))(x)
    except jaxc.errors.TracerArrayConversionError:   # also a JAXTypeError, a TypeError
        ...
"""
from .core import (
    ConcretizationTypeError,
    JaxcTypeError,
    JAXIndexError,
    JAXTypeError,
    KeyReuseError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    TracerLeakError,
)
from .dispatch import JaxcRuntimeError
from .numpy._indexing import NonConcreteBooleanIndexError

UnexpectedTracerError = TracerLeakError
JaxRuntimeError = JaxcRuntimeError  # an error of compiled code, raised at the next synchronization

__all__ = ["ConcretizationTypeError", "JAXIndexError", "JAXTypeError", "JaxRuntimeError", "JaxcRuntimeError",
           "JaxcTypeError", "KeyReuseError", "NonConcreteBooleanIndexError", "TracerArrayConversionError",
           "TracerBoolConversionError", "TracerIntegerConversionError", "TracerLeakError", "UnexpectedTracerError"]
