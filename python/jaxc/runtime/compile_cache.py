"""The persistent compilation cache: machine code on disk, so that a second
process does not compile again (JAX's ``jax_compilation_cache_dir``).

    jaxc.config.update("jax_compilation_cache_dir", "/tmp/jaxc-cache")  # or JAX_COMPILATION_CACHE_DIR
    f = jaxc.jit(step); f(*args)   # compiles, then writes an entry in the background
    # ... a later process with the same setting: f(*args) loads the entry (milliseconds)

Off by default (the directory is None). Only CPU programs are cached.

An entry is one file, ``jaxc-<sha256 of the key>.so``: the shared library
that compiled the module (`llvm_tools.build_library`), or, for a module the
execution engine compiled (created with ``enable_pic`` and
``enable_object_dump``), one linked (``cc -shared``) from its object code,
followed by a trailer that the dynamic loader ignores:

    <ELF shared library> <metadata JSON> <u64 length of the JSON> b"jaxc-cache-v1\\0\\0\\0"

The metadata holds the whole key, the function signatures, whether the code
forks OpenMP teams, the size and the SHA-256 of the library. A load reads the file, checks the trailer, compares
the key (never loads an entry whose key differs) and the digest (a truncated
or damaged file), then ``dlopen``s it (``RTLD_LOCAL``) after the runtime
libraries (`cpu.runtime_libraries`, ``RTLD_GLOBAL``, as the execution engine
loads them). The library has the engine's own entry points: the packed
wrapper ``_mlir__mlir_ciface_NAME(void **)`` that `cpu.Function` calls, so
`cpu.Executable` works on a `CachedLibrary` as on an engine.

The key (`key_for`): the module text without its debug locations (as JAX's
key: the same function jitted from another line, whose text differs only in
``loc(...)``, loads the same entry; nothing compiled reads a location), its
first stage, the opt level and the target; the jaxc version and this file's format number; the pinned toolchain
wheels (``xtc_*`` dist-info names); a digest of every file of the
`jaxc.passes` and `jaxc.dialect` packages (the stage pipelines of
``passes/stages.py``, the Python passes, the transform schedules; the
dialect library by size and time), so editing a pass misses; the host CPU (``/proc/cpuinfo`` model name and flags, the
number of usable cores); every ``jaxc.config`` option whose name starts with
``jaxc_cpu`` and every ``JAXC_CPU*`` environment variable.

Writing: after a compilation that took at least
``jax_persistent_cache_min_compile_time_secs`` (jaxc default 0.1 s), a
background thread dumps the object, links it (about 20-30 ms) and writes the
entry to a temporary name in the directory, then ``os.replace``s it: readers
see a whole entry or none, concurrent writers of one key each replace it with
an equal entry, and an interrupted process leaves at most a ``.tmp-*`` file
(never loaded; `clear` removes it). The threads are not daemons, so the
interpreter finishes them before it exits; `wait` joins them.

Failures never raise: an unreadable, damaged or mismatched entry warns
(`CompilationCacheWarning`, naming the path) and the module is compiled (and
the entry rewritten); a directory that cannot be created or written warns
once per directory. A missing directory is created on the first write.
"""
from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import importlib.util
import json
import os
import platform
import re
import struct
import threading
import time
import warnings
import weakref
from typing import Any, Callable

from .. import monitoring
from . import llvm_tools

FORMAT_VERSION = 1
MAGIC = b"jaxc-cache-v1\0\0\0"
PREFIX, SUFFIX = "jaxc-", ".so"
_LENGTH = struct.Struct("<Q")


class CompilationCacheWarning(UserWarning):
    """Something in the persistent compilation cache could not be used."""


# Counters, for tests and for curiosity: `stats()` returns a copy.
_STATS = {"hits": 0, "misses": 0, "writes": 0, "write_errors": 0, "skipped": 0, "bad_entries": 0}
_STATS_LOCK = threading.Lock()


