"""The CUDA target: every op and several whole programs lower to PTX that
ptxas assembles (no GPU needed), the GPU passes keep host memory away from
kernels, chips and missing tools fail clearly, and -- only where a GPU is
present -- programs run on it with the CPU's results.

The op programs are the groups of test_lowering_numerics (every op with a
lowering rule, in every dtype it is tested in on the CPU); the ops that file
tests elsewhere come in through the whole programs below.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import test_lowering_numerics as numerics
from mlir import ir

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.core import JaxcTypeError
from jaxc.dialect import make_context
from jaxc.passes import stages
from jaxc.passes.gpu import buffers, serialize, targets
from jaxc.runtime import cuda

NEEDS_PTXAS = pytest.mark.skipif(targets.ptxas_path() is None,
                                 reason="no ptxas: `pip install nvidia-cuda-nvcc-cu12` (make test does)")
NEEDS_GPU = pytest.mark.skipif(not cuda.available(),
                               reason="no CUDA GPU: the NVIDIA driver (libcuda.so.1) is absent or "
                                      "reports no device")

GROUPS = {name: [c for c in cases if not c.xfail] for name, cases in numerics._GROUPS.items()}
EMPTY_GROUPS = {"shapes-0x3"}  # zero-size tensors: nothing to launch


def group_module(name: str) -> ir.Module:
    text, _, _ = numerics.module_text(GROUPS[name])
    return ir.Module.parse(text, make_context())


def host_memory_kernel_operands(module: ir.Module) -> list[str]:
    """Kernel launch operands that are host memory (a global, a stack buffer)."""
    bad = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "gpu.launch_func":
            bad.extend(str(v) for v in op.operands
                       if isinstance(v.type, ir.MemRefType) and buffers.in_host_memory(v))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return bad


def launches(module: ir.Module) -> int:
    return str(module).count("gpu.launch_func")


def device_buffers(module: ir.Module) -> int:
    """Buffers in device memory (`gpu.alloc` without host_shared is async here)."""
    return str(module).count("gpu.alloc async")


def assemble_all(kernels: list[serialize.KernelPtx], chip: str) -> None:
    assert kernels
    for kernel in kernels:
        assert kernel.chip == chip and f".target {chip}" in kernel.text
        assert ".extern .func __nv_" not in kernel.text, f"{kernel.module}: libdevice not linked"
        cubin = serialize.assemble(kernel.text, chip)
        assert cubin[:4] == b"\x7fELF", kernel.module


# ---------------------------------------------------------------------------
# Stages and targets
# ---------------------------------------------------------------------------

def test_cuda_stages_share_the_front_and_end_in_ptx():
    names = [s.name for s in stages.target_stages("cuda")]
    assert names == ["traced", "transformed", "optimized", "linalg", "fused", "bufferized",
                     "gpu", "nvvm", "ptx", "binary", "llvmir"]
    nvvm = stages.lookup_stage("nvvm", "cuda", "sm_80")
    assert "nvvm-attach-target{chip=sm_80 features=+ptx70 O=3}" in nvvm.passes
    assert stages.target_of_stage("ptx") == "cuda" and stages.target_of_stage("llvm") == "cpu"
    assert stages.target_of_stage("fused") == "cuda"
    assert stages.target_of_stage("nope") == "cpu"  # an unknown name is reported for the CPU list


@pytest.mark.parametrize("chip,version", [("sm_80", "7.0"), ("sm_90", "7.8"), ("sm_90a", "8.0")])
def test_each_chip_gets_a_ptx_version_it_supports(chip, version):
    module = group_module("unary-f32")
    ptx = stages.run_stages(module, "ptx", target="cuda", chip=chip)
    assert f".version {version}" in ptx and f".target {chip}" in ptx


@pytest.mark.parametrize("chip", ["sm_42", "sm_75", "compute_90", "", "sm_90 "])
def test_an_unsupported_chip_is_a_clear_error(chip):
    with pytest.raises(stages.StageError, match=f"unsupported CUDA chip '{re.escape(chip)}'; "
                                                "jaxc compiles for: sm_80, sm_86"):
        stages.target_stages("cuda", chip)


def test_unknown_target():
    with pytest.raises(stages.StageError, match="unknown target 'rocm'; the targets are: cpu, cuda"):
        stages.target_stages("rocm")


# ---------------------------------------------------------------------------
# Every op: PTX that ptxas assembles
# ---------------------------------------------------------------------------

@NEEDS_PTXAS
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_op_group_assembles_for_sm90(group):
    module = group_module(group)
    stages.run_stages(module, "gpu", target="cuda")
    assert host_memory_kernel_operands(module) == []
    if group in EMPTY_GROUPS:
        assert launches(module) == 0
        return
    assert launches(module) > 0, "no kernel: the work stayed in host code"
    stages.run_stages(module, "nvvm", first="gpu", target="cuda")
    assemble_all(serialize.kernel_ptx(module), "sm_90")
    host = stages.run_stages(module, "llvmir", first="ptx", target="cuda")  # cubins embedded
    assert "@mgpuLaunchKernel" in host and "@mgpuModuleLoad" in host


def _kernel_loops_pipeline() -> str:
    """The `gpu` stage's passes up to (not including) the conversion to gpu
    ops, without managed memory: loops shaped as the kernels will be, which
    still lower and run on the CPU."""
    passes = [p for p in stages.lookup_stage("gpu", "cuda").passes
              if p != "jaxc-gpu-host-shared-memory"]
    passes = passes[:passes.index("func.func(convert-parallel-loops-to-gpu)")]
    return f"builtin.module({','.join(passes)},lower-affine,canonicalize,cse)"


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_kernel_shaped_loops_compute_the_expected_values_on_the_cpu(group):
    """Runs the GPU passes' loop structure (copies and sequential code wrapped,
    loops linearized, tiled by 256 with guards, mapped) on the CPU: the
    index arithmetic of every kernel, checked against NumPy's values."""
    from jaxc.passes import pipeline
    from jaxc.runtime import cpu
    cases = GROUPS[group]
    text, args, _ = numerics.module_text(cases)
    module = ir.Module.parse(text, make_context())
    signatures = cpu.function_signatures(module)
    stages.run_stages(module, "bufferized", target="cuda")  # through `fused`, as on the GPU
    pipeline.build_pass_manager(pipeline.parse_pipeline(_kernel_loops_pipeline()),
                                module.context).run(module.operation)
    stages.run_stages(module, "llvm", first="loops")
    outs = cpu.jit_lowered(module, signatures)["main"](*[a.copy() for a in args])
    for case, got in zip(cases, outs):
        if case.tol is None:
            np.testing.assert_array_equal(got, case.expected, err_msg=case.id, strict=True)
        else:
            np.testing.assert_allclose(got, case.expected, rtol=case.tol[0], atol=case.tol[1],
                                       equal_nan=True, err_msg=case.id)


