"""Matrix products (issue #13): jaxc's generated code (``JAXC_CPU_LIBRARY_CALLS=0``
in effect, `host.override(library_calls=False)`) against calls of the compiled
library (python/jaxc/runtime/gemm.c, the default) and against JAX, in the
same process: first call (trace + compile + run) and the median of timed calls.

    .venv/bin/python bench/products.py            # every case
    .venv/bin/python bench/products.py --quick    # three cases, fewer repeats

Each case is jit of one einsum; inputs are made in the layout the product
reads (A·Bᵀ reads B by rows), so no transpose is timed. Results of the two
jaxc paths are checked against each other and NumPy before timing.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

CASES = [  # name, einsum, (m, k, n), dtype
    ("1000² f32", "ij,jk->ik", (1000, 1000, 1000), np.float32),
    ("1024² f32", "ij,jk->ik", (1024, 1024, 1024), np.float32),
    ("2048² f32", "ij,jk->ik", (2048, 2048, 2048), np.float32),
    ("128×784 · 784×512", "ij,jk->ik", (128, 784, 512), np.float32),
    ("Aᵀ·B 784×128ᵀ · 784×512", "ji,jk->ik", (128, 784, 512), np.float32),
    ("A·Bᵀ 128×512 · 784×512ᵀ", "ij,kj->ik", (128, 512, 784), np.float32),
    ("128×1024 · 1024²", "ij,jk->ik", (128, 1024, 1024), np.float32),
    ("256² f32", "ij,jk->ik", (256, 256, 256), np.float32),
    ("1000² f64", "ij,jk->ik", (1000, 1000, 1000), np.float64),
    ("batched 16 × 128×256 · 256×128", "bij,bjk->bik", (128, 256, 128), np.float32),
]
QUICK = ("1000² f32", "128×784 · 784×512", "A·Bᵀ 128×512 · 784×512ᵀ")


def operands(spec: str, m: int, k: int, n: int, dtype, rng) -> tuple[np.ndarray, np.ndarray]:
    """Arrays whose shapes follow the einsum's letters (i=m, j=k, k=n, b=16)."""
    sizes = {"i": m, "j": k, "k": n, "b": 16}
    left, right = spec.split("->")[0].split(",")
    return tuple(rng.standard_normal([sizes[c] for c in side]).astype(dtype)
                 for side in (left, right))


def timed(f, args, repeats: int) -> tuple[float, float]:
    """(first call s, median of `repeats` later calls s); blocks on each result."""
    started = time.perf_counter()
    f(*args).block_until_ready()
    first = time.perf_counter() - started
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        f(*args).block_until_ready()
        times.append(time.perf_counter() - started)
    return first, float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-jax", action="store_true", help="leave JAX out")
    options = parser.parse_args()

    import jaxc
    import jaxc.numpy as jnp
    from jaxc.passes import host
    jax = None
    if not options.no_jax:
        try:
            import jax
            import jax.numpy as jax_numpy
        except ImportError:
            print("(JAX is not installed: pip install -e .[bench]; its column is left empty)")
            jax = None

    rng = np.random.default_rng(0)
    rows = []
    for name, spec, (m, k, n), dtype in CASES:
        if options.quick and name not in QUICK:
            continue
        repeats = 5 if options.quick else (5 if m * k * n >= 2048 ** 3 else 25)
        if dtype == np.float64:
            jaxc.config.update("jax_enable_x64", True)
            if jax is not None:
                jax.config.update("jax_enable_x64", True)
        args = operands(spec, m, k, n, dtype, rng)
        results = {}
        for label, library in (("generated", False), ("library", True)):
            with host.override(library_calls=library):
                f = jaxc.jit(lambda a, b: jnp.einsum(spec, a, b))  # a new function: compiled again
                results[label] = timed(f, args, repeats)
                value = np.asarray(f(*args))
            expected = np.einsum(spec, *(x.astype(np.float64) for x in args))
            scale = np.abs(expected).max()
            assert np.abs(value - expected).max() <= scale * (1e-4 if dtype == np.float32 else 1e-12), \
                f"{name}: {label} differs from NumPy"
        if jax is not None:
            g = jax.jit(lambda a, b: jax_numpy.einsum(spec, a, b))
            results["jax"] = timed(g, args, repeats)
        if dtype == np.float64:
            jaxc.config.update("jax_enable_x64", False)
            if jax is not None:
                jax.config.update("jax_enable_x64", False)
        rows.append((name, results))
        print(name, {label: (round(first * 1e3), round(run * 1e3, 3))
                     for label, (first, run) in results.items()}, flush=True)

    print()
    print("| product | generated run ms | library run ms | JAX run ms | library/JAX "
          "| generated first call ms | library first call ms | JAX first call ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name, results in rows:
        jax_first, jax_run = results.get("jax", (float("nan"), float("nan")))
        print(f"| {name} | {results['generated'][1] * 1e3:.2f} | {results['library'][1] * 1e3:.2f} "
              f"| {jax_run * 1e3:.2f} | {results['library'][1] / jax_run:.2f} "
              f"| {results['generated'][0] * 1e3:.0f} | {results['library'][0] * 1e3:.0f} "
              f"| {jax_first * 1e3:.0f} |")


if __name__ == "__main__":
    main()
