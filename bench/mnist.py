"""A real training script: an MNIST-style MLP trained from scratch with SGD,
written once and run with JAX or with jaxc (`import jaxc as jax`).

    .venv/bin/python bench/mnist.py --impl jaxc                  # 1 epoch of 1280 samples
    .venv/bin/python bench/mnist.py --impl jax --samples 60000 --epochs 3
    .venv/bin/python bench/mnist.py --impl numpy --quick

The data are synthetic and MNIST-shaped (no download): `samples` x 784
float32 "pixels" from a fixed NumPy seed, uniform in [0, 1) and then
centered (as one normalizes MNIST), labelled by a fixed random linear
teacher into 10 classes, so the loss does go down (from log 10 to about 1.0
in two full epochs). The model is 784-1024-1024-10 with ReLU, softmax
cross-entropy, batch 128, plain SGD with learning rate 0.05; the parameters
are initialized in NumPy from a fixed seed (He, the output layer scaled by
0.1), so every implementation starts from the same numbers and sees the same
batches in the same order. `bench/run.py` times it per epoch for jaxc, JAX
and a NumPy version with the backward pass written by hand, and checks that
the losses agree.

The set-up is chosen so that training is not chaotic: the float32 losses of
two full epochs stay within about 1e-4 (relative) of a float64 run, so jaxc's and
JAX's losses must agree to about that. (Uncentered inputs with learning rate
0.05 drift apart by 50 % within two epochs, float32 against float64, and no
check could tell a bug from rounding.)
"""
from __future__ import annotations

import argparse
import importlib
import time
from typing import Any, Sequence

import numpy as np

FULL = dict(sizes=(784, 1024, 1024, 10), samples=60000, batch=128)
QUICK = dict(sizes=(64, 32, 32, 10), samples=512, batch=128)
LEARNING_RATE = 0.05


def make_data(samples: int, n_in: int, n_classes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(x, one-hot y): `samples` x `n_in` float32 in [-0.5, 0.5), labels
    from a random linear teacher."""
    rng = np.random.default_rng(seed)
    x = rng.random((samples, n_in), dtype=np.float32) - np.float32(0.5)
    teacher = rng.standard_normal((n_in, n_classes)).astype(np.float32)
    labels = np.argmax(x @ teacher, axis=1)
    return x, np.eye(n_classes, dtype=np.float32)[labels]


def init_params(sizes: Sequence[int], seed: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(w, b), ...] per layer, w ~ N(0, 2/fan_in) (He; the output layer
    0.1 times that, so the first loss is about log 10), b = 0, float32."""
    rng = np.random.default_rng(seed)
    layers = list(zip(sizes[:-1], sizes[1:]))
    return [((rng.standard_normal((m, n)) * np.sqrt(2.0 / m) * (0.1 if i == len(layers) - 1 else 1.0))
             .astype(np.float32), np.zeros(n, np.float32)) for i, (m, n) in enumerate(layers)]


def batches(samples: int, batch: int, epoch: int, seed: int = 2) -> list[np.ndarray]:
    """The index arrays of one epoch's batches (shuffled per epoch, a last
    partial batch dropped)."""
    perm = np.random.default_rng((seed, epoch)).permutation(samples)
    return [perm[i:i + batch] for i in range(0, samples - batch + 1, batch)]


# --- the training code, written once for `jax` = jax or jaxc ----------------------

def make_step(jax: Any, lr: float = LEARNING_RATE):
    """The jitted SGD step (params, x, y) -> (new params, loss)."""
    jnp = jax.numpy

    def predict(params, x):
        h = x
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        w, b = params[-1]
        return h @ w + b

    def loss(params, x, y):
        logp = jax.nn.log_softmax(predict(params, x), axis=1)
        return -jnp.mean(jnp.sum(y * logp, axis=1))

    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), value

    return step


def train_epoch(jax: Any, step, params: Any, x: np.ndarray, y: np.ndarray, idx: list[np.ndarray]):
    """One epoch: every batch goes to the device, the step runs, the losses
    stay on the device until the end. Returns (params, losses as NumPy)."""
    losses = []
    for i in idx:
        params, value = step(params, jax.device_put(x[i]), jax.device_put(y[i]))
        losses.append(value)
    jax.block_until_ready(params)
    return params, np.array([float(v) for v in losses], np.float32)


# --- the same step in NumPy, backward pass by hand ------------------------------------

def numpy_step(params, x, y, lr: float = LEARNING_RATE):
    hs, h = [x], x
    for w, b in params[:-1]:
        h = np.maximum(h @ w + b, 0)
        hs.append(h)
    w, b = params[-1]
    logits = h @ w + b
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    value = -np.mean(np.sum(y * logp, axis=1))
    d = (np.exp(logp) - y) / x.shape[0]                      # d loss / d logits
    new = []
    for layer in range(len(params) - 1, -1, -1):
        w, b = params[layer]
        h_in = hs[layer]
        new.append((w - lr * (h_in.T @ d), b - lr * d.sum(0)))
        if layer:
            d = (d @ w.T) * (h_in > 0)
    return new[::-1], value


class NumpyModule:
    """Enough of the `jax` interface for `train_epoch` with `numpy_step`."""
    @staticmethod
    def device_put(x):
        return x

    @staticmethod
    def block_until_ready(x):
        return x


def load(impl: str) -> Any:
    return NumpyModule if impl == "numpy" else importlib.import_module(impl)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--impl", choices=("jaxc", "jax", "numpy"), default="jaxc")
    p.add_argument("--samples", type=int, default=1280, help="training samples (60000: a full MNIST epoch)")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="a tiny 64-32-32-10 model on 512 samples")
    args = p.parse_args()
    cfg = dict(QUICK if args.quick else FULL)
    if not args.quick:
        cfg["samples"] = args.samples
    jax = load(args.impl)
    x, y = make_data(cfg["samples"], cfg["sizes"][0], cfg["sizes"][-1])
    params = init_params(cfg["sizes"])
    if args.impl == "numpy":
        step = numpy_step
    else:
        params = jax.device_put(params)
        step = make_step(jax)
        idx = batches(cfg["samples"], cfg["batch"], 0)
        t0 = time.perf_counter()
        jax.block_until_ready(step(params, jax.device_put(x[idx[0]]), jax.device_put(y[idx[0]])))
        print(f"{args.impl}: first step (trace + compile + run) {time.perf_counter() - t0:.2f} s")
    for epoch in range(args.epochs):
        idx = batches(cfg["samples"], cfg["batch"], epoch)
        t0 = time.perf_counter()
        params, losses = train_epoch(jax, step, params, x, y, idx)
        print(f"{args.impl}: epoch {epoch} {time.perf_counter() - t0:.2f} s, {len(idx)} steps, "
              f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
