"""Random programs for the property tests (test_properties.py) and the long
fuzzing mode (tools/fuzz.py): hypothesis strategies, and the checks that
run one example against its reference.

Four kinds of example:

- `programs("jnp")`: 1-6 ops drawn from `OPS` (elementwise, reductions,
  shape ops, indexing, matmul) over random shapes with size-0 and size-1
  axes, ranks 0-3, dtypes bool/int32/float32 (and float64 under x64). Each
  value's shape and dtype follow JAX's rules (`promote`, the per-op rules
  below). `check_jnp` runs the program eagerly with jaxc.numpy, under
  `jaxc.jit`, and with NumPy, op by op in float64 rounded to the JAX dtype;
  `check_vmap` compares `jaxc.vmap` with a loop over the batch.
- `programs("grad")`: smooth float64 ops and shape ops reduced to a scalar;
  `check_grad` compares `jaxc.grad` with central differences of the NumPy
  program and runs `jaxc.test_util.check_grads` (forward and reverse).
- `programs("lowp")`: as "jnp" with float16 and bfloat16 values, without
  matmul; the NumPy reference computes each op in float32 and rounds to
  the dtype, compared within four ulps of the least precise dtype.
- Op classes, one `Case` per example (a source for jaxc, a NumPy
  reference, inputs and a mode: values, vmap or grad): `control_cases()`
  (cond, switch, while_loop, fori_loop, scan), `gather_cases()` (indexing,
  take, take_along_axis, .at[] updates, out-of-bounds modes),
  `conv_cases()`, `random_cases()` (key ops and samplers), `sort_cases()`
  (sort, argsort, top_k, lax.sort) and `linalg_cases()` (solve, inv,
  cholesky, qr, svd, eigh), each with its `check_*` (`check_case` does the
  common part).
- `opt_cases()`: a tests/lit input with 1-3 random mutations, run through
  `jaxc-opt` with the arguments of one of the file's RUN lines;
  `check_opt` asserts a clean exit (0, or 1 with a diagnostic).

Every example can write itself as a reproducer (`reproducer(message)`:
file name -> text). The dtype rules and the references are written here;
JAX is imported only for the random bits (skipped without it) and by the
`check_*(case, backend="jax")` runs that check the references themselves
(tools/fuzz.py --backend jax).
"""
from __future__ import annotations

import dataclasses
import math
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "tests" / "lit"

# --------------------------------------------------------------------------
# Types: JAX's promotion lattice on the dtypes we generate
# --------------------------------------------------------------------------

ORDER = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
LOW_FLOATS = ("float16", "bfloat16")


def promote(a: str, b: str) -> str:
    """jnp.promote_types on ORDER (checked against JAX 0.10.2); float16 and
    bfloat16 meet at float32."""
    if {a, b} == set(LOW_FLOATS):
        return "float32"
    return ORDER[max(ORDER.index(a), ORDER.index(b))]


def is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


def letter(dtype: str) -> str:
    """'f' float, 'i' integer, 'b' bool."""
    return "f" if is_float(dtype) else "b" if dtype == "bool" else "i"


def inexact(dtype: str) -> str:
    """The dtype of exp/sqrt/mean of `dtype` (JAX: int32 and bool give float32
    even under x64, int64 gives float64)."""
    return {"bool": "float32", "int32": "float32", "int64": "float64"}.get(dtype, dtype)


def sum_dtype(dtype: str, x64: bool) -> str:
    """The dtype of sum/prod: bool and int32 give the default int."""
    if dtype in ("bool", "int32"):
        return "int64" if x64 else "int32"
    return dtype


@dataclasses.dataclass
class Var:
    name: str
    shape: tuple[int, ...]
    dtype: str
    # Values every backend computes bit for bit: small dyadic floats (inputs
    # are multiples of 1/4; add, sub, max, sum, shape ops keep them exact),
    # small ints, bools. Comparisons, float->int casts, sign and floor only
    # take exact operands, so an ulp of difference never flips a branch.
    exact: bool = True

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclasses.dataclass
class Program:
    kind: str
    x64: bool
    inputs: list[Var]
    lines: list[tuple[Var, str]]
    seed: int
    # vmap: batch size and, per input, 0 (batched on axis 0) or None
    batch: int = 0
    in_axes: tuple = ()

    @property
    def out(self) -> Var:
        return self.lines[-1][0] if self.lines else self.inputs[-1]

    def source(self, name: str = "f") -> str:
        args = ", ".join(v.name for v in self.inputs)
        body = "".join(f"    {v.name} = {expr}\n" for v, expr in self.lines)
        return f"def {name}({args}):\n{body}    return {self.out.name}\n"

    def function(self, module: Any) -> Any:
        """The program as a Python function over `module` (jaxc.numpy or numpy)."""
        scope: dict[str, Any] = {"jnp": module}
        exec(self.source(), scope)
        return scope["f"]

    def values(self) -> list[np.ndarray]:
        """The inputs: multiples of 1/4 in [-4, 4] (grad: uniform in [-1.5, 1.5]),
        ints in [-5, 5], random bools."""
        rng = np.random.default_rng(self.seed)
        out = []
        for v in self.inputs:
            shape = ((self.batch,) + v.shape) if self.batched(v) else v.shape
            if v.dtype == "bool":
                out.append(rng.random(shape) < 0.5)
            elif v.dtype.startswith("int"):
                out.append(rng.integers(-5, 6, shape).astype(v.dtype))
            elif self.kind == "grad":
                out.append(rng.uniform(-1.5, 1.5, shape).astype(v.dtype))
            else:
                out.append((rng.integers(-16, 17, shape) / 4).astype(v.dtype))
        return out

    def signature(self) -> str:
        """The ops used (after shrinking, a failure's signature)."""
        names = set()
        for _, expr in self.lines:
            names.update(re.findall(r"jnp\.(\w+)\(|\.(astype|reshape|T)\b|( @ | [-+*<] |\[)", expr))
        return ",".join(sorted("".join(n).strip() for n in names))

    def batched(self, v: Var) -> bool:
        return self.kind == "vmap" and self.in_axes[self.inputs.index(v)] == 0

    def reproducer(self, message: str) -> dict[str, str]:
        """A standalone script that runs the failing program and prints the
        jaxc and NumPy results."""
        args = [_literal(value) for value in self.values()]
        comment = "\n".join("# " + line for line in message.strip().splitlines()[:40])
        if self.kind == "grad":
            call = ("print(jaxc.grad(f, argnums=tuple(range(len(args))))(*args))\n"
                    "print(jaxc.jit(f)(*args), f_np(*[a.copy() for a in args]))\n")
        elif self.kind == "vmap":
            call = (f"axes = {self.in_axes!r}\n"
                    "print(jaxc.vmap(f, in_axes=axes)(*args))\n"
                    f"print([f_np(*[a[i] if ax == 0 else a for a, ax in zip(args, axes)]) "
                    f"for i in range({self.batch})])\n")
        else:
            call = ("print(f(*[jnp.asarray(a) for a in args]))\n"
                    "print(jaxc.jit(f)(*args))\n"
                    "print(f_np(*args))  # NumPy (float32 ops computed in float32 here)\n")
        numpy = "np"
        if self.kind == "lowp":   # NumPy has no bfloat16: ml_dtypes adds it
            numpy = "type('np', (), {**vars(np), 'bfloat16': ml_dtypes.bfloat16})"
        return {"repro.py": (
            f"# jaxc fuzz reproducer ({self.kind})\n{comment}\n"
            "import ml_dtypes  # noqa: F401 (bfloat16)\n"
            "import numpy as np\nimport jaxc\nimport jaxc.numpy as jnp\n\n"
            f"jaxc.config.update('jax_enable_x64', {self.x64})\n\n"
            f"{self.source()}\n"
            f"f_np = (lambda src: (exec(src, s := {{'jnp': {numpy}}}), s['f'])[1])({self.source()!r})\n\n"
            f"args = [{', '.join(args)}]\n{call}")}


def _literal(value: np.ndarray) -> str:
    """Python source that rebuilds `value` exactly (bfloat16 through float32)."""
    dtype = value.dtype.name
    if dtype == "bfloat16":
        return f"np.array({value.astype(np.float32).tolist()!r}, dtype=np.float32).reshape({value.shape}).astype('bfloat16')"
    if value.size:
        return f"np.array({value.tolist()!r}, dtype=np.{dtype}).reshape({value.shape})"
    return f"np.zeros({value.shape}, dtype=np.{dtype})"


# --------------------------------------------------------------------------
# The program builder and the op table
# --------------------------------------------------------------------------

MAX_RANK = 4
MAX_SIZE = 256
DIMS = st.sampled_from([2, 1, 0, 3, 4])


def shapes(min_rank: int = 0, max_rank: int = 3) -> st.SearchStrategy:
    return st.lists(DIMS, min_size=min_rank, max_size=max_rank).map(tuple)


class Builder:
    """Draws ops one after the other; knows every value's shape and dtype."""

    def __init__(self, draw: Any, kind: str, x64: bool):
        self.draw, self.kind, self.x64 = draw, kind, x64
        self.inputs: list[Var] = []
        self.lines: list[tuple[Var, str]] = []
        self.vars: list[Var] = []

    @property
    def dtypes(self) -> list[str]:
        if self.kind == "grad":
            return ["float64"]
        if self.kind == "lowp":
            return ["float16", "bfloat16", "float32", "int32", "bool"]
        return ["float32", "int32", "bool"] + (["float64"] if self.x64 else [])

    def fresh(self, shape: tuple, dtype: str) -> Var:
        v = Var(f"x{len(self.inputs)}", tuple(shape), dtype)
        self.inputs.append(v)
        self.vars.append(v)
        return v

    def emit(self, expr: str, shape: tuple, dtype: str, exact: bool) -> Var:
        v = Var(f"v{len(self.lines)}", tuple(shape), dtype, exact)
        self.lines.append((v, expr))
        self.vars.append(v)
        return v

    def partner(self, shape: tuple, dtypes: list[str], literal: str | None = None,
                exact: bool = False) -> str | Var:
        """A second operand that broadcasts with `shape`: an existing value,
        a new input (some dims dropped or set to 1), or a Python literal."""
        draw = self.draw
        ok = [v for v in self.vars if v.dtype in dtypes and (v.exact or not exact)
              and _broadcast(v.shape, shape) is not None
              and math.prod(_broadcast(v.shape, shape)) <= MAX_SIZE]
        choice = draw(st.sampled_from(["new"] + (["old"] if ok else []) + (["literal"] if literal else [])))
        if choice == "old":
            return draw(st.sampled_from(ok))
        if choice == "literal":
            if literal == "float":
                return draw(st.sampled_from(["2.5", "-1.0", "0.5", "3.0"]))
            return draw(st.sampled_from(["2", "-1", "0", "3"]))
        dims = list(shape[draw(st.integers(0, len(shape))):])
        dims = [1 if draw(st.booleans()) else d for d in dims]
        return self.fresh(tuple(dims), draw(st.sampled_from([d for d in self.dtypes if d in dtypes])))


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def _name(x: str | Var) -> str:
    return x.name if isinstance(x, Var) else x


def _dtype_of(x: str | Var, other: Var) -> str:
    return x.dtype if isinstance(x, Var) else other.dtype  # literals are weak


def _shape_of(x: str | Var) -> tuple:
    return x.shape if isinstance(x, Var) else ()


def _exact_of(x: str | Var) -> bool:
    return x.exact if isinstance(x, Var) else True


@dataclasses.dataclass
class Op:
    name: str
    kinds: str           # "jg": in jnp/vmap programs (j), in grad programs (g)
    applies: Any         # (builder, x) -> bool
    build: Any           # (builder, x) -> Var


OPS: list[Op] = []


def op(name: str, kinds: str = "j", applies: Any = lambda b, x: True) -> Any:
    def register(build: Any) -> Any:
        OPS.append(Op(name, kinds, applies, build))
        return build
    return register


# Elementwise unary ---------------------------------------------------------

def _unary(name: str, template: str, kinds: str, dtypes: str, result: Any, exact: Any,
           needs_exact: bool = False) -> None:
    """dtypes: 'f' floats, 'i' ints, 'b' bool (letters allowed)."""
    def applies(b: Builder, x: Var) -> bool:
        return letter(x.dtype) in dtypes and (x.exact or not needs_exact)

    def build(b: Builder, x: Var) -> Var:
        return b.emit(template.format(x.name), x.shape, result(x.dtype), exact(x))
    op(name, kinds, applies)(build)


_same = lambda d: d  # noqa: E731
_unary("negative", "jnp.negative({})", "jg", "fi", _same, lambda x: x.exact)
_unary("abs", "jnp.abs({})", "j", "fi", _same, lambda x: x.exact)
_unary("exp", "jnp.exp({})", "jg", "fib", inexact, lambda x: False)
_unary("tanh", "jnp.tanh({})", "jg", "fib", inexact, lambda x: False)
_unary("sin", "jnp.sin({})", "jg", "fi", inexact, lambda x: False)
_unary("cos", "jnp.cos({})", "g", "f", inexact, lambda x: False)
_unary("sqrt_abs", "jnp.sqrt(jnp.abs({}))", "j", "fi", inexact, lambda x: False)
_unary("sqrt_1p_sq", "jnp.sqrt({0} * {0} + 1.0)", "g", "f", _same, lambda x: False)
_unary("square", "jnp.square({})", "jg", "fi", _same, lambda x: False)
_unary("sign", "jnp.sign({})", "j", "fi", _same, lambda x: x.exact, needs_exact=True)
_unary("floor", "jnp.floor({})", "j", "f", _same, lambda x: x.exact, needs_exact=True)
_unary("logical_not", "jnp.logical_not({})", "j", "b", _same, lambda x: True)


@op("astype", "j", lambda b, x: x.exact or not is_float(x.dtype))
def _astype(b: Builder, x: Var) -> Var:
    to = b.draw(st.sampled_from([d for d in b.dtypes]))
    const = "jnp.bool_" if to == "bool" else f"jnp.{to}"
    return b.emit(f"{x.name}.astype({const})", x.shape, to, to == "bool" or x.exact)


# Elementwise binary --------------------------------------------------------

def _binary(name: str, forms: list[str], kinds: str, dtypes: list[str], result: Any,
            exact: Any, needs_exact: bool = False, literal: bool = True) -> None:
    def applies(b: Builder, x: Var) -> bool:
        return x.dtype in dtypes and (x.exact or not needs_exact)

    def build(b: Builder, x: Var) -> Var:
        lit = ("float" if is_float(x.dtype) else "int" if x.dtype.startswith("int") else None) \
            if literal else None
        y = b.partner(x.shape, dtypes, lit, exact=needs_exact)
        a, c = (x, y) if b.draw(st.booleans()) else (y, x)
        dtype = promote(_dtype_of(a, x), _dtype_of(c, x))
        form = b.draw(st.sampled_from(forms))
        shape = _broadcast(_shape_of(a), _shape_of(c))
        return b.emit(form.format(_name(a), _name(c)), shape, result(dtype),
                      exact(_exact_of(a) and _exact_of(c)))
    op(name, kinds, applies)(build)


