"""Numerics of `jaxc-to-linalg`: every op with a rule, run on the CPU through
`lowering_harness.run`, against NumPy references written independently of the
lowering (XLA / jax.lax semantics).

Each test case is one jaxc op applied to function arguments (never constants,
which the dialect's folders could evaluate instead of the lowering). To keep
compiles few, cases of one group become the results of one function, compiled
once; a group that fails to lower or compile is split in halves until the
failing cases are alone, so every case reports its own error.

The compiled code runs in a worker process: an LLVM assertion aborts the whole
process, and one crashing case must not take the test session with it. Cases
with i1 tensors first run a one-op probe; while i1 buffers crash the pipeline
they fail with the probe's message instead of crashing one by one.
"""
from __future__ import annotations

import atexit
import dataclasses
import math
import os
import pickle
import re
import select
import struct
import subprocess
import sys
import tempfile
from typing import Sequence

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I8, I16, I32, I64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
U8, U16, U32, U64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
BOOL = np.dtype(np.bool_)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)

FLOATS = (F32, F64, F16)
SIGNED = (I8, I32, I64)
UNSIGNED = (U8, U32)
INTS = SIGNED + UNSIGNED

_NAMES = {F16: "f16", F32: "f32", F64: "f64", I8: "i8", I16: "i16", I32: "i32", I64: "i64",
          U8: "ui8", U16: "ui16", U32: "ui32", U64: "ui64", BOOL: "i1", C64: "complex<f32>",
          C128: "complex<f64>"}

# (rtol, atol) for results of transcendental functions, by element type.
TOL = {F16: (2e-3, 1e-3), F32: (1e-5, 1e-6), F64: (1e-12, 1e-14), C64: (2e-5, 1e-6), C128: (1e-12, 1e-14)}


def el(dt) -> str:
    return _NAMES[np.dtype(dt)]


def tt(shape, dt) -> str:
    """MLIR tensor type: tt((2, 3), F32) == 'tensor<2x3xf32>'."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + el(dt) + ">"


def tta(a: np.ndarray) -> str:
    return tt(a.shape, a.dtype)


def ints(values, dt) -> np.ndarray:
    """Python ints wrapped (two's complement) into `dt`."""
    dt = np.dtype(dt)
    bits = dt.itemsize * 8
    out = []
    for v in values:
        v = int(v) & ((1 << bits) - 1)
        if dt.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=dt)


def width(dt) -> int:
    return np.dtype(dt).itemsize * 8


def imin(dt) -> int:
    return int(np.iinfo(dt).min)


def imax(dt) -> int:
    return int(np.iinfo(dt).max)


def fvals(dt, values) -> np.ndarray:
    return np.array(values, dtype=np.float64).astype(dt)


# --------------------------------------------------------------------------
# Cases and groups
# --------------------------------------------------------------------------

@dataclasses.dataclass
class Case:
    """One op on `args`. `body` uses $0, $1, ... for the arguments, $r for the
    result and $t for a prefix of temporaries."""

    id: str
    group: str
    args: list
    body: str
    expected: np.ndarray
    tol: tuple | None = None         # None: exact (NaN equals NaN)
    signed_zero: bool = False        # also compare the sign bit of every float
    bitwise: bool = False            # compare the bits (NaN payloads included)
    xfail: str | None = None         # reason, for limitations outside the rules
    result: str = "$r"               # the value returned (e.g. "$r#1" of a multi-result op)

    @property
    def uses_bool(self) -> bool:
        types = [tta(a) for a in self.args] + [tta(self.expected)]
        return any(t.endswith("i1>") for t in types) or "i1>" in self.body

    def param(self):
        marks = [pytest.mark.xfail(reason=self.xfail, strict=True)] if self.xfail else []
        return pytest.param(self, id=self.id, marks=marks)


ALL_CASES: list[Case] = []
_GROUPS: dict[str, list[Case]] = {}
_RESULTS: dict[str, tuple[str, object]] = {}


def add(case: Case) -> Case:
    assert all(c.id != case.id for c in ALL_CASES), case.id
    ALL_CASES.append(case)
    _GROUPS.setdefault(case.group, []).append(case)
    return case


def params(cases: Sequence[Case]):
    return [c.param() for c in cases]


def module_text(cases: Sequence[Case]) -> tuple[str, list, list]:
    """One function @main: the arguments of every case in order, one result each."""
    arg_decls, args, lines, results = [], [], [], []
    for k, case in enumerate(cases):
        names = {}
        for i, a in enumerate(case.args):
            names[str(i)] = f"%a{len(args)}"
            arg_decls.append(f"%a{len(args)}: {tta(a)}")
            args.append(np.array(a, copy=True))  # one buffer per case: no aliasing
        names["r"], names["t"] = f"%r{k}", f"%t{k}_"
        body = re.sub(r"\$(\d+|r|t)", lambda m: names[m.group(1)], case.body)
        lines.extend("  " + line.strip() for line in body.strip().splitlines())
        result = re.sub(r"\$(\d+|r|t)", lambda m: names[m.group(1)], case.result)
        results.append((result, tta(case.expected)))
    types = ", ".join(t for _, t in results)
    text = (f"func.func @main({', '.join(arg_decls)}) -> ({types}) {{\n" + "\n".join(lines)
            + f"\n  return {', '.join(n for n, _ in results)} : {types}\n}}\n")
    specs = [(c.expected.shape, c.expected.dtype) for c in cases]
    return text, args, specs


# --------------------------------------------------------------------------
# The worker process
# --------------------------------------------------------------------------

_WORKER_SOURCE = r"""
import os, pickle, struct, sys
reply_to = os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)  # stray prints must not corrupt the replies
sys.path.insert(0, sys.argv[1])
import lowering_harness
from jaxc.dialect import make_context
messages, handlers = [], []

def context_with_diagnostics():
    ctx = make_context()
    def handler(d):
        messages.append(f"{d.location}: {d.message}")
        return True
    handlers.append(ctx.attach_diagnostic_handler(handler))
    return ctx

lowering_harness.make_context = context_with_diagnostics
requests = sys.stdin.buffer
while True:
    header = requests.read(8)
    if len(header) < 8:
        break
    text, fn, args, specs = pickle.loads(requests.read(struct.unpack("<Q", header)[0]))
    messages.clear()
    try:
        reply = ("ok", (lowering_harness.run(text, fn, args, specs), args))
    except BaseException as error:  # report everything, keep serving
        reply = ("error", f"{type(error).__name__}: {error}" + "".join("\n    " + m for m in messages))
    handlers.clear()
    data = pickle.dumps(reply)
    reply_to.write(struct.pack("<Q", len(data)) + data)
    reply_to.flush()
"""


class CaseError(Exception):
    """The harness raised (lowering, pipeline or parse error)."""


class WorkerCrash(Exception):
    """The worker process died (an abort in LLVM/MLIR) or hung."""


