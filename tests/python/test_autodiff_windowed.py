"""jaxc-autodiff on conv_general_dilated and cumulative prod/max/min
(passes/autodiff/windowed.py), numerically in float64.

Each case is a module: a private @f applying one op, @primal calling it,
@jvp holding `jaxc.jvp @f` and @vjp holding `jaxc.vjp @f`. The jvp is
checked against central differences of the compiled @primal, the vjp
against the jvp by <ct, J t> == <J^T ct, t>. Where there are ties (cummax,
cummin) the function is not differentiable, and the derivative is checked
against the documented convention instead: the mean of the tangents of the
elements attaining the running extreme. Where JAX is installed, gradients
are also compared with jax.vjp.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from jaxc.runtime import compile_module

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _restore_jax_x64():
    """JAX's x64 flag is process-wide: put it back for the other test files."""
    yield
    if "jax" in sys.modules:
        sys.modules["jax"].config.update("jax_enable_x64", False)


def jax_x64():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


pytestmark = pytest.mark.usefixtures("x64")  # conftest.py: 64-bit defaults in every test


def _type(shape, element="f64") -> str:
    return f"tensor<{''.join(f'{n}x' for n in shape)}{element}>"


def _module(op: str, in_shapes, out_shape, prelude: str = "") -> str:
    """@f(%x0, ...) = `op` (which reads %x0, ... and defines %y), @primal,
    @jvp(xs..., ts...) -> tangent, @vjp(xs..., ct) -> cotangents; after
    `prelude` (functions `op` may use)."""
    ins = [_type(s) for s in in_shapes]
    out = _type(out_shape)
    n = len(ins)
    xs = ", ".join(f"%x{i}" for i in range(n))
    ts = ", ".join(f"%t{i}" for i in range(n))
    params = ", ".join(f"%x{i}: {t}" for i, t in enumerate(ins))
    tparams = ", ".join(f"%t{i}: {t}" for i, t in enumerate(ins))
    all_ins = ", ".join(ins)
    cts = ", ".join(f"%c{i}" for i in range(n))
    return prelude + f"""
func.func private @f({params}) -> {out} {{
  {op}
  return %y : {out}
}}
func.func @primal({params}) -> {out} {{
  %y = func.call @f({xs}) : ({all_ins}) -> {out}
  return %y : {out}
}}
func.func @jvp({params}, {tparams}) -> {out} {{
  %y, %t = jaxc.jvp @f({xs}) tangents({ts}) : ({all_ins}, {all_ins}) -> ({out}, {out})
  return %t : {out}
}}
func.func @vjp({params}, %ct: {out}) -> ({all_ins}) {{
  %y, {cts} = jaxc.vjp @f({xs}) cotangents(%ct) : ({all_ins}, {out}) -> ({out}, {all_ins})
  return {cts} : {all_ins}
}}
"""


class Case:
    """A compiled module with its primal, jvp and vjp as NumPy functions."""

    def __init__(self, op, in_shapes, out_shape, prelude=""):
        self.op, self.in_shapes, self.out_shape = op, in_shapes, tuple(out_shape)
        self.exe = compile_module(_module(op, in_shapes, out_shape, prelude))

    def primal(self, *xs):
        return self.exe["primal"](*xs)[0]

    def jvp(self, xs, ts):
        return self.exe["jvp"](*xs, *ts)[0]

    def vjp(self, xs, ct):
        return list(self.exe["vjp"](*xs, ct))


def check(case: Case, xs, *, finite_differences=True, eps=1e-6, tol=1e-7):
    """jvp against central differences, vjp against jvp (for every operand
    separately, then all together)."""
    ct = RNG.standard_normal(case.out_shape)
    ts_all = [RNG.standard_normal(x.shape) for x in xs]
    cts = case.vjp(xs, ct)
    assert [c.shape for c in cts] == [x.shape for x in xs]
    for which in list(range(len(xs))) + [None]:
        ts = [t if which in (None, i) else np.zeros_like(t) for i, t in enumerate(ts_all)]
        jt = case.jvp(xs, ts)
        assert jt.shape == case.out_shape
        if finite_differences:
            up = case.primal(*[x + eps * t for x, t in zip(xs, ts)])
            down = case.primal(*[x - eps * t for x, t in zip(xs, ts)])
            np.testing.assert_allclose(jt, (up - down) / (2 * eps), rtol=1e-6, atol=1e-6)
        lhs = float(np.vdot(ct, jt))
        rhs = sum(float(np.vdot(c, t)) for c, t in zip(cts, ts))
        assert abs(lhs - rhs) <= tol * max(1.0, abs(lhs)), (which, lhs, rhs)
    return cts


