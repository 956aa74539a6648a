"""JAX's type promotion: documented cases, and the whole table against JAX
where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import dtypes

# (a, b) -> result, from the type promotion table in JAX's documentation
# ("Type promotion semantics"); i* / f* are weak Python int / float.
DOCUMENTED = [
    (("bool", "i*"), ("int32", True)), (("uint8", "i*"), ("uint8", False)),
    (("int8", "uint8"), ("int16", False)), (("uint32", "int32"), ("int32", False)),  # x64 off: int64 -> int32
    (("int32", "f*"), ("float32", True)), (("float16", "f*"), ("float16", False)),
    (("float16", "bfloat16"), ("float32", False)), (("uint8", "float16"), ("float16", False)),
    (("i*", "f*"), ("float32", True)), (("bool", "bool"), ("bool", False)),
    (("int16", "uint16"), ("int32", False)), (("float32", "i*"), ("float32", False)),
]


def _typed(name: str) -> tuple[np.dtype, bool]:
    if name == "i*":
        return dtypes.default_int(), True
    if name == "f*":
        return dtypes.default_float(), True
    return (dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)), False


@pytest.mark.parametrize("pair, expected", DOCUMENTED)
def test_documented_promotions(pair, expected) -> None:
    dtype, weak = dtypes.promote(*[_typed(n) for n in pair])
    assert (dtype.name, weak) == expected
    dtype, weak = dtypes.promote(*[_typed(n) for n in reversed(pair)])
    assert (dtype.name, weak) == expected


def test_promotion_through_operators() -> None:
    i8 = jnp.asarray(np.ones(2, np.int8))
    assert (i8 + 1).dtype == np.int8 and (i8 + 1.0).dtype == np.float32
    assert (i8 + jnp.asarray(np.ones(2, np.uint8))).dtype == np.int16
    assert (jnp.asarray(np.ones(2, np.float16)) * 2.5).dtype == np.float16
    assert jnp.result_type(np.int32, np.float16) == np.float16
    assert jnp.promote_types(np.uint8, np.int8) == np.int16


def test_whole_table_matches_jax() -> None:
    jax_numpy = pytest.importorskip("jax.numpy")
    names = ["i*", "f*", "bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "float16",
             "bfloat16", "float32"]

    def jax_value(name):
        if name == "i*":
            return jax_numpy.asarray(1)
        if name == "f*":
            return jax_numpy.asarray(1.0)
        return jax_numpy.zeros((), _typed(name)[0])

    for a in names:
        for b in names:
            theirs = jax_numpy.result_type(jax_value(a), jax_value(b))
            assert dtypes.promote(_typed(a), _typed(b))[0] == theirs, (a, b)


def test_x64_canonicalization() -> None:
    assert dtypes.canonicalize(np.float64) == np.float32
    assert dtypes.canonicalize("int64") == np.int32 and dtypes.canonicalize(np.uint64) == np.uint32
    jaxc.config.update("jax_enable_x64", True)
    try:
        assert dtypes.canonicalize(np.float64) == np.float64
        assert dtypes.promote(_typed("int32"), _typed("uint32")) == (np.dtype(np.int64), False)
    finally:
        jaxc.config.update("jax_enable_x64", False)
    with pytest.raises(TypeError, match="does not support dtype"):
        dtypes.canonicalize(np.dtype("U3"))
