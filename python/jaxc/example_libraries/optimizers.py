"""`jaxc.example_libraries.optimizers`: JAX's example optimizers, as
`jax.example_libraries.optimizers`.

An optimizer is a triple of functions over a pytree of parameters:

    from jaxc.example_libraries import optimizers
    opt_init, opt_update, get_params = optimizers.adam(1e-2)
    opt_state = opt_init({"w": w, "b": b})

    @jax.jit
    def step(i, opt_state):
        grads = jax.grad(loss)(get_params(opt_state))
        return opt_update(i, grads, opt_state)

    for i in range(100):
        opt_state = step(i, opt_state)

`opt_init(params)` builds an `OptimizerState` (a pytree: it goes through
jit, vmap and tree_map), `opt_update(i, grads, state)` takes one step (`i`
may be a traced integer) and `get_params(state)` gives the parameters back.
Step sizes are scalars or schedules (functions of the step number, such as
`exponential_decay(0.1, 100, 0.5)`).

Each optimizer is written for one array (`init`, `update`, `get_params` on a
leaf) and lifted to pytrees by the `optimizer` decorator. The arithmetic is
JAX's, in JAX's order, so trajectories match JAX's to float32 rounding
(tests/python/test_example_optimizers.py; docs/example_libraries.md).
"""
from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any, Callable, Iterable, NamedTuple

import jaxc.numpy as jnp
from jaxc.tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten

# -- types ----------------------------------------------------------------------------

Array = Any
Params = Any        # a pytree of arrays
State = Any         # the state of one leaf, itself a pytree
Updates = Params    # gradients: the structure of the parameters
Step = int
Schedule = Callable[[Step], float]

# The state of a whole parameter pytree: the flattened state of each
# parameter leaf (`packed_state`, one list of leaves per parameter), the
# parameters' structure (`tree_def`) and the structure of each leaf's state
# (`subtree_defs`). Only `packed_state` holds arrays; the structures are
# static (pytree metadata), so jit traces the state's arrays alone.
OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
register_pytree_node(
    OptimizerState,
    lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
    lambda structures, children: OptimizerState(*children, *structures))

InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    """The triple an optimizer constructor returns."""
    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


# -- the decorator --------------------------------------------------------------------

def _flatten_each(states: Iterable[Any]) -> tuple[tuple[list[Any], ...], tuple[Any, ...]]:
    """(leaves of each state, structure of each state), as two tuples."""
    flat = [tree_flatten(state) for state in states]
    return tuple(leaves for leaves, _ in flat), tuple(structure for _, structure in flat)


def _unflatten_each(structures: Iterable[Any], packed: Iterable[list[Any]]) -> list[Any]:
    return [tree_unflatten(s, leaves) for s, leaves in zip(structures, packed, strict=True)]


def optimizer(opt_maker: Callable[..., tuple[Callable, Callable, Callable]]) -> Callable[..., Optimizer]:
    """Lift an optimizer written for one array to pytrees of arrays.

    `opt_maker(*hyperparameters)` returns `(init, update, get_params)` on a
    single leaf: `init(x0) -> state`, `update(i, g, state) -> state` (the
    same structure), `get_params(state) -> x`; a state may be any pytree.
    The decorated constructor returns an `Optimizer` whose functions take
    whole parameter pytrees and keep an `OptimizerState`:

        @optimizer
        def sign_sgd(step_size):
            return (lambda x0: x0, lambda i, g, x: x - step_size * jnp.sign(g), lambda x: x)
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: Any, **kwargs: Any) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree: Params) -> OptimizerState:
            x0_leaves, tree_def = tree_flatten(x0_tree)
            packed, subtree_defs = _flatten_each(init(x0) for x0 in x0_leaves)
            return OptimizerState(packed, tree_def, subtree_defs)

        @functools.wraps(update)
        def tree_update(i: Step, grad_tree: Updates, opt_state: OptimizerState) -> OptimizerState:
            packed, tree_def, subtree_defs = opt_state
            grads, grad_def = tree_flatten(grad_tree)
            if grad_def != tree_def:
                raise TypeError(
                    f"optimizer update function got a gradient tree {grad_def} that does not match the "
                    f"parameter tree {tree_def} the optimizer state was initialized with")
            states = _unflatten_each(subtree_defs, packed)
            new_packed, new_defs = _flatten_each(
                update(i, g, state) for g, state in zip(grads, states, strict=True))
            for old, new in zip(subtree_defs, new_defs, strict=True):
                if new != old:
                    raise TypeError(
                        f"optimizer update function returned a state of structure {new} for a state of "
                        f"structure {old}: update must keep the structure of its state")
            return OptimizerState(new_packed, tree_def, subtree_defs)

        @functools.wraps(get_params)
        def tree_get_params(opt_state: OptimizerState) -> Params:
            packed, tree_def, subtree_defs = opt_state
            states = _unflatten_each(subtree_defs, packed)
            return tree_unflatten(tree_def, [get_params(state) for state in states])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


# -- optimizers -----------------------------------------------------------------------
# Each writes its update exactly as JAX's does (the same operations in the
# same order), so the floats agree with JAX's up to rounding.

def _params(state: tuple) -> Any:
    """get_params for states laid out as (x, slot, ...)."""
    return state[0]


@optimizer
def sgd(step_size: float | Schedule) -> Optimizer:
    """Stochastic gradient descent: x <- x - step_size(i) * g.

    `step_size` is a positive scalar or a schedule (step -> scalar).
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x

    return Optimizer(init, update, get_params)


