"""`pmap`: one program run on N CPU devices at once (SPMD), as `jax.pmap`.

`pmap(f, axis_name="i")(xs)` traces `f` once on one device's slice into a
module marked with the axis and its size,

    module attributes {jaxc.spmd_axes = [["i", 4]]} {
      func.func @pmap_f(%x: tensor<3xf32>) -> tensor<3xf32> {
        %0 = jaxc.psum %x, axes = ["i"] : tensor<3xf32>
        ...

compiles it once for one thread (no OpenMP: the devices are the threads),
and runs it on N threads at once (`Entry.call_spmd`, `_fastcall.c`), lane i
reading slice i of every mapped argument in place. Collectives are calls
into a small in-process runtime that meets the lanes at a barrier
(passes/lowering/collectives.py). The results are stacked along the mapped
axis in one buffer: an Array whose `.sharding` is a `PmapSharding` over the
devices, whose shards are views of that buffer, and which later eager ops
and pmaps read without a copy.

Called inside a trace (under `jit`, `grad`, `vmap`), `pmap(f)` means what
`vmap(f, axis_name=...)` means, and is traced as that (the values are the
same; the devices are one program's). With `jaxc.distributed`, the axis
spans every process's devices (docs/parallel.md).
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Sequence

import numpy as np

from . import core, dispatch, tree_util
from ._batching import (
    _axis_size,
    _broadcast_axes,
    _check_axes_tree,
    _leaf_names,
    _normalize_in_axis,
    _normalize_out_axis,
    binding,
    flat_in_axes,
    vmap,
)
from ._config import config
from .api import Compiled, Lowered, _leaf_aval, _Static, compile_traced, compiled_call_leaves, trace_function
from .core import ShapedArray
from .sharding import PmapSharding

__all__ = ["pmap"]

SPMD_AXES = "jaxc.spmd_axes"  # passes/lowering/collectives.py


def pmap(fun: Callable, axis_name: Any = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: int | Sequence[int] = (), devices: Sequence[Any] | None = None,
         backend: str | None = None, axis_size: int | None = None,
         donate_argnums: int | Sequence[int] = (), global_arg_shapes: Any = None) -> "PmapFunction":
    """`fun` run on one device per slice of the mapped axis, as `jax.pmap`.

    `in_axes` / `out_axes` as vmap's (per positional argument; keyword
    arguments are mapped over axis 0); `axis_name` names the axis for
    collectives (`lax.psum(x, axis_name)`, `lax.axis_index`, ...);
    `static_broadcasted_argnums` are hashable arguments every device gets
    as Python values; `devices` the CPU devices to use (as many as the
    mapped size; default the first of `jaxc.devices()`); `axis_size` is
    needed only when no argument is mapped. `donate_argnums` is accepted:
    buffers are not reused on the CPU (a hint, as on JAX's CPU backend).
    """
    if not callable(fun):
        raise TypeError(f"pmap: fun must be callable, got {type(fun).__name__}")
    if global_arg_shapes is not None:
        raise ValueError("pmap: global_arg_shapes is not supported (JAX deprecated it); with "
                         "jaxc.distributed each process passes the slice of its own devices")
    if backend not in (None, "cpu"):
        raise ValueError(f"pmap: backend {backend!r}: jaxc runs pmap on CPU devices only")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_tree(in_axes, "in_axes")
    _check_axes_tree(out_axes, "out_axes")
    static = _argnums(static_broadcasted_argnums, "static_broadcasted_argnums")
    _argnums(donate_argnums, "donate_argnums")
    if axis_size is not None:
        axis_size = operator.index(axis_size)
    if devices is not None:
        devices = list(devices)
        bad = [d for d in devices if not isinstance(d, dispatch.Device) or d.platform != "cpu"]
        if bad:
            raise ValueError(f"pmap: devices must be CPU devices (jaxc.devices('cpu')), got {bad[0]!r}")
        if len(set(map(id, devices))) != len(devices):
            raise ValueError(f"pmap: devices must be distinct, got {devices}")
    name = None if axis_name is None else str(axis_name)
    return PmapFunction(fun, name, in_axes, out_axes, static, devices, axis_size)


def _argnums(value: int | Sequence[int], what: str) -> tuple[int, ...]:
    numbers = (value,) if isinstance(value, int) else tuple(value)
    for n in numbers:
        if not isinstance(n, int):
            raise TypeError(f"pmap: {what} must be an int or a sequence of ints, got {value!r}")
    return numbers


def run_on_lanes(function: Any, lanes: int, values: Sequence[Any], layouts: list, in_dtypes: list,
                 out_layouts: list, out_dtypes: list) -> list[np.ndarray]:
    """Run a per-device program on `lanes` threads: each value cut into its
    lanes' blocks by its layout (`_shard_map._Layout`, pmap's `_MappedAxis`;
    None, or one that splits nothing: every lane reads it in place), each
    result put together by its layout. The
    dtypes are the traced ones (a partitioned signature is signless)."""
    buffers, strides = [], []
    for value, layout, dtype in zip(values, layouts, in_dtypes):
        value = np.asarray(value, dtype)
        if layout is None or not layout.used:
            buffers.append(np.ascontiguousarray(value))
            strides.append(0)
        else:
            stacked = layout.to_lanes(value)
            buffers.append(stacked)
            strides.append(stacked.nbytes // lanes if lanes else 0)
    outs = [np.empty((lanes, *spec.shape), dtype) for spec, dtype in zip(function.results, out_dtypes)]
    strides += [out.nbytes // lanes if lanes else 0 for out in outs]
    if lanes:  # a pmap over an empty axis runs nothing
        function._entry.call_spmd(lanes, buffers + outs, strides)
    return [layout.from_lanes(out) for out, layout in zip(outs, out_layouts)]


class _MappedAxis:
    """How one argument or result of a pmap lies over the lanes (the
    `_Layout` interface of `run_on_lanes`): lane i's part is slice i of
    `axis`; a result with axis None is lane 0's."""

    def __init__(self, axis: int | None) -> None:
        self.axis = axis
        self.used = axis is not None

    def to_lanes(self, value: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.moveaxis(value, self.axis, 0) if self.axis else value)

    def from_lanes(self, stacked: np.ndarray) -> np.ndarray:
        if self.axis is None:  # JAX returns lane 0's (the program must make them equal)
            out = stacked[0, ...] if len(stacked) else np.empty(stacked.shape[1:], stacked.dtype)
        else:
            out = np.moveaxis(stacked, 0, self.axis) if self.axis else stacked
        return out if out.flags.c_contiguous else out.copy()


