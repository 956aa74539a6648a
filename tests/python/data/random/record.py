"""Record JAX's outputs for the jaxc.random bit-exactness tests.

Run once with JAX 0.10.2 installed (`pip install -e .[bench]`), from the
repository root:

    python tests/python/data/random/record.py                 # every test_random*.py
    python tests/python/data/random/record.py test_random_keys

For each test module it evaluates the module's CASES with jax.random and
writes tests/python/data/random/<module>.npz, which the tests then read.
"""
from __future__ import annotations

import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, TESTS)

import jax  # noqa: E402
import random_cases  # noqa: E402


def main(names: list[str]) -> None:
    if jax.__version__ != random_cases.JAX_VERSION:
        sys.exit(f"record.py needs JAX {random_cases.JAX_VERSION}, found {jax.__version__}")
    if not names:
        names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(TESTS, "test_random*.py")))
    for name in names:
        module = importlib.import_module(name)
        random_cases.save(name, module.CASES, jax)
        print(f"{name}: {len(module.CASES)} cases -> {random_cases.data_path(name)}")


if __name__ == "__main__":
    main(sys.argv[1:])
