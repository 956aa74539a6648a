# The generated enum bindings assume they live in mlir/dialects and import
# `from ..ir`; ours live in jaxc/dialect, so point them at mlir.ir.
file(READ "${IN}" text)
string(REPLACE "from ..ir import" "from mlir.ir import" text "${text}")
file(WRITE "${OUT}" "${text}")
