"""AOT export (`jaxc.runtime.aot`) and the compiler-free loader
(`jaxc_aot`): programs exported here run in a fresh process
that cannot import MLIR or jaxc, and match NumPy; the C helpers compiled into
every program.so; load and export errors; CUDA archives (export and symbols
here, running only where a GPU is)."""
from __future__ import annotations

import ctypes
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from fractions import Fraction

import jaxc_aot as aot_loader
import numpy as np
import pytest
from jaxc_aot import LoadError
from jnp_check import flushed

from jaxc.runtime import aot
from jaxc.runtime.aot import export_module
from jaxc.runtime.cpu import CompileError

LOADER = aot_loader.__file__

# One module, many functions: one export covers every case.
CPU_MODULE = """
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = jaxc.sin %x : tensor<4xf32>
  %e = jaxc.exp %s : tensor<4xf32>
  return %e : tensor<4xf32>
}
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}
func.func @rowsum(%x: tensor<3x5xf64>, %e: tensor<0x3xf32>) -> (tensor<3xf64>, tensor<3xf32>) {
  %s = jaxc.reduce sum %x, dims = [1] : tensor<3x5xf64> -> tensor<3xf64>
  %z = jaxc.reduce sum %e, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  return %s, %z : tensor<3xf64>, tensor<3xf32>
}
func.func @count(%n: tensor<i32>) -> tensor<i32> {
  %z = jaxc.constant dense<0> : tensor<i32>
  %r:2 = jaxc.while (%z, %n : tensor<i32>, tensor<i32>) cond {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %p = jaxc.compare lt, %i, %m : tensor<i32>
    jaxc.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>):
    %three = jaxc.constant dense<3> : tensor<i32>
    %j = jaxc.add %i, %three : tensor<i32>
    jaxc.yield %j, %m : tensor<i32>, tensor<i32>
  }
  return %r#0 : tensor<i32>
}
func.func @suffix_sums(%xs: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
  %c0 = jaxc.constant dense<0.0> : tensor<f32>
  %c, %ys = jaxc.scan init(%c0 : tensor<f32>) xs(%xs : tensor<5xf32>) length = 5 reverse -> tensor<f32>, tensor<5xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = jaxc.add %c, %x : tensor<f32>
    jaxc.yield %s, %s : tensor<f32>, tensor<f32>
  }
  return %c, %ys : tensor<f32>, tensor<5xf32>
}
func.func @halves(%h: tensor<4xf16>, %y: tensor<4xf64>) -> (tensor<4xf16>, tensor<4xf16>) {
  %e = jaxc.exp %h : tensor<4xf16>
  %c = jaxc.convert %y : tensor<4xf64> -> tensor<4xf16>
  return %e, %c : tensor<4xf16>, tensor<4xf16>
}
func.func @bytes(%u: tensor<5xui8>, %v: tensor<5xui8>) -> (tensor<5xui8>, tensor<5xi1>) {
  %s = jaxc.add %u, %v : tensor<5xui8>
  %l = jaxc.compare lt, %u, %v : tensor<5xui8>
  return %s, %l : tensor<5xui8>, tensor<5xi1>
}
func.func @logic(%p: tensor<3xi1>, %q: tensor<3xi1>, %x: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xf32>) {
  %a = jaxc.and %p, %q : tensor<3xi1>
  %n = jaxc.neg %x : tensor<3xf32>
  %s = jaxc.select %p, %x, %n : tensor<3xi1>, tensor<3xf32>
  return %a, %s : tensor<3xi1>, tensor<3xf32>
}
func.func @slices(%x: tensor<4x6xf32>) -> (tensor<2x3xf32>, tensor<6x4xf32>) {
  %s = jaxc.slice %x, start = [1, 0], limit = [4, 6], strides = [2, 2] : tensor<4x6xf32> -> tensor<2x3xf32>
  %t = jaxc.transpose %x, perm = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  return %s, %t : tensor<2x3xf32>, tensor<6x4xf32>
}
func.func @bf16(%d: tensor<12xf64>, %b: tensor<4xbf16>) -> (tensor<12xbf16>, tensor<4xf32>) {
  %t = jaxc.convert %d : tensor<12xf64> -> tensor<12xbf16>
  %w = jaxc.convert %b : tensor<4xbf16> -> tensor<4xf32>
  return %t, %w : tensor<12xbf16>, tensor<4xf32>
}
"""


