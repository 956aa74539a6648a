"""Compile time against program size (issue #20): jaxc's first call (trace,
compile, run) of programs of N ops, against JAX in the same process.

    chain   jit of N elementwise ops on a float32[4]: sin, *1.01, sin, ...
    cond    jit(grad) of N nested lax.cond: level k is
            cond(y > 0, lambda z: level_{k-1}(z) * 1.01, lambda z: cos(z) - 0.5, y)
    cond-arg  the same with each level's argument computed in the branch:
            cond(y > 0, lambda z: level_{k-1}(z * 1.01), cos, y); the IR keeps
            N nested scf.if (in `cond` they become selects)
    mlp     jit(grad) of an MLP of N tanh layers 256 wide, batch 64 (sum of squares
            of the output): 3 matrix products per layer, like a deep model's step

    .venv/bin/python bench/compile_scaling.py                 # N = 125 250 500 1000 2000
    .venv/bin/python bench/compile_scaling.py --quick         # small N
    .venv/bin/python bench/compile_scaling.py --only cond -n 40 80 160

Prints a table (N, jaxc s, jax s, jaxc/jax) per program, then jaxc's time
per stage (and the slowest passes of each) at the largest N it ran. Once one
point of a program takes more than --cap seconds (either library), larger N
are skipped for it. Tracing N nested conds recurses N deep, so everything runs
on a thread with a large stack.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time

import numpy as np


def chain(n, np_):
    """N elementwise ops, alternating sin and *1.01."""
    def f(x):
        for i in range(n):
            x = np_.sin(x) if i % 2 == 0 else x * 1.01
        return x
    return f


def nested_conds(n, np_, lax):
    """N nested conds (the true branch holds the next level)."""
    def level(k, y):
        if k == 0:
            return np_.sin(y)
        return lax.cond(y > 0, lambda z: level(k - 1, z) * 1.01, lambda z: np_.cos(z) - 0.5, y)
    return lambda x: level(n, x)


def nested_conds_arg(n, np_, lax):
    """N nested conds, each level's argument computed in the true branch."""
    def level(k, y):
        if k == 0:
            return np_.sin(y)
        return lax.cond(y > 0, lambda z: level(k - 1, z * 1.01), np_.cos, y)
    return lambda x: level(n, x)


def mlp(n, np_):
    """The loss of an N-layer tanh MLP; its argument is the list of weights."""
    def loss(ws, x):
        for w in ws:
            x = np_.tanh(x @ w)
        return np_.sum(x * x)
    return loss


def mlp_args(n):
    rng = np.random.default_rng(0)
    return ([rng.standard_normal((256, 256), np.float32) * np.float32(0.06) for _ in range(n)],
            rng.standard_normal((64, 256), np.float32))


PROGRAMS = {
    "chain": (lambda lib, n: lib.jit(chain(n, lib.numpy)), lambda n: (np.ones(4, np.float32),)),
    "cond": (lambda lib, n: lib.jit(lib.grad(nested_conds(n, lib.numpy, lib.lax))),
             lambda n: (np.float32(0.3),)),
    "cond-arg": (lambda lib, n: lib.jit(lib.grad(nested_conds_arg(n, lib.numpy, lib.lax))),
                 lambda n: (np.float32(0.3),)),
    "mlp": (lambda lib, n: lib.jit(lib.grad(mlp(n, lib.numpy))), mlp_args),
}


def first_call(lib, program: str, n: int) -> float:
    """Seconds of the first call (trace + compile + run) of `program` at N = n."""
    make, arg = PROGRAMS[program]
    started = time.perf_counter()
    out = make(lib, n)(*arg(n))
    for leaf in (out if isinstance(out, (tuple, list)) else (out,)):
        np.asarray(leaf)  # wait for the result
    return time.perf_counter() - started


def stage_breakdown(program: str, n: int) -> None:
    """jaxc's trace time, then each stage's time and its slowest passes."""
    from mlir import ir

    import jaxc
    from jaxc.dialect import make_context
    from jaxc.passes import stages

    make, arg = PROGRAMS[program]
    started = time.perf_counter()
    text = make(jaxc, n).lower(*arg(n)).as_text()
    print(f"\n{program}, N={n}: jaxc by stage (seconds)")
    print(f"  {'trace':12s} {time.perf_counter() - started:7.3f}")
    module = ir.Module.parse(text, make_context())
    entry = next(ir.StringAttr(f.attributes["sym_name"]).value
                 for f in module.body.operations if f.operation.name == "func.func")
    timings = []
    stages.run_stages(module, "llvm", timings=timings)
    for stage in timings:
        slowest = sorted(stage.passes, key=lambda p: -p.seconds)[:3]
        print(f"  {stage.stage:12s} {(stage.end_ns - stage.start_ns) / 1e9:7.3f}   "
              + ", ".join(f"{p.name} {p.seconds:.3f}" for p in slowest))
    from mlir.execution_engine import ExecutionEngine

    from jaxc.runtime import cpu
    started = time.perf_counter()
    engine = ExecutionEngine(module, opt_level=3, shared_libs=cpu.runtime_libraries())
    engine.raw_lookup(f"_mlir_ciface_{entry}")
    print(f"  {'llvm jit':12s} {time.perf_counter() - started:7.3f}")


def run(args) -> None:
    import jaxc
    jax = None
    if not args.no_jax:
        try:
            import jax
            jax.config.update("jax_platforms", "cpu")
        except Exception:  # noqa: BLE001 -- JAX missing or broken: jaxc alone
            jax = None
    first_call(jaxc, "chain", 2)  # imports and the compile context, outside the timings
    if jax is not None:
        first_call(jax, "chain", 2)
    for program in args.only:
        print(f"\n{program}: first call, seconds (cap {args.cap:g} s a point)")
        print(f"  {'N':>6} {'jaxc':>9} {'jax':>9} {'jaxc/jax':>9}")
        largest = None
        capped = {"jaxc": False, "jax": jax is None}
        for n in args.n:
            row = {}
            for name, lib in (("jaxc", jaxc), ("jax", jax)):
                row[name] = None if capped[name] else first_call(lib, program, n)
                capped[name] = capped[name] or row[name] > args.cap
            if row["jaxc"] is not None:
                largest = n
            if row["jaxc"] is None and row["jax"] is None:
                break
            cells = [f"{row[k]:9.3f}" if row[k] is not None else f"{'-':>9}" for k in ("jaxc", "jax")]
            ratio = (f"{row['jaxc'] / row['jax']:9.2f}" if row["jaxc"] is not None and row["jax"]
                     else f"{'-':>9}")
            print(f"  {n:>6} {cells[0]} {cells[1]} {ratio}", flush=True)
        if largest is not None and not args.no_stages:
            stage_breakdown(program, largest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, nargs="+", default=None, help="program sizes")
    parser.add_argument("--quick", action="store_true", help="small N (10 20 40 80)")
    parser.add_argument("--only", choices=sorted(PROGRAMS), default=None)
    parser.add_argument("--cap", type=float, default=60.0, help="seconds a point may take")
    parser.add_argument("--no-jax", action="store_true", help="time jaxc alone")
    parser.add_argument("--no-stages", action="store_true", help="skip the per-stage breakdown")
    args = parser.parse_args()
    args.n = args.n or ([10, 20, 40, 80] if args.quick else [125, 250, 500, 1000, 2000])
    args.only = [args.only] if args.only else list(PROGRAMS)
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(1 << 30)
    errors = []

    def target():
        try:
            run(args)
        except BaseException as error:  # noqa: BLE001 -- reported by the main thread
            errors.append(error)
    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


if __name__ == "__main__":
    main()