def stats() -> dict[str, int]:
    """hits (entries loaded), misses (no usable entry), writes (entries
    written), write_errors, skipped (not written: compiled too quickly or too
    small), bad_entries (unreadable, damaged or mismatched entries)."""
    with _STATS_LOCK:
        return dict(_STATS)


def _count(name: str) -> None:
    with _STATS_LOCK:
        _STATS[name] += 1
    if name in monitoring.CACHE_EVENTS:  # hits, misses: JAX's events too
        monitoring.record_event(monitoring.CACHE_EVENTS[name])


# ----------------------------------------------------------------------------
# Settings
# ----------------------------------------------------------------------------

def cache_dir() -> str | None:
    """The cache directory (``jax_compilation_cache_dir``), or None when off."""
    from jaxc._config import config

    path = config.jax_compilation_cache_dir
    return os.path.abspath(os.path.expanduser(path)) if path else None


def enabled(target: str = "cpu") -> bool:
    """Whether compilations for `target` use the cache (`Target.disk_cache`: the CPU's)."""
    from jaxc.passes import stages
    return stages.target_named(target).disk_cache and cache_dir() is not None


# ----------------------------------------------------------------------------
# Keys
# ----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CacheKey:
    """Everything that decides the machine code of one compilation."""

    fields: dict  # JSON-able; stored in the entry and compared on load
    digest: str  # sha256 of `text`: the entry's file name

    @property
    def text(self) -> str:
        return _canonical(self.fields)


def _canonical(fields: dict) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


# What MLIR's printer writes for locations: alias definitions on lines of
# their own and `loc(#locN)` / `loc(unknown)` after an op or block argument.
# Any other location form stays in the text (a miss, never a wrong hit).
_LOCATION_ALIAS = re.compile(r"^#loc[0-9]*\s*=\s*loc\(.*\)[ \t]*\n?", re.M)
_LOCATION_USE = re.compile(r" loc\((?:#loc[0-9]*|unknown)\)")


def without_locations(module_text: str) -> str:
    """`module_text` with its debug locations removed:

        %0 = jaxc.sin %arg0 : tensor<3xf32> loc(#loc1)     ->   %0 = jaxc.sin %arg0 : tensor<3xf32>
        #loc1 = loc("script.py":3:26)                      ->   (gone)
    """
    return _LOCATION_USE.sub("", _LOCATION_ALIAS.sub("", module_text))


def key_for(module_text: str, first_stage: str | None = None, opt_level: int = 3,
            target: str = "cpu") -> CacheKey:
    """The key of compiling `module_text` (from `first_stage`; None: traced)
    at LLVM -O`opt_level` for `target`, in this process's environment."""
    module_text = without_locations(module_text)
    fields = {
        "format": FORMAT_VERSION,
        "module_sha256": hashlib.sha256(module_text.encode()).hexdigest(),
        "module_size": len(module_text),
        "first_stage": first_stage,
        "opt_level": opt_level,
        "target": target,
        **_static_environment(),
        "cpu_options": _cpu_options(),
    }
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=repr)
    return CacheKey(json.loads(text), hashlib.sha256(text.encode()).hexdigest())


def entry_path(key: CacheKey, directory: str | None = None) -> str:
    """Where the entry of `key` lives in `directory` (default: the configured one)."""
    directory = directory or cache_dir()
    if directory is None:
        raise ValueError("the compilation cache is off: set jax_compilation_cache_dir")
    return os.path.join(directory, PREFIX + key.digest + SUFFIX)


_STATIC: dict[str, Any] = {}
_STATIC_LOCK = threading.Lock()


def _static_environment() -> dict[str, Any]:
    """The parts of the key that cannot change within a process (computed once)."""
    with _STATIC_LOCK:
        if not _STATIC:
            import jaxc

            _STATIC.update(jaxc_version=jaxc.__version__, toolchain=_toolchain_versions(),
                           sources=_package_digest(("jaxc.passes", "jaxc.dialect")),
                           host=_host_cpu())
        return dict(_STATIC)


