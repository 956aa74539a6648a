"""Random programs for the property tests (test_properties.py) and the long
fuzzing mode (tools/fuzz.py): hypothesis strategies, and the checks that
run one example against its reference.

Three kinds of example:

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
- `opt_cases()`: a tests/lit input with 1-3 random mutations, run through
  `jaxc-opt` with the arguments of one of the file's RUN lines;
  `check_opt` asserts a clean exit (0, or 1 with a diagnostic).

Every example can write itself as a reproducer (`reproducer(message)`:
file name -> text). JAX is not imported: the dtype rules are written here.
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

import numpy as np
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "tests" / "lit"

# --------------------------------------------------------------------------
# Types: JAX's promotion lattice on the dtypes we generate
# --------------------------------------------------------------------------

ORDER = ["bool", "int32", "int64", "float32", "float64"]


def promote(a: str, b: str) -> str:
    """jnp.promote_types on ORDER (checked against JAX 0.10.2)."""
    return ORDER[max(ORDER.index(a), ORDER.index(b))]


def is_float(dtype: str) -> bool:
    return dtype.startswith("float")


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
        args = []
        for value in self.values():
            if value.size:
                args.append(f"np.array({value.tolist()!r}, dtype=np.{value.dtype}).reshape({value.shape})")
            else:
                args.append(f"np.zeros({value.shape}, dtype=np.{value.dtype})")
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
        return {"repro.py": (
            f"# jaxc fuzz reproducer ({self.kind})\n{comment}\n"
            "import numpy as np\nimport jaxc\nimport jaxc.numpy as jnp\n\n"
            f"jaxc.config.update('jax_enable_x64', {self.x64})\n\n"
            f"{self.source()}\n"
            f"f_np = (lambda src: (exec(src, s := {{'jnp': np}}), s['f'])[1])({self.source()!r})\n\n"
            f"args = [{', '.join(args)}]\n{call}")}


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
        return (x.dtype[0] in dtypes) and (x.exact or not needs_exact)

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


ALL = ["bool", "int32", "int64", "float32", "float64"]
NUM = ["int32", "int64", "float32", "float64"]
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


# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------

@st.composite
def programs(draw: Any, kind: str = "jnp", max_ops: int = 6) -> Program:
    """A random program (`kind`: "jnp", "vmap" or "grad"); see the module doc."""
    x64 = True if kind == "grad" else draw(st.booleans())
    b = Builder(draw, kind, x64)
    x = b.fresh(draw(shapes()), draw(st.sampled_from(b.dtypes)))
    letter = "g" if kind == "grad" else "j"
    for _ in range(draw(st.integers(1, max_ops))):
        ops = [o for o in OPS if letter in o.kinds and o.applies(b, x)]
        x = draw(st.sampled_from(ops)).build(b, x)
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

TOL = {"float32": 2e-4, "float64": 1e-9}


class _NumPyRef:
    """numpy, except that the float functions take bool in float64 (NumPy's
    exp(True) is a float16)."""

    def __getattr__(self, name: str) -> Any:
        fn = getattr(np, name)
        if name in ("exp", "tanh", "sin", "cos", "sqrt"):
            return lambda x: fn(np.asarray(x, np.float64) if np.asarray(x).dtype == bool else x)
        return fn


NUMPY_REF = _NumPyRef()


def reference(prog: Program, values: list[np.ndarray]) -> tuple[np.ndarray, float, str]:
    """The program in NumPy, each op in float64 and rounded to its JAX dtype.
    Also the largest finite magnitude seen (the tolerance's scale) and the
    float dtype that sets the tolerance (float32 when any value is float32)."""
    env = {v.name: val for v, val in zip(prog.inputs, values)}
    scale = 1.0
    for v, expr in prog.lines:
        wide = {k: a.astype(np.float64) if a.dtype == np.float32 else a for k, a in env.items()}
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = np.asarray(eval(expr, {"jnp": NUMPY_REF}, wide)).astype(v.dtype)
        assert out.shape == v.shape, f"generator bug: NumPy shape {out.shape} for {v}"
        env[v.name] = out
    for val in env.values():
        finite = np.abs(val[np.isfinite(val)]) if val.dtype.kind == "f" else np.abs(val.astype(np.float64))
        if finite.size:
            scale = max(scale, float(finite.max()))
    dtypes = {v.dtype for v in prog.inputs} | {v.dtype for v, _ in prog.lines}
    return env[prog.out.name], scale, "float32" if "float32" in dtypes else "float64"


def assert_matches(got: Any, want: np.ndarray, var: Var, scale: float, tol_dtype: str, what: str) -> None:
    """`got` has the JAX dtype and shape of `var` and the reference's values."""
    got = np.asarray(got)
    assert got.dtype == np.dtype(var.dtype), f"{what}: dtype {got.dtype}, JAX gives {var.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, JAX gives {want.shape}"
    try:
        if got.dtype.kind == "f":
            tol = TOL[tol_dtype]
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True)
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
