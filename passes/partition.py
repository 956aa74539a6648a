"""`jaxc-partition`: a program with shardings becomes the program of one
device of its mesh, through MLIR's `shard` dialect.

A module is partitioned when `jit(..., in_shardings=..., out_shardings=...)`
marked it: `jaxc.spmd_axes` names the mesh's axes and sizes, and the
public function's arguments and results carry `jaxc.sharding`: per
dimension, the mesh axes (by position) it is split over, major first.

    module attributes {jaxc.spmd_axes = [["x", 2], ["y", 4]]} {
      func.func @f(%a: tensor<8x16xf32> {jaxc.sharding = [[0], [1]]},
                   %b: tensor<16x4xf32> {jaxc.sharding = [[1], []]})
          -> (tensor<8x4xf32> {jaxc.sharding = [[0], []]}) {
        ... %c = linalg.generic (a @ b) ...
  ->
      func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
        ... %p = linalg.generic (this device's blocks) ...
        %c = (psum of %p over "y": jaxc-to-linalg's call of the SPMD runtime)

1. `shard.grid @jaxc_mesh` and a `shard.shard` of every argument and
   result (`jaxc-annotate-shardings`, which this pass runs first where the
   module is not annotated yet, so it also works alone).
2. Upstream `func.func(sharding-propagation, shard-partition)` (the
   propagation is `jaxc-propagate-shardings` too, a stage of its own; it
   changes nothing the second time), the propagation with
   `traversal=forward-backward` (the default, backward only, aborted on an
   SGD step: docs/toolchain.md). They abort the process on some
   programs (docs/toolchain.md), so they run in a forked child; a crash
   there is this pass's error, and `jit` then runs the program whole
   (docs/parallel.md).
3. The collectives the partition made become jaxc collectives over the
   mesh's axis names, which jaxc-to-linalg's rules lower as pmap's and
   shard_map's are (passes/lowering/collectives.py):

       shard.all_reduce (sum, max, min)  jaxc.psum / pmax / pmin
       shard.all_gather                  jaxc.all_gather (tiled)
       shard.all_slice                   a slice at this device's position
       shard.process_multi_index         jaxc.axis_index per axis
       shard.grid_shape                  constants

A module without `jaxc.sharding` is left as it is.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor
from mlir.passmanager import ExternalPass

from .annotate_shardings import SHARDING, annotate_module, annotated
from .ir import ops_where
from .lowering.collectives import spmd_axes
from .propagate_shardings import run_upstream
from .registry import register_pass

# shard-partition after the propagation again (a no-op on a propagated module: the pass works alone)
UPSTREAM = ("builtin.module(func.func(sharding-propagation{traversal=forward-backward},shard-partition),"
            "canonicalize,cse)")


def _axes(op: ir.Operation, attribute: str, names: list[str]) -> list[str]:
    """The mesh axis names an op's grid-axes attribute (`array<i16: ...>`) lists."""
    if attribute not in op.attributes:
        return list(names)
    return [names[i] for i in ir.DenseI16ArrayAttr(op.attributes[attribute])]


_REDUCTIONS = {"sum": "psum", "max": "pmax", "min": "pmin"}