def _cpu_options() -> dict[str, Any]:
    """Options that may change code, read generically: every ``jaxc_cpu*``
    config option, every ``JAXC_CPU*`` environment variable and the cores
    this process may use (the default thread count of parallel kernels)."""
    from jaxc._config import OPTIONS, config

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return {
        "config": {name: config.read(name) for name in sorted(OPTIONS) if name.startswith("jaxc_cpu")},
        "environment": {name: value for name, value in sorted(os.environ.items())
                        if name.upper().startswith("JAXC_CPU")},
        "cores": cores,
    }


def _toolchain_versions() -> list[str]:
    """The ``xtc_*`` dist-info names (pinned MLIR/LLVM wheels and their
    versions) beside the `mlir` package: one directory listing, no metadata scan."""
    import mlir

    found: set[str] = set()
    for root in mlir.__path__:
        site = os.path.dirname(os.path.abspath(root))
        try:
            found.update(name for name in os.listdir(site)
                         if name.startswith("xtc_") and name.endswith(".dist-info"))
        except OSError:
            pass
    return sorted(found)


_HASHED_SIZE = 1 << 20


def _package_digest(packages: tuple[str, ...]) -> str:
    """SHA-256 over the names and contents of every file of `packages`
    (found without importing them; ``__pycache__`` left out); a file over
    1 MiB (the dialect library) counts by size and modification time."""
    digest = hashlib.sha256()
    for package in packages:
        spec = importlib.util.find_spec(package)
        for root in sorted(spec.submodule_search_locations or []) if spec else []:
            for directory, subdirs, files in os.walk(root):
                subdirs[:] = sorted(d for d in subdirs if d != "__pycache__" and not d.startswith("."))
                for name in sorted(files):
                    if name.startswith(".") or name.endswith((".pyc", ".pyo")):
                        continue
                    path = os.path.join(directory, name)
                    digest.update(os.path.relpath(path, root).encode() + b"\0")
                    try:
                        info = os.stat(path)
                        if info.st_size > _HASHED_SIZE:  # the dialect library: rebuilt, it is newer
                            digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
                            continue
                        with open(path, "rb") as f:
                            digest.update(hashlib.sha256(f.read()).digest())
                    except OSError:
                        digest.update(b"unreadable")
    return digest.hexdigest()


def _host_cpu() -> dict[str, str]:
    """The host CPU: machine, model name and feature flags (Linux: /proc/cpuinfo)."""
    info = {"machine": platform.machine(), "model": "", "flags": ""}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                name, _, value = line.partition(":")
                name = name.strip()
                if name == "model name" and not info["model"]:
                    info["model"] = value.strip()
                elif name == "flags" and not info["flags"]:
                    info["flags"] = " ".join(sorted(value.split()))
                elif not line.strip() and info["flags"]:
                    break  # the first processor is enough
    except OSError:
        info["model"] = platform.processor()
    return info


# ----------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------