ALL = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NUM = ["int32", "int64", "float16", "bfloat16", "float32", "float64"]
_binary("add", ["jnp.add({}, {})", "{} + {}"], "jg", ALL, _same, lambda e: e)
_binary("subtract", ["jnp.subtract({}, {})", "{} - {}"], "jg", NUM, _same, lambda e: e)
_binary("multiply", ["jnp.multiply({}, {})", "{} * {}"], "jg", ALL, _same, lambda e: False)
_binary("maximum", ["jnp.maximum({}, {})"], "j", ALL, _same, lambda e: e)
_binary("minimum", ["jnp.minimum({}, {})"], "j", ALL, _same, lambda e: e)
for _cmp in ["less", "greater_equal", "equal", "not_equal"]:
    _binary(_cmp, [f"jnp.{_cmp}({{}}, {{}})"], "j", ALL, lambda d: "bool", lambda e: True,
            needs_exact=True)
_binary("lt_operator", ["({} < {})"], "j", NUM, lambda d: "bool", lambda e: True, needs_exact=True)
_binary("logical_and", ["jnp.logical_and({}, {})"], "j", ["bool"], _same, lambda e: True,
        literal=False)
_binary("logical_or", ["jnp.logical_or({}, {})"], "j", ["bool"], _same, lambda e: True,
        literal=False)


@op("where")
def _where(b: Builder, x: Var) -> Var:
    cond = b.partner(x.shape, ["bool"])
    other = b.partner(x.shape, [d for d in b.dtypes if d != "bool"] + ["bool"])
    a, c = (x, other) if b.draw(st.booleans()) else (other, x)
    shape = _broadcast(_broadcast(cond.shape, x.shape), _shape_of(other))
    if shape is None or math.prod(shape) > MAX_SIZE:
        a = c = x
        shape = _broadcast(cond.shape, x.shape)
    dtype = promote(_dtype_of(a, x), _dtype_of(c, x))
    return b.emit(f"jnp.where({cond.name}, {_name(a)}, {_name(c)})", shape, dtype,
                  _exact_of(a) and _exact_of(c))


# Reductions ----------------------------------------------------------------

def _axes(b: Builder, x: Var) -> Any:
    if x.ndim == 0:
        return None
    choice = b.draw(st.sampled_from(["one", "none", "negative", "pair"]))
    if choice == "none":
        return None
    if choice == "pair" and x.ndim >= 2:
        return tuple(sorted(b.draw(st.permutations(range(x.ndim)))[:2]))
    axis = b.draw(st.integers(0, x.ndim - 1))
    return axis - x.ndim if choice == "negative" else axis


def _reduced(x: Var, axis: Any, keepdims: bool) -> tuple[tuple, int]:
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    axes = {a % x.ndim for a in axes} if x.ndim else set()
    count = math.prod(x.shape[a] for a in axes)
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)
    return shape, count


def _reduction(name: str, kinds: str, result: Any, exact: Any, nonempty: bool = False) -> None:
    def build(b: Builder, x: Var) -> Var:
        for _ in range(3):
            axis = _axes(b, x)
            keepdims = b.draw(st.booleans()) if b.kind != "grad" else False
            shape, count = _reduced(x, axis, keepdims)
            # the mean of nothing is nan: no derivative to check
            if count or not (nonempty or (name == "mean" and b.kind == "grad")):
                break
        else:  # max/min of an empty axis is an error in NumPy and JAX: reduce a nonempty axis
            axis, keepdims = None, False
            shape, count = _reduced(x, axis, keepdims)
            if not count:
                return b.emit(f"jnp.sum({x.name})", (), sum_dtype(x.dtype, b.x64), x.exact)
        kw = "" if axis is None else f", axis={axis!r}"
        kw += ", keepdims=True" if keepdims else ""
        return b.emit(f"jnp.{name}({x.name}{kw})", shape, result(x.dtype, b.x64), exact(x))
    op(name, kinds)(build)


_reduction("sum", "jg", sum_dtype, lambda x: x.exact)
_reduction("prod", "j", sum_dtype, lambda x: False)
_reduction("max", "j", lambda d, x64: d, lambda x: x.exact, nonempty=True)
_reduction("min", "j", lambda d, x64: d, lambda x: x.exact, nonempty=True)
_reduction("mean", "jg", lambda d, x64: inexact(d), lambda x: False)


# Shape ops -----------------------------------------------------------------

def _factor(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@op("reshape", "jg")
def _reshape(b: Builder, x: Var) -> Var:
    rank = b.draw(st.integers(0 if x.size == 1 else 1, 3))
    if x.size == 0:
        dims = [b.draw(st.sampled_from([0, 1, 2, 3])) for _ in range(rank)]
        dims[b.draw(st.integers(0, rank - 1))] = 0
    else:
        factors = b.draw(st.permutations(_factor(x.size)))
        dims = [1] * rank
        for f in factors:
            dims[b.draw(st.integers(0, rank - 1))] *= f
    spelled = list(dims)
    if x.size and rank and b.draw(st.booleans()):
        spelled[b.draw(st.integers(0, rank - 1))] = -1
    form = b.draw(st.sampled_from(["jnp.reshape({}, {})", "{}.reshape({})"]))
    return b.emit(form.format(x.name, tuple(spelled)), tuple(dims), x.dtype, x.exact)


@op("transpose", "jg")
def _transpose(b: Builder, x: Var) -> Var:
    if x.ndim and b.draw(st.booleans()):
        perm = tuple(b.draw(st.permutations(range(x.ndim))))
        return b.emit(f"jnp.transpose({x.name}, {perm})", tuple(x.shape[p] for p in perm),
                      x.dtype, x.exact)
    form = b.draw(st.sampled_from(["jnp.transpose({})", "{}.T"]))
    return b.emit(form.format(x.name), x.shape[::-1], x.dtype, x.exact)


@op("expand_dims", "jg", lambda b, x: x.ndim < MAX_RANK)
def _expand_dims(b: Builder, x: Var) -> Var:
    axis = b.draw(st.integers(-x.ndim - 1, x.ndim))
    shape = list(x.shape)
    shape.insert(axis % (x.ndim + 1), 1)
    return b.emit(f"jnp.expand_dims({x.name}, {axis})", tuple(shape), x.dtype, x.exact)


@op("squeeze", "jg", lambda b, x: 1 in x.shape)
def _squeeze(b: Builder, x: Var) -> Var:
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    if b.draw(st.booleans()):
        return b.emit(f"jnp.squeeze({x.name})", tuple(d for d in x.shape if d != 1),
                      x.dtype, x.exact)
    axis = b.draw(st.sampled_from(ones))
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return b.emit(f"jnp.squeeze({x.name}, axis={axis - x.ndim if b.draw(st.booleans()) else axis})",
                  shape, x.dtype, x.exact)


@op("concatenate", "jg", lambda b, x: x.ndim >= 1 and x.size * 2 <= MAX_SIZE)
def _concatenate(b: Builder, x: Var) -> Var:
    axis = b.draw(st.integers(0, x.ndim - 1))
    ok = [v for v in b.vars if v.ndim == x.ndim
          and all(v.shape[i] == x.shape[i] for i in range(x.ndim) if i != axis)]
    if b.draw(st.booleans()):
        y = b.draw(st.sampled_from(ok))   # x itself is always there
    else:
        shape = list(x.shape)
        shape[axis] = b.draw(DIMS)
        y = b.fresh(tuple(shape), b.draw(st.sampled_from(b.dtypes)))
    a, c = (x, y) if b.draw(st.booleans()) else (y, x)
    shape = list(x.shape)
    shape[axis] = x.shape[axis] + y.shape[axis]
    spelled = axis - x.ndim if b.draw(st.booleans()) else axis
    return b.emit(f"jnp.concatenate([{a.name}, {c.name}], axis={spelled})", tuple(shape),
                  promote(a.dtype, c.dtype), a.exact and c.exact)


@op("broadcast_to", "jg", lambda b, x: x.ndim < MAX_RANK)
def _broadcast_to(b: Builder, x: Var) -> Var:
    lead = [b.draw(st.sampled_from([2, 1, 3, 0]))] if b.draw(st.booleans()) else []
    dims = [b.draw(st.sampled_from([1, 2, 3, 0])) if d == 1 else d for d in x.shape]
    shape = tuple(lead + dims)
    if math.prod(shape) > MAX_SIZE:
        shape = x.shape
    return b.emit(f"jnp.broadcast_to({x.name}, {shape})", shape, x.dtype, x.exact)


def _bound(b: Builder, n: int) -> int | None:
    return b.draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))


@op("slice", "jg", lambda b, x: x.ndim >= 1)
def _slice(b: Builder, x: Var) -> Var:
    count = b.draw(st.integers(1, x.ndim))
    parts, shape = [], []
    for n in x.shape[:count]:
        start, stop = _bound(b, n), _bound(b, n)
        step = b.draw(st.sampled_from([None, 1, 2, -1, 3, -2]))
        shape.append(len(range(*slice(start, stop, step).indices(n))))
        parts.append(":".join("" if v is None else str(v) for v in (start, stop))
                     + ("" if step is None else f":{step}"))
    return b.emit(f"{x.name}[{', '.join(parts)}]", tuple(shape) + x.shape[count:], x.dtype, x.exact)


@op("index", "jg", lambda b, x: any(x.shape))
def _index(b: Builder, x: Var) -> Var:
    axis = b.draw(st.sampled_from([i for i, d in enumerate(x.shape) if d]))
    i = b.draw(st.integers(-x.shape[axis], x.shape[axis] - 1))
    where = ":, " * axis if axis < x.ndim - 1 or not b.draw(st.booleans()) else "..., "
    return b.emit(f"{x.name}[{where}{i}]", x.shape[:axis] + x.shape[axis + 1:], x.dtype, x.exact)


@op("matmul", "jg", lambda b, x: x.ndim >= 1 and x.dtype != "bool")
def _matmul(b: Builder, x: Var) -> Var:
    k = x.shape[-1]
    batch = x.shape[:-2]
    # Grad programs with matrix-vector products once found a miscompile (an outer-product
    # dot_general fused into a broadcast accumulated once per broadcast element;
    # tests/python/test_reliability.py, test_outer_product_fused_into_a_broadcast).
    vector = ["vector"]
    choice = b.draw(st.sampled_from(vector + ["matrix", "batched"]))
    if choice == "vector":
        other = (k,)
    elif choice == "matrix" or x.ndim < 3:
        other = (k, b.draw(DIMS))
    else:
        other = batch + (k, b.draw(DIMS))
    y = b.fresh(other, b.draw(st.sampled_from([d for d in b.dtypes if d != "bool"])))
    if x.ndim == 1:
        shape = other[:-2] + other[-1:] if len(other) > 1 else ()
    else:
        shape = x.shape[:-1] + (other[-1:] if len(other) > 1 else ())
    form = b.draw(st.sampled_from(["jnp.matmul({}, {})", "{} @ {}"]))
    return b.emit(form.format(x.name, y.name), shape, promote(x.dtype, y.dtype), False)


# float16/bfloat16 programs ("lowp"): elementwise ops and reductions only; a
# low-precision result stays exact only through ops that pick or move values.
LOWP_LEFT_OUT = {"matmul"}
LOWP_EXACT = {"negative", "abs", "sign", "floor", "maximum", "minimum", "where", "max", "min", "reshape",
              "transpose", "expand_dims", "squeeze", "concatenate", "broadcast_to", "slice", "index"}


# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------

@st.composite
def programs(draw: Any, kind: str = "jnp", max_ops: int = 6) -> Program:
    """A random program (`kind`: "jnp", "vmap", "grad" or "lowp"); see the module doc."""
    x64 = True if kind == "grad" else draw(st.booleans())
    b = Builder(draw, kind, x64)
    first = LOW_FLOATS if kind == "lowp" else b.dtypes
    x = b.fresh(draw(shapes()), draw(st.sampled_from(first)))
    table = "g" if kind == "grad" else "j"
    for _ in range(draw(st.integers(1, max_ops))):
        ops = [o for o in OPS if table in o.kinds and o.applies(b, x)
               and not (kind == "lowp" and o.name in LOWP_LEFT_OUT)]
        op_ = draw(st.sampled_from(ops))
        x = op_.build(b, x)
        if kind == "lowp" and x.dtype in LOW_FLOATS and op_.name not in LOWP_EXACT:
            x.exact = False   # float16 has 11 significant bits, bfloat16 8: sums of quarters round
    if kind == "grad" and x.ndim:
        x = b.emit(f"jnp.sum({x.name} * {x.name})" if draw(st.booleans()) else f"jnp.sum({x.name})",
                   (), x.dtype, False)
    prog = Program(kind, x64, b.inputs, b.lines, draw(st.integers(0, 2**32 - 1)))
    if kind == "vmap":
        prog.batch = draw(st.sampled_from([3, 1, 0, 2]))
        axes = [draw(st.sampled_from([0, None])) for _ in prog.inputs]
        axes[draw(st.integers(0, len(axes) - 1))] = 0
        prog.in_axes = tuple(axes)
    return prog


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

# Relative tolerances per float dtype; float16 and bfloat16: four units in
# the last place, for a few roundings that may fall either way.
TOL = {"float32": 2e-4, "float64": 1e-9, "float16": 4 * 2.0**-10, "bfloat16": 4 * 2.0**-7}


def floating(a: np.ndarray) -> bool:
    """A float array, bfloat16 included (its NumPy kind is 'V')."""
    return a.dtype.kind == "f" or a.dtype.name == "bfloat16"


def coarsest(dtypes: Any) -> str:
    """The least precise float dtype among `dtypes` (float64 when none)."""
    return next((d for d in ("bfloat16", "float16", "float32") if d in dtypes), "float64")


class _NumPyRef:
    """numpy, except that the float functions take bool in float64 (NumPy's
    exp(True) is a float16), and with ml_dtypes' bfloat16."""

    def __getattr__(self, name: str) -> Any:
        if name == "bfloat16":
            return ml_dtypes.bfloat16
        fn = getattr(np, name)
        if name in ("exp", "tanh", "sin", "cos", "sqrt"):
            return lambda x: fn(np.asarray(x, np.float64) if np.asarray(x).dtype == bool else x)
        return fn


NUMPY_REF = _NumPyRef()