@optimizer
def momentum(step_size: float | Schedule, mass: float) -> Optimizer:
    """SGD with momentum: v <- mass * v + g; x <- x - step_size(i) * v."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return Optimizer(init, update, _params)


@optimizer
def nesterov(step_size: float | Schedule, mass: float) -> Optimizer:
    """SGD with Nesterov momentum: v <- mass * v + g; x <- x - step_size(i) * (mass * v + g)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return Optimizer(init, update, _params)


@optimizer
def adagrad(step_size: float | Schedule, momentum: float = 0.9) -> Optimizer:
    """Adagrad (Duchi et al. 2011) with momentum on the scaled gradient.

    g_sq accumulates g**2; m <- (1 - momentum) * g / sqrt(g_sq) + momentum * m
    (0 where g_sq is 0); x <- x - step_size(i) * m.
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
        m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return Optimizer(init, update, _params)


@optimizer
def rmsprop(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8) -> Optimizer:
    """RMSProp: a <- gamma * a + (1 - gamma) * g**2; x <- x - step_size(i) * g / sqrt(a + eps)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return Optimizer(init, update, _params)


@optimizer
def rmsprop_momentum(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8,
                     momentum: float = 0.9) -> Optimizer:
    """RMSProp with momentum on the scaled step:
    mom <- momentum * mom + step_size(i) * g / sqrt(a + eps); x <- x - mom."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return Optimizer(init, update, _params)


@optimizer
def adam(step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """Adam (Kingma & Ba 2015): bias-corrected first and second moment
    estimates m, v; x <- x - step_size(i) * mhat / (sqrt(vhat) + eps)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        # Bias correction, with the betas' powers taken in the state's dtype.
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

    return Optimizer(init, update, _params)


