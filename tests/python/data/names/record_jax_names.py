"""Record the public names of JAX's namespaces for test_jax_names.py.

Run with JAX 0.10.2 installed (`pip install -e .[bench]`), from the
repository root:

    .venv/bin/python tests/python/data/names/record_jax_names.py

Writes tests/python/data/names/jax_names.json: for each namespace in
NAMESPACES, the sorted names of `dir(module)` that do not start with an
underscore, and the JAX version. The names jaxc lacks on purpose or for now
are in left_out.json, each with its reason (test_jax_names.py checks both).
"""
from __future__ import annotations

import importlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
NAMESPACES = ("jax", "jax.numpy", "jax.lax", "jax.nn", "jax.nn.initializers", "jax.scipy.special",
              "jax.ops", "jax.random", "jax.tree_util", "jax.tree", "jax.debug", "jax.image",
              "jax.scipy.stats", "jax.scipy.stats.norm", "jax.scipy.stats.gamma",
              "jax.scipy.stats.beta", "jax.scipy.stats.multivariate_normal", "jax.numpy.linalg",
              "jax.lax.linalg", "jax.scipy.linalg", "jax.scipy.signal", "jax.scipy.integrate",
              "jax.scipy.optimize", "jax.experimental", "jax.experimental.mesh_utils",
              "jax.experimental.compilation_cache.compilation_cache", "jax.experimental.checkify",
              "jax.errors", "jax.numpy.fft", "jax.scipy", "jax.scipy.fft", "jax.scipy.ndimage",
              "jax.scipy.interpolate", "jax.scipy.cluster", "jax.scipy.cluster.vq", "jax.scipy.spatial",
              "jax.scipy.spatial.transform", "jax.scipy.sparse", "jax.scipy.sparse.linalg",
              "jax.experimental.shard_map")
# and every distribution module of jax.scipy.stats (`stats_modules`)


def stats_modules() -> tuple[str, ...]:
    """jax.scipy.stats's distribution submodules (jax.scipy.stats.t, ...)."""
    import jax.scipy.stats as stats

    return tuple(f"jax.scipy.stats.{name}" for name in dir(stats)
                 if not name.startswith("_") and type(getattr(stats, name)) is type(stats))


def main() -> None:
    import jax

    spaces = sorted(set(NAMESPACES + stats_modules()))
    modules = [importlib.import_module(space) for space in spaces]  # all first: a package's dir()
    names = {space: sorted(n for n in dir(module) if not n.startswith("_"))  # lists the submodules
             for space, module in zip(spaces, modules)}                     # imported so far
    with open(os.path.join(HERE, "jax_names.json"), "w") as out:
        json.dump({"jax_version": jax.__version__, "names": names}, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
