"""Run by test_distributed.py under `mpiexec -n 2`: every collective that
spans processes, on 2 CPU devices per process; each rank writes its
results as JSON to OUT_DIR/rank<N>.json (the ranks' stdout would interleave).

    mpiexec -n 2 python tests/python/mpi_collectives.py OUT_DIR
"""
import json
import os
import sys

import numpy as np

import jaxc

jaxc.distributed.initialize()
jaxc.config.update("jax_num_cpu_devices", 2)
from jaxc import lax  # noqa: E402

rank = jaxc.process_index()
x = np.arange(2 * 3, dtype=np.float32).reshape(2, 3) + 10 * rank  # global row g = 3g .. 3g + 2, + 4 from rank 1
f = jaxc.pmap(lambda v: {"psum": lax.psum(v, "i"), "pmean": lax.pmean(v, "i"), "pmax": lax.pmax(v, "i"),
                         "pmin": lax.pmin(v.astype(np.int32), "i"), "index": lax.axis_index("i"),
                         "gather": lax.all_gather(v, "i"), "size": lax.psum(1, "i"),
                         "grad": jaxc.grad(lambda u: lax.psum(u ** 2, "i").sum())(v),
                         "ring": lax.ppermute(v, "i", [(j, (j + 1) % 4) for j in range(4)]),
                         "pairs": lax.ppermute(v.astype(np.int32), "i", [(0, 3), (3, 1)]),
                         "to_all": lax.all_to_all(jaxc.numpy.stack([v, -v, 2 * v, 3 * v]), "i", 0, 0,
                                                  tiled=True)}, axis_name="i")
out = {k: np.asarray(v).tolist() for k, v in f(x).items()}
with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
    json.dump({"rank": rank, "count": jaxc.process_count(), "devices": [d.id for d in jaxc.devices()],
               "local": [d.id for d in jaxc.local_devices()], "out": out}, f)
