"""`jaxc-annotate-shardings`: a program with shardings gets the `shard`
dialect's annotations (the first step of splitting it into one device's
program; `jaxc-propagate-shardings` and `jaxc-partition` follow).

A module is split when `jit(..., in_shardings=..., out_shardings=...)`
marked it: `jaxc.spmd_axes` names the mesh's axes and sizes, and the
public function's arguments and results carry `jaxc.sharding`: per
dimension, the mesh axes (by position) it is split over, major first. The
pass adds the mesh as `shard.grid @jaxc_mesh` and a `shard.shard` of every
non-scalar argument (the value's own sharding, not its users': the
propagation then reshards where an op needs another, a replicated operand
of a split product sliced; annotated for its users, such a pair aborted
upstream, docs/toolchain.md; one without `jaxc.sharding` is replicated; a
scalar is left to the propagation) and of
every result of rank 1 or more that has a `jaxc.sharding` (the
propagation chooses the others' shardings, as XLA does for a jit without
out_shardings; a scalar's can only be replicated, and annotating it so
made the propagation gather a split operand of its reduction, which
upstream cannot do on a mesh of several axes):

    module attributes {jaxc.spmd_axes = [["i", 4]]} {
      func.func @f(%a: tensor<8x16xf32> {jaxc.sharding = [[0]]}) -> (tensor<8x16xf32> {jaxc.sharding = [[0]]})
  ->
      shard.grid @jaxc_mesh(shape = 4)
      func.func @f(%a: ...) {
        %s = shard.sharding @jaxc_mesh split_axes = [[0]] : !shard.sharding
        %a_ = shard.shard %a to %s : tensor<8x16xf32>
        ...

First a `tensor.empty` or `linalg.fill` that several ops share (CSE's
work) becomes one per user: the propagation aborts on one value that two
users need sharded differently (docs/toolchain.md).

A module without `jaxc.sharding`, or annotated already, is left as it is.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from .lowering.collectives import spmd_axes
from .registry import register_pass

GRID = "jaxc_mesh"
SHARDING = "jaxc.sharding"  # argument / result attribute: [[mesh axis, ...] per dimension]


def sharded_functions(module: ir.Operation) -> list:
    found = []
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name != "func.func":
            continue
        attrs = op.operation.attributes
        for key in ("arg_attrs", "res_attrs"):
            if key in attrs and any(SHARDING in ir.DictAttr(d) for d in ir.ArrayAttr(attrs[key])):
                found.append(op)
                break
    return found


def _split_axes(attr: ir.Attribute | None, rank: int) -> ir.Attribute:
    """`#shard<axisarray[[0], []]>` from a `jaxc.sharding` (None: replicated)."""
    dims = [[ir.IntegerAttr(a).value for a in ir.ArrayAttr(d)] for d in ir.ArrayAttr(attr)] if attr else []
    dims = (dims + [[]] * rank)[:rank]  # scalars are never annotated (docs/toolchain.md)
    return ir.Attribute.parse(f"#shard<axisarray{dims}>")


def annotate(module: ir.Operation, sizes: list[int]) -> None:
    """The grid and the shard.shard annotations."""
    from mlir.dialects import shard  # here: 5 ms to import, for sharded programs only
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), ir.Location.unknown():
        shard.GridOp(GRID, ir.DenseI64ArrayAttr.get(sizes))
    grid = ir.FlatSymbolRefAttr.get(GRID)

    def sharding(attr: ir.Attribute | None, value: ir.Value) -> ir.Value:
        """The shard.sharding op of a `jaxc.sharding` (None: replicated) for `value`."""
        rank = len(ir.RankedTensorType(value.type).shape)
        return shard.ShardingOp(grid, _split_axes(attr, rank), [], []).result

    for fn in sharded_functions(module):
        block = fn.regions[0].blocks[0]
        _one_init_per_use(block)
        first = block.operations[0]
        for i, arg in enumerate(block.arguments):
            if not ir.RankedTensorType(arg.type).shape:
                continue  # a scalar: replicated, left to the propagation (as a scalar result, below)
            with ir.InsertionPoint(first), ir.Location.unknown():
                marked = shard.ShardOp(arg, sharding(_sharding_of(fn, "arg_attrs", i), arg)).result
            arg.replace_all_uses_except(marked, marked.owner.operation)
        ret = block.operations[len(block.operations) - 1]
        for i, value in enumerate(list(ret.operands)):
            attr = _sharding_of(fn, "res_attrs", i)
            if attr is None or not ir.RankedTensorType(value.type).shape:
                continue  # the propagation chooses (a scalar: replicated; `[[]]` there made it gather the operand)
            with ir.InsertionPoint(ret), ir.Location.unknown():
                ret.operands[i] = shard.ShardOp(value, sharding(attr, value)).result


def _one_init_per_use(block: ir.Block) -> None:
    """A `linalg.fill` or `tensor.empty` (an init: CSE makes one serve
    several ops, a matmul's zeros and the next op's) with several users
    becomes one per user: the propagation gives each user's init its own
    sharding, and aborts where one value would need two (docs/toolchain.md).
    CSE merges them again after the partition. Fills first: their copies
    share one empty, split next."""
    for name in ("linalg.fill", "tensor.empty"):
        for view in list(block.operations):
            op = view.operation
            if op.name != name or (name == "tensor.empty" and op.operands):
                continue
            uses = [(use.owner, use.operand_number) for use in op.results[0].uses]
            for owner, number in uses[1:]:
                with ir.InsertionPoint(op), op.location:
                    owner.operands[number] = op.clone().results[0]


def _sharding_of(fn: ir.Operation, key: str, i: int) -> ir.Attribute | None:
    """The `jaxc.sharding` of `fn`'s argument or result i (`key`: arg_attrs, res_attrs), or None."""
    attrs = list(ir.ArrayAttr(fn.attributes[key])) if key in fn.attributes else []
    d = ir.DictAttr(attrs[i]) if i < len(attrs) else None
    return d[SHARDING] if d is not None and SHARDING in d else None


def annotated(module: ir.Operation) -> bool:
    """Whether `module` holds the grid this pass adds."""
    return any(o.operation.name == "shard.grid" and ir.StringAttr(o.operation.attributes["sym_name"]).value == GRID
               for o in module.regions[0].blocks[0].operations)


def annotate_module(op: ir.Operation, pass_: ExternalPass, who: str) -> bool:
    """Annotate `op` if it has shardings and no grid yet; False (after an
    error at the module, naming the pass `who`) where its mesh is missing."""
    if not sharded_functions(op) or annotated(op):
        return True
    axes = spmd_axes(op)
    if not axes:
        op.location.emit_error(f"{who}: jaxc.sharding attributes need the module's mesh (jaxc.spmd_axes)")
        pass_.signal_pass_failure()
        return False
    annotate(op, [size for _, size in axes])
    return True


@register_pass("jaxc-annotate-shardings", "mark the arguments and results of a program with jaxc.sharding "
                                          "with the shard dialect's grid and annotations (docs/parallel.md)")
def annotate_shardings(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context, op.location:
        annotate_module(op, pass_, "jaxc-annotate-shardings")
