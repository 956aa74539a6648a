"""linalg's op classes and enums (the ODS-generated modules), without the
opdsl named-op definitions of `mlir.dialects.linalg` (see the package)."""
from mlir.dialects._linalg_enum_gen import *  # noqa: F403
from mlir.dialects._linalg_ops_gen import *  # noqa: F403