class _Worker:
    TIMEOUT_S = 120

    def __init__(self):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER_SOURCE, HERE],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)

    def call(self, text, fn, args, specs):
        offset = self.stderr.seek(0, os.SEEK_END)
        data = pickle.dumps((text, fn, args, specs))
        try:
            self.proc.stdin.write(struct.pack("<Q", len(data)) + data)
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], self.TIMEOUT_S)
            header = self.proc.stdout.read(8) if ready else b""
            if len(header) == 8:
                status, payload = pickle.loads(self.proc.stdout.read(struct.unpack("<Q", header)[0]))
                if status != "ok":  # add what LLVM printed (e.g. unresolved JIT symbols)
                    self.stderr.seek(offset)
                    printed = self.stderr.read().decode(errors="replace").strip()[-1500:]
                    payload += f"\n  stderr: {printed}" if printed else ""
                return status, payload
        except (BrokenPipeError, OSError):
            pass
        self.proc.kill()
        code = self.proc.wait()
        self.stderr.seek(offset)
        tail = self.stderr.read().decode(errors="replace").strip()[-1500:]
        what = "timed out" if code == -9 else f"died (exit status {code})"
        raise WorkerCrash(f"the compile/run process {what}: {tail}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_worker: _Worker | None = None


def _call(text, fn, args, specs):
    global _worker
    if _worker is None:
        _worker = _Worker()
        atexit.register(_worker.close)
    try:
        status, payload = _worker.call(text, fn, args, specs)
    except WorkerCrash:
        _worker = None
        raise
    if status != "ok":
        raise CaseError(payload)
    return payload


def _run_cases(cases: Sequence[Case]) -> None:
    """Fill _RESULTS for `cases`, bisecting on failure."""
    text, args, specs = module_text(cases)
    try:
        outs, args_after = _call(text, "main", args, specs)
    except (CaseError, WorkerCrash) as error:
        if len(cases) == 1 or all(c.xfail for c in cases):
            for case in cases:
                _RESULTS[case.id] = ("error", f"{type(error).__name__}: {error}\n--- IR ---\n{text}")
            return
        half = len(cases) // 2
        _run_cases(cases[:half])
        _run_cases(cases[half:])
        return
    position = 0
    for case, out in zip(cases, outs):
        n = len(case.args)
        changed = [i for i, (before, after) in enumerate(zip(args[position:position + n],
                                                             args_after[position:position + n]))
                   if before.tobytes() != after.tobytes()]
        position += n
        _RESULTS[case.id] = ("ok", out, "" if not changed else (
            f"the function wrote into its argument(s) {changed}; inputs must stay unchanged.\n"
            f"  before: {[args[position - n + i] for i in changed]}\n"
            f"  after: {[args_after[position - n + i] for i in changed]}"))


_BOOL_PROBE: list[str] = []


def _bool_blocker() -> str:
    """'' if an i1 tensor can go through the pipeline, else why not."""
    if not _BOOL_PROBE:
        text = ("func.func @main(%b: tensor<3xi1>) -> tensor<3xi1> {\n"
                "  %r = jaxc.not %b : tensor<3xi1>\n  return %r : tensor<3xi1>\n}\n")
        try:
            out = _call(text, "main", [np.array([True, False, True])], [((3,), BOOL)])[0][0]
            _BOOL_PROBE.append("" if list(out) == [False, True, False]
                               else f"probe `jaxc.not [T, F, T]` gave {out}")
        except (CaseError, WorkerCrash) as error:
            _BOOL_PROBE.append(f"probe `jaxc.not` on tensor<3xi1> failed: {error}")
    return _BOOL_PROBE[0]


def result_of(case: Case):
    if case.id not in _RESULTS:
        group = [c for c in _GROUPS[case.group] if c.id not in _RESULTS]
        blocker = _bool_blocker() if any(c.uses_bool for c in group) else ""
        if blocker:
            for c in group:
                if c.uses_bool:
                    _RESULTS[c.id] = ("error", "not run: i1 tensors cannot go through the CPU "
                                               f"pipeline yet; {blocker}")
            group = [c for c in group if not c.uses_bool]
        if group:
            _run_cases(group)
    return _RESULTS[case.id]


def check(case: Case) -> None:
    status, got, *mutated = result_of(case)
    if status != "ok":
        pytest.fail(f"{case.id}: {got}", pytrace=False)
    exp = case.expected
    inputs = "; ".join(np.array2string(np.asarray(a), threshold=200) for a in case.args)
    msg = f"{case.id}\n  inputs: {inputs}"
    assert got.shape == exp.shape and got.dtype == exp.dtype, msg
    if case.tol is None:
        np.testing.assert_array_equal(got, exp, err_msg=msg, strict=True)
    else:
        np.testing.assert_allclose(got, exp, rtol=case.tol[0], atol=case.tol[1],
                                   equal_nan=True, err_msg=msg)
    if case.bitwise:
        as_bits = np.dtype(f"u{exp.dtype.itemsize}")
        np.testing.assert_array_equal(got.view(as_bits), exp.view(as_bits), err_msg=msg + "\n  (bits differ)")
    if case.signed_zero:
        np.testing.assert_array_equal(np.signbit(got), np.signbit(exp),
                                      err_msg=msg + "\n  (sign bits differ: -0.0 vs 0.0)")
    if mutated and mutated[0]:
        pytest.fail(f"{case.id}: right result, but {mutated[0]}", pytrace=False)


def with_errstate(fn):
    def wrapped(*a, **k):
        with np.errstate(all="ignore"):
            return fn(*a, **k)
    return wrapped


# --------------------------------------------------------------------------
# Unary elementwise
# --------------------------------------------------------------------------

FLOAT_VALUES = [-3.5, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 10.0,
                math.nan, math.inf, -math.inf]


def _round_away(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def _sign_ref(x):
    return np.where(np.isnan(x) | (x == 0), x, np.sign(x))


_erf = np.vectorize(math.erf, otypes=[np.float64])

# op -> (reference on float64, exact result?)
UNARY_FLOAT = {
    "neg": (np.negative, True), "abs": (np.abs, True), "sign": (_sign_ref, True),
    "exp": (np.exp, False), "exp2": (np.exp2, False), "expm1": (np.expm1, False),
    "log": (np.log, False), "log1p": (np.log1p, False),
    "sin": (np.sin, False), "cos": (np.cos, False), "tan": (np.tan, False),
    "asin": (np.arcsin, False), "acos": (np.arccos, False), "atan": (np.arctan, False),
    "sinh": (np.sinh, False), "cosh": (np.cosh, False), "tanh": (np.tanh, False),
    "asinh": (np.arcsinh, False), "acosh": (np.arccosh, False), "atanh": (np.arctanh, False),
    "logistic": (lambda x: 1 / (1 + np.exp(-x)), False),
    "sqrt": (np.sqrt, False), "rsqrt": (lambda x: 1 / np.sqrt(x), False), "cbrt": (np.cbrt, False),
    "floor": (np.floor, True), "ceil": (np.ceil, True), "erf": (_erf, False),
    "stop_gradient": (lambda x: x, True),
}

UNARY_CASES = []

@with_errstate
def _unary_float_cases():
    for dt in FLOATS:
        x = fvals(dt, FLOAT_VALUES)
        for op, (ref, exact) in UNARY_FLOAT.items():
            UNARY_CASES.append(add(Case(
                f"{op}-{el(dt)}", f"unary-{el(dt)}", [x],
                f"$r = jaxc.{op} $0 : {tta(x)}",
                ref(x.astype(np.float64)).astype(dt), None if exact else TOL[dt],
                signed_zero=exact)))
        for method, ref in (("", _round_away), (", away_from_zero", _round_away),
                            (", to_nearest_even", np.rint)):
            r = fvals(dt, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.3, -0.0, 3.7, -3.7,
                           1e4, math.nan, math.inf, -math.inf])
            name = method.strip(", ") or "default"
            UNARY_CASES.append(add(Case(
                f"round_{name}-{el(dt)}", f"unary-{el(dt)}", [r],
                f"$r = jaxc.round $0{method} : {tta(r)}", ref(r.astype(np.float64)).astype(dt),
                signed_zero=True)))
        UNARY_CASES.append(add(Case(
            f"is_finite-{el(dt)}", f"unary-bool-{el(dt)}", [x], f"$r = jaxc.is_finite $0 : {tta(x)}",
            np.isfinite(x))))
    # expm1/log1p where exp(x) - 1 and log(1 + x) lose every digit.
    for dt in (F32, F64):
        tiny = fvals(dt, [1e-8, -1e-8, 3e-10, 1e-5, -1e-5])
        for op, ref in (("expm1", np.expm1), ("log1p", np.log1p)):
            UNARY_CASES.append(add(Case(
                f"{op}_tiny-{el(dt)}", "unary-tiny", [tiny], f"$r = jaxc.{op} $0 : {tta(tiny)}",
                ref(tiny.astype(np.float64)).astype(dt), (TOL[dt][0], 0.0))))


def _clz(v, dt):
    return width(dt) - (int(v) & ((1 << width(dt)) - 1)).bit_length()


def _popcount(v, dt):
    return bin(int(v) & ((1 << width(dt)) - 1)).count("1")


def _int_values(dt):
    lo, hi = imin(dt), imax(dt)
    vals = [lo, lo + 1, -7, -1, 0, 1, 2, 7, 100, hi - 1, hi]
    return np.array(list(dict.fromkeys(v for v in vals if lo <= v <= hi)), dtype=dt)


@with_errstate
def _unary_int_cases():
    for dt in INTS:
        x = _int_values(dt)
        refs = {
            "neg": ints([-int(v) for v in x], dt),
            "abs": ints([abs(int(v)) for v in x], dt),
            "sign": ints([(v > 0) - (v < 0) for v in map(int, x)], dt),
            "not": ints([~int(v) for v in x], dt),
            "population_count": ints([_popcount(v, dt) for v in x], dt),
            "clz": ints([_clz(v, dt) for v in x], dt),
            "stop_gradient": x.copy(),
        }
        for op, exp in refs.items():
            UNARY_CASES.append(add(Case(f"{op}-{el(dt)}", f"unary-{el(dt)}", [x],
                                        f"$r = jaxc.{op} $0 : {tta(x)}", exp)))
    b = np.array([True, False])
    for op, exp in (("not", ~b), ("stop_gradient", b)):
        UNARY_CASES.append(add(Case(f"{op}-i1", "bool-ops", [b], f"$r = jaxc.{op} $0 : {tta(b)}", exp)))


_unary_float_cases()
_unary_int_cases()


def _identity_cases():
    """checkpoint_name, pvary and optimization_barrier: the values as they
    are (the barrier's copy included; pvary only types a shard_map value)."""
    for dt in (F32, I32):
        x = fvals(dt, [1.5, -2.0, 0.0, 7.25]) if dt == F32 else np.array([3, -4, 0, 9], dt)
        UNARY_CASES.append(add(Case(f"checkpoint_name-{el(dt)}", f"unary-{el(dt)}", [x],
                                    f'$r = jaxc.checkpoint_name $0 name = "h" : {tta(x)}', x.copy())))
        UNARY_CASES.append(add(Case(f"pvary-{el(dt)}", f"unary-{el(dt)}", [x],
                                    f'$r = jaxc.pvary $0, axes = ["i"] : {tta(x)}', x.copy())))
        UNARY_CASES.append(add(Case(f"optimization_barrier-{el(dt)}", f"unary-{el(dt)}", [x],
                                    f"$r = jaxc.optimization_barrier $0 : {tta(x)}", x.copy())))


_identity_cases()


@pytest.mark.parametrize("case", params(UNARY_CASES))
def test_unary(case):
    check(case)


# --------------------------------------------------------------------------
# Binary elementwise
# --------------------------------------------------------------------------

def pairs(values, dt):
    a, b = np.meshgrid(np.array(values), np.array(values), indexing="ij")
    return a.ravel().astype(dt), b.ravel().astype(dt)


BINARY_FLOAT = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "rem": np.fmod,
    "pow": np.power, "max": np.maximum, "min": np.minimum, "atan2": np.arctan2,
}
BINARY_FLOAT_VALUES = [-2.5, -1.0, -0.0, 0.0, 0.5, 3.0, math.inf, -math.inf, math.nan]


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _signed(v: int, dt) -> int:
    """The two's-complement reading of v's bits in dt's width."""
    w = width(dt)
    v &= (1 << w) - 1
    return v - (1 << w) if v >= 1 << (w - 1) else v