@optimizer
def adamax(step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """AdaMax, Adam under the infinity norm: u <- max(b2 * u, |g|);
    x <- x - step_size(i) / (1 - b1**(i+1)) * m / (u + eps)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        corrected_step = step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        return x - corrected_step * m / (u + eps), m, u

    return Optimizer(init, update, _params)


@optimizer
def sm3(step_size: float | Schedule, momentum: float = 0.9) -> Optimizer:
    """SM3 (Anil et al. 2019): one accumulator vector per axis of each
    parameter instead of one per element, with momentum.

    The state keeps the parameter as at least 1-D and its original shape
    (a tuple of ints: pytree leaves, as in JAX).
    """
    step_size = make_schedule(step_size)

    def along(ndim, v, axis):
        # v, of shape (n,), as an ndim-array with n along `axis` (at least 1-D).
        shape = [1] * max(ndim, 1)
        shape[axis] = -1
        return jnp.reshape(v, shape)

    def init(x0):
        x_shape = jnp.shape(x0)
        x0 = jnp.atleast_1d(x0)
        accumulators = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), accumulators, x_shape

    def update(i, g, state):
        x, m, accumulators, x_shape = state
        ndim = jnp.ndim(g)
        expanded = [along(ndim, v, axis) for axis, v in enumerate(accumulators)]
        accum = functools.reduce(jnp.minimum, expanded) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
        m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        accumulators = [jnp.max(accum, axis=tuple(d for d in range(x.ndim) if d != axis))
                        for axis in range(x.ndim)]
        return x, m, accumulators, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return jnp.reshape(x, x_shape)

    return Optimizer(init, update, get_params)


# -- step-size schedules --------------------------------------------------------------
# A schedule maps the step number (a Python int or a traced integer) to a
# step size; every one is written with jnp so that a traced step works.

def constant(step_size: float) -> Schedule:
    """The same step size at every step."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size: float, decay_steps: float, decay_rate: float) -> Schedule:
    """step_size * decay_rate ** (i / decay_steps)."""
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


# decay_rate times the decay periods passed at step i: smoothly (multiplied
# before dividing, as JAX does), or whole periods with `staircase`.
_INVERSE_TIME_DECAY = {
    False: lambda i, decay_steps, decay_rate: decay_rate * i / decay_steps,
    True: lambda i, decay_steps, decay_rate: decay_rate * jnp.floor(i / decay_steps),
}


def inverse_time_decay(step_size: float, decay_steps: float, decay_rate: float,
                       staircase: bool = False) -> Schedule:
    """step_size / (1 + decay_rate * i / decay_steps); with `staircase`,
    i / decay_steps rounded down."""
    decay = _INVERSE_TIME_DECAY[bool(staircase)]

    def schedule(i):
        return step_size / (1 + decay(i, decay_steps, decay_rate))
    return schedule


def polynomial_decay(step_size: float, decay_steps: float, final_step_size: float,
                     power: float = 1.0) -> Schedule:
    """From step_size to final_step_size along (1 - i / decay_steps) ** power,
    then final_step_size from step decay_steps on."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """values[k] for steps in (boundaries[k-1], boundaries[k]]:

        piecewise_constant([10, 20], [1.0, 0.5, 0.1])   # 1.0 up to step 10, 0.5 to 20, then 0.1
    """
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError(
            f"piecewise_constant: boundaries and values must be sequences (1-D), got shapes "
            f"{boundaries.shape} and {values.shape}")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError(
            f"piecewise_constant: boundaries length must be one shorter than values length, got "
            f"{boundaries.shape[0]} boundaries and {values.shape[0]} values")

    def schedule(i):
        # The number of boundaries passed indexes the value (works traced).
        return values[jnp.sum(i > boundaries)]
    return schedule


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule as is; a scalar as a constant schedule; anything else is a TypeError."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# -- utilities ------------------------------------------------------------------------

def l2_norm(tree: Any) -> Array:
    """The l2 norm of all the leaves of a pytree together (for weight decay)."""
    leaves, _ = tree_flatten(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: float) -> Any:
    """Scale a gradient pytree down to l2 norm `max_norm` if its norm is larger."""
    norm = l2_norm(grad_tree)

    def clip(g):
        return jnp.where(norm < max_norm, g, g * (max_norm / norm))

    return tree_map(clip, grad_tree)


# -- serialization --------------------------------------------------------------------

class JoinPoint:
    """A leaf of the parameter tree in an unpacked optimizer state; it holds
    that parameter's state (`subtree`). Iterating yields the subtree."""

    def __init__(self, subtree: Any):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """The state as one plain pytree: the parameter tree with a `JoinPoint`
    holding each parameter's state at each leaf (for serialization).

        marked = unpack_optimizer_state(opt_state)
        opt_state = pack_optimizer_state(marked)   # the inverse
    """
    packed, tree_def, subtree_defs = opt_state
    states = _unflatten_each(subtree_defs, packed)
    return tree_unflatten(tree_def, [JoinPoint(state) for state in states])


def pack_optimizer_state(marked_pytree: Any) -> OptimizerState:
    """The inverse of `unpack_optimizer_state`: every leaf must be a JoinPoint
    (AssertionError otherwise, as in JAX)."""
    join_points, tree_def = tree_flatten(marked_pytree)
    if not all(isinstance(p, JoinPoint) for p in join_points):
        raise AssertionError("pack_optimizer_state: every leaf of the marked pytree must be a JoinPoint")
    packed, subtree_defs = _flatten_each(p.subtree for p in join_points)
    return OptimizerState(packed, tree_def, subtree_defs)


__all__ = ["Array", "InitFn", "JoinPoint", "Optimizer", "OptimizerState", "Params", "ParamsFn", "Schedule",
           "State", "Step", "UpdateFn", "Updates", "adagrad", "adam", "adamax", "clip_grads", "constant",
           "exponential_decay", "inverse_time_decay", "l2_norm", "make_schedule", "momentum", "nesterov",
           "optimizer", "pack_optimizer_state", "piecewise_constant", "polynomial_decay", "rmsprop",
           "rmsprop_momentum", "sgd", "sm3", "unpack_optimizer_state"]
