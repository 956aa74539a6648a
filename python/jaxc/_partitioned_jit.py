"""`jit(f, in_shardings=..., out_shardings=...)` on a mesh: the program
split by its shardings into one device's program, run on every device of
the mesh at once (docs/parallel.md).

The traced module gets the mesh (`jaxc.spmd_axes`) and a `jaxc.sharding`
on every argument and result (a PartitionSpec as mesh axis positions;
None: replicated); the `partitioned` stage (`jaxc-partition`) makes the
per-device program through MLIR's shard dialect, which then runs like a
shard_map's: each argument cut into its blocks, each result put together
from them. Arrays the function closes over are replicated arguments of it
(device arrays are captured as arguments; NumPy arrays, constants of the
traced program, are made arguments: upstream's partitioner cannot slice a
constant, docs/toolchain.md). When the shard passes cannot partition the
program (they abort on some), `jit` runs it whole, as without shardings,
and says so once on the `jaxc` logger. Keyword arguments with
in_shardings are JAX's ValueError; without in_shardings, the program runs
whole.
"""
from __future__ import annotations

import logging
from typing import Any

import numpy as np

from . import core, dispatch
from ._pmap import run_on_lanes
from ._shard_map import _Layout
from .core import ShapedArray
from .sharding import NamedSharding, PartitionSpec

_LOG = logging.getLogger("jaxc")


def mesh_of(shardings: list) -> Any:
    """The one mesh of several devices that the NamedShardings among
    `shardings` share, else None."""
    meshes = {id(s.mesh): s.mesh for s in shardings if isinstance(s, NamedSharding)}
    if len(meshes) != 1:
        return None
    mesh = next(iter(meshes.values()))
    if mesh.size < 2 or any(s is not None and not isinstance(s, NamedSharding) for s in shardings):
        return None
    return mesh


def _attr(spec: PartitionSpec, mesh: Any, rank: int) -> Any:
    import mlir.ir as ir
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, mesh.axis_names.index(a))
                                               for a in spec.axes_of(d)]) for d in range(rank)])


