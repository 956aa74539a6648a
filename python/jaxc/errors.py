"""`jaxc.errors`: the exceptions a user may want to catch (JAX's names)."""
from .core import (ConcretizationTypeError, JaxcTypeError, TracerBoolConversionError,
                   TracerIntegerConversionError, TracerLeakError)
from .dispatch import JaxcRuntimeError

UnexpectedTracerError = TracerLeakError

__all__ = ["ConcretizationTypeError", "JaxcRuntimeError", "JaxcTypeError", "TracerBoolConversionError",
           "TracerIntegerConversionError", "TracerLeakError", "UnexpectedTracerError"]
