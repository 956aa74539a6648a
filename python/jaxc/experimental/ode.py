"""`jax.experimental.ode`: `odeint`, an adaptive Dormand-Prince (RK45) solver.

    ys = odeint(func, y0, t, *args)     # dy/dt = func(y, t, *args), ys[i] = y(t[i])

The algorithm and its numbers are JAX's:

- Steps use the Dormand-Prince 5(4) pair; a step is accepted when the RMS of
  its error estimate, scaled by ``atol + rtol * max(|y|, |y_new|)``, is at
  most 1, and the next step size is ``dt * clip(0.9 * ratio**-1/5, 0.2, 10)``
  (no shrinking below 1 after an accepted step), capped at `hmax`.
- The first step size follows Hairer, Norsett and Wanner (Solving ODEs I,
  section II.4).
- Values at the requested times come from the quartic that each accepted
  step fits through y, y_new, their derivatives and a midpoint (dense output),
  so `t` does not shorten the steps.
- The state may be a pytree; it is flattened into one vector for the solver.
- Reverse-mode derivatives (with respect to y0, t and `args`) integrate the
  adjoint system backwards in time, between each pair of output times, with
  the same solver (Chen et al., Neural ODEs, appendix C). Values `func` closes
  over that are traced (under grad or jit) become extra arguments
  (`closure_convert`), so they get derivatives too.

The solve runs as one compiled program (a `while_loop` of steps inside a
`scan` over the output times), cached per `func` and argument shapes.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from jaxc import closure_convert, core, custom_vjp, jit, lax, numpy as jnp, tree_util, vjp

__all__ = ["odeint"]


# ---------------------------------------------------------------------------
# The public function
# ---------------------------------------------------------------------------

def odeint(func: Callable, y0: Any, t: Any, *args: Any, rtol: float = 1.4e-8, atol: float = 1.4e-8,
           mxstep: float = jnp.inf, hmax: float = jnp.inf) -> Any:
    """Solve ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0``; return y at
    every time in `t` (stacked along a new first axis of each leaf of `y0`).

    `t` is a 1-D float array, increasing; `args` are arrays or scalars (or
    pytrees of them), passed to `func` and differentiable. `rtol`/`atol` are
    the local error tolerances, `mxstep` the most steps (tried, accepted or
    not) between two output times, `hmax` the largest step. All four are
    static: each distinct value compiles anew."""
    for leaf in tree_util.tree_leaves(args):
        if not _is_array_or_scalar(leaf):
            raise TypeError(f"odeint: the extra arguments *args must be arrays or scalars (or pytrees of "
                            f"them), but got {type(leaf).__name__} {leaf!r}. Pass other values to func by "
                            "closing over them.")
    if not hasattr(t, "dtype"):
        # JAX reads t.dtype too: an AttributeError there as well.
        raise AttributeError(f"odeint: t must be an array of floats, but got {type(t).__name__} {t!r} "
                             "(which has no dtype); use jnp.array(t)")
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TypeError(f"odeint: t must be an array of floats, but got dtype {t.dtype}: {t}")
    converted, consts = closure_convert(func, y0, t[0], *args)
    if not consts:
        converted = func  # the solver's jit cache then stays keyed by the user's function
    return _solve_pytree(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


def _is_array_or_scalar(x: Any) -> bool:
    """Whether `x` is a value jaxc can take as an array (JAX's valid jaxtypes)."""
    if isinstance(x, core.ArrayBase):
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return np.dtype(x.dtype).kind in "biufc"
    return isinstance(x, (bool, int, float, complex))


# ---------------------------------------------------------------------------
# Pytree state <-> one vector
# ---------------------------------------------------------------------------

def _flatten_state(tree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """The leaves of `tree` raveled and joined into one vector of their
    common dtype, and the function that splits such a vector (or a stack of
    them, along the last axis) back into the tree, each leaf in its dtype."""
    leaves, treedef = tree_util.tree_flatten(tree)
    leaves = [jnp.asarray(x) for x in leaves]
    dtype = jnp.result_type(*leaves) if leaves else jnp.zeros(()).dtype
    flat = (jnp.concatenate([jnp.ravel(x).astype(dtype) for x in leaves]) if leaves
            else jnp.zeros((0,), dtype))
    shapes = [x.shape for x in leaves]
    leaf_dtypes = [x.dtype for x in leaves]
    ends = np.cumsum([int(np.prod(s, dtype=np.int64)) for s in shapes]).tolist()

    def unflatten(vec: Any) -> Any:
        batch = vec.shape[:-1]
        parts, start = [], 0
        for shape, leaf_dtype, end in zip(shapes, leaf_dtypes, ends):
            part = vec[..., start:end].reshape(batch + shape)
            parts.append(part.astype(leaf_dtype))
            start = end
        return tree_util.tree_unflatten(treedef, parts)

    return flat, unflatten


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
def _solve_pytree(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float, y0: Any, ts: Any,
                  *args: Any) -> Any:
    """`odeint` on a pytree state: the solver runs on the flattened state."""
    y0_flat, unflatten = _flatten_state(y0)

    def flat_func(y_flat: Any, t: Any, *args: Any) -> Any:
        return _flatten_state(func(unflatten(y_flat), t, *args))[0]

    ys_flat = _solve(flat_func, rtol, atol, mxstep, hmax, y0_flat, ts, *args)
    return unflatten(ys_flat)


# ---------------------------------------------------------------------------
# Dormand-Prince 5(4)
# ---------------------------------------------------------------------------

# Stage times (fractions of the step) of stages 1..6 (stage 0 is at t).
_STAGE_TIMES = np.array([1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1., 0.])
# Row i: the weights of the earlier stages' slopes for stage i + 1.
_STAGE_WEIGHTS = np.array([
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
])
# The fifth-order solution's weights (the last stage is its slope at t + dt).
_SOLUTION_WEIGHTS = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
# Fifth- minus fourth-order weights: the local error estimate.
_ERROR_WEIGHTS = _SOLUTION_WEIGHTS - np.array(
    [1951 / 21600, 0, 22642 / 50085, 451 / 720, -12231 / 42400, 649 / 6300, 1 / 60])
# Weights giving y at the middle of the step (for the dense-output quartic).
_MIDPOINT_WEIGHTS = np.array([6025192743 / 30085553152, 0, 51252292925 / 65400821598,
                              -2691868925 / 45128329728, 187940372067 / 1594534317056,
                              -1776094331 / 19743644256, 11237099 / 235043384]) / 2


def _dopri_step(f: Callable, y: Any, f_y: Any, t: Any, dt: Any) -> tuple[Any, Any, Any, Any]:
    """One Dormand-Prince step of size `dt` from (t, y) with slope f_y:
    (y at t + dt, its slope, the error estimate, the 7 stage slopes)."""
    dtype = f_y.dtype
    dt_y = dt.astype(dtype)
    stage_times = jnp.asarray(_STAGE_TIMES, dtype=dt.dtype)
    stage_weights = jnp.asarray(_STAGE_WEIGHTS, dtype=dtype)

    def stage(i: Any, slopes: Any) -> Any:
        y_i = y + dt_y * jnp.dot(stage_weights[i - 1], slopes)
        return slopes.at[i].set(f(y_i, t + dt * stage_times[i - 1]))

    slopes = jnp.zeros((7,) + f_y.shape, dtype).at[0].set(f_y)
    slopes = lax.fori_loop(1, 7, stage, slopes)
    y_new = y + dt_y * jnp.dot(jnp.asarray(_SOLUTION_WEIGHTS, dtype=dtype), slopes)
    error = dt_y * jnp.dot(jnp.asarray(_ERROR_WEIGHTS, dtype=dtype), slopes)
    return y_new, slopes[-1], error, slopes


def _dense_output(y: Any, y_new: Any, slopes: Any, dt: Any) -> Any:
    """The coefficients (highest power first, shape (5, n)) of the quartic
    in s = (time - t) / dt through y (s=0), y_new (s=1), the midpoint
    estimate (s=1/2) and the slopes at both ends."""
    dt = dt.astype(y.dtype)
    y_mid = y + dt * jnp.dot(jnp.asarray(_MIDPOINT_WEIGHTS, dtype=y.dtype), slopes)
    h_f0, h_f1 = dt * slopes[0], dt * slopes[-1]
    a = -2. * h_f0 + 2. * h_f1 - 8. * y - 8. * y_new + 16. * y_mid
    b = 5. * h_f0 - 3. * h_f1 + 18. * y + 14. * y_new - 32. * y_mid
    c = -4. * h_f0 + h_f1 - 11. * y - 5. * y_new + 16. * y_mid
    return jnp.stack([a, b, c, h_f0, y])


def _error_ratio(error: Any, rtol: float, atol: float, y: Any, y_new: Any) -> Any:
    """RMS of the error estimate relative to the tolerance (accept if <= 1)."""
    tolerance = atol + rtol * jnp.maximum(jnp.abs(y), jnp.abs(y_new))
    scaled = error / tolerance.astype(error.dtype)
    squared = scaled.real ** 2 + scaled.imag ** 2 if jnp.iscomplexobj(scaled) else scaled ** 2
    return jnp.sqrt(jnp.mean(squared))


def _next_step_size(dt: Any, ratio: Any) -> Any:
    """The step size after a step of size `dt` with error ratio `ratio`:
    0.9 * ratio**(-1/5) times dt, between 0.2 (1 if accepted) and 10 times."""
    lowest = jnp.where(ratio < 1, 1.0, 0.2)
    factor = jnp.minimum(10.0, jnp.maximum(0.9 * ratio ** (-1.0 / 5.0), lowest))
    return jnp.where(ratio == 0, dt * 10.0, dt * factor)


def _first_step_size(f: Callable, t0: Any, y0: Any, f0: Any, rtol: float, atol: float) -> Any:
    """The initial step (Hairer, Norsett, Wanner, Solving ODEs I, II.4) for a
    method of order 4 (the error estimate's)."""
    dtype = jnp.result_type(y0, f0)
    if not jnp.issubdtype(dtype, jnp.inexact):
        dtype = jnp.zeros(()).dtype  # the default float
    y0, f0 = y0.astype(dtype), f0.astype(dtype)
    scale = (atol + jnp.abs(y0) * rtol).astype(dtype)
    norm_y0 = jnp.linalg.norm(y0 / scale)
    norm_f0 = jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((norm_y0 < 1e-5) | (norm_f0 < 1e-5), 1e-6, 0.01 * norm_y0 / norm_f0)
    f1 = f(y0 + h0.astype(dtype) * f0, t0 + h0)
    norm_df = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where((norm_f0 <= 1e-15) & (norm_df <= 1e-15),
                   jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(norm_f0, norm_df)) ** (1. / 5.))
    return jnp.minimum(100. * h0, h1)


# ---------------------------------------------------------------------------
# The solver on a flat state, and its adjoint
# ---------------------------------------------------------------------------

@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _solve(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float, y0: Any, ts: Any,
           *args: Any) -> Any:
    """y at every time of `ts` (shape (len(ts), n)) for a vector state."""
    def f(y: Any, t: Any) -> Any:
        return func(y, t, *args)

    def to_next_output(carry: list, t_out: Any) -> tuple[list, Any]:
        # State: steps tried, y, f(y), t, next dt, t of the previous accepted
        # step, and the quartic over [t_prev, t].
        def more_steps(state: list) -> Any:
            n_tried, _, _, t, dt, _, _ = state
            return (t < t_out) & (n_tried < mxstep) & (dt > 0)

        def try_step(state: list) -> list:
            n_tried, y, f_y, t, dt, t_prev, quartic = state
            y_new, f_new, error, slopes = _dopri_step(f, y, f_y, t, dt)
            ratio = _error_ratio(error, rtol, atol, y, y_new)
            accepted = ratio <= 1.
            candidate = [y_new, f_new, t + dt, t, _dense_output(y, y_new, slopes, dt)]
            current = [y, f_y, t, t_prev, quartic]
            y, f_y, t, t_prev, quartic = [jnp.where(accepted, new, old) for new, old in zip(candidate, current)]
            dt = jnp.clip(_next_step_size(dt, ratio), min=0., max=hmax)
            return [n_tried + 1, y, f_y, t, dt, t_prev, quartic]

        _, y, f_y, t, dt, t_prev, quartic = lax.while_loop(more_steps, try_step, [0] + carry)
        s = (t_out - t_prev) / (t - t_prev)
        y_out = jnp.polyval(quartic, s.astype(quartic.dtype))
        return [y, f_y, t, dt, t_prev, quartic], y_out

    f0 = f(y0, ts[0])
    dt0 = jnp.clip(_first_step_size(f, ts[0], y0, f0, rtol, atol), min=0., max=hmax)
    quartic0 = jnp.broadcast_to(y0, (5,) + y0.shape)
    _, ys = lax.scan(to_next_output, [y0, f0, ts[0], dt0, ts[0], quartic0], ts[1:])
    return jnp.concatenate([y0[None], ys])


def _solve_fwd(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float, y0: Any, ts: Any,
               *args: Any) -> tuple[Any, tuple]:
    ys = _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _solve_bwd(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float, residuals: tuple,
               ys_bar: Any) -> tuple:
    """Cotangents of y0, ts and args: the adjoint a(t) = dL/dy(t) and the
    running integrals of a . df/dt and a . df/dargs, integrated backwards
    from t[-1] to t[0] (in s = -t, so the solver runs forward), with y(t)
    recomputed along the way from ys."""
    ys, ts, args = residuals

    def augmented(state: tuple, s: Any, *args: Any) -> tuple:
        y, y_bar, _, _ = state
        y_dot, pullback = vjp(func, y, -s, *args)
        y_bar_dot, t_bar_dot, *args_bar_dot = pullback(y_bar)
        return -y_dot, y_bar_dot, t_bar_dot, tuple(args_bar_dot)

    def back_one_interval(carry: tuple, i: Any) -> tuple[tuple, Any]:
        y_bar, t0_bar, args_bar = carry
        # Moving t[i] moves the output ys[i] along f.
        t_bar = jnp.dot(func(ys[i], ts[i], *args), ys_bar[i]).real
        t0_bar = t0_bar - t_bar
        state = (ys[i], y_bar, t0_bar, args_bar)
        _, y_bar, t0_bar, args_bar = odeint(augmented, state, jnp.stack([-ts[i], -ts[i - 1]]), *args,
                                            rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_util.tree_map(lambda x: x[1], (y_bar, t0_bar, args_bar))
        return (y_bar + ys_bar[i - 1], t0_bar, args_bar), t_bar

    t0_bar = jnp.zeros((), ys.real.dtype)
    start = (ys_bar[-1], t0_bar, tree_util.tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), ts_bar_reversed = lax.scan(
        back_one_interval, start, jnp.arange(ts.shape[0] - 1, 0, -1))
    ts_bar = jnp.concatenate([t0_bar[None], ts_bar_reversed[::-1]]).astype(ts.dtype)
    return (y_bar, ts_bar, *args_bar)


_solve.defvjp(_solve_fwd, _solve_bwd)