def reference(prog: Program, values: list[np.ndarray]) -> tuple[np.ndarray, float, str]:
    """The program in NumPy, each op in float64 (lowp programs: float16 and
    bfloat16 ops in float32) and rounded to its JAX dtype. Also the largest
    finite magnitude seen (the tolerance's scale) and the float dtype that sets
    the tolerance (the least precise one in the program)."""
    env = {v.name: val for v, val in zip(prog.inputs, values)}
    scale = 1.0
    widen = {"float16": np.float32, "bfloat16": np.float32} if prog.kind == "lowp" else {"float32": np.float64}
    for v, expr in prog.lines:
        wide = {k: a.astype(widen.get(a.dtype.name, a.dtype)) for k, a in env.items()}
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = np.asarray(eval(expr, {"jnp": NUMPY_REF}, wide)).astype(v.dtype)
        assert out.shape == v.shape, f"generator bug: NumPy shape {out.shape} for {v}"
        env[v.name] = out
    for val in env.values():
        val = val.astype(np.float64)
        finite = np.abs(val[np.isfinite(val)])
        if finite.size:
            scale = max(scale, float(finite.max()))
    dtypes = {v.dtype for v in prog.inputs} | {v.dtype for v, _ in prog.lines}
    return env[prog.out.name], scale, coarsest(dtypes)


def assert_matches(got: Any, want: np.ndarray, var: Var, scale: float, tol_dtype: str, what: str) -> None:
    """`got` has the JAX dtype and shape of `var` and the reference's values."""
    got = np.asarray(got)
    assert got.dtype == np.dtype(var.dtype), f"{what}: dtype {got.dtype}, JAX gives {var.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, JAX gives {want.shape}"
    try:
        if floating(got):
            tol = TOL[tol_dtype]
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                                       atol=tol * scale, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, want)
    except AssertionError as error:
        raise AssertionError(f"{what}: values differ from NumPy{error}") from None


def _jaxc() -> tuple[Any, Any]:
    import jaxc
    import jaxc.numpy as jnp
    return jaxc, jnp


def check_jnp(prog: Program) -> None:
    """Eager jaxc.numpy, jaxc.jit and NumPy agree (values, dtypes, shapes)."""
    jaxc, jnp = _jaxc()
    values = prog.values()
    want, scale, tol_dtype = reference(prog, values)
    with jaxc.enable_x64(prog.x64):
        env = {v.name: jnp.asarray(val) for v, val in zip(prog.inputs, values)}
        for v, expr in prog.lines:
            got = eval(expr, {"jnp": jnp}, env)
            assert tuple(got.shape) == v.shape and np.dtype(got.dtype) == np.dtype(v.dtype), \
                f"eager: {v.name} = {expr} has {got.dtype}{list(got.shape)}, JAX gives {v.dtype}{list(v.shape)}"
            env[v.name] = got
        assert_matches(env[prog.out.name], want, prog.out, scale, tol_dtype, "eager")
        jitted = jaxc.jit(prog.function(jnp))(*[jnp.asarray(val) for val in values])
        assert_matches(jitted, want, prog.out, scale, tol_dtype, "jit")


def check_vmap(prog: Program) -> None:
    """jaxc.vmap of the program equals NumPy on each batch element, stacked."""
    jaxc, jnp = _jaxc()
    values = prog.values()
    rows, scale, tol_dtype = [], 1.0, "float64"
    for i in range(prog.batch):
        args = [val[i] if ax == 0 else val for val, ax in zip(values, prog.in_axes)]
        row, s, tol_dtype = reference(prog, args)
        rows.append(row)
        scale = max(scale, s)
    out = prog.out
    want = np.stack(rows) if rows else np.zeros((0,) + out.shape, out.dtype)
    if not rows:
        _, _, tol_dtype = reference(prog, [np.zeros(v.shape, v.dtype) for v in prog.inputs])
    with jaxc.enable_x64(prog.x64):
        got = jaxc.vmap(prog.function(jnp), in_axes=prog.in_axes)(*values)
    batched = Var(out.name, (prog.batch,) + out.shape, out.dtype)
    assert_matches(got, want, batched, scale, tol_dtype, "vmap")


def numerical_grad(f: Any, values: list[np.ndarray], eps: float = 1e-6) -> list[np.ndarray]:
    """Central differences of a NumPy function of float64 arrays."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return [_central(f, values, i, eps) for i in range(len(values))]


def _central(f: Any, values: list[np.ndarray], i: int, eps: float) -> np.ndarray:
    g = np.zeros_like(values[i])
    for j in np.ndindex(g.shape):
        args = [v.copy() for v in values]
        args[i][j] += eps
        up = float(f(*args))
        args[i][j] -= 2 * eps
        g[j] = (up - float(f(*args))) / (2 * eps)
    return g


def check_grad(prog: Program) -> None:
    """jaxc.grad against central differences of the NumPy program (float64),
    and jaxc.test_util.check_grads (jvp and vjp against jaxc's own function)."""
    jaxc, jnp = _jaxc()
    from jaxc.test_util import check_grads
    values = prog.values()
    f_np = prog.function(np)
    want = numerical_grad(f_np, values)
    with jaxc.enable_x64(True):
        f = prog.function(jnp)
        got = jaxc.grad(f, argnums=tuple(range(len(values))))(*values)
        scale = max([1.0, abs(float(f_np(*values)))] + [float(np.abs(w).max(initial=0)) for w in want])
        for i, (g, w) in enumerate(zip(got, want)):
            g = np.asarray(g)
            assert g.dtype == np.float64 and g.shape == w.shape, \
                f"grad {i}: {g.dtype}{list(g.shape)}, expected float64{list(w.shape)}"
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6 * scale,
                                       err_msg=f"grad wrt x{i} differs from central differences")
        check_grads(f, values, order=1, modes=("fwd", "rev"), atol=1e-5 * scale, rtol=1e-5)


# --------------------------------------------------------------------------
# Op classes: one Case per example
# --------------------------------------------------------------------------

@dataclasses.dataclass
class Arg:
    """An input of a Case: its shape (without the vmap axis), dtype, and how
    its values are drawn (`fill`, see `fill_values`; `bound` is the size of
    the axis that an index fill indexes)."""
    name: str
    shape: tuple
    dtype: str
    fill: str = "smooth"
    bound: int = 0
    batched: bool = False   # vmap mode: the argument gets a leading batch axis


@dataclasses.dataclass
class Case:
    """One example of an op class (control flow, gather/scatter, conv,
    random, sort, linalg). `source` defines `f` over `jnp`, `lax` and `random`
    (jaxc's, JAX's, or the NumPy stand-ins when `ref` is empty); `ref`
    defines `ref`, f's NumPy reference, over `np` and `fp` (this module). Both
    return a tuple. `mode` says what runs: "values" (eager and jit), "vmap"
    (over the args marked batched, `batch` lanes) or "grad" (`loss`, a
    function of f's outputs, differentiated wrt the float args in float64)."""
    kind: str
    mode: str
    x64: bool
    args: list[Arg]
    source: str
    ref: str
    outs: list[tuple[tuple, str]]   # JAX's shape and dtype of each of f's outputs
    seed: int
    batch: int = 0
    loss: str = ""
    grad_modes: tuple = ("fwd", "rev")
    exact: bool = False             # compare floats bit for bit (NaNs of either sign are equal)
    zero_sign: bool = True          # exact: -0.0 != 0.0
    tol_factor: float = 1.0         # float tolerance: TOL[dtype] * tol_factor, times the scale
    ops: str = ""

    @property
    def in_axes(self) -> tuple:
        return tuple(0 if a.batched else None for a in self.args)

    @property
    def diff_args(self) -> tuple:
        return tuple(i for i, a in enumerate(self.args) if is_float(a.dtype))

    def values(self) -> list[np.ndarray]:
        rng = np.random.default_rng(self.seed)
        out = []
        for a in self.args:
            if self.mode == "vmap" and a.batched:
                lanes = [fill_values(rng, a) for _ in range(self.batch)]
                out.append(np.stack(lanes) if lanes else np.zeros((0,) + a.shape, a.dtype))
            else:
                out.append(fill_values(rng, a))
        return out

    def lanes(self, values: list[np.ndarray]) -> list[list[np.ndarray]]:
        """vmap mode: the arguments of each lane."""
        return [[v[i] if a.batched else v for v, a in zip(values, self.args)] for i in range(self.batch)]

    def signature(self) -> str:
        return f"{self.kind}/{self.mode}: {self.ops}"

    def functions(self, backend: str = "jaxc") -> tuple[Any, Any]:
        """(f, loss) over jaxc ("jaxc"), JAX ("jax") or NumPy ("numpy": `ref`,
        or f's own source over NUMPY_LAX when there is no `ref`)."""
        scope = numpy_namespace() if backend == "numpy" else _backend(backend).namespace
        if backend == "numpy" and self.ref:
            exec(self.ref, scope)
            scope["f"] = scope["ref"]
        else:
            exec(self.source, scope)
        if self.loss:
            exec(self.loss, scope)
        return scope["f"], scope.get("loss")

    def reproducer(self, message: str) -> dict[str, str]:
        """A script, run from the repository root, that prints jaxc's results
        and the reference (fp's NumPy helpers; JAX's numbers for random)."""
        comment = "\n".join("# " + line for line in message.strip().splitlines()[:40])
        args = ", ".join(_literal(v) for v in self.values())
        ref = self.ref or self.source
        lines = [f"# jaxc fuzz reproducer ({self.signature()})", comment,
                 "import sys", "sys.path.insert(0, 'tests/python')  # fuzz_programs: the NumPy references",
                 "import numpy as np", "import jaxc", "import jaxc.numpy as jnp", "from jaxc import lax, random",
                 "import fuzz_programs as fp", "",
                 f"jaxc.config.update('jax_enable_x64', {self.x64})", "", self.source + self.loss,
                 "" if self.kind == "random" else f"ref_f, ref_loss = fp.numpy_functions({ref!r}, {self.loss!r})",
                 "",
                 f"args = [{args}]"]
        if self.mode == "values":
            lines += ["print('eager:', f(*[jnp.asarray(a) for a in args]))", "print('jit:  ', jaxc.jit(f)(*args))"]
            if self.kind == "random":   # the reference: JAX's bits
                lines += ["import jax", f"jax.config.update('jax_enable_x64', {self.x64})",
                          f"print('JAX:  ', fp.source_function({self.source!r}, 'jax')(*args))"]
            else:
                lines += ["print('NumPy:', ref_f(*[fp.widen(a) for a in args]))"]
        elif self.mode == "vmap":
            lines += [f"axes = {self.in_axes!r}", "print('vmap: ', jaxc.vmap(f, in_axes=axes)(*args))",
                      "lane = lambda i: [a[i] if ax == 0 else a for a, ax in zip(args, axes)]",
                      f"print('loop: ', [{'f' if self.kind == 'random' else 'ref_f'}"
                      f"(*[fp.widen(a) for a in lane(i)]) for i in range({self.batch})])"]
        else:
            call = "jaxc.grad" if "rev" in self.grad_modes else "jaxc.jacfwd"
            lines += [f"print('jaxc:   ', {call}(loss, argnums={self.diff_args!r})(*args))",
                      f"print('central:', fp.central_differences(ref_loss, args, {self.diff_args!r}))"]
        return {"repro.py": "\n".join(lines) + "\n"}


def source_function(source: str, backend: str = "jaxc") -> Any:
    """`f` of `source` over jaxc or JAX."""
    scope = _backend(backend).namespace
    exec(source, scope)
    return scope["f"]


def widen(a: np.ndarray) -> np.ndarray:
    """Float arrays in float64 (the references compute in float64)."""
    return a.astype(np.float64) if floating(a) else a


def fill_values(rng: np.random.Generator, a: Arg) -> np.ndarray:
    """The values of one lane of `a`, by its fill:
    smooth: floats uniform in [-1.5, 1.5]; quarter: multiples of 1/4 in
    [-4, 4], ints in [-5, 5], random bools; count: ints in [-1, 5];
    index: ints in [-bound-3, bound+2] (out of bounds on both sides; unsigned:
    [0, bound+2]); inbounds: [-bound, bound-1]; unique-drop/-clip/-in:
    distinct targets in [0, bound) written as i or i - bound, plus out of
    bounds indices that go nowhere (drop) or clamp onto an end no other index
    targets (clip); ties: few distinct values, with -0.0, +-inf and NaNs of
    either sign for floats;
    distinct: floats in [-1.5, 1.5], pairwise far apart; key: a raw uint32 key; general/spd/symmetric:
    well-conditioned matrices (singular values in [0.5, 2]; symmetric:
    eigenvalues 0.4 apart)."""
    shape, dtype, fill = a.shape, a.dtype, a.fill
    size = math.prod(shape)
    if fill == "key":
        return rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    if fill in ("count", "index", "inbounds") or fill.startswith("unique"):
        unsigned = dtype.startswith("uint")
        n = a.bound
        if fill == "count":
            lo, hi = -1, 5
        elif fill == "index":
            lo, hi = (0 if unsigned else -n - 3), n + 2
        else:
            lo, hi = (0 if unsigned else -n), n - 1
        if fill.startswith("unique"):
            return _unique_indices(rng, shape[0], n, fill.split("-")[1], unsigned).astype(dtype)
        return rng.integers(lo, hi + 1, shape).astype(dtype)
    if fill in ("general", "spd", "symmetric"):
        mats = [_matrix(rng, fill, shape[-2], shape[-1]) for _ in range(math.prod(shape[:-2]))]
        return np.array(mats, dtype=np.float64).reshape(shape).astype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if fill == "distinct":   # at least 2.7/size apart: finite differences never swap two
        return ((rng.permutation(size) + rng.uniform(0, 0.1, size)) * 3 / max(size, 1) - 1.5).reshape(shape).astype(dtype)
    if fill == "ties":
        if not is_float(dtype):
            return rng.integers(-3, 4, shape).astype(dtype)
        pool = np.array([-2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf, -np.inf, np.nan, -np.nan])
        return pool[rng.integers(0, len(pool), size)].reshape(shape).astype(dtype)
    if not is_float(dtype):
        return rng.integers(-5, 6, shape).astype(dtype)
    if fill == "quarter":
        return (rng.integers(-16, 17, shape) / 4).astype(dtype)
    return rng.uniform(-1.5, 1.5, shape).astype(dtype)


def _unique_indices(rng: np.random.Generator, m: int, n: int, oob: str, unsigned: bool) -> np.ndarray:
    targets = rng.permutation(n)[:m]
    out = np.where((rng.random(m) < 0.5) & (not unsigned), targets - n, targets)
    if oob == "drop":
        far = rng.choice([n, n + 2] if unsigned else [n, n + 2, -n - 1, -n - 3], m)
        out = np.where(rng.random(m) < 0.3, far, out)
    elif oob == "clip" and m:
        # clamps onto index n-1 (or 0): only when no other index targets it
        if n - 1 not in targets[1:] and rng.random() < 0.5:
            out[0] = n + 1
        elif 0 not in targets[1:] and not unsigned:
            out[0] = -n - 2
    return out


