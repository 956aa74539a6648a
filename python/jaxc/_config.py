"""`jaxc.config`: global switches, read and written as in JAX.

    jaxc.config.update("jax_enable_x64", True)   # 64-bit types by default
    jaxc.config.jax_enable_x64                   # -> True
    jaxc.config.update("jax_num_cpu_devices", 4) # how many CPU devices devices() lists
    jaxc.config.update("jax_compilation_cache_dir", "/tmp/jaxc-cache")  # persistent cache (None: off)

Only the options below exist; an unknown name or a value of the wrong type
raises at once. As in JAX, an environment variable named like the option in
capitals (``JAX_ENABLE_X64=1``) sets its initial value.
"""
from __future__ import annotations

import contextlib
import itertools
import os
from typing import Any

# name -> (default, type, smallest int allowed, what it does)
OPTIONS: dict[str, tuple[Any, type, int, str]] = {
    "jax_enable_x64": (False, bool, 0, "64-bit ints and floats (else they become 32-bit)"),
    "jax_num_cpu_devices": (1, int, 1, "number of CPU devices that jaxc.devices() lists"),
    "jax_disable_jit": (False, bool, 0, "jit functions run their Python code op by op (for "
                                        "debugging: print and pdb see concrete values)"),
    "jaxc_eager_opt_level": (3, int, 0, "LLVM optimization level (0-3) of eager one-op kernels; "
                                        "0 compiles about 5x faster, 3 runs faster (jit always uses 3)"),
    "jaxc_cpu_compiler": ("auto", str, 0, "what makes machine code of jit programs: 'tools' (the "
                                          "pinned opt and llc, every core), 'jit' (the process's "
                                          "own LLVM JIT, large modules on every core), 'engine' (a new MLIR "
                                          "ExecutionEngine per program) or 'auto' (jit; the "
                                          "engine for programs that call back into Python)"),
    "jaxc_cpu_threads": (0, int, 0, "threads of parallel CPU kernels (OpenMP); 0: every core "
                                    "this process may use"),
    "jaxc_cpu_pin_workers": (True, bool, 0, "pin the OpenMP workers of parallel CPU kernels to cores "
                                            "(the calling thread stays free)"),
    "jaxc_cpu_dynamic_threads": (False, bool, 0, "fork smaller OpenMP teams while other processes "
                                                "keep cores busy (else a kernel waits for a worker "
                                                "whose core is taken)"),
    # The persistent compilation cache (jaxc/runtime/compile_cache.py); a
    # None default makes None a valid value too (the cache is off).
    "jax_compilation_cache_dir": (None, str, 0, "directory of the persistent compilation cache "
                                                "(None: off)"),
    "jax_persistent_cache_min_compile_time_secs": (0.1, float, 0, "cache only programs that took "
                                                   "at least this long to compile (JAX: 1.0)"),
    "jax_persistent_cache_min_entry_size_bytes": (0, int, -1, "cache only entries at least this "
                                                  "large (0 or -1: any size)"),
    # JAX's debugging and numerics options (contexts of the same name below).
    "jax_debug_nans": (False, bool, 0, "raise FloatingPointError when a jit call or eager op "
                                       "returns a float NaN (waits for the result)"),
    "jax_debug_infs": (False, bool, 0, "raise FloatingPointError when a jit call or eager op "
                                       "returns a float inf (waits for the result)"),
    "jax_log_compiles": (False, bool, 0, "log (logging, WARNING) every jit compilation"),
    "jax_no_tracing": (False, bool, 0, "raise RuntimeError where a jit function would be traced "
                                       "(a test that nothing retraces)"),
    "jax_no_execution": (False, bool, 0, "raise RuntimeError where a jit call or eager op would run "
                                         "its compiled code (tracing and compiling still happen)"),
    "jax_default_device": (None, object, 0, "where computations and new arrays go when no "
                                            "argument is on a device: a jaxc Device, a platform "
                                            "name ('cpu', 'gpu') or None (the first CPU device)"),
    "jax_explain_cache_misses": (False, bool, 0, "log (logging, WARNING) why a jit function is "
                                                 "traced again: what differs from every earlier "
                                                 "call (argument types, pytree structure, static "
                                                 "arguments, config)"),
    "jax_numpy_rank_promotion": ("allow", str, 0, "jnp broadcasting of operands of different "
                                                  "ranks: 'allow', 'warn' or 'raise'"),
    "jax_numpy_dtype_promotion": ("standard", str, 0, "accepted ('standard', 'strict'); jaxc "
                                                      "always promotes as 'standard'"),
    "jax_default_matmul_precision": (None, str, 0, "accepted; no effect: jaxc multiplies float32 "
                                                   "in float32 (JAX's 'highest')"),
    "jax_check_tracer_leaks": (False, bool, 0, "accepted; jaxc always reports a tracer used "
                                               "after its trace (TracerLeakError)"),
    "jax_enable_checks": (False, bool, 0, "accepted; jaxc's internal checks (the IR verifier) "
                                          "always run"),
    "jax_transfer_guard": (None, str, 0, "accepted; no effect: jaxc does not guard transfers"),
    "jax_transfer_guard_host_to_device": (None, str, 0, "accepted; no effect"),
    "jax_transfer_guard_device_to_host": (None, str, 0, "accepted; no effect"),
    "jax_transfer_guard_device_to_device": (None, str, 0, "accepted; no effect"),
    # jaxc.random and jaxc.nn (contexts of the same name below).
    "jax_threefry_partitionable": (True, bool, 0, "random bits and key splits of JAX's partitionable "
                                                  "threefry (False: the bits of JAX before 0.5)"),
    "jax_array_garbage_collection_guard": (None, str, 0, "an Array freed by the cyclic garbage collector "
                                                         "instead of reference counting: 'allow' (None), "
                                                         "'log' (an error with where it was made) or "
                                                         "'fatal' (that, then abort)"),
    "jax_debug_key_reuse": (False, bool, 0, "a typed random key drawn from twice raises KeyReuseError "
                                            "(eagerly, at jit calls and within one trace; docs/random.md)"),
    "jax_default_prng_impl": ("threefry2x32", str, 0, "the PRNG implementation of keys made without "
                                                      "`impl=` and of uint32 key data (jaxc.random)"),
    "jax_legacy_prng_key": ("allow", str, 0, "a uint32 key array passed to a jaxc.random function: "
                                             "'allow', 'warn' (UserWarning) or 'error' (ValueError)"),
    "jax_enable_custom_prng": (False, bool, 0, "PRNGKey, split and fold_in return typed keys, and a uint32 "
                                               "key array passed to a jaxc.random function warns "
                                               "(FutureWarning) where jax_legacy_prng_key allows it"),
    "jax_softmax_custom_jvp": (False, bool, 0, "jaxc.nn.softmax differentiates by its custom_jvp rule "
                                               "y * (dx - sum(y * dx)) instead of through its formula"),
    "jax_allow_f16_reductions": (True, bool, 0, "False: a sum of float16/bfloat16 over an axis longer "
                                                "than 1 raises ValueError"),
}

