"""Lowering of the collectives in a pmap's per-device program: calls of the
SPMD runtime (`jaxc.runtime._fastcall`, "SPMD"), which runs the program on
one thread per device and meets its lanes at each collective.

Only a module that `pmap` or `shard_map` traced lowers them: its
`jaxc.spmd_axes` attribute lists the mesh axes its lanes run over, with
their sizes (pmap: one axis). A collective over some of the axes acts
within groups: the lanes that agree on every other axis. Elsewhere a
collective is an error at its location: `vmap` expands the collectives over
its axis before this pass runs (passes/batching/collectives.py).

    module attributes {jaxc.spmd_axes = [["i", 4]]} {
      ... %s = jaxc.psum %x, axes = ["i"] : tensor<3xf32> ...
  ->
    func.func private @jaxc_spmd_all_reduce__0(memref<3xf32>, memref<3xf32>, i64, i32, i32,
                                               memref<4x4xi64>, i64)
    ...
    %xb = bufferization.to_buffer %x read_only : tensor<3xf32> to memref<3xf32>
    %sb = memref.alloc() : memref<3xf32>
    func.call @jaxc_spmd_all_reduce__0(%xb, %sb, %c3, %f32, %sum, %group, %c4) : ...
    %s = bufferization.to_tensor %sb restrict writable : memref<3xf32> to tensor<3xf32>

Every buffer is an operand of the call, so bufferization and buffer
deallocation see its uses (as for host callbacks, callback.py). The
runtime's functions take memref descriptors (the `llvm` stage gives every
declaration a C interface), one declaration per signature (`__0`, `__1`,
...), and the engine resolves each to `_fastcall`'s function of the name
before the `__` (runtime/cpu.py, `register_spmd_runtime`).

    psum/pmax/pmin  jaxc_spmd_all_reduce: the member at position p of a
                    group reduces chunk p of every member's operand into
                    every member's result (f16/bf16 as f32); the group
                    table (lane -> its group's lanes) is a constant
    pmean           the psum, divided by the lane count
    all_gather      jaxc_spmd_all_gather: the group's operands stacked
                    (G, ...), then moved to `dimension` (merged into it
                    when tiled)
    all_to_all      the all_gather, this lane's chunk of the split axis
                    cut from it, the lane axis merged into concat_axis
    ppermute        jaxc_spmd_ppermute: this lane's source from a table
                    indexed by the lane (zeros where none sends); across
                    processes, the all_gather and this lane's source row
                    from a table indexed by its position on the axis
    axis_index      this lane's position on the axis, from a table
                    indexed by jaxc_spmd_lane
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, bufferization, func, memref, tensor

from .. import linalg_ops as linalg
from ..ir import declare_function, module_of
from .common import (
    LoweringError,
    bit_width,
    filled,
    is_float,
    is_unsigned,
    map_elements,
    scalar_const,
    shape_of,
    signless,
)

SPMD_AXES = "jaxc.spmd_axes"  # module attribute: [[axis name, size], ...], mesh order
SPMD_PROCESSES = "jaxc.spmd_processes"  # module attribute: how many processes the first axis spans

# jaxc_spmd_all_reduce's element type and reduction codes (_fastcall.c, SPMD_*)
_TYPE_CODES = {("float", 32): 0, ("float", 64): 1, ("signed", 8): 2, ("signed", 16): 3,
               ("signed", 32): 4, ("signed", 64): 5, ("unsigned", 8): 6, ("unsigned", 16): 7,
               ("unsigned", 32): 8, ("unsigned", 64): 9}
_OP_CODES = {"jaxc.psum": 0, "jaxc.pmean": 0, "jaxc.pmax": 1, "jaxc.pmin": 2}


def spmd_axes(module: ir.Operation) -> list[tuple[str, int]]:
    """The mesh of a per-device program: (axis name, size) in mesh order
    (`jaxc.spmd_axes = [["x", 2], ["y", 4]]`); [] for any other module.
    Lanes are numbered row-major over these axes."""
    if SPMD_AXES not in module.attributes:
        return []
    return [(ir.StringAttr(ir.ArrayAttr(pair)[0]).value, ir.IntegerAttr(ir.ArrayAttr(pair)[1]).value)
            for pair in ir.ArrayAttr(module.attributes[SPMD_AXES])]


class _Mesh:
    """The lanes of a per-device program and the groups a collective's axes
    make: the lanes that agree on every other axis, ordered row-major over
    the collective's axes (in the order it names them)."""

    def __init__(self, op: ir.Operation) -> None:
        if op.name == "jaxc.axis_index":
            names = [ir.StringAttr(op.attributes["axis_name"]).value]
        else:
            names = [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["axes"])]
        module = module_of(op.operation)
        axes = spmd_axes(module)
        # A pmap across processes: its one axis spans them, each runs size / processes lanes.
        self.processes = ir.IntegerAttr(module.attributes[SPMD_PROCESSES]).value \
            if SPMD_PROCESSES in module.attributes else 1
        known = dict(axes)
        if not names or any(n not in known for n in names) or len(set(names)) != len(names):
            raise LoweringError(op, f"'{op.name}' over the axes {names}: a collective runs only inside a "
                                    f"mapped computation, over its pmap or mesh axes (this module maps "
                                    f"{[n for n, _ in axes] or 'no axis'}; vmap axes are expanded before "
                                    f"lowering)")
        self.names = names
        # the processes split the first axis (pmap's one axis; a shard_map's others lie within each process)
        self.sizes = [size // self.processes if i == 0 else size for i, (_, size) in enumerate(axes)]
        self.lanes = int(np.prod(self.sizes, dtype=np.int64))
        self.coords = np.array(list(np.ndindex(*self.sizes)), np.int64).reshape(self.lanes, len(axes))
        self.which = [[n for n, _ in axes].index(name) for name in names]
        self.group_size = int(np.prod([self.sizes[i] for i in self.which], dtype=np.int64))
        # the group spans the processes: the runtime's one MPI call per process carries all its groups
        self.across = self.processes > 1 and 0 in self.which
        self.total = self.group_size * (self.processes if self.across else 1)  # counting every process's lanes

    def lane_of(self, coords: np.ndarray) -> int:
        return int(np.ravel_multi_index(tuple(coords), self.sizes))

    def position(self, lane: int) -> int:
        """Where `lane` stands in its group."""
        return int(np.ravel_multi_index(tuple(self.coords[lane][self.which]),
                                        [self.sizes[i] for i in self.which]))

    def members(self) -> np.ndarray:
        """(lanes, group size): row l lists lane l's group in group order."""
        table = np.zeros((self.lanes, self.group_size), np.int64)
        for lane in range(self.lanes):
            for k, sub in enumerate(np.ndindex(*[self.sizes[i] for i in self.which])):
                coords = self.coords[lane].copy()
                coords[self.which] = sub
                table[lane, k] = self.lane_of(coords)
        return table


def _declare(op: ir.Operation, base: str, inputs: list[ir.Type]) -> str:
    """`func.func private @base__K(inputs)` in the module, one per signature
    (the runtime resolves every `base__K` to `base`); returns its name."""
    body = module_of(op.operation).regions[0].blocks[0]
    count = 0
    for existing in body.operations:
        if existing.operation.name != "func.func":
            continue
        name = ir.StringAttr(existing.operation.attributes["sym_name"]).value
        if name.startswith(base + "__"):
            count += 1
            ftype = ir.FunctionType(ir.TypeAttr(existing.operation.attributes["function_type"]).value)
            if list(ftype.inputs) == list(inputs):
                return name
    name = f"{base}__{count}"
    declare_function(op, name, inputs)
    return name


def _memref_of(t: ir.Type) -> ir.MemRefType:
    t = ir.RankedTensorType(signless(t))
    return ir.MemRefType.get(t.shape, t.element_type)


def _call(op: ir.Operation, symbol: str, operand: ir.Value, result_type: ir.Type,
          scalars: list[ir.Value]) -> ir.Value:
    """result = a fresh buffer that `symbol(operand, result, *scalars)` fills."""
    in_type, out_type = _memref_of(operand.type), _memref_of(result_type)
    symbol = _declare(op, symbol, [in_type, out_type] + [s.type for s in scalars])
    source = bufferization.ToBufferOp(in_type, operand, read_only=True).result
    target = memref.AllocOp(out_type, [], []).result
    func.CallOp([], symbol, [source, target, *scalars])
    return bufferization.ToTensorOp(signless(result_type), target, restrict=True, writable=True).result


def _i64(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(64), value).result


def _i32(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), value).result