class _Program:
    """The per-device program of one signature, compiled once."""

    def __init__(self, traced: Any, lanes: int, in_axes: list, out_axes: list, in_avals: list) -> None:
        self.traced = traced
        self.lanes = lanes
        self.in_layouts = [_MappedAxis(a) for a in in_axes] + [None] * len(traced.consts)  # closed over: every lane's
        self.in_dtypes = [a.dtype for a in in_avals] + [c.dtype for c in traced.consts]
        self.out_axes = out_axes
        self.out_avals = [ShapedArray(a.shape if ax is None else a.shape[:ax] + (lanes,) + a.shape[ax:],
                                      a.dtype, a.weak_type) for a, ax in zip(traced.out_avals, out_axes)]
        self._out_layouts = [_MappedAxis(a) for a in out_axes]
        self._out_dtypes = [a.dtype for a in traced.out_avals]
        self.function = compile_traced(traced)

    def __call__(self, *values: np.ndarray) -> list[np.ndarray]:
        """Run on the arguments' values (every lane's, stacked on their mapped axes)."""
        return run_on_lanes(self.function, self.lanes, values, self.in_layouts, self.in_dtypes,
                            self._out_layouts, self._out_dtypes)


class PmapFunction:
    """What `pmap(f)` returns: call it, or `.lower(*args)` to see the
    per-device program (`as_text(stage=...)`)."""

    def __init__(self, fun: Callable, axis_name: str | None, in_axes: Any, out_axes: Any,
                 static: tuple[int, ...], devices: list | None, axis_size: int | None) -> None:
        self._fun = fun
        self._axis_name = axis_name
        self._in_axes = in_axes
        self._out_axes = out_axes
        self._static = static
        self._devices = devices
        self._axis_size = axis_size
        self._programs: dict[Any, _Program] = {}
        # (argument tree, each leaf's (type, shape, dtype, weak), x64) -> (program, devices): calls whose
        # arguments are all arrays skip the in_axes checks and the tracing-cache key (`_fast_call`)
        self._fast: dict[Any, tuple[_Program, list]] = {}
        functools.update_wrapper(self, fun)

    def __repr__(self) -> str:
        return f"<pmap({getattr(self._fun, '__name__', 'fn')})>"

    # -- arguments -----------------------------------------------------------

    def _split_static(self, args: tuple) -> tuple[tuple, tuple]:
        n = len(args)
        static = sorted({i % n if -n <= i < n else i for i in self._static})
        for i in static:
            if not 0 <= i < n:
                raise ValueError(f"{core.where()}: pmap: static_broadcasted_argnums {self._static} is "
                                 f"out of range for a call with {n} positional arguments")
        return tuple((i, _Static(args[i])) for i in static), tuple(a for i, a in enumerate(args)
                                                                   if i not in static)

    def _bind(self, static: tuple, dynamic: Sequence[Any]) -> list:
        args, it = [], iter(dynamic)
        positions = dict(static)
        for i in range(len(static) + len(dynamic)):
            args.append(positions[i].value if i in positions else next(it))
        return args

    def _fast_key(self, args: tuple) -> tuple[Any, list] | None:
        """The fast-path key of a call whose arguments are all NumPy or
        jaxc arrays outside any trace, and their leaves; else None."""
        leaves, tree = tree_util.tree_flatten(args)
        kinds = []
        for x in leaves:
            kind = type(x)
            if kind is not np.ndarray and (not isinstance(x, core.ArrayBase) or isinstance(x, core.Tracer)):
                return None
            kinds.append((kind, x.shape, x.dtype, kind is not np.ndarray and x.weak_type))
        if core.current_scope() is not None:
            return None
        return (tree, tuple(kinds), config.jax_enable_x64), leaves

    def _run(self, program: _Program, flat: list, devices: list) -> Any:
        outs = dispatch.run(program, flat + program.traced.consts, program.out_avals, program.traced.label,
                            devices[0])
        for out, axis in zip(outs, program.out_axes):
            out._sharding = PmapSharding(devices, axis) if axis is not None else None
        return tree_util.tree_unflatten(program.traced.out_tree, outs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fast = None if kwargs or self._static else self._fast_key(args)
        if fast is not None and fast[0] in self._fast:
            program, devices = self._fast[fast[0]]
            return self._run(program, [x if x.dtype == d else np.asarray(x, d)
                                       for x, d in zip(fast[1], program.in_dtypes)], devices)
        static, dynamic = self._split_static(args)
        in_axes = self._in_axes
        if isinstance(in_axes, tuple) and static:
            if len(in_axes) == len(args):  # JAX: in_axes entries for static arguments are dropped
                in_axes = tuple(a for i, a in enumerate(in_axes) if i not in dict(static))
        leaves = tree_util.tree_leaves((dynamic, kwargs))
        if core.current_scope() is not None or any(isinstance(x, core.Tracer) for x in leaves):
            return self._as_vmap(static, dynamic, kwargs, in_axes)
        program, flat = self._program(static, dynamic, kwargs, in_axes)
        devices = self._lane_devices(program.lanes)
        if fast is not None:
            self._fast[fast[0]] = (program, devices)
        return self._run(program, flat, devices)

    def _as_vmap(self, static: tuple, dynamic: tuple, kwargs: dict, in_axes: Any) -> Any:
        def bound(*dyn: Any, **kw: Any) -> Any:
            return self._fun(*self._bind(static, dyn), **kw)
        return vmap(bound, in_axes, self._out_axes, self._axis_size, self._axis_name)(*dynamic, **kwargs)

    def _lane_devices(self, lanes: int) -> list:
        if self._devices is not None:
            if len(self._devices) != lanes:
                raise ValueError(f"{core.where()}: pmap: the mapped axis has size {lanes} but "
                                 f"{len(self._devices)} devices were given")
            return self._devices
        available = dispatch.devices()
        if lanes > len(available):
            raise ValueError(f"{core.where()}: compiling computation that requires {lanes} logical "
                             f"devices, but only {len(available)} CPU devices are available "
                             f"(num_replicas={lanes}); set jax_num_cpu_devices (or "
                             f"JAX_NUM_CPU_DEVICES) before first use")
        return available[:lanes]

    def _program(self, static: tuple, dynamic: tuple, kwargs: dict, in_axes: Any) -> tuple[_Program, list]:
        what = f"pmap({getattr(self._fun, '__name__', 'fn')})"
        leaves, in_tree, axes = flat_in_axes(in_axes, dynamic, kwargs, "pmap")
        avals = [_leaf_aval(x) for x in leaves]
        shaped = [_Shape(a) for a in avals]

        def checked(names: list[str]) -> tuple[list, int]:
            normalized = [_normalize_in_axis(a, x, n, "pmap") for a, x, n in zip(axes, shaped, names)]
            return normalized, _axis_size(normalized, shaped, names, self._axis_size, "pmap")
        try:  # the leaves' names (inspect.signature: slow) only for an error message
            axes, lanes = checked([""] * len(leaves))
        except ValueError:
            checked(_leaf_names(self._fun, dynamic, kwargs))
            raise
        self._lane_devices(lanes)
        lane_avals = [a if ax is None else ShapedArray(a.shape[:ax] + a.shape[ax + 1:], a.dtype, a.weak_type)
                      for a, ax in zip(avals, axes)]
        key = (in_tree, tuple((a.strong, a.weak_type) for a in avals), tuple(axes), lanes, static,
               config.jax_enable_x64)
        program = self._programs.get(key)
        if program is None:
            program = self._trace(static, in_tree, lane_avals, axes, lanes, what)
            self._programs[key] = program
        flat = [x if isinstance(x, core.ArrayBase) else np.asarray(x, a.dtype) for x, a in zip(leaves, avals)]
        return program, flat

    def _trace(self, static: tuple, in_tree: Any, lane_avals: list, axes: list, lanes: int,
               what: str) -> _Program:
        def rebuild(tracers: list) -> tuple[tuple, dict]:
            dyn, kw = tree_util.tree_unflatten(in_tree, tracers)
            return tuple(self._bind(static, dyn)), kw

        from . import distributed
        processes = distributed.process_count()
        size = lanes * processes  # with jaxc.distributed the axis spans every process's lanes

        def per_device(*args: Any, **kwargs: Any) -> Any:
            with binding([] if self._axis_name is None else [(self._axis_name, size)]):
                return self._fun(*args, **kwargs)

        traced = trace_function(per_device, lane_avals, rebuild,
                                f"pmap_{getattr(self._fun, '__name__', 'fn')}".replace("<", "_").replace(">", "_"))
        # an unnamed axis is marked too: the module still runs on `lanes` threads
        mark_spmd(traced.module, [(self._axis_name if self._axis_name is not None else "__pmap__", size)], processes)
        traced_out_axes = _broadcast_axes(self._out_axes, tree_util.tree_unflatten(traced.out_tree,
                                                                                   traced.out_avals),
                                          "out_axes")
        out_axes = [_normalize_out_axis(a, y, what) for a, y in zip(traced_out_axes, traced.out_avals)]
        return _Program(traced, lanes, list(axes), out_axes, lane_avals)

    def lower(self, *args: Any, **kwargs: Any) -> "PmapLowered":
        """The per-device program for these arguments (`as_text(stage=...)`);
        `.compile()` gives it as a function of the dynamic arguments."""
        static, dynamic = self._split_static(args)
        in_axes = self._in_axes
        if isinstance(in_axes, tuple) and static and len(in_axes) == len(args):
            in_axes = tuple(a for i, a in enumerate(in_axes) if i not in dict(static))
        program, _ = self._program(static, dynamic, kwargs, in_axes)
        leaves, tree = tree_util.tree_flatten((dynamic, kwargs))
        return PmapLowered(self, program, tree, [_leaf_aval(x) for x in leaves])


class PmapLowered(Lowered):
    """`pmap(f).lower(*args)`: the per-device program, shown at any stage,
    and compiled for this signature by `.compile()`."""

    def __init__(self, pmapped: PmapFunction, program: _Program, tree: Any, avals: list) -> None:
        super().__init__(program.traced)
        self._compiled = PmapCompiled(pmapped, program, tree, avals)

    def compile(self) -> "PmapCompiled":
        return self._compiled

    def export(self, path: Any, *, target: str = "cpu", chip: str | None = None) -> None:
        raise ValueError(f"{self.traced.label}: a pmap program runs on several devices at once; export "
                         "writes single-device programs (export jit(f) instead)")


class PmapCompiled(Compiled):
    """`pmap(f).lower(*args).compile()`: called with arguments like the
    dynamic ones it was lowered for (static ones are part of the program),
    it runs on the pmap's devices as a call of the pmap would, without
    looking up or tracing anything.

        c = pmap(lambda x: lax.psum(x, "i"), "i").lower(x).compile()
        c(x)           # sharded over the devices, as pmap(f)(x)
        c(x[:, :2])    # TypeError: Argument types differ ...
    """

    def __init__(self, pmapped: PmapFunction, program: _Program, tree: Any, avals: list) -> None:
        self.traced = program.traced
        self.function = program.function
        self.out_avals = program.out_avals
        self._pmapped = pmapped
        self._program = program
        self._tree = tree
        self._avals = avals
        self._devices = pmapped._lane_devices(program.lanes)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = compiled_call_leaves(self._tree, self._avals, args, kwargs)  # Arrays or NumPy of their dtypes
        return self._pmapped._run(self._program, leaves, self._devices)


class _Shape:
    """An aval seen as a value with `.shape`/`.ndim` (vmap's axis checks read those)."""

    def __init__(self, aval: ShapedArray) -> None:
        self.shape = aval.shape
        self.ndim = len(aval.shape)
        self.aval = aval


def mark_spmd(module: Any, axes: list[tuple[str, int]], processes: int = 1) -> None:
    """Give the traced module its `jaxc.spmd_axes` attribute: the mesh axes
    its lanes run over, in order, with their sizes; and, for a pmap across
    processes, `jaxc.spmd_processes` (passes/lowering/collectives.py)."""
    import mlir.ir as ir
    with module.context:
        i64 = ir.IntegerType.get_signless(64)
        attributes = module.operation.attributes
        attributes[SPMD_AXES] = ir.ArrayAttr.get(
            [ir.ArrayAttr.get([ir.StringAttr.get(name), ir.IntegerAttr.get(i64, size)]) for name, size in axes])
        if processes > 1:
            attributes["jaxc.spmd_processes"] = ir.IntegerAttr.get(i64, processes)
