"""Which of JAX's public names jaxc has (issue #17's coverage check).

data/names/jax_names.json holds the public names of JAX 0.10.2's namespaces
(recorded by data/names/record_jax_names.py, after importing all of them);
data/names/left_out.json the ones jaxc does not have, each with its reason.
A name that disappears from jaxc, or one that jaxc gains while the file
still lists it, fails here, so the list stays the exact account of what is
missing.
"""
from __future__ import annotations

import importlib
import json
import os

import pytest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "names")
with open(os.path.join(DATA, "jax_names.json")) as f:
    RECORDED = json.load(f)["names"]
with open(os.path.join(DATA, "left_out.json")) as f:
    LEFT_OUT = json.load(f)


def counterpart(space: str):
    """jaxc's module for JAX's namespace `space` (jax.numpy -> jaxc.numpy)."""
    return importlib.import_module("jaxc" + space[len("jax"):])


@pytest.fixture(scope="module")
def every_namespace_imported():
    """Import every namespace first, as the recording did: a package lists
    the submodules imported so far (jax.experimental.checkify)."""
    for space in RECORDED:
        counterpart(space)


@pytest.mark.parametrize("space", sorted(RECORDED))
def test_missing_names_are_exactly_the_listed_ones(space, every_namespace_imported):
    module = counterpart(space)
    missing = sorted(name for name in RECORDED[space] if not hasattr(module, name))
    listed = sorted(LEFT_OUT.get(space, {}))
    gained = sorted(set(listed) - set(missing))
    lost = sorted(set(missing) - set(listed))
    assert not lost, f"{space}: jaxc lacks {lost}, which left_out.json does not list"
    assert not gained, f"{space}: jaxc now has {gained}; remove them from left_out.json"


def test_every_left_out_name_is_a_jax_name_with_a_reason():
    for space, names in LEFT_OUT.items():
        assert space in RECORDED, space
        for name, reason in names.items():
            assert name in RECORDED[space], f"{space}.{name} is not a JAX name"
            assert isinstance(reason, str) and len(reason) > 10, f"{space}.{name}: no reason given"