# --- convolutions --------------------------------------------------------

NCH = ((0, 1, 2), (0, 1, 2), (0, 1, 2))
NCHW = ((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
NHWC = ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))  # NHWC, HWIO, NHWC


def conv_out_shape(lhs, rhs, strides, padding, lhs_dil, rhs_dil, specs, groups=1, batch_groups=1):
    ls, rs, os_ = specs
    out = [0] * len(lhs)
    out[os_[0]] = lhs[ls[0]] // batch_groups
    out[os_[1]] = rhs[rs[0]]
    for i, (s, (lo, hi), ld, rd) in enumerate(zip(strides, padding, lhs_dil, rhs_dil)):
        n, k = lhs[ls[2 + i]], rhs[rs[2 + i]]
        padded = (n - 1) * ld + 1 + lo + hi
        window = (k - 1) * rd + 1
        out[os_[2 + i]] = max((padded - window) // s + 1, 0)
    return out


CONVS = {  # name: lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, specs, groups, batch groups
    "1d": ((2, 3, 7), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), NCH, 1, 1),
    "1d_stride_pad_rhs_dilation": ((2, 3, 9), (2, 3, 3), (2,), ((1, 2),), (1,), (2,), NCH, 1, 1),
    "1d_stride_leaves_tail": ((1, 2, 8), (3, 2, 2), (3,), ((0, 0),), (1,), (1,), NCH, 1, 1),
    "1d_lhs_dilation": ((2, 2, 5), (3, 2, 3), (1,), ((2, 1),), (2,), (1,), NCH, 1, 1),
    "1d_negative_padding": ((1, 2, 8), (2, 2, 3), (2,), ((-1, 2),), (1,), (1,), NCH, 1, 1),
    "1d_everything_nwc": ((2, 7, 3), (3, 3, 4), (2,), ((1, 1),), (2,), (2,),
                          ((0, 2, 1), (2, 1, 0), (0, 2, 1)), 1, 1),
    "2d_nchw": ((2, 3, 6, 5), (4, 3, 3, 2), (2, 1), ((1, 0), (2, 1)), (1, 2), (2, 1), NCHW, 1, 1),
    "2d_nhwc": ((2, 6, 5, 3), (3, 2, 3, 4), (1, 2), ((0, 1), (1, 1)), (2, 1), (1, 2), NHWC, 1, 1),
    "2d_mixed_specs": ((2, 5, 6, 3), (4, 3, 2, 3), (2, 2), ((1, 1), (0, 2)), (1, 1), (1, 1),
                       ((0, 3, 2, 1), (0, 1, 3, 2), (1, 0, 3, 2)), 1, 1),
    "2d_feature_groups": ((2, 4, 5, 5), (6, 2, 2, 3), (1, 2), ((1, 0), (0, 1)), (1, 1), (2, 1), NCHW, 2, 1),
    "2d_depthwise_nhwc": ((1, 5, 6, 3), (2, 3, 1, 3), (2, 1), ((1, 1), (1, 0)), (1, 2), (1, 1), NHWC, 3, 1),
    "2d_batch_groups": ((4, 3, 5, 4), (6, 3, 2, 2), (1, 1), ((0, 1), (1, 0)), (1, 1), (1, 2), NCHW, 1, 2),
    "3d": ((1, 2, 4, 3, 4), (2, 2, 2, 1, 2), (1, 2, 1), ((0, 1), (1, 0), (0, 0)), (1, 1, 2), (2, 1, 1),
           ((0, 1, 2, 3, 4),) * 3, 1, 1),
}