@NEEDS_PTXAS
@pytest.mark.parametrize("group", ["unary-f32", "binary-f64", "reduce-f32", "dot-f16", "control"])
def test_op_groups_assemble_for_sm80(group):
    module = group_module(group)
    stages.run_stages(module, "nvvm", target="cuda", chip="sm_80")
    assemble_all(serialize.kernel_ptx(module), "sm_80")


# ---------------------------------------------------------------------------
# Whole programs through the front end
# ---------------------------------------------------------------------------

def _mlp_step(w1, b1, w2, b2, x, y):
    def loss(w1, b1, w2, b2):
        hidden = jnp.tanh(x @ w1 + b1)
        return jnp.mean((hidden @ w2 + b2 - y) ** 2)
    grads = jaxc.grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2)
    return [p - 0.01 * g for p, g in zip((w1, b1, w2, b2), grads)]


def _conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME")


def _special(x):
    return (jaxc.scipy.special.erfinv(x * 0.5), jaxc.scipy.special.gammaln(x + 2.0),
            jaxc.scipy.special.digamma(x + 2.0), jnp.nextafter(x, x + 1.0))


def _indexing(x, i):
    return x[i], x.at[i].add(1.0), lax.dynamic_slice(x, (i[0],), (2,))


def _random(key):
    a, b = lax.threefry2x32(key[0], key[1], jnp.arange(4, dtype=jnp.uint32), jnp.zeros(4, jnp.uint32))
    return a ^ b, lax.random_bits(key, 32, (3, 5))


def _loops(x):
    total = lax.fori_loop(0, 5, lambda i, acc: acc + jnp.sin(acc * i), x)
    scanned, ys = lax.scan(lambda c, v: (c * 0.5 + v, c.sum()), x, jnp.stack([x, x * 2]))
    picked = lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x)
    return total, scanned, ys, picked