class CachedLibrary:
    """A shared library of compiled code loaded with ctypes: a cache entry, or
    the library `llvm_tools` just built. `raw_lookup` answers as the execution
    engine's does (the packed wrapper ``_mlir_`` + name), so `cpu.Executable`
    takes it in place of an engine; it keeps the library loaded."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.library = ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
        # ctypes never unloads: the machine code goes with the last Executable
        # that uses it (as an execution engine's does); at exit it stays (a
        # daemon thread may still run it). (The ignore: typeshed gives finalize
        # empty __slots__, so mypy rejects setting its `atexit` attribute.)
        weakref.finalize(self, _dlclose, self.library._handle).atexit = False  # type: ignore[misc]

    def raw_lookup(self, name: str) -> int:
        try:
            return ctypes.cast(self.library["_mlir_" + name], ctypes.c_void_p).value or 0
        except AttributeError:
            return 0

    def __repr__(self) -> str:
        return f"<jaxc compiled library {self.path}>"


def _dlclose(handle: int) -> None:
    import _ctypes
    _ctypes.dlclose(handle)


_RUNTIME_PATHS: list[str] = []  # cpu.runtime_libraries(), asked once
_RUNTIME_LOADED: dict[str, ctypes.CDLL] = {}  # basename -> library
# Found by the dynamic loader on its own (glibc, libgcc, libstdc++).
_SYSTEM_LIBRARIES = frozenset({"libc.so.6", "libm.so.6", "libmvec.so.1", "libpthread.so.0", "libdl.so.2",
                               "librt.so.1", "libgcc_s.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2"})


def load_runtime_libraries(needed: list[str]) -> None:
    """Load, global (as the execution engine loads them), the libraries of
    `cpu.runtime_libraries()` that an entry needs (its DT_NEEDED names):
    OpenMP's ``__kmpc_*`` (asking `cpu.runtime_libraries` also applies the
    thread count), memrefCopy of MLIR's runner utilities; every one of them
    when the entry needs a library that one of them brings along
    (libmlir_float16_utils). An entry needing only system libraries loads
    none: the runner utilities pull in libMLIR and libLLVM (50 ms)."""
    from . import cpu

    extra = set(needed) - _SYSTEM_LIBRARIES
    if not extra:
        return
    with _STATIC_LOCK:
        if not _RUNTIME_PATHS:
            _RUNTIME_PATHS.extend(cpu.runtime_libraries())
        names = {os.path.basename(path) for path in _RUNTIME_PATHS}
        for path in _RUNTIME_PATHS:
            name = os.path.basename(path)
            if (name in extra or extra - names) and name not in _RUNTIME_LOADED:
                _RUNTIME_LOADED[name] = ctypes.CDLL(path, mode=os.RTLD_GLOBAL | os.RTLD_NOW)


def needed_libraries(elf: bytes) -> list[str]:
    """The DT_NEEDED names of an x86-64 ELF shared library (its dynamic
    section read through the program headers); ValueError if it is not one."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize)
        if p_type == 1:  # PT_LOAD
            loads.append((vaddr, offset, filesz))
        elif p_type == 2:  # PT_DYNAMIC
            dynamic = (offset, filesz)
    if dynamic is None:
        return []
    needed, strtab = [], None
    for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", elf, at)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED: an offset into the string table
            needed.append(value)
        elif tag == 5:  # DT_STRTAB: a virtual address
            strtab = next((value - vaddr + offset for vaddr, offset, size in loads
                           if vaddr <= value < vaddr + size), None)
    if needed and strtab is None:
        raise ValueError("no string table for DT_NEEDED")
    return [elf[strtab + n:elf.index(b"\0", strtab + n)].decode() for n in needed]


def load(key: CacheKey, build: Callable[[CachedLibrary, dict[str, Any], bool], Any]) -> Any:
    """``build(library, signatures, parallel)`` for `key`'s entry, or None
    (counted as a miss; a bad entry also warns). `signatures` are as stored:
    ``{name: (args, results)}``, each a list of ``(shape, element_type)``;
    `parallel`: whether the code forks OpenMP teams; an exception of `build`
    (a missing function, a bad signature) makes the entry bad."""
    monitoring.record_event(monitoring.CACHE_EVENTS["requests"])
    started = time.perf_counter()
    path = entry_path(key)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):
        _count("misses")  # no entry, or no directory yet (a write creates it or warns)
        return None
    except OSError as error:
        if not os.path.isfile(path):  # the directory itself: say so once
            _count("misses")
            _warn_once(os.path.dirname(path), f"cannot read from {os.path.dirname(path)}: {error}; "
                       "programs are compiled", stacklevel=4)
            return None
        return _bad_entry(path, f"cannot read it ({error})")
    meta, why = _parse_entry(data)
    if meta is None:
        return _bad_entry(path, why)
    if _canonical(meta["key"]) != key.text:
        return _bad_entry(path, "its key differs from the program's (a stale or foreign entry)")
    try:
        load_runtime_libraries(meta["needed"])
        library = CachedLibrary(path)
    except OSError as error:
        return _bad_entry(path, f"the dynamic loader refused it ({error})")
    try:
        loaded = build(library, meta["signatures"], meta.get("parallel", True))
    except Exception as error:  # noqa: BLE001 -- any failure means: compile instead
        return _bad_entry(path, f"unusable ({type(error).__name__}: {error})")
    _count("hits")
    retrieval = time.perf_counter() - started
    saved = meta.get("compile_seconds", 0.0) - retrieval
    monitoring.record_event_duration_secs(monitoring.CACHE_EVENTS["saved"], saved)
    monitoring.record_event_duration_secs(monitoring.CACHE_EVENTS["retrieval"], retrieval)
    return loaded


