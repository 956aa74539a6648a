"""Make the test-support modules beside this file (lowering_harness) importable."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# Eager one-op kernels compile about 5x faster at LLVM -O0 (jit still uses
# -O3, and the jit-vs-eager checks compare the two); see docs/frontend.md.
os.environ.setdefault("JAXC_EAGER_OPT_LEVEL", "0")