def _sorting(x):
    """Sorts, and jaxc.top_k (expanded into rounds of max for the GPU: jaxc-expand-top-k)."""
    return (jnp.sort(x), jnp.argsort(x), lax.bitcast_convert_type(x, jnp.int32), jnp.cumsum(x),
            *lax.top_k(x, 3))


def _remat(x):
    layer = jaxc.checkpoint(lambda v: jnp.tanh(jaxc.ad_checkpoint.checkpoint_name(v * 2.0, "h")),
                            policy=jaxc.checkpoint_policies.save_only_these_names("h"))
    return jaxc.grad(lambda v: jnp.sum(layer(layer(v))))(x), lax.optimization_barrier(x)


def _batched_gradient(xs):
    return jaxc.vmap(jaxc.grad(lambda v: jnp.sin(3 * v) * jnp.tanh(v) + 0.1 * v ** 3))(xs)


def _fft(x):
    """jaxc.dft, expanded into matrix products for the GPU (jaxc-expand-dft)."""
    spectrum = jnp.fft.rfft(x)
    return jnp.abs(spectrum), jnp.fft.irfft(spectrum * 2.0, x.shape[-1])


def _linalg(a, b):
    """jaxc.lu, jaxc.triangular_solve and jaxc.cholesky, expanded into loops of
    jaxc ops for the GPU (jaxc-expand-linalg)."""
    spd = a @ a.T / a.shape[0] + jnp.eye(a.shape[0], dtype=a.dtype)
    return jnp.linalg.solve(a, b), lax.linalg.cholesky(spd)


def _decompositions(a):
    """jaxc.qr, jaxc.eigh and jaxc.svd, expanded into loops of jaxc ops for the
    GPU (jaxc-expand-linalg: Householder steps, Jacobi sweeps)."""
    q, r = lax.linalg.qr(a)
    v, w = lax.linalg.eigh(a + a.T)
    return q, r, w, jnp.abs(v), lax.linalg.svd(a, compute_uv=False)


def _rng(seed=0):
    return np.random.default_rng(seed)


PROGRAMS = {
    "mlp_step_784_512_10_b128": (_mlp_step, lambda: [
        (_rng().normal(size=(784, 512)) / 28).astype(np.float32), np.zeros(512, np.float32),
        (_rng(1).normal(size=(512, 10)) / 22).astype(np.float32), np.zeros(10, np.float32),
        _rng(2).normal(size=(128, 784)).astype(np.float32),
        _rng(3).normal(size=(128, 10)).astype(np.float32)]),
    "conv": (_conv, lambda: [_rng().normal(size=(2, 3, 8, 8)).astype(np.float32),
                             _rng(1).normal(size=(4, 3, 3, 3)).astype(np.float32)]),
    "special": (_special, lambda: [np.linspace(-0.9, 0.9, 16, dtype=np.float32)]),
    "indexing": (_indexing, lambda: [np.arange(8, dtype=np.float32), np.array([5, 1], np.int32)]),
    "random": (_random, lambda: [np.array([0, 42], np.uint32)]),
    "loops": (_loops, lambda: [np.linspace(-1, 1, 6, dtype=np.float32)]),
    "sorting": (_sorting, lambda: [_rng().normal(size=(4, 7)).astype(np.float32)]),
    "remat": (_remat, lambda: [np.linspace(-1, 1, 8, dtype=np.float32)]),
    "vmap_grad": (_batched_gradient, lambda: [np.linspace(-2, 2, 1000, dtype=np.float32)]),
    "fft": (_fft, lambda: [_rng().normal(size=(3, 100)).astype(np.float32)]),
    "linalg": (_linalg, lambda: [(_rng().normal(size=(6, 6)) + 3 * np.eye(6)).astype(np.float32),
                                 _rng(1).normal(size=(6, 2)).astype(np.float32)]),
    "decompositions": (_decompositions, lambda: [_rng(2).normal(size=(5, 5)).astype(np.float32)]),
}


def _kernel_sections(ptx: str) -> list[tuple[str, str, str]]:
    """(module, chip, text) of each `// ----- gpu.module @NAME (CHIP)` section."""
    parts = re.split(r"^// ----- gpu\.module @(\S+) \((\w+)\)\n", ptx, flags=re.M)
    return [(parts[i], parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)]


