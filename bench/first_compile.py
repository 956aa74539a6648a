"""A process's first `jit` call: jaxc against JAX, each run in a fresh process
(issue #13, "first-call compile time at or under XLA's").

    .venv/bin/python bench/first_compile.py            # 7 processes each, alternating
    .venv/bin/python bench/first_compile.py --runs 3

Each process times, with `time.perf_counter`:

    import      `import jax, jax.numpy as jnp` (jaxc: `import jaxc as jax, jaxc.numpy as jnp`)
    first jit   the first call of jit(f) on a NumPy array, block_until_ready: trace,
                compile, run; everything the library loads on first use counts here
    second jit  the first call of another jit(g) in the same process
    warm call   the second call of jit(f) (dispatch and run only)

f = sin(x) * 2 + 1 and g = relu(x @ w).sum(0) on small float32 arrays. The
table gives medians over the processes (ms) and jaxc/JAX. Both libraries
start from their on-disk state: Python bytecode compiled, no persistent
compilation cache (``JAX_COMPILATION_CACHE_DIR`` is removed from the
environment).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = """
import json, sys, time
t0 = time.perf_counter()
if sys.argv[1] == "jax":
    import jax, jax.numpy as jnp
else:
    import jaxc as jax, jaxc.numpy as jnp
t1 = time.perf_counter()
import numpy as np
x = np.linspace(-2, 2, 1000, dtype=np.float32)
w = np.linspace(-1, 1, 64 * 32, dtype=np.float32).reshape(64, 32)
f = jax.jit(lambda x: jnp.sin(x) * 2 + 1)
f(x).block_until_ready()
t2 = time.perf_counter()
g = jax.jit(lambda a, w: jnp.maximum(a @ w, 0).sum(0))
g(x[:640].reshape(10, 64), w).block_until_ready()
t3 = time.perf_counter()
f(x).block_until_ready()
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first jit": t2 - t1, "second jit": t3 - t2, "warm call": t4 - t3}))
"""
COLUMNS = ("import", "first jit", "second jit", "warm call")


def run_once(library: str) -> dict[str, float]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("JAX_COMPILATION_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")}
    done = subprocess.run([sys.executable, "-c", CHILD, library], capture_output=True, text=True,
                          timeout=600, env=env)
    if done.returncode:
        raise RuntimeError(f"{library} run failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="processes per library (default 7)")
    args = parser.parse_args()
    try:
        import jax  # noqa: F401
        libraries = ["jaxc", "jax"]
    except ImportError:
        libraries = ["jaxc"]
    for library in libraries:  # once each first: bytecode written, files in the page cache
        run_once(library)
    samples: dict[str, list[dict[str, float]]] = {library: [] for library in libraries}
    for _ in range(args.runs):
        for library in libraries:
            samples[library].append(run_once(library))
    medians = {library: {column: 1e3 * statistics.median(run[column] for run in runs) for column in COLUMNS}
               for library, runs in samples.items()}
    print(f"| ms (median of {args.runs} processes) | " + " | ".join(libraries)
          + (" | jaxc/JAX |" if "jax" in medians else " |"))
    print("|---|" + "---:|" * (len(libraries) + ("jax" in medians)))
    for column in COLUMNS:
        cells = [f"{medians[library][column]:.1f}" for library in libraries]
        if "jax" in medians:
            cells.append(f"{medians['jaxc'][column] / medians['jax'][column]:.2f}x")
        print(f"| {column} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
