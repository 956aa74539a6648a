"""Benchmarks: jaxc against NumPy (and JAX when installed), in one process.

    .venv/bin/python bench/run.py            # the full suite (`make bench`), about 1-2 minutes
    .venv/bin/python bench/run.py --quick    # tiny shapes, 2 rounds: a smoke test of seconds
    .venv/bin/python bench/run.py --only softmax --only sum

For every workload (bench/workloads.py) each implementation is compiled and
called once, its result is checked against a float64 NumPy reference
(np.testing.assert_allclose) *before* any timing, then the implementations are
called in turn, round by round (the order rotates each round), each sample
timed with time.perf_counter_ns. A sample of a fast workload is a batch of
`inner` calls (so one sample lasts >= ~2 ms) and is reported per call. The
table gives median and min per call, the ratios of the medians, and jaxc's
compile time (parse, stages to `llvm`, ExecutionEngine JIT; the first call
pays it). docs/performance.md explains the columns and the numbers.

Exit status: 0 when every workload that ran matched its reference, 1 when one
failed to compile or gave a wrong result (the table still prints, with the
error in the row).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import traceback
from typing import Any, Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402

try:  # optional: the JAX comparison runs only where JAX is installed.
    import jax  # type: ignore
    import jax.numpy as jnp  # type: ignore
    HAVE_JAX = True
except Exception:  # noqa: BLE001 - any import failure means "no JAX"
    jax = jnp = None
    HAVE_JAX = False

from jaxc.runtime import CompileError, compile_module  # noqa: E402

IMPLS = ("jaxc", "numpy", "jax")


# --- formatting -----------------------------------------------------------------

def fmt_time(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} us"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def fmt_ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    r = a / b
    return f"{r:.2f}x" if r < 10 else f"{r:.0f}x"


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i in (0, len(header) - 1) else c.rjust(w)  # noqa: E731
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


# --- one workload -----------------------------------------------------------------

class Result:
    def __init__(self, name: str) -> None:
        self.name = name
        self.samples: dict[str, list[float]] = {}   # ns per call
        self.compile_ns: float | None = None
        self.first_call_ns: float | None = None
        self.jax_first_call_ns: float | None = None
        self.rounds = 0
        self.inner = 1
        self.note = ""
        self.failed = False

    def median(self, impl: str) -> float | None:
        s = self.samples.get(impl)
        return statistics.median(s) if s else None

    def min(self, impl: str) -> float | None:
        s = self.samples.get(impl)
        return min(s) if s else None


_COMPILED: set[str] = set()   # module texts compiled earlier in this process


def build_jaxc(w: W.Workload, inputs: list[np.ndarray]) -> tuple[Callable[..., np.ndarray], float, bool]:
    """Compile the workload's module(s), or its front-end function under
    jaxc.jit; returns the callable, the compile time (ns) and whether every
    module was already in the runtime's compile cache."""
    if w.frontend is not None:
        import jaxc
        import jaxc.numpy as jnp
        jitted = jaxc.jit(w.frontend(jaxc, jnp))
        t0 = time.perf_counter_ns()
        jitted.lower(*inputs).compile()
        compile_ns = time.perf_counter_ns() - t0
        return (lambda *xs: jitted(*xs).block_until_ready()), compile_ns, False
    texts = [w.module] if w.module is not None else list(w.modules.values())
    cached = all(t in _COMPILED for t in texts)
    _COMPILED.update(texts)
    t0 = time.perf_counter_ns()
    if w.module is not None:
        f = compile_module(w.module)["f"]
        call = lambda *xs: f(*xs)[0]  # noqa: E731
    else:
        fs = {name: compile_module(text)["f"] for name, text in w.modules.items()}
        call = lambda *xs: w.compose(fs, list(xs))  # noqa: E731
    return call, time.perf_counter_ns() - t0, cached


def check(impl: str, got: Any, expected: np.ndarray, w: W.Workload) -> None:
    got = np.asarray(got)
    if got.shape != expected.shape:
        raise AssertionError(f"{impl}: shape {got.shape}, expected {expected.shape}")
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=w.rtol, atol=w.atol,
                               err_msg=f"{impl} result differs from the float64 reference")


