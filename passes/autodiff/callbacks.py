"""Derivatives of host callbacks (`jaxc.callback`, python/jaxc/_callback.py).

A callback without results (`jax.debug.print`, `jax.debug.callback`) has
nothing to differentiate: the forward and JVP functions keep the call on the
primal values, so it prints what the primal computation sees, and the
backward sweep skips it. One with results (`jax.pure_callback`) is opaque:
JAX's ValueError, with its advice to give it a custom rule, reaches the
caller as it is. An io_callback (unit attribute `jaxc.io_callback`) cannot
be differentiated at all (JAX's ValueError too). A callback reading only
values the request does not differentiate (closed-over values: the
callee's `jaxc.captured_args`) is not differentiated, so it needs no rule.

    jaxc.callback 7 (%x) : (tensor<f32>) -> ()      (in @f)
  ->
    jaxc.callback 7 (%x) : (tensor<f32>) -> ()      (in @f_jvp and @f_vjp, on the primal %x)
"""
from __future__ import annotations

from ..pipeline import UserCodeError
from .jvp import JVP
from .vjp import VJP

_OPAQUE = ("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
           "while taking gradients (or `jax.custom_vjp`).")


def _refuse(op) -> None:
    """JAX's ValueError, reaching the caller as it is."""
    if "jaxc.io_callback" in op.attributes:
        raise UserCodeError(op, ValueError("IO callbacks do not support JVP."))
    raise UserCodeError(op, ValueError(_OPAQUE))


def _jvp(op, xs, ys, ts):
    if len(op.results) or "jaxc.io_callback" in op.attributes:
        _refuse(op)
    return []


def _vjp(op, xs, ys, cts):
    _refuse(op)


JVP["jaxc.callback"] = _jvp
VJP["jaxc.callback"] = _vjp
