"""Benchmarks: jaxc against NumPy (and JAX when installed), in one process.

    .venv/bin/python bench/run.py            # the full suite (`make bench`), a few minutes
    .venv/bin/python bench/run.py --quick    # tiny shapes, 2 rounds: a smoke test of seconds
    .venv/bin/python bench/run.py --only softmax --only sum
    .venv/bin/python bench/run.py --threads 1 --markdown out.md --png out.png

For every workload (bench/workloads.py) each implementation is compiled and
called once, its result is checked against a float64 NumPy reference
(np.testing.assert_allclose) *before* any timing, then the implementations are
called in turn, round by round (the order rotates each round), each sample
timed with time.perf_counter_ns. A sample of a fast workload is a batch of
`inner` calls (so one sample lasts >= ~2 ms) and is reported per call. JAX
and front-end jaxc run on device arrays made once, outside the timed calls,
and every timed call waits for its result (block_until_ready). The MNIST row
(bench/mnist.py) trains the same model with jaxc, JAX and NumPy and times
each epoch; the digits rows do the same for examples/train_digits.py (stax and
Adam, jaxc and JAX; skipped when scikit-learn is not installed).
docs/performance.md explains the columns and the numbers.

Exit status: 0 when every workload that ran matched its reference, 1 when one
failed to compile or gave a wrong result (the table still prints, with the
error in the row).
"""
from __future__ import annotations

import os
import sys

# --- threads: the libraries read these when they load, so this runs first ------

XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
# Set by --threads N (besides JAXC_CPU_THREADS and, for N = 1, XLA_FLAGS).
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# A persistent compilation cache (jaxc's or JAX's, both read this variable)
# would make the compile columns measure a disk read: off for the run.
CACHE_VAR = "JAX_COMPILATION_CACHE_DIR"


