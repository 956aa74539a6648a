"""jaxc.experimental.checkify (issue #21): user checks with formatted
run-time values, the automatic NaN / division / index checks, the Error
value (get, throw, get_exception, pytree), check_error, and how checks
compose with jit, vmap, grad and lax control flow.

Each program is written once against a namespace `L` (jax, jnp, lax,
checkify) and run with jaxc; where JAX is installed the same program runs
with JAX too and must give the same message. Expected messages are spelled
out, so the tests check them without JAX as well.
"""
from __future__ import annotations

import functools
import importlib.util
import inspect
from typing import Any, Callable, NamedTuple

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc import lax
from jaxc.experimental import checkify
from jaxc.test_util import check_grads


class Lib(NamedTuple):
    jax: Any
    jnp: Any
    lax: Any
    checkify: Any


JAXC = Lib(jaxc, jnp, lax, checkify)


@functools.cache
def _jax() -> Lib | None:
    if importlib.util.find_spec("jax") is None:
        return None
    import jax
    import jax.experimental.checkify
    return Lib(jax, jax.numpy, jax.lax, jax.experimental.checkify)


def libs() -> list[Lib]:
    """jaxc, and JAX when it is installed."""
    return [JAXC] + ([_jax()] if _jax() is not None else [])


def categories(L: Lib, errors: str) -> frozenset:
    """``"user_checks|nan_checks"`` -> that union of L's check sets."""
    return functools.reduce(frozenset.union, (getattr(L.checkify, name) for name in errors.split("|")))


def same(results: list, what: str) -> Any:
    """jaxc's result, after checking that JAX's (if any) is equal."""
    assert all(r == results[0] for r in results[1:]), f"{what}: jaxc gave {results[0]!r}, JAX {results[1]!r}"
    return results[0]


def message(build: Callable[[Lib], Callable], *args: Any, errors: str = "user_checks",
            outer: Callable[[Lib, Callable], Callable] = lambda L, f: f) -> str | None:
    """``checkify(build(L), errors)``, wrapped by `outer`, run on `args`
    (NumPy values, made arrays of L): its error message, the same for jaxc
    and JAX."""
    results = []
    for L in libs():
        checked = outer(L, L.checkify.checkify(build(L), errors=categories(L, errors)))
        err, _ = checked(*[L.jnp.asarray(a) for a in args])
        results.append(err.get())
    return same(results, "message")


def raised(fn: Callable[[Lib], Any]) -> tuple[type, str]:
    """The exception `fn(L)` raises: (jaxc's type, its message); JAX must raise one of the same type."""
    caught = []
    for L in libs():
        with pytest.raises(Exception) as info:
            fn(L)
        caught.append(info.value)
    ours = caught[0]
    if len(caught) > 1:
        assert isinstance(caught[1], ValueError) == isinstance(ours, ValueError)
        assert isinstance(caught[1], TypeError) == isinstance(ours, TypeError)
        assert type(caught[1]).__name__ == type(ours).__name__, (type(ours), type(caught[1]))
    return type(ours), str(ours)


def positive(L: Lib) -> Callable:
    def f(x):
        L.checkify.check(x > 0, "x must be positive, got {}", x)
        return x * 2
    return f


# ---------------------------------------------------------------------------
# API surface
# ---------------------------------------------------------------------------

def test_signatures_match_jax():
    jc = pytest.importorskip("jax.experimental.checkify")

    def params(fn):
        return [(p.name, p.kind.name, p.default is inspect.Parameter.empty)
                for p in inspect.signature(fn).parameters.values()]
    for name in ("checkify", "check", "debug_check", "check_error"):
        assert params(getattr(checkify, name)) == params(getattr(jc, name)), name
    for name in ("get", "get_exception", "throw"):
        assert params(getattr(checkify.Error, name)) == params(getattr(jc.Error, name)), name
    assert sorted(checkify.__all__) == sorted(n for n in dir(jc) if not n.startswith("_"))


def test_error_sets_and_their_algebra():
    names = lambda s: {c.__name__ for c in s}  # noqa: E731
    assert names(checkify.user_checks) == {"FailedCheckError"}
    assert names(checkify.nan_checks) == {"NaNError"}
    assert names(checkify.div_checks) == {"DivisionByZeroError"}
    assert names(checkify.index_checks) == {"OOBError"}
    assert checkify.float_checks == checkify.nan_checks | checkify.div_checks
    assert checkify.automatic_checks == checkify.float_checks | checkify.index_checks
    assert checkify.all_checks == checkify.automatic_checks | checkify.user_checks
    assert checkify.all_checks - checkify.automatic_checks == checkify.user_checks
    for s in ("user_checks", "nan_checks", "div_checks", "index_checks", "float_checks", "automatic_checks",
              "all_checks"):
        assert isinstance(getattr(checkify, s), frozenset)
    jax = _jax()
    if jax is not None:
        for s in ("user_checks", "float_checks", "automatic_checks", "all_checks"):
            assert names(getattr(checkify, s)) == names(getattr(jax.checkify, s))
    assert checkify.ErrorCategory is type


