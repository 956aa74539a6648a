"""Light Python modules for the dialects whose upstream ones are slow to import.

The bindings import a dialect's Python module (``mlir.dialects.<namespace>``)
the first time Python sees one of its ops or attributes, to find the op
classes. Two of those cost a process's first compile more than everything
else in the passes: `mlir.dialects.linalg` defines every named op in Python
(opdsl, 60-90 ms) and `mlir.dialects.llvm` builds 50-80 ms of op classes
that no pass uses. `use()` puts this package first on the bindings' search
path, so the namespaces that have a module here get it instead::

    %0 = linalg.generic ...     # op.opview: GenericOp of _linalg_ops_gen, as before
    llvm.br ^bb1 {loop_annotation = #llvm.loop_annotation<...>}   # a plain OpView

``transform`` gets an empty module too: the passes only parse transform
scripts and apply them (`passes/ir.apply_transform_script`).

Every other namespace, and any explicit ``from mlir.dialects import linalg``,
still gets the upstream module.
"""
from __future__ import annotations

import importlib


def use() -> None:
    """Search this package before the bindings' own dialect modules (once)."""
    # By name: importing it statically makes mypy read the bindings' stubs and
    # then lose `mlir.ir` in every module.
    bindings = importlib.import_module("mlir._mlir_libs._mlir").globals
    search = list(bindings.dialect_search_modules)
    if __name__ not in search:
        bindings.dialect_search_modules = [__name__, *search]
