"""Run by test_distributed.py: shard_map on a mesh of every process's
devices, under `mpiexec -n 2` (2 CPU devices each) and, with `--single`, in
one process of 4 devices (the reference). Every process writes the global
values it can see as JSON to OUT_DIR/<rank or single>.json.

    mpiexec -n 2 python tests/python/mpi_shard_map.py OUT_DIR
    python tests/python/mpi_shard_map.py OUT_DIR --single
"""
import json
import os
import sys

import numpy as np

import jaxc

single = "--single" in sys.argv
if not single:
    jaxc.distributed.initialize()
jaxc.config.update("jax_num_cpu_devices", 4 if single else 2)
import jaxc.numpy as jnp  # noqa: E402
from jaxc import lax  # noqa: E402
from jaxc.experimental import multihost_utils  # noqa: E402
from jaxc.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

rank, processes = jaxc.process_index(), 2
rows = np.arange(8 * 3, dtype=np.float32).reshape(8, 3) / 7 - 1  # the global batch: 2 rows per device
w = np.array([0.5, -1.0, 2.0], np.float32)
mesh = jaxc.make_mesh((4,), ("d",))
out = {"devices": [d.id for d in mesh.devices.flat]}


def seen(x):
    """The global value of x as this process can see it."""
    return (np.asarray(x) if single or x.is_fully_addressable else multihost_utils.process_allgather(x)).tolist()


def loss_of(w, v):
    return jnp.sum((v @ w) ** 2)


if single:
    batch = jaxc.device_put(rows, NamedSharding(mesh, P("d")))
else:
    batch = jaxc.make_array_from_process_local_data(NamedSharding(mesh, P("d")), rows[4 * rank:4 * rank + 4])
    out["global"] = {"shape": list(batch.shape), "shards": [[d.id, s.index[0].start, s.index[0].stop]
                                                           for d, s in ((s.device, s) for s in batch.addressable_shards)],
                     "local": [np.asarray(s.data).tolist() for s in batch.addressable_shards]}
    for what, read in [("asarray", lambda: np.asarray(batch)), ("float", lambda: float(batch.sum(1))),
                       ("tolist", lambda: (batch * 2).tolist())]:
        try:
            read()
            out[what] = "no error"
        except RuntimeError as error:
            out[what] = str(error)

# operators and jnp functions on the global batch: each primitive a jit across the processes, as in
# JAX (a result split over the processes is a GlobalArray, a replicated one an Array); indexing and
# reshapes, which upstream cannot partition, run whole on the gathered batch
eager = {"mul_add": lambda: batch * 2 + 1, "sum": lambda: jnp.sum(batch), "mean0": lambda: batch.mean(0),
         "tanh_w": lambda: jnp.tanh(batch) @ w, "norm": lambda: (batch - batch.mean(0)) / batch.std(0),
         "where": lambda: jnp.where(batch > 0, batch, 0.0), "max1": lambda: jnp.max(batch, axis=1),
         "transpose": lambda: batch.T, "row": lambda: batch[5], "column": lambda: batch[:, 1],
         "reshape": lambda: batch.reshape(4, 6), "argmax": lambda: jnp.argmax(batch, axis=1),
         "rows": lambda: [r for r in batch][6], "float_sum": lambda: float(jnp.sum(batch ** 2)),
         "grad": lambda: jaxc.grad(loss_of)(w, batch)}

for name, compute in eager.items():
    value = compute()
    out[f"eager_{name}"] = [type(value).__name__, value if isinstance(value, float) else seen(value)]

# the same global array from device_put of the global value and from a callback (called for this
# process's devices only: each records the rows it was asked for)
asked = []
put = jaxc.device_put(rows, NamedSharding(mesh, P("d")))
made = jaxc.make_array_from_callback(rows.shape, NamedSharding(mesh, P("d")),
                                     lambda index: asked.append([index[0].start, index[0].stop]) or rows[index])
out["put"], out["made"], out["asked"] = seen(put), seen(made), asked
out["put_kind"] = type(put).__name__ if not single else "GlobalArray"
out["put_replicated"] = seen(jaxc.device_put(w, NamedSharding(mesh, P())))
# float64 data without jax_enable_x64: float32, as every jaxc array
wide = rows.astype(np.float64)
out["dtypes"] = [str(x.dtype) for x in (
    jaxc.make_array_from_process_local_data(NamedSharding(mesh, P("d")), wide[4 * rank:4 * rank + 4])
    if not single else jaxc.device_put(wide, NamedSharding(mesh, P("d"))),
    jaxc.make_array_from_callback(rows.shape, NamedSharding(mesh, P("d")), lambda index: wide[index]))]

collectives = jaxc.shard_map(
    lambda v: (lax.psum(v, "d"), v * 2, jnp.full((1,), lax.axis_index("d")), lax.all_gather(v, "d", tiled=True, to="invarying"),
               lax.pmax(v.sum(), "d"), lax.pmean(v, "d")),
    mesh=mesh, in_specs=P("d"), out_specs=(P(), P("d"), P("d"), P(), P(), P()))