# --------------------------------------------------------------------------
# bf16 reference: exact round to nearest even (Fractions, no double rounding)
# --------------------------------------------------------------------------

def bf16_bits(value: float) -> int:
    """The bf16 nearest to the double `value` (ties to even), as 16 bits."""
    if math.isnan(value):
        return 0x7FC0
    sign = 0x8000 if math.copysign(1.0, value) < 0 else 0
    if math.isinf(value) or value == 0:
        return sign | (0x7F80 if math.isinf(value) else 0)
    exact = abs(Fraction(value))
    exponent = max(math.frexp(abs(value))[1] - 1, -126)  # bf16: f32's exponents, 8-bit significand
    quantum = Fraction(2) ** (exponent - 7)
    rounded = round(exact / quantum) * quantum  # Python rounds Fractions half to even
    if rounded >= Fraction(2) ** 128:
        return sign | 0x7F80
    return sign | int(np.array(float(rounded), np.float32).view(np.uint32)) >> 16


BF16_CASES = np.array([
    1.0, -2.5, 1 + 2**-8,                 # exact; a tie (to even: 1.0)
    1 + 2**-8 + 2**-30,                   # just above a tie: via f32 it would round down
    1 + 3 * 2**-8, 3.3895313892515355e38, 1e39,  # tie up to even; bf16 max; overflow
    2.0**-134 + 2.0**-170,                # just above a subnormal tie
    1.5 * 2.0**-133, 2.0**-134, -1e-300, math.pi])
BF16_INPUTS = np.array([0x3F80, 0xC040, 0x0001, 0x7F80], np.uint16)  # 1, -3, tiny, inf




