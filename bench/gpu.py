"""GPU benchmarks (docs/gpu.md): run only where a CUDA GPU is present.

    .venv/bin/python bench/gpu.py [--elements-log2 28] [--matmul 4096] [--repeats 5]

1. Elementwise `y = x * 2 + 1` over 2^28 float32 compiled by jaxc for the
   GPU, as achieved bandwidth (bytes of x read plus y written, per second)
   and as a fraction of a device-to-device copy (`cuMemcpyDtoD`) of the same
   buffer measured in the same run.
   Next to it, JAX's jitted `x * 2 + 1` on the same GPU when JAX sees one.
2. A 4096x4096 float32 matmul compiled by jaxc, in TFLOP/s (2 n^3 per
   call), next to JAX's `jnp.dot` on the same GPU when JAX sees one.
3. The MLP training step 784-512-10 with batch 128 (jit of grad and SGD,
   every array on the GPU, parameters fed back), jaxc and JAX, ms per step.

Each number is the median of `--repeats` calls after one warm-up call (which
also migrates the managed input to the GPU). Without a GPU it says so and
exits with status 0: nothing here is a test.
"""
from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time

import numpy as np

from jaxc.runtime import compile_module, cuda


def median_seconds(fn, repeats: int) -> float:
    fn()  # warm-up: compilation caches, page migration
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def copy_bandwidth(nbytes: int, repeats: int) -> float:
    """Bytes per second (read + write) of one device-to-device copy, timed with
    the driver directly (the primary context of device 0)."""
    driver = ctypes.CDLL("libcuda.so.1")
    device, context = ctypes.c_int(0), ctypes.c_void_p()
    src, dst = ctypes.c_uint64(), ctypes.c_uint64()
    driver.cuDeviceGet(ctypes.byref(device), 0)
    driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    driver.cuCtxPushCurrent_v2(context)
    try:
        for buffer in (src, dst):
            if driver.cuMemAlloc_v2(ctypes.byref(buffer), ctypes.c_size_t(nbytes)) != 0:
                raise MemoryError(f"cuMemAlloc of {nbytes} bytes failed")

        def copy() -> None:
            driver.cuMemcpyDtoD_v2(dst, src, ctypes.c_size_t(nbytes))
            driver.cuCtxSynchronize()

        seconds = median_seconds(copy, repeats)
        for buffer in (src, dst):
            driver.cuMemFree_v2(buffer)
    finally:
        driver.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    return 2 * nbytes / seconds


def elementwise(n: int, chip: str, repeats: int) -> tuple[float, float]:
    """(bytes per second, seconds per call) of jaxc's `x * 2 + 1` on n float32."""
    text = f"""
func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %two = jaxc.constant dense<2.0> : tensor<{n}xf32>
  %one = jaxc.constant dense<1.0> : tensor<{n}xf32>
  %m = jaxc.mul %x, %two : tensor<{n}xf32>
  %y = jaxc.add %m, %one : tensor<{n}xf32>
  return %y : tensor<{n}xf32>
}}"""
    function = compile_module(text, target="cuda", chip=chip)["f"]
    x = cuda.to_managed(np.linspace(-1, 1, n, dtype=np.float32))
    (y,) = function(x)
    np.testing.assert_allclose(y[:1000], x[:1000] * 2 + 1, rtol=1e-6)
    seconds = median_seconds(lambda: function(x), repeats)
    return 2 * 4 * n / seconds, seconds


def matmul(n: int, chip: str, repeats: int) -> float:
    """TFLOP/s of jaxc's n x n float32 matmul."""
    text = f"""
func.func @f(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0]
         : (tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %c : tensor<{n}x{n}xf32>
}}"""
    function = compile_module(text, target="cuda", chip=chip)["f"]
    rng = np.random.default_rng(0)
    a = cuda.to_managed(rng.standard_normal((n, n), dtype=np.float32))
    b = cuda.to_managed(rng.standard_normal((n, n), dtype=np.float32))
    (c,) = function(a, b)
    np.testing.assert_allclose(c[:4, :4], a[:4] @ b[:, :4], rtol=1e-3, atol=1e-3)
    return 2 * n ** 3 / median_seconds(lambda: function(a, b), repeats) / 1e12


def jax_gpu():
    """(jax, its first GPU device), or None without JAX or a JAX GPU."""
    try:
        import jax
        return jax, jax.devices("gpu")[0]
    except Exception:  # noqa: BLE001 -- no JAX, or no GPU backend
        return None