def test_runtime_error_class_is_a_value_error_as_in_jax():
    assert issubclass(checkify.JaxRuntimeError, ValueError)
    jax = _jax()
    if jax is not None:
        assert [c.__name__ for c in checkify.JaxRuntimeError.__mro__[:3]] == \
               [c.__name__ for c in jax.checkify.JaxRuntimeError.__mro__[:3]]


# ---------------------------------------------------------------------------
# check and the Error value
# ---------------------------------------------------------------------------

def test_failed_check_message_formats_runtime_value():
    assert message(positive, np.float32(-3.0)) == "x must be positive, got -3.0 (`check` failed)"
    assert message(positive, np.float32(3.0)) is None


def test_error_get_throw_and_exception():
    err, out = checkify.checkify(positive(JAXC))(jnp.asarray(-3.0))
    assert float(out) == -6.0
    assert str(err) == "Error(x must be positive, got -3.0 (`check` failed))"
    exc = err.get_exception()
    assert isinstance(exc, checkify.FailedCheckError) and isinstance(exc, Exception)
    assert str(exc) == err.get()
    with pytest.raises(checkify.JaxRuntimeError, match=r"x must be positive, got -3\.0 \(`check` failed\)") as info:
        err.throw()
    assert info.value.__cause__ is not None and str(info.value.__cause__) == err.get()
    ok, _ = checkify.checkify(positive(JAXC))(jnp.asarray(1.0))
    assert ok.get() is None and ok.get_exception() is None and str(ok) == "Error(None)"
    ok.throw()  # nothing to raise
    assert checkify.init_error.get() is None and jaxc.tree_util.tree_leaves(checkify.init_error) == []


def test_passing_program_gives_the_outputs_of_the_unchecked_one():
    def f(x, y):
        checkify.check(jnp.all(y != 0), "y has a zero: {}", y)
        return {"ratio": x / y, "norm": jnp.sqrt(jnp.sum(x * x))}
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([2.0, 4.0, 0.5], np.float32)
    for errors in (checkify.user_checks, checkify.all_checks):
        err, out = checkify.checkify(f, errors=errors)(jnp.asarray(x), jnp.asarray(y))
        assert err.get() is None
        np.testing.assert_allclose(out["ratio"], x / y, rtol=1e-6)
        np.testing.assert_allclose(out["norm"], np.sqrt((x * x).sum()), rtol=1e-6)
    plain = jaxc.jit(f)
    with pytest.raises(ValueError):  # a check staged without checkify (as JAX)
        plain(jnp.asarray(x), jnp.asarray(y))


@pytest.mark.parametrize("fmt, build_args, expected", [
    ("{} and {}", lambda L, x: (x, x + 1), "-3 and -2 (`check` failed)"),
    ("{x} then {y}", lambda L, x: {"x": x, "y": x * 2}, "-3 then -6 (`check` failed)"),
    ("{:.2f} / {!r}", lambda L, x: (x * 1.5, x), "-4.50 / Array(-3, dtype=int32) (`check` failed)"),
    ("vector {}", lambda L, x: (L.jnp.arange(3) * x,), "vector [ 0 -3 -6] (`check` failed)"),
    ("pytree {} {}", lambda L, x: ((x, x + 1), [x > 0]),
     "pytree (Array(-3, dtype=int32), Array(-2, dtype=int32)) [Array(False, dtype=bool)] (`check` failed)"),
    ("computed {!r}", lambda L, x: (x * 0 + 2,), "computed Array(2, dtype=int32) (`check` failed)"),
    ("numpy {}", lambda L, x: (np.arange(2),), "numpy [0 1] (`check` failed)"),
])
def test_format_arguments(fmt, build_args, expected):
    def build(L):
        def f(x):
            args = build_args(L, x)
            if isinstance(args, dict):
                L.checkify.check(x > 0, fmt, **args)
            else:
                L.checkify.check(x > 0, fmt, *args)
            return x
        return f
    assert message(build, np.int32(-3)) == expected


def test_python_bool_predicate():
    def build(flag):
        return lambda L: lambda x: (L.checkify.check(flag, "static {}", x), x)[1]
    assert message(build(False), np.float32(1.0)) == "static 1.0 (`check` failed)"
    assert message(build(True), np.float32(1.0)) is None