INT_BINARY = {
    "add": lambda a, b, dt: a + b,
    "sub": lambda a, b, dt: a - b,
    "mul": lambda a, b, dt: a * b,
    "div": lambda a, b, dt: -1 if b == 0 else _trunc_div(a, b),
    "rem": lambda a, b, dt: a if b == 0 else a - b * _trunc_div(a, b),
    "max": lambda a, b, dt: max(a, b),
    "min": lambda a, b, dt: min(a, b),
    "and": lambda a, b, dt: a & b,
    "or": lambda a, b, dt: a | b,
    "xor": lambda a, b, dt: a ^ b,
}


def _shift_amount(b, dt):
    return int(b) & ((1 << width(dt)) - 1)  # read as unsigned


INT_SHIFTS = {
    "shift_left": lambda a, b, dt: 0 if _shift_amount(b, dt) >= width(dt) else a << _shift_amount(b, dt),
    "shift_right_logical": lambda a, b, dt: 0 if _shift_amount(b, dt) >= width(dt)
    else (a & ((1 << width(dt)) - 1)) >> _shift_amount(b, dt),
    "shift_right_arithmetic": lambda a, b, dt: _signed(a, dt) >> min(_shift_amount(b, dt), width(dt) - 1),
}

BINARY_CASES = []


@with_errstate
def _binary_cases():
    for dt in FLOATS:
        a, b = pairs(BINARY_FLOAT_VALUES, dt)
        for op, ref in BINARY_FLOAT.items():
            BINARY_CASES.append(add(Case(
                f"{op}-{el(dt)}", f"binary-{el(dt)}", [a, b], f"$r = jaxc.{op} $0, $1 : {tta(a)}",
                ref(a.astype(np.float64), b.astype(np.float64)).astype(dt), TOL[dt])))
    for dt in INTS:
        a, b = pairs(_int_values(dt), dt)
        for op, ref in INT_BINARY.items():
            BINARY_CASES.append(add(Case(
                f"{op}-{el(dt)}", f"binary-{el(dt)}", [a, b], f"$r = jaxc.{op} $0, $1 : {tta(a)}",
                ints([ref(int(x), int(y), dt) for x, y in zip(a, b)], dt))))
        w = width(dt)
        lhs = _int_values(dt)
        amounts = ints([0, 1, 3, w - 1, w, w + 1, 2 * w, -1, imin(I64) if w == 64 else -w], dt)
        sa, sb = (m.ravel() for m in np.meshgrid(lhs, amounts, indexing="ij"))
        for op, ref in INT_SHIFTS.items():
            BINARY_CASES.append(add(Case(
                f"{op}-{el(dt)}", f"binary-{el(dt)}", [sa, sb], f"$r = jaxc.{op} $0, $1 : {tta(sa)}",
                ints([ref(int(x), int(y), dt) for x, y in zip(sa, sb)], dt))))
        # Integer pow (lax.pow / integer_pow), non-negative exponents: wraps.
        base = np.array([v for v in (-3, -1, 0, 1, 2, 5, 11) if imin(dt) <= v], dtype=dt)
        pa, pb = (m.ravel() for m in np.meshgrid(base, np.array([0, 1, 2, 3, 7], dt), indexing="ij"))
        BINARY_CASES.append(add(Case(
            f"pow-{el(dt)}", "binary-int-pow", [pa, pb], f"$r = jaxc.pow $0, $1 : {tta(pa)}",
            ints([int(x) ** int(y) for x, y in zip(pa, pb)], dt))))
    a, b = (m.ravel() for m in np.meshgrid([False, True], [False, True], indexing="ij"))
    for op, ref in (("add", np.logical_or), ("mul", np.logical_and), ("max", np.logical_or),
                    ("min", np.logical_and), ("and", np.logical_and), ("or", np.logical_or),
                    ("xor", np.logical_xor)):
        BINARY_CASES.append(add(Case(f"{op}-i1", "bool-ops", [a, b],
                                     f"$r = jaxc.{op} $0, $1 : {tta(a)}", ref(a, b))))


_binary_cases()


@pytest.mark.parametrize("case", params(BINARY_CASES))
def test_binary(case):
    check(case)


# --------------------------------------------------------------------------
# Elementwise ops on 0-d, 2-d and zero-size tensors
# --------------------------------------------------------------------------

SHAPE_CASES = []


@with_errstate
def _shape_variant_cases():
    rng = np.random.default_rng(0)
    for shape in ((), (2, 3), (0, 3), (1, 1, 2)):
        sid = "x".join(map(str, shape)) or "0d"
        x = rng.uniform(-3, 3, shape).astype(F32)
        y = rng.uniform(-3, 3, shape).astype(F32)
        i = rng.integers(-100, 100, shape).astype(I32)
        j = rng.integers(-2, 3, shape).astype(I32)  # zeros included
        u = rng.integers(0, 256, shape).astype(U8)
        v = rng.integers(0, 256, shape).astype(U8)
        g = f"shapes-{sid}"
        SHAPE_CASES.extend(add(c) for c in (
            Case(f"exp-f32-{sid}", g, [x], f"$r = jaxc.exp $0 : {tta(x)}", np.exp(x), TOL[F32]),
            Case(f"add-f32-{sid}", g, [x, y], f"$r = jaxc.add $0, $1 : {tta(x)}", x + y, TOL[F32]),
            Case(f"sign-f64-{sid}", g, [x.astype(F64)], f"$r = jaxc.sign $0 : {tt(shape, F64)}",
                 np.sign(x).astype(F64)),
            Case(f"neg-i32-{sid}", g, [i], f"$r = jaxc.neg $0 : {tta(i)}", -i),
            Case(f"div-i32-{sid}", g, [i, j], f"$r = jaxc.div $0, $1 : {tta(i)}",
                 ints([-1 if b == 0 else _trunc_div(int(a), int(b)) for a, b in zip(i.ravel(), j.ravel())],
                      I32).reshape(shape)),
            Case(f"max-ui8-{sid}", g, [u, v], f"$r = jaxc.max $0, $1 : {tta(u)}", np.maximum(u, v)),
            Case(f"convert-f32-i32-{sid}", g, [x], f"$r = jaxc.convert $0 : {tta(x)} -> {tt(shape, I32)}",
                 np.trunc(x).astype(I32)),
        ))


_shape_variant_cases()


@pytest.mark.parametrize("case", params(SHAPE_CASES))
def test_elementwise_shapes(case):
    check(case)


# --------------------------------------------------------------------------
# compare, select, clamp
# --------------------------------------------------------------------------

COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
COMPARE_CASES = []


@with_errstate
def _compare_cases():
    for dt in FLOATS + INTS + (BOOL,):
        if dt.kind == "f":
            a, b = pairs([-1.0, -0.0, 0.0, 2.0, math.inf, -math.inf, math.nan], dt)
        elif dt == BOOL:
            a, b = pairs([False, True], dt)
        else:  # unsigned values above the signed range: 128/255 for ui8
            a, b = pairs(_int_values(dt)[[0, 3, 4, 5, -1]], dt)
        for direction, ref in COMPARE.items():
            COMPARE_CASES.append(add(Case(
                f"compare_{direction}-{el(dt)}", f"compare-{el(dt)}", [a, b],
                f"$r = jaxc.compare {direction}, $0, $1 : {tta(a)}", ref(a, b))))


def _select_cases():
    rng = np.random.default_rng(1)
    for dt in (F32, I32, U8, BOOL):
        for shape in ((), (2, 3), (0, 3)):
            for pred_shape in dict.fromkeys([(), shape]):
                sid = f"{'x'.join(map(str, shape)) or '0d'}-pred{'x'.join(map(str, pred_shape)) or '0d'}"
                p = rng.integers(0, 2, pred_shape).astype(BOOL)
                x = rng.integers(0, 100, shape).astype(dt)
                y = rng.integers(100, 200, shape).astype(dt)
                if dt == BOOL:
                    x, y = (rng.integers(0, 2, shape).astype(BOOL) for _ in range(2))
                COMPARE_CASES.append(add(Case(
                    f"select-{el(dt)}-{sid}", "select", [p, x, y],
                    f"$r = jaxc.select $0, $1, $2 : {tta(p)}, {tta(x)}", np.where(p, x, y))))


@with_errstate
def _clamp_cases():
    for dt in FLOATS + INTS:
        if dt.kind == "f":
            x = fvals(dt, [-5.0, -1.0, -0.5, 0.0, 0.5, 1.0, 5.0, math.nan, math.inf, -math.inf])
            bounds = [(-1.0, 1.0), (0.5, -0.5), (math.nan, 1.0)]
        else:
            x = _int_values(dt)
            bounds = [(-7, 100), (100, 0), (0, imax(dt))] if dt.kind == "i" else \
                [(1, 100), (imax(dt) - 1, 2), (0, imax(dt))]
        for k, (lo, hi) in enumerate(bounds):
            lo0, hi0 = np.array(lo, dtype=dt), np.array(hi, dtype=dt)
            ref = np.minimum(np.maximum(x, lo0), hi0)
            COMPARE_CASES.append(add(Case(
                f"clamp-{el(dt)}-0d_bounds{k}", f"clamp-{el(dt)}", [lo0, x, hi0],
                f"$r = jaxc.clamp $0, $1, $2 : {tta(lo0)}, {tta(x)}, {tta(hi0)}", ref)))
        # Full-shape bounds: a different bound per element.
        lo_full = np.roll(x, 1)
        hi_full = np.roll(x, 3)
        COMPARE_CASES.append(add(Case(
            f"clamp-{el(dt)}-full_bounds", f"clamp-{el(dt)}", [lo_full, x, hi_full],
            f"$r = jaxc.clamp $0, $1, $2 : {tta(x)}, {tta(x)}, {tta(x)}",
            np.minimum(np.maximum(x, lo_full), hi_full))))
        # 0-d operand and bounds
        s = x[1:2].reshape(())
        COMPARE_CASES.append(add(Case(
            f"clamp-{el(dt)}-0d", f"clamp-{el(dt)}", [x[0:1].reshape(()), s, x[-1:].reshape(())],
            f"$r = jaxc.clamp $0, $1, $2 : {tta(s)}, {tta(s)}, {tta(s)}",
            np.minimum(np.maximum(s, x[0]), x[-1]))))