def timed(fn: Callable[[], Any], n: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn()
    return (time.perf_counter_ns() - t0) / n


def run_workload(w: W.Workload, args: argparse.Namespace, rng: np.random.Generator) -> Result:
    res = Result(w.name)
    if w.missing:
        res.note = w.missing
        return res
    if w.predicted_first_call_s is not None and w.predicted_first_call_s > args.max_first_call:
        res.note = (f"skipped: first call predicted {w.predicted_first_call_s:.0f} s "
                    f"> {args.max_first_call:.0f} s (naive loops)")
        return res

    inputs = w.make_inputs(rng)
    expected = w.reference(*inputs)

    try:
        jaxc_fn, res.compile_ns, cached = build_jaxc(w, inputs)
        if cached:
            res.compile_ns, res.note = None, "compile: cached (same module as above)"
    except CompileError as e:
        res.failed, res.note = True, f"COMPILE ERROR: {str(e).splitlines()[0]}"
        print(f"[{w.name}] compile error:\n{e}\n{getattr(e, 'diagnostics', '')}", file=sys.stderr)
        return res

    calls: dict[str, Callable[[], Any]] = {"jaxc": lambda: jaxc_fn(*inputs),
                                           "numpy": lambda: w.numpy(*inputs)}
    # First call of each implementation, checked against the reference.
    t0 = time.perf_counter_ns()
    try:
        out = calls["jaxc"]()
    except Exception as e:  # noqa: BLE001
        res.failed, res.note = True, f"CALL ERROR: {type(e).__name__}: {e}"
        traceback.print_exc()
        return res
    res.first_call_ns = time.perf_counter_ns() - t0
    try:
        check("jaxc", out, expected, w)
    except AssertionError as e:
        bad = np.asarray(out, np.float64)
        err = np.nanmax(np.abs(bad - expected)) if bad.shape == expected.shape else float("nan")
        res.failed, res.note = True, f"WRONG RESULT (max abs err {err:.3g})"
        print(f"[{w.name}] {e}", file=sys.stderr)
        return res
    check("numpy", calls["numpy"](), expected, w)

    if HAVE_JAX and not args.no_jax and w.jax is not None:
        try:
            jf = w.jax(jax, jnp)
            if w.jax_jit:
                jf = jax.jit(jf)
            jin = [jax.device_put(x) for x in inputs]
            calls["jax"] = lambda: jax.block_until_ready(jf(*jin))
            t0 = time.perf_counter_ns()
            jout = calls["jax"]()
            res.jax_first_call_ns = time.perf_counter_ns() - t0
            check("jax", np.asarray(jout), expected, w)
        except Exception as e:  # noqa: BLE001 - JAX trouble must not hide jaxc's numbers
            calls.pop("jax", None)
            res.note = f"jax failed: {type(e).__name__}: {str(e).splitlines()[0][:60]}"
            print(f"[{w.name}] JAX failed:", file=sys.stderr)
            traceback.print_exc()

    if res.first_call_ns > args.max_first_call * 1e9:
        # Too slow to repeat: the first call (which includes no compile) is the only sample.
        res.samples["jaxc"] = [float(res.first_call_ns)]
        res.note = (res.note + "; " if res.note else "") + \
            f"1 call only: first call > {args.max_first_call:.0f} s"
        calls = {k: v for k, v in calls.items() if k != "jaxc"}

    # Warm-up, and an estimate of each implementation's time per call.
    # A call that takes more than half a second (the first call did not
    # compile: that was done before) is its own warm-up.
    est = {}
    for name, fn in calls.items():
        if name == "jaxc" and res.first_call_ns > 0.5e9:
            est[name] = float(res.first_call_ns)
        else:
            est[name] = min(timed(fn, 1) for _ in range(args.warmup))
    longest = max(est.values())
    # Batch fast calls so one sample lasts >= sample_ms; the same batch size
    # for all implementations of the workload keeps them comparable.
    res.inner = max(1, int(args.sample_ms * 1e6 / max(1.0, min(est.values()))))
    if longest * res.inner > args.sample_ms * 1e6:
        res.inner = max(1, int(args.sample_ms * 1e6 / max(1.0, longest)))
    round_ns = sum(e * res.inner for e in est.values())
    res.rounds = int(min(args.max_rounds, max(args.min_rounds, args.budget * 1e9 / max(round_ns, 1.0))))
    names = list(calls)
    for name in names:
        res.samples.setdefault(name, [])
    for r in range(res.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            res.samples[name].append(timed(calls[name], res.inner))
    if res.jax_first_call_ns is not None:
        res.note = (res.note + "; " if res.note else "") + f"jax first call {fmt_time(res.jax_first_call_ns)}"
    if w.flops and res.median("jaxc"):
        gf = w.flops / res.median("jaxc")
        res.note = (res.note + "; " if res.note else "") + f"jaxc {gf:.2f} GFLOP/s"
        if res.median("numpy"):
            res.note += f", numpy {w.flops / res.median('numpy'):.1f}"
    return res


def predict_sweep(ws: list[W.Workload], results: dict[str, Result]) -> None:
    """Before each matmul sweep size, predict its first call from the last
    measured size (n^3 scaling), so a hopeless size is skipped up front."""
    last: tuple[int, float] | None = None
    for w in ws:
        if not w.name.startswith("matmul sweep"):
            continue
        n = int(w.name.split()[-1])
        r = results.get(w.name)
        if r is None:
            if last is not None:
                w.predicted_first_call_s = last[1] * (n / last[0]) ** 3
            return
        if r.median("jaxc"):
            last = (n, r.median("jaxc") / 1e9)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny shapes and 2 rounds (smoke test)")
    p.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="run the workloads whose name contains TEXT (repeatable)")
    p.add_argument("--no-jax", action="store_true", help="skip JAX even when it is installed")
    p.add_argument("--budget", type=float, default=None, help="seconds of timing per workload")
    p.add_argument("--max-first-call", type=float, default=20.0,
                   help="skip (or time once) a workload whose first jaxc call takes longer (s)")
    args = p.parse_args(argv)
    if args.quick:
        args.budget = 0.05 if args.budget is None else args.budget
        args.min_rounds, args.max_rounds, args.warmup, args.sample_ms = 2, 2, 1, 0.5
    else:
        args.budget = 3.0 if args.budget is None else args.budget
        args.min_rounds, args.max_rounds, args.warmup, args.sample_ms = 3, 50, 2, 2.0

    ws = W.suite(args.quick)
    if args.only:
        ws = [w for w in ws if any(o.lower() in w.name.lower() for o in args.only)]
    print(f"jaxc benchmarks{' (--quick: tiny shapes, not a measurement)' if args.quick else ''}")
    print(f"  {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"NumPy {np.__version__}, JAX {jax.__version__ if HAVE_JAX else 'not installed (column skipped)'}")
    print(f"  per workload: {args.budget:g} s timing budget, {args.min_rounds}-{args.max_rounds} rounds, "
          f"{args.warmup} warm-up call(s), alternating implementations", flush=True)

    rng = np.random.default_rng(0)
    results: dict[str, Result] = {}
    t_start = time.perf_counter()
    for w in ws:
        predict_sweep(ws, results)
        t0 = time.perf_counter()
        results[w.name] = r = run_workload(w, args, rng)
        if not w.missing:
            print(f"  {w.name}: {time.perf_counter() - t0:.1f} s"
                  + (f"  [{r.note}]" if r.failed else ""), file=sys.stderr, flush=True)

    show_jax = HAVE_JAX and not args.no_jax
    header = ["workload", "jaxc med", "jaxc min", "numpy med", "numpy min"]
    if show_jax:
        header += ["jax med", "jax min"]
    header += ["jaxc/numpy"] + (["jaxc/jax"] if show_jax else []) + ["compile", "rounds", "notes"]
    rows = []
    for w in ws:
        r = results[w.name]
        row = [r.name, fmt_time(r.median("jaxc")), fmt_time(r.min("jaxc")),
               fmt_time(r.median("numpy")), fmt_time(r.min("numpy"))]
        if show_jax:
            row += [fmt_time(r.median("jax")), fmt_time(r.min("jax"))]
        row += [fmt_ratio(r.median("jaxc"), r.median("numpy"))]
        if show_jax:
            row += [fmt_ratio(r.median("jaxc"), r.median("jax"))]
        row += [fmt_time(r.compile_ns), f"{r.rounds}x{r.inner}" if r.rounds else "-", r.note]
        rows.append(row)
    print()
    print(table(rows, header))
    tiny = [results[w.name] for w in ws if w.name.startswith("dispatch") and results[w.name].median("jaxc")]
    if tiny:
        print(f"\ndispatch overhead per call (4-element add): jaxc {fmt_time(tiny[0].median('jaxc'))}, "
              f"numpy {fmt_time(tiny[0].median('numpy'))}"
              + (f", jax {fmt_time(tiny[0].median('jax'))}" if tiny[0].median("jax") else ""))
    print(f"total {time.perf_counter() - t_start:.0f} s")
    failed = [r.name for r in results.values() if r.failed]
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