@pytest.mark.parametrize("call", [
    lambda L, x: L.checkify.check(x > 0, "non-scalar"),                       # bool[2]
    lambda L, x: L.checkify.check(L.jnp.sum(x), "not bool"),                  # float scalar
    lambda L, x: L.checkify.check(np.bool_(True), "numpy bool"),
    lambda L, x: L.checkify.check(x[0] > 0, "python float {}", 1.0),
    lambda L, x: L.checkify.check(x[0] > 0, "numpy scalar {}", np.float32(1)),
])
def test_bad_check_arguments_are_type_errors(call):
    kind, _ = raised(lambda L: L.checkify.checkify(lambda x: call(L, x))(L.jnp.ones(2)))
    assert kind is TypeError


def test_python_numbers_are_not_format_arguments_under_checkify():
    # As in JAX, checkify closes over non-array arguments: a Python float is no array.
    kind, text = raised(lambda L: L.checkify.checkify(positive(L))(-3.0))
    assert kind is TypeError and "-3.0" in text


def test_slots_keep_the_first_failure_and_smallest_code_wins():
    def same_slot(L):
        def f(x):
            L.checkify.check(x > 0, "first {}", x)
            L.checkify.check(x > 1, "second {}", x)
            return x
        return f

    def two_slots(L):
        def f(x):
            L.checkify.check(x > 1, "int slot {}", x.astype(L.jnp.int32))
            L.checkify.check(x > 0, "float slot {}", x)
            return x
        return f
    assert message(same_slot, np.float32(0.5)) == "second 0.5 (`check` failed)"
    assert message(same_slot, np.float32(-0.5)) == "first -0.5 (`check` failed)"
    assert message(two_slots, np.float32(-0.5)) == "int slot 0 (`check` failed)"
    assert message(two_slots, np.float32(0.5)) == "int slot 0 (`check` failed)"


# ---------------------------------------------------------------------------
# Outside checkify
# ---------------------------------------------------------------------------

def test_check_outside_any_trace_raises_at_once():
    kind, text = raised(lambda L: positive(L)(L.jnp.asarray(-3.0)))
    assert kind is checkify.JaxRuntimeError and text == "x must be positive, got -3.0 (`check` failed)"
    assert float(positive(JAXC)(jnp.asarray(3.0))) == 6.0


def test_check_under_jit_without_checkify_is_a_value_error():
    kind, _ = raised(lambda L: L.jax.jit(positive(L))(L.jnp.asarray(3.0)))
    assert kind is ValueError
    kind, _ = raised(lambda L: L.jax.jit(L.jax.grad(positive(L)))(L.jnp.asarray(3.0)))
    assert kind is ValueError


def test_debug_check_only_runs_under_checkify():
    def build(L):
        return lambda x: (L.checkify.debug_check(x > 0, "debug {}", x), x)[1]
    for L in libs():
        build(L)(L.jnp.asarray(-1.0))                                   # eager: dropped
        assert float(L.jax.jit(build(L))(L.jnp.asarray(-1.0))) == -1.0  # jit: dropped
    assert message(build, np.float32(-1.0)) == "debug -1.0 (`check` failed)"


def test_eval_shape_of_a_function_with_checks():
    out = jaxc.eval_shape(positive(JAXC), jnp.asarray(1.0))
    assert out.shape == () and out.dtype == np.float32


def test_check_error():
    def inner(L):
        def f(x):
            err, y = L.checkify.checkify(positive(L))(x)
            L.checkify.check_error(err)
            return y
        return f
    kind, text = raised(lambda L: inner(L)(L.jnp.asarray(-3.0)))
    assert kind is checkify.JaxRuntimeError and text == "x must be positive, got -3.0 (`check` failed)"
    assert float(inner(JAXC)(jnp.asarray(3.0))) == 6.0
    assert raised(lambda L: L.jax.jit(inner(L))(L.jnp.asarray(3.0)))[0] is ValueError
    # an inner error checked again under checkify is recorded in the outer error
    assert message(inner, np.float32(-3.0)) == "x must be positive, got -3.0 (`check` failed)"
    assert message(inner, np.float32(-3.0), outer=lambda L, f: L.jax.jit(f)) == \
        "x must be positive, got -3.0 (`check` failed)"
    assert raised(lambda L: L.checkify.check_error(3))[0] is TypeError


def test_user_checks_are_ignored_when_not_enabled():
    assert message(positive, np.float32(-3.0), errors="nan_checks") is None
    assert message(positive, np.float32(-3.0), errors="div_checks|index_checks") is None


# ---------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------

def test_jit_of_checkify_and_checkify_of_jit():
    assert message(positive, np.float32(-3.0), outer=lambda L, f: L.jax.jit(f)) == \
        "x must be positive, got -3.0 (`check` failed)"
    assert message(lambda L: L.jax.jit(positive(L)), np.float32(-3.0)) == \
        "x must be positive, got -3.0 (`check` failed)"


def test_jitted_checkify_reuses_its_trace_with_new_values():
    jitted = jaxc.jit(checkify.checkify(positive(JAXC)))
    for value in (-3.0, 2.0, -7.5):
        err, out = jitted(jnp.asarray(value))
        assert err.get() == (None if value > 0 else f"x must be positive, got {value} (`check` failed)")
        assert float(out) == 2 * value
    assert jitted.trace_count == 1


