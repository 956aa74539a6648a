"""Errors a JAX user meets, with the message and the user's line: Python
control flow on traced values, leaked tracers, shape and dtype errors."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax

X = np.arange(3, dtype=np.float32)


def _line_of(fn, text: str) -> int:
    """The file line number of the first line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return start + offset
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def _raise_on_if(x):
    if x > 0:  # the offending line
        return x
    return -x


def _raise_on_while(x):
    while x.sum() > 0:  # the offending line
        x = x - 1
    return x


def _raise_on_float(x):
    return float(x)  # the offending line


def _raise_on_int(x):
    return jnp.ones(int(x))  # the offending line


def _raise_on_numpy(x):
    return np.asarray(x)  # the offending line


# JAX's types: TracerArrayConversionError is a TypeError but not a ConcretizationTypeError
@pytest.mark.parametrize("fn, what, error", [
    (_raise_on_if, r"bool\(\)", jaxc.errors.TracerBoolConversionError),
    (_raise_on_while, r"bool\(\)", jaxc.errors.TracerBoolConversionError),
    (_raise_on_float, r"float\(\)", jaxc.ConcretizationTypeError),
    (_raise_on_int, r"int\(\)", jaxc.ConcretizationTypeError),
    (_raise_on_numpy, r"converting to a NumPy array", jaxc.errors.TracerArrayConversionError),
])
def test_concretization_errors_name_the_value_the_fix_and_the_line(fn, what, error) -> None:
    arg = X if fn is not _raise_on_int else np.float32(3)
    with pytest.raises(error) as info:
        jaxc.jit(fn)(arg)
    message = str(info.value)
    assert isinstance(info.value, TypeError)
    line = _line_of(fn, "the offending line")
    assert f"{__file__}:{line}:" in message
    assert inspect.getsource(fn).count("offending") == 1
    import re
    assert re.search(what, message)
    assert "static_argnums" in message and "lax.cond" in message
    assert re.search(r"traced value (float32|bool)\[\d*\]", message)  # names the traced value


def test_static_argnums_is_the_fix() -> None:
    f = jaxc.jit(lambda x, flag: x if flag else -x, static_argnums=1)
    np.testing.assert_array_equal(np.asarray(f(X, True)), X)
    np.testing.assert_array_equal(np.asarray(f(X, False)), -X)


def test_leaked_tracer_is_reported() -> None:
    leaked = []

    @jaxc.jit
    def f(x):
        leaked.append(x)
        return x

    f(X)
    with pytest.raises(jaxc.TracerLeakError, match="outside the trace that created it"):
        jnp.sin(leaked[0])

    @jaxc.jit
    def g(x):
        return x + leaked[0]

    with pytest.raises(jaxc.TracerLeakError, match="escaped the trace"):
        g(X)


def test_broadcasting_error_names_function_and_shapes() -> None:
    """TypeError for operands of one rank, ValueError where the ranks differ (JAX's types)."""
    with pytest.raises(TypeError, match=r"jnp.add: incompatible shapes for broadcasting: \(3,\), \(4,\)"):
        jnp.add(X, np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"jnp.multiply: incompatible shapes for broadcasting: \(2, 3\), \(2,\)"):
        jaxc.jit(lambda a, b: a * b)(np.ones((2, 3), np.float32), np.ones(2, np.float32))


def test_dtype_errors_name_the_function() -> None:
    with pytest.raises(TypeError, match="jnp.bitwise_and is only defined for integer and boolean arrays, got float32"):
        jnp.bitwise_and(X, X)
    with pytest.raises(TypeError, match="jnp.fabs does not support complex arguments"):
        jnp.fabs(jnp.asarray(np.ones(2, np.complex64)))
    with pytest.raises(OverflowError, match="Python int 300 is too large to convert to int8|too large for int8"):
        jnp.asarray(np.ones(2, np.int8)) + jnp.asarray(300, dtype=np.int8)


def test_lax_error_inside_jit_points_at_the_user_line() -> None:
    def f(x):
        return lax.add(x, x.astype(np.int32))  # mixed dtypes

    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes"):
        jaxc.jit(f)(X)


def test_dialect_verifier_message_reaches_the_user() -> None:
    def f(x):
        return lax.dot_general(x, x, (((0,), (1,)), ((), ())))  # contracting dim 1 does not exist

    with pytest.raises(TypeError) as info:
        jaxc.jit(f)(X)
    line = _line_of(f, "contracting dim 1")
    assert f"test_frontend_errors.py:{line}: dot_general cannot be applied to (tensor<3xf32>, tensor<3xf32>)" in str(info.value)
