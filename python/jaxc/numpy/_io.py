"""Conversion, file and printing helpers of `jaxc.numpy` (issue #17):
`frombuffer`, `fromstring`, `load`/`save`/`savez` (NumPy's file formats:
they go through NumPy), `array_repr`/`array_str` and the print options
(NumPy's, which jaxc's repr uses), `einsum_path`, and `fromiter`/`fromfile`,
which raise as in JAX.

    jnp.save("x.npy", x); y = jnp.load("x.npy")     # a jaxc array again
    with jnp.printoptions(precision=3): print(x)
    path, report = jnp.einsum_path("ij,jk,kl->il", a, b, c)

Loaded and decoded data become arrays of the canonical dtype (float64 ->
float32 without x64), as in JAX; these functions run on the host and take
concrete values only.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._util import asarray

__all__ = ["frombuffer", "fromstring", "fromiter", "fromfile", "load", "save", "savez", "array_repr",
           "array_str", "get_printoptions", "set_printoptions", "printoptions", "einsum_path"]

# NumPy's own functions, as in JAX (they read jaxc arrays through __array__).
save = np.save
savez = np.savez
array_repr = np.array_repr
array_str = np.array_str


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """The 1-d array whose bytes are `buffer` (from `offset`, `count` items
    of `dtype`; -1: all), converted to the canonical dtype (float -> float32
    without x64)."""
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset), fn="frombuffer")


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """The 1-d array of the numbers in the text `string`, separated by `sep`
    (required and non-empty: NumPy's binary mode is gone, use frombuffer)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep), fn="fromstring")


def _impure(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use with jit and "
        f"other transformations (it consumes its source). Use jnp.asarray(np.{name}(...)) outside "
        "transformed functions instead.")


def fromiter(*args: Any, **kwargs: Any) -> Any:
    """Not implemented, as in JAX: reading an iterator is a side effect. Use
    ``jnp.asarray(np.fromiter(...))``."""
    raise _impure("fromiter")


def fromfile(*args: Any, **kwargs: Any) -> Any:
    """Not implemented, as in JAX: reading a file is a side effect. Use
    ``jnp.asarray(np.fromfile(...))`` or `jnp.load`."""
    raise _impure("fromfile")


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.load(file, *args, **kwargs)``, with a numeric (or bool) array
    result converted to a jaxc array of the canonical dtype; other results
    (.npz archives, string or object arrays) are NumPy's."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray) and out.dtype.kind in "biuf":
        return asarray(out, fn="load")
    return out


def get_printoptions() -> dict[str, Any]:
    """NumPy's current print options (used by jaxc's repr and str)."""
    return dict(np.get_printoptions())


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    """Set NumPy's print options (used by jaxc's repr and str)."""
    np.set_printoptions(*args, **kwargs)


def printoptions(*args: Any, **kwargs: Any) -> Any:
    """A context manager setting NumPy's print options for its block."""
    return np.printoptions(*args, **kwargs)


_OPTIMAL = {"optimal", "dp", "auto-hq", "branch-all"}
_GREEDY = {"greedy", "branch-1", "branch-2", "random-greedy", "random-greedy-128"}


def _shape_of(operand: Any) -> tuple[int, ...]:
    shape = getattr(operand, "shape", None)
    return tuple(int(d) for d in (shape if shape is not None else np.shape(operand)))


def einsum_path(subscripts: str, /, *operands: Any, optimize: Any = "auto") -> tuple[list[tuple[int, ...]], Any]:
    """(path, report): the order in which `einsum` would contract the
    operands (only their shapes matter: arrays, NumPy arrays or
    ShapeDtypeStructs) and NumPy's description of it. `optimize`: 'auto'
    (exhaustive up to 4 operands, else greedy), True/'optimal', 'greedy',
    False (left to right), or an explicit path. The path is a list of index
    tuples, as in JAX; the report is NumPy's text (JAX returns
    opt_einsum's PathInfo, whose str is the same kind of table)."""
    dummies = [np.broadcast_to(np.zeros((), np.float32), _shape_of(op)) for op in operands]
    count = len(dummies)
    if optimize is False:
        pairs: list[tuple[int, ...]] = [(0, 1)] * (count - 1) if count > 1 else [(0,)]
        strategy: Any = ["einsum_path"] + pairs
    elif optimize is True or optimize == "auto":
        strategy = "optimal" if optimize is True or count <= 4 else "greedy"
    elif isinstance(optimize, str):
        if optimize in _OPTIMAL:
            strategy = "optimal"
        elif optimize in _GREEDY:
            strategy = "greedy"
        else:
            raise ValueError(f"jnp.einsum_path: unknown optimize strategy {optimize!r} (use 'auto', 'greedy', "
                             "'optimal', True, False or an explicit path)")
    elif isinstance(optimize, (list, tuple)) and optimize and optimize[0] != "einsum_path" \
            and not isinstance(optimize[0], str):
        strategy = ["einsum_path"] + [tuple(step) for step in optimize]
    else:
        strategy = optimize
    path, report = np.einsum_path(subscripts, *dummies, optimize=strategy)
    return [tuple(step) for step in path[1:]], report