def _parse_entry(data: bytes) -> tuple[dict | None, str]:
    """The metadata of an entry's bytes, or None and why not."""
    if len(data) < len(MAGIC) + _LENGTH.size or not data.endswith(MAGIC):
        return None, "truncated or not a jaxc cache entry (no trailer)"
    end = len(data) - len(MAGIC)
    (length,) = _LENGTH.unpack_from(data, end - _LENGTH.size)
    start = end - _LENGTH.size - length
    if start < 0:
        return None, "truncated (bad trailer length)"
    try:
        meta = json.loads(data[start:end - _LENGTH.size])
        size, digest = meta["library_size"], meta["library_sha256"]
        meta["key"], meta["signatures"], meta["needed"]  # noqa: B018 -- must be present
    except (ValueError, KeyError, TypeError):
        return None, "damaged metadata"
    if size != start or hashlib.sha256(data[:start]).hexdigest() != digest:
        return None, "damaged or truncated library (its SHA-256 differs)"
    return meta, ""


def _bad_entry(path: str, why: str) -> None:
    _count("bad_entries")
    _count("misses")
    warnings.warn(f"jaxc compilation cache: ignoring {path}: {why}; compiling instead",
                  CompilationCacheWarning, stacklevel=4)
    return None


# ----------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------

_WARNED_DIRS: set[str] = set()
_WRITERS: list[threading.Thread] = []
_WRITE_LOCK = threading.Lock()  # one link at a time: the machine has few cores
_WRITERS_LOCK = threading.Lock()


def store(key: CacheKey, engine: Any, signatures: dict[str, Any], compile_seconds: float,
          parallel: bool = True) -> bool:
    """Write the entry of `key` from `engine` (an ExecutionEngine created with
    ``enable_object_dump=True, enable_pic=True`` whose functions were looked
    up, or the bytes of a shared library that `llvm_tools` linked) in a
    background thread. `signatures`: ``{name: (args, results)}`` of
    `cpu.ArgSpec`; `parallel`: whether the code forks OpenMP teams. False
    when nothing will be written (compiled faster than
    ``jax_persistent_cache_min_compile_time_secs``, or the directory is
    unusable: warned once)."""
    from jaxc._config import config

    directory = cache_dir()
    if directory is None or not signatures:
        return False
    if compile_seconds < config.jax_persistent_cache_min_compile_time_secs:
        _count("skipped")
        return False
    try:
        os.makedirs(directory, exist_ok=True)
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK | os.X_OK):
            raise PermissionError("not a writable directory")
    except OSError as error:
        _unwritable(directory, error, stacklevel=3)
        return False
    meta = {"key": key.fields,
            "signatures": {name: ([[list(s.shape), s.element_type] for s in args],
                                  [[list(s.shape), s.element_type] for s in results])
                           for name, (args, results) in signatures.items()},
            "compile_seconds": round(compile_seconds, 4), "parallel": parallel}
    thread = threading.Thread(target=_write_entry, args=(entry_path(key, directory), engine, meta),
                              name="jaxc-compile-cache-writer", daemon=False)
    with _WRITERS_LOCK:
        _WRITERS[:] = [t for t in _WRITERS if t.is_alive()]
        _WRITERS.append(thread)
    thread.start()
    return True


def wait() -> None:
    """Wait until every entry being written is written (or has failed)."""
    with _WRITERS_LOCK:
        threads = list(_WRITERS)
    for thread in threads:
        thread.join()


