"""Data-parallel training of an MLP over MPI processes (docs/parallel.md).

    mpiexec -n 2 .venv/bin/python examples/mpi_data_parallel.py       (pip install -e .[mpi])
    mpiexec -n 2 .venv/bin/python examples/mpi_data_parallel.py --mode shard_map
    .venv/bin/python examples/mpi_data_parallel.py --single            (the same steps in one process)

Every process holds `--devices` CPU devices and its own slice of each
batch. `--mode pmap` (the default): `pmap` runs the step on all devices of
all processes, and `pmean` averages the gradients across every device
(through MPI_Allreduce). `--mode shard_map`: the batch is an array split
over the processes (`make_array_from_process_local_data` on a mesh of
every process's devices) and `shard_map` differentiates the `pmean` of the
loss. After `--steps` steps, rank 0 prints the loss and a
checksum of the parameters: the same, within float32 rounding, as the
single-process run on the whole batch (`--single`). With `--out FILE`
rank 0 writes the parameters there.
"""
from __future__ import annotations

import argparse

import numpy as np


def data(steps: int, batch: int, seed: int = 0):
    rng = np.random.RandomState(seed)
    params = {"w1": rng.randn(64, 32).astype(np.float32) * 0.1, "b1": np.zeros(32, np.float32),
              "w2": rng.randn(32, 10).astype(np.float32) * 0.1, "b2": np.zeros(10, np.float32)}
    xs = rng.randn(steps, batch, 64).astype(np.float32)
    ys = np.eye(10, dtype=np.float32)[rng.randint(0, 10, (steps, batch))]
    return params, xs, ys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2, help="CPU devices per process")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32, help="examples per device")
    parser.add_argument("--single", action="store_true", help="one process, the whole batch, no pmap")
    parser.add_argument("--mode", choices=["pmap", "shard_map"], default="pmap",
                        help="how the processes run the step")
    parser.add_argument("--processes", type=int, default=2, help="with --single: how many the batch is for")
    parser.add_argument("--out", help="rank 0 writes the final parameters here (.npz)")
    options = parser.parse_args()

    import jaxc
    import jaxc.numpy as jnp
    from jaxc import lax

    if not options.single:
        jaxc.distributed.initialize()
    jaxc.config.update("jax_num_cpu_devices", options.devices)
    processes = jaxc.process_count() if not options.single else options.processes
    total = options.devices * processes
    params, xs, ys = data(options.steps, options.batch * total)

    def loss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return -jnp.mean(jnp.sum(y * jaxc.nn.log_softmax(h @ p["w2"] + p["b2"]), axis=-1))

    def sgd(p, x, y):
        return jaxc.tree_util.tree_map(lambda a, g: a - 0.5 * g, p, jaxc.grad(loss)(p, x, y))

    n, rank = options.devices, jaxc.process_index()
    mine = slice(rank * n * options.batch, (rank + 1) * n * options.batch)  # this process's examples
    if options.single:
        step = jaxc.jit(sgd)
        for t in range(options.steps):
            params = step(params, xs[t], ys[t])
        final = {k: np.asarray(v) for k, v in params.items()}
        value = float(loss(params, xs[-1], ys[-1]))
    elif options.mode == "shard_map":
        from jaxc.sharding import NamedSharding, PartitionSpec as P
        mesh = jaxc.make_mesh((total,), ("d",))  # every process's devices
        split = NamedSharding(mesh, P("d"))

        def batch(t):  # this process's rows of step t's batch, as arrays split over the processes
            return (jaxc.make_array_from_process_local_data(split, xs[t, mine]),
                    jaxc.make_array_from_process_local_data(split, ys[t, mine]))

        def device_step(p, x, y):  # the pmean of the loss: its gradient is the full batch's
            value, grads = jaxc.value_and_grad(lambda q: lax.pmean(loss(q, x, y), "d"))(p)
            return jaxc.tree_util.tree_map(lambda a, g: a - 0.5 * g, p, grads), value
        step = jaxc.shard_map(device_step, mesh=mesh, in_specs=(P(), P("d"), P("d")), out_specs=(P(), P()))
        for t in range(options.steps):
            params, _ = step(params, *batch(t))
        final = {k: np.asarray(v) for k, v in params.items()}
        _, value = step(params, *batch(options.steps - 1))
        value = float(value)
    else:
        def step(p, x, y):
            grads = lax.pmean(jaxc.grad(loss)(p, x, y), "i")
            return jaxc.tree_util.tree_map(lambda a, g: a - 0.5 * g, p, grads), lax.pmean(loss(p, x, y), "i")
        pstep = jaxc.pmap(step, axis_name="i")
        replicated = {k: np.stack([v] * n) for k, v in params.items()}
        for t in range(options.steps):
            x = xs[t, mine].reshape(n, options.batch, 64)
            y = ys[t, mine].reshape(n, options.batch, 10)
            replicated, _ = pstep(replicated, x, y)
        final = {k: np.asarray(v)[0] for k, v in replicated.items()}
        _, values = pstep(replicated, xs[-1, mine].reshape(n, options.batch, 64),
                          ys[-1, mine].reshape(n, options.batch, 10))
        value = float(np.asarray(values)[0])
    if jaxc.process_index() == 0:
        checksum = sum(float(np.abs(v).sum()) for v in final.values())
        print(f"processes {processes}, devices {total}: loss {value:.6f}, |params| {checksum:.6f}")
        if options.out:
            np.savez(options.out, **final)


if __name__ == "__main__":
    main()
