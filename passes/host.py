"""The CPU that code is generated for: vector width and thread count.

Read once from the host (``/proc/cpuinfo`` flags; ``os.sched_getaffinity``),
overridable for tests and cross-compilation with the environment variables
``JAXC_CPU_VECTOR_BITS`` (128, 256 or 512) and ``JAXC_CPU_THREADS``
(``jaxc.config.update("jaxc_cpu_threads", n)`` sets the latter);
``JAXC_CPU_LIBRARY_CALLS=0`` generates matrix products as loop nests instead
of calling the compiled library (passes/schedules/library.py).

    >>> host.target()
    Target(vector_bits=256, threads=2, features=('avx', 'avx2', 'fma'))
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from typing import Iterator

VECTOR_FEATURES = (("avx512f", 512), ("avx2", 256), ("sse2", 128))


@dataclasses.dataclass(frozen=True)
class Target:
    """What the schedules and the vector math library are chosen for."""

    vector_bits: int  # widest vector register: 512 (AVX-512), 256 (AVX2), 128 (SSE2)
    threads: int  # OpenMP threads of parallel kernels (1: no OpenMP)
    features: tuple[str, ...]  # CPU flags that matter to code generation
    library_calls: bool = True  # f32/f64 products call the compiled library (schedules/library.py)

    def lanes(self, element_bits: int) -> int:
        """Elements of `element_bits` in one vector register."""
        return max(1, self.vector_bits // element_bits)


@functools.lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The host CPU's feature flags (empty when /proc/cpuinfo is unreadable)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def bf16_vectors_abort() -> bool:
    """Whether LLVM 22.1.8 aborts on bf16 vectors for this CPU: with the
    AVX512-BF16 feature the X86 backend cannot legalize a `v8bf16`
    scalar_to_vector (docs/toolchain.md), so bf16 kernels are not vectorized."""
    return "avx512_bf16" in cpu_flags()


def _host_vector_bits() -> int:
    flags = cpu_flags()
    for flag, bits in VECTOR_FEATURES:
        if flag in flags:
            return bits
    return 128


def _int_env(name: str) -> int | None:
    text = os.environ.get(name, "").strip()
    return int(text) if text else None


def default_threads() -> int:
    """All cores this process may run on."""
    return len(os.sched_getaffinity(0))


_OVERRIDE: dict[str, int] = {}


@contextlib.contextmanager
def override(*, vector_bits: int | None = None, threads: int | None = None,
             library_calls: bool | None = None) -> Iterator[None]:
    """Compile for another CPU inside the block (AOT export for a named CPU);
    `library_calls=False`: generate every product as a loop nest."""
    saved = dict(_OVERRIDE)
    if library_calls is not None:
        _OVERRIDE["library_calls"] = int(library_calls)
    if vector_bits is not None:
        _OVERRIDE["vector_bits"] = vector_bits
    if threads is not None:
        _OVERRIDE["threads"] = threads
    try:
        yield
    finally:
        _OVERRIDE.clear()
        _OVERRIDE.update(saved)


# llc CPU names -> widest vector register (AOT export for a named CPU; unknown: 128, always safe).
CPU_VECTOR_BITS = {
    **dict.fromkeys(("x86-64-v3", "haswell", "broadwell", "skylake", "znver1", "znver2", "znver3",
                     "alderlake", "raptorlake", "meteorlake"), 256),
    **dict.fromkeys(("x86-64-v4", "skylake-avx512", "cascadelake", "cooperlake", "icelake-server",
                     "icelake-client", "tigerlake", "sapphirerapids", "emeraldrapids",
                     "graniterapids", "znver4", "znver5"), 512),
}


def vector_bits_of_cpu(cpu: str) -> int:
    return CPU_VECTOR_BITS.get(cpu, 128)


def target() -> Target:
    """The target of the next compilation (environment read every call: cheap)."""
    bits = _OVERRIDE.get("vector_bits") or _int_env("JAXC_CPU_VECTOR_BITS") or _host_vector_bits()
    if bits not in (128, 256, 512):
        raise ValueError(f"JAXC_CPU_VECTOR_BITS={bits}: expected 128, 256 or 512")
    threads = _OVERRIDE.get("threads") or _int_env("JAXC_CPU_THREADS") or default_threads()
    flags = cpu_flags()
    features = tuple(f for f in ("avx", "avx2", "fma", "avx512f") if f in flags)
    library = _OVERRIDE.get("library_calls")
    if library is None:
        library = os.environ.get("JAXC_CPU_LIBRARY_CALLS", "1").strip().lower() not in ("0", "false", "no", "off")
    return Target(bits, max(1, threads), features, bool(library))
