"""`jaxc.debug`: look at values while a program runs (JAX's `jax.debug`).

    @jax.jit
    def f(x):
        jax.debug.print("x = {x}, sum = {}", x.sum(), x=x)
        return x * 2

prints when the compiled program reaches that point, with the values of that
run: the call is a `jaxc.callback` op in the program (`jaxc._callback`), in
program order, also inside `lax.scan`/`while_loop`/`cond` bodies; under vmap
once per lane; under grad for the primal values. Outside jit it runs at once.
Arguments that are not arrays (strings, objects) are passed as they are.
"""
from __future__ import annotations

import copy
import logging
import string
import sys
from typing import Any, Callable

import numpy as np

from . import _callback, core

__all__ = ["breakpoint", "callback", "log", "print", "visualize_sharding", "visualize_array_sharding",
           "inspect_array_sharding"]

logger = logging.getLogger("jaxc.debug")


def callback(callback: Callable[..., Any] | None = None, *args: Any, ordered: bool = False,
             partitioned: bool = False, **kwargs: Any) -> Any:
    """Call ``callback(*args, **kwargs)`` on the host with the arguments'
    values (jaxc Arrays) when the program gets there; its result is ignored.
    Callbacks run in program order whether or not `ordered` is set. Without
    `callback`: the two-call form, ``debug.callback(ordered=True)(f, x)``."""
    return _one_or_two_calls("debug_callback", lambda f, *a, **k: _callback._call("debug.callback", f, a, k, None),
                             callback, args, kwargs)