def _bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _to_f16(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return x.astype(np.float16)


# name -> (inputs, NumPy reference of the results)
RNG = np.random.default_rng(0)
_X44 = np.arange(24, dtype=np.float32).reshape(4, 6)
_P, _Q = np.array([True, False, True]), np.array([True, True, False])
CASES = {
    "elementwise": ([np.linspace(-2, 2, 4, dtype=np.float32)], lambda x: [np.exp(np.sin(x))]),
    "matmul": ([RNG.standard_normal((2, 3)).astype(np.float32),
                RNG.standard_normal((3, 4)).astype(np.float32)], lambda a, b: [a @ b]),
    "rowsum": ([RNG.standard_normal((3, 5)), np.zeros((0, 3), np.float32)],
               lambda x, e: [x.sum(1), e.sum(0)]),
    "count": ([np.array(10, np.int32)], lambda n: [np.array(12, np.int32)]),
    "suffix_sums": ([np.arange(1, 6, dtype=np.float32)],
                    lambda xs: [np.array(15, np.float32), np.cumsum(xs[::-1])[::-1]]),
    "halves": ([np.array([0, 1, -2, 3.5], np.float16), np.array([1 / 3, 65504.0, 1e6, -1e-8])],
               lambda h, y: [np.exp(h.astype(np.float32)).astype(np.float16), _to_f16(y)]),
    "bytes": ([np.array([200, 100, 0, 255, 7], np.uint8), np.array([100, 200, 0, 1, 8], np.uint8)],
              lambda u, v: [u + v, u < v]),
    "logic": ([_P, _Q, np.array([1, 2, 3], np.float32)],
              lambda p, q, x: [p & q, np.where(p, x, -x)]),
    "slices": ([_X44], lambda x: [x[1:4:2, 0:6:2], x.T]),
    "bf16": ([BF16_CASES, BF16_INPUTS],
             lambda d, b: [np.array([bf16_bits(float(flushed(v, np.float32))) for v in d], np.uint16), _bf16_to_f32(b)]),
}

# Runs in a fresh interpreter: the installed jaxc_aot package ("-") or the
# loader file by itself, with every import of mlir or jaxc refused.
BLOCKED_RUNNER = r"""
import importlib.abc, importlib.util, json, sys
import numpy as np

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mlir", "jaxc"):
            raise ImportError(f"{name} may not be imported by the AOT loader")
        return None

sys.meta_path.insert(0, Refuse())
loader_file, archive, inputs_file, outputs_file, report_file = sys.argv[1:]
if loader_file == "-":  # the installed package
    import jaxc_aot as aot_loader
else:  # the file copied on its own
    spec = importlib.util.spec_from_file_location("aot_loader", loader_file)
    aot_loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(aot_loader)

program = aot_loader.load(archive)
inputs, outputs = np.load(inputs_file), {}
for name in program.functions:
    args = [inputs[f"{name}__{i}"] for i in range(len(program[name].args))]
    for k, result in enumerate(program[name](*args)):
        bf16 = result.dtype.name == "bfloat16"  # with ml_dtypes installed
        outputs[f"{name}__{k}"] = result.view(np.uint16) if bf16 else result
np.savez(outputs_file, **outputs)
with open(report_file, "w") as f:
    json.dump({"functions": list(program.functions), "modules": sorted(sys.modules)}, f)
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("aot")


@pytest.fixture(scope="module")
def cpu_archive(workdir):
    path = workdir / "cpu.jaxc"
    export_module(CPU_MODULE, path)
    return str(path)


@pytest.fixture(scope="module")
def blocked_run(cpu_archive, workdir):
    """Every case run once in a fresh process that cannot import mlir or jaxc."""
    inputs = {f"{name}__{i}": a for name, (args, _) in CASES.items() for i, a in enumerate(args)}
    np.savez(workdir / "inputs.npz", **inputs)
    runner = workdir / "runner.py"
    runner.write_text(BLOCKED_RUNNER)
    paths = [str(workdir / name) for name in ("inputs.npz", "outputs.npz", "report.json")]
    proc = subprocess.run([sys.executable, str(runner), "-", cpu_archive, *paths],
                          capture_output=True, text=True, timeout=300, cwd=str(workdir))
    assert proc.returncode == 0, proc.stderr
    with np.load(paths[1]) as outputs:
        results = {key: outputs[key] for key in outputs.files}
    with open(paths[2]) as f:
        return results, json.load(f)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_program_matches_numpy(name, blocked_run):
    results, _ = blocked_run
    args, reference = CASES[name]
    expected = reference(*args)
    got = [results[f"{name}__{k}"] for k in range(len(expected))]
    assert f"{name}__{len(expected)}" not in results
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, (g, e)
        if g.dtype.kind == "f":
            tol = 2e-3 if g.dtype == np.float16 else 1e-6
            np.testing.assert_allclose(g, e, rtol=tol, atol=tol)
        else:
            np.testing.assert_array_equal(g, e)


def test_loader_needs_no_compiler(blocked_run):
    _, report = blocked_run
    assert report["functions"] == list(CASES)
    assert [m for m in report["modules"] if m.split(".")[0] in ("mlir", "jaxc")] == []
    assert "ctypes" in report["modules"] and "numpy" in report["modules"]


def test_cases_exercise_the_support_code():
    """`bf16` converts f64 to bf16, which llc turns into a call of
    __truncdfbf2, which aot_support.c provides (so these results test it).
    `slices` copies strided memrefs: loops now (jaxc-strided-copies-to-loops),
    no call of memrefCopy (aot_support.c's is tested directly below)."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages

    llvm_ir = stages.run_stages(ir.Module.parse(CPU_MODULE, make_context()), "llvmir")
    assert "@memrefCopy(" not in llvm_ir
    assert re.search(r"fptrunc double %\w+ to bfloat", llvm_ir)


def test_cpu_library_needs_only_libc_and_libm(cpu_archive, workdir):
    if not (shutil.which("nm") and shutil.which("readelf")):
        pytest.skip("binutils (nm, readelf) not installed")
    with zipfile.ZipFile(cpu_archive) as archive:
        library = archive.extract(aot_loader.LIBRARY, workdir / "cpu_so")
    needed = subprocess.run(["readelf", "-d", library], capture_output=True, text=True).stdout
    libraries = {line.split("[")[1].rstrip("]")
                 for line in needed.splitlines() if "(NEEDED)" in line}
    assert libraries <= {"libc.so.6", "libm.so.6"}
    undefined = subprocess.run(["nm", "-D", "-u", library], capture_output=True, text=True).stdout
    assert "memrefCopy" not in undefined and "mgpu" not in undefined and "bf2" not in undefined
    assert " T _mlir_ciface_matmul" in subprocess.run(["nm", "-D", "--defined-only", library],
                                                       capture_output=True, text=True).stdout


def test_manifest(cpu_archive):
    manifest = aot_loader.read_manifest(cpu_archive)
    assert (manifest["format"], manifest["version"], manifest["target"], manifest["cpu"]) == \
        ("jaxc-aot", 1, "cpu", "x86-64-v2")
    assert "chip" not in manifest
    bytes_ = next(f for f in manifest["functions"] if f["name"] == "bytes")
    assert bytes_["args"] == [[[5], "ui8"], [[5], "ui8"]]
    assert bytes_["results"] == [[[5], "ui8"], [[5], "i1"]]


def test_call_in_process_and_signatures(cpu_archive):
    program = aot_loader.load(cpu_archive)
    assert program.functions == tuple(CASES)
    f = program["suffix_sums"]
    assert repr(f.args) == "(tensor<5xf32>,)" and repr(f.results) == "(tensor<f32>, tensor<5xf32>)"
    carry, ys = f(np.arange(10, dtype=np.float32)[::2])  # non-contiguous input
    assert carry == 20 and ys.tolist() == [20, 20, 18, 14, 8]
    assert "count" in program and "nope" not in program


def test_cli(cpu_archive, workdir):
    proc = subprocess.run([sys.executable, "-m", "jaxc_aot", cpu_archive],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "target: cpu (x86-64-v2)" in proc.stdout
    assert "matmul(tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x4xf32>)" in proc.stdout
    assert "bytes(tensor<5xui8>, tensor<5xui8>) -> (tensor<5xui8>, tensor<5xi1>)" in proc.stdout
    bad = workdir / "cli_bad.jaxc"
    bad.write_bytes(b"not a zip")
    proc = subprocess.run([sys.executable, LOADER, str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1 and "not a zip file" in proc.stderr


# --------------------------------------------------------------------------
# Bad calls and bad files
# --------------------------------------------------------------------------

def test_bad_arguments(cpu_archive):
    matmul = aot_loader.load(cpu_archive)["matmul"]
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    with pytest.raises(TypeError, match=r"matmul\(\): argument 0 has dtype float64, "
                                        r"expected float32 for tensor<2x3xf32>"):
        matmul(a.astype(np.float64), b)
    with pytest.raises(TypeError, match=r"matmul\(\): argument 1 has shape \(4, 3\), "
                                        r"expected \(3, 4\) for tensor<3x4xf32>"):
        matmul(a, b.T.copy())
    with pytest.raises(TypeError, match=r"matmul\(\) takes 2 arguments, got 1"):
        matmul(a)
    with pytest.raises(TypeError, match="argument 0 has dtype int64"):
        aot_loader.load(cpu_archive)["count"](10)  # never cast, as in jaxc.runtime


def test_unknown_function(cpu_archive):
    with pytest.raises(KeyError, match=r"no function 'nope' in .*\(functions: elementwise, matmul"):
        aot_loader.load(cpu_archive)["nope"]


def _zip(path, **members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name.replace("_json", ".json").replace("_so", ".so"), data)
    return str(path)


def test_bad_files(tmp_path, cpu_archive):
    corrupt = tmp_path / "corrupt.jaxc"
    corrupt.write_bytes(b"\x7fELF not an archive")
    with pytest.raises(LoadError, match="not a jaxc program archive \\(not a zip file\\)"):
        aot_loader.load(corrupt)
    with pytest.raises(LoadError, match="no such file"):
        aot_loader.load(tmp_path / "missing.jaxc")
    with pytest.raises(LoadError, match="no manifest.json"):
        aot_loader.load(_zip(tmp_path / "nomanifest.jaxc", program_so=b""))
    with pytest.raises(LoadError, match="manifest.json is not valid JSON"):
        aot_loader.load(_zip(tmp_path / "badjson.jaxc", manifest_json="{"))
    manifest = aot_loader.read_manifest(cpu_archive)
    v99 = json.dumps({**manifest, "version": 99})
    with pytest.raises(LoadError, match="format version 99; this loader reads version 1"):
        aot_loader.load(_zip(tmp_path / "v99.jaxc", manifest_json=v99))
    tpu = json.dumps({**manifest, "target": "tpu"})
    with pytest.raises(LoadError, match="unknown target 'tpu'"):
        aot_loader.load(_zip(tmp_path / "tpu.jaxc", manifest_json=tpu))
    with pytest.raises(LoadError, match="no program.so"):
        aot_loader.load(_zip(tmp_path / "noso.jaxc", manifest_json=json.dumps(manifest)))
    with pytest.raises(LoadError, match="cannot load program.so"):
        aot_loader.load(_zip(tmp_path / "badso.jaxc", manifest_json=json.dumps(manifest),
                             program_so=b"garbage"))


# --------------------------------------------------------------------------
# Export errors
# --------------------------------------------------------------------------

SMALL = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = jaxc.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


@pytest.mark.parametrize("options, message", [
    ({"target": "tpu"}, "unknown target 'tpu'; the targets are: cpu, cuda"),
    ({"target": "cuda", "chip": "sm_42"}, "unsupported CUDA chip 'sm_42'"),
    ({"cpu": "pentium9"}, "unknown x86-64 cpu 'pentium9'"),
])
def test_export_bad_options(tmp_path, options, message):
    with pytest.raises(CompileError, match=message):
        export_module(SMALL, tmp_path / "out.jaxc", **options)
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("module, message", [
    ("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = jaxc.bogus %x\n}",
     "cannot compile the module for the CPU"),
    ("func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {\n  return %x : tensor<?xf32>\n}",
     "statically shaped tensors only"),
    ("func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}",
     "no public function"),
])
def test_export_bad_module(tmp_path, module, message):
    with pytest.raises(CompileError, match=message):
        export_module(module, tmp_path / "out.jaxc")
    assert not os.listdir(tmp_path)


def test_export_without_c_compiler(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CompileError, match="no C compiler found"):
        export_module(SMALL, tmp_path / "out.jaxc")


def test_export_link_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "false")
    with pytest.raises(CompileError, match="linking program.so failed \\(exit status 1\\)"):
        export_module(SMALL, tmp_path / "out.jaxc")
    assert not os.listdir(tmp_path)


def test_export_ir_module_left_untouched(tmp_path):
    from mlir import ir

    from jaxc.dialect import make_context

    module = ir.Module.parse(SMALL, make_context())
    before = str(module)
    export_module(module, tmp_path / "m.jaxc", cpu="x86-64-v3")
    assert str(module) == before
    assert aot_loader.read_manifest(str(tmp_path / "m.jaxc"))["cpu"] == "x86-64-v3"
    (y,) = aot_loader.load(tmp_path / "m.jaxc")["f"](np.zeros(4, np.float32))
    assert y.tolist() == [1, 1, 1, 1]


# --------------------------------------------------------------------------
# aot_support.c on its own
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def support(workdir):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    library = str(workdir / "support.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-std=c11", "-Wall", "-Werror",
                    "-DJAXC_SUPPORT_VISIBILITY=\"default\"", "-o", library, aot.SUPPORT_SOURCE],
                   check=True)
    lib = ctypes.CDLL(library)
    lib.memrefCopy.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    lib.__truncsfbf2.restype, lib.__truncsfbf2.argtypes = ctypes.c_float, [ctypes.c_float]
    lib.__truncdfbf2.restype, lib.__truncdfbf2.argtypes = ctypes.c_float, [ctypes.c_double]
    return lib


def _unranked(view: np.ndarray, base: np.ndarray):
    """An UnrankedMemRef {rank, descriptor*} for `view` into `base` (kept alive by the caller)."""
    item = view.itemsize
    offset = (view.ctypes.data - base.ctypes.data) // item
    desc = (ctypes.c_int64 * (3 + 2 * view.ndim))(
        base.ctypes.data, base.ctypes.data, offset, *view.shape, *(s // item for s in view.strides))
    return desc, (ctypes.c_int64 * 2)(view.ndim, ctypes.addressof(desc))


@pytest.mark.parametrize("src, dst", [
    (lambda a: a[1:, 2:], lambda b: b[:3, :3]),                # offsets, contiguous rows
    (lambda a: a.T[:4, :3], lambda b: b[:, ::2][:4]),          # strided both sides
    (lambda a: a[::2, ::-1][:, 1:4], lambda b: b[1:3, 1:4]),   # negative strides
    (lambda a: a[2, 3, ...], lambda b: b[1, 1, ...]),          # rank 0
    (lambda a: a[:0, :], lambda b: b[:0, :5]),                 # size 0: nothing written
])
def test_memref_copy(support, src, dst):
    a = np.arange(20, dtype=np.float64).reshape(4, 5)
    b = np.full((6, 5), -1.0)
    s, d = src(a), dst(b)
    s_desc, s_unranked = _unranked(s, a)
    d_desc, d_unranked = _unranked(d, b)
    assert s.shape == d.shape
    expected = b.copy()
    dst(expected)[...] = s
    support.memrefCopy(8, ctypes.addressof(s_unranked), ctypes.addressof(d_unranked))
    np.testing.assert_array_equal(b, expected)


def test_memref_copy_rank3(support):
    a = np.arange(60, dtype=np.int16).reshape(3, 4, 5)
    s = a.transpose(2, 0, 1)[1:4]
    b = np.zeros((3, 3, 4), np.int16)
    s_desc, s_unranked = _unranked(s, a)
    d_desc, d_unranked = _unranked(b, b)
    support.memrefCopy(2, ctypes.addressof(s_unranked), ctypes.addressof(d_unranked))
    np.testing.assert_array_equal(b, s)


def _returned_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0] & 0xFFFF


def test_bf16_truncations(support):
    rng = np.random.default_rng(1)
    # Ties and near-ties of random bf16 values at every scale, plus the edge cases.
    bases = _bf16_to_f32(rng.integers(0, 0x7F80, 300).astype(np.uint16)).astype(np.float64)
    ulps = np.array([2.0 ** (max(math.frexp(b)[1] - 1, -126) - 7) if b else 2.0**-133
                     for b in bases])
    doubles = np.concatenate([BF16_CASES, bases, bases + ulps / 2, bases + ulps / 2 * (1 + 2**-40),
                              -(bases + ulps / 2 * (1 - 2**-40)), [math.inf, -math.inf, 0.0, -0.0]])
    for d in doubles:
        assert _returned_bits(support.__truncdfbf2(float(d))) == bf16_bits(float(d)), d
    with np.errstate(over="ignore"):
        floats = doubles.astype(np.float32)
    for f in floats:
        assert _returned_bits(support.__truncsfbf2(float(f))) == bf16_bits(float(f)), f
    assert _returned_bits(support.__truncdfbf2(math.nan)) & 0x7FC0 == 0x7FC0
    assert _returned_bits(support.__truncsfbf2(math.nan)) & 0x7FC0 == 0x7FC0


# --------------------------------------------------------------------------
# CUDA archives
# --------------------------------------------------------------------------

GPU_MODULE = """
func.func @f(%x: tensor<300xf32>, %h: tensor<4xf16>) -> (tensor<300xf32>, tensor<f32>, tensor<4xf16>) {
  %s = jaxc.sin %x : tensor<300xf32>
  %e = jaxc.exp %s : tensor<300xf32>
  %r = jaxc.reduce sum %e, dims = [0] : tensor<300xf32> -> tensor<f32>
  %hh = jaxc.exp %h : tensor<4xf16>
  return %e, %r, %hh : tensor<300xf32>, tensor<f32>, tensor<4xf16>
}
"""


def _cuda_toolkit():
    from jaxc.passes.gpu import targets
    return targets.toolkit_path()


def _driver():
    """The NVIDIA driver library, or None."""
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


@pytest.fixture(scope="module")
def cuda_archive(workdir):
    if _cuda_toolkit() is None:
        pytest.skip("no CUDA toolkit (libdevice) installed: pip install nvidia-cuda-nvcc-cu12")
    path = workdir / "gpu.jaxc"
    export_module(GPU_MODULE, path, target="cuda", chip="sm_90")
    return str(path)


def test_cuda_export(cuda_archive, workdir):
    manifest = aot_loader.read_manifest(cuda_archive)
    assert (manifest["target"], manifest["chip"]) == ("cuda", "sm_90")
    if shutil.which("nm") is None:
        pytest.skip("nm not installed")
    with zipfile.ZipFile(cuda_archive) as archive:
        library = archive.extract(aot_loader.LIBRARY, workdir / "cuda_so")
    undefined = subprocess.run(["nm", "-D", "-u", library], capture_output=True, text=True).stdout
    for symbol in ("mgpuLaunchKernel", "mgpuModuleLoad"):
        assert symbol in undefined


def test_cuda_load_without_driver(cuda_archive):
    if _driver() is not None:
        pytest.skip("libcuda.so.1 loads on this machine")
    with pytest.raises(LoadError, match="is a CUDA program: it needs an NVIDIA GPU driver"):
        aot_loader.load(cuda_archive)


def test_cuda_runs_on_gpu(cuda_archive, workdir):
    driver = _driver()
    count = ctypes.c_int(0)
    if driver is None:
        pytest.skip("no NVIDIA driver (libcuda.so.1) on this machine")
    if driver.cuInit(0) or driver.cuDeviceGetCount(ctypes.byref(count)) or not count.value:
        pytest.skip("the NVIDIA driver reports no CUDA device")
    cpu_path = workdir / "gpu_on_cpu.jaxc"
    export_module(GPU_MODULE, cpu_path)
    x = np.linspace(-3, 3, 300, dtype=np.float32)
    h = np.array([0, 1, -2, 3.5], np.float16)
    on_gpu = aot_loader.load(cuda_archive)["f"](x, h)
    on_cpu = aot_loader.load(cpu_path)["f"](x, h)
    for g, c in zip(on_gpu, on_cpu):
        assert g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=2e-3 if g.dtype == np.float16 else 1e-5)
    np.testing.assert_allclose(on_gpu[0], np.exp(np.sin(x)), rtol=1e-5)


# --------------------------------------------------------------------------
# From the front end: jit(f).lower(...).export(path)
# --------------------------------------------------------------------------

def test_lowered_export_runs_the_flattened_function(tmp_path):
    import jaxc
    import jaxc.numpy as jnp

    def f(params, x):
        return {"y": jnp.tanh(x @ params["w"] + params["b"]), "n": jnp.sum(x * x)}

    params = {"w": np.arange(6, dtype=np.float32).reshape(3, 2) / 6, "b": np.ones(2, np.float32)}
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    lowered = jaxc.jit(f).lower(params, x)
    lowered.export(tmp_path / "f.jaxc")
    program = aot_loader.load(tmp_path / "f.jaxc")
    (name,) = program.functions
    leaves = jaxc.tree_util.tree_leaves((params, x))
    got = program[name](*leaves)
    expected = jaxc.tree_util.tree_leaves(jaxc.jit(f)(params, x))
    assert len(got) == len(expected) == 2
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-6)


def test_lowered_export_refuses_closed_over_arrays(tmp_path):
    import jaxc
    import jaxc.numpy as jnp

    w = jnp.ones(3)
    with pytest.raises(ValueError, match=r"closes over 1 array\(s\); pass them as arguments"):
        jaxc.jit(lambda x: x * w).lower(np.ones(3, np.float32)).export(tmp_path / "g.jaxc")
    assert not (tmp_path / "g.jaxc").exists()
