"""Per-call dispatch overhead on tiny inputs: jaxc against JAX (when
installed), eagerly and under jit.

    .venv/bin/python bench/dispatch.py            # ~20 s
    .venv/bin/python bench/dispatch.py --quick    # a smoke test, not a measurement

Each case runs `inner` back-to-back calls and then waits for the last
result (so asynchronous dispatch is measured the way a user's loop sees
it: launch cost, with execution overlapped); a sample is the mean per call.
Implementations alternate round by round; the table shows the median and
the minimum sample, and the ratio jaxc/JAX of the medians.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np


def cases(jax: Any, jnp: Any) -> dict[str, Callable[[], Any]]:
    """name -> a function that launches one call and returns its result."""
    x = jnp.asarray(np.arange(4, dtype=np.float32))
    y = jnp.asarray(np.ones(4, dtype=np.float32))
    add = jax.jit(lambda a, b: a + b)
    mlp = jax.jit(lambda a, b: jnp.tanh(a * b + 1.0) * 2.0)
    tree = jax.jit(lambda p: {"w": p["w"] * 2, "b": p["b"] + 1})
    params = {"w": x, "b": y}
    return {
        "eager x + y": lambda: x + y,
        "eager jnp.sin(x)": lambda: jnp.sin(x),
        "eager x * 2.0 (weak scalar)": lambda: x * 2.0,
        "jit add(x, y)": lambda: add(x, y),
        "jit 4-op function": lambda: mlp(x, y),
        "jit pytree dict in/out": lambda: tree(params),
    }


def sample(fn: Callable[[], Any], inner: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(inner):
        out = fn()
    _block(out)
    return (time.perf_counter_ns() - start) / inner


def _block(out: Any) -> None:
    leaves = out.values() if isinstance(out, dict) else [out]
    for leaf in leaves:
        leaf.block_until_ready()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke test)")
    parser.add_argument("--no-jax", action="store_true", help="leave JAX out even when installed")
    args = parser.parse_args(argv)
    inner, rounds = (50, 2) if args.quick else (2000, 7)

    import jaxc
    import jaxc.numpy as jaxc_numpy
    impls = {"jaxc": cases(jaxc, jaxc_numpy)}
    if not args.no_jax:
        try:
            import jax
            import jax.numpy as jax_numpy
            impls["jax"] = cases(jax, jax_numpy)
        except ImportError:
            pass
    samples: dict[tuple[str, str], list[float]] = {}
    for impl in impls.values():   # warm up: compile everything first
        for fn in impl.values():
            _block(fn())
    for round_index in range(rounds):
        order = list(impls) if round_index % 2 == 0 else list(reversed(impls))
        for name in impls[order[0]]:
            for impl in order:
                samples.setdefault((name, impl), []).append(sample(impls[impl][name], inner))
    header = ["case", *[f"{i} median / min (us)" for i in impls], *(["jaxc/JAX"] if "jax" in impls else [])]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in impls["jaxc"]:
        row = [name]
        medians = {}
        for impl in impls:
            values = samples[(name, impl)]
            medians[impl] = statistics.median(values)
            row.append(f"{medians[impl] / 1e3:.1f} / {min(values) / 1e3:.1f}")
        if "jax" in impls:
            row.append(f"{medians['jaxc'] / medians['jax']:.1f}x")
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
