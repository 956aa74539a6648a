"""`Lowered.cost_analysis()` / `Compiled.cost_analysis()`: flops,
transcendentals and bytes accessed counted on the jaxc IR by XLA's
conventions (jaxc/_cost_analysis.py). Expected counts come from the shapes
(2·m·n·k), from evaluating the program on ones (a convolution of ones counts
its taps), and from JAX where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax

CONVOLUTIONS = [
    ((2, 3, 9, 7), (4, 3, 3, 2), dict(window_strides=(2, 1), padding=((1, 2), (0, 1)))),
    ((1, 2, 6, 6), (2, 2, 3, 3), dict(window_strides=(1, 1), padding=((0, 0), (1, 1)), lhs_dilation=(2, 1),
                                      rhs_dilation=(1, 2))),
    ((4, 8, 10), (6, 4, 3), dict(window_strides=(3,), padding="SAME", feature_group_count=2)),
    ((4, 2, 5), (6, 2, 3), dict(window_strides=(1,), padding="VALID", batch_group_count=2)),
]


def test_products_count_two_flops_per_multiply_add():
    cost = jaxc.jit(lambda a, b: a @ b).lower(np.ones((4, 8), np.float32), np.ones((8, 5), np.float32)).cost_analysis()
    assert cost["flops"] == 2 * 4 * 8 * 5 and cost["transcendentals"] == 0
    assert cost["bytes accessed"] == 4 * (4 * 8 + 8 * 5 + 4 * 5)
    batched = jaxc.jit(lambda a, b: jnp.einsum("bij,bjk->bik", a, b))
    cost = batched.lower(np.ones((3, 4, 6), np.float32), np.ones((3, 6, 2), np.float32)).cost_analysis()
    assert cost["flops"] == 2 * 3 * 4 * 6 * 2


def test_elementwise_and_transcendental_ops():
    x = np.ones((4, 4), np.float32)
    cost = jaxc.jit(lambda v: jnp.sin(v) + v).lower(x).cost_analysis()
    assert (cost["flops"], cost["transcendentals"]) == (16, 16)
    assert cost["bytes accessed"] == 4 * 16 * (2 + 3)  # sin reads and writes 16 floats, add reads two, writes one
    cost = jaxc.jit(lambda v: jnp.sum(jnp.exp(v) * 2.0)).lower(x).cost_analysis()
    assert cost["transcendentals"] == 16 and cost["flops"] == 16 + 16  # the multiply, then the sum's adds


@pytest.mark.parametrize("case", range(len(CONVOLUTIONS)))
def test_convolutions_count_the_taps_on_input_elements(case):
    lhs, rhs, options = CONVOLUTIONS[case]
    f = jaxc.jit(lambda x, w: lax.conv_general_dilated(x, w, **options))
    ones = np.ones(lhs, np.float32), np.ones(rhs, np.float32)
    # on ones, each output element is the number of multiply-adds that made it
    assert f.lower(*ones).cost_analysis()["flops"] == 2 * float(np.sum(np.asarray(f(*ones))))


def test_compiled_and_gradient_programs():
    w, x = np.ones((64, 32), np.float32), np.ones((16, 64), np.float32)

    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)
    forward = jaxc.jit(loss).lower(w, x)
    assert forward.compile().cost_analysis() == forward.cost_analysis()
    assert forward.cost_analysis()["transcendentals"] == 16 * 32
    backward = jaxc.jit(jaxc.grad(loss)).lower(w, x).cost_analysis()
    # the gradient repeats the forward product and adds one for dL/dw (dL/dx is not asked for)
    assert backward["flops"] >= 2 * (2 * 16 * 64 * 32)


def test_equal_to_jax():
    jax = pytest.importorskip("jax")
    programs = [(lambda np_, lax_: lambda a, b: np_.sin(a @ b), [(4, 8), (8, 5)]),
                (lambda np_, lax_: lambda v: np_.sin(v) + v, [(4, 4)])]
    programs += [(lambda np_, lax_, o=o: lambda x, w: lax_.conv_general_dilated(x, w, **o), [l, r])
                 for l, r, o in CONVOLUTIONS]
    for make, shapes in programs:
        args = [np.ones(s, np.float32) for s in shapes]
        ours = jaxc.jit(make(jnp, lax)).lower(*args).cost_analysis()
        theirs = jax.jit(make(jax.numpy, jax.lax)).lower(*args).cost_analysis()
        assert ours["flops"] == theirs["flops"]
        assert ours["transcendentals"] == theirs.get("transcendentals", 0.0)