def threads_from_argv(argv: list[str]) -> int | None:
    """The N of `--threads N` / `--threads=N`, before argparse runs."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith("--threads="):
            value = a.split("=", 1)[1]
        else:
            continue
        try:
            return int(value)
        except ValueError:
            return None  # argparse reports it
    return None


def apply_threads(n: int | None) -> list[str]:
    """Restrict jaxc, JAX and NumPy to `n` threads through the environment
    and pin the process to `n` CPUs; returns what was done, for the header."""
    done = []
    if CACHE_VAR in os.environ:
        done.append(f"unset {CACHE_VAR}")
        del os.environ[CACHE_VAR]
    if n is None or n < 1:
        return done
    os.environ["JAXC_CPU_THREADS"] = str(n)
    for var in BLAS_THREAD_VARS:
        os.environ[var] = str(n)
    done.append(f"JAXC_CPU_THREADS={n}, {'/'.join(v.split('_')[0] for v in BLAS_THREAD_VARS)}_NUM_THREADS={n}")
    if n == 1:
        flags = os.environ.get("XLA_FLAGS", "")
        if XLA_ONE_THREAD not in flags:
            os.environ["XLA_FLAGS"] = (flags + " " + XLA_ONE_THREAD).strip()
        done.append(f'XLA_FLAGS="{os.environ["XLA_FLAGS"]}"')
    # XLA sizes its thread pools by the CPUs this process may use, so pinning
    # is what limits JAX to n threads for n > 1 (and its other pools for 1).
    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        if n < len(cpus):
            os.sched_setaffinity(0, cpus[:n])
            cpus = cpus[:n]
        done.append(f"pinned to CPU {','.join(map(str, cpus))}")
    return done


if __name__ == "__main__":
    THREAD_SETUP = apply_threads(threads_from_argv(sys.argv[1:]))
    os.environ["JAXC_BENCH_THREADS_APPLIED"] = str(threads_from_argv(sys.argv[1:]))
else:
    THREAD_SETUP = []

import argparse  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mnist as M  # noqa: E402
import workloads as W  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_digits as D  # noqa: E402  (scikit-learn is imported only by D.load_digits)

try:  # optional: the JAX comparison runs only where JAX is installed.
    import jax  # type: ignore
    import jax.numpy as jnp  # type: ignore
    HAVE_JAX = True
except Exception:  # noqa: BLE001 - any import failure means "no JAX"
    jax = jnp = None
    HAVE_JAX = False

import jaxc  # noqa: E402
from jaxc.runtime import compile_module  # noqa: E402

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


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.2f}x" if r < 10 else f"{r:.0f}x"


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) if i in (0, len(header) - 1) else c.rjust(w)  # noqa: E731
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def markdown_table(rows: list[list[str]], header: list[str]) -> str:
    esc = lambda c: c.replace("|", "\\|")  # noqa: E731
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i in (0, len(header) - 1) else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# --- one workload -----------------------------------------------------------------

class Result:
    def __init__(self, name: str) -> None:
        self.name = name
        self.samples: dict[str, list[float]] = {}   # ns per call
        self.compile_ns: dict[str, float] = {}      # jaxc / jax: compile before the first call
        self.first_call_ns: dict[str, float] = {}
        self.rounds = 0
        self.inner = 1
        self.notes: list[str] = []
        self.failed = False
        self.ran = False                            # timed, or at least tried

    def median(self, impl: str) -> float | None:
        s = self.samples.get(impl)
        return statistics.median(s) if s else None

    def min(self, impl: str) -> float | None:
        s = self.samples.get(impl)
        return min(s) if s else None

    @property
    def note(self) -> str:
        return "; ".join(n for n in self.notes if n)

    def fail(self, note: str) -> "Result":
        self.failed = True
        self.notes.append(note)
        return self


_COMPILED: set[str] = set()   # module texts compiled earlier in this process


def block(x: Any) -> Any:
    """Wait for every jaxc Array in the pytree `x`."""
    return jaxc.block_until_ready(x)


def build_jaxc(w: W.Workload, inputs: list[np.ndarray]) -> tuple[Callable[[], Any], float, bool]:
    """The jaxc call of the workload with its inputs bound, the compile time
    (ns) and whether every module was already compiled in this process.

    Front-end workloads: `jaxc.jit` of the function, called on jaxc Arrays
    made once here; the compile time is `lower(...).compile()` (trace,
    stages, JIT), after which the first call finds the module in the
    runtime's cache. Hand-written modules: `compile_module`, called on the
    NumPy inputs (the runtime's call, synchronous)."""
    if w.frontend is not None:
        jitted = jaxc.jit(w.frontend(jaxc, jaxc.numpy))
        args = block([jaxc.device_put(x) for x in inputs])
        t0 = time.perf_counter_ns()
        jitted.lower(*args).compile()
        compile_ns = time.perf_counter_ns() - t0
        return (lambda: block(jitted(*args))), compile_ns, False
    texts = [w.module] if w.module is not None else list(w.modules.values())
    cached = all(t in _COMPILED for t in texts)
    _COMPILED.update(texts)
    t0 = time.perf_counter_ns()
    if w.module is not None:
        f = compile_module(w.module)["f"]
        call = lambda: f(*inputs)[0]  # noqa: E731
    else:
        fs = {name: compile_module(text)["f"] for name, text in w.modules.items()}
        call = lambda: w.compose(fs, list(inputs))  # noqa: E731
    return call, time.perf_counter_ns() - t0, cached


def build_jax(w: W.Workload, inputs: list[np.ndarray]) -> tuple[Callable[[], Any], float | None]:
    """JAX's call with device arrays made once here; every call waits for its
    result. Compile time: `jax.jit(f).lower(...).compile()` (None without jit:
    op-by-op JAX compiles each primitive on its first call)."""
    fn = w.jax(jax, jnp)
    args = jax.block_until_ready([jax.device_put(x) for x in inputs])
    compile_ns = None
    if w.jax_jit:
        fn = jax.jit(fn)
        t0 = time.perf_counter_ns()
        fn.lower(*args).compile()   # fills the caches the first call of fn looks in
        compile_ns = time.perf_counter_ns() - t0
    return (lambda: jax.block_until_ready(fn(*args))), compile_ns


def compile_count() -> int | None:
    """How many modules jaxc's runtime has compiled so far (None if it does
    not say): tells whether a first call compiled again."""
    from jaxc.runtime import cpu
    return getattr(cpu, "compile_count", None)


RECOMPILED = "jaxc first call compiled again"


def flat(x: Any) -> np.ndarray:
    """A result (array, or tuple/list of arrays) as one float64 (complex128
    for complex results) vector or array."""
    def wide(v: Any) -> np.ndarray:
        v = np.asarray(v)
        return v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)
    if isinstance(x, (tuple, list)):
        return np.concatenate([wide(v).reshape(-1) for v in x])
    return wide(x)


def check(impl: str, got: Any, expected: np.ndarray, w: W.Workload) -> None:
    got = flat(got)
    if got.shape != expected.shape:
        raise AssertionError(f"{impl}: shape {got.shape}, expected {expected.shape}")
    np.testing.assert_allclose(got, expected, rtol=w.rtol, atol=w.atol,
                               err_msg=f"{impl} result differs from the float64 reference")