_compare_cases()
_select_cases()
_clamp_cases()


@pytest.mark.parametrize("case", params(COMPARE_CASES))
def test_compare_select_clamp(case):
    check(case)


# --------------------------------------------------------------------------
# convert, bitcast_convert, constant, iota
# --------------------------------------------------------------------------

CONVERT_TYPES = (F16, F32, F64, I8, I32, I64, U8, U32, BOOL)
CONVERT_SOURCE_FLOATS = [math.nan, math.inf, -math.inf, -0.0, 0.0, 0.4, -0.6, 1.5, -1.5, 2.5,
                         127.5, 128.0, -128.9, -129.0, 255.9, 256.0, 65504.0, 70000.0,
                         2147483520.0, 2147483647.5, -2147483648.9, 3e9, -3e9, 4294967295.5,
                         9.3e18, -9.3e18, 2e19, 1e20, -1e20]
CONVERT_SOURCE_INTS = [-(2 ** 63), -(2 ** 31), -129, -128, -1, 0, 1, 2, 127, 128, 255, 256,
                       2049, 65504, 70000, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 63 - 1]


def _convert_ref(x: np.ndarray, dst) -> np.ndarray:
    """XLA convert: float->int truncates and saturates, NaN -> 0; ->bool is x != 0."""
    dst = np.dtype(dst)
    if dst == BOOL:
        return x != 0
    if x.dtype.kind == "f" and dst.kind in "iu":
        out = []
        for v in x.astype(np.float64):
            if math.isnan(v):
                out.append(0)
            elif math.isinf(v):
                out.append(imax(dst) if v > 0 else imin(dst))
            else:
                out.append(min(max(math.trunc(v), imin(dst)), imax(dst)))
        return np.array(out, dtype=dst)
    if x.dtype.kind in "iub" and dst.kind in "iu":
        return ints([int(v) for v in x], dst)
    return x.astype(dst)  # float->float, int->float: round to nearest


CONVERT_CASES = []


@with_errstate
def _convert_cases():
    for src in CONVERT_TYPES:
        if src.kind == "f":
            x = fvals(src, CONVERT_SOURCE_FLOATS)
        elif src == BOOL:
            x = np.array([False, True])
        else:
            x = np.array([v for v in CONVERT_SOURCE_INTS if imin(src) <= v <= imax(src)], dtype=src)
        for dst in CONVERT_TYPES:
            if dst != src:
                CONVERT_CASES.append(add(Case(
                    f"convert-{el(src)}-{el(dst)}", f"convert-{el(src)}", [x],
                    f"$r = jaxc.convert $0 : {tta(x)} -> {tt(x.shape, dst)}", _convert_ref(x, dst),
                    signed_zero=src.kind == "f" and dst.kind == "f")))
    bits32 = np.array([0, 1, 0x7F800000, 0xFF800000, 0x7FC00001, 0x80000000, 0x3F800000, 0xFFFFFFFF],
                      dtype=U32)
    sources = {U32: bits32, I32: bits32.view(I32), F32: bits32.view(F32),
               I64: np.array([0, -1, 0x7FF0000000000001, 2 ** 63 - 1, -(2 ** 63)], dtype=I64),
               I8: np.array([0, -1, -128, 127, 5], dtype=I8),
               I16: np.array([0, -1, 0x7C00, 0x7E01, -32768, 0x3C00], dtype=I16)}
    sources[F64] = sources[I64].view(F64)
    sources[U8] = sources[I8].view(U8)
    sources[F16] = sources[I16].view(F16)
    for src, dst in ((F32, I32), (I32, F32), (F32, U32), (U32, F32), (I32, U32), (U32, I32),
                     (F64, I64), (I64, F64), (F16, I16), (I16, F16), (I8, U8), (U8, I8)):
        x = sources[src]
        CONVERT_CASES.append(add(Case(
            f"bitcast_convert-{el(src)}-{el(dst)}", "bitcast", [x],
            f"$r = jaxc.bitcast_convert $0 : {tta(x)} -> {tt(x.shape, dst)}", x.view(dst), bitwise=True)))


def _constant_cases():
    for text, expected in (
            ("dense<[1.5, -0.0, 0x7F800000, 3.0]> : tensor<4xf32>", np.array([1.5, -0.0, np.inf, 3.0], F32)),
            ("dense<2.5> : tensor<2x2xf16>", np.full((2, 2), 2.5, F16)),
            ("dense<[[1, -2], [3, -9223372036854775808]]> : tensor<2x2xi64>",
             np.array([[1, -2], [3, -(2 ** 63)]], I64)),
            ("dense<[0, 128, 255]> : tensor<3xui8>", np.array([0, 128, 255], U8)),
            ("dense<255> : tensor<2xui8>", np.array([255, 255], U8)),
            ("dense<[4294967295, 2147483648]> : tensor<2xui32>", np.array([2 ** 32 - 1, 2 ** 31], U32)),
            ("dense<4294967295> : tensor<ui32>", np.array(2 ** 32 - 1, U32)),
            ("dense<[true, false]> : tensor<2xi1>", np.array([True, False])),
            ("dense<> : tensor<0x3xf32>", np.zeros((0, 3), F32))):
        name = re.search(r": (tensor<.*>)", text).group(1)
        CONVERT_CASES.append(add(Case(
            f"constant-{name}", "constant", [], f"$r = jaxc.constant {text}", expected,
            signed_zero=expected.dtype.kind == "f")))


def _iota_cases():
    for dt in (F32, F16, F64, I8, I32, I64, U8, U32):
        for shape in ((5,), (2, 3), (2, 3, 4), (0, 3)):
            for dim in range(len(shape)):
                idx = np.indices(shape)[dim] if shape else np.zeros(())
                CONVERT_CASES.append(add(Case(
                    f"iota-{el(dt)}-{'x'.join(map(str, shape))}-dim{dim}", "iota", [],
                    f"$r = jaxc.iota dim = {dim} : {tt(shape, dt)}",
                    idx.astype(dt) if dt.kind == "f" else ints(idx.ravel(), dt).reshape(shape))))
    # Values past the element type's range wrap (integers) or round (floats).
    for dt in (U8, I8, F16):
        n = 300 if dt != F16 else 2100
        exp = np.arange(n).astype(dt) if dt == F16 else ints(range(n), dt)
        CONVERT_CASES.append(add(Case(f"iota-{el(dt)}-{n}", "iota", [],
                                      f"$r = jaxc.iota dim = 0 : {tt((n,), dt)}", exp)))


_convert_cases()
_constant_cases()
_iota_cases()


@pytest.mark.parametrize("case", params(CONVERT_CASES))
def test_convert_constant_iota(case):
    check(case)


# --------------------------------------------------------------------------
# Shape ops
# --------------------------------------------------------------------------

def broadcast_ref(x, out_shape, dims):
    order = list(np.argsort(dims))
    xt = np.transpose(x, order) if x.ndim else x
    shape = [1] * len(out_shape)
    for i, d in enumerate(sorted(dims)):
        shape[d] = xt.shape[i]
    return np.broadcast_to(xt.reshape(shape), out_shape).copy()


def pad_ref(x, v, low, high, interior):
    """lax.pad: interior padding, then edge padding (negative edges crop)."""
    out = x
    for d, (lo, hi, it) in enumerate(zip(low, high, interior)):
        n = out.shape[d]
        size = n + max(n - 1, 0) * it
        shape = list(out.shape)
        shape[d] = size
        dilated = np.full(shape, v, out.dtype)
        index = [slice(None)] * out.ndim
        index[d] = slice(0, size, it + 1)
        dilated[tuple(index)] = out
        widths = [(0, 0)] * out.ndim
        widths[d] = (max(lo, 0), max(hi, 0))
        dilated = np.pad(dilated, widths, constant_values=v)
        index[d] = slice(max(-lo, 0), dilated.shape[d] - max(-hi, 0))
        out = dilated[tuple(index)]
    return out


def clamp_start(start: int, dim: int, size: int) -> int:
    return min(max(start, 0), dim - size)


SHAPE_OP_CASES = []


