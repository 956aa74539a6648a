"""jnp.linalg"""
