"""Record JAX's 50-step MLP training runs for tests/python/test_example_training.py.

Run with JAX 0.10.2 installed (`pip install -e .[bench]`), from the
repository root:

    .venv/bin/python tests/python/data/example_libraries/record_training.py

It makes the synthetic data set (NumPy, seed 0), runs every case of
tests/python/test_example_training.py (CASES: stax MLP initialized from
PRNGKey(0), 50 steps of jit(update) with value_and_grad of the cross
entropy) with jax.example_libraries.stax and .optimizers, and writes
tests/python/data/example_libraries/training.npz. Keys:

    data/x (256, 20) float32, data/y (256,) int32   the data set
    <case>/losses                 (50,) float32, the loss before each step
    <case>/initial_params         init_fun's parameters, raveled in tree order
    <case>/final_params           the parameters after step 50, raveled
    <case>/final_state            the final OptimizerState's leaves, raveled
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
    import test_example_training as cases
    from jax.example_libraries import optimizers as jax_optimizers, stax as jax_stax

    if jax.__version__ != cases.JAX_VERSION:
        sys.exit(f"record_training.py needs JAX {cases.JAX_VERSION}, found {jax.__version__}")
    data = cases.make_dataset()
    out: dict[str, np.ndarray] = dict(data)
    out["jax_version"] = np.asarray(jax.__version__)
    for name in cases.CASES:
        for key, value in cases.run_training(jax, jax_stax, jax_optimizers, name, data).items():
            out[f"{name}/{key}"] = value
        losses = out[f"{name}/losses"]
        print(f"{name}: loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    path = os.path.join(HERE, "training.npz")
    np.savez_compressed(path, **out)
    print(f"{len(cases.CASES)} training cases -> {path} ({os.path.getsize(path) // 1024} KB)")


if __name__ == "__main__":
    main()
