"""JAX's smaller top-level names: `checkpoint`/`remat` and their policies,
`custom_gradient`, `linear_transpose`, `named_call`/`named_scope`,
`ensure_compile_time_eval`, `effects_barrier`, the process and device
counts, `print_environment_info`, and the checks behind the
`jax_debug_nans`/`jax_debug_infs`/`jax_log_compiles` options.

jaxc differentiates a whole program with one MLIR pass (docs/autodiff.md),
so `checkpoint` is a `jaxc.remat` op that the pass reads: under `grad`
the values its policy does not save are recomputed in the backward sweep
(docs/autodiff.md, *Rematerialization*).
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import platform
import sys
import types
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import dispatch, tree_util
from ._config import TRACE_OPTIONS, config

# ---------------------------------------------------------------------------
# checkpoint / remat
# ---------------------------------------------------------------------------


def everything_saveable(*_: Any, **__: Any) -> bool:
    """Save every residual (as if `checkpoint` were not used)."""
    return True


def nothing_saveable(*_: Any, **__: Any) -> bool:
    """Save nothing: recompute every residual (`checkpoint`'s default)."""
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matrix products and convolutions (of products
    without batch dimensions only, with `only_if_no_batch_dims`)."""
    only_if_no_batch_dims: bool

    def __call__(self, prim: Any, *_: Any, **params: Any) -> bool:
        name = getattr(prim, "name", None)
        if self.only_if_no_batch_dims:
            if name != "dot_general":
                return False
            (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
            return not lhs_batch and not rhs_batch
        return name in ("dot_general", "conv_general_dilated")


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values named (`checkpoint_name`) with one of `names`."""
    names: frozenset

    def __call__(self, prim: Any, *_: Any, **params: Any) -> bool:
        return getattr(prim, "name", None) == "name" and params.get("name") in self.names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, except those named with one of `names`."""
    names: frozenset

    def __call__(self, prim: Any, *_: Any, **params: Any) -> bool:
        return getattr(prim, "name", None) == "name" and params.get("name") not in self.names


@dataclasses.dataclass(frozen=True)
class SaveAnythingExceptTheseNames:
    """Save any value except those named with one of `names`."""
    names: frozenset

    def __call__(self, prim: Any, *_: Any, **params: Any) -> bool:
        return getattr(prim, "name", None) != "name" or params.get("name") not in self.names


def save_only_these_names(*names_which_can_be_saved: str) -> SaveOnlyTheseNames:
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save: str) -> SaveAnyNamesButThese:
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_anything_except_these_names(*names_not_to_save: str) -> SaveAnythingExceptTheseNames:
    return SaveAnythingExceptTheseNames(frozenset(names_not_to_save))


def save_and_offload_only_these_names(*, names_which_can_be_saved: Sequence[str],
                                      names_which_can_be_offloaded: Sequence[str],
                                      offload_src: str = "device", offload_dst: str = "pinned_host",
                                      ) -> SaveOnlyTheseNames:
    """On the CPU the device is the host: offloading is saving."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved) | frozenset(names_which_can_be_offloaded))


def offload_dot_with_no_batch_dims(offload_src: str = "device", offload_dst: str = "pinned_host") -> DotsSaveable:
    """On the CPU the device is the host: offloading is saving."""
    return dots_with_no_batch_dims_saveable


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable[..., bool]:
    """A residual is saved if either policy saves it."""
    def policy(prim: Any, *args: Any, **params: Any) -> bool:
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError("The return value of the policies should be a boolean. Got:"
                             f" {out1} and {out2}. Please write a custom policy function directly,"
                             " rather than using this helper function.")
        return out1 or out2
    return policy


# JAX's namespace; the offloading policies save (on the CPU the device is the host).
checkpoint_policies = types.SimpleNamespace(
    save_and_offload_only_these_names=save_and_offload_only_these_names,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
)


def checkpoint_name(x: Any, name: str) -> Any:
    """Name the arrays of the pytree `x` for a checkpoint policy
    (`jaxc.checkpoint_name` when traced); the values are unchanged."""
    from . import core
    from ._autodiff import _emit_checkpoint_name
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a string, got {name!r}")
    if core.current_scope() is None:
        return x
    return tree_util.tree_map(lambda leaf: _emit_checkpoint_name(core.as_operand(leaf, "checkpoint_name"), name), x)


# policy object -> (the `policy` of jaxc.remat, whether it has `names`)
_IR_POLICIES = {
    everything_saveable: "everything_saveable",
    nothing_saveable: "nothing_saveable",
    dots_saveable: "dots_saveable",
    dots_with_no_batch_dims_saveable: "dots_with_no_batch_dims_saveable",
}
_NAMED_POLICIES = {SaveOnlyTheseNames: "save_only_these_names", SaveAnyNamesButThese: "save_any_names_but_these",
                   SaveAnythingExceptTheseNames: "save_anything_except_these_names"}


def _ir_policy(policy: Callable[..., bool] | None) -> tuple[str | Callable[..., bool], list[str] | None]:
    """The `policy` and `names` of the `jaxc.remat` op for a policy object;
    any other callable is returned as it is (evaluated on each op)."""
    if policy is None:
        return "nothing_saveable", None
    if type(policy) in _NAMED_POLICIES:
        assert isinstance(policy, (SaveOnlyTheseNames, SaveAnyNamesButThese, SaveAnythingExceptTheseNames))
        return _NAMED_POLICIES[type(policy)], sorted(policy.names)
    try:
        return _IR_POLICIES[policy], None
    except (KeyError, TypeError):
        return policy, None


def _static_positions(static_argnums: Any, n_args: int) -> None:
    """JAX's checks of `static_argnums` against a call with `n_args` arguments."""
    if type(static_argnums) is int:
        static_argnums = (static_argnums,)
    elif not (type(static_argnums) is tuple and all(type(d) is int for d in static_argnums)):
        raise TypeError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must be "
                        f"an int, tuple of ints or, bool, but got value {static_argnums}")
    if not all(-n_args <= d < n_args for d in static_argnums):
        raise ValueError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can only "
                         "take integer values greater than or equal to `-len(args)` and less than "
                         f"`len(args)`, but got {static_argnums}, while `len(args)` = {n_args}")


