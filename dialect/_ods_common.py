"""Shim for the generated op classes: they import `._ods_common`."""
from mlir.dialects import _ods_common as _upstream
from mlir.dialects._ods_common import *  # noqa: F401,F403
from mlir.dialects._ods_common import _cext  # noqa: F401

# Private helpers the generated code uses by name.
for _name in dir(_upstream):
    if _name.startswith("_") and not _name.startswith("__"):
        globals()[_name] = getattr(_upstream, _name)