def _ints(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def conv_case(lhs, rhs, strides, padding, lhs_dil, rhs_dil, specs, groups, batch_groups):
    out = conv_out_shape(lhs, rhs, strides, padding, lhs_dil, rhs_dil, specs, groups, batch_groups)
    op = (f"%y = jaxc.conv_general_dilated %x0, %x1, window_strides = {_ints(strides)}, "
          f"padding = {_ints([p for pair in padding for p in pair])}, lhs_dilation = {_ints(lhs_dil)}, "
          f"rhs_dilation = {_ints(rhs_dil)}, lhs_spec = {_ints(specs[0])}, rhs_spec = {_ints(specs[1])}, "
          f"out_spec = {_ints(specs[2])}, feature_group_count = {groups}, batch_group_count = {batch_groups} "
          f": ({_type(lhs)}, {_type(rhs)}) -> {_type(out)}")
    return Case(op, [lhs, rhs], out)


@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv(name):
    lhs, rhs, *_ = params = CONVS[name]
    case = conv_case(*params)
    assert 0 not in case.out_shape
    check(case, [RNG.standard_normal(lhs), RNG.standard_normal(rhs)])


def test_conv_empty_output_has_zero_cotangents():
    case = conv_case((1, 1, 2), (1, 1, 4), (1,), ((0, 0),), (1,), (1,), NCH, 1, 1)
    assert case.out_shape == (1, 1, 0)
    dx, dw = case.vjp([np.ones((1, 1, 2)), np.ones((1, 1, 4))], np.ones((1, 1, 0)))
    assert not dx.any() and not dw.any()


@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv_against_jax(name):
    jax = jax_x64()
    lhs_shape, rhs_shape, strides, padding, lhs_dil, rhs_dil, specs, groups, batch_groups = CONVS[name]
    case = conv_case(*CONVS[name])
    lhs, rhs = RNG.standard_normal(lhs_shape), RNG.standard_normal(rhs_shape)
    ct = RNG.standard_normal(case.out_shape)

    def conv(a, b):
        return jax.lax.conv_general_dilated(
            a, b, strides, padding, lhs_dil, rhs_dil, jax.lax.ConvDimensionNumbers(*specs),
            feature_group_count=groups, batch_group_count=batch_groups)
    expected = jax.grad(lambda a, b: (conv(a, b) * ct).sum(), argnums=(0, 1))(lhs, rhs)
    for got, want in zip(case.vjp([lhs, rhs], ct), expected):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-10, atol=1e-10)



def test_conv_preferred_element_type():
    """f32 operands, an f64 result: the cotangents come back as f32, equal
    to the all-f64 adjoint's rounded."""
    f64 = conv_case(*CONVS["1d"])
    lhs, rhs = CONVS["1d"][:2]
    ins, out = f"{_type(lhs, 'f32')}, {_type(rhs, 'f32')}", _type(f64.out_shape)
    op = f64.op.replace(f"({_type(lhs)}, {_type(rhs)})", f"({ins})")
    text = f"""
func.func private @f(%x0: {_type(lhs, 'f32')}, %x1: {_type(rhs, 'f32')}) -> {out} {{
  {op}
  return %y : {out}
}}
func.func @vjp(%x0: {_type(lhs, 'f32')}, %x1: {_type(rhs, 'f32')}, %ct: {out}) -> ({ins}) {{
  %y, %c0, %c1 = jaxc.vjp @f(%x0, %x1) cotangents(%ct) : ({ins}, {out}) -> ({out}, {ins})
  return %c0, %c1 : {ins}
}}
"""
    x, w = RNG.standard_normal(lhs).astype(np.float32), RNG.standard_normal(rhs).astype(np.float32)
    ct = RNG.standard_normal(f64.out_shape)
    got = compile_module(text)["vjp"](x, w, ct)
    assert [g.dtype for g in got] == [np.float32, np.float32]
    for g, want in zip(got, f64.vjp([x.astype(np.float64), w.astype(np.float64)], ct)):
        np.testing.assert_allclose(g, want.astype(np.float32), rtol=1e-6, atol=1e-6)


# --- cumulative ------------------------------------------------------------

def cumulative_case(kind, shape, axis, reverse):
    flag = " reverse" if reverse else ""
    return Case(f"%y = jaxc.cumulative {kind} %x0, axis = {axis}{flag} : {_type(shape)}", [shape], shape)


def along(fn, x, axis, reverse):
    """fn applied to every 1-d line of x along `axis`, in scan order."""
    moved = np.moveaxis(x, axis, -1)
    if reverse:
        moved = moved[..., ::-1]
    out = np.apply_along_axis(fn, -1, moved)
    if reverse:
        out = out[..., ::-1]
    return np.moveaxis(out, -1, axis)