def _unwritable(directory: str, error: BaseException, stacklevel: int = 2) -> None:
    _count("write_errors")
    _warn_once(directory, f"cannot write to {directory}: {error}; programs are compiled but not "
               "cached", stacklevel=stacklevel + 1)


def _warn_once(directory: str, message: str, stacklevel: int) -> None:
    """One warning per directory and process (a bad directory would warn at every compilation)."""
    with _STATS_LOCK:
        if directory in _WARNED_DIRS:
            return
        _WARNED_DIRS.add(directory)
    warnings.warn("jaxc compilation cache: " + message, CompilationCacheWarning, stacklevel=stacklevel + 1)


def _write_entry(path: str, engine: Any, meta: dict) -> None:
    import tempfile

    from jaxc._config import config

    directory = os.path.dirname(path)
    try:
        with _WRITE_LOCK, tempfile.TemporaryDirectory(prefix="jaxc-cache-") as tmp:
            if isinstance(engine, bytes):
                elf = engine
            else:
                with open(_link(engine, tmp), "rb") as f:
                    elf = f.read()
        meta = {**meta, "library_size": len(elf), "library_sha256": hashlib.sha256(elf).hexdigest(),
                "needed": needed_libraries(elf)}
        blob = json.dumps(meta, sort_keys=True).encode()
        entry = elf + blob + _LENGTH.pack(len(blob)) + MAGIC
        if len(entry) < config.jax_persistent_cache_min_entry_size_bytes:
            _count("skipped")
            return
        fd, partial = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path) + "-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(entry)
            os.chmod(partial, 0o644)
            os.replace(partial, path)
        except BaseException:
            if os.path.exists(partial):
                os.remove(partial)
            raise
        _count("writes")
    except (llvm_tools.ToolError, ValueError) as error:
        _count("write_errors")  # the same cause (no C compiler) would warn at every compilation
        _warn_once(directory + "\0link", f"cannot make the entry {path}: {error}", stacklevel=2)
    except OSError as error:
        _unwritable(directory, error)


def _link(engine: Any, tmp: str) -> str:
    """The program's object code (the JIT's objects, or the engine's, dumped)
    linked into a shared library in `tmp`."""
    library = os.path.join(tmp, "program.so")
    if hasattr(engine, "objects"):  # an orc.Program
        objects = [os.path.join(tmp, f"program{i}.o") for i in range(len(engine.objects))]
        for path, code in zip(objects, engine.objects):
            with open(path, "wb") as f:
                f.write(code)
    else:
        objects = [os.path.join(tmp, "program.o")]
        engine.dump_to_object_file(objects[0])
    if not all(os.path.exists(path) for path in objects):
        raise llvm_tools.ToolError("the execution engine wrote no object file")
    llvm_tools.link_shared(objects, library)
    return library


# ----------------------------------------------------------------------------
# Inspection
# ----------------------------------------------------------------------------

def entries(directory: str | None = None) -> list[str]:
    """The entry files in `directory` (default: the configured one), sorted."""
    directory = directory or cache_dir()
    if directory is None or not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.startswith(PREFIX) and name.endswith(SUFFIX))


def read_metadata(path: str) -> dict:
    """The metadata of the entry at `path` (key, signatures, library size and
    digest); `ValueError` if it is not a whole entry."""
    with open(path, "rb") as f:
        meta, why = _parse_entry(f.read())
    if meta is None:
        raise ValueError(f"{path}: {why}")
    return meta


def clear(directory: str | None = None) -> int:
    """Remove every entry (and leftover temporary file) from `directory`
    (default: the configured one); returns how many entries were removed.
    Programs already loaded keep working."""
    wait()
    directory = directory or cache_dir()
    if directory is None or not os.path.isdir(directory):
        return 0
    removed = 0
    for name in os.listdir(directory):
        if name.startswith(".tmp-" + PREFIX) or (name.startswith(PREFIX) and name.endswith(SUFFIX)):
            try:
                os.remove(os.path.join(directory, name))
                removed += not name.startswith(".tmp-")
            except FileNotFoundError:
                pass
    return removed