# Options that change what tracing a function produces: part of every jit
# cache key (JAX's `include_in_jit_key`), so a function traced under one
# setting is traced again under another. `make_user_context` adds to it.
TRACE_OPTIONS = ["jax_numpy_rank_promotion", "jax_threefry_partitionable", "jax_default_prng_impl",
                 "jax_debug_key_reuse", "jax_softmax_custom_jvp",
                 "jax_allow_f16_reductions"]

_GUARDS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
# name -> the values a string option may take (JAX's enum options)
CHOICES: dict[str, tuple[str, ...]] = {
    "jax_numpy_rank_promotion": ("allow", "warn", "raise"),
    "jaxc_cpu_compiler": ("auto", "tools", "jit", "engine"),
    "jax_numpy_dtype_promotion": ("standard", "strict"),
    "jax_default_matmul_precision": ("default", "high", "highest", "bfloat16", "tensorfloat32",
                                     "float32"),
    "jax_transfer_guard": _GUARDS,
    "jax_transfer_guard_host_to_device": _GUARDS,
    "jax_transfer_guard_device_to_host": _GUARDS,
    "jax_transfer_guard_device_to_device": _GUARDS,
    "jax_legacy_prng_key": ("allow", "warn", "error"),
    "jax_default_prng_impl": ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32"),
    "jax_array_garbage_collection_guard": ("allow", "log", "fatal"),
}


def _check_device(value: Any) -> None:
    """JAX's check of `jax_default_device` (ValueError); 'tpu' is refused too."""
    from .dispatch import PLATFORMS, Device
    if not isinstance(value, Device) and value not in PLATFORMS:
        raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                         "`jaxc.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', "
                         f"got: {value!r}")


# name -> a check of a new value beyond its type (raises)
CHECKS: dict[str, Any] = {"jax_default_device": _check_device}


def _from_environment(name: str, default: Any, kind: type) -> Any:
    text = os.environ.get(name.upper())
    if text is None:
        return default
    if kind is bool:
        return text.strip().lower() in ("1", "true", "yes", "on")
    if default is None and not text:
        return None  # an empty variable leaves an optional option unset
    return text if kind is object else kind(text)


