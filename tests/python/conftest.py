"""Make the test-support modules beside this file (lowering_harness) importable,
and the fixtures tests share."""
import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# Eager one-op kernels compile about 5x faster at LLVM -O0 (jit still uses
# -O3, and the jit-vs-eager checks compare the two); see docs/frontend.md.
os.environ.setdefault("JAXC_EAGER_OPT_LEVEL", "0")

# Under pytest-xdist (make test runs a worker per core) the workers share the
# cores: an OpenMP pool spinning 10 ms after each parallel kernel would take
# the other worker's core, so the pool sleeps at once.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("KMP_BLOCKTIME", "0")


@pytest.fixture
def jax_x64():
    """JAX with jax_enable_x64 set for the test (skipped without JAX)."""
    jax = pytest.importorskip("jax")
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)


@pytest.fixture
def x64():
    """64-bit defaults (jax_enable_x64) for the test, the previous setting after."""
    import jaxc  # not at import time: the environment above must be set first

    with jaxc.enable_x64():
        yield


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_code():
    """Compiled programs and eager kernels stay cached for a whole test module,
    then go: every ExecutionEngine holds its machine code, and a worker that
    kept all of them for the whole suite grew past 15 GB."""
    yield
    import gc

    import jaxc
    jaxc.clear_caches()
    gc.collect()