def timed(fn: Callable[[], Any], n: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn()
    return (time.perf_counter_ns() - t0) / n


def first_call(res: Result, impl: str, fn: Callable[[], Any], expected: np.ndarray, w: W.Workload) -> bool:
    """Call once (timed), check against the reference; False (and the row
    marked failed) when it raised or was wrong."""
    t0 = time.perf_counter_ns()
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.fail(f"{impl} CALL ERROR: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}")
        return False
    res.first_call_ns[impl] = time.perf_counter_ns() - t0
    try:
        check(impl, out, expected, w)
    except AssertionError as e:
        got = flat(out)
        err = np.nanmax(np.abs(got - expected)) if got.shape == expected.shape else float("nan")
        res.fail(f"{impl} WRONG RESULT (max abs err {err:.3g})")
        print(f"[{w.name}] {e}", file=sys.stderr)
        return False
    return True


def run_workload(w: W.Workload, args: argparse.Namespace, rng: np.random.Generator) -> Result:
    res = Result(w.name)
    if w.missing:
        res.notes.append(w.missing)
        return res
    if w.training is not None:
        if w.training.get("kind") == "digits":
            return run_digits(w, args)
        return run_training(w, args)
    res.ran = True
    inputs = w.make_inputs(rng)
    expected = flat(w.reference(*inputs))
    calls: dict[str, Callable[[], Any]] = {}

    # jaxc, unless a size is predicted hopelessly slow (matmul sweep).
    if w.predicted_first_call_s is not None and w.predicted_first_call_s > args.max_first_call:
        res.notes.append(f"jaxc skipped: first call predicted {w.predicted_first_call_s:.0f} s "
                         f"> {args.max_first_call:.0f} s (--max-first-call)")
    else:
        try:
            fn, compile_ns, cached = build_jaxc(w, inputs)
        except Exception as e:  # noqa: BLE001 - CompileError, or the front end's errors
            print(f"[{w.name}] jaxc compile error:\n{e}\n{getattr(e, 'diagnostics', '')}", file=sys.stderr)
            return res.fail(f"jaxc COMPILE ERROR: {str(e).splitlines()[0][:100]}")
        if cached:
            res.notes.append("jaxc compile: cached (same module as above)")
        else:
            res.compile_ns["jaxc"] = compile_ns
        before = compile_count()
        if not first_call(res, "jaxc", fn, expected, w):
            return res
        if before is not None and compile_count() != before:
            # The first call paid a compile: time a second one, for the
            # warm-up rule and the batch size below.
            res.notes.append(RECOMPILED)
            t0 = time.perf_counter_ns()
            fn()
            res.first_call_ns["jaxc"] = time.perf_counter_ns() - t0
        calls["jaxc"] = fn

    if w.numpy is not None:  # (no NumPy counterpart for jax.random's samplers)
        calls["numpy"] = lambda: w.numpy(*inputs)
        if not first_call(res, "numpy", calls["numpy"], expected, w):
            return res

    if HAVE_JAX and not args.no_jax and w.jax is not None:
        try:
            fn, compile_ns = build_jax(w, inputs)
            if compile_ns is not None:
                res.compile_ns["jax"] = compile_ns
            if first_call(res, "jax", fn, expected, w):
                calls["jax"] = fn
                if compile_ns is None:
                    res.notes.append(f"jax first call {fmt_time(res.first_call_ns['jax'])}")
        except Exception as e:  # noqa: BLE001 - JAX trouble must not hide jaxc's numbers
            res.notes.append(f"jax failed: {type(e).__name__}: {str(e).splitlines()[0][:60]}")
            print(f"[{w.name}] JAX failed:", file=sys.stderr)
            traceback.print_exc()

    if res.first_call_ns.get("jaxc", 0) > args.max_first_call * 1e9:
        # Too slow to repeat: the first call (which includes no compile) is the only sample.
        res.samples["jaxc"] = [float(res.first_call_ns["jaxc"])]
        res.notes.append(f"jaxc: 1 call only (> {args.max_first_call:.0f} s)")
        del calls["jaxc"]

    sample_rounds(res, calls, args)
    if w.flops:
        gf = [f"{name} {w.flops / res.median(name):.1f}" for name in IMPLS if res.median(name)]
        if gf:
            res.notes.append("GFLOP/s " + ", ".join(gf))
    return res


def sample_rounds(res: Result, calls: dict[str, Callable[[], Any]], args: argparse.Namespace) -> None:
    """Warm up, then time the calls round by round, alternating (NumPy in
    rounds of its own at the end)."""
    if not calls:
        return
    # Warm-up, and an estimate of each implementation's time per call. A call
    # whose first run took more than half a second is its own warm-up.
    est = {}
    for name, fn in calls.items():
        if res.first_call_ns.get(name, 0) > 0.5e9:
            est[name] = float(res.first_call_ns[name])
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
    for name in calls:
        res.samples.setdefault(name, [])
    # NumPy's OpenBLAS threads spin for 60-100 ms after a call (more than any
    # settle): a jaxc or JAX sample right after one ran up to 6x slower. So
    # NumPy is timed in rounds of its own, after the alternating ones.
    names = [name for name in calls if name != "numpy"]
    for r in range(res.rounds if names else 0):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            settle(args, calls[name])
            res.samples[name].append(timed(calls[name], res.inner))
    if "numpy" in calls:
        for _ in range(res.rounds):
            settle(args, calls["numpy"])
            res.samples["numpy"].append(timed(calls["numpy"], res.inner))


# Before a training epoch (the MNIST and digits rows rotate jaxc, JAX and NumPy
# epoch by epoch): NumPy's OpenBLAS threads spin 60-100 ms after its epoch. MNIST,
# 5-6 epochs each: jaxc/JAX 1.37-1.58x with 30 ms settles, 0.97x with 400 ms.
TRAINING_SETTLE_MS = 400.0


def settle(args: argparse.Namespace, call: Callable[[], Any] | None = None, at_least_ms: float = 0.0) -> None:
    """Before a sample of another implementation than the last: sleep
    `--settle-ms`, so the worker threads the last one left spinning (jaxc's
    OpenMP 10 ms, XLA's Eigen pool) have parked instead of holding
    a core during this sample; then one untimed call wakes this one's own
    threads, as the previous call of a loop would have. `at_least_ms`: a
    longer pause (training epochs, `TRAINING_SETTLE_MS`)."""
    if args.settle_ms <= 0:
        return
    time.sleep(max(args.settle_ms, at_least_ms) / 1e3)
    if call is not None:
        call()


# --- the training script -----------------------------------------------------------

def run_training(w: W.Workload, args: argparse.Namespace) -> Result:
    """bench/mnist.py's MLP, trained from the same initial parameters on the
    same batches by jaxc, JAX and NumPy, epoch by epoch (the order rotates);
    one sample per epoch. The step's compile (`lower().compile()`) is timed
    first, then one step is run to predict the epoch; the losses of every
    epoch must agree between the implementations."""
    res = Result(w.name)
    res.ran = True
    cfg = w.training
    sizes, samples, batch, epochs = cfg["sizes"], cfg["samples"], cfg["batch"], cfg["epochs"]
    x, y = M.make_data(samples, sizes[0], sizes[-1])
    params0 = M.init_params(sizes)
    steps = len(M.batches(samples, batch, 0))
    if steps == 0:
        return res.fail(f"fewer samples ({samples}) than one batch ({batch})")
    first = M.batches(samples, batch, 0)[0]

    mods: dict[str, Any] = {"numpy": M.NumpyModule}
    stepfns: dict[str, Callable] = {"numpy": M.numpy_step}
    params: dict[str, Any] = {"numpy": params0}
    impls = ["jaxc", "numpy"] + (["jax"] if HAVE_JAX and not args.no_jax else [])
    for impl in impls:
        if impl == "numpy":
            continue
        mod = jaxc if impl == "jaxc" else jax
        try:
            step = M.make_step(mod)
            p = mod.block_until_ready(mod.device_put(params0))
            xb, yb = mod.device_put(x[first]), mod.device_put(y[first])
            compile_and_first_call(res, impl, mod, step, p, xb, yb)  # training starts from params0
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            if impl == "jaxc":
                return res.fail(f"jaxc ERROR: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
            res.notes.append(f"jax failed: {type(e).__name__}")
            continue
        mods[impl], stepfns[impl], params[impl] = mod, step, p

    if "jaxc" in mods:
        t0 = time.perf_counter_ns()
        mods["jaxc"].block_until_ready(stepfns["jaxc"](params["jaxc"], jaxc.device_put(x[first]),
                                                       jaxc.device_put(y[first])))
        predicted = steps * (time.perf_counter_ns() - t0) / 1e9
        if predicted > args.max_epoch:
            res.notes.append(f"jaxc skipped: epoch predicted {predicted:.0f} s > {args.max_epoch:.0f} s "
                             f"(--max-epoch)")
            del mods["jaxc"]

    names = [n for n in ("jaxc", "jax", "numpy") if n in mods]
    worst: dict[str, float] = {}
    last_losses: dict[str, np.ndarray] = {}
    for epoch in range(epochs):
        idx = M.batches(samples, batch, epoch)
        losses = {}
        for name in names[epoch % len(names):] + names[:epoch % len(names)]:
            settle(args, at_least_ms=TRAINING_SETTLE_MS)
            t0 = time.perf_counter_ns()
            params[name], losses[name] = M.train_epoch(mods[name], stepfns[name], params[name], x, y, idx)
            res.samples.setdefault(name, []).append(float(time.perf_counter_ns() - t0))
        ref = losses.get("jax", losses["numpy"])
        for name, ls in losses.items():
            if ls is not ref:
                worst[name] = max(worst.get(name, 0.0), float(np.max(np.abs(ls - ref) / np.abs(ref))))
        last_losses = losses
    res.rounds, res.inner = epochs, 1
    ref_name = "jax" if "jax" in last_losses else "numpy"
    ls = last_losses[ref_name]
    res.notes.append(f"{steps} steps/epoch, loss {ls[0]:.3f} -> {ls[-1]:.3f}")
    agree = ", ".join(f"{n} {worst[n]:.1e}" for n in ("jaxc", "numpy") if n in worst)
    if agree:
        res.notes.append(f"max rel loss diff vs {ref_name}: {agree}")
    bad = [n for n, d in worst.items() if d > args.loss_rtol]
    if bad:
        res.fail(f"LOSSES DIFFER ({', '.join(bad)}) > {args.loss_rtol:g}")
        for n in bad:
            print(f"[{w.name}] {n} losses {last_losses[n][:8]} ...\n  {ref_name} {ls[:8]} ...", file=sys.stderr)
    return res


def compile_and_first_call(res: Result, impl: str, mod: Any, step: Callable, *args: Any) -> None:
    """Time a training step's `lower(*args).compile()` and then one call (its
    result dropped) into `res`; a jaxc call that compiled again is noted."""
    t0 = time.perf_counter_ns()
    step.lower(*args).compile()
    res.compile_ns[impl] = time.perf_counter_ns() - t0
    before = compile_count()
    t0 = time.perf_counter_ns()
    mod.block_until_ready(step(*args))
    res.first_call_ns[impl] = time.perf_counter_ns() - t0
    if impl == "jaxc" and before is not None and compile_count() != before:
        res.notes.append(RECOMPILED)


def run_digits(w: W.Workload, args: argparse.Namespace) -> Result:
    """examples/train_digits.py's model trained by jaxc and JAX from the same
    initial parameters (the same key) on the same minibatches, epoch by epoch
    (the order rotates); one sample per epoch: the training steps alone, the
    test accuracy is evaluated after the timing. "compile" is the step's
    `lower().compile()`. The batch losses of every epoch must agree with
    JAX's to --loss-rtol."""
    res = Result(w.name)
    cfg = w.training
    try:
        data = D.load_digits()
    except ImportError:
        res.notes.append("skipped: scikit-learn not installed (pip install -e .[examples])")
        return res
    res.ran = True
    if cfg["samples"]:
        data = data._replace(x_train=data.x_train[:cfg["samples"]], y_train=data.y_train[:cfg["samples"]])
    n = len(data.x_train)
    first = D.batches(n, D.BATCH, 0)[0]
    steps = len(D.batches(n, D.BATCH, 0))

    mods: dict[str, Any] = {}
    trainers: dict[str, Any] = {}
    states: dict[str, Any] = {}
    tests: dict[str, Any] = {}
    for impl in ["jaxc"] + (["jax"] if HAVE_JAX and not args.no_jax else []):
        mod = jaxc if impl == "jaxc" else jax
        try:
            init_fun, apply_fun = D.make_model(mod, cfg["model"])
            _, params = init_fun(mod.random.PRNGKey(0), (-1,) + data.x_train.shape[1:])
            trainer = D.make_step(mod, apply_fun)
            state = mod.block_until_ready(trainer.opt_init(params))
            xb, yb = mod.device_put(data.x_train[first]), mod.device_put(data.y_train[first])
            compile_and_first_call(res, impl, mod, trainer.step, 0, state, xb, yb)
            tests[impl] = (mod.device_put(data.x_test), mod.device_put(data.y_test))
            trainer.accuracy(params, *tests[impl])                   # compiled outside the timing
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            if impl == "jaxc":
                return res.fail(f"jaxc ERROR: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
            res.notes.append(f"jax failed: {type(e).__name__}")
            continue
        mods[impl], trainers[impl], states[impl] = mod, trainer, state

    names = list(mods)
    worst = 0.0
    accuracy: dict[str, float] = {}
    losses: dict[str, np.ndarray] = {}
    for epoch in range(cfg["epochs"]):
        idx = D.batches(n, D.BATCH, epoch)
        for name in names[epoch % len(names):] + names[:epoch % len(names)]:
            settle(args, at_least_ms=TRAINING_SETTLE_MS)
            t0 = time.perf_counter_ns()
            states[name], losses[name] = D.train_epoch(mods[name], trainers[name], states[name], epoch * steps,
                                                       data.x_train, data.y_train, idx)
            res.samples.setdefault(name, []).append(float(time.perf_counter_ns() - t0))
            t = trainers[name]
            accuracy[name] = float(t.accuracy(t.get_params(states[name]), *tests[name]))
        if "jax" in losses:
            worst = max(worst, float(np.max(np.abs(losses["jaxc"] - losses["jax"]) / np.abs(losses["jax"]))))
    res.rounds, res.inner = cfg["epochs"], 1
    res.notes.append(f"{steps} steps/epoch, loss {losses['jaxc'][0]:.3f} -> {losses['jaxc'][-1]:.3f}; test accuracy "
                     + ", ".join(f"{k} {v:.3f}" for k, v in accuracy.items()))
    if "jax" in losses:
        res.notes.append(f"max rel loss diff vs jax: jaxc {worst:.1e}")
        if worst > args.loss_rtol:
            res.fail(f"LOSSES DIFFER (jaxc) > {args.loss_rtol:g}")
            print(f"[{w.name}] jaxc losses {losses['jaxc'][:8]} ...\n  jax {losses['jax'][:8]} ...", file=sys.stderr)
    return res


# --- the suite ---------------------------------------------------------------------

def predict_sweep(ws: list[W.Workload], results: dict[str, Result]) -> None:
    """Before each matmul sweep size, predict its first jaxc call from the
    last measured size (n^3 scaling), so only a hopeless size is skipped."""
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


def columns(show_jax: bool) -> list[str]:
    header = ["workload", "jaxc med", "jaxc min", "numpy med", "numpy min"]
    if show_jax:
        header += ["jax med", "jax min"]
    header += ["jaxc/numpy"] + (["jaxc/jax"] if show_jax else []) + ["compile"]
    header += (["jax compile"] if show_jax else []) + ["rounds", "notes"]
    return header


def row(r: Result, show_jax: bool) -> list[str]:
    out = [r.name, fmt_time(r.median("jaxc")), fmt_time(r.min("jaxc")),
           fmt_time(r.median("numpy")), fmt_time(r.min("numpy"))]
    if show_jax:
        out += [fmt_time(r.median("jax")), fmt_time(r.min("jax"))]
    out += [fmt_ratio(ratio(r.median("jaxc"), r.median("numpy")))]
    if show_jax:
        out += [fmt_ratio(ratio(r.median("jaxc"), r.median("jax")))]
    out += [fmt_time(r.compile_ns.get("jaxc"))]
    if show_jax:
        out += [fmt_time(r.compile_ns.get("jax"))]
    out += [f"{r.rounds}x{r.inner}" if r.rounds else "-", r.note]
    return out


# A one-minute load average above this before the run: the cores were busy with
# other work, so the run says its numbers are noisy (a warning on stderr and in the header).
LOAD_WARNING = 1.0


def warm_up_compilers(with_jax: bool) -> None:
    """Compile and run one small program with jaxc (and JAX) before the first
    workload: `import jax` loads its whole compiler (about 0.3 s) while jaxc
    loads its passes, lowering rules and jnp on the first compile, so without
    this the first row's compile column would hold jaxc's start-up and none of
    JAX's. Every compile column is then one program's compile."""
    x = np.ones((4, 3), np.float32)
    jaxc.block_until_ready(jaxc.jit(lambda a: (a * 2 + 1).sum(0))(jaxc.device_put(x)))
    if with_jax:
        jax.block_until_ready(jax.jit(lambda a: (a * 2 + 1).sum(0))(jax.device_put(x)))


def header_lines(args: argparse.Namespace) -> list[str]:
    jax_text = (f"JAX {jax.__version__}" if HAVE_JAX else "JAX not installed (columns skipped)")
    if HAVE_JAX and args.no_jax:
        jax_text = "JAX left out (--no-jax)"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    lines = [f"{platform.machine()} {os.cpu_count()} cores ({usable} usable), "
             f"Python {platform.python_version()}, NumPy {np.__version__}, {jax_text}, "
             f"{datetime.datetime.now():%Y-%m-%d %H:%M}"]
    if args.threads:
        try:
            jaxc_threads = f"jaxc_cpu_threads={jaxc.config.read('jaxc_cpu_threads')}"
        except AttributeError:
            jaxc_threads = "this jaxc has no jaxc_cpu_threads option"
        lines.append(f"threads: {args.threads} ({'; '.join(THREAD_SETUP)}; {jaxc_threads})")
    else:
        lines.append("threads: every core (no --threads)"
                     + (f"; {'; '.join(THREAD_SETUP)}" if THREAD_SETUP else ""))
    if getattr(args, "load", 0.0) > LOAD_WARNING:
        lines.append(f"WARNING: load average {args.load:.2f} before the run (above {LOAD_WARNING:g}): "
                     "other work shared the cores; medians are noisy")
    lines.append(f"per workload: {args.budget:g} s timing budget, {args.min_rounds}-{args.max_rounds} rounds, "
                 f"{args.warmup} warm-up call(s), jaxc and JAX alternating, NumPy after them; "
                 "both compilers warmed up by one small program before the first row"
                 + (f", {args.settle_ms:g} ms settle and one untimed call before each sample "
                    f"({max(args.settle_ms, TRAINING_SETTLE_MS):g} ms before a training epoch)"
                    if args.settle_ms > 0 else ", samples back to back"))
    return lines


def dispatch_line(results: dict[str, Result]) -> str | None:
    parts = []
    for name, r in results.items():
        if name.startswith("dispatch") and r.median("jaxc"):
            what = name.split(":", 1)[1].strip()
            others = ", ".join(f"{i} {fmt_time(r.median(i))}" for i in ("jax", "numpy") if r.median(i))
            parts.append(f"{what}: jaxc {fmt_time(r.median('jaxc'))}" + (f" ({others})" if others else ""))
    return "dispatch per call: " + "; ".join(parts) if parts else None


def write_markdown(path: str, args: argparse.Namespace, results: list[Result], show_jax: bool,
                   total_s: float) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    lines = ["# jaxc benchmarks" + (" (--quick: tiny shapes, not a measurement)" if args.quick else ""), ""]
    lines += [f"- {line}" for line in header_lines(args)]
    lines += [f"- command: `bench/run.py{''.join(' ' + a for a in args.argv)}`", f"- total {total_s:.0f} s", ""]
    lines.append(markdown_table([row(r, show_jax) for r in results], columns(show_jax)))
    d = dispatch_line({r.name: r for r in results})
    if d:
        lines += ["", d]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_png(path: str, args: argparse.Namespace, results: list[Result], show_jax: bool) -> str | None:
    """A bar chart of the ratios (log scale, a line at 1.0): run time jaxc /
    JAX (or jaxc / NumPy without JAX) per workload, with jaxc / NumPy as
    markers, and compile time jaxc / JAX beside it. Returns why not, or None."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        return f"no chart: matplotlib not importable ({type(e).__name__})"
    base = "jax" if show_jax else "numpy"
    rows = [r for r in results if r.median("jaxc") and r.median(base)]
    if not rows:
        return "no chart: no workload has both a jaxc and a baseline time"
    names = [r.name for r in rows]
    run = [r.median("jaxc") / r.median(base) for r in rows]
    vs_np = [ratio(r.median("jaxc"), r.median("numpy")) for r in rows]
    comp = [ratio(r.compile_ns.get("jaxc"), r.compile_ns.get("jax")) for r in rows] if show_jax else None
    y = np.arange(len(rows))[::-1]
    height = 1.6 + 0.5 * len(rows)
    fig, axes = plt.subplots(1, 2 if comp else 1, figsize=(15 if comp else 10, height), sharey=True,
                             gridspec_kw={"width_ratios": [3, 2]} if comp else None, squeeze=False)
    ax = axes[0][0]

    def bars(ax, series, title):
        """series: [(values, label, faded)]; one bar per series and workload,
        growing from 1.0: right (red) where jaxc is slower, left (green) faster."""
        h = 0.8 / len(series)
        everything = []
        for k, (values, label, faded) in enumerate(series):
            vals = np.array([v if v is not None else np.nan for v in values], float)
            everything += [v for v in vals if np.isfinite(v)]
            yk = y + 0.4 - h * (k + 0.5)
            colors = [("#e6a198" if faded else "#c0392b") if v > 1 else ("#9fd8b4" if faded else "#27ae60")
                      for v in np.nan_to_num(vals, nan=1.0)]
            ax.barh(yk, vals - 1.0, left=1.0, color=colors, height=h * 0.9,
                    hatch="//" if faded else None, edgecolor="white" if faded else None, linewidth=0)
            for yi, v in zip(yk, vals):
                if np.isfinite(v):
                    text = fmt_ratio(v) + (f" {label}" if label else "")
                    ax.text(v * 1.08 if v >= 1 else v / 1.08, yi, text, va="center",
                            ha="left" if v >= 1 else "right", fontsize=7 if faded else 8,
                            color="#555555" if faded else "black")
                elif not faded:
                    ax.text(1.05, yi, "n/a", va="center", fontsize=8, color="gray")
        ax.set_xscale("log")
        ax.axvline(1.0, color="black", linewidth=1.2)
        lo, hi = min(everything + [0.5]), max(everything + [2.0])
        ax.set_xlim(lo / 4, hi * 6)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", which="major", alpha=0.3)
        ax.set_xlabel("ratio of medians (log scale; > 1: jaxc slower, < 1: jaxc faster)", fontsize=9)

    if show_jax:
        bars(ax, [(run, "", False), (vs_np, "vs NumPy", True)],
             "run time: jaxc / JAX (solid), jaxc / NumPy (hatched)")
    else:
        bars(ax, [(run, "", False)], "run time: jaxc / NumPy (JAX not measured)")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=9)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    if comp:
        bars(axes[0][1], [(comp, "", False)], "compile: jaxc / JAX (trace + lower + compile)")
    title = "jaxc benchmarks" + (" (--quick)" if args.quick else "") + \
        (f", {args.threads} thread(s)" if args.threads else ", every core")
    fig.suptitle(title + "\n" + header_lines(args)[0], fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny shapes and 2 rounds (smoke test)")
    p.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="run the workloads whose name contains TEXT (repeatable)")
    p.add_argument("--no-jax", action="store_true", help="skip JAX even when it is installed")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="run jaxc (JAXC_CPU_THREADS), JAX (XLA flags for 1; CPU pinning) and NumPy's BLAS "
                        "with N threads; the process is pinned to N CPUs")
    p.add_argument("--budget", type=float, default=None, help="seconds of timing per workload")
    p.add_argument("--settle-ms", type=float, default=None,
                   help="pause before each sample, then one untimed call (default 30; 0: none, "
                        "the samples then run back to back as before)")
    p.add_argument("--max-first-call", type=float, default=20.0,
                   help="skip (or time once) a workload whose first jaxc call takes longer (s)")
    p.add_argument("--mnist-samples", type=int, default=1280,
                   help="training samples per MNIST epoch (default 1280 = 10 steps; 60000: a full epoch)")
    p.add_argument("--mnist-full", action="store_true", help="full MNIST epochs (--mnist-samples 60000)")
    p.add_argument("--mnist-epochs", type=int, default=5,
                   help="MNIST epochs per implementation (the samples of its row; one was too noisy)")
    p.add_argument("--max-epoch", type=float, default=120.0,
                   help="skip jaxc's MNIST epochs when one step predicts an epoch longer than this (s)")
    p.add_argument("--loss-rtol", type=float, default=1e-3,
                   help="largest relative difference allowed between the MNIST (and digits) losses of jaxc and JAX")
    p.add_argument("--markdown", metavar="PATH", help="also write the table as markdown to PATH")
    p.add_argument("--png", metavar="PATH", help="also draw the jaxc/JAX ratios as a bar chart to PATH")
    args = p.parse_args(argv)
    args.argv = argv
    if args.threads is not None:
        if args.threads < 1:
            p.error("--threads must be at least 1")
        if os.environ.get("JAXC_BENCH_THREADS_APPLIED") != str(args.threads):
            # main() called without the module-level setup: the libraries are
            # already loaded, so start again with the environment set.
            apply_threads(args.threads)
            os.environ["JAXC_BENCH_THREADS_APPLIED"] = str(args.threads)
            os.execv(sys.executable, [sys.executable, os.path.abspath(__file__)] + argv)
    if args.mnist_full:
        args.mnist_samples = 60000
    if args.quick:
        args.budget = 0.05 if args.budget is None else args.budget
        args.min_rounds, args.max_rounds, args.warmup, args.sample_ms = 2, 2, 1, 0.5
        args.settle_ms = 0.0 if args.settle_ms is None else args.settle_ms
    else:
        args.settle_ms = 30.0 if args.settle_ms is None else args.settle_ms
        args.budget = 3.0 if args.budget is None else args.budget
        args.min_rounds, args.max_rounds, args.warmup, args.sample_ms = 3, 50, 2, 2.0

    args.load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if args.load > LOAD_WARNING:
        print(f"bench: warning: load average {args.load:.2f} before the run: other work competes for "
              "the cores, so the timings are noisy (see the table's header)", file=sys.stderr)
    ws = W.suite(args.quick, args.mnist_samples, args.mnist_epochs)
    if args.only:
        ws = [w for w in ws if any(o.lower() in w.name.lower() for o in args.only)]
    print(f"jaxc benchmarks{' (--quick: tiny shapes, not a measurement)' if args.quick else ''}")
    for line in header_lines(args):
        print("  " + line)
    sys.stdout.flush()

    warm_up_compilers(HAVE_JAX and not args.no_jax)
    rng = np.random.default_rng(0)
    results: dict[str, Result] = {}
    t_start = time.perf_counter()
    for w in ws:
        predict_sweep(ws, results)
        t0 = time.perf_counter()
        results[w.name] = r = run_workload(w, args, rng)
        if r.ran:
            print(f"  {w.name}: {time.perf_counter() - t0:.1f} s"
                  + (f"  [{r.note}]" if r.failed else ""), file=sys.stderr, flush=True)
    total_s = time.perf_counter() - t_start

    show_jax = HAVE_JAX and not args.no_jax
    ordered = [results[w.name] for w in ws]
    print()
    print(table([row(r, show_jax) for r in ordered], columns(show_jax)))
    d = dispatch_line(results)
    if d:
        print("\n" + d)
    print(f"total {total_s:.0f} s")
    if args.markdown:
        write_markdown(args.markdown, args, ordered, show_jax, total_s)
        print(f"wrote {args.markdown}")
    if args.png:
        why = write_png(args.png, args, ordered, show_jax)
        print(why or f"wrote {args.png}")
    failed = [r.name for r in ordered if r.failed]
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