def _shape_op_cases():
    rng = np.random.default_rng(2)

    def arr(shape, dt=F32):
        if np.dtype(dt).kind == "f":
            return (rng.integers(-50, 50, shape) / 4).astype(dt)
        return rng.integers(0 if np.dtype(dt).kind == "u" else -100, 100, shape).astype(dt)

    def case(cid, group, args, body, exp):
        SHAPE_OP_CASES.append(add(Case(cid, group, args, body, exp)))

    # broadcast_in_dim
    for k, (shape, out, dims, dt) in enumerate((
            ((3,), (2, 3), [1], F32), ((3,), (3, 2), [0], F32), ((1, 3), (4, 3), [0, 1], F32),
            ((), (2, 3), [], F32), ((3, 1), (2, 3, 4), [1, 2], U8), ((2, 3), (2, 5, 3), [0, 2], F32),
            ((1,), (1,), [0], I64), ((0, 1), (0, 3), [0, 1], F32), ((1, 1), (2, 1, 3), [1, 2], I8))):
        x = arr(shape, dt)
        case(f"broadcast_in_dim-{k}-{tta(x)}-{tt(out, dt)}-dims{dims}", "shape-broadcast", [x],
             f"$r = jaxc.broadcast_in_dim $0, dims = {dims} : ({tta(x)}) -> {tt(out, dt)}",
             broadcast_ref(x, out, dims))
    # reshape, squeeze, expand_dims
    for shape, out, dt in (((2, 3), (3, 2), F32), ((6,), (2, 3), F32), ((2, 3), (6,), U32),
                           ((), (1, 1), F32), ((1, 1), (), I32), ((0, 3), (3, 0), F32),
                           ((2, 2, 2), (8,), I64), ((4,), (4,), U8)):
        x = arr(shape, dt)
        case(f"reshape-{tta(x)}-{tt(out, dt)}", "shape-reshape", [x],
             f"$r = jaxc.reshape $0 : ({tta(x)}) -> {tt(out, dt)}", x.reshape(out))
    for shape, dims, dt in (((1, 3, 1), [0, 2], F32), ((1, 1), [0, 1], U8), ((2, 1, 3), [1], F64),
                            ((1, 0), [0], F32)):
        x = arr(shape, dt)
        exp = np.squeeze(x, tuple(dims))
        case(f"squeeze-{tta(x)}-dims{dims}", "shape-reshape", [x],
             f"$r = jaxc.squeeze $0, dims = {dims} : {tta(x)} -> {tta(exp)}", exp)
    for shape, dims, dt in (((3,), [0, 2], F32), ((), [0], I32), ((2, 3), [1], U8), ((0,), [1], F32)):
        x = arr(shape, dt)
        exp = np.expand_dims(x, tuple(dims))
        case(f"expand_dims-{tta(x)}-dims{dims}", "shape-reshape", [x],
             f"$r = jaxc.expand_dims $0, dims = {dims} : {tta(x)} -> {tta(exp)}", exp)
    # transpose, reverse
    for shape, perm, dt in (((2, 3, 4), [2, 0, 1], F32), ((2, 3, 4), [1, 2, 0], I64),
                            ((2, 3, 4), [0, 2, 1], U8), ((0, 3, 2), [2, 0, 1], F32), ((3, 2), [1, 0], F16)):
        x = arr(shape, dt)
        exp = np.transpose(x, perm)
        case(f"transpose-{tta(x)}-perm{perm}", "shape-transpose", [x],
             f"$r = jaxc.transpose $0, perm = {perm} : {tta(x)} -> {tta(exp)}", exp)
    for shape, dims, dt in (((5,), [0], F32), ((2, 3), [0], I32), ((2, 3), [1], U8), ((2, 3), [0, 1], F32),
                            ((2, 3, 4), [0, 2], F64), ((0, 3), [0, 1], F32), ((2, 3), [], F32)):
        x = arr(shape, dt)
        case(f"reverse-{tta(x)}-dims{dims}", "shape-transpose", [x],
             f"$r = jaxc.reverse $0, dims = {dims} : {tta(x)}", np.flip(x, tuple(dims)))
    # slice
    for shape, start, limit, strides, dt in (
            ((10,), [1], [8], [3], F32), ((10,), [0], [10], [4], I32), ((4, 6), [0, 1], [4, 6], [2, 2], F32),
            ((4, 6), [1, 5], [3, 6], [1, 1], U8), ((5,), [2], [2], [1], F32), ((0, 3), [0, 1], [0, 3], [1, 2], F32),
            ((3, 4, 5), [1, 0, 1], [3, 4, 5], [1, 3, 2], I64)):
        x = arr(shape, dt)
        exp = x[tuple(slice(s, l, st) for s, l, st in zip(start, limit, strides))]
        case(f"slice-{tta(x)}-{start}-{limit}-{strides}", "shape-slice", [x],
             f"$r = jaxc.slice $0, start = {start}, limit = {limit}, strides = {strides} : {tta(x)} -> {tta(exp)}",
             exp)
    # dynamic_slice / dynamic_update_slice: starts clamped into [0, dim - size]
    x = arr((5, 6))
    upd = arr((2, 3)) + 100
    for it, starts in ((I32, (1, 2)), (I32, (10, 10)), (I32, (-1, -5)), (I32, (3, 4)), (I8, (-128, 127)),
                       (I64, (-(2 ** 63), 2 ** 63 - 1)), (U8, (255, 1)), (U32, (2 ** 32 - 1, 0)),
                       (U64, (2 ** 63 + 5, 2)), (I16, (2, -1))):
        idx = [np.array(s, dtype=it) for s in starts]
        ds = [clamp_start(s, d, n) for s, d, n in zip(starts, x.shape, (2, 3))]
        sid = f"{el(it)}{list(starts)}"
        case(f"dynamic_slice-{sid}", "shape-dynamic", [x, *idx],
             f"$r = jaxc.dynamic_slice $0[$1, $2], sizes = [2, 3] : "
             f"({tta(x)}, {tta(idx[0])}, {tta(idx[1])}) -> {tt((2, 3), F32)}",
             x[ds[0]:ds[0] + 2, ds[1]:ds[1] + 3])
        exp = x.copy()
        exp[ds[0]:ds[0] + 2, ds[1]:ds[1] + 3] = upd
        case(f"dynamic_update_slice-{sid}", "shape-dynamic", [x, upd, *idx],
             f"$r = jaxc.dynamic_update_slice $0, $1[$2, $3] : "
             f"({tta(x)}, {tta(upd)}, {tta(idx[0])}, {tta(idx[1])}) -> {tta(x)}", exp)
    u = arr((7,), U8)
    j = np.array(200, dtype=U8)
    case("dynamic_slice-ui8-operand-1d", "shape-dynamic", [u, j],
         f"$r = jaxc.dynamic_slice $0[$1], sizes = [3] : ({tta(u)}, {tta(j)}) -> {tt((3,), U8)}", u[4:7])
    w = arr((3,), U8)
    exp = u.copy()
    exp[4:7] = w
    case("dynamic_update_slice-ui8-operand-1d", "shape-dynamic", [u, w, j],
         f"$r = jaxc.dynamic_update_slice $0, $1[$2] : ({tta(u)}, {tta(w)}, {tta(j)}) -> {tta(u)}", exp)
    # concatenate of three inputs
    for shapes, dim, dt in ((((1, 3), (2, 3), (0, 3)), 0, F32), (((2, 1), (2, 3), (2, 2)), 1, U8),
                            (((2,), (1,), (3,)), 0, I64), (((2, 2, 1), (2, 2, 2), (2, 2, 1)), 2, F16)):
        xs = [arr(s, dt) for s in shapes]
        exp = np.concatenate(xs, dim)
        case(f"concatenate-{'-'.join(tta(a) for a in xs)}-dim{dim}", "shape-concatenate", xs,
             f"$r = jaxc.concatenate($0, $1, $2), dim = {dim} : ({', '.join(tta(a) for a in xs)}) -> {tta(exp)}",
             exp)
    # pad
    for shape, low, high, interior, dt, value in (
            ((3,), [2], [1], [1], F32, -1.0), ((3,), [-1], [-2], [2], F32, math.nan),
            ((3,), [0], [0], [0], I32, 7), ((2, 3), [1, -1], [-1, 2], [0, 1], F32, 9.5),
            ((2, 3), [-1, -2], [0, 0], [2, 1], U8, 255), ((0, 3), [1, 0], [2, -1], [3, 0], F32, 4.0),
            ((1, 4), [0, -3], [0, -1], [5, 0], I64, -1), ((4,), [-2], [3], [0], F64, 0.5),
            ((3,), [-4], [0], [1], F32, 2.0)):
        x = arr(shape, dt)
        v = np.array(value, dtype=dt)
        exp = pad_ref(x, v, low, high, interior)
        case(f"pad-{tta(x)}-low{low}-high{high}-interior{interior}", "shape-pad", [x, v],
             f"$r = jaxc.pad $0, $1, low = {low}, high = {high}, interior = {interior} : "
             f"({tta(x)}, {tta(v)}) -> {tta(exp)}", exp)
    # i1 data through shape ops
    b = rng.integers(0, 2, (2, 3)).astype(BOOL)
    case("transpose-i1", "shape-bool", [b], f"$r = jaxc.transpose $0, perm = [1, 0] : {tta(b)} -> {tt((3, 2), BOOL)}",
         b.T.copy())
    case("broadcast_in_dim-i1", "shape-bool", [b],
         f"$r = jaxc.broadcast_in_dim $0, dims = [1, 2] : ({tta(b)}) -> {tt((2, 2, 3), BOOL)}",
         np.broadcast_to(b, (2, 2, 3)).copy())


_shape_op_cases()


@pytest.mark.parametrize("case", params(SHAPE_OP_CASES))
def test_shape_ops(case):
    check(case)


# --------------------------------------------------------------------------
# reduce, argmax/argmin
# --------------------------------------------------------------------------

def reduce_ref(kind: str, x: np.ndarray, dims) -> np.ndarray:
    axis = tuple(dims)
    dt = x.dtype
    if dt == BOOL:
        fn = {"sum": np.any, "max": np.any, "or": np.any, "prod": np.all, "min": np.all, "and": np.all}[kind]
        return np.asarray(fn(x, axis=axis))
    if kind == "sum":
        return np.asarray(np.sum(x, axis=axis, dtype=dt))
    if kind == "prod":
        return np.asarray(np.prod(x, axis=axis, dtype=dt))
    if kind in ("max", "min"):
        lowest = -np.inf if dt.kind == "f" else imin(dt)
        highest = np.inf if dt.kind == "f" else imax(dt)
        fn = np.max if kind == "max" else np.min
        return np.asarray(fn(x, axis=axis, initial=lowest if kind == "max" else highest)).astype(dt)
    ufunc = np.bitwise_and if kind == "and" else np.bitwise_or
    identity = np.array(-1).astype(dt) if kind == "and" else np.array(0, dt)
    return np.asarray(ufunc.reduce(x, axis=axis, initial=identity, dtype=dt))


