"""`jaxc-autodiff`: expand `jaxc.jvp` and `jaxc.vjp` requests (DESIGN.md
section 3; docs/autodiff.md).

- `autodiff.py` — the pass: innermost requests first, until none is left.
- `jvp.py`, `vjp.py` — the two interpreters that derive `@f_jvp`, `@f_vjp`.
- rule tables by op family: `elementwise.py`, `structural.py`,
  `reductions.py`, `control_flow.py`.

The rule tables import the front end's lax functions (rules are written
with them), so they load when the pass first runs, not when jaxc-opt starts.
"""
from . import autodiff  # noqa: F401  registers jaxc-autodiff
