"""Derivatives of host callbacks (`jaxc.callback`, python/jaxc/_callback.py).

A callback without results (`jax.debug.print`, `jax.debug.callback`) has
nothing to differentiate: the forward and JVP functions keep the call on the
primal values, so it prints what the primal computation sees, and the
backward sweep skips it. One with results (`jax.pure_callback`) is opaque:
an error, with JAX's advice to give it a custom rule.

    jaxc.callback 7 (%x) : (tensor<f32>) -> ()      (in @f)
  ->
    jaxc.callback 7 (%x) : (tensor<f32>) -> ()      (in @f_jvp and @f_vjp, on the primal %x)
"""
from __future__ import annotations

from ..ir import RuleError
from .jvp import JVP
from .vjp import VJP

_OPAQUE = ("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
           "while taking gradients (or `jax.custom_vjp`).")


def _jvp(op, xs, ys, ts):
    if len(op.results):
        raise RuleError(op, f"jaxc-autodiff: {_OPAQUE}")
    return []


def _vjp(op, xs, ys, cts):
    raise RuleError(op, f"jaxc-autodiff: {_OPAQUE}")


JVP["jaxc.callback"] = _jvp
VJP["jaxc.callback"] = _vjp