def _reduce_data(kind, dt, shape, rng):
    if dt == BOOL:
        return rng.integers(0, 2, shape).astype(BOOL)
    if dt.kind == "f":
        if kind == "prod":
            return rng.choice([-1.0, 0.5, 1.0, 2.0], shape).astype(dt)
        x = (rng.integers(-8, 8, shape) / 4).astype(dt)
        if kind in ("max", "min") and x.size >= 24:
            x.flat[6], x.flat[12], x.flat[23] = np.nan, np.inf, -np.inf
        return x
    x = rng.integers(imin(dt), imax(dt), shape, dtype=dt, endpoint=True)
    if x.size >= 24:
        x.flat[0], x.flat[23] = imin(dt), imax(dt)
    return x


REDUCE_CASES = []


def _reduce_cases():
    rng = np.random.default_rng(3)
    for dt in FLOATS + INTS + (BOOL,):
        kinds = ["sum", "prod", "max", "min"] + (["and", "or"] if dt.kind in "iub" else [])
        full = dt in (F32, I32, U8)
        variants = [((2, 3, 4), [1]), ((2, 3, 4), [0, 1, 2])]
        if full:
            variants += [((2, 3, 4), [0, 2]), ((2, 3, 4), []), ((0, 3), [0]), ((0, 3), [1]), ((), []),
                         ((5,), [0])]
        for kind in kinds:
            for shape, dims in variants:
                x = _reduce_data(kind, dt, shape, rng)
                exp = reduce_ref(kind, x, dims)
                tol = None if dt.kind != "f" else (2e-3 if dt == F16 else 1e-6, 0.0)
                REDUCE_CASES.append(add(Case(
                    f"reduce_{kind}-{tta(x)}-dims{dims}", f"reduce-{el(dt)}", [x],
                    f"$r = jaxc.reduce {kind} $0, dims = {dims} : {tta(x)} -> {tta(exp)}", exp, tol)))
    # argmax / argmin: first index; NaN counts as the extreme; ties.
    f = np.array([[1.0, 3.0, 3.0, 2.0], [np.nan, 5.0, np.nan, 1.0], [-np.inf, -np.inf, 0.0, np.nan],
                  [2.0, 2.0, 2.0, 2.0], [-0.0, 0.0, -1.0, -1.0]])
    data = [f.astype(F32), f.astype(F64), f.astype(F16),
            np.array([[-128, 5, -128, 127], [127, 127, 0, -1], [3, 3, 3, 3]], I8),
            np.array([[255, 0, 255, 7], [0, 0, 128, 1], [9, 9, 9, 9]], U8),
            np.array([[imin(I64), imax(I64), imax(I64), 0]], I64),
            np.array([[0, 2 ** 32 - 1, 2 ** 31, 2 ** 32 - 1]], U32),
            np.array([[True, False, True], [False, False, False]])]
    for x in data:
        for op, ref in (("argmax", np.argmax), ("argmin", np.argmin)):
            for axis, idt in ((0, I32), (1, I64), (1, U32)):
                exp = ref(x, axis=axis).astype(idt)
                REDUCE_CASES.append(add(Case(
                    f"{op}-{tta(x)}-axis{axis}-{el(idt)}", "argreduce-bool" if x.dtype == BOOL else "argreduce",
                    [x], f"$r = jaxc.{op} $0, axis = {axis} : {tta(x)} -> {tta(exp)}", exp)))
    for x in (np.array([3.0, np.nan, 7.0, np.nan], F32), np.zeros((0, 3), F32), np.array([4, 9, 9, 1], I32)):
        for op, ref in (("argmax", np.argmax), ("argmin", np.argmin)):
            axis = x.ndim - 1
            exp = np.asarray(ref(x, axis=axis)).astype(I32) if x.size else np.zeros((0,), I32)
            REDUCE_CASES.append(add(Case(
                f"{op}-{tta(x)}-axis{axis}", "argreduce", [x],
                f"$r = jaxc.{op} $0, axis = {axis} : {tta(x)} -> {tta(exp)}", exp)))


_reduce_cases()


@pytest.mark.parametrize("case", params(REDUCE_CASES))
def test_reduce(case):
    check(case)


# --------------------------------------------------------------------------
# dot_general
# --------------------------------------------------------------------------

def dot_ref(a, b, lb, rb, lc, rc, out_dt):
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    la = [next(letters) for _ in range(a.ndim)]
    ra = [None] * b.ndim
    for i, j in zip(lb + lc, rb + rc):
        ra[j] = la[i]
    ra = [c or next(letters) for c in ra]
    out = [la[i] for i in lb] + [la[i] for i in range(a.ndim) if i not in lb + lc] + \
          [ra[j] for j in range(b.ndim) if j not in rb + rc]
    wide = np.float64 if np.dtype(out_dt).kind == "f" else np.int64
    res = np.einsum(f"{''.join(la)},{''.join(ra)}->{''.join(out)}", a.astype(wide), b.astype(wide))
    if np.dtype(out_dt).kind == "f":
        return np.asarray(res).astype(out_dt)
    return ints(np.asarray(res).ravel(), out_dt).reshape(np.shape(res))


DOT_CASES = []


def _dot_cases():
    rng = np.random.default_rng(4)

    def arr(shape, dt):
        if np.dtype(dt).kind == "f":
            return (rng.integers(-16, 16, shape) / 4).astype(dt)
        lo = 0 if np.dtype(dt).kind == "u" else -50
        return rng.integers(lo, 50, shape).astype(dt)

    configs = [  # (name, lhs shape, rhs shape, lb, rb, lc, rc)
        ("matmul", (2, 3), (3, 4), [], [], [1], [0]),
        ("batched_matmul", (2, 2, 3), (2, 3, 4), [0], [0], [2], [1]),
        ("vector_dot", (5,), (5,), [], [], [0], [0]),
        ("matvec", (3, 4), (4,), [], [], [1], [0]),
        ("contract_two_dims", (2, 3, 4), (3, 4, 5), [], [], [1, 2], [0, 1]),
        ("transposed_operands", (3, 2), (4, 3), [], [], [0], [1]),
        ("batch_not_leading", (3, 2, 4), (4, 2, 5), [1], [1], [2], [0]),
        ("outer", (3,), (2,), [], [], [], []),
        ("empty_contraction", (2, 0), (0, 3), [], [], [1], [0]),
    ]
    for dt in (F32, F64, F16, I32, U8, I64):
        for name, ls, rs, lb, rb, lc, rc in configs:
            a, b = arr(ls, dt), arr(rs, dt)
            exp = dot_ref(a, b, lb, rb, lc, rc, dt)
            tol = TOL[dt] if dt.kind == "f" else None
            DOT_CASES.append(add(Case(
                f"dot_general-{name}-{el(dt)}", f"dot-{el(dt)}", [a, b],
                f"$r = jaxc.dot_general $0, $1, batch = {lb} x {rb}, contract = {lc} x {rc} : "
                f"({tta(a)}, {tta(b)}) -> {tta(exp)}", exp, tol)))
    # Preferred element types: accumulate in the wider type.
    for src, dst, a, b in (
            (I8, I32, np.array([[127, 127, -128], [-128, -128, 5]], I8), np.array([[127, 1], [127, 2], [-128, 3]], I8)),
            (U8, U32, np.array([[255, 255, 200]], U8), np.array([[255], [255], [2]], U8)),
            (I8, I64, np.array([[-128, -128]], I8), np.array([[-128], [-128]], I8)),
            (F16, F32, np.array([[300.0, 300.0], [1.0, 1e-4]], F16), np.array([[300.0, 1.0], [300.0, 2048.0]], F16)),
            (F32, F64, np.array([[1e30, 1.0]], F32), np.array([[1e30], [1.0]], F32))):
        exp = dot_ref(a, b, [], [], [1], [0], dst)
        DOT_CASES.append(add(Case(
            f"dot_general-preferred-{el(src)}-{el(dst)}", "dot-preferred", [a, b],
            f"$r = jaxc.dot_general $0, $1, batch = [] x [], contract = [1] x [0] : "
            f"({tta(a)}, {tta(b)}) -> {tta(exp)}", exp, TOL[dst] if dst.kind == "f" else None)))


_dot_cases()


@pytest.mark.parametrize("case", params(DOT_CASES))
def test_dot_general(case):
    check(case)


# --------------------------------------------------------------------------
# dft (a call of fft.c, the CPU's default)
# --------------------------------------------------------------------------

DFT_CASES = []