def prod_jacobian(x):
    """J[i, j] = product of x[k] for k <= i, k != j (j <= i), exactly."""
    n = len(x)
    return np.array([[np.prod([x[k] for k in range(i + 1) if k != j]) if j <= i else 0.0 for j in range(n)]
                     for i in range(n)])


def extreme_jacobian(x, running):
    """The convention for cummax/cummin: y[i] follows the mean of the x[j],
    j <= i, that equal y[i]."""
    y = running(x)
    attains = [[float(j <= i and x[j] == y[i]) for j in range(len(x))] for i in range(len(x))]
    return np.array([row / sum(row) for row in np.array(attains)])


JACOBIANS = {"prod": prod_jacobian, "max": lambda x: extreme_jacobian(x, np.maximum.accumulate),
             "min": lambda x: extreme_jacobian(x, np.minimum.accumulate),
             "sum": lambda x: np.tril(np.ones((len(x), len(x))))}
PRIMALS = {"prod": np.cumprod, "max": np.maximum.accumulate, "min": np.minimum.accumulate, "sum": np.cumsum}

LAYOUTS = [((9,), 0), ((4, 7), 1), ((6, 3), 0), ((2, 5, 3), 1), ((3, 17), 1)]


def check_convention(case, kind, x, axis, reverse):
    """The derivative against the rule's Jacobian, line by line."""
    t = RNG.standard_normal(x.shape)
    ct = RNG.standard_normal(x.shape)
    lines = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
    t_lines = np.moveaxis(t, axis, -1).reshape(lines.shape)
    ct_lines = np.moveaxis(ct, axis, -1).reshape(lines.shape)
    jt, jct = [], []
    for line, tl, cl in zip(lines, t_lines, ct_lines):
        flip = (lambda v: v[::-1]) if reverse else (lambda v: v)
        jac = JACOBIANS[kind](flip(line))
        jt.append(flip(jac @ flip(tl)))
        jct.append(flip(jac.T @ flip(cl)))
    moved_shape = np.moveaxis(x, axis, -1).shape
    expect_jt = np.moveaxis(np.reshape(jt, moved_shape), -1, axis)
    expect_jct = np.moveaxis(np.reshape(jct, moved_shape), -1, axis)
    np.testing.assert_allclose(case.jvp([x], [t]), expect_jt, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(case.vjp([x], ct)[0], expect_jct, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l[0]}-axis{l[1]}")
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
def test_cumulative_distinct(kind, layout, reverse):
    """Distinct values: differentiable, so finite differences apply."""
    shape, axis = layout
    case = cumulative_case(kind, shape, axis, reverse)
    x = RNG.permutation(np.prod(shape)).reshape(shape) / 4.0 - 1.0 + RNG.uniform(0, 0.1, shape)
    np.testing.assert_allclose(case.primal(x), along(PRIMALS[kind], x, axis, reverse))
    check(case, [x])
    check_convention(case, kind, x, axis, reverse)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l[0]}-axis{l[1]}")
@pytest.mark.parametrize("kind", ["max", "min"])
def test_cumulative_extreme_ties(kind, layout, reverse):
    """Ties (small integers): the tangents of the tied elements are averaged."""
    shape, axis = layout
    case = cumulative_case(kind, shape, axis, reverse)
    x = RNG.integers(0, 3, shape).astype(np.float64)
    check(case, [x], finite_differences=False)
    check_convention(case, kind, x, axis, reverse)


def test_cummax_ties_by_hand():
    case = cumulative_case("max", (6,), 0, False)
    x = np.array([3.0, 1.0, 3.0, 2.0, 3.0, 5.0])
    jacobian = np.stack([case.jvp([x], [e]) for e in np.eye(6)], axis=1)
    third = 1.0 / 3.0
    np.testing.assert_allclose(jacobian, [[1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], [0.5, 0, 0.5, 0, 0, 0],
                                          [0.5, 0, 0.5, 0, 0, 0], [third, 0, third, 0, third, 0],
                                          [0, 0, 0, 0, 0, 1]], atol=1e-15)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l[0]}-axis{l[1]}")
def test_cumprod_zeros(layout, reverse):
    """Zeros, one or several per line: exact (a polynomial, so finite
    differences apply too)."""
    shape, axis = layout
    case = cumulative_case("prod", shape, axis, reverse)
    x = RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1.0, 1.0], shape)
    x[RNG.random(shape) < 0.3] = 0.0
    x.reshape(-1)[:2] = 0.0
    check(case, [x])
    check_convention(case, "prod", x, axis, reverse)


