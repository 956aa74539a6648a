"""Derivatives of host callbacks (`jaxc.callback`, python/jaxc/_callback.py).

A callback without results (`jax.debug.print`, `jax.debug.callback`) has
nothing to differentiate: the forward and JVP functions keep the call on the
primal values, so it prints what the primal computation sees, and the
backward sweep skips it. One with results (`jax.pure_callback`) is opaque:
an error, with JAX's advice to give it a custom rule. An io_callback (unit
attribute `jaxc.io_callback`) cannot be differentiated at all: JAX's
ValueError reaches the caller as it is.

    jaxc.callback 7 (%x) : (tensor<f32>) -> ()      (in @f)
  ->
    jaxc.callback 7 (%x) : (tensor<f32>) -> ()      (in @f_jvp and @f_vjp, on the primal %x)
"""
from __future__ import annotations

from ..ir import RuleError
from ..pipeline import UserCodeError
from .jvp import JVP
from .vjp import VJP

_OPAQUE = ("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
           "while taking gradients (or `jax.custom_vjp`).")


def _refuse_io(op) -> None:
    if "jaxc.io_callback" in op.attributes:
        raise UserCodeError(op, ValueError("IO callbacks do not support JVP."))


def _jvp(op, xs, ys, ts):
    _refuse_io(op)
    if len(op.results):
        raise RuleError(op, f"jaxc-autodiff: {_OPAQUE}")
    return []


def _vjp(op, xs, ys, cts):
    _refuse_io(op)
    raise RuleError(op, f"jaxc-autodiff: {_OPAQUE}")


JVP["jaxc.callback"] = _jvp
VJP["jaxc.callback"] = _vjp
