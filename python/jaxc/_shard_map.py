"""`shard_map`: a function run on every block of its arguments at once, one
device of a mesh per block, as `jax.shard_map`.

    mesh = jaxc.make_mesh((2, 4), ("x", "y"))
    f = jaxc.shard_map(lambda a: lax.psum(a, "y"), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", None))
    f(np.ones((8, 16)))      # each device: a (4, 4) block; psum over the 4 devices of its row

Outside a trace the function is traced once per signature on one block
into a per-device program whose `jaxc.spmd_axes` lists the mesh axes, and
runs on mesh.size threads at once, as pmap's does (docs/parallel.md): lane
l is the device at row-major position l of the mesh, and a collective over
some axes acts among the lanes that agree on the others. The arguments are
cut into blocks per `in_specs` (a mesh axis a spec does not name: every
device along it gets the same block), the results put together per
`out_specs` (an axis the spec does not name: the block of the device at
position 0 along it, the value being the same on all of them). The results
are Arrays with that `NamedSharding`.

Inside a trace (under jit, grad, vmap) the same function is nested vmaps,
one per mesh axis with its name: the values are the same, as one program.

With check_vma (the default) the per-device function is typed as JAX types
it, by `jaxc-infer-vma` (passes/infer_vma.py): pvarys where replicated values
meet varying ones, so that derivatives of replicated values sum over the
devices, JAX's ValueError for an output replicated over an axis it may
vary over, and JAX's TypeError for a loop carry or cond branch whose type
changes (at the loop's line). Inside a trace its derivative requests are derived before the
vmaps over the mesh axes are batched (docs/parallel.md).
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, Sequence

import numpy as np
import optree

from . import core, dispatch, tree_util
from ._batching import binding, vmap
from ._config import config
from ._global_array import (
    aval_of,
    check_process_mesh,
    local_axes,
    local_input,
    local_shape,
    process_dimension,
    result,
    spans_processes,
)
from ._pmap import mark_spmd, run_on_lanes
from .api import _leaf_aval, compile_traced, trace_function
from .core import ShapedArray
from .lax._parallel import typing_vma
from .sharding import Mesh, NamedSharding, PartitionSpec, current_mesh

__all__ = ["shard_map"]


def shard_map(f: Callable | None = None, mesh: Mesh | None = None, in_specs: Any = None,
              out_specs: Any = None, check_rep: bool | None = None, auto: Any = None, *,
              axis_names: Any = None, check_vma: bool = True) -> Any:
    """`f` on the blocks of a mesh (`jax.shard_map`, and the older
    `jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs)`).

    `mesh` defaults to the one of `jaxc.set_mesh` / `with mesh:`;
    `in_specs`/`out_specs` are pytree prefixes of the arguments / results
    with PartitionSpec leaves (None: replicated, `P()`); `axis_names`: the
    mesh axes the function maps over (default all; the others see whole
    blocks, as replicated). With `check_vma` (the default; `check_rep` is
    its old name) the body is typed as JAX types it (passes/infer_vma.py):
    derivatives of values replicated over the devices sum their
    contributions, and an output that `out_specs` replicates over an axis it
    may vary over is a ValueError. Without it, the values and derivatives of
    pmap's per-device program, and a replicated output is the first
    device's."""
    if f is None:
        return lambda g: shard_map(g, mesh, in_specs, out_specs, check_rep, auto,
                                   axis_names=axis_names, check_vma=check_vma)
    if check_rep is not None:
        check_vma = bool(check_rep)
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, got {type(f).__name__}")
    if out_specs is None:
        raise TypeError("shard_map() missing required keyword argument: 'out_specs'")
    if mesh is not None and not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map requires a Mesh for mesh, got {type(mesh).__name__}")
    return ShardMapFunction(f, mesh, in_specs, out_specs,
                            None if axis_names is None else frozenset(axis_names), bool(check_vma))


def _specs(tree: Any, prefix: Any, what: str) -> list[PartitionSpec]:
    marked = optree.tree_map(lambda s: PartitionSpec() if s is None else s, prefix, none_is_leaf=True,
                             namespace=tree_util.NAMESPACE)
    try:
        specs = optree.broadcast_prefix(marked, tree, none_is_leaf=False, namespace=tree_util.NAMESPACE)
    except ValueError as error:
        raise ValueError(f"{core.where()}: shard_map {what} must be a tree prefix of the corresponding "
                         f"value ({tree_util.tree_structure(tree)}): {error}") from None
    for spec in specs:
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"{core.where()}: shard_map {what} leaves must be PartitionSpecs (or None), "
                            f"got {spec!r}")
    return specs