def _named_positions(fun: Callable, names: str | Sequence[str]) -> set[int]:
    """The positions of the parameters of `fun` called `names`."""
    import inspect
    if not names:
        return set()
    params = list(inspect.signature(fun).parameters)
    return {params.index(n) for n in ((names,) if isinstance(names, str) else names) if n in params}


def checkpoint(fun: Callable, *, prevent_cse: bool | Sequence[bool] = True,
               policy: Callable[..., bool] | None = None, static_argnums: int | tuple[int, ...] = (),
               static_argnames: str | Sequence[str] = (), concrete: Any = None) -> Callable:
    """`jax.checkpoint` (`jax.remat`): `fun`'s forward values are
    recomputed in the backward sweep instead of kept (except those `policy`
    saves), a memory/compute trade-off that never changes a value.

    Traced (under jit, grad, vmap...), a call is ``jaxc.remat @fun_N(...)``
    with the policy as an attribute; `jaxc-autodiff` does the recomputation
    (docs/autodiff.md). The policies of `checkpoint_policies` are named in
    the IR; any other callable is asked about each op of the traced
    function, as ``policy(prim, *avals, **params)`` with ``prim.name`` the
    JAX primitive's name. `prevent_cse=False` lets CSE merge the
    recomputation back (no memory saved: meant for scan bodies, as in JAX).
    Arguments at `static_argnums` are passed as they are (not traced)."""
    if concrete is not None:
        raise NotImplementedError("The `concrete` option to `jax.checkpoint` was deprecated in JAX "
                                  "v0.8.2, and removed in JAX v0.10.0. In its place please use "
                                  "`static_argnums`.")
    if isinstance(prevent_cse, Sequence):
        prevent_cse = tuple(prevent_cse)
    if not isinstance(prevent_cse, (tuple, bool)):
        raise TypeError(f"prevent_cse must be a bool or tuple of bools, got {type(prevent_cse)=}")
    if policy is not None and not callable(policy):
        raise TypeError(f"checkpoint: policy must be callable (see jaxc.checkpoint_policies), "
                        f"got {policy!r}")

    from ._autodiff import _resolve_kwargs, remat_call
    ir_policy, names = _ir_policy(policy)
    keep_apart = any(prevent_cse) if isinstance(prevent_cse, tuple) else prevent_cse

    @functools.wraps(fun)
    def fun_remat(*args: Any, **kwargs: Any) -> Any:
        _static_positions(static_argnums, len(args))
        args = _resolve_kwargs(fun, args, kwargs)
        # _static_positions checked it: an int or a tuple of ints
        numbers = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
        static = {d % len(args) for d in numbers} | _named_positions(fun, static_argnames)
        return remat_call(fun, args, sorted(static), ir_policy, names, keep_apart)
    return fun_remat


