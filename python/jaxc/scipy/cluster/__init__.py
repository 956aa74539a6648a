"""`jaxc.scipy.cluster`: vector quantization (`vq`), as `jax.scipy.cluster`.

    codes, dists = jaxc.scipy.cluster.vq.vq(obs, code_book)
"""
from . import vq  # noqa: F401