def test_eager_checkify_caches_per_signature_and_closes_over_non_arrays():
    calls = []

    def f(x, scale, label):
        calls.append(label)
        checkify.check(x < scale, label + " {}", x)
        return x * scale
    checked = checkify.checkify(f)
    for value in (1.0, 5.0, 2.0):
        err, out = checked(jnp.asarray(value), 4, "big")
        assert float(out) == 4 * value
        assert err.get() == (f"big {value} (`check` failed)" if value >= 4 else None)
    assert calls == ["big"]  # traced once: the Python arguments are constants of that trace
    err, _ = checked(jnp.asarray(5.0), 6, "small")
    assert err.get() is None and calls == ["big", "small"]


def test_error_is_a_pytree_through_jit():
    err, _ = checkify.checkify(positive(JAXC))(jnp.asarray(-1.0))
    leaves, tree = jaxc.tree_util.tree_flatten(err)
    assert [np.asarray(x).dtype for x in leaves] == [np.bool_, np.int32, np.float32]
    rebuilt = jaxc.tree_util.tree_unflatten(tree, leaves)
    assert rebuilt.get() == err.get()
    same_err, y = jaxc.jit(lambda e, x: (e, x + 1))(err, jnp.asarray(1.0))
    assert same_err.get() == "x must be positive, got -1.0 (`check` failed)" and float(y) == 2.0
    assert checkify.checkify(checkify.check_error)(err)[0].get() == err.get()


# ---------------------------------------------------------------------------
# vmap
# ---------------------------------------------------------------------------

def test_vmap_of_checkify_reports_each_failing_index():
    xs = np.array([1.0, -2.0, 3.0, -4.0], np.float32)
    expected = "\n".join(f"at mapped index {i}: x must be positive, got {x} (`check` failed)"
                         for i, x in enumerate(xs) if x <= 0)
    assert message(positive, xs, outer=lambda L, f: L.jax.vmap(f)) == expected
    # against a Python loop of the unbatched function
    err, out = jaxc.vmap(checkify.checkify(positive(JAXC)))(jnp.asarray(xs))
    np.testing.assert_array_equal(out, 2 * xs)
    exc = err.get_exception()
    loop = {}
    for i, x in enumerate(xs):
        e, _ = checkify.checkify(positive(JAXC))(jnp.asarray(x))
        if e.get() is not None:
            loop[(i,)] = e.get()
    assert {k: str(v) for k, v in exc.error_mapping.items()} == loop
    ok, _ = jaxc.vmap(checkify.checkify(positive(JAXC)))(jnp.asarray(np.abs(xs)))
    assert ok.get() is None


def test_batched_error_throws_its_last_failing_index_as_jax():
    def throws(L):
        err, _ = L.jax.vmap(L.checkify.checkify(positive(L)))(L.jnp.asarray([1.0, -2.0, -3.0, 4.0]))
        err.throw()
    assert raised(throws) == (checkify.JaxRuntimeError, "x must be positive, got -3.0 (`check` failed)")

    def recheck(L):
        def g(xs):
            err, y = L.jax.vmap(L.checkify.checkify(positive(L)))(xs)
            L.checkify.check_error(err)
            return y
        return g
    assert message(recheck, np.array([1.0, -2.0, -3.0, 4.0], np.float32)) == \
        "x must be positive, got -3.0 (`check` failed)"


def test_nested_vmap_reports_tuple_indices():
    xs = np.array([[1.0, -2.0], [-3.0, 4.0]], np.float32)
    assert message(positive, xs, outer=lambda L, f: L.jax.vmap(L.jax.vmap(f))) == (
        "at mapped index 0, 1: x must be positive, got -2.0 (`check` failed)\n"
        "at mapped index 1, 0: x must be positive, got -3.0 (`check` failed)")


# ---------------------------------------------------------------------------
# Control flow
# ---------------------------------------------------------------------------

def cond_program(L):
    def f(x):
        def big(x):
            L.checkify.check(x < 10, "too big {}", x)
            return x + 1
        return L.lax.cond(x > 0, big, lambda x: x - 1, x)
    return f


def while_program(L):
    def f(x):
        def body(c):
            L.checkify.check(c < 5, "c too big {}", c)
            return c + 1
        return L.lax.while_loop(lambda c: c < 8, body, x)
    return f


def while_cond_program(L):
    def f(x):
        def keep_going(c):
            L.checkify.check(c < 5, "cond c {}", c)
            return c < 8
        return L.lax.while_loop(keep_going, lambda c: c + 1, x)
    return f