class Config:
    """The option values; `update(name, value)` changes one."""

    def __init__(self) -> None:
        values = {name: _from_environment(name, default, kind)
                  for name, (default, kind, _, _) in OPTIONS.items()}
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_listeners", [])
        for name, value in values.items():
            object.__setattr__(self, name, value)  # plain attribute reads: on the dispatch path
        self._set_trace_context()

    def _set_trace_context(self) -> None:
        """`trace_context`: the values of TRACE_OPTIONS; `_trace_context_id`:
        a small int naming it with jax_enable_x64 (bit 0), which the compiled
        jit cache (runtime/_fastcall.c) compares."""
        context = tuple(self._values[name] for name in TRACE_OPTIONS)
        object.__setattr__(self, "trace_context", context)
        ids = _TRACE_CONTEXT_IDS.setdefault(context, len(_TRACE_CONTEXT_IDS))
        object.__setattr__(self, "_trace_context_id", int(self._values["jax_enable_x64"]) | ids << 1)

    def update(self, name: str, value: Any) -> None:
        if name not in OPTIONS:
            raise AttributeError(f"jaxc.config has no option '{name}' (options: {', '.join(OPTIONS)})")
        default, kind, smallest, _ = OPTIONS[name]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # a float option takes an int, as in JAX
        optional = default is None and value is None  # an option whose default is None takes None
        if not optional and (kind in (int, float) and isinstance(value, bool) or not isinstance(value, kind)):
            expected = f"a {kind.__name__}" + (" or None" if default is None else "")
            raise TypeError(f"jaxc.config.update('{name}', {value!r}): expected {expected}")
        if name in CHOICES and not optional and value not in CHOICES[name]:
            raise ValueError(f"jaxc.config.update('{name}', {value!r}): new enum value must be "
                             + ("None or " if default is None else "") + f"in {list(CHOICES[name])}")
        if name in CHECKS and not optional:
            CHECKS[name](value)
        if kind in (int, float) and value < smallest:
            raise ValueError(f"jaxc.config.update('{name}', {value!r}): must be at least {smallest}")
        if name in TRACE_OPTIONS:
            hash(value)  # part of the jit cache key: an unhashable value raises TypeError here
        self._values[name] = value
        object.__setattr__(self, name, value)
        if name in TRACE_OPTIONS or name == "jax_enable_x64":
            self._set_trace_context()
        for listener in self._listeners:
            listener(name, value)

    def read(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"jaxc.config has no option '{name}'") from None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.read(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("use jaxc.config.update(name, value)")

    def add_option(self, name: str) -> None:
        """Take `name`, newly put in OPTIONS, at its default value."""
        default = OPTIONS[name][0]
        self._values[name] = default
        object.__setattr__(self, name, default)
        if name in TRACE_OPTIONS:
            self._set_trace_context()

    def on_update(self, listener) -> None:
        """Call `listener(name, value)` after every update (caches that depend on options)."""
        self._listeners.append(listener)


_TRACE_CONTEXT_IDS: dict[tuple, int] = {}  # trace_context -> its number, in the order first seen
config = Config()


class _OptionContext(contextlib.ContextDecorator):
    """Sets a config option for a `with` block (or a decorated function's
    calls) and puts the previous value back afterwards."""

    def __init__(self, name: str, value: Any) -> None:
        self._name, self._value = name, value
        self._saved: list[Any] = []

    def __enter__(self) -> None:
        self._saved.append(config.read(self._name))
        config.update(self._name, self._value)

    def __exit__(self, *exc: Any) -> None:
        config.update(self._name, self._saved.pop())


def enable_x64(new_val: bool = True) -> _OptionContext:
    """``with jaxc.enable_x64():`` (or ``@jaxc.enable_x64(True)``): 64-bit
    defaults inside, the previous setting after, as JAX's context manager.
    Unlike JAX's, the setting is process-wide, not per thread."""
    return _OptionContext("jax_enable_x64", new_val)


def disable_jit(disable: bool = True) -> _OptionContext:
    """``with jaxc.disable_jit():`` runs jit functions as plain Python, op by
    op, so prints and breakpoints inside them see concrete arrays (JAX's
    context manager; `lax` control flow still compiles its bodies). Like
    `enable_x64` the setting is process-wide."""
    return _OptionContext("jax_disable_jit", disable)


_NO_VALUE = object()


def _state(option: str, doc: str) -> Any:
    """JAX's context manager of `option`: ``with jaxc.NAME(value):``; a bool
    option defaults to True, the others need a value (as in JAX)."""
    def context(new_val: Any = _NO_VALUE) -> _OptionContext:
        if new_val is _NO_VALUE:
            if OPTIONS[option][1] is not bool:
                raise TypeError(f"Context manager for {context.__name__} config option requires "
                                "an argument representing the new value for the config option.")
            new_val = True
        return _OptionContext(option, new_val)
    context.__name__ = context.__qualname__ = option.removeprefix("jax_")
    context.__doc__ = f"``with jaxc.{context.__name__}(value):`` sets `{option}` inside: {doc}."
    return context


debug_nans = _state("jax_debug_nans", OPTIONS["jax_debug_nans"][3])
debug_infs = _state("jax_debug_infs", OPTIONS["jax_debug_infs"][3])
log_compiles = _state("jax_log_compiles", OPTIONS["jax_log_compiles"][3])
default_device = _state("jax_default_device", OPTIONS["jax_default_device"][3])
no_tracing = _state("jax_no_tracing", OPTIONS["jax_no_tracing"][3])
explain_cache_misses = _state("jax_explain_cache_misses", OPTIONS["jax_explain_cache_misses"][3])
numpy_rank_promotion = _state("jax_numpy_rank_promotion", OPTIONS["jax_numpy_rank_promotion"][3])
numpy_dtype_promotion = _state("jax_numpy_dtype_promotion", OPTIONS["jax_numpy_dtype_promotion"][3])
default_matmul_precision = _state("jax_default_matmul_precision",
                                  OPTIONS["jax_default_matmul_precision"][3])
check_tracer_leaks = _state("jax_check_tracer_leaks", OPTIONS["jax_check_tracer_leaks"][3])
enable_checks = _state("jax_enable_checks", OPTIONS["jax_enable_checks"][3])
transfer_guard = _state("jax_transfer_guard", OPTIONS["jax_transfer_guard"][3])
transfer_guard_host_to_device = _state("jax_transfer_guard_host_to_device", "no effect")
transfer_guard_device_to_host = _state("jax_transfer_guard_device_to_host", "no effect")
transfer_guard_device_to_device = _state("jax_transfer_guard_device_to_device", "no effect")
threefry_partitionable = _state("jax_threefry_partitionable", OPTIONS["jax_threefry_partitionable"][3])
array_garbage_collection_guard = _state("jax_array_garbage_collection_guard",
                                        OPTIONS["jax_array_garbage_collection_guard"][3])
debug_key_reuse = _state("jax_debug_key_reuse", OPTIONS["jax_debug_key_reuse"][3])
default_prng_impl = _state("jax_default_prng_impl", OPTIONS["jax_default_prng_impl"][3])
legacy_prng_key = _state("jax_legacy_prng_key", OPTIONS["jax_legacy_prng_key"][3])
enable_custom_prng = _state("jax_enable_custom_prng", OPTIONS["jax_enable_custom_prng"][3])
softmax_custom_jvp = _state("jax_softmax_custom_jvp", OPTIONS["jax_softmax_custom_jvp"][3])
allow_f16_reductions = _state("jax_allow_f16_reductions", OPTIONS["jax_allow_f16_reductions"][3])


no_execution = _state("jax_no_execution", OPTIONS["jax_no_execution"][3])


class UserContext:
    """A context whose value is part of every jit cache key, made by
    `make_user_context`: a jit function called under another value is
    traced and compiled again.

        mode = jaxc.make_user_context(default_value="fast")
        with mode("exact"):
            f(x)             # traced again if f last ran under "fast"
        mode.value           # -> "fast" again here

    The value must be hashable. Like jaxc's other contexts it is
    process-wide, not per thread."""

    def __init__(self, default_value: Any = None) -> None:
        self._option = f"jaxc_user_context_{next(_USER_CONTEXT_NUMBERS)}"
        OPTIONS[self._option] = (default_value, object, 0, "a context made by make_user_context")
        TRACE_OPTIONS.append(self._option)
        config.add_option(self._option)

    @property
    def value(self) -> Any:
        return config.read(self._option)

    def get_global(self) -> Any:
        return self.value

    def set_global(self, new_value: Any) -> None:
        config.update(self._option, new_value)

    def __call__(self, new_value: Any) -> _OptionContext:
        return _OptionContext(self._option, new_value)


_USER_CONTEXT_NUMBERS = itertools.count()  # names each context's option


def make_user_context(default_value: Any = None) -> UserContext:
    """A jit-cache-sensitive context (JAX's `jax.make_user_context`): see
    `UserContext`."""
    return UserContext(default_value)


def checking_leaks() -> _OptionContext:
    """``with jaxc.checking_leaks():`` is ``check_tracer_leaks(True)``."""
    return _OptionContext("jax_check_tracer_leaks", True)
