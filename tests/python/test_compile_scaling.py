"""Compile time against program size (issue #20), checked by structure, never
by time: the IR that `jaxc-autodiff` leaves for nested conds under grad grows
linearly (it was quadratic, with a whole-module walk per nesting level on
top), more levels than the pass once allowed rounds compile and match finite
differences, and `jaxc-bound-fusion` keeps every fused elementwise body
within its bound (upstream fusion is quadratic in the length of a chain)."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax


def nested_conds(n):
    def level(k, y):
        if k == 0:
            return jnp.sin(y)
        return lax.cond(y > 0, lambda z: level(k - 1, z) * 1.01, lambda z: jnp.cos(z) - 0.5, y)
    return lambda x: level(n, x)


def nested_conds_np(n, x):
    if n == 0:
        return np.sin(x)
    return nested_conds_np(n - 1, x) * 1.01 if x > 0 else np.cos(x) - 0.5


def nested_conds_arg(n):
    """Each level's argument computed in its branch (the IR keeps the nesting)."""
    def level(k, y):
        if k == 0:
            return jnp.sin(y)
        return lax.cond(y > 0, lambda z: level(k - 1, z * 1.01), jnp.cos, y)
    return lambda x: level(n, x)


def nested_conds_arg_np(n, x):
    if n == 0:
        return np.sin(x)
    return nested_conds_arg_np(n - 1, x * 1.01) if x > 0 else np.cos(x)


def on_big_stack(fun):
    """Run `fun` on a thread with room for N-deep tracing; return its result."""
    result, errors = [], []

    def target():
        try:
            result.append(fun())
        except BaseException as error:  # noqa: BLE001 -- re-raised below
            errors.append(error)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    threading.stack_size(256 << 20)
    try:
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(0)
        sys.setrecursionlimit(limit)
    if errors:
        raise errors[0]
    return result[0]


def transformed_lines(n):
    text = jaxc.jit(jaxc.grad(nested_conds(n))).lower(np.float32(0.3)).as_text(stage="transformed")
    return text.count("\n")


def test_grad_of_nested_conds_transformed_size_is_linear():
    small, large = on_big_stack(lambda: (transformed_lines(20), transformed_lines(40)))
    # Linear: doubling N about doubles it (it was 29k -> 185k lines, x6.3).
    assert large < 2.4 * small, (small, large)


def test_vjps_whose_primal_results_are_dropped_do_not_copy_the_nest_below(monkeypatch):
    """A cond's adjoint recomputes its branch, so the vjp of a branch whose
    primal results nobody uses (each level's, under grad) skips the forward
    copy of a cond that only feeds the return: the N levels then copy no
    nest (it copied N - k conds at level k: N^2/2 ops, then erased them)."""
    from jaxc.passes.autodiff import vjp
    copies = []
    real = vjp.apply_op

    def counting(op, operands):
        copies.append(op.name)
        return real(op, operands)
    monkeypatch.setattr(vjp, "apply_op", counting)
    n = 30
    grad = jaxc.jit(jaxc.grad(nested_conds_arg(n)))
    on_big_stack(lambda: grad.lower(np.float32(0.3)).as_text(stage="transformed"))
    assert copies.count("jaxc.cond") <= 1, copies.count("jaxc.cond")  # the top level's forward cond
    for x in (0.3, -0.3):
        got = float(on_big_stack(lambda: grad(np.float32(x))))
        want = (nested_conds_arg_np(n, x + 1e-6) - nested_conds_arg_np(n, x - 1e-6)) / 2e-6
        np.testing.assert_allclose(got, want, rtol=1e-4)


