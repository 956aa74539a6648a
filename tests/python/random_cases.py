"""Bit-exactness of jaxc.random against JAX 0.10.2: the shared harness.

A case is a function of a `random` module and a `numpy` module (jaxc's or
JAX's) returning an array, a key array or a tuple of them. Each
`test_random*.py` defines `CASES = {name: Case(...)}`;
`data/random/record.py` evaluates them with JAX once and writes
`data/random/<test module>.npz`. `check` compares jaxc with the recorded
values always, and with JAX itself when it is installed:

- integer, bool and key outputs: exactly (random bits are bits);
- floats: within `rtol`/`atol` (default per dtype), because the steps after
  the bits (erf_inv, log, ...) are our implementations, not XLA's.
"""
from __future__ import annotations

import contextlib
import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "random")
JAX_VERSION = "0.10.2"

# float tolerances (rtol, atol) by dtype name
TOLERANCE = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-6),
             "float64": (1e-12, 1e-13), "complex64": (1e-5, 1e-6), "complex128": (1e-12, 1e-13)}


@dataclass(frozen=True)
class Case:
    fn: Callable[[Any, Any], Any]
    x64: bool = False
    rtol: float | None = None
    atol: float | None = None


def _leaves(value: Any, random: Any) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v, random)]
    if "key<" in str(getattr(value, "dtype", "")):
        value = random.key_data(value)
    return [np.asarray(value)]


@contextlib.contextmanager
def x64(config: Any, enabled: bool):
    before = bool(config.read("jax_enable_x64")) if hasattr(config, "read") else \
        bool(config.jax_enable_x64)
    config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        config.update("jax_enable_x64", before)


def evaluate(case: Case, package: Any) -> list[np.ndarray]:
    """The case's outputs as NumPy arrays, computed with `package` (jaxc or jax)."""
    random = importlib.import_module(package.__name__ + ".random")
    jnp = importlib.import_module(package.__name__ + ".numpy")
    with x64(package.config, case.x64):
        return _leaves(case.fn(random, jnp), random)


def data_path(module: str) -> str:
    return os.path.join(DATA, module.rsplit(".", 1)[-1] + ".npz")


def load(module: str) -> dict[str, list[np.ndarray]]:
    """{case name: outputs}; npz keys are "name/i", or "name/i:bfloat16" for
    bfloat16 outputs stored as their uint16 bits (npz has no bfloat16)."""
    import ml_dtypes
    recorded: dict[str, list[tuple[int, np.ndarray]]] = {}
    with np.load(data_path(module)) as data:
        for key in data.files:
            name, index = key.rsplit("/", 1)
            index, _, dtype = index.partition(":")
            value = data[key].view(ml_dtypes.bfloat16) if dtype == "bfloat16" else data[key]
            recorded.setdefault(name, []).append((int(index), value))
    return {name: [v for _, v in sorted(outputs, key=lambda iv: iv[0])]
            for name, outputs in recorded.items()}


def save(module: str, cases: dict[str, Case], package: Any) -> None:
    arrays = {}
    for name, case in cases.items():
        for i, leaf in enumerate(evaluate(case, package)):
            if str(leaf.dtype) == "bfloat16":
                arrays[f"{name}/{i}:bfloat16"] = leaf.view(np.uint16)
            else:
                arrays[f"{name}/{i}"] = leaf
    os.makedirs(DATA, exist_ok=True)
    np.savez_compressed(data_path(module), **arrays)


def assert_same(got: list[np.ndarray], expected: list[np.ndarray], case: Case, what: str) -> None:
    assert len(got) == len(expected), f"{what}: {len(got)} outputs, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        label = f"{what}, output {i}"
        assert g.shape == e.shape, f"{label}: shape {g.shape}, expected {e.shape}"
        assert str(g.dtype) == str(e.dtype), f"{label}: dtype {g.dtype}, expected {e.dtype}"
        if g.dtype.kind in "biu" or str(g.dtype) == "bool":
            np.testing.assert_array_equal(g, e, err_msg=label)
            continue
        rtol, atol = TOLERANCE[str(g.dtype)]
        rtol = case.rtol if case.rtol is not None else rtol
        atol = case.atol if case.atol is not None else atol
        wide = np.complex128 if g.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(g.astype(wide), e.astype(wide), rtol=rtol, atol=atol, err_msg=label)


def package_of(random: Any) -> Any:
    """jaxc or jax, given its random module (for cases that need jit, vmap, lax)."""
    return importlib.import_module(random.__name__.rsplit(".", 1)[0])


def vmap_keys(random: Any, f: Callable[[Any], Any], n: int = 4, seed: int = 0) -> Any:
    """`f` mapped over `n` keys split from one: JAX's idiom for batches."""
    return package_of(random).vmap(f)(random.split(random.PRNGKey(seed), n))


def scan_keys(random: Any, sample: Callable[[Any], Any], length: int = 6) -> Any:
    """`key, sub = split(key); x = sample(sub)` repeated in lax.scan."""
    def step(key, _):
        key, sub = random.split(key)
        return key, sample(sub)
    return package_of(random).lax.scan(step, random.PRNGKey(0), None, length=length)


def jax_or_none() -> Any:
    try:
        import jax
    except ImportError:
        return None
    return jax if jax.__version__ == JAX_VERSION else None


def check_error(call: Callable[[Any, Any], Any], error: type, message: str) -> None:
    """`call(random, jnp)` raises `error` with `message` (a plain fragment)
    with jaxc, and with JAX itself when it is installed."""
    import re

    import pytest

    import jaxc
    for package in (jaxc, jax_or_none()):
        if package is None:
            continue
        random = importlib.import_module(package.__name__ + ".random")
        jnp = importlib.import_module(package.__name__ + ".numpy")
        with pytest.raises(error, match=re.escape(message)):
            call(random, jnp)


def check(module: str, name: str, case: Case) -> None:
    """jaxc's outputs of one case against the recorded JAX outputs, and
    against JAX itself when it is installed."""
    import jaxc
    got = evaluate(case, jaxc)
    recorded = load(module)
    assert name in recorded, f"no recorded JAX output for {name!r}: run tests/python/data/random/record.py"
    assert_same(got, recorded[name], case, f"{name} vs recorded JAX {JAX_VERSION}")
    jax = jax_or_none()
    if jax is not None:
        assert_same(got, evaluate(case, jax), case, f"{name} vs JAX")
