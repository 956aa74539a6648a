"""Count samplers: poisson, binomial, geometric, multinomial."""
from __future__ import annotations

__all__: list[str] = []