def test_outlining_a_conds_branches_copies_it_once(monkeypatch):
    """`outline_regions` takes every branch from one copy of the cond (a
    copy per branch copied the nest in the other branch too) and leaves the
    cond as it was."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import ir as pir
    text = on_big_stack(lambda: jaxc.jit(nested_conds_arg(5)).lower(np.float32(0.3)).as_text())
    module = ir.Module.parse(text, make_context())
    cond = pir.ops_named(module.operation, ("jaxc.cond",))[-1]  # the outermost (walk order: inner first)
    before = str(cond)
    clones = []
    real_clone = ir.Operation.clone

    def counting_clone(op, *args, **kwargs):
        clones.append(op.name)
        return real_clone(op, *args, **kwargs)
    monkeypatch.setattr(ir.Operation, "clone", counting_clone)
    with module.context:
        names = pir.outline_regions(cond, "branch")
    monkeypatch.undo()
    assert clones == ["jaxc.cond"] and len(names) == 2 and str(cond) == before
    functions = pir.functions(module.operation)
    bodies = [pir.ops_named(functions[name], ("jaxc.cond",)) for name in names]
    assert [len(found) for found in bodies] == [0, 4]  # cos | the four levels below
    module.operation.verify()


def count_cond_clones(monkeypatch, fun):
    """How many times `fun` clones a jaxc.cond (regions included)."""
    from mlir import ir
    clones = []
    base = ir.OpView.__mro__[1]  # Operation's and OpView's base, which defines clone
    real_clone = base.clone

    def counting_clone(op, *args, **kwargs):
        if op.name == "jaxc.cond":
            clones.append(op.name)
        return real_clone(op, *args, **kwargs)
    monkeypatch.setattr(base, "clone", counting_clone)
    try:
        fun()
    finally:
        monkeypatch.undo()
    return len(clones)


def test_derivatives_of_branch_functions_take_their_regions(monkeypatch):
    """jaxc-autodiff erases each outlined branch function once its vjp is
    inlined, so the vjp's cond rule moves the nest below into the next
    level's functions instead of copying it: the top level (the user's
    function, which stays) is the only cond copied. Copying cost N - k conds
    at level k, then erasing them, N^2 in all (issue #20)."""
    n = 30
    grad = jaxc.jit(jaxc.grad(nested_conds_arg(n)))
    clones = count_cond_clones(monkeypatch, lambda: on_big_stack(
        lambda: grad.lower(np.float32(0.3)).as_text(stage="transformed")))
    assert clones == 1, clones
    for x in (0.3, -0.3):
        got = float(on_big_stack(lambda: grad(np.float32(x))))
        want = (nested_conds_arg_np(n, x + 1e-6) - nested_conds_arg_np(n, x - 1e-6)) / 2e-6
        np.testing.assert_allclose(got, want, rtol=1e-4)


def test_nested_conds_naming_functions_under_grad_jvp_and_hessian():
    """Branch functions that name other functions (a custom_jvp rule at the
    bottom of the nest) are walked, not assumed empty; a function derived
    twice (jvp of grad: the hessian) is copied, not taken."""
    @jaxc.custom_jvp
    def f(x):
        return jnp.exp(x)
    f.defjvp(lambda p, t: (jnp.exp(p[0]), 3.0 * t[0] * p[0]))

    def nest(n):
        def level(k, y):
            if k == 0:
                return f(y)
            return lax.cond(y > 0, lambda z: level(k - 1, z * 1.01), jnp.sin, y)
        return lambda x: level(n, x)
    n = 20
    scale = 1.01 ** n
    grad = jaxc.jit(jaxc.grad(nest(n)))
    # f's rule: d f(u) = 3 u du, u = x * 1.01^n
    np.testing.assert_allclose(float(on_big_stack(lambda: grad(np.float32(0.5)))), 3 * 0.5 * scale ** 2, rtol=1e-5)
    np.testing.assert_allclose(float(on_big_stack(lambda: grad(np.float32(-0.5)))), np.cos(-0.5), rtol=1e-5)
    hessian = jaxc.jit(jaxc.hessian(nest(n)))
    np.testing.assert_allclose(float(on_big_stack(lambda: hessian(np.float32(0.5)))), 3 * scale ** 2, rtol=1e-5)
    np.testing.assert_allclose(float(on_big_stack(lambda: hessian(np.float32(-0.5)))), -np.sin(-0.5), rtol=1e-5)
    jvp = jaxc.jit(lambda x, t: jaxc.jvp(nest(n), (x,), (t,)))
    primal, tangent = on_big_stack(lambda: jvp(np.float32(0.5), np.float32(2.0)))
    np.testing.assert_allclose(float(primal), np.exp(0.5 * scale), rtol=1e-5)
    np.testing.assert_allclose(float(tangent), 3 * 0.5 * scale * 2.0 * scale, rtol=1e-5)


def test_vmap_of_150_nested_conds_matches_a_loop(monkeypatch):
    """More levels than the 100 rounds jaxc-batch used to allow; each round
    erases the batched functions it inlined, so their requests are not
    expanded again in them (vmap of N nested conds expanded ~N^2/2
    requests: 14 s at N = 100, now under 1 s)."""
    from jaxc.passes import ir as pir
    inlined = []
    real = pir.inline_call

    def counting(call, callee):
        if call.name == "jaxc.vmap":
            inlined.append(call.name)
        return real(call, callee)
    from jaxc.passes.batching import batch
    monkeypatch.setattr(batch, "inline_call", counting)
    n = 150
    xs = np.array([0.3, -0.3, 2.0, -1.5], np.float32)
    mapped = jaxc.jit(jaxc.vmap(nested_conds_arg(n)))
    got = on_big_stack(lambda: np.asarray(mapped(xs)))
    np.testing.assert_allclose(got, [nested_conds_arg_np(n, x) for x in xs], rtol=1e-5)  # float32 steps, as jaxc
    assert len(inlined) <= 2 * n + 1, len(inlined)  # each level's two branches, once


def function_depths(text, ops=("jaxc.cond",)):
    """function name -> how many of `ops` it holds one inside the other."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import ir as pir

    def depth(op):
        inner = [depth(child) for region in op.regions for block in region.blocks for child in block.operations]
        return max(inner, default=0) + (op.name in ops)
    module = ir.Module.parse(text, make_context())
    return {name: depth(fn) for name, fn in pir.functions(module.operation).items()}


def test_deep_nests_are_cut_into_functions_of_bounded_depth():
    """jaxc-outline-deep-regions moves every branch nested 16 conds deep
    into a function (upstream passes took N^2 time on N nested conds);
    the program computes the same."""
    n = 40
    grad = jaxc.jit(jaxc.grad(nested_conds_arg(n)))
    before = function_depths(on_big_stack(lambda: grad.lower(np.float32(0.3)).as_text(stage="transformed")))
    after = function_depths(on_big_stack(lambda: grad.lower(np.float32(0.3)).as_text(stage="optimized")))
    assert max(before.values()) == n, before
    assert max(after.values()) <= 16 and len(after) >= 3, after
    vmapped = jaxc.jit(jaxc.vmap(grad))
    xs = np.array([0.3, -0.3, 2.0, -1.5], np.float32)
    got = on_big_stack(lambda: np.asarray(vmapped(xs)))
    want = [(nested_conds_arg_np(n, x + 1e-6) - nested_conds_arg_np(n, x - 1e-6)) / 2e-6 for x in xs.astype(np.float64)]
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_deep_nests_of_loops_run_as_before():
    """Nested fori_loops and scans more than 16 deep (their bodies outlined
    too) give the numbers of a Python loop."""
    def nest(k, x):
        if k == 0:
            return jnp.sin(x)
        if k % 2:
            return lax.fori_loop(0, 2, lambda i, y: nest(k - 1, y) * 0.5 + 0.1, x)
        return lax.scan(lambda c, _: (nest(k - 1, c), None), x, None, length=1)[0]

    def nest_np(k, x):
        if k == 0:
            return np.sin(x)
        if k % 2:
            for _ in range(2):
                x = nest_np(k - 1, x) * 0.5 + 0.1
            return x
        return nest_np(k - 1, x)
    k = 18
    x = np.array([0.3, -1.2, 2.5], np.float32)
    f = jaxc.jit(lambda v: nest(k, v))
    loops = ("jaxc.while", "jaxc.scan")
    assert max(function_depths(on_big_stack(lambda: f.lower(x).as_text(stage="transformed")), loops).values()) == k
    after = function_depths(on_big_stack(lambda: f.lower(x).as_text(stage="optimized")), loops)
    assert max(after.values()) <= 16 and len(after) >= 2, after
    np.testing.assert_allclose(on_big_stack(lambda: np.asarray(f(x))), nest_np(k, x.astype(np.float64)), rtol=1e-5)


def test_grad_of_150_nested_conds_matches_finite_differences():
    # More levels than the 100 rounds jaxc-autodiff used to allow.
    n = 150
    grad = on_big_stack(lambda: jaxc.jit(jaxc.grad(nested_conds(n))))
    for x in (0.3, -0.3):
        got = float(on_big_stack(lambda: grad(np.float32(x))))
        h = 1e-6
        want = (nested_conds_np(n, x + h) - nested_conds_np(n, x - h)) / (2 * h)
        np.testing.assert_allclose(got, want, rtol=1e-4)


def branch_depths_of_empty_uses(text):
    """For `text` (at the scheduled stage) after the passes of the bufferized
    stage that come before one-shot-bufferize: how many scf.if levels below
    its tensor.empty each use of one lies."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import pipeline, stages
    from jaxc.passes.ir import ops_named

    bufferized = next(stage for stage in stages.CPU_STAGES if stage.name == "bufferized")
    before = [p for p in bufferized.passes[:next(i for i, p in enumerate(bufferized.passes)
                                                 if p.startswith("one-shot-bufferize"))]]
    module = ir.Module.parse(text, make_context())
    pipeline.build_pass_manager(pipeline.parse_pipeline(f"builtin.module({','.join(before)})"),
                                module.context).run(module.operation)
    depths = []
    for empty in ops_named(module.operation, ("tensor.empty",)):
        for use in empty.results[0].uses:
            block, depth = use.owner.operation.block, 0
            while block != empty.block:
                depth += block.owner.operation.name == "scf.if"
                block = block.owner.operation.block
            depths.append(depth)
    return depths


def test_grad_of_nested_conds_gives_deep_branches_their_own_empty_tensors():
    # CSE leaves one tensor.empty as the destination of kernels at every
    # depth; one-shot-bufferize's analysis of that grew as N^5 (3.7 s for 40).
    text = on_big_stack(lambda: jaxc.jit(jaxc.grad(nested_conds_arg(40))).lower(np.float32(0.3))
                        .as_text(stage="scheduled"))
    assert text.count("scf.if") >= 40
    depths = branch_depths_of_empty_uses(text)
    assert len(depths) >= 80 and max(depths) <= 1, sorted(depths)[-5:]
    grad = on_big_stack(lambda: jaxc.jit(jaxc.grad(nested_conds_arg(40))))
    for x in (0.3, -0.3):
        got = float(on_big_stack(lambda: grad(np.float32(x))))
        want = (nested_conds_arg_np(40, x + 1e-6) - nested_conds_arg_np(40, x - 1e-6)) / 2e-6
        np.testing.assert_allclose(got, want, rtol=1e-4)


def chain(n, np_, call=True):
    def f(x):
        for i in range(n):
            if i % 2 == 0:
                x = np_.sin(x) if call else x + 0.5
            else:
                x = x * 1.01
        return x
    return f


def fused(text):
    """`text` (at the linalg stage) after the fusion passes of the scheduled stage."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import pipeline, stages

    module = ir.Module.parse(text, make_context())
    pipeline.build_pass_manager(pipeline.parse_pipeline(
        f"builtin.module({','.join(stages.FUSION)})"), module.context).run(module.operation)
    return str(module)


@pytest.mark.parametrize("call,most,kernels", [(True, 128, 10), (False, 512, 3)])
def test_long_elementwise_chain_is_fused_in_bounded_kernels(call, most, kernels):
    n = 1200
    x = np.linspace(-2, 2, 8).astype(np.float32)
    f = jaxc.jit(chain(n, jnp, call))
    text = fused(f.lower(x).as_text(stage="linalg"))
    assert "jaxc.fusion_barrier" not in text and "linalg.copy" not in text
    # One body op per jnp op: jaxc-bound-fusion cuts the chain every 128 ops
    # for the upstream pass; jaxc-fuse-elementwise-dags joins the pieces into
    # kernels of at most 512 body ops (4 + 4 + 2 pieces), but not bodies that
    # call libmvec (sin): those stay at 128.
    bodies = [len(re.findall(r"= (?:math\.sin|arith\.mulf|arith\.addf)", body))
              for body in re.split(r"linalg\.generic", text)[1:]]
    assert sum(bodies) == n and max(bodies) <= most and len(bodies) == kernels, bodies
    np.testing.assert_allclose(np.asarray(f(x)), chain(n, np, call)(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-6)


ROUNDS_OF_ROW_MAXIMA = textwrap.dedent("""
    import sys
    import numpy as np
    import jaxc, jaxc.numpy as jnp

    def largest_first(x, rounds):
        # each round: the largest value not taken yet, then the first index holding it
        iota = jnp.arange(x.shape[1])
        m = jnp.full(x.shape[:1], jnp.inf, x.dtype)
        i = jnp.full(x.shape[:1], -1, iota.dtype)
        taken = []
        for _ in range(rounds):
            remaining = (x < m[:, None]) | ((x == m[:, None]) & (iota > i[:, None]))
            m = jnp.max(jnp.where(remaining, x, -jnp.inf), 1)
            i = jnp.min(jnp.where(remaining & (x == m[:, None]), iota, x.shape[1]), 1)
            taken.append(i)
        return jnp.stack(taken, 1)

    x = np.random.default_rng(0).standard_normal((64, 1024)).astype(np.float32)
    x[:, 7] = x[:, 3]  # ties: the first index first
    f = jaxc.jit(lambda x: largest_first(x, 8))
    text = f.lower(x).as_text(stage="scheduled")
    print(text.count("scf.forall (%arg1) in (64)"), text.count("scf.forall ("))
    np.testing.assert_array_equal(np.asarray(f(x)), np.argsort(-x, axis=1, kind="stable")[:, :8])
""")


def test_rounds_of_dependent_row_reductions_compile():
    # Each round's max and min are fused into the row loop of the next one;
    # fusion clones a producer once per use in the loop, and without merging
    # the clones after each step the copies multiplied by ~9 per round: 4
    # rounds took 5 s, 5 rounds 100 s, 8 rounds hours. A hang is the failure
    # here (a generous limit, not a timing).
    result = subprocess.run([sys.executable, "-c", ROUNDS_OF_ROW_MAXIMA], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    # every loop is a fused loop over the rows (a refused group would be
    # scheduled kernel by kernel: 39 loops)
    row_loops, loops = map(int, result.stdout.split()[-2:])
    assert row_loops == loops <= 2, result.stdout


SEARCH_OVER_A_MILLION = textwrap.dedent("""
    import numpy as np
    import jaxc, jaxc.numpy as jnp

    rng = np.random.default_rng(0)
    a = np.sort(rng.standard_normal(1 << 20).astype(np.float32))
    v = np.concatenate([rng.standard_normal(40000), a[::1000], [np.nan, -np.inf, np.inf, 0.0, -0.0]])
    v = v.astype(np.float32)
    for side in ("left", "right"):
        f = jaxc.jit(lambda a, v: jnp.searchsorted(a, v, side=side))
        text = f.lower(a, v).as_text(stage="scheduled")
        np.testing.assert_array_equal(np.asarray(f(a, v)), np.searchsorted(a, v, side=side))
    # the steps' gathers vectorized, several steps to a kernel
    print(text.count("vector.gather") > 0, text.count("scf.forall ("))

    def repeated_squares(a, i, steps):
        for _ in range(steps):
            i = (i * i + i) & 1023
        return a[i]

    x = rng.integers(0, 1024, 100000).astype(np.int32)
    table = rng.standard_normal(1024).astype(np.float32)
    expected = table[repeated_squares(np.arange(1024), x.astype(np.int64), 24)]
    np.testing.assert_array_equal(np.asarray(jaxc.jit(lambda t, x: repeated_squares(t, x, 24))(table, x)),
                                  expected)
""")


def test_gathers_at_computed_indices_compile():
    # A gather reads its indices through the kernel's inputs, so the index
    # arithmetic fuses into it: a binary search of 21 steps takes fewer kernels than steps
    # (each step was one or two, its masks in memory). The vectorizer then walks every path
    # along which an index is computed (no memo): 10 fused steps took 0.65 s,
    # 12 steps 24 s. jaxc-bound-fusion cuts where an index would be computed
    # along more than 100000 paths. A hang is the failure (a generous limit,
    # not a timing).
    result = subprocess.run([sys.executable, "-c", SEARCH_OVER_A_MILLION], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    vectorized, loops = result.stdout.split()[-2:]
    # (materialized between steps, the search took 1.4 kernels per step)
    assert vectorized == "True" and int(loops) < 21, result.stdout