def _to_jaxc(module: ir.Operation) -> str | None:
    """Step 3: shard ops -> jaxc collectives (and constants, indices); the
    message of the first op it cannot convert, else None."""
    import numpy as np

    import jaxc.dialect as jd
    names = [name for name, _ in spmd_axes(module)]
    sizes = dict(spmd_axes(module))
    work = ops_where(module, lambda o: o.name.startswith("shard."))
    index = ir.IndexType.get()
    i32 = ir.IntegerType.get_signless(32)

    def position(axes: list[str]) -> ir.Value:
        """This device's position along `axes` (major first), an index."""
        total = None
        for name in axes:
            value = jd.AxisIndexOp(ir.RankedTensorType.get([], i32), ir.StringAttr.get(name)).result
            scalar = arith.IndexCastOp(index, tensor.ExtractOp(value, []).result).result
            if total is None:
                total = scalar
            else:
                total = arith.AddIOp(arith.MulIOp(total, arith.ConstantOp(index, sizes[name]).result).result,
                                     scalar).result
        return total if total is not None else arith.ConstantOp(index, 0).result

    def axes_attr(axes: list[str]) -> ir.Attribute:
        return ir.ArrayAttr.get([ir.StringAttr.get(a) for a in axes])

    for op in work:
        name = op.name
        with ir.InsertionPoint(op), op.location:
            if name in ("shard.grid", "shard.sharding"):
                continue
            if name == "shard.shard":
                op.results[0].replace_all_uses_with(op.operands[0])
            elif name == "shard.all_reduce":
                # `#shard.partial<sum>` (the default), `max`, `min`, ...
                kind = str(op.attributes["reduction"]).split("<")[-1].rstrip(">").split()[-1] \
                    if "reduction" in op.attributes else "sum"
                if kind not in _REDUCTIONS:
                    return f"'{name}' with reduction {kind} is not supported"
                axes = _axes(op, "grid_axes", names)
                cls = {"psum": jd.PsumOp, "pmax": jd.PmaxOp, "pmin": jd.PminOp}[_REDUCTIONS[kind]]
                new = cls(op.operands[0], axes_attr(axes)).result
                if new.type != op.results[0].type:
                    return f"'{name}' changes the element type"
                op.results[0].replace_all_uses_with(new)
            elif name == "shard.all_gather":
                axes = _axes(op, "grid_axes", names)
                dim = ir.IntegerAttr(op.attributes["gather_axis"]).value
                count = int(np.prod([sizes[a] for a in axes]))
                new = jd.AllGatherOp(op.operands[0], axes_attr(axes), dim, count, tiled=True).result
                op.results[0].replace_all_uses_with(new)
            elif name == "shard.all_slice":
                axes = _axes(op, "grid_axes", names)
                dim = ir.IntegerAttr(op.attributes["slice_axis"]).value
                x = op.operands[0]
                shape = list(ir.RankedTensorType(x.type).shape)
                out_shape = list(ir.RankedTensorType(op.results[0].type).shape)
                start = arith.MulIOp(position(axes), arith.ConstantOp(index, out_shape[dim]).result).result
                dynamic = ir.ShapedType.get_dynamic_size()
                offsets = [dynamic if k == dim else 0 for k in range(len(shape))]
                new = tensor.ExtractSliceOp(op.results[0].type, x, [start], [], [], offsets, out_shape,
                                            [1] * len(shape)).result
                op.results[0].replace_all_uses_with(new)
            elif name == "shard.process_multi_index":
                axes = _axes(op, "axes", names)
                for result, axis in zip(op.results, axes):
                    result.replace_all_uses_with(position([axis]))
            elif name == "shard.process_linear_index":
                op.results[0].replace_all_uses_with(position(names))
            elif name == "shard.grid_shape":
                axes = _axes(op, "axes", names)
                for result, axis in zip(op.results, axes):
                    result.replace_all_uses_with(arith.ConstantOp(index, sizes[axis]).result)
            else:
                return f"'{name}' (from shard-partition) has no lowering in jaxc"
    for op in reversed(work):
        op.erase()
    return None


@register_pass("jaxc-partition", "split a program with jaxc.sharding attributes into one device's program "
                                 "(shard dialect; docs/parallel.md)")
def partition(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context, op.location:
        if not annotate_module(op, pass_, "jaxc-partition") or not annotated(op):
            return
        _partition(op, pass_)


def _partition(op: ir.Operation, pass_: ExternalPass) -> None:
    if not run_upstream(op, pass_, UPSTREAM, "jaxc-partition"):
        return
    problem = _to_jaxc(op)
    if problem is not None:
        op.location.emit_error(f"jaxc-partition: {problem}")
        pass_.signal_pass_failure()
        return
    body = op.regions[0].blocks[0]
    for fn in list(body.operations):  # the annotations are done with
        if fn.operation.name == "func.func":
            for key in ("arg_attrs", "res_attrs"):
                if key in fn.operation.attributes:
                    cleaned = [ir.DictAttr.get({n.name: n.attr for n in ir.DictAttr(d) if n.name != SHARDING})
                               for d in ir.ArrayAttr(fn.operation.attributes[key])]
                    fn.operation.attributes[key] = ir.ArrayAttr.get(cleaned)
    from .jaxc_to_linalg import _lower
    _lower(op, pass_)
