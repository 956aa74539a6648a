"""The llvm dialect for the passes: no op classes (they only walk llvm ops and
set attributes, through plain OpViews), no 50-80 ms import (see the package).
`translate_module_to_llvmir` comes from the binding module directly."""