def remat(fun: Callable, *, prevent_cse: bool = True, policy: Callable[..., bool] | None = None,
          static_argnums: int | tuple[int, ...] = (), concrete: Any = None) -> Callable:
    """Alias of `checkpoint`."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums,
                      concrete=concrete)


# ---------------------------------------------------------------------------
# Derivatives
# ---------------------------------------------------------------------------

def custom_gradient(fun: Callable) -> Callable:
    """`fun(*args)` returns ``(value, vjp_fn)``; the function returned
    computes `value`, and its derivative maps an output cotangent `g` to
    ``vjp_fn(g)`` (a tuple with one cotangent per argument, or the one
    cotangent of a one-argument function), as `jax.custom_gradient`. Built
    on `custom_vjp`: the residuals are the arguments, and the backward rule
    calls `fun` again to get `vjp_fn` (a recomputation; values are the same)."""
    from ._autodiff import custom_vjp

    @functools.wraps(fun)
    def primal(*args: Any) -> Any:
        return fun(*args)[0]

    def fwd(*args: Any) -> Any:
        return fun(*args)[0], args

    def bwd(args: tuple, g: Any) -> tuple:
        cts = fun(*args)[1](g)
        return (cts,) if tree_util.treedef_is_leaf(tree_util.tree_structure(cts)) else cts

    wrapped = custom_vjp(primal)
    wrapped.defvjp(fwd, bwd)
    return wrapped


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: Any = ()) -> Callable:
    """The transpose of the linear function `fun` at arguments shaped like
    `primals` (arrays or `ShapeDtypeStruct`s): ``linear_transpose(f,
    x)(ct)`` is the tuple of input cotangents, one per argument. Built from
    `vjp` at zeros (for a linear `fun` its pullback is the transpose);
    linearity is not checked. Float and complex functions only."""
    from . import numpy as jnp
    from ._api_more import eval_shape
    from ._autodiff import vjp
    from .api import _leaf_aval
    from .core import ShapedArray
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    out_shape = eval_shape(fun, *primals)
    # a Python scalar stands for a weak 0-d array, as in JAX: linear_transpose(f, 1.0)
    in_leaves = [p if hasattr(p, "dtype") else _leaf_aval(p) for p in tree_util.tree_leaves(primals)]
    out_leaves, out_tree = tree_util.tree_flatten(out_shape)
    kinds = [np.dtype(x.dtype) for x in in_leaves + out_leaves]
    if not all(np.issubdtype(d, np.inexact) for d in kinds):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or complex] "
                        f"functions in jaxc, but got {[np.dtype(x.dtype) for x in in_leaves]} -> "
                        f"{[np.dtype(x.dtype) for x in out_leaves]}.")
    zeros = tree_util.tree_unflatten(tree_util.tree_structure(primals),
                                     [jnp.zeros(p.shape, p.dtype) for p in in_leaves])

    def transposed(out_cotangent: Any) -> tuple:
        cts, tree = tree_util.tree_flatten(out_cotangent)
        if tree != out_tree:
            raise TypeError(f"cotangent tree does not match function output, expected "
                            f"{tree_util.treedef_str(out_tree)} but got {tree_util.treedef_str(tree)}")
        avals = [_leaf_aval(c) for c in cts]  # a weak Python scalar takes the output's dtype
        if any(a.shape != o.shape or (a.dtype != o.dtype and not a.weak_type)
               for a, o in zip(avals, out_leaves)):
            raise TypeError("cotangent type does not match function output, expected "
                            f"{[str(ShapedArray(o.shape, o.dtype)) for o in out_leaves]} but got "
                            f"{[str(a) for a in avals]}")
        return vjp(fun, *zeros)[1](out_cotangent)
    return transposed


# ---------------------------------------------------------------------------
# Names, compile-time evaluation, effects
# ---------------------------------------------------------------------------

def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """`fun` under a name in JAX's name stack; jaxc's IR names no scopes, so
    this returns a wrapper that calls `fun` (the IR's `loc` still gives the
    source line of every op)."""
    return functools.wraps(fun)(lambda *args, **kwargs: fun(*args, **kwargs))


@contextlib.contextmanager
def named_scope(name: str) -> Any:
    """``with jaxc.named_scope("layer1"):`` (JAX adds the name to the ops'
    metadata). In jaxc it checks the name and does nothing else: the IR's
    `loc` gives each op's source line."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield


@contextlib.contextmanager
def ensure_compile_time_eval() -> Any:
    """JAX: inside `jit`, ops whose operands are all concrete run at once,
    giving concrete arrays. jaxc accepts the context and changes nothing:
    inside jit such ops are still traced (their results are abstract
    tracers; compute the values outside the jit function or pass them as
    static arguments). Outside jit, ops run eagerly anyway, and an eager
    `grad` evaluates concrete values on demand (`core.concrete`)."""
    yield


def effects_barrier() -> None:
    """Wait until every computation enqueued so far on any device has run."""
    dispatch.wait_for_all()


def copy_to_host_async(x: Any) -> Any:
    """Start the host copy of every array leaf of `x` (a leaf's
    `copy_to_host_async`; other leaves are left alone) and return `x`. jaxc's
    CPU arrays live in host memory, so their copy has nothing to move; the
    call still reaches any leaf type that defines the method."""
    from .tree_util import tree_leaves
    for leaf in tree_leaves(x):
        copy = getattr(leaf, "copy_to_host_async", None)
        if copy is not None:
            copy()
    return x


# ---------------------------------------------------------------------------
# Processes and devices (jaxc.distributed joins several)
# ---------------------------------------------------------------------------

def local_device_count(backend: str | None = None) -> int:
    from .api import local_devices
    return len(local_devices(backend=backend))


def process_count(backend: str | None = None) -> int:
    """How many processes jaxc.distributed joined (1 without it)."""
    from . import distributed
    return distributed.process_count()


def process_index(backend: str | None = None) -> int:
    """This process's index among them (its MPI rank; 0 without jaxc.distributed)."""
    from . import distributed
    return distributed.process_index()


def process_indices(backend: str | None = None) -> list[int]:
    return list(range(process_count(backend)))


host_count, host_id, host_ids = process_count, process_index, process_indices


def print_environment_info(return_string: bool = False) -> str | None:
    """The versions of jaxc, NumPy and Python, the devices and the platform,
    as `jax.print_environment_info` prints them."""
    import jaxc

    from .api import devices
    found = devices()
    kinds = ", ".join(f"{platform_}-{sum(d.platform == platform_ for d in found)}"
                      for platform_ in dict.fromkeys(d.platform for d in found))
    info = (f"jaxc:    {jaxc.__version__}\n"
            f"numpy:   {np.__version__}\n"
            f"python:  {sys.version}\n"
            f"device info: {kinds}, {len(found)} local devices\n"
            f"process_count: {process_count()}\n"
            f"platform: {platform.uname()}\n")
    if return_string:
        return info
    print(info)
    return None


# ---------------------------------------------------------------------------
# jax_debug_nans / jax_debug_infs / jax_log_compiles
# ---------------------------------------------------------------------------

logger = logging.getLogger("jaxc")


def check_finite(values: Sequence[Any], what: str) -> None:
    """Under `jax_debug_nans` / `jax_debug_infs`: raise JAX's
    FloatingPointError when a float result of `what` (an op or a jit
    function) holds a NaN / an inf. Waits for the values."""
    nans, infs = config.jax_debug_nans, config.jax_debug_infs
    if not (nans or infs):
        return
    for value in values:
        array = np.asarray(value)
        if not np.issubdtype(array.dtype, np.inexact):
            continue
        if nans and np.isnan(array).any():
            raise FloatingPointError(f"invalid value (nan) encountered in {what}")
        if infs and np.isinf(array).any():
            raise FloatingPointError(f"invalid value (inf) encountered in {what}")


def log_compile(what: str) -> None:
    """Under `jax_log_compiles`: log that `what` is being compiled (JAX logs
    "Compiling <name> ..." at WARNING level when the option is on)."""
    if config.jax_log_compiles:
        logger.warning("Compiling %s", what)


_MISS_CALLSITES: set[str] = set()  # where an unseen function was traced (explain_cache_miss)


def explain_cache_miss(fun: Any, positional: Sequence[str], static_argnums: frozenset[int], key: tuple,
                       earlier: Sequence[tuple], seconds: float) -> None:
    """Under `jax_explain_cache_misses`: log (WARNING, as JAX does) why the
    jit function of Python function `fun` was traced for cache key
    `key` = (pytree of the dynamic arguments, their avals, static arguments,
    `dtypes.trace_context()`): never seen before, or what differs from the closest `earlier` keys.
    `positional` names fun's positional parameters, `static_argnums` are static.

        TRACING CACHE MISS at train.py:12 (step) costing 3.1 ms because:
          for step defined at model.py:40
          all previously seen cache keys are different. Closest previous key:
          * key with different input types:
              at params['w'], now float32[3,4] and before float32[2,4]
    """
    if not config.jax_explain_cache_misses:
        return
    import inspect

    from . import core
    filename, line, _ = core.user_frame()
    callsite = f"{filename}:{line}"
    try:
        defined = f" defined at {inspect.getsourcefile(fun)}:{inspect.getsourcelines(fun)[1]}"
    except (TypeError, OSError):
        defined = ""
    label = getattr(fun, "__name__", type(fun).__name__)
    names = _ArgumentNames(list(positional), static_argnums)
    lines = [f"TRACING CACHE MISS at {callsite} ({label}) costing {seconds * 1e3:.3f} ms because:"]
    if not earlier:
        lines.append(f"  never seen function:\n    {label} id={id(fun)}{defined}")
        if callsite in _MISS_CALLSITES:
            lines.append("  but seen another function defined on the same line; maybe the function is\n"
                         "  being re-defined repeatedly, preventing caching?")
        _MISS_CALLSITES.add(callsite)
    else:
        lines.append(f"  for {label}{defined}")
        diffs = [_key_differences(key, other, names) for other in earlier]
        fewest = min(len(d) for d in diffs)
        closest = [d for d in diffs if len(d) == fewest]
        lines.append("  all previously seen cache keys are different. " +
                     ("Closest previous key:" if len(closest) == 1 else "Several previous keys are closest:"))
        for diff in closest:
            lines += ["  * key with " + d.replace("\n", "\n    ") for d in diff]
    logger.warning("\n".join(lines))


@dataclasses.dataclass
class _ArgumentNames:
    """How explain_cache_miss names a jit function's arguments."""
    positional: list[str]
    static_argnums: frozenset[int]

    def static(self, where: int | str) -> str:
        """A static argument: by position (into `positional`) or keyword."""
        if isinstance(where, str):
            return where
        return self.positional[where] if where < len(self.positional) else f"args[{where}]"

    def dynamic(self, index: int) -> str:
        """The `index`-th positional argument that is not static."""
        names = [n for i, n in enumerate(self.positional) if i not in self.static_argnums]
        return names[index] if index < len(names) else f"args[{index}]"


def _key_differences(key: tuple, other: tuple, names: _ArgumentNames) -> list[str]:
    """What differs between two jit cache keys, one sentence each."""
    tree, avals, statics, context = key
    other_tree, other_avals, other_statics, other_context = other
    found = []
    options = ("jax_enable_x64", *TRACE_OPTIONS)
    changed = [f"{name} now {now} and before {then}"
               for name, now, then in zip(options, context, other_context) if now != then]
    if changed:
        found.append(f"different tracing context ({', '.join(changed)}), e.g. due to config or context manager")
    if tree != other_tree:
        found.append(f"different input pytree structure:\n  now {tree}\n  and before {other_tree}")
    elif avals != other_avals:
        paths = _leaf_paths(tree, names)
        changed = [f"at {path}, now {now.str_short()}{', weak_type' if now.weak_type else ''} and before "
                   f"{then.str_short()}{', weak_type' if then.weak_type else ''}"
                   for path, now, then in zip(paths, avals, other_avals) if now != then]
        found.append("different input types:\n  " + "\n  ".join(changed))
    if statics != other_statics:
        now, then = dict(statics), dict(other_statics)
        for where in sorted(set(now) | set(then), key=str):
            if now.get(where) != then.get(where):
                found.append(f"different value of static argument {names.static(where)}: now "
                             f"{_static_repr(now.get(where))} and before {_static_repr(then.get(where))}")
    return found


def _static_repr(static: Any) -> str:
    return "(absent)" if static is None else repr(static.value)


def _leaf_paths(tree: Any, names: _ArgumentNames) -> list[str]:
    """The place of each leaf of the (dynamic args, kwargs) pytree `tree`:
    the parameter's name or keyword, then the path inside it (``w['b']``)."""
    from . import tree_util
    leaves = tree_util.tree_unflatten(tree, list(range(tree.num_leaves)))
    paths = [""] * tree.num_leaves
    for path, index in tree_util.tree_flatten_with_path(leaves)[0]:
        part, where, inner = path[0].idx, path[1], tree_util.keystr(path[2:])
        if part == 0:
            paths[index] = names.dynamic(where.idx) + inner
        else:
            paths[index] = str(getattr(where, "key", where)) + inner
    return paths


def check_rank_promotion(fn: str, shapes: Sequence[Sequence[int]]) -> None:
    """Under `jax_numpy_rank_promotion` 'warn' / 'raise': JAX's warning /
    ValueError when jnp function `fn` broadcasts non-scalar operands of
    different ranks (scalars never count)."""
    mode = config.jax_numpy_rank_promotion
    if mode == "allow" or len({len(s) for s in shapes if len(s)}) < 2:
        return
    shown = " ".join(str(tuple(s)) for s in shapes)
    if mode == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {fn} on shapes {shown}. Set the "
                      "jax_numpy_rank_promotion config option to 'allow' to disable this warning; "
                      "for more information, see "
                      "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    else:
        raise ValueError(f"Operands could not be broadcast together for {fn} on shapes {shown} and "
                         "with the config option jax_numpy_rank_promotion='raise'. For more "
                         "information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


# ---------------------------------------------------------------------------
# Arrays from callbacks
# ---------------------------------------------------------------------------

def make_array_from_callback(shape: Sequence[int], sharding: Any, data_callback: Callable[[Any], Any],
                             dtype: Any = None) -> Any:
    """An Array of `shape` placed by `sharding`, whose data
    `data_callback(index)` gives, as JAX's: the callback is called once per
    device of the sharding with the index of that device's shard (a tuple of
    slices, one per dimension) and returns the shard's data."""
    shape = tuple(int(d) for d in shape)
    if process_count() != 1:
        return _callback_across_processes(shape, sharding, data_callback, dtype)
    parts = [(device, index, data_callback(index)) for device, index in _indices(sharding, shape,
                                                                               "make_array_from_callback")]
    return _assemble(shape, sharding, parts, dtype, "make_array_from_callback", "the callback returned")


def _callback_across_processes(shape: tuple[int, ...], sharding: Any, data_callback: Callable[[Any], Any],
                               dtype: Any) -> Any:
    """make_array_from_callback in one of several processes: the callback
    is called for this process's devices only (as in JAX), their shards
    making this process's part of an array spanning the processes."""
    from ._global_array import local_shape, process_dimension, result
    what = "make_array_from_callback"
    _check_process_sharding(sharding, what)
    dim = process_dimension(sharding, len(shape))
    part = local_shape(shape, dim, process_count())
    offset = 0 if dim is None else process_index() * part[dim]
    mine = {d.id for d in dispatch.devices()}
    parts = ((device, index, data_callback(index)) for device, index in _indices(sharding, shape, what)
             if device.id in mine)
    buffer = _filled(shape, parts, dtype, what, "the callback returned", part, dim, offset)
    return result(buffer, shape, sharding, dim)


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Any, arrays: Sequence[Any], *,
                                         dtype: Any = None) -> Any:
    """The Array of `shape` placed by `sharding` whose shards are `arrays`,
    one single-device Array per device of the sharding (each goes where its
    device's shard is), as JAX's."""
    shape = tuple(int(d) for d in shape)
    indices = dict(_indices(sharding, shape, "make_array_from_single_device_arrays"))
    arrays = list(arrays)
    if len(arrays) != len(indices):
        raise ValueError(f"make_array_from_single_device_arrays: the sharding has {len(indices)} devices, "
                         f"but {len(arrays)} arrays were given (one per device)")
    parts = []
    for i, array in enumerate(arrays):
        devices = array.devices() if hasattr(array, "devices") else set()
        device = next(iter(devices)) if len(devices) == 1 else None
        if device not in indices:
            raise ValueError(f"make_array_from_single_device_arrays: arrays[{i}] is on {sorted(devices, key=str)}, "
                             "not on one device of the sharding")
        parts.append((device, indices.pop(device), array))
    return _assemble(shape, sharding, parts, dtype, "make_array_from_single_device_arrays", "got")