def while_both_program(L):
    def f(x, limit):
        def keep_going(c):
            L.checkify.check(c < limit, "cond {}", c)
            # control flow inside the test, with a check of its own
            return L.lax.cond(c > 6, lambda: (L.checkify.check(c < 7, "late {}", c), c < 8)[1], lambda: c < 8)

        def body(c):
            L.checkify.check(c < 6, "body {}", c * 1.0)
            return c + 1
        return L.lax.while_loop(keep_going, body, x)
    return f


def scan_program(L):
    def f(xs):
        def body(c, x):
            L.checkify.check(x > 0, "x {} at carry {}", x, c)
            return c + 1, x * 2
        return L.lax.scan(body, 0, xs)
    return f


def fori_program(L, traced_bound=False):
    def f(x, n):
        def body(i, c):
            L.checkify.check(i < 3, "i {}", i)
            return c + i
        return L.lax.fori_loop(0, n if traced_bound else 5, body, x)
    return f


def switch_program(L):
    def f(i, x):
        def checked(x):
            L.checkify.check(x > 0, "switch {}", x)
            return x
        return L.lax.switch(i, [lambda x: x, checked, lambda x: -x], x)
    return f


def nested_program(L):
    def f(xs):
        def body(c, x):
            def neg(_):
                L.checkify.check(c < 2, "c {} x {}", c, x)
                return c
            return L.lax.cond(x > 0, lambda _: c + x, neg, None), None
        return L.lax.scan(body, 0.0, xs)[0]
    return f


@pytest.mark.parametrize("build, args, expected", [
    (cond_program, (np.float32(12),), "too big 12.0 (`check` failed)"),
    (cond_program, (np.float32(-12),), None),
    (while_program, (np.int32(0),), "c too big 5 (`check` failed)"),
    (while_program, (np.int32(6),), "c too big 6 (`check` failed)"),
    (while_program, (np.int32(9),), None),
    (while_cond_program, (np.int32(0),), "cond c 5 (`check` failed)"),
    (while_cond_program, (np.int32(6),), "cond c 6 (`check` failed)"),  # the first test
    (while_both_program, (np.int32(0), np.int32(4)), "cond 4 (`check` failed)"),  # the test's code is smaller
    (while_both_program, (np.int32(0), np.int32(9)), "late 7 (`check` failed)"),  # body fails first, at 6
    (while_both_program, (np.int32(5), np.int32(7)), "cond 7 (`check` failed)"),
    (while_both_program, (np.int32(7), np.int32(9)), "late 7 (`check` failed)"),
    (scan_program, (np.array([1.0, 2.0, -3.0, -4.0], np.float32),), "x -3.0 at carry 2 (`check` failed)"),
    (scan_program, (np.array([1.0, 2.0], np.float32),), None),
    (fori_program, (np.int32(0), np.int32(5)), "i 3 (`check` failed)"),
    (functools.partial(fori_program, traced_bound=True), (np.int32(0), np.int32(5)), "i 3 (`check` failed)"),
    (functools.partial(fori_program, traced_bound=True), (np.int32(0), np.int32(3)), None),
    (switch_program, (np.int32(1), np.float32(-4)), "switch -4.0 (`check` failed)"),
    (switch_program, (np.int32(2), np.float32(-4)), None),
    (nested_program, (np.array([1.0, 2.0, -1.0, 3.0], np.float32),), "c 3.0 x -1.0 (`check` failed)"),
])
def test_checks_inside_control_flow(build, args, expected):
    assert message(build, *args) == expected
    assert message(build, *args, outer=lambda L, f: L.jax.jit(f)) == expected


def test_control_flow_outputs_are_unchanged():
    xs = np.array([1.0, 2.0, 3.0], np.float32)
    err, (carry, ys) = checkify.checkify(scan_program(JAXC))(jnp.asarray(xs))
    assert err.get() is None and int(carry) == 3
    np.testing.assert_array_equal(ys, 2 * xs)
    err, out = checkify.checkify(while_program(JAXC))(jnp.asarray(np.int32(6)))
    assert int(out) == 8
    err, out = checkify.checkify(fori_program(JAXC, True))(jnp.asarray(np.int32(10)), jnp.asarray(np.int32(3)))
    assert err.get() is None and int(out) == 13


def test_loop_without_checks_is_traced_once():
    traces = []

    def body(c, x):
        traces.append(1)
        return c + x, c
    err, (c, _) = checkify.checkify(lambda xs: lax.scan(body, 0.0, xs))(jnp.asarray([1.0, 2.0]))
    assert err.get() is None and float(c) == 3.0 and len(traces) == 1


def test_weakly_typed_carry_promoted_by_the_body():
    def build(L):
        def f(xs):
            def body(c, x):
                L.checkify.check(c < 2, "c is {}", c)
                return c + x, c
            return L.lax.scan(body, 0, xs)[0]
        return f
    assert message(build, np.array([1.0, 1.5, 2.0], np.float32)) == "c is 2.5 (`check` failed)"
    assert message(build, np.array([0.5, 0.5], np.float32)) is None