class PartitionedProgram:
    """One signature's per-device program, or None where partitioning failed.

    `out_specs[i]` None (no out_shardings): the propagation chooses result
    i's sharding, as XLA's does (a partial sum: replicated). A result whose
    out_shardings the partition cannot reach (upstream reshards on one-axis
    meshes only) is taken in the sharding the propagation gives it and
    carries the requested one: the devices share the host's memory, so the
    whole array is the same either way."""

    def __init__(self, traced: Any, in_avals: list, mesh: Any, in_specs: list, out_specs: list,
                 across: bool = False) -> None:
        import mlir.ir as ir

        from jaxc.passes.ir import function_named

        from . import distributed
        from ._pmap import mark_spmd
        self.processes = distributed.process_count() if across else 1
        self.ok = False
        self.mesh = mesh
        self.traced = traced
        # the arrays it closes over follow the arguments, replicated
        in_avals = list(in_avals) + [ShapedArray(np.shape(c), c.dtype) for c in traced.consts]
        in_specs = list(in_specs) + [PartitionSpec()] * len(traced.consts)
        self._axes = axes = list(mesh.shape.items())
        from jaxc.passes import stages
        with core.context():
            module = ir.Module.parse(traced.text(debug_info=True))
            stages.run_stages(module, "optimized")  # derivatives expanded and inlined: their constants too
            mark_spmd(module, axes, self.processes)
            fn = function_named(module.operation, traced.name)
            self.hoisted = _constants_as_arguments(fn)
            in_avals += [ShapedArray(c.shape, c.dtype) for c in self.hoisted]
            in_specs += [PartitionSpec()] * len(self.hoisted)
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get({"jaxc.sharding": _attr(s, mesh, len(a.shape))})
                 for s, a in zip(in_specs, in_avals)])
            self._module, self._fn = module, fn
        self.in_avals = in_avals
        self.in_specs = in_specs
        self.in_layouts = [_Layout(a.shape, s, axes, f"in_shardings of argument leaf {i}")
                           for i, (a, s) in enumerate(zip(in_avals, in_specs))]
        self.why = ""
        propagated: list | str | None = None
        if any(s is None for s in out_specs):
            propagated = self._propagated()
            if isinstance(propagated, str):
                self.why = propagated
                return
        # a result without out_shardings stays unannotated (annotating it as propagated made upstream
        # abort on gradients), laid out as the propagation leaves it; a partial one is annotated replicated
        natural = propagated or [(None, False)] * len(out_specs)
        specs = [p if s is None else s for s, (p, _) in zip(out_specs, natural)]
        marks = [s if s is not None else PartitionSpec() if partial else None
                 for s, (_, partial) in zip(out_specs, natural)]
        self.out_shardings = [NamedSharding(mesh, s) for s in specs]
        if self._compile(marks, specs):
            return
        # upstream could not reshard to out_shardings: the results as the propagation leaves them
        if propagated is None:
            propagated = self._propagated()
        if isinstance(propagated, list):
            free = [PartitionSpec() if partial else None for _, partial in propagated]
            if (free, [p for p, _ in propagated]) != (marks, specs):
                why = self.why
                if not self._compile(free, [p for p, _ in propagated]):
                    self.why = why

    def _marked(self, out_specs: list) -> str:
        """The module with the results' `jaxc.sharding` (None: none, the propagation chooses)."""
        import mlir.ir as ir
        with self._module.context:
            self._fn.attributes["res_attrs"] = ir.ArrayAttr.get(
                [ir.DictAttr.get({} if s is None else {"jaxc.sharding": _attr(s, self.mesh, len(a.shape))})
                 for s, a in zip(out_specs, self.traced.out_avals)])
        return self._module.operation.get_asm(enable_debug_info=True)

    def _propagated(self) -> list | str:
        """Each result's (sharding, whether partial) as the propagation
        leaves it when the results are not marked (P() for a partial
        value), or why it failed."""
        import mlir.ir as ir

        from jaxc.passes import stages
        from jaxc.passes.ir import function_named
        text = self._marked([None] * len(self.traced.out_avals))
        with core.context():
            module = ir.Module.parse(text)
            try:
                stages.run_stages(module, "propagated")
            except (ValueError, ir.MLIRError) as error:  # the child's abort comes as a pipeline failure
                return str(error).splitlines()[-1] if str(error) else "the propagation failed"
            block = function_named(module.operation, self.traced.name).regions[0].blocks[0]
            ret = block.operations[len(block.operations) - 1]
            return [_spec_of(v, [n for n, _ in self._axes]) for v in ret.operands]

    def _compile(self, marks: list, out_specs: list) -> bool:
        """Compile the program partitioned with the results marked by `marks`
        (None: not marked) and laid out by `out_specs`; False (and `why`)
        where it failed."""
        from jaxc.runtime import CompileError, compile_module
        self.text = self._marked(marks)
        self.out_specs = out_specs
        self.out_layouts = [_Layout(a.shape, s, self._axes, f"out_shardings of output leaf {i}")
                            for i, (a, s) in enumerate(zip(self.traced.out_avals, out_specs))]
        try:
            executable = compile_module(self.text)
        except CompileError as error:
            self.why = str(error).splitlines()[-1] if str(error) else "the partition failed"
            return False
        self.function = executable[self.traced.name]
        expected = [layout.block for layout in self.in_layouts] + [layout.block for layout in self.out_layouts]
        got = [spec.shape for spec in self.function.args + self.function.results]
        if [tuple(s) for s in expected] != [tuple(s) for s in got]:
            self.why = f"the partitioned program takes blocks {got}, not {expected}"
            return False
        self.ok = True
        return True

    def lowered(self) -> Any:
        """The marked program as `jit(...).lower(...)` shows it: `as_text(stage="partitioned")`
        is one device's program."""
        import mlir.ir as ir

        from .api import Lowered, Traced
        with core.context():
            module = ir.Module.parse(self.text)
        traced = Traced(module, self.traced.name, self.traced.out_tree, self.traced.out_avals, [])
        return Lowered(traced)

    def run(self, leaves: list) -> list:
        lanes, function = self.mesh.size, self.function
        in_dtypes = [a.dtype for a in self.in_avals]
        out_dtypes = [a.dtype for a in self.traced.out_avals]

        def call(*values: Any) -> list[np.ndarray]:
            return run_on_lanes(function, lanes, values, self.in_layouts, in_dtypes, self.out_layouts, out_dtypes)
        out_avals = [ShapedArray(a.shape, a.dtype, a.weak_type) for a in self.traced.out_avals]
        inputs = [x if isinstance(x, core.ArrayBase) else np.asarray(x, a.dtype)
                  for x, a in zip(list(leaves) + list(self.traced.consts) + self.hoisted, self.in_avals)]
        outs = dispatch.run(call, inputs, out_avals, self.traced.label + " (partitioned)",
                            self.mesh.devices.ravel()[0])
        for out, sharding in zip(outs, self.out_shardings):
            out._sharding = sharding
        return outs

    def run_across_processes(self, leaves: list) -> list:
        """Run on this process's devices of a mesh spanning the processes
        (its first axis split among them, `_global_array.py`): each argument
        this process's part (an array spanning the processes: its own; any
        other value: its rows of the global value), each result an array
        spanning the processes or, replicated over them, an ordinary Array."""
        from ._global_array import local_axes, local_input, local_shape, process_dimension, result
        here = local_axes(self._axes, self.processes)
        values, layouts = [], []
        inputs = list(leaves) + list(self.traced.consts) + self.hoisted
        for i, (x, aval, spec) in enumerate(zip(inputs, self.in_avals, self.in_specs)):
            local = local_input(x, aval.dtype, process_dimension(NamedSharding(self.mesh, spec), len(aval.shape)),
                                f"jit: the in_sharding {spec} of argument leaf {i}")
            values.append(local)
            layouts.append(_Layout(local.shape, spec, here, f"in_shardings of argument leaf {i}"))
        out_avals = self.traced.out_avals
        dims = [process_dimension(NamedSharding(self.mesh, s), len(a.shape)) for s, a in zip(self.out_specs, out_avals)]
        local_out = [_Layout(local_shape(a.shape, dim, self.processes), s, here, f"out_shardings of output leaf {i}")
                     for i, (a, s, dim) in enumerate(zip(out_avals, self.out_specs, dims))]
        outs = run_on_lanes(self.function, int(np.prod([size for _, size in here])), values, layouts,
                            [a.dtype for a in self.in_avals], local_out, [a.dtype for a in out_avals])
        results = []
        for out, aval, sharding, dim in zip(outs, out_avals, self.out_shardings, dims):
            if process_dimension(sharding, len(aval.shape)) != dim:
                raise ValueError(f"{core.where()}: jit across processes: a result computed split over the "
                                 f"processes along {dim} cannot be given the out_sharding {sharding.spec} "
                                 "(the partition could not reshard it)")
            results.append(result(out, aval.shape, sharding, dim))
        return results


