"""How lean reverse mode is: count the jaxc ops of an MLP loss and of its
gradient after jaxc-autodiff and the cleanup (the `optimized` stage).

    .venv/bin/python bench/autodiff_ops.py

DESIGN.md section 3 expects the reverse-mode function to be at most about 3x
the forward one. Prints one table row per function and the ratio.
"""
from __future__ import annotations

import collections
import re

import numpy as np

import jaxc as jax
import jaxc.numpy as jnp

OP = re.compile(r"= (jaxc\.[a-z_0-9]+)|^\s*(jaxc\.[a-z_0-9]+)")


def loss(params, x, y):
    (w1, b1), (w2, b2) = params
    hidden = jnp.tanh(x @ w1 + b1)
    logits = hidden @ w2 + b2
    return jnp.mean((logits - y) ** 2)


def count_ops(fun, *args) -> collections.Counter:
    text = jax.jit(fun).lower(*args).as_text(stage="optimized")
    ops = collections.Counter()
    for line in text.splitlines():
        match = OP.search(line)
        if match:
            ops[match.group(1) or match.group(2)] += 1
    return ops


def main() -> None:
    rng = np.random.default_rng(0)
    params = ((rng.normal(size=(784, 512)).astype(np.float32), np.zeros(512, np.float32)),
              (rng.normal(size=(512, 10)).astype(np.float32), np.zeros(10, np.float32)))
    x = rng.normal(size=(128, 784)).astype(np.float32)
    y = rng.normal(size=(128, 10)).astype(np.float32)
    forward = count_ops(loss, params, x, y)
    reverse = count_ops(jax.grad(loss), params, x, y)
    both = count_ops(jax.value_and_grad(loss), params, x, y)
    print("| function | jaxc ops | by kind |")
    print("|---|---|---|")
    for name, ops in (("loss", forward), ("grad(loss)", reverse), ("value_and_grad(loss)", both)):
        kinds = ", ".join(f"{k.removeprefix('jaxc.')} {n}" for k, n in sorted(ops.items()))
        print(f"| {name} | {sum(ops.values())} | {kinds} |")
    print(f"\nratio grad/loss: {sum(reverse.values()) / sum(forward.values()):.2f}; "
          f"value_and_grad/loss: {sum(both.values()) / sum(forward.values()):.2f}")


if __name__ == "__main__":
    main()
