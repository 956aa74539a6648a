"""`jax.experimental`: the names JAX keeps outside its stable API.

Submodules are imported by name, as in JAX (``from jaxc.experimental import
ode``).
"""
