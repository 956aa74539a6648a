"""Record JAX's outputs for the jaxc.example_libraries.stax tests.

Run with JAX 0.10.2 installed (`pip install -e .[bench]`), from the
repository root:

    .venv/bin/python tests/python/data/example_libraries/record_stax.py

It runs every case of tests/python/test_example_stax.py (LAYERS: init_fun,
then apply_fun eagerly and, for the cases in JIT, under jit) with
jax.example_libraries.stax and writes
tests/python/data/example_libraries/stax.npz. Keys:

    input/<case>                     the input (float32)
    <case>/init/output_shape         init_fun's output shape (ints; -1 ends each shape of a list)
    <case>/init/structure            the parameters' list/tuple nesting, leaves as *
    <case>/init/param/<i>            the parameters' leaves, in tree order
    <case>/apply/{eager,jit}         apply_fun's output, from these parameters
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
    import jax.nn.initializers  # noqa: F401  (jax.nn.initializers as an attribute)
    import jax.numpy  # noqa: F401
    import test_example_stax as cases
    from jax.example_libraries import stax as jax_stax

    if jax.__version__ != cases.JAX_VERSION:
        sys.exit(f"record_stax.py needs JAX {cases.JAX_VERSION}, found {jax.__version__}")
    inputs = cases.make_inputs()
    out: dict[str, np.ndarray] = dict(inputs)
    out["jax_version"] = np.asarray(jax.__version__)
    for name in cases.LAYERS:
        for key, value in cases.run_init(jax, jax_stax, name).items():
            out[f"{name}/init/{key}"] = value
        params = cases.recorded_params(jax, jax_stax, name, out)
        for mode in cases.modes(name):
            out[f"{name}/apply/{mode}"] = cases.run_apply(jax, jax_stax, name, params, inputs[f"input/{name}"], mode)
    path = os.path.join(HERE, "stax.npz")
    np.savez_compressed(path, **out)
    print(f"{len(cases.LAYERS)} layer cases -> {path} ({os.path.getsize(path) // 1024} KB)")


if __name__ == "__main__":
    main()
