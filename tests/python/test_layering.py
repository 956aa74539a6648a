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
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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
            base = _absolute(node, package)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` in `package` imports from."""
    base = node.module or ""
    if not node.level:
        return base
    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
    return ".".join(parts + ([base] if base else []))


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


def _module_name(path: Path) -> str:
    package = _package_of(path)
    return package if path.name == "__init__.py" else f"{package}.{path.stem}"


def module_level_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that the file imports when it loads: imports
    at its top level (inside ``if``/``try`` too, not under ``TYPE_CHECKING``),
    each resolved to the submodule it names (``from . import x`` is `x` when x
    is a module of the package, or a compiled one: ``_fastcall.c``) or else to
    the package itself; the implicit import of a module's own parent package
    is not counted."""
    package = _package_of(path)
    found: set[str] = set()

    def submodule(base: str, name: str) -> str | None:
        if f"{base}.{name}" in modules:
            return f"{base}.{name}"
        folder = _PACKAGE_DIRS.get(base)
        compiled = folder is not None and any(folder.glob(f"{name}.*"))
        return None if compiled else base

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                found.update(filter(None, (submodule(base, alias.name) for alias in node.names)))

    visit(ast.parse(path.read_text(), str(path)).body)
    return {name for name in found if name in modules and name != _module_name(path)}


_FILES = {path: _module_name(path) for path in [*sorted((ROOT / "python" / "jaxc").rglob("*.py")),
                                                *sorted((ROOT / "passes").rglob("*.py"))]}
_PACKAGE_DIRS = {module: path.parent for path, module in _FILES.items() if path.name == "__init__.py"}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules in `graph`
    (module -> the modules it imports), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def connect(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                connect(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            members = []
            while not members or members[-1] != module:
                members.append(stack.pop())
            if len(members) > 1:
                cycles.append(sorted(members))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return cycles


def test_modules_import_each_other_in_no_cycle_when_they_load():
    """A submodule never imports its package back (``from .. import numpy as
    jnp`` in jnp's own modules): each imports the submodules it uses, so the
    load order is one order and mypy sees each module after those it uses."""
    modules = set(_FILES.values())
    graph = {module: module_level_imports(path, modules) for path, module in _FILES.items()}
    assert len(graph) > 200
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    linalg = ROOT / "python" / "jaxc" / "numpy" / "linalg.py"
    found = module_level_imports(linalg, set(_FILES.values()))
    assert {"jaxc.numpy._linalg", "jaxc.numpy._shape", "jaxc.lax"} <= found
    assert "jaxc.lax._eig" not in found  # imported inside a function
    cpu = ROOT / "python" / "jaxc" / "runtime" / "cpu.py"
    assert "jaxc.runtime" not in module_level_imports(cpu, set(_FILES.values()))  # `_fastcall` is compiled


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


def _factor_and_solve(a, b):
    """jaxc.lu (complex: expanded by a pass) and jaxc.triangular_solve (their
    derivative rules run in jaxc-autodiff)."""
    import jaxc.numpy as jnp
    from jaxc import lax
    factors = lax.linalg.lu(a * (1 + 1j))[0]
    x = lax.linalg.triangular_solve(a, b, lower=True)  # b (3, 4): x a = b
    return jnp.abs(factors).sum() + (lax.linalg.lu(a)[0] ** 2).sum() + x.sum()


def _decompositions(a):
    """jaxc.qr, jaxc.eigh and jaxc.svd, complex (expanded by a pass into the
    programs of lax/_decomposition_programs.py and lax/_svd_program.py)."""
    from jaxc import lax
    c = a * (1 + 1j)
    q, r = lax.linalg.qr(c)
    v, w = lax.linalg.eigh(c)
    return q, r, v, w, lax.linalg.svd(c)


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
                jaxc.jit(jaxc.jacfwd(lambda x: jnp.cumsum(jnp.sort(x)) * x)).lower(xs[0, 0]).as_text(),
                jaxc.jit(jaxc.vmap(jaxc.grad(_factor_and_solve), in_axes=(0, None))).lower(
                    np.eye(4, dtype=np.float32) * 2 + xs[:, :, :1].reshape(5, 2, 1, 1).sum(1), w).as_text()]
    a = np.arange(9, dtype=np.float32).reshape(3, 3) / 9 + np.eye(3, dtype=np.float32)
    programs.append(jaxc.jit(jaxc.vmap(_decompositions)).lower(np.stack([a, a.T * 2])).as_text())
    # jaxc.top_k: its derivative rules (a gather, a scatter-add), and its program (int32: expanded by a pass)
    programs.append(jaxc.jit(jaxc.vmap(jaxc.grad(lambda v: (lax.top_k(v, 2)[0] ** 2).sum()))).lower(xs[0]).as_text())
    programs.append(jaxc.jit(jaxc.vmap(lambda v: lax.top_k(v, 2))).lower(xs[0].astype(np.int32)).as_text())
    assert all("jaxc.vmap" in t or "jaxc.jvp" in t for t in programs)  # requests for the passes to expand
    path = tmp_path / "programs.json"
    path.write_text(json.dumps(programs))
    done = subprocess.run([sys.executable, "-c", _RUN_STAGES, str(path)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_jaxc_scipy_imports_a_submodule_on_first_use():
    """As JAX's lazy loader: `jaxc.scipy.special.logsumexp` loads `special`
    (and what it needs), not all twelve submodules."""
    probe = ("import json, sys, numpy as np, jaxc, jaxc.scipy\n"
             "before = sorted(m for m in sys.modules if m.startswith('jaxc.scipy.'))\n"
             "value = float(jaxc.scipy.special.logsumexp(np.array([0.0, 0.0], np.float32)))\n"
             "after = sorted(m for m in sys.modules if m.startswith('jaxc.scipy.'))\n"
             "print(json.dumps([before, after, value]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    before, after, value = json.loads(done.stdout.splitlines()[-1])
    assert before == [] and "jaxc.scipy.special" in after
    assert not {"jaxc.scipy.linalg", "jaxc.scipy.stats", "jaxc.scipy.signal", "jaxc.scipy.spatial"} & set(after)
    assert abs(value - np.log(2)) < 1e-6
    import jaxc.scipy
    for name in jaxc.scipy.__all__:
        assert getattr(jaxc.scipy, name).__name__ == f"jaxc.scipy.{name}"
    with pytest.raises(AttributeError, match="no attribute 'special_functions'"):
        jaxc.scipy.special_functions  # noqa: B018


# ----------------------------------------------------------------------------
# What a process's first CPU compile loads (docs/performance.md, "first compile")
# ----------------------------------------------------------------------------

SLOW_TO_LOAD = ("mlir.dialects.linalg", "mlir.dialects.llvm", "mlir.dialects.transform")


def test_passes_build_linalg_ops_and_apply_transform_scripts_without_the_upstream_modules():
    files = sorted((ROOT / "passes").rglob("*.py"))
    assert _violations(files, SLOW_TO_LOAD) == []


_FIRST_COMPILE = """
import json, sys
import numpy as np
import jaxc, jaxc.numpy as jnp
x = np.linspace(-1, 1, 48, dtype=np.float32).reshape(6, 8)
out = jaxc.jit(lambda a: jnp.cumsum(jnp.zeros((8, 6)).at[1].set(1) + a.T @ a[:, :6].T, 1).T)(x)
expected = np.cumsum(x.T @ x[:, :6].T + (np.arange(8) == 1)[:, None], 1).T
np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5, atol=1e-5)
maps = open("/proc/self/maps").read()
print(json.dumps({"modules": sorted(name for name in sys.modules
                                    if name.startswith(("mlir.dialects.linalg", "mlir.dialects.llvm",
                                                        "mlir.dialects.transform", "mlir.dialects.shard",
                                                        "jaxc.runtime.compile_cache",
                                                        "jaxc.passes.gpu.register"))),
                  "libMLIR": "/libMLIR.so" in maps}))
"""


def test_a_first_cpu_compile_loads_none_of_the_slow_modules_it_does_not_need():
    """Neither opdsl, nor the llvm, transform and shard op classes, nor the GPU
    passes, nor libMLIR, nor the persistent cache while it is off."""
    env = {**os.environ, "JAXC_CPU_COMPILER": "jit"}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", _FIRST_COMPILE], capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"modules": [], "libMLIR": False}


def test_linalg_ops_build_what_the_upstream_helpers_build():
    from mlir import ir
    from mlir.dialects import arith, func, linalg as upstream, tensor

    from jaxc.dialect import make_context
    from jaxc.passes import linalg_ops

    def build(ops):
        with make_context(), ir.Location.unknown():
            module = ir.Module.create()
            f32 = ir.F32Type.get()
            with ir.InsertionPoint(module.body):
                @func.FuncOp.from_py_func(ir.RankedTensorType.get([4, 3], f32),
                                          ir.MemRefType.get([4, 3], f32), ir.MemRefType.get([4, 3], f32))
                def f(x, m, n):
                    one = arith.ConstantOp(f32, 1.0).result
                    filled = ops.fill(one, outs=[tensor.EmptyOp([4, 3], f32).result])
                    copied = ops.copy(x, outs=[filled])
                    ops.copy(m, outs=[n])  # on memrefs: no result
                    ops.fill(one, outs=[m])
                    return ops.transpose(copied, outs=[tensor.EmptyOp([3, 4], f32).result],
                                         permutation=[1, 0]).result
            assert module.operation.verify()
            kinds = [type(op).__name__ for op in module.body.operations[0].regions[0].blocks[0].operations]
            return module.operation.get_asm(print_generic_op_form=True), kinds

    ours, kinds = build(linalg_ops)
    assert ours == build(upstream)[0]
    assert {"FillOp", "CopyOp", "TransposeOp"} <= set(kinds)
