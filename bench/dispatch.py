"""Per-call dispatch overhead on tiny inputs: jaxc against JAX (when
installed), for the compiled call alone, eagerly and under jit.

    .venv/bin/python bench/dispatch.py            # ~30 s
    .venv/bin/python bench/dispatch.py --quick    # a smoke test, not a measurement

Cases (4-element float32 vectors unless said):

- ``compiled call``: the compiled add called directly on host arrays, no jit
  cache lookup: jaxc's `runtime.Function` (NumPy in, NumPy out: the C
  extension `_fastcall`), JAX's ``jit(add).lower(x, y).compile()`` on
  device arrays.
- ``eager ...``: one jnp operation on Arrays (jaxc: a cached one-op kernel).
- ``jit ...``: a jitted function on Arrays, Arrays out (jaxc: the C fast
  path of `_fastcall.JitCache`; JAX: its C++ dispatch).

Each case runs `inner` back-to-back calls and then waits for the last
result (so asynchronous dispatch is measured the way a user's loop sees
it: launch cost, with execution overlapped); a sample is the mean per call.
Implementations alternate round by round; the table shows the median and
the minimum sample, and the ratio jaxc/JAX of the medians. JAX runs on
device arrays (``jnp.asarray`` once).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np


def add(a: Any, b: Any) -> Any:
    return a + b


def compiled_call(impl: str, jax: Any, x: Any, y: Any) -> Callable[[], Any]:
    """The compiled add called directly, without the jit cache lookup."""
    if impl == "jaxc":
        from jaxc.runtime import compile_module
        function = compile_module(jax.jit(add).lower(x, y).as_text())["jit_add"]
        xh, yh = np.asarray(x), np.asarray(y)
        return lambda: function(xh, yh)[0]
    compiled = jax.jit(add).lower(x, y).compile()
    return lambda: compiled(x, y)


def cases(impl: str, jax: Any, jnp: Any) -> dict[str, Callable[[], Any]]:
    """name -> a function that launches one call and returns its result."""
    x = jnp.asarray(np.arange(4, dtype=np.float32))
    y = jnp.asarray(np.ones(4, dtype=np.float32))
    jit_add = jax.jit(add)
    mlp = jax.jit(lambda a, b: jnp.tanh(a * b + 1.0) * 2.0)
    tree = jax.jit(lambda p: {"w": p["w"] * 2, "b": p["b"] + 1})
    params = {"w": x, "b": y}
    return {
        "compiled call add(x, y)": compiled_call(impl, jax, x, y),
        "eager x + y": lambda: x + y,
        "eager jnp.sin(x)": lambda: jnp.sin(x),
        "eager x * 2.0 (weak scalar)": lambda: x * 2.0,
        "jit add(x, y)": lambda: jit_add(x, y),
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
        if hasattr(leaf, "block_until_ready"):  # a NumPy result is ready
            leaf.block_until_ready()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke test)")
    parser.add_argument("--no-jax", action="store_true", help="leave JAX out even when installed")
    args = parser.parse_args(argv)
    inner, rounds = (50, 2) if args.quick else (2000, 9)

    import jaxc
    import jaxc.numpy as jaxc_numpy
    impls = {"jaxc": cases("jaxc", jaxc, jaxc_numpy)}
    if not args.no_jax:
        try:
            import jax
            import jax.numpy as jax_numpy
        except ImportError:
            pass
        else:
            impls["jax"] = cases("jax", jax, jax_numpy)
    samples: dict[tuple[str, str], list[float]] = {}
    for impl in impls.values():   # warm up: compile everything first
        for fn in impl.values():
            for _ in range(3):
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
            row.append(f"{medians[impl] / 1e3:.2f} / {min(values) / 1e3:.2f}")
        if "jax" in impls:
            row.append(f"{medians['jaxc'] / medians['jax']:.2f}x")
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
