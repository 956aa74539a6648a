"""`jaxc-fuse-elementwise-dags`: fuse elementwise generics whose results
have several users into one generic with several results.

`linalg-fuse-elementwise-ops` fuses a producer into a consumer only when the
consumer is its one user. A value read by two later ops (a hash round's
words, an optimizer's new moments that are both returned and used) stays a
kernel of its own, written to memory and read back: Threefry-4x32's 20
rounds were 111 kernels. This pass runs after it and merges, in program
order, each elementwise generic with the groups of the generics that
produce its operands, when all of them iterate the same parallel domain
and the producer's result reaches it through identity maps. The merged
generic sits where the last member was and computes every member's body in
order; it returns the members' results that something outside the group
uses. Its external inputs keep their own indexing maps (a broadcast input
stays a broadcast).

    %a = linalg.generic {identity maps} ins(%x) outs(%e) { a = f(x) }
    %b = linalg.generic {identity maps} ins(%a) outs(%e) { b = g(a) }
    %c = linalg.generic {identity maps} ins(%a, %b) outs(%e) { c = h(a, b) }
    return %b, %c
      ->
    %m:2 = linalg.generic {identity maps} ins(%x) outs(%e, %e) { a = f(x); b = g(a); c = h(a, b) yield b, c }

A group grows only while every op outside the group that uses a member's
result comes after the op joining (the merged op takes the last member's
place), and while the merged body stays within `max-ops` ops (512), or
`max-call-ops` (128) when it holds a math op that becomes a libmvec call
(every vector live across a call is spilled and reloaded: random.normal's
hash and its erfinv's log in one loop ran 1.2x slower than two). It runs
after the fusion barriers are gone, so it also joins what
`jaxc-bound-fusion` cut for the upstream pass's sake (cloning here is
linear). Bodies that read their output element, gather (`tensor.extract`)
or hold nested regions are left alone.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import ExternalPass

from . import linalg_ops as linalg
from .ir import ops_named
from .registry import register_pass
from .schedules.kernel import defining_op
from .vector_math import FUNCTIONS as CALLED  # math ops that become libmvec calls


@register_pass("jaxc-fuse-elementwise-dags", "merge elementwise generics whose results have several users "
               "into one multi-result generic")
def fuse_elementwise_dags(op: ir.Operation, pass_: ExternalPass, *, max_ops: int = 512,
                          max_call_ops: int = 128) -> None:
    with op.context, ir.Location.unknown(op.context):
        for _ in range(16):  # a merge can let an op that sat between two members join: again
            blocks: dict = {}
            for generic in ops_named(op, ["linalg.generic"]):
                generic = _operation(generic)
                blocks.setdefault(generic.block, []).append(generic)
            if not sum(_fuse_block(generics, max_ops, max_call_ops) for generics in blocks.values()):
                break


def _domain(generic: ir.Operation) -> tuple | None:
    """(loop ranges) of an elementwise generic this pass merges, else None:
    parallel loops, identity output maps over static tensors, a body that
    does not read its outputs and holds no regions."""
    view = generic.opview
    iterators = [str(a) for a in ir.ArrayAttr(view.attributes["iterator_types"])]
    if not all("parallel" in it for it in iterators):
        return None
    n_in = len(view.inputs)
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(view.attributes["indexing_maps"])]
    outputs = list(view.outputs)
    if not outputs or len(generic.results) != len(outputs):
        return None
    shape = None
    for value, amap in zip(outputs, maps[n_in:]):
        if not isinstance(value.type, ir.RankedTensorType) or not amap.is_permutation or \
                amap != ir.AffineMap.get_identity(len(iterators)):
            return None
        tensor = ir.RankedTensorType(value.type)
        if not tensor.has_static_shape or (shape is not None and tuple(tensor.shape) != shape):
            return None
        shape = tuple(tensor.shape)
    body = generic.regions[0].blocks[0]
    if any(len(list(arg.uses)) for arg in list(body.arguments)[n_in:]):
        return None
    # nested regions, and gathers (an index computed from an earlier gather:
    # the vectorizer walks every path, bound_fusion.py) stay apart
    if any(len(inner.regions) or inner.name == "tensor.extract" for inner in body.operations):
        return None
    return shape


def _body_size(generic: ir.Operation) -> int:
    return len(generic.regions[0].blocks[0].operations) - 1


def _calls(generic: ir.Operation) -> bool:
    """Whether the body holds a math op that becomes a libmvec call."""
    return any(inner.name in CALLED for inner in generic.regions[0].blocks[0].operations)


class _Group:
    """Generics to merge with their places in the block, and the ops outside
    the group that use their results."""

    def __init__(self, generic: ir.Operation, place: int) -> None:
        self.members = [(place, generic)]
        self.size = _body_size(generic)
        self.calls = _calls(generic)
        self.users = _users(generic) - {generic}

    def ops(self) -> list:
        return [o for _, o in sorted(self.members, key=lambda member: member[0])]

    def absorb(self, others: list["_Group"], generic: ir.Operation, place: int) -> None:
        for other in others:
            if other is not self:
                self.members += other.members
                self.size += other.size
                self.calls |= other.calls
                self.users |= other.users
        self.members.append((place, generic))
        self.size += _body_size(generic)
        self.calls |= _calls(generic)
        self.users = (self.users | _users(generic)) - {o for _, o in self.members}


def _users(generic: ir.Operation) -> set:
    """The ops of its block that use `generic`'s results (or hold a use)."""
    return {_top_level(use.owner, generic.block) for result in generic.results for use in result.uses}


def _fuse_block(members_in_order: list, max_ops: int, max_call_ops: int) -> int:
    """Group the merge-able generics of one block and merge each group; the
    number of groups merged."""
    block = members_in_order[0].block
    position = {_operation(o): i for i, o in enumerate(block.operations)}
    group_of: dict = {}  # op -> its _Group
    for generic in members_in_order:
        domain = _domain(generic)
        if domain is None:
            continue
        view = generic.opview
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(view.attributes["indexing_maps"])]
        identity = ir.AffineMap.get_identity(len(domain))
        joined: list = []
        for value, amap in zip(view.inputs, maps):
            owner = defining_op(value)
            group = group_of.get(owner) if owner is not None else None
            if group is not None and amap == identity and _domain(group.members[0][1]) == domain \
                    and not any(group is g for g in joined):
                joined.append(group)
        # every value of the groups it reads must be read elementwise (a member
        # cannot read another's result through a broadcast or transpose), and
        # the merged op takes this op's place: the groups' other users come after it
        reads_across = any(group_of.get(defining_op(value)) is g and amap != identity
                           for value, amap in zip(view.inputs, maps) for g in joined)
        calls = _calls(generic) or any(g.calls for g in joined)
        limit = max_call_ops if calls else max_ops
        if joined and not reads_across and sum(g.size for g in joined) + _body_size(generic) <= limit and all(
                user is not None and (user == generic or position.get(user, -1) > position[generic])
                for g in joined for user in g.users):
            joined[0].absorb(joined, generic, position[generic])
            for _, member in joined[0].members:
                group_of[member] = joined[0]
        else:
            group_of[generic] = _Group(generic, position[generic])
    merged: dict = {}
    for group in group_of.values():
        if len(group.members) > 1:
            merged[id(group)] = group
    for group in merged.values():
        _merge(group.ops())
    return len(merged)


def _top_level(op: ir.Operation | ir.OpView, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is or holds `op` (None if none does)."""
    current: ir.Operation | None = _operation(op)
    while current is not None and current.block != block:
        parent = current.parent
        current = _operation(parent) if parent is not None else None
    return current


def _merge(group: list) -> None:
    """One generic computing every member of `group` (program order), at the
    last member's place, returning the results used outside the group."""
    members = list(group)  # compared with ==: a wrapper of an op may not hash as another of it
    last = group[-1]
    n_loops = len(ir.ArrayAttr(last.attributes["iterator_types"]))
    identity = ir.AffineMap.get_identity(n_loops)
    inputs: list = []  # (value, map) of the merged generic's inputs
    input_index: dict = {}
    outputs: list = []  # (member result, its init)
    for member in group:
        view = member.opview
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(view.attributes["indexing_maps"])]
        for value, amap in zip(view.inputs, maps):
            if _produced_inside(value, members) and amap == identity:
                continue
            key = (value, str(amap))
            if key not in input_index:
                input_index[key] = len(inputs)
                inputs.append((value, amap))
        for result, init in zip(member.results, view.outputs):
            if any(not _produced_inside_op(_top_level(use.owner, last.block), members) for use in result.uses):
                outputs.append((result, init))
    maps_attr = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for _, m in inputs]
                                 + [ir.AffineMapAttr.get(identity)] * len(outputs))
    with ir.InsertionPoint(last):
        fused = linalg.GenericOp([r.type for r, _ in outputs], [v for v, _ in inputs], [i for _, i in outputs],
                                 maps_attr, last.attributes["iterator_types"])
        element = [ir.ShapedType(v.type).element_type if isinstance(v.type, ir.ShapedType) else v.type
                   for v, _ in inputs] + [ir.ShapedType(i.type).element_type for _, i in outputs]
        body = fused.regions[0].blocks.append(*element)
    scalar: dict = {}  # member result -> its element value in the fused body
    with ir.InsertionPoint(body):
        for member in group:
            view = member.opview
            old = member.regions[0].blocks[0]
            maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(view.attributes["indexing_maps"])]
            mapping: dict = {}
            for arg, value, amap in zip(old.arguments, view.inputs, maps):
                if _produced_inside(value, members) and amap == identity:
                    mapping[arg] = scalar[value]
                else:
                    mapping[arg] = body.arguments[input_index[(value, str(amap))]]
            *ops, terminator = list(old.operations)
            for inner in ops:
                copy = inner.clone()
                for i, operand in enumerate(copy.operands):
                    if operand in mapping:
                        copy.operands[i] = mapping[operand]
                for before, after in zip(inner.results, copy.results):
                    mapping[before] = after
            for result, yielded in zip(member.results, terminator.operands):
                scalar[result] = mapping.get(yielded, yielded)
        linalg.YieldOp([scalar[r] for r, _ in outputs])
    for (result, _), new in zip(outputs, fused.results):
        result.replace_all_uses_with(new)
    for member in reversed(group):
        member.erase()


def _produced_inside(value: ir.Value, members: list) -> bool:
    return _produced_inside_op(defining_op(value), members)


def _produced_inside_op(op: ir.Operation | None, members: list) -> bool:
    return op is not None and any(op == member for member in members)


def _operation(x: ir.Operation | ir.OpView) -> ir.Operation:
    return x.operation if isinstance(x, ir.OpView) else x