names = ["psum", "double", "index", "gather", "pmax", "pmean"]
out.update({name: seen(x) for name, x in zip(names, collectives(batch))})
# a global NumPy value (the same in every process) is cut into this process's rows
out["from_numpy"] = seen(jaxc.shard_map(lambda v: lax.psum(v.sum(0), "d"), mesh=mesh, in_specs=P("d"),
                                        out_specs=P())(rows))


def loss(w, v):
    return jnp.sum((v @ w) ** 2)


# data-parallel gradient of replicated parameters: JAX's check_vma sums the devices' contributions
step = jaxc.shard_map(lambda w, v: (lax.psum(loss(w, v), "d"), jaxc.grad(loss)(w, v)), mesh=mesh,
                      in_specs=(P(), P("d")), out_specs=(P(), P()))
value, grad = step(w, batch)
out["loss"], out["grad"] = seen(value), seen(grad)

# jit with shardings: the partitioned program on each process's devices (a batch split over the
# processes, replicated parameters; the gradient's psum over the processes comes from the partition)
rep, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("d"))
train = jaxc.jit(lambda w, v: (loss(w, v), jaxc.grad(loss)(w, v), v * 2), in_shardings=(rep, split))
colsum = jaxc.jit(lambda v: v.sum(0), out_shardings=rep)  # in_shardings: the argument's own
results = list(train(w, batch)) + [colsum(batch)]
for name, x in zip(["jit_loss", "jit_grad", "jit_double", "jit_colsum"], results):
    out[name] = seen(x)
out["jit_kinds"] = [type(x).__name__ for x in results] if not single else ["Array", "Array", "GlobalArray", "Array"]

# a 2x2 mesh: the processes split "d", "m" is within each process
square = jaxc.make_mesh((2, 2), ("d", "m"))
grid = rows.reshape(2, 2, 6)
both = jaxc.shard_map(lambda v: (lax.psum(v, ("d", "m")), lax.psum(v, "m")), mesh=square,
                      in_specs=P("d", "m"), out_specs=(P(), P("d")))
total, per_row = both(grid)
out["psum_both"], out["psum_m"] = seen(total), seen(per_row)
# collectives over "d" alone: within each process every lane is its own group, and the processes'
# groups meet in one MPI call per process
over_d = jaxc.shard_map(
    lambda v: (lax.psum(v, "d"), lax.pmean(v, "d"), lax.pmax(v, "d"), lax.all_gather(v, "d", tiled=True),
               jnp.full((1, 1), lax.axis_index("d")), lax.ppermute(v, "d", [(0, 1), (1, 0)]),
               lax.psum(v, ("m", "d"))),
    mesh=square, in_specs=P("d", "m"), out_specs=(P(None, "m"), P(None, "m"), P(None, "m"), P(None, "m"),
                                                  P("d", "m"), P("d", "m"), P()), check_vma=False)
names = ["d_psum", "d_pmean", "d_pmax", "d_gather", "d_index", "d_ppermute", "md_psum"]
out.update({name: seen(x) for name, x in zip(names, over_d(grid))})
if not single:
    shuffled = jaxc.sharding.Mesh(np.array(jaxc.devices())[[0, 2, 1, 3]], ("d",))
    plain = jaxc.jit(lambda w, v: (loss(w, v), v * 2))  # no shardings: the batch's own, as JAX
    plain_loss, plain_double = plain(w, batch)
    out["plain_jit"] = [seen(plain_loss), type(plain_double).__name__, seen(plain_double)]
    # programs upstream cannot partition run whole on the gathered arguments; a result whose
    # out_sharding splits it over the processes keeps this process's rows
    whole = jaxc.jit(lambda v: (v.reshape(4, 6) + 1, v[3]), out_shardings=(split, None))
    reshaped, row = whole(batch)
    out["whole_jit"] = [type(reshaped).__name__, seen(reshaped), reshaped._local.tolist(), type(row).__name__,
                        seen(row)]
    # jit of a shard_map runs its per-device program as a direct call does (split results span the
    # processes); a shard_map inside a larger jitted function is vmaps, run whole on the gathered batch
    jitted = jaxc.jit(collectives)(batch)
    out["jit_of_shard_map"] = [[type(x).__name__ for x in jitted], [seen(x) for x in jitted]]
    inside = jaxc.jit(jaxc.grad(lambda w, v: step(w, v)[0]))(w, batch)
    out["shard_map_inside_jit"] = [type(inside).__name__, seen(inside)]
    for what, call in [("bad_mesh", lambda: jaxc.shard_map(lambda v: v, mesh=shuffled, in_specs=P("d"),
                                                           out_specs=P("d"))(rows))]:
        try:
            call()
            out[what] = "no error"
        except Exception as error:  # noqa: BLE001 -- the message is compared
            out[what] = f"{type(error).__name__}: {error}"
name = "single" if single else f"rank{rank}"
with open(os.path.join(sys.argv[1], f"{name}.json"), "w") as f:
    json.dump(out, f)
