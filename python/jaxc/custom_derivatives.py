"""`jaxc.custom_derivatives`: the names of JAX's `jax.custom_derivatives`
module that jaxc has, so that ``from jax.custom_derivatives import
custom_vjp`` keeps working with `jaxc` for `jax`. They are the top-level
functions (`jaxc._autodiff`, `custom_gradient` from `jaxc._toplevel`):

    from jaxc.custom_derivatives import custom_vjp, closure_convert
"""
from __future__ import annotations

from ._autodiff import closure_convert, custom_jvp, custom_vjp
from ._toplevel import custom_gradient

__all__ = ["closure_convert", "custom_gradient", "custom_jvp", "custom_vjp"]
