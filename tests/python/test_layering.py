"""The layering rules of docs/architecture.md, checked on the code.

- The dialect imports nothing of jaxc's but itself.
- Passes never import the NumPy layer (`jaxc.numpy`, nor the libraries on
  top of it): their rules build IR with `jaxc.lax`, and operators on tracers
  inside a rule are lax functions (`jaxc._operators.RULE_OPERATORS`). Running
  every stage of a program that uses vmap, grad, control flow and gathers
  loads no `jaxc.numpy` module.
- `jaxc.core` imports nothing above it: lax and jnp attach the operators,
  the iteration of tracers and `as_operand`'s conversion from above.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FRONT_END_ABOVE_LAX = ("jaxc.numpy", "jaxc.scipy", "jaxc.nn", "jaxc.example_libraries", "jaxc.random",
                       "jaxc.api", "jaxc._operators")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, relative ones
    resolved against the file's package, function-level imports included."""
    tree = ast.parse(path.read_text(), str(path))
    package = _package_of(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _package_of(path: Path) -> str:
    """The package a source file belongs to, as installed (passes/ is jaxc.passes)."""
    relative = path.relative_to(ROOT)
    top = {"passes": "jaxc.passes", "dialect": "jaxc.dialect", "tools": "jaxc.tools"}
    if relative.parts[0] == "python":
        parts = list(relative.parts[1:-1])
    else:
        parts = top[relative.parts[0]].split(".") + list(relative.parts[1:-1])
    return ".".join(parts)


def _violations(files, forbidden) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}: imports {name}" for path in files
            for line, name in imported_modules(path) if name.startswith(forbidden)]


def test_the_dialect_imports_nothing_of_jaxc_but_itself():
    files = sorted((ROOT / "dialect").glob("*.py"))
    assert files
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {name}" for path in files
           for line, name in imported_modules(path)
           if name.startswith("jaxc") and not name.startswith("jaxc.dialect")]
    assert bad == []


def test_passes_never_import_the_numpy_layer():
    files = sorted((ROOT / "passes").rglob("*.py"))
    assert len(files) > 50
    assert _violations(files, FRONT_END_ABOVE_LAX) == []


def test_core_imports_nothing_above_it():
    assert _violations([ROOT / "python" / "jaxc" / "core.py"],
                       FRONT_END_ABOVE_LAX + ("jaxc.lax", "jaxc._autodiff", "jaxc._batching")) == []


def test_the_import_checker_sees_imports_inside_functions(tmp_path):
    # a check that cannot fail proves nothing: the checker finds a late import
    probe = ROOT / "passes" / "schedule.py"
    found = [name for _, name in imported_modules(probe)]
    assert "jaxc.passes.ir" in found and "jaxc.passes.schedules.contraction" in found


_RUN_STAGES = """
import json, sys
from mlir import ir
from jaxc.dialect import make_context
from jaxc.passes import stages
texts = json.load(open(sys.argv[1]))
context = make_context()
for text in texts:
    stages.run_stages(ir.Module.parse(text, context), "llvm")
print(json.dumps(sorted(name for name in sys.modules if name.startswith(("jaxc.numpy", "jaxc.scipy")))))
"""


def test_running_every_stage_loads_no_numpy_layer(tmp_path):
    import jaxc
    import jaxc.numpy as jnp
    from jaxc import lax

    def loss(w, x):
        h = jnp.tanh(x @ w) ** 2 + jnp.exp(-x[:, :1]) / 2
        h = lax.cond(h.sum() > 0, lambda v: v * 3.0, lambda v: jnp.log1p(v * v), h)
        carry, ys = lax.scan(lambda c, r: (c + jnp.sin(r).sum(), r.max()), 0.0, h)
        idx = jnp.argsort(ys)[:2]
        return carry + jnp.where(ys[idx] > 0, ys[idx], 0.5 * ys[idx]).sum() + jnp.linalg.norm(w)

    w = np.ones((3, 4), np.float32) * 0.1
    xs = np.linspace(-1, 1, 30, dtype=np.float32).reshape(5, 2, 3)
    programs = [jaxc.jit(jaxc.vmap(jaxc.grad(loss), in_axes=(None, 0))).lower(w, xs).as_text(),
                jaxc.jit(jaxc.jacfwd(lambda x: jnp.cumsum(jnp.sort(x)) * x)).lower(xs[0, 0]).as_text()]
    assert all("jaxc.vmap" in t or "jaxc.jvp" in t for t in programs)  # requests for the passes to expand
    path = tmp_path / "programs.json"
    path.write_text(json.dumps(programs))
    done = subprocess.run([sys.executable, "-c", _RUN_STAGES, str(path)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []
