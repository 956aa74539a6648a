"""jaxc: JAX rebuilt on MLIR.

    import jaxc as jax
    import jaxc.numpy as jnp

    @jax.jit
    def f(x):
        return jnp.sin(x) ** 2 + 1.0

    f(jnp.arange(4.0))

Every program is traced into the `jaxc` dialect, lowered through linalg to
LLVM and run on the CPU; `jit(f).lower(x).as_text(stage=...)` shows each
stage. See docs/frontend.md.

The front end is loaded on first use of any of its names, so tools that
need only the dialect and the passes (`jaxc-opt`) do not pay for it.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> (module, attribute) of the public front-end API.
_API = {
    "config": ("._config", "config"),
    "enable_x64": ("._config", "enable_x64"),
    "dtypes": (".dtypes", None),
    "version": (".version", None),
    "custom_derivatives": (".custom_derivatives", None),
    "custom_batching": (".custom_batching", None),
    "export": (".export", None),
    "Array": (".array", "Array"),
    "ShapedArray": (".core", "ShapedArray"),
    "ConcretizationTypeError": (".core", "ConcretizationTypeError"),
    "TracerLeakError": (".core", "TracerLeakError"),
    "JaxcRuntimeError": (".dispatch", "JaxcRuntimeError"),
    "jit": (".api", "jit"),
    "make_ir": (".api", "make_ir"),
    "device_put": (".api", "device_put"),
    "devices": (".api", "devices"),
    "local_devices": (".api", "local_devices"),
    "device_count": (".api", "device_count"),
    "default_backend": (".api", "default_backend"),
    "block_until_ready": (".api", "block_until_ready"),
    "tree_util": (".tree_util", None),
    "flatten_util": (".flatten_util", None),
    "tree": (".tree", None),
    "debug": (".debug", None),
    "experimental": (".experimental", None),
    "pure_callback": ("._callback", "pure_callback"),
    "make_jaxpr": ("._api_more", "make_jaxpr"),
    "eval_shape": ("._api_more", "eval_shape"),
    "ShapeDtypeStruct": ("._api_more", "ShapeDtypeStruct"),
    "typeof": ("._api_more", "typeof"),
    "device_get": ("._api_more", "device_get"),
    "disable_jit": ("._config", "disable_jit"),
    "clear_caches": (".api", "clear_caches"),
    "jacobian": ("._autodiff", "jacrev"),
    "lax": (".lax", None),
    "numpy": (".numpy", None),
    "nn": (".nn", None),
    "random": (".random", None),
    "scipy": (".scipy", None),
    "ops": (".ops", None),
    "errors": (".errors", None),
    "example_libraries": (".example_libraries", None),
    "grad": ("._autodiff", "grad"),
    "value_and_grad": ("._autodiff", "value_and_grad"),
    "jvp": ("._autodiff", "jvp"),
    "vjp": ("._autodiff", "vjp"),
    "fwd_and_bwd": ("._autodiff", "fwd_and_bwd"),
    "closure_convert": ("._autodiff", "closure_convert"),
    "linearize": ("._autodiff", "linearize"),
    "jacfwd": ("._autodiff", "jacfwd"),
    "jacrev": ("._autodiff", "jacrev"),
    "hessian": ("._autodiff", "hessian"),
    "custom_jvp": ("._autodiff", "custom_jvp"),
    "custom_vjp": ("._autodiff", "custom_vjp"),
    "stop_gradient": ("._autodiff", "stop_gradient"),
    "vmap": ("._batching", "vmap"),
    "pmap": ("._pmap", "pmap"),
    "Shard": (".sharding", "Shard"),
    "shard_map": ("._shard_map", "shard_map"),
    "sharding": (".sharding", None),
    "distributed": (".distributed", None),
    "make_mesh": (".sharding", "make_mesh"),
    "set_mesh": (".sharding", "set_mesh"),
    "P": (".sharding", "PartitionSpec"),
    "NamedSharding": (".sharding", "NamedSharding"),
    "test_util": (".test_util", None),
    "profiler": (".profiler", None),
    "monitoring": (".monitoring", None),
    "live_arrays": (".profiler.memory", "live_arrays"),
    "image": (".image", None),
    "checkpoint": ("._toplevel", "checkpoint"),
    "remat": ("._toplevel", "remat"),
    "checkpoint_policies": ("._toplevel", "checkpoint_policies"),
    "ad_checkpoint": (".ad_checkpoint", None),
    "ref": (".ref", None),
    "ds": (".numpy._indexing", "ds"),
    "Ref": (".ref", "Ref"),
    "new_ref": (".ref", "new_ref"),
    "empty_ref": (".ref", "empty_ref"),
    "free_ref": (".ref", "free_ref"),
    "freeze": (".ref", "freeze"),
    "typing": (".typing", None),
    "dlpack": (".dlpack", None),
    "stages": (".stages", None),
    "Device": (".dispatch", "Device"),
    "make_array_from_callback": ("._toplevel", "make_array_from_callback"),
    "make_array_from_single_device_arrays": ("._toplevel", "make_array_from_single_device_arrays"),
    "make_array_from_process_local_data": ("._toplevel", "make_array_from_process_local_data"),
    "custom_gradient": ("._toplevel", "custom_gradient"),
    "linear_transpose": ("._toplevel", "linear_transpose"),
    "named_call": ("._toplevel", "named_call"),
    "named_scope": ("._toplevel", "named_scope"),
    "ensure_compile_time_eval": ("._toplevel", "ensure_compile_time_eval"),
    "effects_barrier": ("._toplevel", "effects_barrier"),
    "copy_to_host_async": ("._toplevel", "copy_to_host_async"),
    "local_device_count": ("._toplevel", "local_device_count"),
    "process_count": ("._toplevel", "process_count"),
    "process_index": ("._toplevel", "process_index"),
    "process_indices": ("._toplevel", "process_indices"),
    "host_count": ("._toplevel", "host_count"),
    "host_id": ("._toplevel", "host_id"),
    "host_ids": ("._toplevel", "host_ids"),
    "print_environment_info": ("._toplevel", "print_environment_info"),
    "float0": (".dtypes", "float0"),
    "debug_nans": ("._config", "debug_nans"),
    "debug_infs": ("._config", "debug_infs"),
    "log_compiles": ("._config", "log_compiles"),
    "explain_cache_misses": ("._config", "explain_cache_misses"),
    "default_device": ("._config", "default_device"),
    "no_tracing": ("._config", "no_tracing"),
    "no_execution": ("._config", "no_execution"),
    "make_user_context": ("._config", "make_user_context"),
    "default_matmul_precision": ("._config", "default_matmul_precision"),
    "numpy_rank_promotion": ("._config", "numpy_rank_promotion"),
    "numpy_dtype_promotion": ("._config", "numpy_dtype_promotion"),
    "check_tracer_leaks": ("._config", "check_tracer_leaks"),
    "checking_leaks": ("._config", "checking_leaks"),
    "enable_checks": ("._config", "enable_checks"),
    "transfer_guard": ("._config", "transfer_guard"),
    "transfer_guard_host_to_device": ("._config", "transfer_guard_host_to_device"),
    "transfer_guard_device_to_host": ("._config", "transfer_guard_device_to_host"),
    "transfer_guard_device_to_device": ("._config", "transfer_guard_device_to_device"),
    "threefry_partitionable": ("._config", "threefry_partitionable"),
    "legacy_prng_key": ("._config", "legacy_prng_key"),
    "default_prng_impl": ("._config", "default_prng_impl"),
    "debug_key_reuse": ("._config", "debug_key_reuse"),
    "array_garbage_collection_guard": ("._config", "array_garbage_collection_guard"),
    "enable_custom_prng": ("._config", "enable_custom_prng"),
    "softmax_custom_jvp": ("._config", "softmax_custom_jvp"),
    "allow_f16_reductions": ("._config", "allow_f16_reductions"),
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'jaxc' has no attribute '{name}'")
    module_name, attribute = _API[name]
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
