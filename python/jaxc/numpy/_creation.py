"""(in progress)"""
from ._util import asarray
def array(x, dtype=None): return asarray(x, dtype)
__all__ = ["array"]
