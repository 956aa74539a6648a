"""The benchmark workloads (DESIGN.md section 7).

Each workload gives, for one set of shapes: the inputs (NumPy, from the
harness's seeded generator), what jaxc runs, the NumPy expression, the JAX
expression (used only when `import jax` works) and the tolerance of the one
correctness check made before timing. What jaxc runs is either

- a jaxc module whose public function `@f` computes it, written by hand in
  the `jaxc` dialect from the templates below (`module`, or `modules` +
  `compose` for op-by-op execution) and called through the runtime
  (`compile_module`) on NumPy arrays: the compiled code with the least
  Python around it; or
- a function written with the front end (`frontend`), run under `jaxc.jit`
  on jaxc Arrays; the same code (with `jax` for `jaxc`) is the JAX column.

`training` marks the training script of bench/mnist.py, or (with
kind="digits") the stax example examples/train_digits.py (each its own loop
in bench/run.py). A workload that cannot run yet has `missing` set.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

F32 = "f32"


def tt(shape: Sequence[int], el: str = F32) -> str:
    """`tensor<AxBxf32>` (0-d: `tensor<f32>`)."""
    return "tensor<" + "".join(f"{n}x" for n in shape) + el + ">"


def scalar(name: str, value: float, shape: Sequence[int], el: str = F32) -> str:
    """Lines that define `%name`: a 0-d constant broadcast to `shape`
    (what a Python scalar in JAX code becomes)."""
    return (f"  %{name}_s = jaxc.constant dense<{value!r}> : {tt((), el)}\n"
            f"  %{name} = jaxc.broadcast_in_dim %{name}_s, dims = [] : ({tt((), el)}) -> {tt(shape, el)}\n")


def func(args: Sequence[tuple[str, str]], body: str, result: tuple[str, str], name: str = "f") -> str:
    params = ", ".join(f"%{n}: {t}" for n, t in args)
    return (f"func.func @{name}({params}) -> {result[1]} {{\n{body}"
            f"  return %{result[0]} : {result[1]}\n}}\n")


@dataclasses.dataclass
class Workload:
    name: str
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]] | None = None
    # Either one jaxc module (its @f is called with the inputs) ...
    module: str | None = None
    # ... or several modules and a Python function that strings their @f
    # together (op-by-op execution: one compiled call per primitive).
    modules: dict[str, str] | None = None
    compose: Callable[[dict[str, Callable], list[np.ndarray]], np.ndarray] | None = None
    numpy: Callable[..., np.ndarray] | None = None
    jax: Callable[[Any, Any], Callable] | None = None   # (jax, jnp) -> function of the inputs
    jax_jit: bool = True
    reference: Callable[..., np.ndarray] | None = None  # float64 reference for the check
    rtol: float = 1e-5
    atol: float = 1e-5
    flops: float | None = None                           # for GFLOP/s
    # ... or a function written with the jaxc front end: (jaxc, jnp) -> a
    # function of the inputs, run under jaxc.jit (transformations included)
    frontend: Callable[[Any, Any], Callable] | None = None
    missing: str | None = None                           # why it cannot run yet
    predicted_first_call_s: float | None = None          # filled in by the harness (matmul sweep)
    # ... or the MNIST training script (bench/mnist.py): its configuration
    # (kind="digits": examples/train_digits.py's)
    training: dict[str, Any] | None = None


# --- matmul -------------------------------------------------------------------

def matmul_module(n: int, m: int | None = None, k: int | None = None) -> str:
    m = n if m is None else m
    k = n if k is None else k
    body = (f"  %r = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0]\n"
            f"         : ({tt((n, k))}, {tt((k, m))}) -> {tt((n, m))}\n")
    return func([("a", tt((n, k))), ("b", tt((k, m)))], body, ("r", tt((n, m))))


def matmul(n: int, name: str | None = None) -> Workload:
    def inputs(rng):
        return [rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)]
    return Workload(
        name=name or f"matmul {n}x{n}", make_inputs=inputs, module=matmul_module(n),
        numpy=lambda a, b: a @ b,
        jax=lambda jax, jnp: (lambda a, b: a @ b),
        reference=lambda a, b: a.astype(np.float64) @ b.astype(np.float64),
        # f32 accumulation over n terms of N(0,1) products: error ~ sqrt(n) ulps of sqrt(n).
        rtol=1e-4, atol=1e-5 * n, flops=2.0 * n ** 3)


def activation_matmul(n: int) -> Workload:
    """An activation feeding a matrix product (a dense layer's input): the
    tanh must stay out of the product's kernel for the product to keep its
    schedule (passes/contraction_fusion_barriers.py)."""
    def inputs(rng):
        return [rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)]
    return Workload(
        name=f"tanh(A)·B {n}x{n}", make_inputs=inputs,
        frontend=lambda jx, jnp: (lambda a, b: jnp.tanh(a) @ b),
        numpy=lambda a, b: np.tanh(a) @ b,
        jax=lambda jax, jnp: (lambda a, b: jnp.tanh(a) @ b),
        reference=lambda a, b: np.tanh(a.astype(np.float64)) @ b.astype(np.float64),
        rtol=1e-4, atol=1e-5 * n, flops=2.0 * n ** 3)


# --- x = 0.5*x + 0.1*sin(x), ten times -----------------------------------------

def sin_loop_module(shape: Sequence[int], iters: int) -> str:
    t = tt(shape)
    body = scalar("half", 0.5, shape) + scalar("tenth", 0.1, shape)
    cur = "x"
    for i in range(iters):
        body += (f"  %a{i} = jaxc.mul %half, %{cur} : {t}\n"
                 f"  %s{i} = jaxc.sin %{cur} : {t}\n"
                 f"  %b{i} = jaxc.mul %tenth, %s{i} : {t}\n"
                 f"  %x{i} = jaxc.add %a{i}, %b{i} : {t}\n")
        cur = f"x{i}"
    return func([("x", t)], body, (cur, t))


def _sin_loop_np(x, iters):
    for _ in range(iters):
        x = 0.5 * x + 0.1 * np.sin(x)
    return x


def _sin_loop_jax(jnp, iters):
    def f(x):
        for _ in range(iters):
            x = 0.5 * x + 0.1 * jnp.sin(x)
        return x
    return f


def sin_loop(shape: Sequence[int], iters: int = 10) -> Workload:
    shape = tuple(shape)
    return Workload(
        name=f"sin loop x{iters} {'x'.join(map(str, shape))} (jit)",
        make_inputs=lambda rng: [rng.standard_normal(shape, dtype=np.float32)],
        module=sin_loop_module(shape, iters),
        numpy=lambda x: _sin_loop_np(x, iters),
        jax=lambda jax, jnp: _sin_loop_jax(jnp, iters),
        reference=lambda x: _sin_loop_np(x.astype(np.float64), iters),
        rtol=1e-5, atol=1e-6)


def sin_loop_op_by_op(shape: Sequence[int], iters: int = 10) -> Workload:
    """The same loop with one compiled call per primitive (4 per iteration),
    as JAX runs it without jit: shows the per-call dispatch cost."""
    shape = tuple(shape)
    t = tt(shape)
    modules = {
        "scale_half": func([("x", t)], scalar("c", 0.5, shape) + f"  %r = jaxc.mul %c, %x : {t}\n", ("r", t)),
        "scale_tenth": func([("x", t)], scalar("c", 0.1, shape) + f"  %r = jaxc.mul %c, %x : {t}\n", ("r", t)),
        "sin": func([("x", t)], f"  %r = jaxc.sin %x : {t}\n", ("r", t)),
        "add": func([("x", t), ("y", t)], f"  %r = jaxc.add %x, %y : {t}\n", ("r", t)),
    }

    def compose(fs, inputs):
        (x,) = inputs
        half, tenth, sin, add = fs["scale_half"], fs["scale_tenth"], fs["sin"], fs["add"]
        for _ in range(iters):
            x = add(half(x)[0], tenth(sin(x)[0])[0])[0]
        return x

    return Workload(
        name=f"sin loop x{iters} {'x'.join(map(str, shape))} (op-by-op)",
        make_inputs=lambda rng: [rng.standard_normal(shape, dtype=np.float32)],
        modules=modules, compose=compose,
        numpy=lambda x: _sin_loop_np(x, iters),
        jax=lambda jax, jnp: _sin_loop_jax(jnp, iters), jax_jit=False,
        reference=lambda x: _sin_loop_np(x.astype(np.float64), iters),
        rtol=1e-5, atol=1e-6)


# --- (X - X.mean(0)) / X.std(0) -------------------------------------------------

def normalize_module(rows: int, cols: int) -> str:
    t, r = tt((rows, cols)), tt((cols,))
    body = (scalar("n", float(rows), (cols,)) +
            f"  %sum = jaxc.reduce sum %x, dims = [0] : {t} -> {r}\n"
            f"  %mean = jaxc.div %sum, %n : {r}\n"
            f"  %meanb = jaxc.broadcast_in_dim %mean, dims = [1] : ({r}) -> {t}\n"
            f"  %d = jaxc.sub %x, %meanb : {t}\n"
            f"  %d2 = jaxc.mul %d, %d : {t}\n"
            f"  %ss = jaxc.reduce sum %d2, dims = [0] : {t} -> {r}\n"
            f"  %var = jaxc.div %ss, %n : {r}\n"
            f"  %std = jaxc.sqrt %var : {r}\n"
            f"  %stdb = jaxc.broadcast_in_dim %std, dims = [1] : ({r}) -> {t}\n"
            f"  %y = jaxc.div %d, %stdb : {t}\n")
    return func([("x", t)], body, ("y", t))


def normalize(rows: int, cols: int) -> Workload:
    f = lambda x: (x - x.mean(0)) / x.std(0)  # noqa: E731
    return Workload(
        name=f"(X-mean)/std {rows}x{cols}",
        make_inputs=lambda rng: [(3.0 + 2.0 * rng.standard_normal((rows, cols))).astype(np.float32)],
        module=normalize_module(rows, cols), numpy=f,
        jax=lambda jax, jnp: f,
        reference=lambda x: f(x.astype(np.float64)), rtol=1e-4, atol=1e-4)


# --- SELU ------------------------------------------------------------------------

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu_module(n: int) -> str:
    t, b = tt((n,)), tt((n,), "i1")
    # jax.nn.selu: scale * where(x > 0, x, alpha * expm1(x))
    body = (scalar("zero", 0.0, (n,)) + scalar("alpha", float(np.float32(SELU_ALPHA)), (n,)) +
            scalar("scale", float(np.float32(SELU_SCALE)), (n,)) +
            f"  %pos = jaxc.compare gt, %x, %zero : {t}\n"
            f"  %em1 = jaxc.expm1 %x : {t}\n"
            f"  %neg = jaxc.mul %alpha, %em1 : {t}\n"
            f"  %sel = jaxc.select %pos, %x, %neg : {b}, {t}\n"
            f"  %y = jaxc.mul %scale, %sel : {t}\n")
    return func([("x", t)], body, ("y", t))


def _selu_np(x):
    dt = x.dtype.type
    return dt(SELU_SCALE) * np.where(x > 0, x, dt(SELU_ALPHA) * np.expm1(x))


def selu(n: int) -> Workload:
    return Workload(
        name=f"SELU {n:.0e}".replace("e+0", "e") if n >= 10 ** 5 else f"SELU {n}",
        make_inputs=lambda rng: [rng.standard_normal(n, dtype=np.float32)],
        module=selu_module(n), numpy=_selu_np,
        jax=lambda jax, jnp: jax.nn.selu,
        reference=lambda x: _selu_np(x.astype(np.float64)), rtol=1e-5, atol=1e-6)


# --- sum ---------------------------------------------------------------------------

def sum_module(rows: int, cols: int) -> str:
    t = tt((rows, cols))
    body = f"  %s = jaxc.reduce sum %x, dims = [0, 1] : {t} -> {tt(())}\n"
    return func([("x", t)], body, ("s", tt(())))


def total(rows: int, cols: int) -> Workload:
    n = rows * cols
    return Workload(
        name=f"sum {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32)],
        module=sum_module(rows, cols), numpy=lambda x: np.sum(x),
        jax=lambda jax, jnp: jnp.sum,
        reference=lambda x: np.sum(x, dtype=np.float64),
        # jaxc sums sequentially in f32 (error -0.15 on 4096x4096 N(0,1), NumPy's
        # pairwise sum 0.001); dropping one row would be off by ~sqrt(cols).
        rtol=1e-4, atol=1e-7 * n)


# --- row softmax -----------------------------------------------------------------

def softmax_module(rows: int, cols: int) -> str:
    t, r = tt((rows, cols)), tt((rows,))
    body = (f"  %m = jaxc.reduce max %x, dims = [1] : {t} -> {r}\n"
            f"  %mb = jaxc.broadcast_in_dim %m, dims = [0] : ({r}) -> {t}\n"
            f"  %d = jaxc.sub %x, %mb : {t}\n"
            f"  %e = jaxc.exp %d : {t}\n"
            f"  %s = jaxc.reduce sum %e, dims = [1] : {t} -> {r}\n"
            f"  %sb = jaxc.broadcast_in_dim %s, dims = [0] : ({r}) -> {t}\n"
            f"  %y = jaxc.div %e, %sb : {t}\n")
    return func([("x", t)], body, ("y", t))


def _softmax_np(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def softmax(rows: int, cols: int) -> Workload:
    return Workload(
        name=f"softmax rows {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32)],
        module=softmax_module(rows, cols), numpy=_softmax_np,
        jax=lambda jax, jnp: (lambda x: jax.nn.softmax(x, axis=1)),
        reference=lambda x: _softmax_np(x.astype(np.float64)), rtol=1e-5, atol=1e-7)


def layer_norm(rows: int, cols: int) -> Workload:
    """Each row to mean 0 and standard deviation 1 (a transformer's layer
    norm without its scale): the keepdims statistics of a row fuse into one
    loop over rows, as softmax's do."""
    f = lambda x: (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True)  # noqa: E731
    return Workload(
        name=f"layer norm rows {rows}x{cols}",
        make_inputs=lambda rng: [(3.0 + 2.0 * rng.standard_normal((rows, cols))).astype(np.float32)],
        frontend=lambda jx, jnp: f, numpy=f, jax=lambda jax, jnp: f,
        reference=lambda x: f(x.astype(np.float64)), rtol=1e-4, atol=1e-4)


def heads_projection(batch: int, tokens: int, width: int, heads: int) -> Workload:
    """A transformer's query projection split into heads: ``(x @ w)`` with a
    3-D ``x`` (two m loops), reshaped to (batch, tokens, heads, width/heads)
    (the reshape folds into the product): one contraction once
    jaxc-canonicalize-contractions gives it back its (m, n, k) form."""
    f = lambda x, w: (x @ w).reshape(batch, tokens, heads, width // heads)  # noqa: E731
    return Workload(
        name=f"heads projection {batch}x{tokens}x{width} @ {width}x{width}",
        make_inputs=lambda rng: [rng.standard_normal((batch, tokens, width), dtype=np.float32),
                                 (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)],
        frontend=lambda jx, jnp: f, numpy=f, jax=lambda jax, jnp: f,
        reference=lambda x, w: f(x.astype(np.float64), w), rtol=1e-4, atol=1e-4,
        flops=2.0 * batch * tokens * width * width)


def small_batched_products(batch: int, m: int, k: int, n: int) -> Workload:
    """Many small products at once, ``einsum('bij,bjk->bik')`` (per-example
    products under vmap, attention with small heads): one library call per
    batch element, each too small for packed panels to pay."""
    return Workload(
        name=f"batched products {batch}x({m}x{k} @ {k}x{n})",
        make_inputs=lambda rng: [rng.standard_normal((batch, m, k), dtype=np.float32),
                                 rng.standard_normal((batch, k, n), dtype=np.float32)],
        frontend=lambda jx, jnp: (lambda a, b: jnp.einsum("bij,bjk->bik", a, b)),
        numpy=lambda a, b: np.einsum("bij,bjk->bik", a, b),
        jax=lambda jax, jnp: (lambda a, b: jnp.einsum("bij,bjk->bik", a, b)),
        reference=lambda a, b: np.einsum("bij,bjk->bik", a.astype(np.float64), b),
        rtol=1e-4, atol=1e-4, flops=2.0 * batch * m * k * n)


def searchsorted(table: int, queries: int) -> Workload:
    """`jnp.searchsorted` of uniform queries into a sorted table: log2(table)
    dependent gathers per query (a binary search), fused several steps to a
    loop."""
    f = lambda a, v: np.searchsorted(a, v)  # noqa: E731
    return Workload(
        name=f"searchsorted {queries} into {table}",
        make_inputs=lambda rng: [np.sort(rng.standard_normal(table)).astype(np.float32),
                                 rng.standard_normal(queries).astype(np.float32)],
        frontend=lambda jx, jnp: (lambda a, v: jnp.searchsorted(a, v)), numpy=f,
        jax=lambda jax, jnp: (lambda a, v: jnp.searchsorted(a, v)),
        reference=lambda a, v: f(a, v).astype(np.int32), rtol=0, atol=0)


def axis_sum(rows: int, cols: int, axis: int) -> Workload:
    """x.sum(axis) of a rows x cols array: over rows (axis 1, each row's lanes
    combined as a tree) or over columns (axis 0, rows taken in blocks)."""
    f = lambda x: x.sum(axis)  # noqa: E731
    return Workload(
        name=f"sum axis {axis} {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32)],
        frontend=lambda jx, jnp: f, numpy=f, jax=lambda jax, jnp: f,
        reference=lambda x: f(x.astype(np.float64)), rtol=1e-4, atol=1e-3)


def row_argmax(rows: int, cols: int) -> Workload:
    """x.argmax(1): the row's max, then the first index holding it, fused
    per row (a NaN-free input; ties are rare)."""
    f = lambda x: x.argmax(1)  # noqa: E731
    return Workload(
        name=f"argmax axis 1 {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32)],
        frontend=lambda jx, jnp: f, numpy=f, jax=lambda jax, jnp: f,
        reference=f, rtol=0, atol=0)


def row_top_k(rows: int, cols: int, k: int) -> Workload:
    """lax.top_k(x, k) along rows: the k chunks with the largest maxima, then
    k rounds of max and first index over them (a NaN-free input)."""
    def top_k(x):
        order = np.argsort(-x, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(x, order, 1), order
    return Workload(
        name=f"top_k k={k} axis 1 {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32)],
        frontend=lambda jx, jnp: (lambda x: jx.lax.top_k(x, k)), numpy=top_k,
        jax=lambda jax, jnp: (lambda x: jax.lax.top_k(x, k)), reference=top_k, rtol=0, atol=0)


def linalg_solve(n: int, k: int) -> Workload:
    """jnp.linalg.solve of an n x n system with k right sides: blocked LU
    with partial pivoting, then two blocked triangular solves."""
    solve = lambda a, b: np.linalg.solve(a, b)  # noqa: E731
    return Workload(
        name=f"linalg.solve {n}x{n}, {k} right sides",
        make_inputs=lambda rng: [(rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)).astype(np.float32),
                                 rng.standard_normal((n, k), dtype=np.float32)],
        frontend=lambda jx, jnp: jnp.linalg.solve, numpy=solve, jax=lambda jax, jnp: jnp.linalg.solve,
        reference=lambda a, b: solve(a.astype(np.float64), b), rtol=1e-3, atol=1e-3)


def linalg_inv(n: int) -> Workload:
    """jnp.linalg.inv of an n x n matrix: LU, then two triangular solves
    with n right sides (the identity's columns, permuted)."""
    return Workload(
        name=f"linalg.inv {n}x{n}",
        make_inputs=lambda rng: [(rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)).astype(np.float32)],
        frontend=lambda jx, jnp: jnp.linalg.inv, numpy=np.linalg.inv, jax=lambda jax, jnp: jnp.linalg.inv,
        reference=lambda a: np.linalg.inv(a.astype(np.float64)), rtol=1e-3, atol=1e-3)


def linalg_qr(n: int) -> Workload:
    """jnp.linalg.qr of an n x n matrix (Q and R: LAPACK's signs, so they
    compare with NumPy's directly)."""
    return Workload(
        name=f"linalg.qr {n}x{n}",
        make_inputs=lambda rng: [rng.standard_normal((n, n)).astype(np.float32)],
        frontend=lambda jx, jnp: jnp.linalg.qr, numpy=np.linalg.qr, jax=lambda jax, jnp: jnp.linalg.qr,
        reference=lambda a: np.linalg.qr(a.astype(np.float64)), rtol=1e-3, atol=1e-3)


def _symmetric(n: int):
    def make(rng):
        a = rng.standard_normal((n, n))
        return [(a + a.T).astype(np.float32)]
    return make


def _eigh_abs(np_like):
    """The eigenvalues and the eigenvectors' moduli (their signs are each
    implementation's)."""
    def f(a):
        w, v = np_like.linalg.eigh(a)
        return w, np_like.abs(v)
    return f


def _svd_abs(np_like):
    """The singular values and the moduli of u and vh (their signs are each
    implementation's)."""
    def f(a):
        u, s, vh = np_like.linalg.svd(a)
        return s, np_like.abs(u), np_like.abs(vh)
    return f


def linalg_eigh(n: int) -> Workload:
    """jnp.linalg.eigh of a symmetric n x n matrix, values and vectors."""
    return Workload(
        name=f"linalg.eigh {n}x{n}", make_inputs=_symmetric(n),
        frontend=lambda jx, jnp: _eigh_abs(jnp), numpy=_eigh_abs(np), jax=lambda jax, jnp: _eigh_abs(jnp),
        reference=lambda a: _eigh_abs(np)(a.astype(np.float64)), rtol=5e-3, atol=5e-3)


def _eigvals_sorted(np_like):
    """The eigenvalues of a general matrix, sorted (real part, then imaginary):
    each implementation has its own order."""
    def f(a):
        return np_like.sort_complex(np_like.linalg.eigvals(a))
    return f


def linalg_eig(n: int) -> Workload:
    """jnp.linalg.eigvals of a general (non-symmetric) n x n matrix: complex
    eigenvalues, no vectors (LAPACK's geev in NumPy and JAX)."""
    return Workload(
        name=f"linalg.eigvals {n}x{n}", make_inputs=lambda rng: [rng.standard_normal((n, n)).astype(np.float32)],
        frontend=lambda jx, jnp: _eigvals_sorted(jnp), numpy=_eigvals_sorted(np),
        jax=lambda jax, jnp: _eigvals_sorted(jnp),
        reference=lambda a: _eigvals_sorted(np)(a.astype(np.float64)), rtol=5e-3, atol=5e-3)


def linalg_svd(n: int) -> Workload:
    """jnp.linalg.svd of an n x n matrix (full_matrices, vectors)."""
    return Workload(
        name=f"linalg.svd {n}x{n}", make_inputs=lambda rng: [rng.standard_normal((n, n)).astype(np.float32)],
        frontend=lambda jx, jnp: _svd_abs(jnp), numpy=_svd_abs(np), jax=lambda jax, jnp: _svd_abs(jnp),
        reference=lambda a: _svd_abs(np)(a.astype(np.float64)), rtol=5e-3, atol=5e-3)


def row_logsumexp(rows: int, cols: int) -> Workload:
    """log(sum(exp(x), 1)) computed stably (max first): a row reduction fed by
    the row's max, fused per row."""
    def reference(x):
        m = x.max(1, keepdims=True)
        return (np.log(np.exp(x - m).sum(1, keepdims=True)) + m)[:, 0]
    return Workload(
        name=f"logsumexp axis 1 {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32)],
        frontend=lambda jx, jnp: (lambda x: jx.scipy.special.logsumexp(x, axis=1)),
        numpy=reference, jax=lambda jax, jnp: (lambda x: jax.scipy.special.logsumexp(x, axis=1)),
        reference=lambda x: reference(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


def scatter_add_rows(rows: int, cols: int, updates: int) -> Workload:
    """table.at[idx].add(u): `updates` rows added into a rows x cols table at
    random (repeating) row indices, what the gradient of an embedding lookup
    is. Each index is read and checked once per row, the row added on
    scalars (LLVM vectorizes the loop)."""
    def add_at(table, idx, u):
        out = table.copy()
        np.add.at(out, idx, u)
        return out
    return Workload(
        name=f"scatter-add rows {updates}x{cols} into {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols), dtype=np.float32),
                                 rng.integers(0, rows, updates).astype(np.int32),
                                 rng.standard_normal((updates, cols), dtype=np.float32)],
        frontend=lambda jx, jnp: (lambda t, i, u: t.at[i].add(u)), numpy=add_at,
        jax=lambda jax, jnp: (lambda t, i, u: t.at[i].add(u)),
        reference=lambda t, i, u: add_at(t.astype(np.float64), i, u), rtol=1e-4, atol=1e-4)


# --- dispatch overhead -------------------------------------------------------------

def tiny_add_jit(n: int = 4) -> Workload:
    """Per-call cost of a jit-compiled function on tiny device arrays: jaxc
    Arrays into a `jaxc.jit` function, JAX device arrays into a `jax.jit`
    function, each call waited for (block_until_ready)."""
    add = lambda a, b: a + b  # noqa: E731
    return Workload(
        name=f"dispatch: jit add {n}xf32",
        make_inputs=lambda rng: [rng.standard_normal(n, dtype=np.float32),
                                 rng.standard_normal(n, dtype=np.float32)],
        frontend=lambda jx, jnp: add, numpy=np.add, jax=lambda jax, jnp: add,
        reference=lambda a, b: a.astype(np.float64) + b, rtol=1e-6, atol=0)


def tiny_add(n: int = 4) -> Workload:
    """The same through the runtime alone (compile_module's function on
    NumPy arrays): what is left of the call without the front end."""
    t = tt((n,))
    return Workload(
        name=f"dispatch: runtime add {n}xf32",
        make_inputs=lambda rng: [rng.standard_normal(n, dtype=np.float32),
                                 rng.standard_normal(n, dtype=np.float32)],
        module=func([("a", t), ("b", t)], f"  %r = jaxc.add %a, %b : {t}\n", ("r", t)),
        numpy=np.add,
        reference=lambda a, b: a.astype(np.float64) + b, rtol=1e-6, atol=0)


# --- transformations (written with the front end; the same code runs on JAX) ---

def _wiggle(np_or_jnp):
    """A scalar function with a few transcendental ops."""
    def f(x):
        return np_or_jnp.sin(3.0 * x) * np_or_jnp.tanh(x) + 0.1 * x * x * x
    return f


def _wiggle_grad(x):
    """d/dx of _wiggle, by hand, in float64."""
    x = np.asarray(x, np.float64)
    t = np.tanh(x)
    return 3.0 * np.cos(3.0 * x) * t + np.sin(3.0 * x) * (1 - t * t) + 0.3 * x * x


def grad_scalar() -> Workload:
    return Workload(
        name="jit(grad(f)) scalar",
        make_inputs=lambda rng: [np.float32(0.7)],
        frontend=lambda jx, jnp: jx.grad(_wiggle(jnp)),
        numpy=lambda x: np.float32(_wiggle_grad(x)),
        jax=lambda jax, jnp: jax.grad(_wiggle(jnp)),
        reference=_wiggle_grad, rtol=1e-5, atol=1e-6)


def vmap_grad(points: int) -> Workload:
    return Workload(
        name=f"jit(vmap(grad(f))) {points} points",
        make_inputs=lambda rng: [rng.uniform(-2, 2, points).astype(np.float32)],
        frontend=lambda jx, jnp: jx.vmap(jx.grad(_wiggle(jnp))),
        numpy=lambda x: _wiggle_grad(x).astype(np.float32),
        jax=lambda jax, jnp: jax.vmap(jax.grad(_wiggle(jnp))),
        reference=_wiggle_grad, rtol=1e-5, atol=1e-5)


def _mlp_loss(jnp):
    def loss(w1, b1, w2, b2, x, y):
        hidden = jnp.tanh(x @ w1 + b1)
        return jnp.mean((hidden @ w2 + b2 - y) ** 2)
    return loss


def _mlp_step(jx, jnp, lr=0.01):
    """One SGD step: the updated parameters (a tuple, as a training loop
    keeps them). Not concatenated into one vector: XLA:CPU fuses such a
    concatenate with the updates into a kernel 5x slower than the step
    (4 vs 20 ms on 2 cores), which is what the JAX column used to time."""
    def step(w1, b1, w2, b2, x, y):
        grads = jx.grad(_mlp_loss(jnp), argnums=(0, 1, 2, 3))(w1, b1, w2, b2, x, y)
        return tuple(p - lr * g for p, g in zip((w1, b1, w2, b2), grads))
    return step


def _mlp_step_numpy(w1, b1, w2, b2, x, y, lr=0.01, dtype=np.float32):
    """The same step with backpropagation written by hand."""
    w1, b1, w2, b2, x, y = (np.asarray(a, dtype) for a in (w1, b1, w2, b2, x, y))
    hidden = np.tanh(x @ w1 + b1)
    err = hidden @ w2 + b2 - y
    d_out = (2.0 / err.size) * err
    d_hidden = (d_out @ w2.T) * (1 - hidden * hidden)
    grads = (x.T @ d_hidden, d_hidden.sum(0), hidden.T @ d_out, d_out.sum(0))
    return tuple(p - lr * g for p, g in zip((w1, b1, w2, b2), grads))


def adam_update(shape: Sequence[int], step: int = 10) -> Workload:
    """One Adam update of a parameter array (optax's formula): the new
    moments are both returned and used, an elementwise DAG of ~15 ops."""
    shape = tuple(shape)
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8

    def update(np_):
        def f(p, g, m, v):
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            m_hat, v_hat = m / (1 - b1 ** step), v / (1 - b2 ** step)
            return p - lr * m_hat / (np_.sqrt(v_hat) + eps), m, v
        return f

    def make(rng):
        p, g, m = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
        return [p, g, m, np.abs(rng.standard_normal(shape)).astype(np.float32)]
    return Workload(
        name=f"Adam update {'x'.join(map(str, shape))}", make_inputs=make,
        frontend=lambda jx, jnp: update(jnp), numpy=update(np), jax=lambda jax, jnp: update(jnp),
        reference=lambda *a: update(np)(*(x.astype(np.float64) for x in a)), rtol=1e-5, atol=1e-6)


def mlp_step(n_in: int, n_hidden: int, n_out: int, batch: int) -> Workload:
    def inputs(rng):
        return [(rng.normal(size=(n_in, n_hidden)) / np.sqrt(n_in)).astype(np.float32),
                np.zeros(n_hidden, np.float32),
                (rng.normal(size=(n_hidden, n_out)) / np.sqrt(n_hidden)).astype(np.float32),
                np.zeros(n_out, np.float32),
                rng.normal(size=(batch, n_in)).astype(np.float32),
                rng.normal(size=(batch, n_out)).astype(np.float32)]
    flops = 2.0 * batch * (n_in * n_hidden + n_hidden * n_out) * 3
    return Workload(
        name=f"MLP step {n_in}-{n_hidden}-{n_out} b{batch}", make_inputs=inputs,
        frontend=lambda jx, jnp: _mlp_step(jx, jnp),
        numpy=_mlp_step_numpy,
        jax=lambda jax, jnp: _mlp_step(jax, jnp),
        reference=lambda *a: _mlp_step_numpy(*a, dtype=np.float64), rtol=1e-4, atol=1e-5, flops=flops)


# --- jax.random -------------------------------------------------------------------

def _threefry_np(k0, k1, x0, x1):
    """Threefry-2x32 (20 rounds) on uint32 NumPy arrays: the reference for the
    random workloads, independent of jaxc."""
    def rotl(v, r):
        return (v << np.uint32(r)) | (v >> np.uint32(32 - r))
    ks = (np.uint32(k0), np.uint32(k1), np.uint32(k0) ^ np.uint32(k1) ^ np.uint32(0x1BD11BDA))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for i in range(1, 6):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[(i - 1) % 2]:
            x0 = x0 + x1
            x1 = rotl(x1, r) ^ x0
        x0, x1 = x0 + ks[i % 3], x1 + ks[(i + 1) % 3] + np.uint32(i)
    return x0, x1


def _normal_reference(key, shape):
    """jax.random.normal's algorithm with the inverse CDF in float64."""
    import statistics
    n = int(np.prod(shape))
    b1, b2 = _threefry_np(key[0], key[1], np.zeros(n, np.uint32), np.arange(n, dtype=np.uint32))
    u = (((b1 ^ b2) >> np.uint32(9)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)
    lo = np.nextafter(np.float32(-1), np.float32(0))
    u = np.maximum(lo, u * (np.float32(1) - lo) + lo).astype(np.float64)
    inv_cdf = np.frompyfunc(statistics.NormalDist().inv_cdf, 1, 1)
    return inv_cdf((u + 1) / 2).astype(np.float64).reshape(shape)


def _split_reference(key, n):
    b1, b2 = _threefry_np(key[0], key[1], np.zeros(n, np.uint32), np.arange(n, dtype=np.uint32))
    return np.stack([b1, b2], axis=1)


def random_normal(shape: Sequence[int]) -> Workload:
    shape = tuple(shape)
    return Workload(
        name=f"random.normal {'x'.join(map(str, shape))}",
        make_inputs=lambda rng: [np.array([0, 42], np.uint32)],
        frontend=lambda jx, jnp: lambda key: jx.random.normal(key, shape),
        jax=lambda jax, jnp: lambda key: jax.random.normal(key, shape),
        reference=lambda key: _normal_reference(key, shape), rtol=1e-5, atol=1e-5)


def random_split(n: int) -> Workload:
    return Workload(
        name=f"random.split into {n}",
        make_inputs=lambda rng: [np.array([0, 42], np.uint32)],
        frontend=lambda jx, jnp: lambda key: jx.random.split(key, n),
        jax=lambda jax, jnp: lambda key: jax.random.split(key, n),
        reference=lambda key: _split_reference(key, n).astype(np.float64), rtol=0, atol=0)


# --- Fourier transforms (complex numbers, lax/_fft.py) ----------------------------------

def fft_rows(rows: int, n: int) -> Workload:
    """jnp.fft.fft of complex64 rows: radix-2 for powers of two, Bluestein otherwise."""
    def make(rng):
        return [(rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))).astype(np.complex64)]
    return Workload(
        name=f"fft complex64 {rows}x{n}", make_inputs=make,
        frontend=lambda jx, jnp: lambda x: jnp.fft.fft(x),
        numpy=lambda x: np.fft.fft(x).astype(np.complex64),
        jax=lambda jax, jnp: lambda x: jnp.fft.fft(x),
        reference=lambda x: np.fft.fft(x.astype(np.complex128)), rtol=1e-4, atol=1e-3)


def rfft2(rows: int, cols: int) -> Workload:
    """jnp.fft.rfft2 of a float32 image and back (irfft2)."""
    return Workload(
        name=f"rfft2+irfft2 {rows}x{cols}",
        make_inputs=lambda rng: [rng.standard_normal((rows, cols)).astype(np.float32)],
        frontend=lambda jx, jnp: lambda x: jnp.fft.irfft2(jnp.fft.rfft2(x) * 0.5, (rows, cols)),
        numpy=lambda x: np.fft.irfft2(np.fft.rfft2(x) * 0.5, (rows, cols)).astype(np.float32),
        jax=lambda jax, jnp: lambda x: jnp.fft.irfft2(jnp.fft.rfft2(x) * 0.5, (rows, cols)),
        reference=lambda x: x.astype(np.float64) * 0.5, rtol=1e-4, atol=1e-4)


# --- a real training script (bench/mnist.py) ---------------------------------------

def mnist(sizes: Sequence[int], samples: int, batch: int, epochs: int) -> Workload:
    arch = "-".join(map(str, sizes))
    return Workload(name=f"MNIST MLP {arch} b{batch}, epoch of {samples}",
                    training=dict(sizes=tuple(sizes), samples=samples, batch=batch, epochs=epochs))


# --- the stax + Adam example (examples/train_digits.py) ---------------------------------

def digits(model: str, epochs: int, samples: int | None = None) -> Workload:
    """`epochs` epochs of examples/train_digits.py's `model` ("mlp" or
    "conv") on scikit-learn's digits (the first `samples` training images,
    None: all 1438)."""
    return Workload(name=f"digits {model} (stax, Adam) b64, epoch of {samples or 1438}",
                    training=dict(kind="digits", model=model, epochs=epochs, samples=samples))


# --- not possible yet ---------------------------------------------------------------

def missing(name: str, why: str) -> Workload:
    return Workload(name=name, missing=why)


def suite(quick: bool, mnist_samples: int = 1280, mnist_epochs: int = 5) -> list[Workload]:
    """The workloads in the order they are reported; `quick` shrinks every
    shape so the whole run takes seconds (a smoke test, not a measurement).
    The MNIST row trains on `mnist_samples` samples (60000: a full epoch)
    for `mnist_epochs` epochs."""
    if quick:
        ws = [tiny_add_jit(), tiny_add(), matmul(64, "matmul 64x64"), activation_matmul(64), sin_loop((64, 64)),
              sin_loop_op_by_op((64, 64)), normalize(200, 10), selu(1000), total(128, 128), softmax(64, 32),
              layer_norm(64, 32), axis_sum(64, 300, 1), axis_sum(64, 300, 0), row_argmax(64, 300),
              row_logsumexp(64, 300), row_top_k(64, 300, 4), linalg_solve(70, 3), linalg_inv(70), linalg_qr(70),
              linalg_eigh(70), linalg_svd(70), linalg_eig(70),
              scatter_add_rows(100, 8, 300), searchsorted(100, 1000),
              heads_projection(2, 16, 32, 4), small_batched_products(8, 4, 8, 4),
              grad_scalar(), vmap_grad(100),
              mlp_step(64, 32, 10, 16), adam_update((64, 64)), random_normal((64, 64)), random_split(100),
              fft_rows(4, 64), rfft2(16, 16), mnist((64, 32, 32, 10), 512, 128, 1), digits("mlp", 1, 256)]
        sweep = [32, 64]
    else:
        ws = [tiny_add_jit(), tiny_add(), matmul(1000), activation_matmul(512), sin_loop((1000, 1000)),
              sin_loop_op_by_op((1000, 1000)), normalize(10000, 100), selu(10 ** 6), total(4096, 4096),
              softmax(4096, 1024), layer_norm(4096, 1024), axis_sum(4096, 1024, 1), axis_sum(4096, 1024, 0),
              row_argmax(4096, 1024), row_logsumexp(4096, 1024), row_top_k(4096, 1024, 8),
              linalg_solve(256, 8), linalg_inv(256), linalg_qr(256), linalg_eigh(256), linalg_svd(256),
              linalg_eig(256),
              scatter_add_rows(1000, 128, 4096), searchsorted(1000, 100000),
              heads_projection(8, 128, 512, 8), small_batched_products(128, 16, 32, 16), grad_scalar(),
              vmap_grad(1000), mlp_step(784, 512, 10, 128), adam_update((1000, 1000)),
              random_normal((1000, 1000)), random_split(1000), fft_rows(256, 1024), fft_rows(64, 1000),
              rfft2(512, 512), mnist((784, 1024, 1024, 10), mnist_samples, 128, mnist_epochs),
              digits("mlp", 5), digits("conv", 5)]
        sweep = [256, 512, 1024, 2048]
    ws += [matmul(n, f"matmul sweep {n}") for n in sweep]
    return ws