def test_vmap_of_checkify_with_control_flow():
    xs = np.array([12.0, 1.0, -3.0, 11.0], np.float32)
    assert message(cond_program, xs, outer=lambda L, f: L.jax.vmap(f)) == (
        "at mapped index 0: too big 12.0 (`check` failed)\nat mapped index 3: too big 11.0 (`check` failed)")
    # JAX 0.10.2 fails to batch this one (an internal ValueError): against a Python loop
    starts = np.array([0, 6, 9, 2], np.int32)
    err, out = jaxc.vmap(checkify.checkify(while_cond_program(JAXC)))(jnp.asarray(starts))
    lines = []
    for i, start in enumerate(starts):
        e, o = checkify.checkify(while_cond_program(JAXC))(jnp.asarray(start))
        assert int(out[i]) == int(o) == max(start, 8)
        lines.append(f"at mapped index {i}: {e.get()}")
    assert err.get() == "\n".join(lines)
    assert lines[1] == "at mapped index 1: cond c 6 (`check` failed)"


# ---------------------------------------------------------------------------
# Automatic checks
# ---------------------------------------------------------------------------

INF, NAN = np.float32(np.inf), np.float32(np.nan)


@pytest.mark.parametrize("build, args, expected", [
    (lambda L: L.jnp.log, (np.float32(-1),), "nan generated by primitive: log."),
    (lambda L: L.jnp.sqrt, (np.float32(-1),), "nan generated by primitive: sqrt."),
    (lambda L: L.jnp.sin, (INF,), "nan generated by primitive: sin."),
    (lambda L: L.jnp.arcsin, (np.float32(2),), "nan generated by primitive: asin."),
    (lambda L: lambda x: x ** 0.5, (np.float32(-1),), "nan generated by primitive: pow."),
    (lambda L: lambda x: x + 1, (NAN,), "nan generated by primitive: add."),
    (lambda L: L.jnp.sum, (np.array([INF, -INF]),), "nan generated by primitive: reduce_sum."),
    (lambda L: L.jnp.mean, (np.array([INF, -INF]),), "nan generated by primitive: reduce_sum."),
    (lambda L: L.jnp.cumsum, (np.array([INF, -INF]),), "nan generated by primitive: cumsum."),
    (lambda L: L.jnp.var, (np.array([INF, 1.0]),), "nan generated by primitive: sub."),
    (lambda L: lambda x: L.jnp.exp(x) * 0, (np.float32(1000),), "nan generated by primitive: mul."),
    (lambda L: lambda x: L.jax.nn.relu(x) * 0.0, (INF,), "nan generated by primitive: mul."),
    (lambda L: lambda x: L.jnp.where(x > 0, L.jnp.log(x), 0.0), (np.float32(-1),),
     "nan generated by primitive: log."),
    (lambda L: L.jnp.max, (np.array([NAN, 1.0]),), None),  # reduce_max is not checked, as in JAX
    (lambda L: lambda x: -x, (NAN,), None),
    (lambda L: L.jnp.tanh, (np.float32(2),), None),
])
def test_nan_checks(build, args, expected):
    assert message(build, *args, errors="nan_checks") == expected
    assert message(build, *args, errors="nan_checks", outer=lambda L, f: L.jax.jit(f)) == expected


