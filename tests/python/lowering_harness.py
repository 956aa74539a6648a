"""Test support: compile a jaxc module through every CPU stage and run one
function with `jaxc.runtime` (the same path as `jaxc-opt --run`).

`run(text, fn, args, out_specs)` returns the results as NumPy arrays;
`out_specs` (shape, dtype) pairs are checked against what the function
returns, so a test states what it expects to get.
"""
from __future__ import annotations

import numpy as np

from jaxc.runtime import compile_module


def run(text: str, fn: str, args, out_specs):
    """Run `fn` of the jaxc module `text` on NumPy `args`."""
    results = compile_module(text)[fn](*args)
    if len(results) != len(out_specs):
        raise AssertionError(f"{fn} returned {len(results)} results, expected {len(out_specs)}")
    for i, (result, (shape, dtype)) in enumerate(zip(results, out_specs)):
        if result.shape != tuple(shape) or result.dtype != np.dtype(dtype):
            raise AssertionError(f"{fn} result {i} is {result.dtype}{list(result.shape)}, "
                                 f"expected {np.dtype(dtype)}{list(shape)}")
    return list(results)


class _Pass:
    """The ExternalPass stand-in for calling a pass function directly."""

    def signal_pass_failure(self):
        raise RuntimeError("the pass failed (see the emitted errors)")
