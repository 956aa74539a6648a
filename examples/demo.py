"""`make demo`: jaxc-opt verifies, prints and canonicalizes a jaxc program.

Until the Python front end exists (a later issue), the main job is the
compiler researcher's view: a hand-written MLP in examples/mlp.mlir goes
through jaxc-opt, then a broken program shows a diagnostic that points at the
faulty line.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
JAXC_OPT = os.path.join(BIN, "jaxc-opt")


def run(title: str, args: list[str]) -> int:
    """Runs jaxc-opt with `args`, printing the command and its output."""
    print(f"\n=== {title}\n$ jaxc-opt {' '.join(args)}", flush=True)
    done = subprocess.run([JAXC_OPT, *args], capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    sys.stdout.write(done.stderr)
    print(f"(exit status {done.returncode})")
    return done.returncode


def main() -> int:
    mlp = os.path.relpath(os.path.join(HERE, "mlp.mlir"))
    if run("Parse, verify and print the MLP (custom assembly format)", [mlp]) != 0:
        return 1
    if run("Canonicalize: the double transpose, `* 1` and constants fold away",
           [mlp, "--canonicalize", "--cse"]) != 0:
        return 1
    broken = (
        "func.func @bad(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {\n"
        "  %c = jaxc.dot_general %a, %b, batch = [] x [], contract = [1] x [0]\n"
        "         : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>\n"
        "  return %c : tensor<2x5xf32>\n"
        "}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", prefix="broken-", delete=False) as f:
        f.write(broken)
    try:
        status = run("A contraction whose sizes disagree is rejected with its line and column",
                     [f.name])
    finally:
        os.unlink(f.name)
    if status != 1:
        print("demo: expected jaxc-opt to reject the broken program")
        return 1
    print("\nDemo finished: see README.md for the tour and docs/ for each layer.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
