"""`jaxc.dialect.jaxc`: the module MLIR looks up for typed op classes.

After `append_dialect_search_prefix("jaxc.dialect")`, ops parsed from text come
back as their generated classes (`op.lhs`, `op.dimensions`, ...).
"""
from ._jaxc_enum_gen import *  # noqa: F401,F403
from ._jaxc_ops_gen import *  # noqa: F401,F403
