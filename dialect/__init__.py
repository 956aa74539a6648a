"""The jaxc dialect: the compiled library and the op classes generated from ODS.

Usage::

    from jaxc.dialect import make_context
    ctx = make_context()            # jaxc + every upstream dialect
    m = ir.Module.parse("...", ctx)

The library links against the MLIR that `mlir` (the pinned bindings) loads, so
the dialect lives in the same registry as every upstream dialect.
"""
from __future__ import annotations

import ctypes
import os
import sys

import mlir.ir as ir
from mlir._mlir_libs._mlir import globals as _mlir_globals

_LIB_NAME = "libjaxc_dialect.so"
_lib: ctypes.CDLL | None = None


def _library_path() -> str:
    """Find the compiled dialect next to this file or in an installed copy."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, _LIB_NAME)]
    candidates += [os.path.join(p, "jaxc", "dialect", _LIB_NAME) for p in sys.path if p]
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise ImportError(
        f"jaxc: the dialect library {_LIB_NAME} is not built; run `make build` "
        "(or `pip install -e .`) in the repository first")


def library() -> ctypes.CDLL:
    """Load (once) and return the dialect's shared library."""
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(_library_path(), mode=ctypes.RTLD_GLOBAL)
        _lib.jaxcRegisterDialect.argtypes = [ctypes.c_void_p]
        _lib.jaxcRegisterDialect.restype = None
    return _lib


def _capsule_pointer(ctx: ir.Context) -> int:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(ctx._CAPIPtr, b"mlir.ir.Context._CAPIPtr")


def register_dialect(ctx: ir.Context) -> None:
    """Register and load the jaxc dialect into an existing context."""
    library().jaxcRegisterDialect(_capsule_pointer(ctx))


def make_context(*, threading: bool = False) -> ir.Context:
    """A context with every upstream dialect and jaxc loaded.

    Multithreading is off by default: jaxc-opt forks for crash isolation and the
    front end drives compilation from its own threads.
    """
    ctx = ir.Context()
    ctx.enable_multithreading(threading)
    register_dialect(ctx)
    return ctx


# Ops parsed from text come back as the generated classes.
_mlir_globals.append_dialect_search_prefix("jaxc.dialect")

from ._jaxc_enum_gen import *  # noqa: E402,F401,F403
from ._jaxc_ops_gen import *  # noqa: E402,F401,F403