def jax_elementwise(n: int, repeats: int) -> float | None:
    """Seconds per call of JAX's jitted `x * 2 + 1` on n float32 on its GPU."""
    found = jax_gpu()
    if found is None:
        return None
    jax, gpu = found
    x = jax.device_put(np.linspace(-1, 1, n, dtype=np.float32), gpu)
    f = jax.jit(lambda v: v * 2 + 1)
    return median_seconds(lambda: f(x).block_until_ready(), repeats)


def jax_matmul(n: int, repeats: int) -> float | None:
    """TFLOP/s of JAX's jnp.dot on its GPU, or None without JAX or a JAX GPU."""
    found = jax_gpu()
    if found is None:
        return None
    jax, gpu = found
    a = jax.device_put(np.ones((n, n), np.float32), gpu)
    dot = jax.jit(jax.numpy.dot)
    return 2 * n ** 3 / median_seconds(lambda: dot(a, a).block_until_ready(), repeats) / 1e12


def mlp_step_ms(lib, repeats: int) -> tuple[float, list[np.ndarray]]:
    """Milliseconds per step (median) of the MLP training step 784-512-10,
    batch 128, jitted by `lib` (jaxc or jax) with every array on its GPU and
    the parameters fed back; and the parameters after the steps."""
    jnp = lib.numpy

    def step(w1, b1, w2, b2, x, y):
        def loss(w1, b1, w2, b2):
            hidden = jnp.tanh(x @ w1 + b1)
            return jnp.mean((hidden @ w2 + b2 - y) ** 2)
        grads = lib.grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2)
        return [p - 0.01 * g for p, g in zip((w1, b1, w2, b2), grads)]

    rng = np.random.default_rng(0)
    shapes = [(784, 512), (512,), (512, 10), (10,), (128, 784), (128, 10)]
    gpu = lib.devices("gpu")[0]
    arrays = [lib.device_put(rng.standard_normal(s, dtype=np.float32) * 0.05, gpu) for s in shapes]
    params, data, step = arrays[:4], arrays[4:], lib.jit(step)
    samples = []
    for i in range(3 + repeats):
        start = time.perf_counter()
        params = step(*params, *data)
        params[0].block_until_ready()
        if i >= 3:  # after the compile and two warm-up steps
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3, [np.asarray(p) for p in params]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements-log2", type=int, default=28)
    parser.add_argument("--matmul", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if not cuda.available():
        print("no CUDA GPU here (the NVIDIA driver libcuda.so.1 is absent or reports no device): "
              "nothing to measure")
        return 0
    chip = cuda.chip()
    print(f"GPU: {cuda.device_name()} ({chip})")
    n = 1 << args.elements_log2
    copy = copy_bandwidth(4 * n, args.repeats)
    achieved, seconds = elementwise(n, chip, args.repeats)
    print(f"device-to-device copy of 2^{args.elements_log2} float32: {copy / 1e9:.1f} GB/s")
    print(f"jaxc x * 2 + 1 on 2^{args.elements_log2} float32: {seconds * 1e3:.2f} ms, "
          f"{achieved / 1e9:.1f} GB/s = {achieved / copy:.1%} of the copy")
    theirs = jax_elementwise(n, args.repeats)
    if theirs is not None:
        print(f"JAX  x * 2 + 1 on 2^{args.elements_log2} float32: {theirs * 1e3:.2f} ms, "
              f"{8 * n / theirs / 1e9:.1f} GB/s = {8 * n / theirs / copy:.1%} of the copy; "
              f"jaxc/JAX {seconds / theirs:.2f}x")
    ours = matmul(args.matmul, chip, args.repeats)
    theirs = jax_matmul(args.matmul, args.repeats)
    print(f"matmul {args.matmul}x{args.matmul} float32: jaxc {ours:.2f} TFLOP/s, JAX "
          + (f"{theirs:.2f} TFLOP/s" if theirs is not None else "not available"))
    import jaxc
    ours, ours_params = mlp_step_ms(jaxc, 20)
    line = f"MLP training step 784-512-10 b128: jaxc {ours:.3f} ms"
    found = jax_gpu()
    if found is not None:
        theirs, their_params = mlp_step_ms(found[0], 20)
        gap = max(float(np.max(np.abs(a - b))) for a, b in zip(ours_params, their_params))
        line += (f", JAX {theirs:.3f} ms, jaxc/JAX {ours / theirs:.2f}x "
                 f"(parameters after 23 steps differ by at most {gap:.1e})")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