@NEEDS_PTXAS
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_whole_programs_assemble(name):
    fn, make_args = PROGRAMS[name]
    lowered = jaxc.jit(fn).lower(*make_args())
    sections = _kernel_sections(lowered.as_text(stage="ptx"))
    assemble_all([serialize.KernelPtx(m, c, t) for m, c, t in sections], "sm_90")


@NEEDS_PTXAS
def test_binary_stage_embeds_a_cubin_for_the_chip():
    from mlir.dialects.gpu import ObjectAttr
    module = group_module("unary-f32")
    stages.run_stages(module, "binary", target="cuda", chip="sm_80")
    binaries = [op.operation for op in module.body.operations if op.operation.name == "gpu.binary"]
    assert binaries
    for binary in binaries:
        (attr,) = ir.ArrayAttr(binary.attributes["objects"])
        obj = ObjectAttr(attr)
        assert obj.object[:4] == b"\x7fELF" and 'chip = "sm_80"' in str(obj.target)
    assert not [op for op in module.body.operations if op.operation.name == "gpu.module"]


# Ops the GPU runtime refuses by design, with the test that shows it.
CPU_ONLY = {"jaxc.callback": "host callbacks: refused for the GPU (test_callbacks.py)",
            **{f"jaxc.{name}": "collectives: pmap runs on CPU devices (test_pmap.py)"
               for name in ("psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "ppermute",
                            "axis_index")},
            **{f"jaxc.{name}": "the CPU's compiled library only, refused where no library is called "
                               "(test_eig.py, jaxc-expand-linalg-library-only.mlir)"
               for name in ("eig", "schur", "hessenberg")}}


def test_whole_programs_and_op_groups_cover_every_lowering_rule():
    from jaxc.passes.lowering import RULES

    used = {m for cases in GROUPS.values() for c in cases for m in re.findall(r"jaxc\.(\w+)", c.body)}
    for fn, make_args in PROGRAMS.values():
        used |= set(re.findall(r"jaxc\.(\w+)", jaxc.jit(fn).lower(*make_args()).as_text()))
    missing = sorted(name for name in RULES
                     if name.removeprefix("jaxc.") not in used and name not in CPU_ONLY)
    assert not missing, f"ops with a lowering rule but no GPU test: {missing}"


def test_as_text_chip_applies_to_gpu_stages_only():
    lowered = jaxc.jit(jnp.sin).lower(np.ones(4, np.float32))
    assert ".target sm_86" in lowered.as_text(stage="ptx", chip="sm_86")
    with pytest.raises(ValueError, match="chip='sm_80' applies to the GPU stages only"):
        lowered.as_text(stage="llvm", chip="sm_80")
    with pytest.raises(JaxcTypeError, match="unsupported CUDA chip 'sm_61'"):
        lowered.as_text(stage="nvvm", chip="sm_61")


# ---------------------------------------------------------------------------
# Missing tools and refused PTX
# ---------------------------------------------------------------------------

def test_libdevice_calls_without_a_toolkit_name_the_function(monkeypatch):
    module = group_module("unary-f32")
    stages.run_stages(module, "nvvm", target="cuda")
    monkeypatch.setattr(targets, "toolkit_path", lambda: None)
    with pytest.raises(serialize.SerializeError,
                       match=r"kernels call libdevice's __nv_\w+, but no CUDA toolkit with libdevice"):
        serialize.kernel_ptx(module)


@NEEDS_PTXAS
def test_ptxas_refusal_is_reported_with_its_message():
    with pytest.raises(serialize.SerializeError, match="ptxas -arch=sm_90 rejected the PTX"):
        serialize.assemble(".version 7.8\n.target sm_90\n.address_size 64\nnot ptx at all\n", "sm_90")
    with pytest.raises(targets.GpuTargetError, match="unsupported CUDA chip 'sm_1'"):
        serialize.assemble("", "sm_1")