def _bytes(t: ir.Type) -> int:
    elem = ir.RankedTensorType(signless(t)).element_type
    return int(np.prod(shape_of(t), dtype=np.int64)) * (bit_width(elem) // 8)


def _lane_index() -> ir.Value:
    return func.CallOp([ir.IntegerType.get_signless(64)], "jaxc_spmd_lane", []).result


def _constant(values: np.ndarray) -> ir.Value:
    i64 = ir.IntegerType.get_signless(64)
    t = ir.RankedTensorType.get(list(values.shape), i64)
    return arith.ConstantOp(t, ir.DenseElementsAttr.get(np.ascontiguousarray(values, np.int64), type=t)).result


def _members(mesh: _Mesh) -> ir.Value:
    """The group table as a buffer the runtime reads (row = this lane)."""
    table = _constant(mesh.members())
    t = ir.RankedTensorType(table.type)
    return bufferization.ToBufferOp(ir.MemRefType.get(t.shape, t.element_type), table,
                                    read_only=True).result


def _per_lane(op: ir.Operation, values: list[int]) -> ir.Value:
    """values[this lane], an i64 (a table indexed by the lane)."""
    table = _constant(np.array(values, np.int64))
    declare_function(op, "jaxc_spmd_lane", [], [ir.IntegerType.get_signless(64)])
    lane = arith.IndexCastOp(ir.IndexType.get(), _lane_index()).result
    return tensor.ExtractOp(table, [lane]).result


def all_reduce(op, elements):
    mesh = _Mesh(op)
    x, elem = op.operands[0], elements[0]
    result_type = op.results[0].type
    f32 = ir.F32Type.get()
    narrow_float = isinstance(elem, (ir.F16Type, ir.BF16Type))
    if narrow_float:  # reduced in f32, as the CPU computes f16/bf16
        x = map_elements(ir.RankedTensorType.get(shape_of(x), f32), [x], lambda a: arith.extf(f32, a[0]), [elem])
        compute = f32
    else:
        compute = elem
    if is_float(compute):
        key = ("float", bit_width(compute))
    elif isinstance(compute, ir.IntegerType) and compute.width == 1:
        key = ("unsigned", 8)  # booleans are stored as i8
    elif isinstance(compute, ir.IntegerType):
        key = ("unsigned" if is_unsigned(compute) else "signed", compute.width)
    else:
        raise LoweringError(op, f"'{op.name}' of {elem} is not supported across devices")
    count = int(np.prod(shape_of(x), dtype=np.int64))
    out = _call(op, "jaxc_spmd_all_reduce", x, ir.RankedTensorType.get(shape_of(x), compute),
                [_i64(count), _i32(_TYPE_CODES[key]), _i32(_OP_CODES[op.name]), _members(mesh),
                 _i64(mesh.group_size), _i64(int(mesh.across))])
    if op.name == "jaxc.pmean":
        scale = scalar_const(compute, float(mesh.total))
        out = map_elements(ir.RankedTensorType.get(shape_of(x), compute), [out],
                           lambda a: arith.divf(a[0], scale), [compute])
    if narrow_float:
        out = map_elements(result_type, [out], lambda a: arith.truncf(signless(elem), a[0]), [f32])
    return [out]


def _gathered(op: ir.Operation, x: ir.Value, mesh: _Mesh) -> ir.Value:
    """The group's `x` stacked in group order (every process's lanes, by
    process): tensor<group size x shape>."""
    elem = ir.RankedTensorType(signless(x.type)).element_type
    stacked = ir.RankedTensorType.get([mesh.total, *shape_of(x)], elem)
    return _call(op, "jaxc_spmd_all_gather", x, stacked,
                 [_i64(_bytes(x.type)), _members(mesh), _i64(mesh.group_size), _i64(int(mesh.across))])


def _lane_axis_to(value: ir.Value, dim: int, merge: bool) -> ir.Value:
    """Move dimension 0 of `value` to `dim`; with `merge`, fold it into the
    dimension that follows it there (lane-major)."""
    shape = shape_of(value)
    elem = ir.RankedTensorType(value.type).element_type
    if dim:
        perm = [*range(1, dim + 1), 0, *range(dim + 1, len(shape))]
        moved_shape = [shape[p] for p in perm]
        init = tensor.EmptyOp(moved_shape, elem).result
        value = linalg.transpose(value, outs=[init], permutation=perm).results[0]
        shape = moved_shape
    if not merge:
        return value
    groups = [[i] for i in range(dim)] + [[dim, dim + 1]] + [[i] for i in range(dim + 2, len(shape))]
    merged = shape[:dim] + [shape[dim] * shape[dim + 1]] + shape[dim + 2:]
    return tensor.CollapseShapeOp(ir.RankedTensorType.get(merged, elem), value,
                                  ir.ArrayAttr.get([ir.ArrayAttr.get(
                                      [ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in g])
                                      for g in groups])).result


def _single(op: ir.Operation, mesh: _Mesh) -> None:
    if len(mesh.names) != 1:
        raise LoweringError(op, f"'{op.name}' over several axes ({', '.join(mesh.names)}) is not "
                                "supported across devices; name one axis")


def all_gather(op, elements):
    mesh = _Mesh(op)
    _single(op, mesh)
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    tiled = "tiled" in op.attributes
    return [_lane_axis_to(_gathered(op, op.operands[0], mesh), dim, tiled)]


def all_to_all(op, elements):
    mesh = _Mesh(op)
    _single(op, mesh)
    split = ir.IntegerAttr(op.attributes["split_axis"]).value
    concat = ir.IntegerAttr(op.attributes["concat_axis"]).value
    x = op.operands[0]
    stacked = _gathered(op, x, mesh)
    shape = shape_of(stacked)
    chunk = shape[1 + split] // mesh.total
    index = ir.IndexType.get()
    start = arith.MulIOp(arith.IndexCastOp(index, _position(op, mesh)).result,
                         arith.ConstantOp(index, chunk).result).result
    sizes = list(shape)
    sizes[1 + split] = chunk
    static_offsets = [0] * len(shape)
    static_offsets[1 + split] = ir.ShapedType.get_dynamic_size()
    elem = ir.RankedTensorType(stacked.type).element_type
    mine = tensor.ExtractSliceOp(ir.RankedTensorType.get(sizes, elem), stacked, [start], [], [],
                                 static_offsets, sizes, [1] * len(shape)).result
    return [_lane_axis_to(mine, concat, True)]


def ppermute(op, elements):
    mesh = _Mesh(op)
    _single(op, mesh)
    pairs = list(ir.DenseI64ArrayAttr(op.attributes["perm"]))
    source_of = {d: s for s, d in zip(pairs[0::2], pairs[1::2])}
    if mesh.across:
        return [_ppermute_across_processes(op, mesh, source_of)]
    members = mesh.members()
    sources = []
    for lane in range(mesh.lanes):
        source = source_of.get(mesh.position(lane))
        sources.append(-1 if source is None else int(members[lane, source]))
    x = op.operands[0]
    return [_call(op, "jaxc_spmd_ppermute", x, x.type, [_i64(_bytes(x.type)), _per_lane(op, sources)])]


def _ppermute_across_processes(op: ir.Operation, mesh: _Mesh, source_of: dict) -> ir.Value:
    """Every lane's operand gathered (one MPI_Allgather per process), then
    the row of this lane's source, or zeros where none sends to it."""
    x = op.operands[0]
    stacked = _gathered(op, x, mesh)
    shape = shape_of(x)
    elem = ir.RankedTensorType(stacked.type).element_type
    sources = _constant(np.array([source_of.get(p, -1) for p in range(mesh.total)], np.int64))
    index = ir.IndexType.get()
    source = tensor.ExtractOp(sources, [arith.IndexCastOp(index, _position(op, mesh)).result]).result
    sends = arith.CmpIOp(arith.CmpIPredicate.sge, source, _i64(0)).result
    row = arith.IndexCastOp(index, arith.SelectOp(sends, source, _i64(0)).result).result
    dynamic = ir.ShapedType.get_dynamic_size()
    mine = tensor.ExtractSliceOp(ir.RankedTensorType.get(shape, elem), stacked, [row], [], [],
                                 [dynamic] + [0] * len(shape), [1, *shape], [1] * (len(shape) + 1)).result
    zeros = filled(shape, elem, scalar_const(elem, 0))
    return arith.SelectOp(sends, mine, zeros).result


def _position(op: ir.Operation, mesh: _Mesh) -> ir.Value:
    """This lane's position on the collective's axis, an i64; across
    processes, this process's lanes come after those of the processes
    before it."""
    position = _per_lane(op, [mesh.position(lane) for lane in range(mesh.lanes)])
    if mesh.across:
        declare_function(op, "jaxc_spmd_process", [], [ir.IntegerType.get_signless(64)])
        first = arith.MulIOp(func.CallOp([ir.IntegerType.get_signless(64)], "jaxc_spmd_process", []).result,
                             _i64(mesh.group_size)).result
        position = arith.AddIOp(position, first).result
    return position


def axis_index(op, elements):
    mesh = _Mesh(op)
    i32 = ir.IntegerType.get_signless(32)
    index = arith.TruncIOp(i32, _position(op, mesh)).result
    return [tensor.FromElementsOp(ir.RankedTensorType.get([], i32), [index]).result]


RULES: dict = {"jaxc.psum": all_reduce, "jaxc.pmax": all_reduce, "jaxc.pmin": all_reduce,
               "jaxc.pmean": all_reduce, "jaxc.all_gather": all_gather, "jaxc.all_to_all": all_to_all,
               "jaxc.ppermute": ppermute, "jaxc.axis_index": axis_index}
