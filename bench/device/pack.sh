#!/bin/bash
# Pack what a bare GPU machine needs to run jaxc into .gpu/ (under 64 MiB with
# the repository): the pinned MLIR Python bindings for CPython 3.12 (the GPU
# image's Python), libLLVM.so, MLIR's CUDA wrappers and C runner utilities,
# llc and opt (an export runs both), optree, and jaxc's compiled parts (the
# dialect library, its generated op table and the precompiled kernels from
# this build, _fastcall rebuilt for 3.12). The Python sources travel with the tree;
# run.sh assembles the package there. See docs/gpu.md, "Running on a GPU machine".
#
#   bench/device/pack.sh            # from the repository root, after `make build`
#
# Needs: network (pip download), a CPython 3.12 with headers (PYTHON312, else
# the first python3.12 found, pyenv's included), xz. Takes ~5 minutes (xz -9e).
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel); cd "$ROOT"
SP=$(echo .venv/lib/python3*/site-packages)
PY312=""
for c in ${PYTHON312:-} $(ls -d ~/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null) $(command -v python3.12 || true); do
  "$c" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && { PY312=$c; break; }
done
[ -n "$PY312" ] || { echo "pack.sh: no working python3.12 (set PYTHON312)" >&2; exit 1; }
BINDINGS=$(grep -o 'xtc-mlir-python-bindings==[0-9.]*' Makefile)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
S=$WORK/site; mkdir -p $S/llvm/lib $S/llvm/bin $S/mlir/lib $S/jaxc_bin
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d $WORK/whl "$BINDINGS" optree
(cd $S && for w in $WORK/whl/*.whl; do unzip -q -o "$w"; done && rm -rf *.dist-info)
# Dialects jaxc never imports, and headers: left behind to stay under the size limit.
(cd $S/mlir/_mlir_libs && rm -rf include _mlirDialectsAMDGPU* _mlirDialectsIRDL* _mlirDialectsQuant* \
  _mlirDialectsSMT* _mlirDialectsSparseTensor* _mlirSparseTensorPasses* _mlirAsyncPasses*)
cp $SP/mlir/lib/{libmlir_cuda_runtime.so,libmlir_c_runner_utils.so,libmlir_float16_utils.so,libmlir_apfloat_wrappers.so} $S/mlir/lib/
# The wrappers and runner utilities name libMLIR.so (186 MB) without using a
# symbol of it (nm, docs/toolchain.md): an empty stand-in satisfies the loader.
echo 'void jaxc_empty_stand_in(void) {}' > $WORK/empty.c
gcc -shared -fPIC -Wl,-soname,libMLIR.so -o $S/mlir/lib/libMLIR.so $WORK/empty.c
cp $SP/llvm/bin/{llc,opt} $S/llvm/bin/
cp $SP/jaxc/dialect/{libjaxc_dialect.so,_jaxc_ops_gen.py,_jaxc_enum_gen.py,_jaxc_op_table.py} $S/jaxc_bin/
# The precompiled CPU kernels (gemm, fft): plain C, independent of the Python version.
cp $SP/jaxc/runtime/libjaxc_kernels.so $S/jaxc_bin/
"$PY312" -m venv $WORK/venv && $WORK/venv/bin/pip install -q numpy
INC=$("$PY312" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
NPI=$($WORK/venv/bin/python -c "import numpy; print(numpy.get_include())")
gcc -shared -fPIC -O2 -std=c11 -fvisibility=hidden -I"$INC" -I"$NPI" python/jaxc/runtime/_fastcall.c \
  -o $S/jaxc_bin/_fastcall.cpython-312-x86_64-linux-gnu.so
mkdir -p .gpu
grep -qx '/.gpu/' "$(git rev-parse --git-common-dir)/info/exclude" 2>/dev/null \
  || { mkdir -p "$(git rev-parse --git-common-dir)/info"; echo '/.gpu/' >> "$(git rev-parse --git-common-dir)/info/exclude"; }
# The two big libraries lose their static symbol tables (the loader and the
# JIT read only .dynsym): 16 + 61 MB less before compression, ~4 MiB after.
cp $SP/llvm/lib/libLLVM.so $WORK/libLLVM.so
strip --strip-unneeded $WORK/libLLVM.so $S/mlir/_mlir_libs/libMLIRPythonCAPI.so
xz -T2 --lzma2=preset=9e,dict=192MiB -c $WORK/libLLVM.so > .gpu/llvm.xz &
xz -T2 --lzma2=preset=9e,dict=192MiB -c $S/mlir/_mlir_libs/libMLIRPythonCAPI.so > .gpu/capi.xz &
tar -C $S -cf - --exclude=libMLIRPythonCAPI.so . | xz -T2 -9 > .gpu/rest.txz
wait
du -cb .gpu/* | tail -1 | awk '{printf "pack.sh: .gpu/ holds %.1f MiB\n", $1 / 1048576}'
