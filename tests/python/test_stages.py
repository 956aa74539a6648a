"""The stage table (jaxc.passes.stages): names, pipelines that build, the
check passes, and the jaxc-opt options that use it."""
from __future__ import annotations

import subprocess
import sys

import pytest
from mlir import ir

from jaxc.dialect import make_context
from jaxc.passes import lookup, stages

EXPECTED = ["traced", "transformed", "optimized", "linalg", "annotated", "propagated", "partitioned", "scheduled",
            "bufferized", "loops", "llvm", "llvmir", "asm"]

SAMPLE = """
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
"""


def test_stage_names_in_order():
    assert list(stages.STAGE_NAMES) == EXPECTED


@pytest.mark.parametrize("stage", [s for s in stages.CPU_STAGES if s.passes], ids=lambda s: s.name)
def test_every_stage_pipeline_builds(stage):
    for name in stage.passes:
        if name.startswith("jaxc-"):
            assert lookup(name) is not None, f"stage {stage.name}: pass {name} is not registered"
    assert stages.build_stage_pass_manager(stage, make_context()) is not None


def test_unknown_stage_lists_the_valid_ones():
    with pytest.raises(stages.StageError, match="unknown stage 'vector'; the stages are: traced, "):
        stages.lookup_stage("vector")


def test_stages_between():
    assert [s.name for s in stages.stages_between("linalg", "loops")] == ["annotated", "propagated", "partitioned", "scheduled",
                                                                          "bufferized", "loops"]
    assert [s.name for s in stages.stages_between(None, "traced")] == ["traced"]


def test_run_stages_calls_back_after_each_stage():
    module = ir.Module.parse(SAMPLE, make_context())
    seen = []
    asm = stages.run_stages(module, "asm", each=lambda stage, result: seen.append(stage.name))
    assert seen == EXPECTED
    assert "_mlir_ciface_f:" in asm


SCALAR_COPY_AND_ADD = """
func.func @f(%a: memref<1000x128xf32>, %u: memref<128xf32>, %out: memref<1000x128xf32>, %row: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  memref.copy %a, %out : memref<1000x128xf32> to memref<1000x128xf32>
  scf.for %j = %c0 to %c128 step %c1 {
    %x = memref.load %out[%row, %j] : memref<1000x128xf32>
    %y = memref.load %u[%j] : memref<128xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%row, %j] : memref<1000x128xf32>
  }
  return
}
"""


def test_asm_is_the_code_the_jit_runs():
    """The `asm` stage runs LLVM's IR pipeline before llc, for the host
    triple, as the JIT does: a scalar loop comes out vectorized (LLVM's loop
    vectorizer) and a copy calls memcpy. llc alone on the translated IR
    showed a scalar loop and a copy expanded into a loop of single bytes."""
    module = ir.Module.parse(SCALAR_COPY_AND_ADD, make_context())
    asm = stages.run_stages(module, "asm", first="loops")
    assert "memcpy@PLT" in asm
    assert "vaddps" in asm


def test_verifying_at_stage_boundaries_lowers_the_same():
    """`verify_each=False` (the runtime's setting) verifies after each stage,
    not after every pass: the same IR comes out, and the stage's pass manager
    is cached apart from the one that verifies after every pass."""
    context = make_context()
    lowered = {}
    managers: dict = {}
    for verify_each in (True, False):
        module = ir.Module.parse(SAMPLE, context)
        stages.run_stages(module, "llvm", pass_managers=managers, verify_each=verify_each)
        lowered[verify_each] = str(module)
    assert lowered[True] == lowered[False]
    assert "llvm.func @_mlir_ciface_f" in lowered[False]
    keys = {verify for _, verify in managers}
    assert keys == {True, False}


def test_check_no_requests_names_the_op_and_the_pass_that_expands_it():
    text = """
    func.func private @g(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = jaxc.vmap @g(%x) in_axes = [0] out_axes = [0] axis_size = 4 : (tensor<4xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    }"""
    result = subprocess.run([sys.executable, "-m", "jaxc.tools.jaxc_opt",
                             "--pass-pipeline=builtin.module(jaxc-check-no-requests)", "-"],
                            input=text, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "<stdin>:4:" in result.stderr
    assert "'jaxc.vmap' request cannot be expanded yet: the jaxc-batch pass did not expand it" \
        in result.stderr
    expanded = subprocess.run([sys.executable, "-m", "jaxc.tools.jaxc_opt", "--stage=transformed", "-"],
                              input=text, capture_output=True, text=True, timeout=120)
    assert expanded.returncode == 0, expanded.stderr
    assert "jaxc.vmap" not in expanded.stdout