def _dft_cases():
    rng = np.random.default_rng(5)
    for name, shape, axis, dt, sign, scale in (
            ("complex-forward", (3, 8), 1, C64, -1, 1.0), ("complex-inverse", (2, 2, 12), 2, C128, 1, 1 / 12),
            ("real", (7,), 0, F32, -1, 1.0), ("real-f64-scaled", (3, 10), 1, F64, 1, 0.5),
            ("bluestein", (4, 67), 1, C64, -1, 1.0), ("one-point", (5, 1), 1, C64, 1, 2.0),
            ("columns", (9, 2, 3), 0, C64, -1, 1.0), ("real-columns", (6, 5), 0, F64, 1, 0.25),
            ("middle-axis", (2, 6, 3), 1, C64, -1, 1.0), ("first-frequencies", (3, 10), 1, F32, -1, 1.0),
            ("first-frequencies-columns", (9, 4), 0, C128, 1, 0.5)):
        x = rng.standard_normal(shape)
        if dt.kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        x = x.astype(dt)
        n = shape[axis]
        kernel = np.exp(sign * 2j * np.pi * (np.outer(np.arange(n), np.arange(n)) % n) / n)
        out = C64 if dt in (C64, F32) else C128
        exp = np.moveaxis(scale * (np.moveaxis(x.astype(np.complex128), axis, -1) @ kernel), -1, axis).astype(out)
        if name.startswith("first-frequencies"):  # a real FFT's n//2 + 1
            exp = np.take(exp, range(n // 2 + 1), axis=axis)
        rtol, atol = TOL[out]
        DFT_CASES.append(add(Case(
            f"dft-{name}", "dft", [x],
            f"$r = jaxc.dft $0, axis = {axis}, sign = {sign}, scale = {scale!r} : {tta(x)} -> {tta(exp)}", exp,
            (rtol * 10, atol * 10 * n))))


_dft_cases()


def _hermitian_dft_cases():
    rng = np.random.default_rng(6)
    for name, shape, axis, n, dt, sign, scale in (
            ("irfft-even", (3, 5), 1, 8, C64, 1, 1 / 8), ("irfft-odd-f64", (2, 4), 1, 7, C128, 1, 1 / 7),
            ("forward-sign", (6,), 0, 10, C64, -1, 0.5), ("columns", (5, 3, 2), 0, 9, C64, 1, 1.0),
            ("middle-axis", (2, 4, 3), 1, 6, C128, 1, 1 / 6), ("one-point", (4, 1), 1, 1, C64, 1, 2.0),
            ("bluestein", (3, 34), 1, 67, C64, 1, 1 / 67)):
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        half = np.moveaxis(x.astype(np.complex128), axis, -1)
        exp = scale * n * np.fft.irfft(half if sign > 0 else np.conj(half), n, axis=-1)
        exp = np.moveaxis(exp, -1, axis).astype(F32 if dt == C64 else F64)
        rtol, atol = TOL[F32 if dt == C64 else F64]
        DFT_CASES.append(add(Case(
            f"hermitian-dft-{name}", "hermitian_dft", [x],
            f"$r = jaxc.hermitian_dft $0, axis = {axis}, sign = {sign}, scale = {scale!r} : {tta(x)} -> {tta(exp)}",
            exp, (rtol * 10, atol * 10 * n))))


_hermitian_dft_cases()


@pytest.mark.parametrize("case", params(DFT_CASES))
def test_dft(case):
    check(case)


# --------------------------------------------------------------------------
# cumulative, cond, while, scan
# --------------------------------------------------------------------------

def cumulative_ref(kind, x, axis, reverse):
    fn = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind]
    y = np.flip(x, axis) if reverse else x
    out = fn.accumulate(y, axis=axis, dtype=x.dtype) if y.size else y.copy()
    return np.flip(out, axis).copy() if reverse else out


CONTROL_CASES = []


@with_errstate
def _control_cases():
    rng = np.random.default_rng(5)
    for dt in (F32, F64, F16, I32, U8, I64):
        for kind in ("sum", "prod", "max", "min"):
            for shape, axis, reverse in (((3, 4), 1, False), ((3, 4), 0, True), ((6,), 0, False),
                                         ((2, 0), 0, True)):
                if dt.kind == "f":
                    x = rng.choice([-1.0, 0.5, 2.0, 1.5] if kind == "prod" else [-2.0, 0.25, 1.0, 3.5], shape)
                    x = x.astype(dt)
                    if kind in ("max", "min") and x.size > 5:
                        x.flat[5] = np.nan
                else:
                    x = rng.integers(imin(dt), imax(dt), shape, dtype=dt, endpoint=True)
                exp = cumulative_ref(kind, x, axis, reverse)
                CONTROL_CASES.append(add(Case(
                    f"cumulative_{kind}-{tta(x)}-axis{axis}{'-reverse' if reverse else ''}",
                    f"cumulative-{el(dt)}", [x],
                    f"$r = jaxc.cumulative {kind} $0, axis = {axis}{' reverse' if reverse else ''} : {tta(x)}",
                    exp, None if dt.kind != "f" else (TOL[dt][0], 0.0))))
    # cond with a predicate: branch 0 when false, branch 1 when true.
    x = np.array([1.5, -2.0, 0.0, 4.0], F32)
    for p in (False, True):
        pred = np.array(p)
        CONTROL_CASES.append(add(Case(
            f"cond-pred-{p}", "control", [pred, x], f"""
            $r = jaxc.cond $0($1) : tensor<i1>, ({tta(x)}) -> {tta(x)} {{
            ^bb0(%a: {tta(x)}):
              %n = jaxc.neg %a : {tta(x)}
              jaxc.yield %n : {tta(x)}
            }}, {{
            ^bb0(%a: {tta(x)}):
              %m = jaxc.mul %a, %a : {tta(x)}
              jaxc.yield %m : {tta(x)}
            }}""", x * x if p else -x)))
    # cond with an integer index: clamped into [0, branches - 1].
    u = np.array([3, 250], U8)
    for it, index, branch in ((I32, -1, 0), (I32, 1, 1), (I32, 5, 2), (U8, 255, 2), (I64, -(2 ** 63), 0),
                              (U32, 2 ** 32 - 1, 2), (I8, 2, 2)):
        i = np.array(index, it)
        expected = [x, np.abs(x), x + x][branch]
        expected_u = [u, u * 2, u + np.uint8(9)][branch].astype(U8)
        body = f"""
            $t:2 = jaxc.cond $0($1, $2) : {tta(i)}, ({tta(x)}, {tta(u)}) -> ({tta(x)}, {tta(u)}) {{
            ^bb0(%a: {tta(x)}, %b: {tta(u)}):
              jaxc.yield %a, %b : {tta(x)}, {tta(u)}
            }}, {{
            ^bb0(%a: {tta(x)}, %b: {tta(u)}):
              %s = jaxc.abs %a : {tta(x)}
              %c = jaxc.add %b, %b : {tta(u)}
              jaxc.yield %s, %c : {tta(x)}, {tta(u)}
            }}, {{
            ^bb0(%a: {tta(x)}, %b: {tta(u)}):
              %s = jaxc.add %a, %a : {tta(x)}
              %nine = jaxc.constant dense<9> : {tta(u)}
              %c = jaxc.add %b, %nine : {tta(u)}
              jaxc.yield %s, %c : {tta(x)}, {tta(u)}
            }}
            $r = jaxc.convert $t#1 : {tta(u)} -> {tta(u)}"""
        CONTROL_CASES.append(add(Case(f"cond-index-{el(it)}-{index}-f32", "control", [i, x, u], body,
                                      expected, result="$t#0")))
        CONTROL_CASES.append(add(Case(f"cond-index-{el(it)}-{index}-ui8", "control", [i, x, u], body,
                                      expected_u, result="$t#1")))
    # while: double acc until the counter reaches 10.
    for start in (3, 10, -2):
        i0 = np.array(start, I32)
        acc = np.array([1.0, -0.5, 3.0], F32)
        steps = max(10 - start, 0)
        body = f"""
            $t:2 = jaxc.while($0, $1 : tensor<i32>, {tta(acc)}) cond {{
            ^bb0(%i: tensor<i32>, %a: {tta(acc)}):
              %ten = jaxc.constant dense<10> : tensor<i32>
              %p = jaxc.compare lt, %i, %ten : tensor<i32>
              jaxc.yield %p : tensor<i1>
            }} do {{
            ^bb0(%i: tensor<i32>, %a: {tta(acc)}):
              %one = jaxc.constant dense<1> : tensor<i32>
              %n = jaxc.add %i, %one : tensor<i32>
              %d = jaxc.add %a, %a : {tta(acc)}
              jaxc.yield %n, %d : tensor<i32>, {tta(acc)}
            }}"""
        CONTROL_CASES.append(add(Case(f"while-from{start}-counter", "control", [i0, acc], body,
                                      np.array(max(start, 10), I32), result="$t#0")))
        CONTROL_CASES.append(add(Case(f"while-from{start}-acc", "control", [i0, acc], body,
                                      (acc * 2.0 ** steps).astype(F32), result="$t#1")))
    # scan: running sum as carry and ys, forwards and reversed.
    xs = np.array([[1.0, 2.0], [0.5, -1.0], [4.0, 0.25], [-3.0, 8.0]], F64)
    c0 = np.array([10.0, 20.0], F64)
    for reverse in (False, True):
        order = xs[::-1] if reverse else xs
        ys = c0 + np.cumsum(order, axis=0)
        ys = ys[::-1].copy() if reverse else ys
        body = f"""
            $t:2 = jaxc.scan init($0 : {tta(c0)}) xs($1 : {tta(xs)}) length = 4{' reverse' if reverse else ''} -> {tta(c0)}, {tta(xs)} {{
            ^bb0(%c: {tta(c0)}, %x: {tta(c0)}):
              %s = jaxc.add %c, %x : {tta(c0)}
              jaxc.yield %s, %s : {tta(c0)}, {tta(c0)}
            }}"""
        name = "scan-reverse" if reverse else "scan"
        CONTROL_CASES.append(add(Case(f"{name}-carry", "control", [c0, xs], body, c0 + xs.sum(0),
                                      TOL[F64], result="$t#0")))
        CONTROL_CASES.append(add(Case(f"{name}-ys", "control", [c0, xs], body, ys, TOL[F64],
                                      result="$t#1")))
    # scan without xs: ys are the carries before each step.
    c = np.array(3, I32)
    body = """
        $t:2 = jaxc.scan init($0 : tensor<i32>) xs() length = 3 -> tensor<i32>, tensor<3xi32> {
        ^bb0(%c: tensor<i32>):
          %n = jaxc.mul %c, %c : tensor<i32>
          jaxc.yield %n, %c : tensor<i32>, tensor<i32>
        }"""
    CONTROL_CASES.append(add(Case("scan-no-xs-carry", "control", [c], body, np.array(3 ** 8, I32), result="$t#0")))
    CONTROL_CASES.append(add(Case("scan-no-xs-ys", "control", [c], body, np.array([3, 9, 81], I32),
                                  result="$t#1")))


_control_cases()


@pytest.mark.parametrize("case", params(CONTROL_CASES))
def test_cumulative_and_control_flow(case):
    check(case)


# --------------------------------------------------------------------------
# Errors and coverage
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# complex elements (docs/semantics.md, *Complex numbers*)
# --------------------------------------------------------------------------

COMPLEX_CASES = []


def _lexicographic(a, b, strict):
    """a > b (strict) or a >= b in JAX's order of complex numbers."""
    return np.array([(x.real, x.imag) > (y.real, y.imag) if strict else (x.real, x.imag) >= (y.real, y.imag)
                     for x, y in zip(a.ravel(), b.ravel())]).reshape(a.shape)


@with_errstate
def _complex_cases():
    rng = np.random.default_rng(7)
    for dt in (C64, C128):
        part = F32 if dt == C64 else F64
        g, tol = f"complex-{el(part)}", TOL[dt]
        z = (rng.uniform(-2, 2, (2, 3)) + 1j * rng.uniform(-2, 2, (2, 3))).astype(dt)
        w = (rng.uniform(-2, 2, (2, 3)) + 1j * rng.uniform(-2, 2, (2, 3))).astype(dt)
        w[0, 0] = z[0, 0]  # a tie for the comparisons
        x = rng.uniform(-2, 2, (2, 3)).astype(part)
        t, tp = tta(z), tta(x)
        unary = {"neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin,
                 "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "expm1": np.expm1, "log1p": np.log1p,
                 "rsqrt": lambda v: 1 / np.sqrt(v), "exp2": np.exp2, "sinh": np.sinh, "cosh": np.cosh,
                 "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
                 "acosh": np.arccosh, "atanh": np.arctanh, "conj": np.conj,
                 "sign": lambda v: v / np.abs(v)}
        for op, ref in unary.items():
            op_tol = tol if op not in ("asin", "acos", "atan", "asinh", "acosh", "atanh") else \
                (tol[0] * 10, tol[1] * 10)
            COMPLEX_CASES.append(add(Case(f"{op}-{el(dt)}", g, [z], f"$r = jaxc.{op} $0 : {t}",
                                          ref(z).astype(dt), op_tol)))
        for op, ref in (("abs", np.abs), ("real", np.real), ("imag", np.imag)):
            COMPLEX_CASES.append(add(Case(f"{op}-{el(dt)}", g, [z], f"$r = jaxc.{op} $0 : {t}",
                                          ref(z).astype(part), tol)))
        for op, ref in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                        ("div", np.divide), ("pow", np.power)):
            COMPLEX_CASES.append(add(Case(f"{op}-{el(dt)}", g, [z, w], f"$r = jaxc.{op} $0, $1 : {t}",
                                          ref(z, w).astype(dt), tol)))
        COMPLEX_CASES.extend(add(c) for c in (
            Case(f"complex-{el(part)}", g, [x, x[::-1].copy()], f"$r = jaxc.complex $0, $1 : {tp}",
                 (x + 1j * x[::-1]).astype(dt)),
            Case(f"max-{el(dt)}", g, [z, w], f"$r = jaxc.max $0, $1 : {t}",
                 np.where(_lexicographic(z, w, True), z, w)),
            Case(f"min-{el(dt)}", g, [z, w], f"$r = jaxc.min $0, $1 : {t}",
                 np.where(_lexicographic(w, z, True), z, w)),
            Case(f"compare_gt-{el(dt)}", g, [z, w], f"$r = jaxc.compare gt, $0, $1 : {t}",
                 _lexicographic(z, w, True)),
            Case(f"compare_ge-{el(dt)}", g, [z, w], f"$r = jaxc.compare ge, $0, $1 : {t}",
                 _lexicographic(z, w, False)),
            Case(f"compare_eq-{el(dt)}", g, [z, w], f"$r = jaxc.compare eq, $0, $1 : {t}", z == w),
            Case(f"convert-{el(part)}-{el(dt)}", g, [x], f"$r = jaxc.convert $0 : {tp} -> {t}",
                 x.astype(dt)),
            Case(f"convert-{el(dt)}-{el(part)}", g, [z], f"$r = jaxc.convert $0 : {t} -> {tp}",
                 z.real.astype(part)),
            Case(f"convert-{el(dt)}-i1", g, [np.array([0j, 1j, 2, 0], dt)],
                 f"$r = jaxc.convert $0 : {tt((4,), dt)} -> {tt((4,), BOOL)}",
                 np.array([False, True, True, False])),
            Case(f"convert-{el(dt)}-i32", g, [z], f"$r = jaxc.convert $0 : {t} -> {tt((2, 3), I32)}",
                 np.trunc(z.real).astype(I32)),
            Case(f"reduce_sum-{el(dt)}", g, [z], f"$r = jaxc.reduce sum $0, dims = [1] : {t} -> {tt((2,), dt)}",
                 z.sum(axis=1), tol),
            Case(f"reduce_prod-{el(dt)}", g, [z], f"$r = jaxc.reduce prod $0, dims = [0, 1] : {t} -> {tt((), dt)}",
                 np.array(z.prod(), dt), tol),
            Case(f"reduce_max-{el(dt)}", g, [z], f"$r = jaxc.reduce max $0, dims = [1] : {t} -> {tt((2,), dt)}",
                 np.array([max(row, key=lambda v: (v.real, v.imag)) for row in z], dt)),
            Case(f"cumulative_sum-{el(dt)}", g, [z], f"$r = jaxc.cumulative sum $0, axis = 1 : {t}",
                 np.cumsum(z, axis=1), tol),
            Case(f"dot_general-{el(dt)}", g, [z, w.T.copy()],
                 f"$r = jaxc.dot_general $0, $1, batch = [] x [], contract = [1] x [0] : "
                 f"({t}, {tt((3, 2), dt)}) -> {tt((2, 2), dt)}", z @ w.T, tol),
            Case(f"select-{el(dt)}", g, [z.real > 0, z, w],
                 f"$r = jaxc.select $0, $1, $2 : {tt((2, 3), BOOL)}, {t}", np.where(z.real > 0, z, w)),
            Case(f"transpose-{el(dt)}", g, [z], f"$r = jaxc.transpose $0, perm = [1, 0] : {t} -> {tt((3, 2), dt)}",
                 z.T.copy()),
            Case(f"constant-dense-{el(dt)}", g, [],
                 f"$r = jaxc.constant dense<[(1.5, -2.0), (0.0, 3.0)]> : {tt((2,), dt)}",
                 np.array([1.5 - 2j, 3j], dt)),
            Case(f"constant-splat-{el(dt)}", g, [], f"$r = jaxc.constant dense<(1.0, -0.5)> : {tt((100,), dt)}",
                 np.full((100,), 1 - 0.5j, dt)),
        ))


