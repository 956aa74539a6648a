"""Peak memory of `grad` of a deep MLP with and without `checkpoint`
(issue #21): jaxc against JAX, each configuration in a fresh process.

    layer(w, x) = x + tanh(tanh(x @ w) @ w)      (two products, residual)
    loss        = sum(layers(x) ** 2) over L layers

    none        no checkpoint: the backward sweep keeps every forward value
    layer       jax.checkpoint on each layer (its inner values recomputed)
    dots        the same with policy=dots_saveable (products kept)
    block       jax.checkpoint on blocks of `--block` layers, each layer inside
                checkpointed too (only block inputs kept, then layer inputs
                while a block's adjoint runs)

    .venv/bin/python bench/remat_memory.py                # L=50, width 512, batch 512
    .venv/bin/python bench/remat_memory.py --layers 20 --width 256 --batch 256

The peak is the growth of the process's resident set during the first
call of the compiled gradient (after compiling it and calling another small
function; `malloc_trim(0)` gives the freed heap back and
/proc/self/clear_refs resets VmHWM; then VmHWM after the call minus VmRSS
before it). Compile is `lower(...).compile()` in that process, before it.
Later calls reuse the heap that the first one grew, so only the
first call shows the peak; JAX's
`memory_analysis()` temp size is printed next to it. Gradients are checked
to agree between configurations (and with JAX) to 1e-4.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

CONFIGS = ("none", "layer", "dots", "block")


def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> None:
    """Give freed heap memory back (glibc keeps it, so the call would reuse
    it without growing the resident set), then reset the high-water mark."""
    import ctypes
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")


def model(lib, config: str, layers: int, block: int):
    jnp = lib.numpy
    policies = lib.checkpoint_policies

    def layer(w, x):
        return x + jnp.tanh(jnp.tanh(x @ w) @ w)
    inner = {"none": layer, "layer": lib.checkpoint(layer),
             "dots": lib.checkpoint(layer, policy=policies.dots_saveable),
             "block": lib.checkpoint(layer)}[config]

    def run_block(ws, x):
        for w in ws:
            x = inner(w, x)
        return x
    outer = lib.checkpoint(run_block) if config == "block" else run_block

    def loss(ws, x):
        for start in range(0, layers, block):
            x = outer(ws[start:start + block], x)
        return jnp.sum(x ** 2)
    return lib.jit(lib.grad(loss))


def measure(library: str, config: str, layers: int, width: int, batch: int, block: int) -> dict:
    """One configuration in this process: peak growth (MiB), time, checksum."""
    if library == "jax":
        import jax as lib
    else:
        import jaxc as lib
    rng = np.random.default_rng(0)
    ws = [(rng.normal(size=(width, width)) / np.sqrt(width) / 2).astype(np.float32) for _ in range(layers)]
    x = rng.normal(size=(batch, width)).astype(np.float32)
    ws_dev, x_dev = lib.device_put(ws), lib.device_put(x)
    f = model(lib, config, layers, block)
    started = time.perf_counter()
    compiled = f.lower(ws_dev, x_dev).compile()
    compile_seconds = time.perf_counter() - started
    extra = {}
    if library == "jax":
        analysis = compiled.memory_analysis()
        extra["temp_mib"] = analysis.temp_size_in_bytes / 2**20 if analysis is not None else None
    warm = lib.jit(lambda a: (a * 2.0).sum())  # thread pools and runtime set up before measuring
    lib.block_until_ready(warm(x_dev))
    _reset_peak()
    before = _rss_kib("VmRSS")
    grads = compiled(ws_dev, x_dev)
    lib.block_until_ready(grads)
    peak = _rss_kib("VmHWM")
    times = []
    for _ in range(5):
        started = time.perf_counter()
        lib.block_until_ready(compiled(ws_dev, x_dev))
        times.append(time.perf_counter() - started)
    seconds = float(np.median(times))
    first = np.asarray(grads[0], np.float64)
    return {"peak_mib": (peak - before) / 1024, "seconds": seconds,  # median of 5 later calls
            "compile_seconds": compile_seconds,
            "checksum": [float(first.sum()), float(np.abs(first).sum())], **extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=50)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--block", type=int, default=5)
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "CONFIG"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child, args.layers, args.width, args.batch, args.block)))
        return
    try:
        import jax  # noqa: F401
        libraries = ("jaxc", "jax")
    except ImportError:
        libraries = ("jaxc",)
    shape = (f"{args.layers} layers, width {args.width}, batch {args.batch}, float32: one layer's "
             f"activation is {args.batch * args.width * 4 / 2**20:.1f} MiB")
    print(f"grad of an MLP, {shape}; blocks of {args.block}")
    print("| checkpoint | " + " | ".join(f"{lib} peak MiB | {lib} ms | {lib} compile s" for lib in libraries) +
          (" | JAX temp MiB |" if "jax" in libraries else " |"))
    print("|---" * (1 + 3 * len(libraries) + ("jax" in libraries)) + "|")
    reference = None
    for config in CONFIGS:
        cells = []
        temp = None
        for lib in libraries:
            proc = subprocess.run([sys.executable, __file__, "--child", lib, config,
                                   "--layers", str(args.layers), "--width", str(args.width),
                                   "--batch", str(args.batch), "--block", str(args.block)],
                                  capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
            if proc.returncode != 0:
                sys.exit(f"{lib} {config} failed:\n{proc.stderr}")
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            if reference is None:
                reference = result["checksum"]
            elif not np.allclose(result["checksum"], reference, rtol=1e-4):
                sys.exit(f"{lib} {config}: gradient checksum {result['checksum']} != {reference}")
            cells += [f"{result['peak_mib']:.0f}", f"{1e3 * result['seconds']:.0f}",
                      f"{result['compile_seconds']:.1f}"]
            temp = result.get("temp_mib", temp)
        tail = f" | {temp:.0f} |" if temp is not None else " |"
        print(f"| {config} | " + " | ".join(cells) + tail)


if __name__ == "__main__":
    main()