def _one_or_two_calls(name: str, call: Callable[..., None], first: Any, args: tuple, kwargs: dict) -> Any:
    """JAX's two forms: ``name(first, *args, **kwargs)`` calls at once;
    ``name(**options)`` (first None) returns `call` for the second call."""
    if first is not None:
        call(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return call


class _FormatChecker(string.Formatter):
    """Formats nothing; complains about arguments the format does not use (JAX's check)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        return ""

    def check_unused_args(self, used_args: Any, args: Any, kwargs: Any) -> None:
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
        unused_names = [k for k in kwargs if k not in used_args]
        if unused_names:
            raise ValueError(f"Unused keyword arguments to `jax.debug.print`: {unused_names}. You may "
                             "be passing an f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and "
                             "instead should pass in a regular string.")


def _printer(what: str, ordered: bool, skip_format_check: bool, record: Callable[[], Any] | None):
    """The `print(fmt, *args, **kwargs)` of `debug.print` (record None) or
    `debug.log` (record makes the log record, at the user's line)."""
    def emit(fmt: str, *args: Any, **kwargs: Any) -> None:
        if not isinstance(fmt, str):
            raise TypeError(f"{what}: the format must be a str, got {type(fmt).__name__}")
        if not skip_format_check:
            _FormatChecker().format(fmt, *args, **kwargs)
        placeholders = any(field is not None for _, field, _, _ in string.Formatter().parse(fmt))
        options = np.get_printoptions()  # as at the call, as JAX does
        log_record = record() if record is not None else None

        def show(*values: Any, **named: Any) -> None:
            with np.printoptions(**options):
                message = fmt.format(*values, **named) if placeholders else \
                    " ".join((fmt, *(str(v) for v in values)))
            if log_record is None:
                sys.stdout.write(message + "\n")
                sys.stdout.flush()
            else:
                entry = copy.copy(log_record)
                entry.msg = message
                logger.handle(entry)
        _callback._call(what, show, args, kwargs, None)
    return emit


def print(fmt: str | None = None, *args: Any, ordered: bool = False, partitioned: bool = False,  # noqa: A001
          skip_format_check: bool = False, **kwargs: Any) -> Any:
    """Print ``fmt.format(*args, **kwargs)`` with the values the program
    computes (`str.format` placeholders: ``{}``, ``{x}``, ``{0:.3f}``; a
    format without placeholders and ``skip_format_check=True`` prints the
    values after it). Arguments the format does not use are a ValueError (an
    f-string passed by mistake).
    Without `fmt`: the two-call form, ``debug.print(ordered=True)("{}", x)``."""
    return _one_or_two_calls("debug_print", _printer("debug.print", ordered, skip_format_check, None),
                             fmt, args, kwargs)


def log(fmt: str | None = None, *args: Any, ordered: bool = False, partitioned: bool = False,
        skip_format_check: bool = False, **kwargs: Any) -> Any:
    """`print`, but to the ``jaxc.debug`` logger at INFO level, the record
    naming the user's file and line."""
    def record() -> logging.LogRecord:
        where = core.user_frame()
        return logger.makeRecord(logger.name, logging.INFO, where[0], where[1], "", (), None)
    return _one_or_two_calls("debug_log", _printer("debug.log", ordered, skip_format_check, record),
                             fmt, args, kwargs)


def breakpoint(*, backend: str | None = None, filter_frames: bool = True, num_frames: int | None = None,  # noqa: A001
               ordered: bool = False, token: Any = None, **kwargs: Any) -> Any:
    """Stop in Python's debugger (`sys.breakpointhook`, pdb by default).
    Outside jit at once (`up` reaches the caller's frame); inside a compiled
    program when it gets there, in a frame whose `values` holds the Arrays
    given as keyword arguments (``jax.debug.breakpoint(x=x)``)."""
    if core.current_scope() is None:
        sys.breakpointhook()
        return token

    def stop(**values: Any) -> None:  # noqa: ARG001 -- `values` is what the user inspects
        sys.breakpointhook()
    _callback._call("debug.breakpoint", stop, (), kwargs, None)
    return token


# ---------------------------------------------------------------------------
# Shardings as text
# ---------------------------------------------------------------------------

def _sharding_grid(shape: tuple, sharding: Any) -> str:
    """A text grid of a rank-1 or rank-2 array's parts: one cell per distinct
    part (rows and columns as the parts split them), listing the ids of the
    devices that hold it, as JAX's visualize_sharding draws them."""
    if len(shape) not in (1, 2):
        raise ValueError(f"visualize_sharding only works for shapes with 1 or 2 dimensions, got {shape}")
    shape2 = (1, shape[0]) if len(shape) == 1 else tuple(shape)
    cells: dict = {}
    for device, index in sharding.devices_indices_map(shape).items():
        index2 = (slice(0, 1),) + tuple(index) if len(shape) == 1 else tuple(index)
        key = tuple((s.start or 0, shape2[k] if s.stop is None else s.stop) if isinstance(s, slice) else (s, s + 1)
                    for k, s in enumerate(index2))
        cells.setdefault(key, []).append(device.id)
    rows = sorted({k[0] for k in cells})
    cols = sorted({k[1] for k in cells})
    labels = {k: ("CPU " + ",".join(map(str, sorted(ids)))) for k, ids in cells.items()}
    width = max(len(v) for v in labels.values()) + 2
    line = "+" + "+".join("-" * width for _ in cols) + "+"
    out = [line]
    for r in rows:
        out.append("|" + "|".join(labels.get((r, c), "").center(width) for c in cols) + "|")
        out.append(line)
    return "\n".join(out)


def visualize_sharding(shape: Any, sharding: Any, *, use_color: bool = False, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map: Any = None) -> None:
    """Print which devices hold which part of an array of `shape` under
    `sharding` (a text grid; rank 1 or 2)."""
    sys.stdout.write(_sharding_grid(tuple(shape), sharding) + "\n")


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """`visualize_sharding(arr.shape, arr.sharding)`."""
    visualize_sharding(arr.shape, arr.sharding, **kwargs)


def inspect_array_sharding(value: Any, *, callback: Callable[[Any], None]) -> None:
    """Call `callback` with the sharding of each array in `value`. Inside a
    trace the program runs whole on its device (jaxc does not partition), so
    a traced value's sharding is that device's: `SingleDeviceSharding`."""
    from . import tree_util
    from .dispatch import default_device
    from .sharding import SingleDeviceSharding
    for leaf in tree_util.tree_leaves(value):
        if isinstance(leaf, core.Tracer):
            callback(SingleDeviceSharding(default_device()))
        else:
            callback(leaf.sharding)

