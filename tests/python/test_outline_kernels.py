"""`jaxc-outline-kernels` (passes/outline_kernels.py): kernels repeated in a
program become one function each, called from every place they occurred;
the numbers are those of a NumPy reference, whatever the callers pass (whole
arrays, slices of a stacked array, loop-carried values)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax


def mlp_loss(ws, x):
    for w in ws:
        x = jnp.tanh(x @ w)
    return jnp.sum(x * x)


def mlp_grad_reference(ws, x):
    """The gradient of `mlp_loss` by hand, in float64."""
    xs = [x.astype(np.float64)]
    for w in ws:
        xs.append(np.tanh(xs[-1] @ w.astype(np.float64)))
    g = 2 * xs[-1]
    grads = []
    for i in reversed(range(len(ws))):
        g = g * (1 - xs[i + 1] ** 2)
        grads.append(xs[i].T @ g)
        g = g @ ws[i].astype(np.float64).T
    return grads[::-1]


def inputs(layers, width=64, batch=32, seed=0):
    rng = np.random.default_rng(seed)
    ws = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32) for _ in range(layers)]
    return ws, rng.standard_normal((batch, width)).astype(np.float32)


def outlined(text: str) -> dict[str, int]:
    """Outlined function name -> how many calls of it `text` has."""
    names = re.findall(r"func\.func private @(jaxc_kernel_\d+)\(", text)
    return {name: len(re.findall(rf"call @{name}\(", text)) for name in names}


def test_deep_mlp_gradient_calls_one_function_per_distinct_kernel():
    ws, x = inputs(6)
    text = jaxc.jit(jaxc.grad(mlp_loss)).lower(ws, x).as_text(stage="scheduled")
    calls = outlined(text)
    # forward product and tanh, the two products of the backward pass, tanh's derivative
    assert len(calls) >= 4, calls
    assert all(n >= 2 for n in calls.values()), calls
    assert sum(calls.values()) >= 4 * 5
    assert "vector." in text  # the outlined kernels are still scheduled
    got = jaxc.jit(jaxc.grad(mlp_loss))(ws, x)
    for g, want in zip(got, mlp_grad_reference(ws, x)):
        np.testing.assert_allclose(np.asarray(g), want, rtol=2e-4, atol=2e-5)


def test_single_kernels_stay_in_place():
    ws, x = inputs(1)
    text = jaxc.jit(jaxc.grad(mlp_loss)).lower(ws, x).as_text(stage="scheduled")
    assert "jaxc_kernel_" not in text


def test_slices_of_a_stacked_array_as_arguments():
    """Each layer reads its weights as a slice of one array: the calls take
    views with offsets (bufferization copies them to the identity layout
    the function takes)."""
    ws, x = inputs(5)
    stacked = np.stack(ws)

    def loss(stack, x):
        for i in range(stack.shape[0]):
            x = jnp.tanh(x @ stack[i])
        return jnp.sum(x * x)

    text = jaxc.jit(jaxc.grad(loss)).lower(stacked, x).as_text(stage="scheduled")
    assert outlined(text)
    got = np.asarray(jaxc.jit(jaxc.grad(loss))(stacked, x))
    np.testing.assert_allclose(got, np.stack(mlp_grad_reference(ws, x)), rtol=2e-4, atol=2e-5)


def test_kernels_inside_a_loop_body_and_outside():
    rng = np.random.default_rng(1)
    w = (rng.standard_normal((64, 64)) / 8).astype(np.float32)
    x = rng.standard_normal((48, 64)).astype(np.float32)

    def f(w, x):
        x = jnp.tanh(x @ w)
        x = lax.fori_loop(0, 3, lambda i, v: jnp.tanh(v @ w), x)
        return jnp.tanh(x @ w)

    text = jaxc.jit(f).lower(w, x).as_text(stage="scheduled")
    assert any(n >= 2 for n in outlined(text).values()), text
    want = x.astype(np.float64)
    for _ in range(5):
        want = np.tanh(want @ w)
    np.testing.assert_allclose(np.asarray(jaxc.jit(f)(w, x)), want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_other_element_types(dtype, x64):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((40, 40)) * 3).astype(dtype)
    b = (rng.standard_normal((40, 40)) * 3).astype(dtype)

    def f(a, b):
        return (a @ b) @ b + (b @ a) @ a

    text = jaxc.jit(f).lower(a, b).as_text(stage="scheduled")
    assert outlined(text)
    want = (a @ b) @ b + (b @ a) @ a
    got = np.asarray(jaxc.jit(f)(a, b))
    assert got.dtype == want.dtype
    if dtype == np.int32:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_results_computed_by_calls_go_straight_to_the_out_parameters():
    """Every gradient comes out of a call: no copy of a call's buffer into an
    out-parameter is left (jaxc-elide-result-copies)."""
    ws, x = inputs(4)
    text = jaxc.jit(jaxc.grad(mlp_loss)).lower(ws, x).as_text(stage="bufferized")
    entry = text[text.index("func.func @"):text.index("func.func private")]
    assert "call @jaxc_kernel_" in entry
    assert "memref.copy" not in entry


def test_kernels_in_several_functions_are_scheduled_in_one_batch(monkeypatch):
    """The batched schedule (one canonicalization, vectorization and
    clean-up for all kernels) works across the outlined functions; a refusal
    would send every kernel through the slow one-at-a-time path."""
    from jaxc.passes import schedule

    results = []
    apply_plans = schedule._apply_plans

    def recorded(module, plans, batched=True):
        results.append((batched, apply_plans(module, plans, batched)))
        return results[-1][1]

    monkeypatch.setattr(schedule, "_apply_plans", recorded)
    ws, x = inputs(3)
    text = jaxc.jit(jaxc.grad(mlp_loss)).lower(ws, x).as_text(stage="scheduled")
    assert len(outlined(text)) >= 2
    assert results == [(True, None)]


def test_kernel_functions_stay_functions_in_llvm():
    """Marked noinline: LLVM's inliner would otherwise copy every kernel
    function back into its callers and compile each copy."""
    ws, x = inputs(3)
    text = jaxc.jit(jaxc.grad(mlp_loss)).lower(ws, x).as_text(stage="llvm")
    definitions = [line for line in text.splitlines() if re.search(r"llvm\.func .*@jaxc_kernel_\d+\(", line)]
    assert definitions
    assert all('passthrough = ["noinline"]' in line for line in definitions), definitions