@pytest.mark.parametrize("build, args, expected", [
    (lambda L: lambda x, y: x / y, (np.array([1.0, 2.0], np.float32), np.array([1.0, 0.0], np.float32)),
     "division by zero"),
    (lambda L: lambda x, y: x / y, (np.array([1.0, 2.0], np.float32), np.array([1.0, 3.0], np.float32)), None),
    (lambda L: lambda x, y: x // y, (np.array([1, 2], np.int32), np.array([1, 0], np.int32)), "division by zero"),
    (lambda L: lambda x, y: x / y, (np.array([1, 2], np.int32), np.array([1, 0], np.int32)), "division by zero"),
    (lambda L: lambda x, y: L.jnp.divmod(x, y)[0], (np.array([1, 2], np.int32), np.array([1, 0], np.int32)),
     "division by zero"),
    (lambda L: lambda x, y: x % y, (np.array([1, 2], np.int32), np.array([1, 0], np.int32)), None),
])
def test_div_checks(build, args, expected):
    assert message(build, *args, errors="div_checks") == expected


def test_zero_over_zero_reports_the_division_first():
    build = lambda L: lambda x, y: x / y  # noqa: E731
    assert message(build, np.float32(0), np.float32(0), errors="float_checks") == "division by zero"
    assert message(build, np.float32(0), np.float32(0), errors="nan_checks") == "nan generated by primitive: div."
    mod = lambda L: lambda x, y: L.jnp.mod(x, y)  # noqa: E731
    assert message(mod, np.array([1.0, 2.0], np.float32), np.array([1.0, 0.0], np.float32),
                   errors="float_checks") == "nan generated by primitive: rem."


def oob(shape, index, axis, size):
    return (f"out-of-bounds indexing for array of shape {shape}: index {index} is out of bounds for axis {axis} "
            f"with size {size}. ")


@pytest.mark.parametrize("build, args, expected", [
    (lambda L: lambda x, i: x[i], (np.arange(3.0), np.int32(5)), oob((3,), 5, 0, 3)),
    (lambda L: lambda x, i: x[i], (np.arange(3.0), np.int32(-5)), oob((3,), -2, 0, 3)),
    (lambda L: lambda x, i: x[i], (np.arange(3.0), np.int32(-3)), None),
    (lambda L: lambda x, i: x[i], (np.arange(3.0), np.array([0, 4, 7], np.int32)), oob((3,), 4, 0, 3)),
    (lambda L: lambda x, i, j: x[i, j], (np.ones((3, 4)), np.int32(1), np.int32(4)), oob((3, 4), 4, 1, 4)),
    (lambda L: lambda x, i, j: x[i, j], (np.ones((3, 4)), np.array([1, 2], np.int32), np.array([0, 9], np.int32)),
     oob((3, 4), 9, 1, 4)),
    (lambda L: lambda x, i: x[i], (np.ones((3, 4)), np.int32(3)), oob((3, 4), 3, 0, 3)),
    (lambda L: lambda x, i: L.lax.dynamic_slice(x, (i,), (2,)), (np.arange(3.0), np.int32(2)), oob((3,), 2, 0, 3)),
    (lambda L: lambda x, i, j: L.lax.dynamic_slice(x, (i, j), (2, 2)), (np.ones((3, 4)), np.int32(1), np.int32(3)),
     oob((3, 4), 3, 1, 4)),
    (lambda L: lambda x, i: L.lax.dynamic_update_slice(x, L.jnp.ones(2), (i,)), (np.arange(3.0), np.int32(2)),
     oob((3,), 2, 0, 3)),
    (lambda L: lambda x, i: x.at[i].set(1.0), (np.arange(3.0), np.int32(5)), oob((3,), 5, 0, 3)),
    (lambda L: lambda x, i: x.at[i].add(1.0), (np.arange(3.0), np.array([1, -7], np.int32)), oob((3,), -4, 0, 3)),
    (lambda L: lambda x, i: L.jnp.take(x, i), (np.arange(3.0), np.array([1, 3], np.int32)), oob((3,), 3, 0, 3)),
    (lambda L: lambda x: x[2], (np.arange(3.0),), None),
])
def test_index_checks(build, args, expected):
    assert message(build, *args, errors="index_checks") == expected


def mixed(L):
    def f(x, i):
        y = L.jnp.log(x)
        L.checkify.check(i < 2, "i is {}", i)
        return y[i]
    return f


def test_checks_come_before_automatic_checks_as_in_jax():
    x, i = np.array([1.0, -1.0], np.float32), np.int32(5)
    assert message(mixed, x, i, errors="all_checks") == "i is 5 (`check` failed)"
    assert message(mixed, x, i, errors="automatic_checks") == "nan generated by primitive: log."
    assert message(mixed, x, i, errors="index_checks") == oob((2,), 5, 0, 2)
    assert message(mixed, x, np.int32(0), errors="all_checks") == "nan generated by primitive: log."
    assert message(mixed, np.array([1.0, 2.0], np.float32), np.int32(0), errors="all_checks") is None


def test_automatic_checks_under_vmap_jit_and_control_flow():
    xs = np.array([0, 5, 1, 2], np.int32)
    assert message(mixed, np.array([1.0, 2.0], np.float32), xs, errors="all_checks",
                   outer=lambda L, f: L.jax.vmap(f, in_axes=(None, 0))) == (
        "at mapped index 1: i is 5 (`check` failed)\nat mapped index 3: i is 2 (`check` failed)")
    cond = lambda L: lambda x, i: L.lax.cond(i > 0, lambda: x[i], lambda: x[0])  # noqa: E731
    assert message(cond, np.arange(3.0), np.int32(4), errors="all_checks") == oob((3,), 4, 0, 3)
    fori = lambda L: lambda x: L.lax.fori_loop(0, 4, lambda i, c: c + x[i], 0.0)  # noqa: E731
    assert message(fori, np.arange(3.0), errors="all_checks") == oob((3,), 3, 0, 3)
    halve = lambda L: lambda x: L.lax.while_loop(  # noqa: E731
        lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] / (2 - c[0])), (0, x))
    assert message(halve, np.float32(1), errors="all_checks") == "division by zero"
    logs = lambda L: lambda xs: L.lax.map(L.jnp.log, xs)  # noqa: E731
    assert message(logs, np.array([1.0, -2.0], np.float32), errors="nan_checks") == \
        "nan generated by primitive: log."
    assert message(logs, np.array([1.0, -2.0], np.float32), errors="nan_checks",
                   outer=lambda L, f: L.jax.jit(f)) == "nan generated by primitive: log."