def test_jaxc_opt_gpu_options(tmp_path):
    source = tmp_path / "f.mlir"
    source.write_text("func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
                      "  %y = jaxc.exp %x : tensor<8xf32>\n  return %y : tensor<8xf32>\n}\n")

    def jaxc_opt(*args):
        return subprocess.run([sys.executable, "-m", "jaxc.tools.jaxc_opt", *args, str(source)],
                              capture_output=True, text=True, timeout=300)

    done = jaxc_opt("--stage=ptx", "--chip=sm_80")
    assert done.returncode == 0, done.stderr
    assert ".target sm_80" in done.stdout and "// ----- gpu.module @f_kernel (sm_80)" in done.stdout
    done = jaxc_opt("--stages", "--target=cuda")
    assert done.returncode == 0, done.stderr
    assert re.findall(r"// ===== stage: (\w+)", done.stdout)[-5:] == ["gpu", "nvvm", "ptx", "binary",
                                                                      "llvmir"]
    for args, message in ((["--stage=ptx", "--chip=sm_42"], "unsupported CUDA chip 'sm_42'"),
                          (["--stage=llvm", "--chip=sm_80"], "'--chip' needs '--target=cuda'"),
                          (["--run=f", "--target=cuda"], "'--run' runs on the CPU only"),
                          (["--stage=llvm", "--target=cuda"], "unknown stage 'llvm' of target 'cuda'")):
        done = jaxc_opt(*args)
        assert done.returncode == 1 and message in done.stderr, (args, done.stderr)
        assert "LLVM ERROR" not in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------------
# Managed memory (the allocator is faked: no GPU here)
# ---------------------------------------------------------------------------

class _FakeWrappers:
    """`mgpuMemAlloc`/`mgpuMemFree` backed by malloc/free, recording calls."""

    def __init__(self):
        import ctypes
        self.libc = ctypes.CDLL(None)
        self.libc.malloc.restype = ctypes.c_void_p
        self.libc.free.argtypes = [ctypes.c_void_p]
        self.live: set[int] = set()

    def mgpuMemAlloc(self, size, stream, shared):
        assert shared is True and stream is None
        address = self.libc.malloc(size)
        self.live.add(address)
        return address

    def mgpuMemFree(self, address, stream):
        self.live.remove(address)
        self.libc.free(address)


def test_managed_buffers_are_reused_copied_and_freed(monkeypatch):
    fake = _FakeWrappers()
    monkeypatch.setattr(cuda, "_wrappers", lambda: fake)
    monkeypatch.setattr(cuda, "_pool", {})  # the test's buffers never meet the real pool
    monkeypatch.setattr(cuda, "_pool_bytes", 0)
    buffer = cuda.managed_empty((3, 4), np.float32)
    assert buffer.shape == (3, 4) and cuda.is_managed(buffer) and len(fake.live) == 1
    assert cuda.to_managed(buffer) is buffer  # already on the device: no copy
    host = np.arange(6, dtype=np.int16).reshape(2, 3)
    moved = cuda.to_managed(host)
    assert cuda.is_managed(moved) and not cuda.is_managed(host) and len(fake.live) == 2
    np.testing.assert_array_equal(moved, host)
    assert not cuda.is_managed(buffer[1:])  # a view into the middle is not a whole buffer
    address = buffer.ctypes.data
    del buffer, moved
    import gc
    gc.collect()
    # Freed buffers wait in the pool; one of the same size is handed out again.
    assert len(fake.live) == 2 and cuda._pool_bytes == 48 + 12
    again = cuda.managed_empty((12,), np.float32)
    assert again.ctypes.data == address and len(fake.live) == 2 and cuda._pool_bytes == 12
    del again
    gc.collect()
    assert cuda.empty_pool() == 60 and fake.live == set() and cuda._pool_bytes == 0
    assert cuda.managed_empty((0,), np.float32).shape == (0,)
    # Past the limit, a freed buffer goes back to the driver at once.
    monkeypatch.setattr(cuda, "POOL_LIMIT_BYTES", 16)
    big = cuda.managed_empty((5,), np.float32)
    del big
    gc.collect()
    assert len(fake.live) == 1 and cuda._pool_bytes == 1  # only the 1-byte empty one is kept
    cuda.empty_pool()
    assert fake.live == set()


def test_no_gpu_means_no_gpu_device():
    if cuda.available():
        pytest.skip("a GPU is present")
    assert cuda.device_count() == 0
    assert [d.platform for d in jaxc.devices()] == ["cpu"] * len(jaxc.devices())
    with pytest.raises(cuda.CudaError, match="no CUDA device 0"):
        cuda.chip(0)


# ---------------------------------------------------------------------------
# On a GPU: the same programs, results equal to the CPU's
# ---------------------------------------------------------------------------

