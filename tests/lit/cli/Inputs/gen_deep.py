"""Write a deeply nested MLIR input to stdout, for deep-nesting.mlir.

usage: gen_deep.py attr|unclosed|regions DEPTH
  attr      an attribute of DEPTH nested arrays ([[[...]]])
  unclosed  the same, never closed
  regions   DEPTH nested scf.execute_region ops
"""
import sys

kind, depth = sys.argv[1], int(sys.argv[2])
if kind == "attr":
    print("func.func @deep() attributes {a = " + "[" * depth + "]" * depth + "} {\n  return\n}")
elif kind == "unclosed":
    print("func.func @deep() attributes {a = " + "[" * depth)
elif kind == "regions":
    print("func.func @deep() {\n" + "scf.execute_region {\n" * depth
          + "scf.yield\n}\n" * depth + "return\n}")
else:
    sys.exit(f"unknown kind {kind}")