def test_cumprod_all_zeros_and_length_one():
    case = cumulative_case("prod", (4,), 0, False)
    x = np.zeros(4)
    np.testing.assert_array_equal(case.jvp([x], [np.ones(4)]), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(case.vjp([x], np.ones(4))[0], [1.0, 0.0, 0.0, 0.0])
    one = cumulative_case("max", (3, 1), 1, True)
    x, t = RNG.standard_normal((3, 1)), RNG.standard_normal((3, 1))
    np.testing.assert_array_equal(one.jvp([x], [t]), t)
    np.testing.assert_array_equal(one.vjp([x], t)[0], t)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
def test_cumulative_against_jax(kind, reverse):
    """Against jax.grad: distinct values, zeros for prod, and ties of two
    for max/min (where JAX shares equally too)."""
    jax = jax_x64()
    shape, axis = (3, 8), 1
    x = RNG.standard_normal(shape)
    if kind == "prod":
        x[:, 2] = 0.0
        x[0, 5] = 0.0
    if kind in ("max", "min"):
        x[:, 4] = x[:, 1]  # ties of two with an earlier element (or a later one, reversed)
        x[1, 6] = x[1, 5]
    ct = RNG.standard_normal(shape)
    fn = {"sum": jax.lax.cumsum, "prod": jax.lax.cumprod, "max": jax.lax.cummax, "min": jax.lax.cummin}[kind]
    expected = jax.grad(lambda v: (fn(v, axis=axis, reverse=reverse) * ct).sum())(x)
    case = cumulative_case(kind, shape, axis, reverse)
    np.testing.assert_allclose(case.vjp([x], ct)[0], np.asarray(expected), rtol=1e-12, atol=1e-12)
    tangent = RNG.standard_normal(shape)
    _, expected_t = jax.jvp(lambda v: fn(v, axis=axis, reverse=reverse), (x,), (tangent,))
    np.testing.assert_allclose(case.jvp([x], [tangent]), np.asarray(expected_t), rtol=1e-12, atol=1e-12)


# --- second order ----------------------------------------------------------

def adjoint_case(case: Case, which: int) -> Case:
    """A case whose function is (xs..., ct) -> cotangent `which` of `case`'s
    function: its jvp and vjp differentiate the adjoint rules' output."""
    ins = [_type(s) for s in case.in_shapes]
    n, out = len(ins), _type(case.out_shape)
    params = ", ".join(f"%x{i}: {t}" for i, t in enumerate(ins))
    inner = f"func.func private @inner({params}) -> {out} {{\n  {case.op}\n  return %y : {out}\n}}\n"
    names = ", ".join("%y" if i == which else f"%c{i}" for i in range(n))
    op = (f"%p, {names} = jaxc.vjp @inner({', '.join(f'%x{i}' for i in range(n))}) cotangents(%x{n}) "
          f": ({', '.join(ins)}, {out}) -> ({out}, {', '.join(ins)})")
    return Case(op, list(case.in_shapes) + [case.out_shape], case.in_shapes[which], prelude=inner)


@pytest.mark.parametrize("name", ["1d_everything_nwc", "2d_feature_groups", "2d_depthwise_nhwc", "2d_batch_groups"])
@pytest.mark.parametrize("which", [0, 1])
def test_conv_second_order(name, which):
    """The adjoint convolutions (with feature and batch groups swapped)
    differentiated again, both ways."""
    lhs, rhs, *_ = CONVS[name]
    case = adjoint_case(conv_case(*CONVS[name]), which)
    check(case, [RNG.standard_normal(lhs), RNG.standard_normal(rhs), RNG.standard_normal(case.in_shapes[2])])


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("kind", ["prod", "max", "min"])
def test_cumulative_second_order(kind, reverse):
    shape, axis = (3, 6), 1
    case = adjoint_case(cumulative_case(kind, shape, axis, reverse), 0)
    x = RNG.permutation(18).reshape(shape) / 4.0 - 2.0 + RNG.uniform(0, 0.1, shape)
    if kind == "prod":
        x[0, 1] = x[1, 3] = x[1, 4] = 0.0
    check(case, [x, RNG.standard_normal(shape)])