class WholeAcrossProcesses:
    """A program upstream cannot partition, across processes: every process
    gathers the global value of each argument that spans the processes (one
    MPI allgather), runs the program whole, and keeps its part of each
    result that an out_sharding splits over the processes (a GlobalArray);
    the other results are replicated, ordinary Arrays. The values are the
    partitioned program's; the memory and the work are one device's."""

    def __init__(self, jitted: Any, out_shardings: list) -> None:
        self.jitted = jitted
        self.out_shardings = [s if isinstance(s, NamedSharding) else None for s in out_shardings]

    def run(self, args: tuple) -> Any:
        from . import distributed, tree_util
        from ._global_array import GlobalArray, local_part, process_dimension, result
        from .experimental.multihost_utils import process_allgather
        leaves, tree = tree_util.tree_flatten(args)
        spanning = [i for i, x in enumerate(leaves) if isinstance(x, GlobalArray)]
        whole = process_allgather([leaves[i] for i in spanning])  # every process takes part, in order
        for i, value in zip(spanning, whole):
            leaves[i] = value
        outs, out_tree = tree_util.tree_flatten(self.jitted(*tree_util.tree_unflatten(tree, leaves)))
        results = []
        for i, (out, sharding) in enumerate(zip(outs, self.out_shardings)):
            dim = None if sharding is None else process_dimension(sharding, out.ndim)
            if dim is None:
                results.append(out)
                continue
            part = local_part(np.asarray(out), dim, distributed.process_count(), distributed.process_index(),
                              f"jit: out_shardings of output leaf {i}")
            results.append(result(part, out.shape, sharding, dim))
        return tree_util.tree_unflatten(out_tree, results)


def _spec_of(value: Any, names: list[str]) -> tuple[PartitionSpec, bool]:
    """The PartitionSpec of the `shard.shard` that gives `value` (the
    propagation's annotation of a result; P() for none) and whether it is
    partial (then P())."""
    import ast

    import mlir.ir as ir
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "shard.shard":
        return PartitionSpec(), False
    sharding = owner.operation.operands[1].owner.operation
    if "partial_axes" in sharding.attributes:
        return PartitionSpec(), True
    text = str(sharding.attributes["split_axes"])  # #shard<axisarray[[0], []]>
    dims = ast.literal_eval(text[text.index("["):text.rindex("]") + 1])
    entries = [None if not d else names[d[0]] if len(d) == 1 else tuple(names[i] for i in d) for d in dims]
    while entries and entries[-1] is None:
        entries.pop()
    return PartitionSpec(*entries), False


def _constants_as_arguments(fn: Any) -> list[np.ndarray]:
    """The non-splat and the rank-0 tensor constants at the top of `fn`
    (NumPy arrays the function closes over, scalars) made arguments after
    the others, replicated: upstream shard-partition fails on them
    (docs/toolchain.md). Their values, in argument order."""
    import mlir.ir as ir
    block = fn.regions[0].blocks[0]
    values = []
    for view in list(block.operations):
        op = view.operation
        if op.name != "jaxc.constant":
            continue
        attr, type_ = op.attributes["value"], ir.RankedTensorType(op.results[0].type)
        if not isinstance(attr, ir.DenseElementsAttr) or attr.is_splat and type_.rank > 0:
            continue
        expected = core.aval_of_type(type_).dtype
        array = np.array(attr)  # packed booleans, bf16 and complex come back otherwise: left as they are
        if array.shape != tuple(type_.shape) or array.dtype.itemsize != expected.itemsize \
                or array.dtype.kind != expected.kind and {array.dtype.kind, expected.kind} != {"i", "u"}:
            continue
        argument = block.add_argument(type_, op.location)
        op.results[0].replace_all_uses_with(argument)
        op.erase()
        values.append(array.view(expected))
    if values:
        function_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], list(function_type.results)))
    return values


def specs_for(shardings: list, unspecified: Any = PartitionSpec()) -> list:
    """Each NamedSharding's spec; `unspecified` for the others (None: no sharding given)."""
    return [s.spec if isinstance(s, NamedSharding) else unspecified for s in shardings]


def warn_whole(label: str, why: str) -> None:
    _LOG.warning("%s: not partitioned by its shardings (%s); it runs whole, with the same values",
                 label, why)