def _orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.where(np.diag(r) < 0, -1.0, 1.0)


def _matrix(rng: np.random.Generator, kind: str, m: int, n: int) -> np.ndarray:
    k = min(m, n)
    spread = 0.5 + 1.5 * (np.arange(k) + rng.uniform(0.1, 0.9, k)) / max(k, 1)
    if kind == "general":
        return (_orthogonal(rng, m)[:, :k] * rng.permutation(spread)) @ _orthogonal(rng, n)[:, :k].T
    q = _orthogonal(rng, n)
    w = spread if kind == "spd" else -2.0 + 4.0 * (np.arange(n) + rng.uniform(0.3, 0.7, n)) / max(n, 1)
    a = (q * rng.permutation(w)) @ q.T
    return (a + a.T) / 2


# The backends a Case runs on -------------------------------------------------

@dataclasses.dataclass
class _Backend:
    api: Any          # jaxc or jax: jit, vmap, grad, jacfwd
    namespace: dict   # jnp, lax, random for the sources
    check_grads: Any
    x64: Any          # x64(flag): a context manager


def _backend(name: str) -> _Backend:
    """jaxc, or JAX itself (to check the references of this module)."""
    if name == "jaxc":
        import jaxc
        from jaxc.test_util import check_grads
        return _Backend(jaxc, {"jaxc": jaxc, "jnp": jaxc.numpy, "lax": jaxc.lax, "random": jaxc.random, "np": np},
                        check_grads, jaxc.enable_x64)
    import contextlib

    import jax
    from jax.test_util import check_grads as jax_check_grads

    @contextlib.contextmanager
    def x64(flag: bool) -> Any:
        before = jax.config.jax_enable_x64
        jax.config.update("jax_enable_x64", flag)
        try:
            yield
        finally:
            jax.config.update("jax_enable_x64", before)
    return _Backend(jax, {"jax": jax, "jnp": jax.numpy, "lax": jax.lax, "random": jax.random, "np": np},
                    jax_check_grads, x64)


class _NumPyLax:
    """jax.lax's control flow as Python over NumPy values (the reference of the
    control-flow cases): switch clamps its index, scan stacks its outputs."""

    @staticmethod
    def cond(pred: Any, true_fun: Any, false_fun: Any, *operands: Any) -> Any:
        return true_fun(*operands) if bool(pred) else false_fun(*operands)

    @staticmethod
    def switch(index: Any, branches: Any, *operands: Any) -> Any:
        return branches[int(np.clip(index, 0, len(branches) - 1))](*operands)

    @staticmethod
    def while_loop(cond_fun: Any, body_fun: Any, init_val: Any) -> Any:
        val = init_val
        while bool(cond_fun(val)):
            val = body_fun(val)
        return val

    @staticmethod
    def fori_loop(lower: Any, upper: Any, body_fun: Any, init_val: Any, *, unroll: Any = None) -> Any:
        val = init_val
        for i in range(int(lower), int(upper)):
            val = body_fun(i, val)
        return val

    @staticmethod
    def scan(f: Any, init: Any, xs: Any = None, length: Any = None, reverse: bool = False, unroll: Any = 1) -> Any:
        n = length if xs is None else len(xs)
        carry, ys = init, [None] * n
        for t in (range(n - 1, -1, -1) if reverse else range(n)):
            carry, ys[t] = f(carry, None if xs is None else xs[t])
        if not n:   # the shape of y: one step on zeros, thrown away
            _, y = f(init, None if xs is None else np.zeros(xs.shape[1:], xs.dtype))
            return carry, np.zeros((0,) + np.shape(y))
        return carry, np.stack([np.asarray(y) for y in ys])


NUMPY_LAX = _NumPyLax()


def numpy_namespace() -> dict:
    return {"jnp": NUMPY_REF, "lax": NUMPY_LAX, "np": np, "fp": sys.modules[__name__]}


def numpy_functions(source: str, loss: str = "") -> tuple[Any, Any]:
    """(f, loss) of a reference source (defining `ref`, or `f` over NumPy)."""
    scope = numpy_namespace()
    exec(source, scope)
    if "ref" in scope:
        scope["f"] = scope["ref"]
    if loss:
        exec(loss, scope)
    return scope["f"], scope.get("loss")


def reference_outputs(case: Case, values: list[np.ndarray]) -> list[np.ndarray]:
    """f's outputs by the reference, in float64, rounded to JAX's dtypes."""
    f, _ = case.functions("numpy")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        outs = f(*[widen(v) for v in values])
    assert len(outs) == len(case.outs), f"generator bug: {len(outs)} reference outputs for {case.outs}"
    return [np.asarray(o).astype(dtype) for o, (_, dtype) in zip(outs, case.outs)]


def magnitude(arrays: list[np.ndarray]) -> float:
    """The largest finite magnitude in `arrays`, at least 1 (tolerances scale with it)."""
    scale = 1.0
    for a in arrays:
        a = np.asarray(a).astype(np.float64)
        finite = np.abs(a[np.isfinite(a)])
        if finite.size:
            scale = max(scale, float(finite.max()))
    return scale


def _same(got: np.ndarray, want: np.ndarray, zero_sign: bool = True) -> np.ndarray:
    """Elementwise: equal, or both NaN; for floats also the same sign bit
    (so -0.0 != 0.0 unless not `zero_sign`), except between NaNs."""
    if not floating(got):
        return got == want
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(g) & np.isnan(w)
    return nan | ((g == w) & ((np.signbit(g) == np.signbit(w)) | (not zero_sign)))


def compare_outputs(got: Any, want: list[np.ndarray], case: Case, what: str, scale: float,
                    batch: int | None = None) -> None:
    """`got` (f's outputs) has JAX's dtypes and the reference's shapes and
    values: ints and bools exactly, floats bit for bit when `case.exact`, else
    within TOL[dtype] * tol_factor (relative, and times `scale` absolute)."""
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w, (shape, dtype)) in enumerate(zip(got, want, case.outs)):
        g = np.asarray(g)
        name = f"{what}: output {k}"
        expected = shape if batch is None else (batch,) + shape
        assert g.dtype == np.dtype(dtype), f"{name}: dtype {g.dtype}, JAX gives {dtype}"
        assert g.shape == w.shape == expected, f"{name}: shape {g.shape}, JAX gives {expected}"
        if floating(g) and not case.exact:
            tol = TOL[dtype] * case.tol_factor
            try:
                np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                           atol=tol * scale, equal_nan=True)
            except AssertionError as error:
                raise AssertionError(f"{name}: values differ from the reference{error}") from None
        else:
            same = _same(g, w, case.zero_sign)
            assert same.all(), (f"{name}: {int((~same).sum())} of {same.size} values differ from the reference"
                                f" (bit for bit)\n got: {g.ravel()[:40]}\nwant: {w.ravel()[:40]}")


def central_differences(f: Any, values: list[np.ndarray], argnums: tuple, eps: float = 1e-6) -> list[np.ndarray]:
    """Central differences of a NumPy function wrt the arguments `argnums`."""
    values = [widen(v) for v in values]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return [_central(f, values, i, eps) for i in argnums]


def check_case(case: Case, backend: str = "jaxc") -> None:
    """A Case by its mode (see Case): values — eager and jit equal the
    reference; vmap — equals the reference lane by lane; grad — jaxc.grad (or
    jacfwd where only forward mode applies) equals central differences of the
    reference loss, and check_grads passes. `backend="jax"` runs the same
    checks on JAX (to check the references)."""
    be = _backend(backend)
    values = case.values()
    with be.x64(case.x64):
        f, loss = case.functions(backend)
        arrays = [be.namespace["jnp"].asarray(v) for v in values]   # x.at needs arrays
        if case.mode == "values":
            want = reference_outputs(case, values)
            scale = magnitude(values + want)
            compare_outputs(f(*arrays), want, case, "eager", scale)
            compare_outputs(be.api.jit(f)(*values), want, case, "jit", scale)
        elif case.mode == "vmap":
            lanes = [reference_outputs(case, lane) for lane in case.lanes(values)]
            want = [np.stack([lane[k] for lane in lanes]) if lanes else np.zeros((0,) + shape, dtype)
                    for k, (shape, dtype) in enumerate(case.outs)]
            got = be.api.vmap(f, in_axes=case.in_axes)(*arrays)
            compare_outputs(got, want, case, "vmap", magnitude(values + want), batch=case.batch)
        else:
            _check_case_grad(case, be, values, loss)


def _check_case_grad(case: Case, be: _Backend, values: list[np.ndarray], loss: Any) -> None:
    diff = case.diff_args
    _, ref_loss = case.functions("numpy")
    want = central_differences(ref_loss, values, diff)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        scale = magnitude([ref_loss(*values)] + want)
    derivative = be.api.grad if "rev" in case.grad_modes else be.api.jacfwd
    arrays = [be.namespace["jnp"].asarray(v) for v in values]
    got = derivative(loss, argnums=diff)(*arrays)
    for i, g, w in zip(diff, got, want):
        g = np.asarray(g)
        assert g.dtype == np.float64 and g.shape == w.shape, \
            f"grad wrt {case.args[i].name}: {g.dtype}{list(g.shape)}, expected float64{list(w.shape)}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6 * scale,
                                   err_msg=f"grad wrt {case.args[i].name} differs from central differences")

    def of_float_args(*floats: Any) -> Any:
        full = list(arrays)
        for i, v in zip(diff, floats):
            full[i] = be.namespace["jnp"].asarray(v)
        return loss(*full)
    be.check_grads(of_float_args, [values[i] for i in diff], order=1, modes=case.grad_modes,
                   atol=1e-5 * scale, rtol=1e-5)


def _batch_args(draw: Any, case_args: list[Arg], mode: str) -> int:
    """vmap mode: mark a random nonempty subset of the args batched; the batch size."""
    if mode != "vmap":
        return 0
    flags = [draw(st.booleans()) for _ in case_args]
    flags[draw(st.integers(0, len(case_args) - 1))] = True
    for a, flag in zip(case_args, flags):
        a.batched = flag
    return draw(st.sampled_from([3, 1, 0, 2]))


def _float_loss(names: str, outs: list[tuple[tuple, str]]) -> str:
    """`loss`: a smooth scalar of f's float outputs."""
    terms = [f"jnp.sum(jnp.{'sin' if k % 2 == 0 else 'cos'}(out[{k}]))"
             for k, (_, dtype) in enumerate(outs) if is_float(dtype)]
    return f"\ndef loss({names}):\n    out = f({names})\n    return {' + '.join(terms)}\n"


def _function(names: str, lines: list[str], result: str) -> str:
    body = "".join(f"    {line}\n" for line in lines)
    return f"def f({names}):\n{body}    return {result}\n"


# Control flow -------------------------------------------------------------