def test_automatic_checks_leave_results_unchanged():
    def f(x, i):
        return jnp.sum(jnp.sqrt(x) / x[i]) + jnp.cumsum(x)[i]
    x = np.array([1.0, 4.0, 9.0], np.float32)
    err, out = checkify.checkify(f, errors=checkify.all_checks)(jnp.asarray(x), jnp.asarray(np.int32(1)))
    assert err.get() is None
    np.testing.assert_allclose(out, np.sum(np.sqrt(x) / x[1]) + np.cumsum(x)[1], rtol=1e-6)


# ---------------------------------------------------------------------------
# grad
# ---------------------------------------------------------------------------

def test_eager_grad_of_a_function_with_a_check():
    assert raised(lambda L: L.jax.grad(positive(L))(L.jnp.asarray(-3.0))) == \
        (checkify.JaxRuntimeError, "x must be positive, got -3.0 (`check` failed)")
    assert float(jaxc.grad(positive(JAXC))(jnp.asarray(3.0))) == 2.0


def loss(L):
    def f(x):
        L.checkify.check(x > 0, "x must be positive, got {}", x)
        return L.jnp.log(x) * x

    def g(x):
        err, y = L.checkify.checkify(f, errors=L.checkify.all_checks)(x)
        return y, err
    return g


@pytest.mark.parametrize("outer", [lambda L, f: f, lambda L, f: L.jax.jit(f)])
def test_grad_of_a_checkified_function_with_the_error_as_aux(outer):
    results = []
    for L in libs():
        g, err = outer(L, L.jax.grad(loss(L), has_aux=True))(L.jnp.asarray(2.0))
        bad_g, bad = outer(L, L.jax.grad(loss(L), has_aux=True))(L.jnp.asarray(-2.0))
        results.append((err.get(), bad.get()))
        if L is JAXC:
            np.testing.assert_allclose(float(g), np.log(2.0) + 1.0, rtol=1e-6)
    assert same(results, "errors") == (None, "x must be positive, got -2.0 (`check` failed)")


def test_grad_through_checkify_matches_finite_differences(x64):
    def f(x):
        checkify.check(jnp.all(x > 0), "x must be positive, got {}", x)
        return jnp.sum(jnp.log(x) * jnp.sin(x))

    def checked(x):
        return checkify.checkify(f, errors=checkify.float_checks)(x)[1]
    x = jnp.asarray(np.array([0.5, 1.5, 2.5]))
    check_grads(checked, (x,), order=2, modes=("rev",))
    check_grads(jaxc.jit(checked), (x,), order=1, modes=("rev",))


def test_grad_of_scan_with_checks_under_checkify():
    def build(L):
        def body(c, x):
            L.checkify.check(x < 3.0, "big {}", x)
            return c + L.jnp.sin(x) * c, None

        def g(xs):
            err, y = L.checkify.checkify(lambda xs: L.lax.scan(body, 1.0, xs)[0])(xs)
            return y, err
        return g
    results = []
    for L in libs():
        grads, err = L.jax.grad(build(L), has_aux=True)(L.jnp.asarray([1.0, 2.0, 4.0]))
        results.append(err.get())
    assert same(results, "message") == "big 4.0 (`check` failed)"
    xs = np.array([1.0, 2.0])
    grads, err = jaxc.grad(build(JAXC), has_aux=True)(jnp.asarray(xs))
    c1 = 1 + np.sin(xs[0])
    np.testing.assert_allclose(grads, [np.cos(xs[0]) * (1 + np.sin(xs[1])), c1 * np.cos(xs[1])], rtol=1e-5)


# ---------------------------------------------------------------------------
# Not supported: a clear error, never a missed check
# ---------------------------------------------------------------------------

def test_checks_inside_grad_or_vmap_under_checkify_are_not_supported():
    with pytest.raises(NotImplementedError, match="vmap"):
        checkify.checkify(jaxc.vmap(positive(JAXC)))(jnp.asarray([1.0, -2.0]))
    with pytest.raises(NotImplementedError, match="grad"):
        checkify.checkify(jaxc.grad(positive(JAXC)))(jnp.asarray(1.0))
    with pytest.raises(NotImplementedError, match="automatic check of log"):
        checkify.checkify(jaxc.vmap(jnp.log), errors=checkify.nan_checks)(jnp.asarray([1.0]))
    # without checks inside, the transformations work under checkify
    err, out = checkify.checkify(lambda x: jaxc.grad(jnp.sin)(x), errors=checkify.user_checks)(jnp.asarray(0.0))
    assert err.get() is None and float(out) == 1.0