_complex_cases()


@pytest.mark.parametrize("case", params(COMPLEX_CASES))
def test_complex(case):
    check(case)


def _lower_only(text: str) -> tuple[Exception | None, list[str]]:
    """Run just jaxc-to-linalg on `text` in this process; the error and diagnostics."""
    from lowering_harness import _Pass
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes.jaxc_to_linalg import jaxc_to_linalg

    messages = []
    ctx = make_context()

    def handler(d):
        messages.append(f"{d.location}: {d.message}")
        return True

    keep = ctx.attach_diagnostic_handler(handler)
    with ctx:
        module = ir.Module.parse(text)
        try:
            jaxc_to_linalg(module.operation, _Pass())
            error = None
        except RuntimeError as e:
            error = e
    del keep
    return error, messages


def test_collective_outside_pmap_is_a_clear_error():
    text = ("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %e = jaxc.exp %x : tensor<4xf32>\n"
            "  %s = jaxc.psum %e, axes = [\"i\"] : tensor<4xf32>\n"
            "  return %s : tensor<4xf32>\n}\n")
    error, messages = _lower_only(text)
    assert error is not None, "lowering a module with jaxc.psum succeeded"
    assert len(messages) == 1, messages
    assert "'jaxc.psum' over the axes ['i']: a collective runs only inside a mapped computation" in messages[0]
    assert ":3:" in messages[0], f"the error should be at jaxc.psum's line: {messages[0]}"


# Ops checked in their own files (two results; index semantics).
TESTED_ELSEWHERE = {"threefry2x32", "gather", "conv_general_dilated", "sort", "scatter",
                    "erf_inv", "lgamma", "digamma", "nextafter", "random_bits",
                    "bitcast_convert", "callback",
                    "psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "ppermute", "axis_index",
                    "lu", "triangular_solve", "cholesky", "qr", "eigh", "svd",
                    "top_k", "hessenberg", "schur", "eig"}
# test_<family>.py files (callback: test_callbacks.py; the collectives: test_pmap.py; lu,
# triangular_solve, cholesky, qr, eigh, svd: test_linalg_ops.py; top_k: test_lax_more.py;
# hessenberg, schur, eig: test_eig.py; and their library calls test_library_*.py)


def test_every_rule_has_numerics_cases():
    from jaxc.passes.lowering import RULES

    tested = {m for c in ALL_CASES for m in re.findall(r"jaxc\.(\w+)", c.body)}
    tested |= TESTED_ELSEWHERE
    missing = sorted(name for name in RULES if name.removeprefix("jaxc.") not in tested)
    assert not missing, f"ops with a lowering rule but no numerics test: {missing}"