def _smooth(draw: Any, names: list[str], depth: int) -> str:
    """A smooth expression over `names`."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(names))
    if draw(st.booleans()):
        form = draw(st.sampled_from(["jnp.sin({})", "jnp.cos({})", "jnp.tanh({})", "(0.5 * {})"]))
        return form.format(_smooth(draw, names, depth - 1))
    form = draw(st.sampled_from(["({} + {})", "({} * {})", "({} - 0.5 * {})"]))
    return form.format(_smooth(draw, names, depth - 1), _smooth(draw, names, depth - 1))


def _update(draw: Any, carry: str, names: list[str]) -> str:
    """A new value for `carry`: its shape (the other names are scalars or have
    its shape), bounded so that loops stay in range."""
    inner = _smooth(draw, [carry] + names, 2)
    form = draw(st.sampled_from(["jnp.tanh({c} + {e})", "0.5 * {c} + 0.5 * jnp.sin({e})", "{c} * jnp.cos({e})",
                                 "jnp.sin({c}) - 0.25 * {e}"]))
    return form.format(c=carry, e=inner)


@st.composite
def control_cases(draw: Any) -> Case:
    """lax.cond, switch, while_loop, fori_loop or scan over a float carry x, a
    float y (a scalar or x's shape), an int n (a switch index or a trip count:
    out-of-range indices clamp) and, for scan, stacked xs; predicates on data,
    on n, or Python constants; conds nested in loop bodies. The reference is
    the same source over NUMPY_LAX. grad: reverse mode except through
    while_loop (there jacfwd; check_control also asks for JAX's ValueError)."""
    mode = draw(st.sampled_from(["values", "vmap", "grad"]))
    x64 = mode == "grad" or draw(st.booleans())
    ft, counter = ("float64", "int64") if x64 else ("float32", "int32")
    prim = draw(st.sampled_from(["cond", "switch", "while_loop", "fori_loop", "scan"]))
    length = draw(st.sampled_from([3, 0, 1, 2])) if prim == "scan" else 0
    s = draw(shapes(0, 2))
    args = [Arg("x", s, ft), Arg("y", draw(st.sampled_from([(), s])), ft), Arg("n", (), "int32", "count")]
    outs, grad_modes, result = [(s, ft)], ("fwd", "rev"), "out,"
    if prim == "cond":
        pred = draw(st.sampled_from(["jnp.sum(x) > 0.0", "jnp.sum(x) < jnp.sum(y)", "n > 1", "n % 2 == 0", "True",
                                     "jnp.all(y > -0.5)"]))
        if draw(st.booleans()):
            call = f"lax.cond({pred}, lambda a, b: {_update(draw, 'a', ['b'])}, " \
                   f"lambda a, b: {_update(draw, 'a', ['b'])}, x, y)"
        else:   # branches closing over x and y
            call = f"lax.cond({pred}, lambda: {_update(draw, 'x', ['y'])}, lambda: {_update(draw, 'x', ['y'])})"
        lines = [f"out = {call}"]
    elif prim == "switch":
        index = draw(st.sampled_from(["n", "n - 1", "jnp.sum(x > 0.0)", "(jnp.sum(x) > jnp.sum(y)).astype(jnp.int32)"]))
        branches = ", ".join(f"lambda a, b: {_update(draw, 'a', ['b'])}" for _ in range(draw(st.integers(1, 3))))
        lines = [f"out = lax.switch({index}, [{branches}], x, y)"]
    elif prim == "while_loop":
        stop = draw(st.sampled_from(["s[0] < n", "s[0] < 3", "(s[0] < 4) & (jnp.sum(jnp.abs(s[1])) < 2.0)",
                                     "(s[0] < n + 1) & (jnp.sum(s[1]) > -1.0)"]))
        lines = [f"i, out = lax.while_loop(lambda s: {stop}, lambda s: (s[0] + 1, {_update(draw, 's[1]', ['y'])}),"
                 " (0, x))"]
        result, outs, grad_modes = "out, i", outs + [((), counter)], ("fwd",)
    elif prim == "fori_loop":
        lo, hi = draw(st.sampled_from(["0", "1", "2"])), draw(st.sampled_from(["3", "0", "n", "4"]))
        step = _update(draw, "c", ["y", "(i * 0.25)"])
        if draw(st.booleans()):
            step = f"lax.cond(i % 2 == 0, lambda c: {step}, lambda c: {_update(draw, 'c', ['y'])}, c)"
        unroll = ", unroll=2" if hi != "n" and draw(st.booleans()) else ""
        lines = [f"out = lax.fori_loop({lo}, {hi}, lambda i, c: {step}, x{unroll})"]
        prim += "(n)" * (hi == "n")
    else:
        with_xs = draw(st.booleans())
        if with_xs:
            args.append(Arg("xs", (length,) + s, ft))
        step = _update(draw, "c", ["y"] + (["t"] if with_xs else []))
        if draw(st.booleans()):
            step = f"lax.cond(jnp.sum(c) > 0.0, lambda c: {step}, lambda c: {_update(draw, 'c', ['y'])}, c)"
        emitted = _update(draw, "c", ["t"] if with_xs else ["y"])
        kw = (", reverse=True" if draw(st.booleans()) else "") + (", unroll=2" if draw(st.booleans()) else "")
        lines = [f"out, ys = lax.scan(lambda c, t: ({step}, {emitted}), x, "
                 f"{'xs' if with_xs else f'None, length={length}'}{kw})"]
        result, outs = "out, ys", outs + [((length,) + s, ft)]
    names = ", ".join(a.name for a in args)
    batch = _batch_args(draw, args, mode)
    return Case("control", mode, x64, args, _function(names, lines, result), "", outs,
                draw(st.integers(0, 2**32 - 1)), batch, _float_loss(names, outs) if mode == "grad" else "",
                grad_modes, ops=prim)


def check_control(case: Case, backend: str = "jaxc") -> None:
    """check_case; and where reverse mode does not apply, jit(grad) must raise
    ValueError as JAX's does: through while_loop, and through fori_loop with a
    bound that jit traces (outside jit an array bound is concrete, and
    fori_loop is a scan)."""
    check_case(case, backend)
    if case.mode == "grad" and case.ops in ("while_loop", "fori_loop(n)"):
        be = _backend(backend)
        with be.x64(True):
            _, loss = case.functions(backend)
            try:
                be.api.jit(be.api.grad(loss, argnums=case.diff_args))(*case.values())
            except ValueError:
                return
            raise AssertionError(f"jit(grad) through {case.ops} with a traced bound: no ValueError (JAX raises one)")


# Gather and scatter --------------------------------------------------------

def default_fill(dtype: np.dtype) -> Any:
    """JAX's fill for out-of-bounds gathers in mode "fill": NaN, the most
    negative int, the largest unsigned, True."""
    if floating(np.zeros((), dtype)):
        return np.nan
    if dtype == np.bool_:
        return True
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max


def _normalized(idx: np.ndarray, n: int, normalize: bool = True) -> np.ndarray:
    i = np.asarray(idx).astype(np.int64)
    return np.where(i < 0, i + n, i) if normalize and np.asarray(idx).dtype.kind == "i" else i


def clip_index(idx: np.ndarray, n: int) -> np.ndarray:
    """What x[idx] reads: negative indices count from the end, then clamp."""
    return np.clip(_normalized(idx, n), 0, n - 1)


def np_take(x: np.ndarray, idx: np.ndarray, axis: int, mode: str, fill_value: Any = None,
            normalize: bool = True, dtype: Any = None) -> np.ndarray:
    """x indexed along `axis` by the int array idx, with JAX's out-of-bounds
    modes: "clip" clamps, "wrap" takes the index mod the size, "fill" gives
    fill_value (default: `default_fill` of `dtype`, x's JAX dtype). Negative
    indices count from the end first when `normalize` (jnp.take's "clip" does
    not)."""
    n = x.shape[axis]
    i = _normalized(idx, n, normalize)
    if mode == "wrap":
        i = i % n
    out = np.take(x, np.clip(i, 0, n - 1), axis=axis)
    if mode == "fill":
        fill = default_fill(np.dtype(dtype or x.dtype)) if fill_value is None else fill_value
        inside = ((i >= 0) & (i < n)).reshape((1,) * axis + i.shape + (1,) * (x.ndim - axis - 1))
        out = np.where(inside, out, np.asarray(fill, dtype=out.dtype))
    return out


def np_take_along_axis(x: np.ndarray, idx: np.ndarray, axis: int, mode: str, fill_value: Any = None,
                       dtype: Any = None) -> np.ndarray:
    """jnp.take_along_axis: negative indices count from the end, then "clip"
    clamps and "fill" fills (as np_take)."""
    n = x.shape[axis]
    i = _normalized(idx, n)
    out = np.take_along_axis(x, np.clip(i, 0, n - 1), axis)
    if mode == "fill":
        fill = default_fill(np.dtype(dtype or x.dtype)) if fill_value is None else fill_value
        out = np.where((i >= 0) & (i < n), out, np.asarray(fill, dtype=out.dtype))
    return out


def np_scatter(x: np.ndarray, idx: np.ndarray, updates: Any, op: str, mode: str | None,
               axis: int = 0) -> np.ndarray:
    """x.at[idx] (axis 0) or x.at[:, idx] (axis 1) .set/.add/.mul/.min/.max
    in NumPy: negative indices count from the end; out of bounds, an update is
    dropped, or clamped onto the end in mode "clip"; duplicates apply in
    order."""
    out = np.moveaxis(x.copy(), axis, 0)
    n = out.shape[0]
    i = _normalized(idx, n)
    lead = x.shape[:axis]
    upd = np.broadcast_to(np.asarray(updates, dtype=x.dtype), lead + i.shape + x.shape[axis + 1:])
    upd = np.moveaxis(upd, list(range(axis)), list(range(i.ndim, i.ndim + axis)))
    apply = {"set": lambda a, u: u, "add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    for j in np.ndindex(i.shape):
        t = int(np.clip(i[j], 0, n - 1)) if mode == "clip" else int(i[j])
        if 0 <= t < n:
            out[t] = apply(out[t], upd[j])
    return np.moveaxis(out, 0, axis)


def _index_arg(name: str, shape: tuple, itype: str, n: int, fill: str = "index") -> Arg:
    return Arg(name, shape, itype, fill, bound=n)


# JAX's derivative conventions that differ from the derivative of its values (so
# central differences do not apply), left out of grad cases (checked against JAX 0.10.2):
# x[idx] clamps out-of-bounds reads but drops their cotangents (grad of x[[5]] for
# x of size 3 is 0), and .at[].min/.max(mode="clip") gives inf for clamped updates
# (jaxc clamps the indices first and gives the derivative of the values).


def _literal_fill(draw: Any, dtype: str) -> str:
    return draw(st.sampled_from(["0.5", "-2.0"] if is_float(dtype) else ["False"] if dtype == "bool" else ["7", "-1"]))


@st.composite
def gather_cases(draw: Any) -> Case:
    """x[idx], x[:, idx], x[..., idx], x[i0, i1], x.at[idx].get(mode=...),
    jnp.take (fill/clip/wrap, flattened or along an axis), take_along_axis
    (fill/clip, broadcast indices) and x.at[idx] / x.at[:, idx]
    .set/.add/.mul/.min/.max (modes drop/clip/fill/promise_in_bounds) with
    random index arrays of int8/int32/uint8 (int64 under x64), out of bounds
    on both sides. The references are np_take, np_take_along_axis and
    np_scatter (JAX's modes). grad (float64): loss of the result wrt x and the
    updates (.set and .add: JAX has no derivative of .mul with repeated
    indices; for .min/.max see below); explicit fill values there, as NaN
    fills have no derivative."""
    mode = draw(st.sampled_from(["values", "vmap", "grad"]))
    x64 = mode == "grad" or draw(st.booleans())
    dt = "float64" if mode == "grad" else draw(st.sampled_from(["float32", "int32", "bool"] + ["float64"] * x64))
    it = draw(st.sampled_from(["int32", "uint8", "int8"] + ["int64"] * x64))
    form = draw(st.sampled_from(["index", "index2", "get", "take", "take_along_axis", "scatter", "scatter"]))
    shape = list(draw(shapes(2 if form == "index2" else 1, 3)))
    fill = "smooth" if mode == "grad" else "quarter"
    x = Arg("x", (), dt, fill)
    axis = draw(st.integers(0, min(len(shape), 2) - 1))
    if form in ("index2", "get"):
        axis = 0
    if form == "index2":
        shape[1] = shape[1] or 1
    shape[axis] = shape[axis] or draw(st.sampled_from([1, 3]))   # JAX cannot gather from an empty axis
    x.shape = tuple(shape)
    n = shape[axis]
    args, outs_dtype = [x], dt
    fill_kw = ""
    if form in ("index", "get", "take") or (form == "scatter" and draw(st.booleans())):
        ishape = draw(shapes(0, 2))
    else:
        ishape = (draw(st.sampled_from([2, 3, 0, 1])),)
    plain = "inbounds" if mode == "grad" else "index"   # x[idx]: see above
    if form == "index":
        spelled = draw(st.sampled_from(["x[idx]", "x[..., idx]"] + ["x[:, idx]"] * (len(shape) > 1)))
        axis = {"x[idx]": 0, "x[:, idx]": 1, "x[..., idx]": len(shape) - 1}[spelled]
        n = shape[axis] = shape[axis] or 1
        x.shape = tuple(shape)
        args.append(_index_arg("idx", ishape, it, n, plain))
        expr, ref = spelled, f"fp.np_take(x, idx, {axis}, 'clip')"
        out_shape = tuple(shape[:axis]) + ishape + tuple(shape[axis + 1:])
    elif form == "index2":
        other = tuple(1 if draw(st.booleans()) else d for d in ishape)[draw(st.integers(0, len(ishape))):]
        args += [_index_arg("i0", ishape, it, shape[0], plain), _index_arg("i1", other, it, shape[1], plain)]
        expr = "x[i0, i1]"
        ref = f"x[fp.clip_index(i0, {shape[0]}), fp.clip_index(i1, {shape[1]})]"
        out_shape = _broadcast(ishape, other) + tuple(shape[2:])
    elif form == "get":
        how = draw(st.sampled_from(["clip", "fill"]))
        if how == "fill" and (mode == "grad" or draw(st.booleans())):
            value = _literal_fill(draw, dt)
            fill_kw, ref_fill = f", fill_value={value}", value
        else:
            ref_fill = "None"
        args.append(_index_arg("idx", ishape, it, shape[0]))
        expr = f"x.at[idx].get(mode={how!r}{fill_kw})"
        ref = f"fp.np_take(x, idx, 0, {how!r}, {ref_fill}, dtype={dt!r})"
        out_shape = ishape + tuple(shape[1:])
    elif form == "take":
        how = draw(st.sampled_from([None, "fill", "clip", "wrap"]))
        flat = draw(st.booleans()) and math.prod(shape) > 0
        if flat:
            axis, n = None, math.prod(shape)
        ref_fill = "None"
        if how in (None, "fill") and (mode == "grad" or draw(st.booleans())):
            value = _literal_fill(draw, dt)
            fill_kw, ref_fill = f", fill_value={value}", value
        args.append(_index_arg("idx", ishape, it, n))
        kw = ("" if flat and draw(st.booleans()) else f", axis={axis}") + ("" if how is None else f", mode={how!r}")
        expr = f"jnp.take(x, idx{kw}{fill_kw})"
        source_x, along = ("x.ravel()", 0) if flat else ("x", axis)
        ref = (f"fp.np_take({source_x}, idx, {along}, {how or 'fill'!r}, {ref_fill}, normalize={how != 'clip'}, "
               f"dtype={dt!r})")
        out_shape = ishape if flat else tuple(shape[:axis]) + ishape + tuple(shape[axis + 1:])
    elif form == "take_along_axis":
        axis = draw(st.integers(0, len(shape) - 1))
        n = shape[axis] = shape[axis] or 1
        x.shape = tuple(shape)
        ishape = tuple(ishape[0] if d == axis else 1 if draw(st.booleans()) else shape[d] for d in range(len(shape)))
        how = draw(st.sampled_from([None, "fill", "clip"]))
        ref_fill = "None"
        if how in (None, "fill") and (mode == "grad" or draw(st.booleans())):
            value = _literal_fill(draw, dt)
            fill_kw, ref_fill = f", fill_value={value}", value
        args.append(_index_arg("idx", ishape, it, n))
        spelled = axis - len(shape) if draw(st.booleans()) else axis
        expr = f"jnp.take_along_axis(x, idx, axis={spelled}{'' if how is None else f', mode={how!r}'}{fill_kw})"
        ref = f"fp.np_take_along_axis(x, idx, {axis}, {how or 'fill'!r}, {ref_fill}, dtype={dt!r})"
        out_shape = tuple(ishape[d] if d == axis else shape[d] for d in range(len(shape)))
    else:
        op_ = draw(st.sampled_from(["set"] if dt == "bool" else ["set", "add", "min", "max", "mul"]))
        # grad: JAX's .min/.max(mode="clip") convention differs (see above)
        hows = [None, "drop", "fill", "promise_in_bounds"] + ["clip"] * (mode != "grad" or op_ not in ("min", "max"))
        how = draw(st.sampled_from(hows))
        # grad of .mul in its updates: JAX (and jaxc) need the promise of unique indices
        unique = op_ == "mul" and mode == "grad"
        axis = draw(st.integers(0, min(len(shape), 2) - 1))
        n = shape[axis] = shape[axis] or 1
        x.shape = tuple(shape)
        if op_ == "set" or unique:   # repeated targets would leave the winner unspecified
            ishape = (min(ishape[0] if ishape else 1, n),)
            tail = {"clip": "clip", "promise_in_bounds": "in"}.get(how, "drop")
            args.append(_index_arg("idx", ishape, it, n, f"unique-{tail}"))
        else:
            args.append(_index_arg("idx", ishape, it, n, "inbounds" if how == "promise_in_bounds" else "index"))
        ushape = tuple(shape[:axis]) + ishape + tuple(shape[axis + 1:])
        if mode != "grad" and draw(st.integers(0, 3)) == 0:
            update = _literal_fill(draw, dt) if dt != "bool" else "True"
        else:
            ushape = ushape[draw(st.integers(0, len(ushape))):]
            ushape = tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in ushape)
            args.append(Arg("u", ushape, dt, fill))
            update = "u"
        where = "x.at[idx]" if axis == 0 else "x.at[:, idx]"
        expr = (f"{where}.{op_}({update}{'' if how is None else f', mode={how!r}'}"
                f"{', unique_indices=True' if unique else ''})")
        ref = f"fp.np_scatter(x, idx, {update}, {op_!r}, {how!r}, {axis})"
        out_shape = tuple(shape)
        form = f"scatter-{op_}"
    names = ", ".join(a.name for a in args)
    outs = [(out_shape, outs_dtype)]
    batch = _batch_args(draw, args, mode)
    return Case("gather", mode, x64, args, _function(names, [f"out = {expr}"], "out,"),
                f"def ref({names}):\n    return {ref},\n", outs, draw(st.integers(0, 2**32 - 1)), batch,
                _float_loss(names, outs) if mode == "grad" else "", ops=f"{form} {expr}")


def check_gather(case: Case, backend: str = "jaxc") -> None:
    """check_case: values and vmap against np_take/np_scatter, grad against
    central differences."""
    check_case(case, backend)


# Convolution ---------------------------------------------------------------

def _pads(padding: Any, sizes: list[int], windows: list[int], strides: list[int]) -> list[tuple[int, int]]:
    """(low, high) padding per spatial dim; strings as lax.padtype_to_pads
    (on the input's size and the dilated window's)."""
    if not isinstance(padding, str):
        return [tuple(p) for p in padding]
    if padding == "VALID":
        return [(0, 0)] * len(sizes)
    pads = []
    for size, window, stride in zip(sizes, windows, strides):
        total = max((-(-size // stride) - 1) * stride + window - size, 0)
        low = total // 2 if padding == "SAME" else total - total // 2
        pads.append((low, total - low))
    return pads


def np_conv(lhs: np.ndarray, rhs: np.ndarray, strides: Any, padding: Any, lhs_dilation: Any = None,
            rhs_dilation: Any = None, dimension_numbers: Any = None, feature_group_count: int = 1,
            batch_group_count: int = 1) -> np.ndarray:
    """lax.conv_general_dilated in NumPy: spatial dims in the order of the rhs
    spec; the input dilated (zeros between elements), padded (negative pads
    crop), then correlated with the dilated window at the strides. Feature
    group g maps input channels [g*I, (g+1)*I) to the g-th block of outputs;
    batch group b takes the b-th block of the batch to the b-th block of
    outputs."""
    nsp = lhs.ndim - 2
    lhs_spec, rhs_spec, out_spec = dimension_numbers or ("NC" + "HWD"[:nsp], "OI" + "HWD"[:nsp], "NC" + "HWD"[:nsp])
    spatial = [c for c in rhs_spec if c not in "OI"]
    lhs = lhs.transpose([lhs_spec.index(c) for c in "NC" + "".join(spatial)])
    rhs = rhs.transpose([rhs_spec.index(c) for c in "OI" + "".join(spatial)])
    lhs_dilation, rhs_dilation = lhs_dilation or (1,) * nsp, rhs_dilation or (1,) * nsp
    windows = [(k - 1) * d + 1 if k else 0 for k, d in zip(rhs.shape[2:], rhs_dilation)]
    pads = _pads(padding, list(lhs.shape[2:]), windows, list(strides))
    for d, (dil, (low, high)) in enumerate(zip(lhs_dilation, pads)):
        axis, size = d + 2, lhs.shape[d + 2]
        dilated = np.zeros(lhs.shape[:axis] + (max((size - 1) * dil + 1, 0),) + lhs.shape[axis + 1:], lhs.dtype)
        dilated[(slice(None),) * axis + (slice(None, None, dil),)] = lhs
        grown = np.pad(dilated, [(0, 0)] * axis + [(max(low, 0), max(high, 0))] + [(0, 0)] * (nsp - d - 1))
        stop = grown.shape[axis] - max(-high, 0)
        lhs = grown[(slice(None),) * axis + (slice(max(-low, 0), max(stop, max(-low, 0))),)]
    n, c = lhs.shape[:2]
    o, i = rhs.shape[:2]
    g, b = feature_group_count, batch_group_count
    out_sp = [max((size - w) // s + 1, 0) for size, w, s in zip(lhs.shape[2:], windows, strides)]
    patches = lhs.reshape((b, n // b, g, i) + lhs.shape[2:])
    weights = rhs.reshape((b, g, o // (b * g), i) + rhs.shape[2:])
    out = np.zeros((n // b, b, g, o // (b * g)) + tuple(out_sp), np.result_type(lhs, rhs))
    for k in np.ndindex(*rhs.shape[2:]):
        window = tuple(slice(kk * dil, kk * dil + (size - 1) * s + 1, s)
                       for kk, dil, size, s in zip(k, rhs_dilation, out_sp, strides))
        if any(size == 0 for size in out_sp):
            break
        out += np.einsum("bngi...,bgoi->nbgo...", patches[(Ellipsis,) + window], weights[(Ellipsis,) + k])
    out = out.reshape((n // b, o) + tuple(out_sp))
    return out.transpose([("NC" + "".join(spatial)).index(ch) for ch in out_spec])


@st.composite
def conv_cases(draw: Any) -> Case:
    """lax.conv_general_dilated with 1 or 2 spatial dims of size 0-5, windows
    1-3, strides 1-2, padding VALID/SAME/SAME_LOWER or explicit (negative
    too), input dilation (explicit padding only, as JAX requires) and window
    dilation, feature or batch groups, and default or permuted layouts
    ("NHWC"-style dimension numbers). The reference is np_conv; grad (float64)
    wrt both operands; vmap over either (a batched window is a grouped conv)."""
    mode = draw(st.sampled_from(["values", "vmap", "grad"]))
    x64 = mode == "grad" or draw(st.booleans())
    ft = "float64" if x64 else "float32"
    nsp = draw(st.sampled_from([1, 2]))
    groups = draw(st.sampled_from(["none", "none", "feature", "batch"]))
    g, b = (2 if groups == "feature" else 1), (2 if groups == "batch" else 1)
    n, i = b * draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 2]))
    c, o = g * i, g * b * draw(st.sampled_from([1, 2]))
    sizes = [draw(st.sampled_from([3, 4, 1, 5, 0, 2])) for _ in range(nsp)]
    windows = [draw(st.sampled_from([1, 2, 3])) for _ in range(nsp)]
    strides = tuple(draw(st.sampled_from([1, 2])) for _ in range(nsp))
    rhs_dilation = tuple(draw(st.sampled_from([1, 2])) for _ in range(nsp))
    padding: Any = draw(st.sampled_from(["VALID", "SAME", "SAME_LOWER", "explicit", "explicit"]))
    lhs_dilation = (1,) * nsp
    if padding == "explicit":
        lhs_dilation = tuple(draw(st.sampled_from([1, 1, 2])) for _ in range(nsp))
        padding = []
        for size, dil in zip(sizes, lhs_dilation):
            dilated = (size - 1) * dil + 1 if size else 0
            low = draw(st.integers(-min(dilated, 1), 2))
            padding.append((low, draw(st.integers(-min(dilated + low, 1), 2))))
    letters = "HW"[:nsp]
    dims = {"N": n, "C": c, "O": o, "I": i}
    if draw(st.booleans()):
        specs = tuple("".join(draw(st.permutations(base + letters))) for base in ("NC", "OI", "NC"))
        dn = f", dimension_numbers={specs!r}"
    else:
        specs, dn = ("NC" + letters, "OI" + letters, "NC" + letters), ""
    spatial = [ch for ch in specs[1] if ch not in "OI"]   # strides etc. follow the rhs spec's order
    lhs_shape = tuple(dims[ch] if ch in "NC" else sizes[spatial.index(ch)] for ch in specs[0])
    rhs_shape = tuple(dims[ch] if ch in "OI" else windows[spatial.index(ch)] for ch in specs[1])
    fill = "smooth" if mode == "grad" else "quarter"
    args = [Arg("lhs", lhs_shape, ft, fill), Arg("rhs", rhs_shape, ft, fill)]
    kw = (f", {lhs_dilation}, {rhs_dilation}" if lhs_dilation != (1,) * nsp or draw(st.booleans())
          else f", rhs_dilation={rhs_dilation}")
    kw += dn + (f", feature_group_count={g}" if g > 1 else "") + (f", batch_group_count={b}" if b > 1 else "")
    expr = f"lax.conv_general_dilated(lhs, rhs, {strides}, {padding!r}{kw})"
    ref = (f"fp.np_conv(lhs, rhs, {strides}, {padding!r}, {lhs_dilation}, {rhs_dilation}, {specs!r}, {g}, {b})")
    out_shape = np_conv(np.zeros(lhs_shape), np.zeros(rhs_shape), strides, padding, lhs_dilation, rhs_dilation,
                        specs, g, b).shape
    outs = [(out_shape, ft)]
    batch = _batch_args(draw, args, mode)
    return Case("conv", mode, x64, args, _function("lhs, rhs", [f"out = {expr}"], "out,"),
                f"def ref(lhs, rhs):\n    return {ref},\n", outs, draw(st.integers(0, 2**32 - 1)), batch,
                _float_loss("lhs, rhs", outs) if mode == "grad" else "", tol_factor=i * math.prod(windows),
                ops=f"{'x'.join(map(str, lhs_shape))} * {'x'.join(map(str, rhs_shape))}{dn and ' layout'}"
                    f"{' groups=' + groups if groups != 'none' else ''}")


def check_conv(case: Case, backend: str = "jaxc") -> None:
    """check_case against np_conv (float tolerance scaled by the products per
    output)."""
    check_case(case, backend)


# Random --------------------------------------------------------------------

FLOAT_SAMPLERS = {
    "uniform": "random.uniform(k, {shape}{dtype})",
    "uniform_range": "random.uniform(k, {shape}{dtype}, minval=-2.0, maxval=3.0)",
    "normal": "random.normal(k, {shape}{dtype})",
    "truncated_normal": "random.truncated_normal(k, -1.0, 2.0, {shape}{dtype})",
    "exponential": "random.exponential(k, {shape}{dtype})",
    "gumbel": "random.gumbel(k, {shape}{dtype})",
    "laplace": "random.laplace(k, {shape}{dtype})",
    "gamma": "random.gamma(k, 2.0, {shape}{dtype})",
}
# properties of one sample `s` (NumPy), beyond its shape and dtype
SAMPLE_PROPERTIES = {
    "uniform": "np.all((s >= 0) & (s < 1))",
    "uniform_range": "np.all((s >= -2) & (s <= 3))",
    "truncated_normal": "np.all((s >= -1) & (s <= 2))",
    "exponential": "np.all(s >= 0)",
    "gamma": "np.all(s >= 0)",
    "randint": "np.all((s >= {lo}) & (s < {hi}))",
    "bernoulli": "np.all(s) if {p} == 1.0 else not np.any(s) if {p} == 0.0 else True",
    "permutation": "sorted(s.ravel().tolist()) == list(range(s.size))",
    "choice": "np.all((s >= 0) & (s < {n})) and ({replace} or len(set(s.ravel().tolist())) == s.size)",
    "categorical": "np.all((s >= 0) & (s < 4))",
}


@st.composite
def random_cases(draw: Any) -> Case:
    """A chain of key ops from a raw key k and an int n — PRNGKey(n)/key(n)
    folded with k, wrap_key_data (typed keys), fold_in with literals or n,
    split(k)[i], split(k, m)[i], split(k, (2, 3))[i, j] — then one sampler
    (uniform, normal, truncated_normal, exponential, gumbel, laplace, gamma
    with float16/bfloat16/float32/float64; randint with int8..int64; bernoulli;
    bits with uint8..uint64; permutation of an int or an array; choice with
    and without replacement; categorical) with a random shape. f returns the
    sample and the final key's data. `ref` is the sample's property. Floats
    compare bit for bit (uniform) or within 4 ulps (the transcendental
    samplers, whose bits JAX's own eager and jit results do not share)."""
    mode = draw(st.sampled_from(["values", "values", "vmap"]))
    x64 = draw(st.booleans())
    args = [Arg("k", (2,), "uint32", "key"), Arg("n", (), "int32", "count")]
    start = draw(st.sampled_from(["raw", "PRNGKey", "key", "wrap"]))
    lines = {"raw": [], "PRNGKey": ["k = random.fold_in(random.PRNGKey(n), k[0])"],
             "key": ["k = random.fold_in(random.key(n), k[1])"], "wrap": ["k = random.wrap_key_data(k)"]}[start]
    typed = start in ("key", "wrap")
    for _ in range(draw(st.integers(0, 3))):
        step = draw(st.sampled_from(["fold", "fold_n", "split", "split_m", "split_2d"]))
        if step == "fold":
            lines.append(f"k = random.fold_in(k, {draw(st.sampled_from([0, 1, 7, 2**31 - 1, 123456]))})")
        elif step == "fold_n":
            lines.append("k = random.fold_in(k, n)")
        elif step == "split":
            lines.append(f"k = random.split(k)[{draw(st.sampled_from([0, 1, -1]))}]")
        elif step == "split_m":
            m = draw(st.sampled_from([1, 3, 4]))
            lines.append(f"k = random.split(k, {m})[{draw(st.integers(-m, m - 1))}]")
        else:
            lines.append(f"k = random.split(k, (2, 3))[{draw(st.integers(0, 1))}, {draw(st.integers(-3, 2))}]")
    shape = draw(shapes(0, 2))
    default_float, default_int = ("float64", "int64") if x64 else ("float32", "int32")
    sampler = draw(st.sampled_from(list(FLOAT_SAMPLERS) + ["randint", "bernoulli", "bits", "permutation",
                                                           "permutation_array", "choice", "categorical"]))
    prop = SAMPLE_PROPERTIES.get(sampler, "True")
    exact, tol_factor = True, 1.0
    if sampler in FLOAT_SAMPLERS:
        dtype = draw(st.sampled_from([None, "float32", "float16", "bfloat16"] + ["float64"] * x64))
        expr = FLOAT_SAMPLERS[sampler].format(shape=shape, dtype="" if dtype is None else f", dtype=jnp.{dtype}")
        out = (shape, dtype or default_float)
        prop = f"np.all(np.isfinite(s.astype(np.float64))) and {prop}" if sampler != "gamma" else prop
        if sampler != "uniform":   # JAX's own eager and jit numbers differ in the last bits
            exact, tol_factor = False, 4 * float(ml_dtypes.finfo(out[1]).eps) / TOL[out[1]]
    elif sampler == "randint":
        dtype = draw(st.sampled_from([None, "int32", "int8", "uint8", "int16"] + ["int64"] * x64))
        lo = draw(st.sampled_from([0, 3] if dtype == "uint8" else [-3, 0, 3]))
        hi = draw(st.sampled_from([4, 5, 100]))
        expr = f"random.randint(k, {shape}, {lo}, {hi}{'' if dtype is None else f', dtype=jnp.{dtype}'})"
        out, prop = (shape, dtype or default_int), prop.format(lo=lo, hi=hi)
    elif sampler == "bernoulli":
        p = draw(st.sampled_from([0.5, 0.0, 0.3, 1.0]))
        expr, out, prop = f"random.bernoulli(k, {p}, {shape})", (shape, "bool"), prop.format(p=p)
    elif sampler == "bits":
        dtype = draw(st.sampled_from([None, "uint8", "uint16", "uint32"] + ["uint64"] * x64))
        expr = f"random.bits(k, {shape}{'' if dtype is None else f', dtype=jnp.{dtype}'})"
        out = (shape, dtype or ("uint64" if x64 else "uint32"))
    elif sampler == "permutation":
        m = draw(st.sampled_from([5, 0, 1, 3]))
        expr, out = f"random.permutation(k, {m})", ((m,), default_int)
    elif sampler == "permutation_array":
        m = draw(st.sampled_from([4, 1, 3]))
        axis, independent = draw(st.sampled_from([0, 1])), draw(st.booleans())
        expr = f"random.permutation(k, jnp.arange({2 * m}).reshape({m}, 2), axis={axis}, independent={independent})"
        out = ((m, 2), default_int)
        prop = "sorted(s.ravel().tolist()) == list(range(s.size))"
    elif sampler == "choice":
        m = draw(st.sampled_from([5, 1, 3]))
        replace = draw(st.booleans())
        if not replace and math.prod(shape) > m:
            shape = (m,)
        expr, out = f"random.choice(k, {m}, {shape}, replace={replace})", (shape, default_int)
        prop = prop.format(n=m, replace=replace)
    else:
        expr = f"random.categorical(k, jnp.log(jnp.arange(1.0, 5.0)), shape={shape})"
        out = (shape, default_int)
    key = "random.key_data(k)" if typed else "k"
    source = _function("k, n", lines, f"{expr}, {key}")
    batch = _batch_args(draw, args, mode)
    return Case("random", mode, x64, args, source, f"def ref(s):\n    return {prop}\n", [out, ((2,), "uint32")],
                draw(st.integers(0, 2**32 - 1)), batch, exact=exact, tol_factor=tol_factor,
                ops=f"{start} {sampler}")


def check_random(case: Case, backend: str = "jaxc") -> None:
    """values: the same key gives the same bits twice eagerly and under jit,
    with JAX's dtypes and shapes, a sample with its property (in range, a
    permutation, ...), split keys that differ from each other and from the
    key, fold_in deterministic and different per datum, and JAX's own bits
    when JAX is installed. vmap over keys and n: equals the loop, bit for bit."""
    be = _backend(backend)
    values = case.values()
    with be.x64(case.x64):
        f, _ = case.functions(backend)
        random, jnp = be.namespace["random"], be.namespace["jnp"]
        if case.mode == "vmap":
            lanes = [[np.asarray(o) for o in f(*lane)] for lane in case.lanes(values)]
            want = [np.stack([lane[k] for lane in lanes]) if lanes else np.zeros((0,) + shape, dtype)
                    for k, (shape, dtype) in enumerate(case.outs)]
            got = be.api.vmap(f, in_axes=case.in_axes)(*values)
            compare_outputs(got, want, case, "vmap", 1.0, batch=case.batch)
            return
        first = [np.asarray(o) for o in f(*values)]
        compare_outputs(first, first, case, "eager", 1.0)   # JAX's dtypes and shapes
        compare_outputs(f(*values), first, dataclasses.replace(case, exact=True), "eager, called again", 1.0)
        compare_outputs(be.api.jit(f)(*values), first, case, "jit", 1.0)
        scope = {"np": np}
        exec(case.ref, scope)
        assert scope["ref"](first[0]), f"sample fails {case.ref.splitlines()[1].strip()}: {first[0].ravel()[:40]}"
        key = values[0]
        parts = np.asarray(random.split(jnp.asarray(key), 3))
        rows = {tuple(r) for r in parts.tolist()} | {tuple(key.tolist())}
        assert len(rows) == 4, f"split({key.tolist()}, 3) gives repeated keys: {parts.tolist()}"
        one, two = (np.asarray(random.fold_in(key, d)) for d in (1, 2))
        assert not np.array_equal(one, two), f"fold_in({key.tolist()}, 1) == fold_in(key, 2)"
        assert np.array_equal(one, np.asarray(random.fold_in(key, 1))), "fold_in is not deterministic"
    if backend == "jaxc":
        try:
            source_function(case.source, "jax")
        except ImportError:
            return   # JAX is optional: its bits are the one reference left out
        with _backend("jax").x64(case.x64):
            theirs = source_function(case.source, "jax")(*values)
            compare_outputs(theirs, first, case, "JAX's bits vs jaxc's", 1.0)


# Sort ----------------------------------------------------------------------

def _order_keys(x: np.ndarray, total: bool = False) -> list[np.ndarray]:
    """Sort keys, least significant first (np.lexsort's order), for JAX's
    sort: -0.0 equals 0.0, NaNs of either sign are equal and last. With
    `total` (top_k's order of the bits): -0.0 below 0.0, and a NaN with the
    sign bit set below -inf."""
    if not floating(x):
        return [x.astype(np.int64)]
    f = x.astype(np.float64)
    nan = np.isnan(f)
    value = np.where(nan, 0.0, f)
    if not total:
        return [value, nan.astype(np.int64)]
    group = np.where(nan, np.where(np.signbit(f), -1, 1), 0)
    return [(~np.signbit(value)).astype(np.int64), value, group]


def np_argsort(x: np.ndarray, axis: int = -1, descending: bool = False, total: bool = False,
               also: list[np.ndarray] = ()) -> np.ndarray:
    """A stable argsort in JAX's order along `axis` (ties keep their order,
    descending too); `also`: further keys, after x."""
    keys = [k for extra in reversed(also) for k in _order_keys(np.moveaxis(extra, axis, -1))]
    keys += _order_keys(np.moveaxis(x, axis, -1), total)
    if descending:
        keys = [-k for k in keys]
    if x.size == 0:
        return np.moveaxis(np.zeros(np.moveaxis(x, axis, -1).shape, np.int64), -1, axis)
    return np.moveaxis(np.lexsort(keys, axis=-1), -1, axis)


def np_sort(x: np.ndarray, axis: int = -1, descending: bool = False) -> np.ndarray:
    """jnp.sort: descending is the ascending sort reversed (so are its ties:
    0.0 before -0.0 when the input has -0.0 first)."""
    ascending = np.take_along_axis(x, np_argsort(x, axis), axis)
    return np.flip(ascending, axis) if descending else ascending


def np_top_k(x: np.ndarray, k: int, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """lax.top_k: the k largest along `axis` in descending total order (+NaN
    largest, -NaN smallest, 0.0 above -0.0), ties by lower index."""
    order = np.take(np_argsort(x, axis, descending=True, total=True), np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis), order


def np_lax_sort(operands: tuple, dimension: int, num_keys: int) -> tuple:
    """lax.sort of several operands: the first `num_keys` are the keys, stable."""
    order = np_argsort(operands[0], dimension, also=list(operands[1:num_keys]))
    return tuple(np.take_along_axis(o, order, dimension) for o in operands)


@st.composite
def sort_cases(draw: Any) -> Case:
    """jnp.sort (stable or not, descending, along an axis or flattened),
    jnp.argsort (stable: exact indices), argsort(stable=False) through
    take_along_axis (the sorted values), lax.top_k (with axis) and lax.sort of
    two operands with one or two keys, over float16/bfloat16/float32(/64),
    int32 and bool with many ties, -0.0, +-inf and NaN (the "ties" fill).
    Compared bit for bit with np_sort/np_argsort/np_top_k/np_lax_sort (JAX's
    order; unstable sorts with -0.0 == 0.0). grad (float64, distinct values)
    of the sorted values."""
    mode = draw(st.sampled_from(["values", "vmap", "grad"]))
    x64 = mode == "grad" or draw(st.booleans())
    index = "int64" if x64 else "int32"
    dt = "float64" if mode == "grad" else draw(st.sampled_from(
        ["float32", "int32", "bool", "float16", "bfloat16"] + ["float64"] * x64))
    shape = draw(shapes(1, 3))
    ops = ["sort", "sort_flat", "top_k", "lax_sort"] + ["argsort", "argsort_unstable"] * (mode != "grad")
    op_ = draw(st.sampled_from([o for o in ops if not (o == "top_k" and dt == "bool")]))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    descending = draw(st.booleans())
    fill = "distinct" if mode == "grad" else "ties"
    args = [Arg("x", shape, dt, fill)]
    outs = [(shape, dt)]
    if op_ == "sort":
        stable = draw(st.sampled_from(["", ", stable=False", ", stable=True"]))
        expr, ref = f"jnp.sort(x, axis={axis}{stable}, descending={descending})", f"fp.np_sort(x, {axis}, {descending})"
    elif op_ == "sort_flat":
        expr, ref, outs = "jnp.sort(x, axis=None)", "fp.np_sort(x.ravel())", [((math.prod(shape),), dt)]
    elif op_ == "argsort":
        expr, ref = f"jnp.argsort(x, axis={axis}, descending={descending})", \
            f"fp.np_argsort(x, {axis}, {descending})"
        outs = [(shape, index)]
    elif op_ == "argsort_unstable":
        expr = f"jnp.take_along_axis(x, jnp.argsort(x, axis={axis}, stable=False, descending={descending}), {axis})"
        ref = f"fp.np_sort(x, {axis}, {descending})"
    elif op_ == "top_k":
        k = draw(st.integers(0, shape[axis]))
        expr, ref = f"lax.top_k(x, {k}, axis={axis})", f"fp.np_top_k(x, {k}, {axis})"
        kept = tuple(k if d == axis % len(shape) else s for d, s in enumerate(shape))
        outs = [(kept, dt), (kept, "int32")]
    else:
        keys = draw(st.sampled_from([1, 2]))
        args.append(Arg("y", shape, "int32", "ties"))
        expr = f"lax.sort((x, y), dimension={axis}, num_keys={keys})"
        ref, outs = f"fp.np_lax_sort((x, y), {axis}, {keys})", outs + [(shape, "int32")]
    names = ", ".join(a.name for a in args)
    result, ref_result = ("out" if op_ in ("top_k", "lax_sort") else "out,"), (ref if op_ in ("top_k", "lax_sort")
                                                                                 else ref + ",")
    loss = ""
    if mode == "grad":
        loss = (f"\ndef loss({names}):\n    out = f({names})\n"
                "    return jnp.sum(jnp.sin(out[0]) * jnp.arange(out[0].size).reshape(out[0].shape))\n")
    batch = _batch_args(draw, args, mode)
    # unstable sorts may order equal keys either way: -0.0 and 0.0 compare equal
    unstable = "stable=False" in expr
    return Case("sort", mode, x64, args, _function(names, [f"out = {expr}"], result),
                f"def ref({names}):\n    return {ref_result}\n", outs, draw(st.integers(0, 2**32 - 1)), batch, loss,
                exact=True, zero_sign=not unstable, ops=f"{dt} {expr}")


def check_sort(case: Case, backend: str = "jaxc") -> None:
    """check_case, bit for bit (NaN placement, -0.0 before 0.0, stable ties)."""
    check_case(case, backend)


# Linear algebra ------------------------------------------------------------

def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _sym(a: np.ndarray) -> np.ndarray:
    return (a + _mT(a)) / 2


def verify_linalg(op: str, inputs: list[np.ndarray], outs: list[np.ndarray], ref: list[np.ndarray],
                  tol: float) -> None:
    """jaxc's factors reconstruct the input and have their structure
    (triangular, orthonormal columns, sorted spectra), and what is unique
    matches NumPy's (`ref`): solutions, inverses, Cholesky factors, singular
    values, eigenvalues, |diag R|."""
    a = inputs[0].astype(np.float64)
    outs = [o.astype(np.float64) for o in outs]
    scale = magnitude([a] + outs)
    close = lambda got, want, what: np.testing.assert_allclose(  # noqa: E731
        got, want, rtol=tol, atol=tol * scale, err_msg=f"{op}: {what}")

    def orthonormal(q: np.ndarray, what: str) -> None:
        close(_mT(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), what)

    if op == "solve":
        b = inputs[1].astype(np.float64)
        product = a @ outs[0] if b.ndim > 1 else (a @ outs[0][..., None])[..., 0]
        close(product, np.broadcast_to(b, product.shape), "a @ x != b")
        close(outs[0], ref[0], "x != NumPy's solution")
    elif op == "inv":
        close(a @ outs[0], np.broadcast_to(np.eye(a.shape[-1]), a.shape), "a @ inv(a) != I")
        close(outs[0], ref[0], "inv != NumPy's")
    elif op in ("cholesky", "cholesky_upper"):
        factor = outs[0] if op == "cholesky" else _mT(outs[0])
        assert np.all(np.triu(factor, 1) == 0), f"{op}: the factor is not triangular\n{outs[0]}"
        close(factor @ _mT(factor), _sym(a), "L @ L.T != a")
        close(outs[0], ref[0], "factor != NumPy's")
    elif op.startswith("qr"):
        r = outs[-1]
        assert np.all(np.tril(r, -1) == 0), f"{op}: R is not upper triangular\n{r}"
        k = min(a.shape[-2:])
        diag = lambda m: np.abs(np.diagonal(m, axis1=-2, axis2=-1)[..., :k])  # noqa: E731
        close(diag(r), diag(ref[-1]), "|diag R| != NumPy's")
        if len(outs) == 2:
            orthonormal(outs[0], "Q.T @ Q != I")
            close(outs[0] @ r, a, "Q @ R != a")
        else:
            close(_mT(r) @ r, _mT(a) @ a, "R.T @ R != a.T @ a")
    elif op.startswith("svd"):
        s = outs[1] if len(outs) == 3 else outs[0]
        assert np.all(np.diff(s, axis=-1) <= tol * scale) and np.all(s >= 0), f"{op}: s unsorted or negative: {s}"
        close(s, ref[1] if len(ref) == 3 else ref[0], "singular values != NumPy's")
        if len(outs) == 3:
            u, vh = outs[0], outs[2]
            orthonormal(u, "U.T @ U != I")
            orthonormal(_mT(vh), "Vh @ Vh.T != I")
            k = s.shape[-1]
            close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, "U S Vh != a")
    elif op in ("eigh", "eigvalsh"):
        w = outs[0]
        assert np.all(np.diff(w, axis=-1) >= -tol * scale), f"{op}: eigenvalues not ascending: {w}"
        close(w, ref[0], "eigenvalues != NumPy's")
        if op == "eigh":
            v = outs[1]
            orthonormal(v, "V.T @ V != I")
            close(_sym(a) @ v, v * w[..., None, :], "a @ V != V diag(w)")


@st.composite
def linalg_cases(draw: Any) -> Case:
    """jnp.linalg solve (vector and matrix right sides), inv, cholesky (also
    upper=True), qr (reduced, complete, r), svd (full_matrices, compute_uv),
    eigh (UPLO), eigvalsh on well-conditioned random matrices of size 0-4,
    unbatched or with batch dims (2,), (1, 2), (0,). Checked by
    verify_linalg (reconstruction, structure, NumPy's unique parts) eagerly,
    under jit and per vmap lane; grad (float64) of gauge-invariant losses
    (squares of Q, R, U, V's entries; singular values and eigenvalues 0.4
    apart), only where JAX differentiates (qr and svd: reduced, m >= n for qr)."""
    mode = draw(st.sampled_from(["values", "vmap", "grad"]))
    x64 = mode == "grad" or draw(st.booleans())
    ft = "float64" if x64 else "float32"
    op_ = draw(st.sampled_from(["solve", "inv", "cholesky", "qr", "svd", "eigh", "eigvalsh"]))
    batch_dims = draw(st.sampled_from([(), (2,), (1, 2), (0,)]))
    n = draw(st.sampled_from([3, 1, 2, 4, 0]))
    m = draw(st.sampled_from([n, 3, 1, 2, 4, 0])) if op_ in ("qr", "svd") else n
    if mode == "grad" and op_ == "qr":
        m = max(m, n)
    fill = {"cholesky": "spd", "eigh": "symmetric", "eigvalsh": "symmetric"}.get(op_, "general")
    args = [Arg("a", batch_dims + (m, n), ft, fill)]
    k = min(m, n)
    weights = "0.1 * jnp.arange(out[{0}].size).reshape(out[{0}].shape)"
    square = "jnp.sum(out[{0}] ** 2 * " + weights + ")"
    loss_terms = ["jnp.sum(jnp.sin(out[0]))"]
    if op_ == "solve":
        vector = draw(st.booleans())
        bshape = (n,) if vector else batch_dims + (n, draw(st.sampled_from([1, 2])))
        args.append(Arg("b", bshape, ft))
        call, np_call, outs = "jnp.linalg.solve(a, b)", "np.linalg.solve(a, b)", [(batch_dims + bshape[-2:], ft)]
        if vector:
            outs = [(batch_dims + (n,), ft)]
            np_call = "np.linalg.solve(a, np.broadcast_to(b, a.shape[:-1])[..., None])[..., 0]"
        name = op_
    elif op_ == "inv":
        call, np_call, outs, name = "jnp.linalg.inv(a)", "np.linalg.inv(a)", [(batch_dims + (n, n), ft)], op_
    elif op_ == "cholesky":
        upper = draw(st.booleans())
        call = "jnp.linalg.cholesky(a, upper=True)" if upper else "jnp.linalg.cholesky(a)"
        np_call = "np.linalg.cholesky(fp._sym(a))" + (".swapaxes(-1, -2)" if upper else "")
        outs, name = [(batch_dims + (n, n), ft)], "cholesky_upper" if upper else op_
    elif op_ == "qr":
        qr_mode = "reduced" if mode == "grad" else draw(st.sampled_from(["reduced", "complete", "r"]))
        call, np_call = f"jnp.linalg.qr(a, mode={qr_mode!r})", f"np.linalg.qr(a, mode={qr_mode!r})"
        cols = m if qr_mode == "complete" else k
        outs = [(batch_dims + (m, cols), ft), (batch_dims + (cols, n), ft)]
        if qr_mode == "r":
            outs = outs[1:]
        name = f"qr-{qr_mode}"
        loss_terms = [square.format(j) for j in range(len(outs))]
    elif op_ == "svd":
        full = False if mode == "grad" else draw(st.booleans())
        uv = draw(st.booleans())
        call = f"jnp.linalg.svd(a, full_matrices={full}, compute_uv={uv})"
        np_call = f"np.linalg.svd(a, full_matrices={full}, compute_uv={uv})"
        us, vs = (m, m) if full else (m, k), (n, n) if full else (k, n)
        outs = [(batch_dims + us, ft), (batch_dims + (k,), ft), (batch_dims + vs, ft)] if uv else \
            [(batch_dims + (k,), ft)]
        name = f"svd{'-full' if full else ''}{'-uv' if uv else ''}"
        loss_terms = ["jnp.sum(jnp.sin(out[1]))", square.format(0)] if uv else loss_terms
    else:
        uplo = draw(st.sampled_from(["", ", UPLO='L'", ", UPLO='U'"]))
        call = f"jnp.linalg.{op_}(a{uplo})"
        np_call = f"np.linalg.{op_}(fp._sym(a))"
        outs = [(batch_dims + (n,), ft)] + ([(batch_dims + (n, n), ft)] if op_ == "eigh" else [])
        loss_terms += [square.format(1)] if op_ == "eigh" else []
        name = op_
    single = len(outs) == 1
    names = ", ".join(a.name for a in args)
    source = _function(names, [f"out = {call}"], "out," if single else "tuple(out)")
    ref = f"def ref({names}):\n    out = {np_call}\n    return {'out,' if single else 'tuple(out)'}\n"
    loss = f"\ndef loss({names}):\n    out = f({names})\n    return {' + '.join(loss_terms)}\n" if mode == "grad" else ""
    batch = _batch_args(draw, args, mode)
    return Case("linalg", mode, x64, args, source, ref, outs, draw(st.integers(0, 2**32 - 1)), batch, loss,
                ops=name)


def check_linalg(case: Case, backend: str = "jaxc") -> None:
    """values: eager and jit outputs pass verify_linalg (and have JAX's
    shapes and dtypes); vmap: each lane does; grad: as check_case."""
    if case.mode == "grad":
        check_case(case, backend)
        return
    be = _backend(backend)
    values = case.values()
    op_ = case.ops
    tol = 10 * TOL[case.args[0].dtype]

    def verify(inputs: list[np.ndarray], outs: Any, what: str) -> None:
        outs = [np.asarray(o) for o in outs]
        ref = reference_outputs(case, inputs)
        assert len(outs) == len(ref), f"{what}: {len(outs)} outputs, JAX gives {len(ref)}"
        for k, (o, (shape, dtype)) in enumerate(zip(outs, case.outs)):
            assert o.dtype == np.dtype(dtype) and o.shape == shape, \
                f"{what}: output {k} is {o.dtype}{list(o.shape)}, JAX gives {dtype}{list(shape)}"
        try:
            verify_linalg(op_, inputs, outs, [r.astype(np.float64) for r in ref], tol)
        except AssertionError as error:
            raise AssertionError(f"{what}: {error}") from None

    with be.x64(case.x64):
        f, _ = case.functions(backend)
        if case.mode == "values":
            jnp = be.namespace["jnp"]
            verify(values, f(*[jnp.asarray(v) for v in values]), "eager")
            verify(values, be.api.jit(f)(*values), "jit")
        else:
            got = [np.asarray(o) for o in be.api.vmap(f, in_axes=case.in_axes)(*values)]
            for (shape, dtype), o in zip(case.outs, got):
                assert o.shape == (case.batch,) + shape and o.dtype == np.dtype(dtype), \
                    f"vmap: an output is {o.dtype}{list(o.shape)}, JAX gives {dtype}{[case.batch, *shape]}"
            for i, lane in enumerate(case.lanes(values)):
                verify(lane, [o[i] for o in got], f"vmap lane {i}")


# --------------------------------------------------------------------------
# jaxc-opt on mutated lit inputs
# --------------------------------------------------------------------------

def jaxc_opt() -> list[str]:
    """The console script next to this interpreter, else the module."""
    script = Path(sys.executable).with_name("jaxc-opt")
    return [str(script)] if script.exists() else [sys.executable, "-m", "jaxc.tools.jaxc_opt"]


def lit_runs() -> list[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]]:
    """(lit file relative to the repository, jaxc-opt arguments, environment)
    for every RUN line that runs jaxc-opt on its own file. Left out: --run
    (a mutated loop may legitimately run forever), -o, %t files, and the
    failing command lines of tests/lit/cli (bad options: the input is never read)."""
    runs = []
    for path in sorted(LIT.rglob("*.mlir")):
        if "Output" in path.parts or "Inputs" in path.parts:
            continue
        for line in path.read_text().splitlines():
            if "RUN:" not in line:
                continue
            try:
                tokens = shlex.split(line.split("RUN:", 1)[1])
            except ValueError:
                continue
            env = []
            if tokens[:1] == ["not"]:
                if path.parent.name == "cli":
                    continue
                tokens = tokens[1:]
            if tokens[:1] == ["env"]:
                tokens = tokens[1:]
                while tokens and "=" in tokens[0]:
                    env.append(tuple(tokens.pop(0).split("=", 1)))
            if tokens[:1] != ["jaxc-opt"]:
                continue
            args: list[str] = []
            for tok in tokens[1:]:
                if tok in ("|", "&&", "2>&1", ">", "<"):
                    break
                if args[-1:] == ["-o"]:
                    args.pop()
                elif not tok.startswith("-o="):
                    args.append(tok)
            if "%s" not in args or any(a.startswith(("--run", "%t", "%S")) for a in args):
                continue
            args = tuple(a for a in args if a != "%s")
            entry = (str(path.relative_to(ROOT)), args, tuple(env))
            if entry not in runs:
                runs.append(entry)
    return runs


_LIT_RUNS: list = []
NUMBERS = [b"0", b"1", b"-1", b"2", b"3", b"7", b"64", b"2147483648", b"-99999999999999999999",
           b"1.0e308", b"0.5", b"4294967296"]
TYPES = [b"f32", b"f64", b"i1", b"i32", b"i64", b"index", b"bf16", b"f16", b"i8", b"complex<f32>"]
TYPE_RE = re.compile(rb"\b(f16|bf16|f32|f64|i1|i8|i32|i64|index)\b")
NUMBER_RE = re.compile(rb"-?\d+(\.\d+)?")
DIM_RE = re.compile(rb"(?<=[<x])(\d+|\?)(?=x)")
VALUE_RE = re.compile(rb"%[\w.]+")


@dataclasses.dataclass
class OptCase:
    path: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    text: bytes
    mutations: list[str]

    def signature(self) -> str:
        return "jaxc-opt " + " ".join(self.args)

    def command(self, input_path: str) -> list[str]:
        return jaxc_opt() + [input_path, *self.args]

    def reproducer(self, message: str) -> dict[str, str]:
        cmd = " ".join(shlex.quote(a) for a in ["jaxc-opt", "repro.mlir", *self.args])
        env = " ".join(f"{k}={v}" for k, v in self.env)
        return {"repro.mlir": self.text.decode("utf-8", "replace"),
                "repro.sh": (f"# jaxc fuzz reproducer: {self.path} with {', '.join(self.mutations)}\n"
                             + "\n".join("# " + line for line in message.strip().splitlines()[:40])
                             + f"\n{env + ' ' if env else ''}{cmd}\n")}


def _mutate(draw: Any, data: bytes) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    kind = draw(st.sampled_from(["number", "type", "dim", "delete", "duplicate", "swap", "value",
                                 "truncate", "garbage", "drop_char"]))
    pick = lambda seq: draw(st.integers(0, len(seq) - 1))  # noqa: E731

    def sub(regex: re.Pattern, choices: list[bytes]) -> tuple[bytes, str]:
        found = list(regex.finditer(data))
        if not found:
            return data, f"{kind}: nothing to change"
        m = found[pick(found)]
        new = draw(st.sampled_from(choices))
        return data[:m.start()] + new + data[m.end():], f"{kind} at byte {m.start()}: {m.group().decode()} -> {new.decode()}"

    if kind == "number":
        return sub(NUMBER_RE, NUMBERS)
    if kind == "type":
        return sub(TYPE_RE, TYPES)
    if kind == "dim":
        return sub(DIM_RE, [b"0", b"1", b"5", b"?", b"-1", b"1000000000"])
    if kind == "value":
        names = sorted(set(VALUE_RE.findall(data)))
        return sub(VALUE_RE, names or [b"%0"])
    if kind in ("delete", "duplicate", "swap"):
        i, j = pick(lines), pick(lines)
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), f"{kind} line {i + 1}" + (f" and {j + 1}" if kind == "swap" else "")
    at = draw(st.integers(0, len(data)))
    if kind == "truncate":
        return data[:at], f"truncate at byte {at}"
    if kind == "garbage":
        junk = draw(st.binary(min_size=1, max_size=8))
        return data[:at] + junk + data[at:], f"insert {junk!r} at byte {at}"
    specials = [m.start() for m in re.finditer(rb"[{}()<>\[\],:=%@]", data)]
    if not specials:
        return data, "drop_char: nothing to drop"
    k = specials[pick(specials)]
    return data[:k] + data[k + 1:], f"drop {data[k:k + 1].decode()!r} at byte {k}"


def _strip_checks(text: bytes) -> bytes:
    """The input without FileCheck and RUN lines (they mean nothing to jaxc-opt)."""
    keep = [line for line in text.split(b"\n")
            if not re.match(rb"\s*//\s*([A-Z0-9-]+(-[A-Z]+)?:|RUN:)", line)]
    return b"\n".join(keep)


@st.composite
def opt_cases(draw: Any) -> OptCase:
    """A lit input with 1-3 mutations, and the jaxc-opt arguments of one of its RUN lines."""
    if not _LIT_RUNS:
        _LIT_RUNS.extend(lit_runs())
    path, args, env = draw(st.sampled_from(_LIT_RUNS))
    data = _strip_checks((ROOT / path).read_bytes())
    mutations = []
    for _ in range(draw(st.integers(1, 3))):
        data, what = _mutate(draw, data)
        mutations.append(what)
    return OptCase(path, args, env, data, mutations)


FORBIDDEN = ["LLVM ERROR", "Assertion", "Traceback", "internal error", "please report",
             "crashed", "Segmentation fault", "core dumped"]
DIAGNOSTIC = re.compile(r"^(\S.*:\d+:\d+: error: |jaxc-opt: error: )", re.M)


def check_opt(case: OptCase, workdir: str, timeout: float = 60) -> None:
    """jaxc-opt exits 0, or 1 with a `file:line:col: error:` (or `jaxc-opt:
    error:`) diagnostic; never a signal, a hang, an assertion or a traceback."""
    path = os.path.join(workdir, "input.mlir")
    with open(path, "wb") as f:
        f.write(case.text)
    env = {**os.environ, **dict(case.env)}
    try:
        result = subprocess.run(case.command(path), capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{case.signature()}: hangs (over {timeout}s)\n"
                             f"on {case.path} with {case.mutations}") from None
    stderr = result.stderr.decode("utf-8", "replace")
    where = f"on {case.path} with {case.mutations}\n{stderr[-3000:]}"
    assert result.returncode in (0, 1), \
        f"{case.signature()}: exit status {result.returncode}\n{where}"
    low = stderr.lower()
    for word in FORBIDDEN:
        assert word.lower() not in low, f"{case.signature()}: stderr has {word!r}\n{where}"
    if result.returncode == 1:
        assert DIAGNOSTIC.search(stderr), f"{case.signature()}: exit 1 without a diagnostic\n{where}"