@NEEDS_GPU
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_op_group_runs_on_the_gpu_like_the_cpu(group):
    from jaxc.runtime import compile_module
    text, args, specs = numerics.module_text(GROUPS[group])
    on_cpu = compile_module(text)["main"](*[a.copy() for a in args])
    on_gpu = compile_module(text, target="cuda", chip=cuda.chip())["main"](*[a.copy() for a in args])
    for case, cpu_out, gpu_out in zip(GROUPS[group], on_cpu, on_gpu):
        gpu_out = np.array(gpu_out)
        assert gpu_out.shape == cpu_out.shape and gpu_out.dtype == cpu_out.dtype, case.id
        if case.tol is None:
            if gpu_out.dtype.kind == "f":  # libdevice vs libm: allow 2 ulp
                np.testing.assert_array_max_ulp(gpu_out, cpu_out, maxulp=2)
            else:
                np.testing.assert_array_equal(gpu_out, cpu_out, err_msg=case.id)
        else:
            np.testing.assert_allclose(gpu_out, cpu_out, rtol=case.tol[0], atol=case.tol[1],
                                       equal_nan=True, err_msg=case.id)


@NEEDS_GPU
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_whole_programs_run_on_the_gpu_like_the_cpu(name):
    fn, make_args = PROGRAMS[name]
    gpu = jaxc.devices("gpu")[0]
    on_cpu = jaxc.jit(fn)(*make_args())
    on_gpu = jaxc.jit(fn)(*jaxc.device_put(make_args(), gpu))
    for a, b in zip(jaxc.tree_util.tree_leaves(on_cpu), jaxc.tree_util.tree_leaves(on_gpu)):
        assert b.device is gpu
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=2e-5, atol=2e-5)


@NEEDS_GPU
def test_gpu_device_put_and_eager_ops():
    gpu = jaxc.devices("gpu")[0]
    assert gpu.platform == "gpu" and gpu in jaxc.devices()
    x = jaxc.device_put(np.arange(5, dtype=np.float32), gpu)
    assert x.device is gpu and cuda.is_managed(x._ready_value())
    y = jnp.sin(x) * 2
    assert y.device is gpu
    np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(5, dtype=np.float32)) * 2, rtol=1e-6)


# ---------------------------------------------------------------------------
# The host side of the GPU path, against a stand-in driver (no GPU needed)
# ---------------------------------------------------------------------------

FAKE_DRIVER_SOURCE = os.path.join(os.path.dirname(__file__), "fake_cuda", "fake_libcuda.c")

STRAIGHT_LINE = """
func.func @f(%x: tensor<1000xf32>, %w: tensor<1000x4xf32>) -> (tensor<1000xf32>, tensor<f32>, tensor<4xf32>) {
  %s = jaxc.sin %x : tensor<1000xf32>
  %r = jaxc.reduce sum %s, dims = [0] : tensor<1000xf32> -> tensor<f32>
  %p = jaxc.dot_general %s, %w, batch = [] x [], contract = [0] x [0]
         : (tensor<1000xf32>, tensor<1000x4xf32>) -> tensor<4xf32>
  %c = jaxc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = jaxc.mul %p, %c : tensor<4xf32>
  return %s, %r, %d : tensor<1000xf32>, tensor<f32>, tensor<4xf32>
}
"""

FAKE_DRIVER_SCRIPT = """
import ctypes, gc, json, sys
import numpy as np
import jaxc, jaxc.numpy as jnp
from jaxc.runtime import compile_module, cuda
fake = ctypes.CDLL("libcuda.so.1")
fake.fake_cuda_count.restype = ctypes.c_long
names = ["launches", "managed_allocs", "frees", "module_loads", "module_unloads",
         "streams_created", "streams_destroyed", "device_allocs", "prefetches"]
counts = lambda: {n: fake.fake_cuda_count(i) for i, n in enumerate(names)}
report = {"available": cuda.available(), "chip": cuda.chip(), "name": cuda.device_name()}
exe = compile_module(sys.argv[1], target="cuda", chip=cuda.chip())
report["after_compile"] = counts()
outs = exe["f"](np.ones(1000, np.float32), np.ones((1000, 4), np.float32))
report["results"] = [[list(o.shape), str(o.dtype), cuda.is_managed(o)] for o in outs]
report["after_call"] = counts()
del outs
gc.collect()
outs = exe["f"](np.ones(1000, np.float32), np.ones((1000, 4), np.float32))
report["after_second_call"] = counts()
del outs
gc.collect()
cuda.empty_pool()
report["after_gc"] = counts()
gpu = jaxc.devices("gpu")[0]
x = jaxc.device_put(np.arange(8, dtype=np.float32), gpu)
y = jaxc.jit(lambda v: jnp.tanh(v) * 2 + v.sum())(x)
z = jnp.exp(x)
y.block_until_ready()
report["devices"] = [repr(d) for d in jaxc.devices()]
report["placed"] = [repr(a.device) for a in (x, y, z)]
report["managed"] = [cuda.is_managed(a._ready_value()) for a in (x, y, z)]
import jaxc_aot
from jaxc.runtime import aot
aot.export_module(sys.argv[1], sys.argv[2], target="cuda", chip="sm_90")
before = counts()
program = jaxc_aot.load(sys.argv[2])
report["aot_module_loads"] = counts()["module_loads"] - before["module_loads"]
outs = program["f"](np.ones(1000, np.float32), np.ones((1000, 4), np.float32))
after = counts()
report["aot_launches"] = after["launches"] - before["launches"]
report["aot_balanced"] = (after["managed_allocs"] + after["device_allocs"]
                          - before["managed_allocs"] - before["device_allocs"]
                          == after["frees"] - before["frees"])
report["aot_prefetches"] = after["prefetches"] - before["prefetches"]
report["aot_results"] = [[list(o.shape), str(o.dtype)] for o in outs]
print(json.dumps(report))
"""


