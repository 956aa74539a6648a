"""`jax.experimental.jet`: Taylor series propagation.

    from jaxc.experimental.jet import jet
    f0, (f1, f2, f3) = jet(lambda x: x ** 3, (2.0,), ((1.0, 0.0, 0.0),))
    # 8, (12, 12, 6): f and its first three derivatives along x(t) = 2 + t

`jet(fun, primals, series)`: each primal x0 (an array) comes with its series
(x1, ..., xK), the derivatives of a path x(t) = x0 + x1 t + x2 t²/2! + ...
at t = 0; the result is fun(*primals) and the derivatives (y1, ..., yK) of
fun(x(t)) at t = 0, as JAX defines them (its coefficients are derivatives,
not divided by k!). The series of the result has the structure of the
result, each leaf a list of K terms.

jaxc computes the k-th derivative by k nested `jvp`s of t -> fun(x(t))
(exact, as automatic differentiation is; the traced program doubles with
each order, so the cost grows as 2**K, where JAX's Taylor rules grow
polynomially: fine for the low orders jet is used at).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes, numpy as jnp, tree_util
from .._autodiff import jvp

__all__ = ["jet"]


def jet(fun: Callable, primals: Sequence[Any], series: Sequence[Any]) -> tuple[Any, Any]:
    """(fun(*primals), the derivatives of fun along the path the series
    describe); see the module docstring."""
    if not callable(fun):
        raise TypeError(f"jet: expected a function, got {type(fun).__name__}")
    primals, series = tuple(primals), tuple(series)
    if len(primals) != len(series):
        raise ValueError(f"jet: {len(primals)} primals but {len(series)} series (one per primal)")
    for i, x in enumerate(primals):
        if not tree_util.treedef_is_leaf(tree_util.tree_structure(x)):
            raise ValueError(f"primal value at position {i} is not an array")
    orders = {len(terms) for terms in series}
    if len(orders) > 1:
        raise ValueError(f"jet: every series must have the same number of terms, got {sorted(orders)}")
    order = orders.pop() if orders else 0
    x0 = [jnp.asarray(x) for x in primals]
    per_leaf = [[jnp.asarray(term) for term in terms] for terms in series]
    for x, terms in zip(x0, per_leaf):
        for term in terms:
            if term.shape != x.shape:
                raise TypeError(f"jet: a series term of shape {term.shape} for a primal of shape {x.shape} "
                                "(terms have the primal's shape)")
    t_dtype = dtypes.default_float()

    def along_path(t: Any) -> Any:
        point = [x + sum((_in_dtype_of(term, x) * _in_dtype_of(t, x) ** (k + 1) / math.factorial(k + 1)
                          for k, term in enumerate(leaf_terms)), jnp.zeros_like(x))
                 for x, leaf_terms in zip(x0, per_leaf)]
        return fun(*point)

    def derivative(g: Callable, k: int) -> Callable:
        if k == 0:
            return g
        inner = derivative(g, k - 1)
        return lambda t: jvp(inner, (t,), (jnp.ones((), t_dtype),))[1]

    zero = jnp.zeros((), t_dtype)
    out = fun(*primals)
    coefficients = [derivative(along_path, k)(zero) for k in range(1, order + 1)]
    out_leaves, out_tree = tree_util.tree_flatten(out)
    columns = [tree_util.tree_leaves(c) for c in coefficients]
    series_out = [[column[i] for column in columns] for i in range(len(out_leaves))]
    return out, tree_util.tree_unflatten(out_tree, series_out)


def _in_dtype_of(value: Any, like: Any) -> Any:
    """`value` in the dtype of `like` (the path's time and terms follow each primal)."""
    return value.astype(like.dtype) if np.dtype(value.dtype) != np.dtype(like.dtype) else value