def make_array_from_process_local_data(sharding: Any, local_data: Any,
                                       global_shape: Sequence[int] | None = None) -> Any:
    """The Array placed by `sharding` from this process's data, as JAX's. In
    one process the local data is all of it (`global_shape`, if given, must
    be its shape). Under `jaxc.distributed`, with a NamedSharding whose mesh
    spans the processes (its first axis split among them): each process
    passes its rows along the dimension the sharding splits over that axis,
    and gets a GlobalArray of the global shape (`_global_array.py`); a
    sharding that does not split over the processes takes the whole value
    from every process."""
    from .api import device_put
    local = np.asarray(local_data)
    shape = local.shape if global_shape is None else tuple(int(d) for d in global_shape)
    if process_count() != 1:
        return _process_local_data(sharding, local, global_shape)
    if shape != local.shape:
        raise ValueError(f"make_array_from_process_local_data: in one process the local data is the whole "
                         f"array, but its shape {local.shape} is not global_shape {shape}")
    return device_put(local, sharding)


def _process_local_data(sharding: Any, local: np.ndarray, global_shape: Sequence[int] | None) -> Any:
    """make_array_from_process_local_data in one of several processes."""
    from ._global_array import process_dimension, result
    what = "make_array_from_process_local_data"
    _check_process_sharding(sharding, what)
    dim = process_dimension(sharding, local.ndim)
    shape = list(local.shape)
    if dim is not None:
        shape[dim] *= process_count()
    if global_shape is not None and tuple(int(d) for d in global_shape) != tuple(shape):
        raise ValueError(f"{what}: global_shape {tuple(global_shape)} does not match this process's data "
                         f"{local.shape} split over {process_count()} processes along dimension {dim} "
                         f"(global shape {tuple(shape)})")
    sharding.shard_shape(tuple(shape))  # the global shape must divide among the devices
    return result(local, shape, sharding, dim)  # replicated over the processes: an Array


def _check_process_sharding(sharding: Any, what: str) -> None:
    """With several processes: `sharding` must be a NamedSharding on a mesh
    of every process's devices, laid out as `check_process_mesh` wants."""
    from ._global_array import check_process_mesh, spans_processes
    from .sharding import NamedSharding
    if not isinstance(sharding, NamedSharding) or not spans_processes(sharding.mesh):
        raise ValueError(f"{what}: with {process_count()} processes the sharding must be a NamedSharding "
                         f"on a mesh of every process's devices (got {sharding!r})")
    check_process_mesh(sharding.mesh, what)


def _indices(sharding: Any, shape: tuple[int, ...], what: str) -> list[tuple[Any, tuple]]:
    """(device, index of its shard) for every device of `sharding`."""
    from .sharding import Sharding
    if not isinstance(sharding, Sharding):
        raise TypeError(f"{what}: expected a jaxc.sharding.Sharding, got {type(sharding).__name__}")
    return list(sharding.devices_indices_map(shape).items())


def _filled(shape: tuple[int, ...], parts: Any, dtype: Any, what: str, verb: str,
            part: tuple[int, ...] | None = None, dim: int | None = None, offset: int = 0) -> np.ndarray:
    """A buffer of `shape` filled from (device, index, data) parts; with
    `part`, only the slab of that shape starting at `offset` along `dim`
    (this process's part of an array spanning processes)."""
    buffer = None
    for device, index, data in parts:
        data = np.asarray(data, dtype=dtype)
        want = np.empty(shape, np.bool_)[index].shape
        if data.shape != want:
            raise ValueError(f"{what}: {verb} an array of shape {data.shape} for the shard {index} of "
                             f"{device}, whose shape is {want}")
        if buffer is None:
            buffer = np.empty(shape if part is None else part, data.dtype)
        elif data.dtype != buffer.dtype:
            raise ValueError(f"{what}: {verb} shards of dtypes {buffer.dtype} and {data.dtype}")
        here = list(index)
        if dim is not None:
            here[dim] = slice(index[dim].start - offset, index[dim].stop - offset)
        buffer[tuple(here)] = data
    if buffer is None:
        raise ValueError(f"{what}: none of the sharding's devices is here")
    return buffer


def _assemble(shape: tuple[int, ...], sharding: Any, parts: list, dtype: Any, what: str, verb: str) -> Any:
    """One global buffer from (device, index, data) parts; placed by `sharding`."""
    from .api import device_put
    from .sharding import SingleDeviceSharding
    buffer = _filled(shape, parts, dtype, what, verb)
    if isinstance(sharding, SingleDeviceSharding):
        return device_put(buffer, next(iter(sharding.device_set)))
    return device_put(buffer, sharding)
