"""pmap on N host CPU devices, jaxc against JAX in one process (docs/parallel.md).

    .venv/bin/python bench/pmap.py [--devices 8] [--repeats 30]

1. `pmap(lambda x: lax.psum(x, "i"))` of an (N, 1e6) float32 array.
2. A data-parallel MLP training step (784-512-10, 128 examples per device):
   grad on each device's batch, gradients `pmean`ed, SGD; parameters
   replicated, fed back each step.
3. A sharded matmul 2048² on 2 devices: `jit` with `in_shardings` (the
   left operand split by rows over a mesh ("i",) of 2, the right
   replicated) and `out_shardings` (rows): partitioned by each library.
4. The same product written with `shard_map`.
5. The MLP training step of 2 as one `jit` with `in_shardings`: the N x 128
   examples split over a mesh ("d",) of the N devices, the parameters
   replicated; each library partitions it (the gradients' all-reduce is
   the partition's).

Both libraries are given N CPU devices before first use
(`jax_num_cpu_devices`). Each number is the median of `--repeats` calls,
each waited for, after two warm-up calls. Without JAX only jaxc's column is
printed. The values are checked against each other (and against NumPy for
the psum). Nothing here is a test.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def median_ms(fn, repeats: int) -> float:
    fn()
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return 1e3 * statistics.median(samples)


def mlp_loss(jx, jnp):
    def loss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        return -jnp.mean(jnp.sum(y * jx.nn.log_softmax(logits), axis=-1))
    return loss


def mlp_step(jx, jnp, lax):
    loss = mlp_loss(jx, jnp)

    def step(p, x, y):
        grads = lax.pmean(jx.grad(loss)(p, x, y), "i")
        return jx.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)
    return jx.pmap(step, axis_name="i")


def sharded_step(jx, jnp, mesh):
    """The MLP step as one program partitioned by its shardings."""
    loss = mlp_loss(jx, jnp)

    def step(p, x, y):
        return jx.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, jx.grad(loss)(p, x, y))
    spec, named = jx.sharding.PartitionSpec, jx.sharding.NamedSharding
    split = named(mesh, spec("d"))
    return jx.jit(step, in_shardings=(named(mesh, spec()), split, split))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--elements", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=30)
    options = parser.parse_args()
    n = options.devices

    import jaxc
    import jaxc.numpy as jjnp
    from jaxc import lax as jlax
    jaxc.config.update("jax_num_cpu_devices", n)
    libraries = [("jaxc", jaxc, jjnp, jlax)]
    try:
        import jax
        import jax.numpy as jnp
        from jax import lax
        jax.config.update("jax_num_cpu_devices", n)
        jax.config.update("jax_platforms", "cpu")
        libraries.append((f"JAX {jax.__version__}", jax, jnp, lax))
    except ImportError:
        print("JAX is not installed: jaxc only")

    rng = np.random.RandomState(0)
    x = rng.randn(n, options.elements).astype(np.float32)
    params = {"w1": rng.randn(784, 512).astype(np.float32) * 0.05, "b1": np.zeros(512, np.float32),
              "w2": rng.randn(512, 10).astype(np.float32) * 0.05, "b2": np.zeros(10, np.float32)}
    images = rng.rand(n, 128, 784).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, (n, 128))]

    rows = {}
    rng_matmul = np.random.RandomState(1)
    for name, jx, jnp_, lax_ in libraries:
        psum = jx.pmap(lambda v: lax_.psum(v, "i"), axis_name="i")
        # the argument already on the devices, as a training loop's state is
        xd = jx.pmap(lambda v: v)(x)
        out = np.asarray(psum(xd))
        np.testing.assert_allclose(out[0], x.sum(0), rtol=1e-4, atol=1e-4)
        psum_ms = median_ms(lambda: psum(xd).block_until_ready(), options.repeats)

        step = mlp_step(jx, jnp_, lax_)
        replicated = {k: np.stack([v] * n) for k, v in params.items()}
        state = {"p": step(replicated, images, labels)}

        def one_step():
            state["p"] = step(state["p"], images, labels)
            jx.tree_util.tree_map(lambda a: a.block_until_ready(), state["p"])
        step_ms = median_ms(one_step, options.repeats)
        final = {k: np.asarray(v) for k, v in step(replicated, images, labels).items()}
        mesh = jx.make_mesh((2,), ("i",))
        spec = jx.sharding.PartitionSpec
        matmul = jx.shard_map(lambda p, q: p @ q, mesh=mesh, in_specs=(spec("i"), spec()), out_specs=spec("i"))
        if name != "jaxc":  # JAX compiles it under jit; jaxc's jit would run it as one program
            matmul = jx.jit(matmul)
        a = rng_matmul.randn(2048, 2048).astype(np.float32)
        b = rng_matmul.randn(2048, 2048).astype(np.float32)
        sharding = jx.sharding.NamedSharding(mesh, spec("i"))
        ad, bd = jx.device_put(a, sharding), jx.device_put(b, jx.sharding.NamedSharding(mesh, spec()))
        np.testing.assert_allclose(np.asarray(matmul(ad, bd)), a @ b, rtol=2e-3, atol=2e-2)
        matmul_ms = median_ms(lambda: matmul(ad, bd).block_until_ready(), max(5, options.repeats // 3))
        jitted = jx.jit(lambda p, q: p @ q, in_shardings=(sharding, jx.sharding.NamedSharding(mesh, spec())),
                        out_shardings=sharding)
        np.testing.assert_allclose(np.asarray(jitted(ad, bd)), a @ b, rtol=2e-3, atol=2e-2)
        if name == "jaxc" and not jitted.partitioned:
            print("jaxc: the sharded jit was not partitioned")
        jit_ms = median_ms(lambda: jitted(ad, bd).block_until_ready(), max(5, options.repeats // 3))
        devices = jx.make_mesh((n,), ("d",))
        sharded = sharded_step(jx, jnp_, devices)
        flat_images, flat_labels = images.reshape(n * 128, 784), labels.reshape(n * 128, 10)
        state["q"] = sharded(params, flat_images, flat_labels)
        for k in params:  # the pmap step's parameters (its pmean of per-device means: the global mean)
            np.testing.assert_allclose(np.asarray(state["q"][k]), final[k][0], rtol=1e-4, atol=1e-5)
        if name == "jaxc" and not sharded.partitioned:
            print("jaxc: the sharded MLP step was not partitioned")

        def one_sharded_step():
            state["q"] = sharded(state["q"], flat_images, flat_labels)
            jx.tree_util.tree_map(lambda a: a.block_until_ready(), state["q"])
        sharded_ms = median_ms(one_sharded_step, options.repeats)
        rows[name] = (psum_ms, step_ms, jit_ms, matmul_ms, sharded_ms, final)

    names = list(rows)
    print(f"pmap on {n} CPU devices (median ms per call)")
    print(f"| workload | {' | '.join(names)} |" + (" jaxc/JAX |" if len(names) > 1 else ""))
    print("|---|" + "---:|" * (len(names) + (len(names) > 1)))
    for i, label in enumerate([f"psum of ({n}, {options.elements}) f32",
                               f"data-parallel MLP step 784-512-10, {n}x128 examples",
                               "sharded matmul 2048² on 2 devices (jit, shardings)",
                               "sharded matmul 2048² on 2 devices (shard_map)",
                               f"MLP step 784-512-10, {n}x128 examples, one jit with shardings"]):
        cells = [f"{rows[k][i]:.3f}" for k in names]
        ratio = f" {rows[names[0]][i] / rows[names[1]][i]:.2f}x |" if len(names) > 1 else ""
        print(f"| {label} | {' | '.join(cells)} |{ratio}")
    if len(names) > 1:
        difference = max(float(np.max(np.abs(rows[names[0]][5][k] - rows[names[1]][5][k]))) for k in params)
        print(f"parameters after one step: jaxc and JAX differ by at most {difference:.2e}")


if __name__ == "__main__":
    main()
