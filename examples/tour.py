"""`make demo`: a tour of jaxc from a JAX user's seat.

Eager NumPy-style code, `jit` (traced once, then cached), the stages one
function goes through on its way to machine code, and structured control
flow. Runs in a few seconds.
"""
from __future__ import annotations

import time

import numpy as np

import jaxc as jax
import jaxc.numpy as jnp
from jaxc import lax


def section(title: str) -> None:
    print(f"\n=== {title}")


def eager() -> None:
    section("Eager arrays: NumPy semantics, JAX dtypes, asynchronous execution")
    x = jnp.linspace(0.0, 1.0, 5)
    print("x            =", x)
    print("jnp.sin(x)*2 =", jnp.sin(x) * 2)
    m = jnp.arange(6).reshape(2, 3)
    print("m            =", repr(m))
    print("m.sum(0), m.mean(), m.T @ m:", m.sum(0), m.mean(), (m.T @ m).shape)
    print("int8 + 1 stays", (jnp.ones(3, jnp.int8) + 1).dtype, "| int32 + 1.5 is",
          (m + 1.5).dtype, "| x[::-2] =", x[::-2])
    y = m.at[0, 1].set(100)
    print("m.at[0, 1].set(100) =", y.tolist(), "(m unchanged:", m[0, 1].item(), ")")


def jit_and_cache() -> None:
    section("jit: trace once per signature, then call the compiled code")

    @jax.jit
    def selu(x, alpha=1.67, scale=1.05):
        return scale * jnp.where(x > 0, x, alpha * (jnp.exp(x) - 1))

    x = jnp.asarray(np.random.default_rng(0).normal(size=(1000,)).astype(np.float32))
    start = time.perf_counter()
    selu(x).block_until_ready()
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(100):
        y = selu(x)
    y.block_until_ready()
    later = (time.perf_counter() - start) / 100
    print(f"first call (trace + compile) {first * 1e3:.0f} ms; later calls {later * 1e6:.0f} us;"
          f" traced {selu.trace_count} time(s)")
    print("the traced IR (jax.make_ir, like jax.make_jaxpr):")
    print(jax.make_ir(selu)(x[:4]))


def stages() -> None:
    section("The stages of one function: jit(f).lower(x).as_text(stage=...)")

    def f(x):
        return jnp.tanh(x) + 1.0

    lowered = jax.jit(f).lower(jnp.ones(4))
    for stage in ("traced", "linalg", "llvm"):
        text = lowered.as_text(stage=stage)
        lines = [line for line in text.splitlines() if line.strip()]
        print(f"--- {stage} ({len(lines)} lines)")
        print("\n".join(lines[:8] + (["    ..."] if len(lines) > 8 else [])))


def scheduled() -> None:
    section("Fast CPU code: the scheduled stage fuses, tiles, vectorizes and splits over threads")

    def softmax(x):
        e = jnp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    x = jnp.ones((256, 512))
    text = jax.jit(softmax).lower(x).as_text(stage="scheduled")
    keep = [line for line in text.splitlines()
            if any(k in line for k in ("scf.forall", "scf.for", "math.exp", "arith.divf", "arith.maximumf"))]
    print("softmax over rows, one loop over the rows with everything fused inside it:")
    print("\n".join(line[:110] for line in keep))


def control_flow() -> None:
    section("Control flow: lax.cond, lax.fori_loop, lax.while_loop, lax.scan")

    @jax.jit
    def collatz_steps(n):
        def body(state):
            n, steps = state
            n = lax.cond(n % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, n)
            return n, steps + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]

    print("collatz steps from 27:", collatz_steps(27))
    print("fori_loop sum of squares 0..9:", lax.fori_loop(0, 10, lambda i, acc: acc + i * i, 0))

    def running_mean(carry, x):
        total, count = carry
        total, count = total + x, count + 1
        return (total, count), total / count

    _, means = lax.scan(running_mean, (0.0, 0.0), jnp.arange(1.0, 6.0))
    print("scan running means of 1..5:", means)
    try:
        jax.jit(lambda x: x if x > 0 else -x)(1.0)
    except jax.ConcretizationTypeError as error:
        print("Python `if` on a traced value ->", type(error).__name__ + ":", str(error)[:100] + "...")


def derivatives() -> None:
    section("Derivatives: grad and friends are requests the jaxc-autodiff pass expands")

    def f(x):
        return x ** 3 + 2 * x

    d1, d2, d3 = jax.grad(f), jax.grad(jax.grad(f)), jax.grad(jax.grad(jax.grad(f)))
    print(f"f(x) = x**3 + 2x at 2.0: f' = {float(d1(2.0))}, f'' = {float(d2(2.0))}, "
          f"f''' = {float(d3(2.0))}")

    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    w, x = jnp.ones((3, 2)) * 0.1, jnp.arange(12.0).reshape(4, 3) / 10
    value, dw = jax.jit(jax.value_and_grad(loss))(w, x)
    print("value_and_grad of a tiny tanh layer:", round(float(value), 6),
          [[round(float(v), 6) for v in row] for row in np.asarray(dw)])
    text = str(jax.make_ir(jax.grad(f))(2.0))
    print("the request, before expansion:")
    print("\n".join(line for line in text.splitlines() if "jaxc.vjp" in line))
    print("grad(f) after jaxc-autodiff and the cleanup (the optimized stage):")
    print(jax.jit(jax.grad(f)).lower(2.0).as_text(stage="optimized"))


def batching() -> None:
    section("Batching: vmap is a request the jaxc-batch pass expands")
    m, v = jnp.arange(6.0).reshape(2, 3), jnp.ones(3)
    matvec = jax.vmap(jnp.dot, in_axes=(0, None))
    print("vmap(dot, in_axes=(0, None)) is a mat-vec product:", np.asarray(matvec(m, v)).tolist())
    print("after jaxc-batch and the cleanup, one dot_general (no loop):")
    print(jax.jit(matvec).lower(m, v).as_text(stage="optimized"))

    def f(x):
        return jnp.sin(x) * x

    xs = jnp.array([0.0, 1.0, 2.0])
    print("per-point derivatives, jit(vmap(grad(f))):",
          [round(float(d), 6) for d in np.asarray(jax.jit(jax.vmap(jax.grad(f)))(xs))])


def gpu() -> None:
    section("NVIDIA GPUs: the same function as PTX (no GPU needed), and on a GPU if present")
    x = jnp.linspace(-1.0, 1.0, 1000)
    ptx = jax.jit(lambda v: jnp.tanh(v) * 2.0).lower(x).as_text(stage="ptx", chip="sm_90")
    lines = [line for line in ptx.splitlines() if line.startswith((".version", ".target", "// -----"))]
    print(f"as_text(stage='ptx'): {len(ptx.splitlines())} lines; per kernel module:")
    print("\n".join("  " + line for line in lines))
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if gpus:
        y = jax.jit(lambda v: jnp.tanh(v) * 2.0)(jax.device_put(x, gpus[0]))
        print(f"on {gpus[0]} ({gpus[0].device_kind}):", np.asarray(y)[:3].tolist())
    else:
        print("no CUDA GPU here: jax.devices() is", jax.devices())


def main() -> None:
    start = time.perf_counter()
    eager()
    jit_and_cache()
    stages()
    scheduled()
    control_flow()
    derivatives()
    batching()
    gpu()
    print(f"\n(tour done in {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
