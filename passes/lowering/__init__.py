"""Rules of the `jaxc-to-linalg` pass, one module per op family.

Each module exports `RULES`: op name -> rule. A rule receives the jaxc op
(with the insertion point and location set just before it) and returns the
values that replace its results, built from linalg, tensor, arith and math on
signless tensors.
"""
from . import (
    callback,
    collectives,
    control_flow,
    convolution,
    elementwise,
    linalg,
    random,
    reduction,
    scatter,
    shape,
    sort,
    special,
)

RULES = {**elementwise.RULES, **shape.RULES, **reduction.RULES, **control_flow.RULES,
         **random.RULES, **convolution.RULES, **sort.RULES, **scatter.RULES, **special.RULES,
         **callback.RULES, **collectives.RULES, **linalg.RULES}