def test_gpu_host_path_against_a_stand_in_driver(tmp_path):
    """Compile for sm_90, load the kernels, launch, allocate and free through
    MLIR's CUDA wrappers -- by the JIT, through jit on the GPU device, and
    from an AOT export loaded by jaxc_aot -- with `fake_cuda/fake_libcuda.c`
    as the driver: every host-side step runs; the kernels themselves do not."""
    import json
    import shutil
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the stand-in driver")
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(tmp_path / "libcuda.so.1"),
                    FAKE_DRIVER_SOURCE], check=True, capture_output=True, timeout=120)
    env = dict(os.environ, LD_LIBRARY_PATH=f"{tmp_path}:{os.environ.get('LD_LIBRARY_PATH', '')}")
    done = subprocess.run([sys.executable, "-c", FAKE_DRIVER_SCRIPT, STRAIGHT_LINE,
                           str(tmp_path / "f.jaxc")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["available"] and report["chip"] == "sm_90" and report["name"] == "Fake CUDA device"

    module = ir.Module.parse(STRAIGHT_LINE, make_context())
    stages.run_stages(module, "gpu", target="cuda")
    kernels = launches(module)
    assert kernels >= 3
    # All kernels live in one module (jaxc-gpu-one-kernel-module), which the
    # constructors load once; the call launches each kernel once.
    assert str(module).count("gpu.module @") == 1
    assert report["after_compile"]["module_loads"] == 1
    assert report["after_call"]["launches"] == kernels
    assert report["after_call"]["streams_created"] == report["after_call"]["streams_destroyed"]
    assert report["results"] == [[[1000], "float32", True], [[], "float32", True], [[4], "float32", True]]
    allocs = report["after_gc"]["managed_allocs"] + report["after_gc"]["device_allocs"]
    assert allocs == report["after_gc"]["frees"] > 0
    # The arguments and results are managed memory, prefetched to the GPU
    # (2 copied in + 3 out); the temporaries only kernels touch are device memory.
    assert report["after_call"]["managed_allocs"] == 5
    assert report["after_call"]["prefetches"] == 5
    assert report["after_call"]["device_allocs"] == device_buffers(module) > 0
    # The second call takes all five from the pool of freed managed buffers;
    # the two inputs the host wrote into are prefetched again, the results not.
    second = {name: report["after_second_call"][name] - report["after_call"][name]
              for name in report["after_call"]}
    assert second["managed_allocs"] == 0 and second["prefetches"] == 2
    assert second["launches"] == kernels and second["device_allocs"] == device_buffers(module)
    assert report["devices"] == ["CpuDevice(id=0)", "CudaDevice(id=0)"]
    assert report["placed"] == ["CudaDevice(id=0)"] * 3 and all(report["managed"])
    # The exported program: its constructors load the kernels when jaxc_aot opens it.
    assert report["aot_module_loads"] == 1 and report["aot_launches"] == kernels
    assert report["aot_balanced"] and report["aot_prefetches"] == 5
    assert report["aot_results"] == [[[1000], "float32"], [[], "float32"], [[4], "float32"]]
