#!/bin/bash
# On the GPU machine, from the repository root (carrying .gpu/ from pack.sh):
# unpack the toolchain into /tmp/site, assemble the jaxc package from this
# tree, then bench/gpu.py and tests/python/test_gpu.py. Output under $OUT.
#
#   BENCH_S=150 TEST_S=240 bash bench/device/run.sh [bench/gpu.py arguments]
R=$PWD; S=/tmp/site; OUT=${OUT:-/tmp/out}; mkdir -p $OUT
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=/tmp/site
date; nvidia-smi -L; python3 --version
T0=$(date +%s)
if [ ! -f $S/.unpacked ]; then
  mkdir -p $S/llvm/lib $S/mlir/_mlir_libs
  tar xJf .gpu/rest.txz -C $S &
  xz -dc .gpu/llvm.xz > $S/llvm/lib/libLLVM.so &
  xz -dc .gpu/capi.xz > $S/mlir/_mlir_libs/libMLIRPythonCAPI.so &
  wait; touch $S/.unpacked
fi
# The jaxc package as the wheel lays it out (pyproject.toml, wheel.packages).
rm -rf $S/jaxc $S/jaxc_aot
cp -r python/jaxc $S/jaxc; cp -r python/jaxc_aot $S/jaxc_aot
rm -rf $S/jaxc/dialect $S/jaxc/passes $S/jaxc/tools
cp -r dialect $S/jaxc/dialect; cp -r passes $S/jaxc/passes; cp -r tools $S/jaxc/tools
cp $S/jaxc_bin/libjaxc_dialect.so $S/jaxc_bin/_jaxc_*_gen.py $S/jaxc_bin/_jaxc_op_table.py $S/jaxc/dialect/
cp $S/jaxc_bin/_fastcall.*.so $S/jaxc_bin/libjaxc_kernels.so $S/jaxc/runtime/
echo "unpacked and assembled in $(( $(date +%s) - T0 )) s"
for d in /usr/local/cuda /usr/local/cuda-*; do
  [ -f $d/nvvm/libdevice/libdevice.10.bc ] && [ -x $d/bin/ptxas ] && { export JAXC_CUDA_TOOLKIT=$d; break; }
done
echo "toolkit: ${JAXC_CUDA_TOOLKIT:-none}"
python3 -c "import jaxc; from jaxc.runtime import cuda; print(jaxc.devices(), cuda.chip(), cuda.device_name())"
timeout ${BENCH_S:-150} python3 bench/gpu.py "$@" 2>&1 | tee $OUT/bench_gpu.txt
timeout ${TEST_S:-240} python3 -m pytest -q -n 14 -p no:cacheprovider -rs tests/python/test_gpu.py \
  > $OUT/test_gpu.txt 2>&1
echo "pytest exit status $?"; tail -40 $OUT/test_gpu.txt
echo "total $(( $(date +%s) - T0 )) s"
