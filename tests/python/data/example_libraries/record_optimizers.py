"""Record JAX's outputs for the jaxc.example_libraries.optimizers tests.

Run with JAX 0.10.2 installed (`pip install -e .[bench]`), from the
repository root:

    .venv/bin/python tests/python/data/example_libraries/record_optimizers.py

It runs every case of tests/python/test_example_optimizers.py (OPTIMIZERS:
20 steps, eagerly and with jit(update); SCHEDULES: steps 0..30, eagerly and
under jit) with jax.example_libraries.optimizers and writes
tests/python/data/example_libraries/optimizers.npz, with the inputs (initial
parameters and per-step gradients) the tests then read. Keys:

    params/{w,b,s}, grads/{w,b,s}            the inputs (float32)
    optimizer/<case>/<mode>/params           (20, 17) parameters after each step
    optimizer/<case>/<mode>/state            the final OptimizerState's leaves (float64)
    schedule/<case>/{eager,eager_kind,jit}   values at steps 0..30
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
    import test_example_optimizers as cases
    from jax.example_libraries import optimizers as jax_optimizers

    if jax.__version__ != cases.JAX_VERSION:
        sys.exit(f"record_optimizers.py needs JAX {cases.JAX_VERSION}, found {jax.__version__}")
    inputs = cases.make_inputs()
    out: dict[str, np.ndarray] = dict(inputs)
    out["jax_version"] = np.asarray(jax.__version__)
    for name in cases.OPTIMIZERS:
        for mode in ("eager", "jit"):
            for key, value in cases.run_optimizer(jax, jax_optimizers, name, inputs, mode).items():
                out[f"optimizer/{name}/{mode}/{key}"] = value
    for name in cases.SCHEDULES:
        for key, value in cases.run_schedule(jax, jax_optimizers, name).items():
            out[f"schedule/{name}/{key}"] = value
    path = os.path.join(HERE, "optimizers.npz")
    np.savez_compressed(path, **out)
    print(f"{len(cases.OPTIMIZERS)} optimizer and {len(cases.SCHEDULES)} schedule cases -> {path} "
          f"({os.path.getsize(path) // 1024} KB)")


if __name__ == "__main__":
    main()
