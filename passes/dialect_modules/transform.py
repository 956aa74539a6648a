"""The transform dialect for the passes: no op classes (the passes parse
transform scripts and hand them to the interpreter's binding module,
`passes/ir.apply_transform_script`), no 13 ms import (see the package)."""
