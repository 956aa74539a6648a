"""Record JAX's outputs for the jaxc.nn.initializers tests.

Run with JAX 0.10.2 installed (`pip install -e .[bench]`), from the
repository root:

    .venv/bin/python tests/python/data/nn/record_initializers.py

It runs every case of tests/python/test_nn_initializers.py (INITIALIZERS,
eagerly; those in JIT also under jit and those in VMAP under vmap over three
keys) with jax.nn.initializers and writes tests/python/data/nn/initializers.npz.
Keys:

    <case>/<mode>              the initializer's output (mode: eager, jit, vmap)
    <case>/<mode>:bfloat16     a bfloat16 output, stored as its uint16 bits
    jax_version
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, TESTS)

import numpy as np  # noqa: E402


def main() -> None:
    import jax
    import jax.numpy  # noqa: F401  (jax.numpy as an attribute of jax)
    import test_nn_initializers as cases
    from jax.nn import initializers as jax_initializers

    if jax.__version__ != cases.JAX_VERSION:
        sys.exit(f"record_initializers.py needs JAX {cases.JAX_VERSION}, found {jax.__version__}")
    out: dict[str, np.ndarray] = {"jax_version": np.asarray(jax.__version__)}
    for name in cases.INITIALIZERS:
        for mode in cases.modes(name):
            suffix, stored = cases.to_stored(cases.call(jax, jax_initializers, name, mode))
            out[f"{name}/{mode}{suffix}"] = stored
    path = os.path.join(HERE, "initializers.npz")
    np.savez_compressed(path, **out)
    print(f"{len(cases.INITIALIZERS)} cases, {len(out) - 1} arrays -> {path} ({os.path.getsize(path) // 1024} KB)")


if __name__ == "__main__":
    main()