class _Layout:
    """How a global array of `shape` splits into per-lane blocks on a mesh
    of `axes` [(name, size), ...] by `spec`."""

    def __init__(self, shape: Sequence[int], spec: PartitionSpec, axes: list[tuple[str, int]],
                 what: str) -> None:
        sizes = dict(axes)
        if len(spec) > len(shape):
            raise ValueError(f"{core.where()}: shard_map {what}: {spec} has {len(spec)} entries but the "
                             f"value has rank {len(shape)} (shape {tuple(shape)})")
        self.shape = tuple(shape)
        self.axes = axes
        self.per_dim = [spec.axes_of(d) for d in range(len(shape))]
        used = [a for dims in self.per_dim for a in dims]
        for name in used:
            if name not in sizes:
                raise ValueError(f"{core.where()}: shard_map {what}: {spec} names the axis {name!r}, which "
                                 f"is not a mapped axis of the mesh {[n for n, _ in axes]}")
        if len(set(used)) != len(used):
            raise ValueError(f"{core.where()}: shard_map {what}: {spec} names a mesh axis twice")
        block: list[int] = []
        for d, n in enumerate(shape):
            parts = math.prod(sizes[a] for a in self.per_dim[d])
            if n % parts:
                raise ValueError(f"{core.where()}: shard_map {what}: dimension {d} of shape {tuple(shape)} "
                                 f"({n}) is not divisible by {parts}, the number of parts {spec} splits "
                                 f"it into on mesh axes {dict(axes)}")
            block.append(n // parts)
        self.block = tuple(block)
        self.used = set(used)

    def _split(self) -> tuple[list[int], dict[str, int], list[int]]:
        """The global shape with every split dimension cut into (mesh axis
        sizes..., block): that shape, where each mesh axis sits, where each
        block dimension sits."""
        sizes = dict(self.axes)
        split: list[int] = []
        where: dict[str, int] = {}
        blocks: list[int] = []
        for d, axes in enumerate(self.per_dim):
            for a in axes:
                where[a] = len(split)
                split.append(sizes[a])
            blocks.append(len(split))
            split.append(self.block[d])
        return split, where, blocks

    def to_lanes(self, value: np.ndarray) -> np.ndarray:
        """(lanes, *block), lane l's block at row l (lanes row-major over the mesh)."""
        split, where, blocks = self._split()
        y = value.reshape(split).transpose([where[n] for n, _ in self.axes if n in where] + blocks)
        # a mesh axis the spec does not name: a dimension of 1, broadcast (every device gets the block)
        with_all = [size if name in where else 1 for name, size in self.axes]
        y = np.broadcast_to(y.reshape(with_all + list(self.block)),
                            [size for _, size in self.axes] + list(self.block))
        lanes = math.prod(size for _, size in self.axes)
        return np.ascontiguousarray(y).reshape((lanes, *self.block))

    def from_lanes(self, stacked: np.ndarray) -> np.ndarray:
        """The global array from (lanes, *block): along a mesh axis the spec
        does not name, the block at position 0."""
        y = stacked.reshape([size for _, size in self.axes] + list(self.block))
        index = tuple(slice(None) if name in self.used else 0 for name, _ in self.axes)
        y = y[index + (Ellipsis,)]
        kept = [name for name, _ in self.axes if name in self.used]  # y's leading dims, mesh order
        order = []
        for d, axes in enumerate(self.per_dim):
            order += [kept.index(a) for a in axes]
            order.append(len(kept) + d)
        return np.ascontiguousarray(y.transpose(order)).reshape(self.shape)

    def global_shape(self) -> tuple[int, ...]:
        return self.shape


class ShardMapFunction:
    """What `shard_map(f, ...)` returns."""

    def __init__(self, fun: Callable, mesh: Mesh | None, in_specs: Any, out_specs: Any,
                 axis_names: frozenset | None, check_vma: bool = True) -> None:
        self._fun = fun
        self._check_vma = check_vma
        self._mesh = mesh
        self._in_specs = in_specs
        self._out_specs = out_specs
        self._axis_names = axis_names
        self._programs: dict[Any, Any] = {}
        functools.update_wrapper(self, fun)

    def _mesh_axes(self) -> tuple[Mesh, list[tuple[str, int]], list]:
        mesh = self._mesh if self._mesh is not None else current_mesh()
        if mesh is None:
            raise ValueError(f"{core.where()}: shard_map needs a mesh: pass mesh=..., or call it inside "
                             "`with jaxc.sharding.use_mesh(mesh):` / after jaxc.set_mesh(mesh)")
        names = mesh.axis_names if self._axis_names is None else \
            [n for n in mesh.axis_names if n in self._axis_names]
        unknown = set(self._axis_names or ()) - set(mesh.axis_names)
        if unknown:
            raise ValueError(f"{core.where()}: shard_map axis_names {sorted(unknown)} are not axes of the "
                             f"mesh {mesh.axis_names}")
        axes = [(n, mesh.shape[n]) for n in names]
        # the devices of the lanes: the mesh's, at position 0 along any axis not mapped
        index = tuple(slice(None) if n in names else 0 for n in mesh.axis_names)
        devices = np.asarray(mesh.devices[index]).reshape(-1).tolist()
        return mesh, axes, devices

    def spans_processes(self) -> bool:
        """Whether its mesh holds other processes' devices: `jit` of it then
        runs it as a direct call does, its per-device program on every
        process's lanes (traced inside a larger function, it is vmaps over
        the whole mesh, run whole on gathered arguments)."""
        mesh = self._mesh if self._mesh is not None else current_mesh()
        return mesh is not None and spans_processes(mesh)

    def __call__(self, *args: Any) -> Any:
        mesh, axes, devices = self._mesh_axes()
        in_specs = self._in_specs
        if isinstance(in_specs, list):
            in_specs = tuple(in_specs)
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = _specs(args, in_specs, "in_specs")
        traced_here = core.current_scope() is not None or any(isinstance(x, core.Tracer) for x in leaves)
        if spans_processes(mesh) and not traced_here:
            return self._across_processes(leaves, in_tree, specs, mesh, axes)
        if traced_here:
            return self._as_vmaps(args, leaves, in_tree, specs, axes)
        avals = [_leaf_aval(x) for x in leaves]
        layouts = [_Layout(a.shape, s, axes, f"in_specs of argument leaf {i}")
                   for i, (a, s) in enumerate(zip(avals, specs))]
        traced, out_layouts, out_shardings, function = self._program(in_tree, avals, layouts, specs, axes, mesh)
        inputs = [x if isinstance(x, core.ArrayBase) else np.asarray(x, a.dtype) for x, a in zip(leaves, avals)]
        inputs += traced.consts
        lane_layouts: list[_Layout | None] = layouts + [None] * len(traced.consts)
        lanes = len(devices)

        in_dtypes = [a.dtype for a in avals] + [c.dtype for c in traced.consts]

        def run(*values: Any) -> list[np.ndarray]:
            return run_on_lanes(function, lanes, values, lane_layouts, in_dtypes, out_layouts,
                                [a.dtype for a in traced.out_avals])
        out_avals = [ShapedArray(layout.global_shape(), a.dtype, a.weak_type)
                     for layout, a in zip(out_layouts, traced.out_avals)]
        outs = dispatch.run(run, inputs, out_avals, traced.label, devices[0])
        for out, sharding in zip(outs, out_shardings):
            out._sharding = sharding
        return tree_util.tree_unflatten(traced.out_tree, outs)

    def _across_processes(self, leaves: list, in_tree: Any, specs: list, mesh: Mesh, axes: list) -> Any:
        """A call on a mesh whose first axis spans the processes (jaxc.distributed):
        this process runs its devices' lanes on its part of each argument (a
        GlobalArray's own part, or its rows of a value every process passes
        whole); collectives over the first axis reach the other processes
        through MPI (passes/lowering/collectives.py). A result split over the
        processes is a GlobalArray, one replicated over them an Array."""
        from . import distributed
        processes = distributed.process_count()
        first = check_process_mesh(mesh, "shard_map")
        if axes[0][0] != first:
            raise ValueError(f"{core.where()}: shard_map across processes must map the mesh's first axis "
                             f"{first!r}, which spans the processes (axis_names={sorted(self._axis_names or ())})")
        here = local_axes(axes, processes)
        avals, values, layouts, local_layouts = [], [], [], []
        for i, (x, spec) in enumerate(zip(leaves, specs)):
            what = f"in_specs of argument leaf {i}"
            aval = aval_of(x)
            local = local_input(x, aval.dtype, process_dimension(NamedSharding(mesh, spec), aval.ndim),
                                f"shard_map {what}: {spec}")
            layouts.append(_Layout(aval.shape, spec, axes, what))
            local_layouts.append(_Layout(local.shape, spec, here, what))
            avals.append(aval)
            values.append(local)
        traced, out_layouts, out_shardings, function = self._program(in_tree, avals, layouts, specs, axes, mesh,
                                                                    processes)
        out_dims = [process_dimension(sh, len(layout.shape)) for sh, layout in zip(out_shardings, out_layouts)]
        local_out = [_Layout(local_shape(layout.shape, dim, processes), sh.spec, here, f"out_specs of output leaf {i}")
                     for i, (layout, sh, dim) in enumerate(zip(out_layouts, out_shardings, out_dims))]
        in_dtypes = [a.dtype for a in avals] + [c.dtype for c in traced.consts]
        outs = run_on_lanes(function, math.prod(size for _, size in here),
                            values + [np.asarray(c) for c in traced.consts],
                            local_layouts + [None] * len(traced.consts), in_dtypes, local_out,
                            [a.dtype for a in traced.out_avals])
        results = [result(out, layout.shape, sharding, dim)
                   for out, layout, sharding, dim in zip(outs, out_layouts, out_shardings, out_dims)]
        return tree_util.tree_unflatten(traced.out_tree, results)

    def _program(self, in_tree: Any, avals: list, layouts: list, specs: list, axes: list, mesh: Mesh,
                 processes: int = 1) -> tuple:
        """The traced and compiled per-device program of this signature (once)."""
        key = (in_tree, tuple((a.strong, a.weak_type) for a in avals), tuple(map(tuple, specs)), mesh,
               tuple(axes), config.jax_enable_x64, processes)
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = self._trace(in_tree, avals, layouts, axes, mesh, processes)
        return program

    def _trace(self, in_tree: Any, avals: list, layouts: list, axes: list, mesh: Mesh,
               processes: int = 1) -> tuple:
        block_avals = [ShapedArray(layout.block, a.dtype, a.weak_type) for a, layout in zip(avals, layouts)]

        def per_device(*args: Any) -> Any:
            with binding(axes), typing_vma(self._check_vma):
                return self._fun(*args)

        name = f"shard_map_{getattr(self._fun, '__name__', 'fn')}".replace("<", "_").replace(">", "_")
        traced = trace_function(per_device, block_avals,
                                lambda tracers: (tree_util.tree_unflatten(in_tree, tracers), {}), name)
        mark_spmd(traced.module, axes, processes)
        outs = tree_util.tree_unflatten(traced.out_tree, traced.out_avals)
        out_specs = _specs(outs, self._out_specs, "out_specs")
        if self._check_vma:
            from jaxc.passes.ir import function_named
            body = function_named(traced.module.operation, traced.name)
            self._typed(body, layouts, axes, mesh, outs, out_specs)
        sizes = dict(axes)
        out_layouts, out_shardings = [], []
        for i, (aval, spec) in enumerate(zip(traced.out_avals, out_specs)):
            if len(spec) > aval.ndim:
                raise ValueError(f"{core.where()}: shard_map out_specs: {spec} has {len(spec)} entries but "
                                 f"output leaf {i} has rank {aval.ndim}")
            for d in range(aval.ndim):
                for a in spec.axes_of(d):
                    if a not in sizes:
                        raise ValueError(f"{core.where()}: shard_map out_specs names the axis {a!r}, which "
                                         f"is not a mapped axis of the mesh {[n for n, _ in axes]}")
            shape = tuple(n * math.prod(sizes[a] for a in spec.axes_of(d)) for d, n in enumerate(aval.shape))
            out_layouts.append(_Layout(shape, spec, axes, f"out_specs of output leaf {i}"))
            out_shardings.append(NamedSharding(mesh, spec))
        return traced, out_layouts, out_shardings, compile_traced(traced)

    def _typed(self, body: Any, layouts: list, axes: list, mesh: Mesh, outs: Any,
               out_specs: list[PartitionSpec]) -> None:
        """Type the per-device function `body` as JAX does under check_vma
        (`jaxc-infer-vma`): arguments vary over the axes their specs name
        (values it closes over over none); then each output must vary only
        over axes its out_spec names, else JAX's ValueError."""
        from jaxc.passes import infer_vma
        n_args = len(body.regions[0].blocks[0].arguments)
        arg_axes = [[n for n, _ in axes if n in layout.used] for layout in layouts]
        with body.context:
            infer_vma.mark(body, axes, arg_axes + [[]] * (n_args - len(arg_axes)))
            try:
                varying = infer_vma.infer(body)
            except infer_vma.VmaError as error:  # JAX's, at the line of the loop, cond or pcast
                raise error.kind(f"{infer_vma.source_line(error.op)}: {error}") from None
        paths = [tree_util.keystr(path) for path, _ in tree_util.tree_flatten_with_path(outs)[0]]
        single = isinstance(self._out_specs, PartitionSpec)
        failures = []
        for path, vma, spec in zip(paths, varying, out_specs):
            named = {a for d in range(len(spec)) for a in spec.axes_of(d)}
            unmentioned = [n for n in mesh.axis_names if n not in named]
            wrong = [n for n in unmentioned if n in vma]
            if not wrong:
                continue
            where = "" if single else path
            if len(unmentioned) > 1:
                failures.append(
                    f"* out_specs{where} is {spec} which implies that the corresponding output value is "
                    f"only varying across mesh axes {{{','.join(n for n in mesh.axis_names if n in named)}}} "
                    f"and not {{{','.join(wrong)}}}, but it was inferred to be possibly varying over "
                    f"{{{','.join(vma)}}}")
            else:
                failures.append(
                    f"* out_specs{where} is {spec} which implies that the corresponding output value is "
                    f"replicated across mesh axis '{unmentioned[0]}', but could not infer replication "
                    "over any axes")
        if not failures:
            return
        if len(failures) == 1:
            failures = [failures[0][2:]]
        name = getattr(self._fun, "__name__", str(self._fun))
        raise ValueError(
            f"{core.where()}: shard_map applied to the function '{name}' was given out_specs which "
            f"require replication which can't be statically inferred given the mesh:\n\n"
            f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis names "
            f"{tuple(mesh.axis_names)}.\n\n" + "\n\n".join(failures) + "\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. If not, "
            "consider revising the corresponding out_specs entries. If so, consider disabling the "
            "check by passing the check_vma=False argument to `jax.shard_map`.")

    def _as_vmaps(self, args: tuple, leaves: list, in_tree: Any, specs: list, axes: list) -> Any:
        """Inside a trace: nested vmaps, one per mesh axis (outermost first),
        over the arguments reshaped so each mesh axis is a dimension."""
        from . import lax
        avals = [x.aval if isinstance(x, core.ArrayBase) else _leaf_aval(x) for x in leaves]
        layouts = [_Layout(a.shape, s, axes, f"in_specs of argument leaf {i}")
                   for i, (a, s) in enumerate(zip(avals, specs))]
        names = [n for n, _ in axes]
        moved = []
        for x, layout in zip(leaves, layouts):
            split, where, blocks = layout._split()
            y = lax.reshape(core.as_operand(x, "shard_map"), split)
            y = lax.transpose(y, [where[n] for n in names if n in where] + blocks)
            moved.append(y)
        box: dict[str, Any] = {}

        def body(*xs: Any) -> Any:
            scope = core.current_scope()
            assert scope is not None  # vmap traces the body in a scope of its own
            box["function"] = scope.block.owner  # the per-device function being traced
            with typing_vma(self._check_vma):
                out = self._fun(*tree_util.tree_unflatten(in_tree, list(xs)))
            out_leaves, box["tree"] = tree_util.tree_flatten(out)
            box["specs"] = _specs(out, self._out_specs, "out_specs")
            box["outs"] = out
            return out_leaves
        mapped = body
        for depth in reversed(range(len(names))):  # the first mesh axis outermost
            in_axes = tuple(0 if names[depth] in layout.used else None for layout in layouts)
            mapped = vmap(mapped, in_axes=in_axes, out_axes=0, axis_size=axes[depth][1],
                          axis_name=names[depth])
        out_leaves = mapped(*moved)
        if self._check_vma:
            mesh = self._mesh_axes()[0]
            per_device = box["function"].operation
            self._typed(per_device, layouts, axes, mesh, box["outs"], box["specs"])
            from jaxc.passes import infer_vma
            with per_device.context:
                infer_vma.expand_requests_first(per_device, axes)
        sizes = dict(axes)
        results = []
        for y, spec in zip(out_leaves, box["specs"]):
            # every output has all mesh axes in front; an axis the spec does not name: position 0
            used = [a for d in range(y.ndim - len(names)) for a in spec.axes_of(d)]
            for k in reversed(range(len(names))):
                if names[k] not in used:
                    y = lax.squeeze(lax.slice_in_dim(y, 0, 1, axis=k), (k,))
            kept = [n for n in names if n in used]
            block_rank = y.ndim - len(kept)
            order = []
            for d in range(block_rank):
                order += [kept.index(a) for a in spec.axes_of(d)]
                order.append(len(kept) + d)
            z = lax.transpose(y, order)
            shape = [y.shape[len(kept) + d] * math.prod(sizes[a] for a in spec.axes_of(d))
                     for d in range(block_rank)]
            results.append(lax.reshape(z, shape))
        return tree_util.tree_unflatten(box["tree"], results)
